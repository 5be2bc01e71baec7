#include "runner/source/nvcc.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "runner/common/atomic_file.hpp"
#include "runner/common/child_process.hpp"
#include "runner/common/error.hpp"

#ifndef BB_CUDA_INCLUDE_DIR
#define BB_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace bb::source {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// "Cuda compilation tools, release 13.0, V13.0.88" -> 13.0.88
bool parse_version(const std::string& text, nvcc_tool& t) {
  static const std::regex v(R"(release (\d+)\.(\d+), V([0-9.]+))");
  std::smatch m;
  if (!std::regex_search(text, m, v)) return false;
  t.major = std::stoi(m[1].str());
  t.minor = std::stoi(m[2].str());
  t.version = m[3].str();
  return true;
}

nvcc_tool locate() {
  std::vector<std::string> candidates;
  if (!env("BB_NVCC").empty()) candidates.push_back(env("BB_NVCC"));
  if (!env("CUDA_HOME").empty()) candidates.push_back(env("CUDA_HOME") + "/bin/nvcc");
  candidates.push_back((fs::path(BB_CUDA_INCLUDE_DIR).parent_path() / "bin" / "nvcc").string());
  candidates.emplace_back("nvcc");
  std::string tried;
  for (const auto& c : candidates) {
    if (c.find('/') != std::string::npos && ::access(c.c_str(), X_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + c;
      continue;
    }
    const captured r = run_captured({c, "--version"});
    nvcc_tool t;
    t.path = c;
    if (r.exit_code == 0 && parse_version(r.output, t)) {
      if (t.major < 11)
        throw environment_error("nvcc " + t.version + " (" + c +
                                ") is too old for bankbench's nvcc path: CUDA 11.0 or newer is needed; set BB_NVCC or "
                                "CUDA_HOME to a newer toolkit");
      return t;
    }
    tried += (tried.empty() ? "" : ", ") + (c == "nvcc" ? std::string("nvcc on PATH") : c);
  }
  throw environment_error("nvcc was not found (looked for " + tried +
                          "); install the CUDA Toolkit's compiler, or set BB_NVCC or CUDA_HOME");
}

struct temp_folder {
  std::string path;
  temp_folder() {
    std::string base = env("TMPDIR").empty() ? "/tmp" : env("TMPDIR");
    std::string pattern = base + "/bankbench-nvcc-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw environment_error("cannot create a temporary folder under " + base + " for nvcc: " + std::strerror(errno) +
                              "; set TMPDIR to a writable folder");
    path = pattern;
  }
  ~temp_folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  temp_folder(const temp_folder&) = delete;
  temp_folder& operator=(const temp_folder&) = delete;
};

} // namespace

const nvcc_tool& find_nvcc() {
  static const nvcc_tool tool = locate();
  return tool;
}

nvcc_output run_nvcc(const std::string& source_path, const std::string& kernel, const std::vector<std::string>& flags,
                     const std::string& arch, const std::vector<std::string>& companions, bool ptx_only) {
  const nvcc_tool& nvcc = find_nvcc();
  temp_folder tmp;
  const fs::path wrapper = fs::path(tmp.path) / k_nvcc_wrapper_name;
  {
    std::ofstream out(wrapper);
    // The user's file unchanged, then one reference that makes nvcc instantiate and keep the kernel.
    out << "#include \"" << fs::absolute(source_path).lexically_normal().string() << "\"\n"
        << "__device__ void* bankbench_kernel_address = (void*)&" << kernel << ";\n";
    for (std::size_t i = 0; i < companions.size(); ++i)
      out << "__device__ void* bankbench_kernel_address_" << i << " = (void*)&" << companions[i] << ";\n";
    if (!out) throw environment_error("cannot write " + wrapper.string() + " for nvcc");
  }
  const fs::path cubin = fs::path(tmp.path) / "kernel.cubin";
  const fs::path ptx_file = fs::path(tmp.path) / (wrapper.stem().string() + ".ptx");
  std::vector<std::string> argv{nvcc.path, ptx_only ? "-ptx" : "-cubin", "-arch=" + arch};
  argv.insert(argv.end(), flags.begin(), flags.end());
  if (ptx_only)
    argv.insert(argv.end(), {"-o", ptx_file.string(), wrapper.string()});
  else
    argv.insert(argv.end(), {"-keep", "-keep-dir", tmp.path, "-o", cubin.string(), wrapper.string()});
  const captured r = run_captured(argv);
  nvcc_output out;
  out.log = r.output;
  if (r.spawn_errno != 0) {
    out.log = "cannot run " + nvcc.path + ": " + std::strerror(r.spawn_errno);
    return out;
  }
  if (r.exit_code != 0) return out;
  std::string ptx;
  if (!read_whole_file(ptx_file, ptx) || (!ptx_only && !read_whole_file(cubin, out.cubin))) {
    out.log += "\nnvcc succeeded but left no " + ptx_file.filename().string() + (ptx_only ? "" : " or cubin");
    return out;
  }
  // ".global .align 8 .u64 bankbench_kernel_address = _Z9transposeIL6layout1ELi32EEvPf;"
  static const std::regex address(R"(bankbench_kernel_address\s*=\s*(?:generic\()?\s*([A-Za-z_$][A-Za-z0-9_$]*))");
  std::smatch m;
  if (!std::regex_search(ptx, m, address)) {
    out.log += "\nnvcc's PTX does not name the kernel's symbol";
    return out;
  }
  out.lowered_name = m[1].str();
  for (std::size_t i = 0; i < companions.size(); ++i) {
    const std::regex other("bankbench_kernel_address_" + std::to_string(i) +
                           R"(\s*=\s*(?:generic\()?\s*([A-Za-z_$][A-Za-z0-9_$]*))");
    if (!std::regex_search(ptx, m, other)) {
      out.log += "\nnvcc's PTX does not name the symbol of " + companions[i];
      return out;
    }
    out.companion_names.push_back(m[1].str());
  }
  out.ptx = std::move(ptx);
  out.ok = true;
  return out;
}

} // namespace bb::source
