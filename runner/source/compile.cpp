#include "runner/source/compile.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nvrtc.h>
#include <spdlog/spdlog.h>

#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/sha256.hpp"
#include "runner/common/suggest.hpp"

#ifndef BB_CUDA_INCLUDE_DIR
#define BB_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif
#ifndef BB_NVRTC_LIBRARY
#define BB_NVRTC_LIBRARY "libnvrtc.so"
#endif
#ifndef BB_NVRTC_SONAME
#define BB_NVRTC_SONAME "libnvrtc.so"
#endif

namespace bb::source {

namespace fs = std::filesystem;

namespace {

// NVRTC is opened on first use, not linked: bankbench and its built-in kernels run where NVRTC is
// not installed, and a source variant there fails with this message rather than the loader's.
struct nvrtc_api {
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetErrorString) error_string = nullptr;
  decltype(&::nvrtcCreateProgram) create = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy = nullptr;
  decltype(&::nvrtcAddNameExpression) add_name = nullptr;
  decltype(&::nvrtcCompileProgram) compile = nullptr;
  decltype(&::nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) log = nullptr;
  decltype(&::nvrtcGetLoweredName) lowered_name = nullptr;
  decltype(&::nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) cubin = nullptr;
};

template <class F> void bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr) throw environment_error(std::string("NVRTC: ") + BB_NVRTC_SONAME + " has no " + name);
}

const nvrtc_api& nvrtc() {
  static const nvrtc_api api = [] {
    // The soname first (LD_LIBRARY_PATH, the loader's cache), then the toolkit bankbench was built with.
    void* lib = dlopen(BB_NVRTC_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) lib = dlopen(BB_NVRTC_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr)
      throw environment_error(std::string("NVRTC is needed to compile source variants, and ") + BB_NVRTC_SONAME +
                              " cannot be loaded (" + dlerror() +
                              "); install the CUDA Toolkit's NVRTC (Debian/Ubuntu: cuda-nvrtc-<version>) or add its "
                              "folder to LD_LIBRARY_PATH");
    nvrtc_api a;
    bind(lib, a.version, "nvrtcVersion");
    bind(lib, a.error_string, "nvrtcGetErrorString");
    bind(lib, a.create, "nvrtcCreateProgram");
    bind(lib, a.destroy, "nvrtcDestroyProgram");
    bind(lib, a.add_name, "nvrtcAddNameExpression");
    bind(lib, a.compile, "nvrtcCompileProgram");
    bind(lib, a.log_size, "nvrtcGetProgramLogSize");
    bind(lib, a.log, "nvrtcGetProgramLog");
    bind(lib, a.lowered_name, "nvrtcGetLoweredName");
    bind(lib, a.cubin_size, "nvrtcGetCUBINSize");
    bind(lib, a.cubin, "nvrtcGetCUBIN");
    return a;
  }();
  return api;
}

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return static_cast<bool>(in) || in.eof();
}

std::string read_source(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw compile_error(path +
                        ": cannot read the kernel source: no such file (the path is relative to the experiment file)");
  if (fs::is_directory(path, ec)) throw compile_error(path + ": cannot read the kernel source: it is a folder");
  std::string text;
  if (!read_file(path, text)) throw compile_error(path + ": cannot read the kernel source");
  return text;
}

// The user headers `text` includes, followed recursively: "x.h" from the including file's folder,
// then the include folders; <x.h> from the include folders only (the toolkit's headers are covered
// by NVRTC's version in the key). Conditional includes count whichever branch is taken.
void track_includes(const fs::path& file, const std::string& text, const std::vector<std::string>& dirs,
                    std::vector<fs::path>& found, std::set<std::string>& seen) {
  static const std::regex include_line(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, include_line)) continue;
    std::vector<fs::path> candidates;
    if (m[1] == "\"") candidates.push_back(file.parent_path() / m[2].str());
    for (const auto& d : dirs) candidates.push_back(fs::path(d) / m[2].str());
    for (const auto& c : candidates) {
      std::error_code ec;
      if (!fs::is_regular_file(c, ec)) continue;
      const std::string canonical = fs::weakly_canonical(c, ec).string();
      if (!seen.insert(canonical).second) break;
      std::string header;
      if (!read_file(c, header)) break;
      found.push_back(c);
      track_includes(c, header, dirs, found, seen);
      break;
    }
  }
}

std::string source_dir(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().lexically_normal().string();
  return dir.empty() ? "." : dir;
}

struct hashed_source {
  std::string text;
  std::string hash;
  std::vector<fs::path> headers;
};

hashed_source hash_source(const std::string& path, const std::vector<std::string>& dirs) {
  hashed_source h;
  h.text = read_source(path);
  std::set<std::string> seen;
  // -I<the file's folder> comes first on NVRTC's command line: <x.h> may name a header there too.
  std::vector<std::string> searched{source_dir(path)};
  searched.insert(searched.end(), dirs.begin(), dirs.end());
  track_includes(fs::path(path), h.text, searched, h.headers, seen);
  std::string all = "source\n" + h.text;
  for (const auto& header : h.headers) {
    std::string body;
    read_file(header, body);
    all += "\nheader " + header.filename().string() + " " + std::to_string(body.size()) + "\n" + body;
  }
  h.hash = sha256_hex(all);
  return h;
}

std::string cuda_include_dir() {
  if (const char* root = std::getenv("CUDA_HOME"); root != nullptr && *root != 0) return std::string(root) + "/include";
  return BB_CUDA_INCLUDE_DIR;
}

// CUDA 13 keeps CCCL (cuda/std, cub, thrust) under include/cccl; 12.x had it in include.
std::vector<std::string> toolkit_include_dirs() {
  const std::string inc = cuda_include_dir();
  std::vector<std::string> dirs{inc};
  std::error_code ec;
  if (fs::is_directory(inc + "/cccl", ec)) dirs.push_back(inc + "/cccl");
  return dirs;
}

// NVRTC writes "path(12): error: ..."; compilers and editors read "path:12: error: ...".
std::string user_log(const std::string& log, const std::string& program_name) {
  std::string out;
  std::istringstream lines(log);
  const std::regex at(R"(^(.*)\((\d+)\): (.*)$)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, at))
      out += m[1].str() + ":" + m[2].str() + ": " + m[3].str() + "\n";
    else if (!line.empty())
      out += line + "\n";
  }
  (void)program_name;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// The __global__ functions of a source, for "did you mean": `__global__ void name(`, with
// __launch_bounds__(...) between them removed first.
std::vector<std::string> kernel_names(const std::string& text) {
  static const std::regex bounds(R"(__launch_bounds__\s*\((?:[^()]|\([^()]*\))*\))");
  static const std::regex global(R"(__global__\s+void\s+(\w+)\s*\()");
  const std::string plain = std::regex_replace(text, bounds, "");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(plain.begin(), plain.end(), global); it != std::sregex_iterator(); ++it)
    if (std::find(names.begin(), names.end(), (*it)[1].str()) == names.end()) names.push_back((*it)[1].str());
  return names;
}

// What went wrong when NVRTC could not resolve the name expression (its log then speaks of
// "__nv_name_map", a file the user never wrote).
std::string name_expression_problem(const std::string& kernel, const std::string& text) {
  const std::string base = kernel.substr(0, kernel.find('<'));
  const std::string name = base.substr(0, base.find_last_not_of(" \t") + 1);
  const auto names = kernel_names(text);
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string hint = did_you_mean(name, names);
    if (hint.empty() && !names.empty()) {
      hint = "its __global__ functions are";
      for (const auto& n : names) hint += " '" + n + "'";
    }
    return "there is no __global__ function '" + name + "' in the file" + (hint.empty() ? "" : " (" + hint + ")");
  }
  return "the template arguments of '" + kernel + "' do not instantiate '" + name + "'";
}

void check(nvrtcResult r, const char* call) {
  if (r != NVRTC_SUCCESS)
    throw environment_error(std::string("NVRTC: ") + call + " failed: " + nvrtc().error_string(r));
}

struct program {
  nvrtcProgram p = nullptr;
  ~program() {
    if (p != nullptr) nvrtc().destroy(&p);
  }
};

// A cache entry: "bankbench-nvrtc 1\n<lowered name>\n" then the cubin.
constexpr const char* k_magic = "bankbench-nvrtc 1\n";

bool read_entry(const fs::path& file, compiled_kernel& k) {
  std::string data;
  if (!read_file(file, data)) return false;
  const std::string magic(k_magic);
  if (data.compare(0, magic.size(), magic) != 0) return false;
  const auto eol = data.find('\n', magic.size());
  if (eol == std::string::npos || eol + 1 >= data.size()) return false;
  k.lowered_name = data.substr(magic.size(), eol - magic.size());
  k.cubin = data.substr(eol + 1);
  return true;
}

// Written whole or not at all, so a reader never sees a torn entry; a failure only costs the next
// run a compile.
void write_entry(const fs::path& file, const compiled_kernel& k) {
  try {
    write_file_atomically(file, [&](std::ostream& out) { out << k_magic << k.lowered_name << '\n' << k.cubin; });
  } catch (const output_error& e) {
    spdlog::debug("compile cache: {}", e.what());
  }
}

} // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtc().version(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string arch_of(int cc_major, int cc_minor) { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

std::string default_cache_dir() {
  if (const char* d = std::getenv("BB_CACHE_DIR"); d != nullptr) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != 0)
    return std::string(x) + "/bankbench/nvrtc";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != 0) return std::string(h) + "/.cache/bankbench/nvrtc";
  return {};
}

std::string source_hash(const std::string& source_path, const std::vector<std::string>& include_dirs) {
  return hash_source(source_path, include_dirs).hash;
}

compiled_kernel compile(const compile_request& rq, const std::string& cache_dir) {
  const auto t0 = std::chrono::steady_clock::now();
  const hashed_source src = hash_source(rq.source_path, rq.include_dirs);

  std::vector<std::string> options{"--gpu-architecture=" + rq.arch, "-std=c++17", "-default-device", "-lineinfo"};
  options.push_back("-I" + source_dir(rq.source_path));
  for (const auto& d : rq.include_dirs) options.push_back("-I" + d);
  for (const auto& d : toolkit_include_dirs()) options.push_back("-I" + d);
  for (const auto& d : rq.defines) options.push_back("-D" + d);

  compiled_kernel k;
  k.source_hash = src.hash;
  for (const auto& h : src.headers) k.headers.push_back(h.string());
  std::string keyed = "nvrtc " + nvrtc_version() + "\narch " + rq.arch + "\nkernel " + rq.kernel + "\nsource " +
                      src.hash;
  for (const auto& o : options) keyed += "\noption " + o;
  k.key = sha256_hex(keyed);

  const fs::path dir(cache_dir);
  const fs::path entry = dir / (k.key + ".cubin");
  if (!cache_dir.empty() && read_entry(entry, k)) {
    k.cache_hit = true;
    return k;
  }

  program prog;
  const nvrtc_api& api = nvrtc();
  check(api.create(&prog.p, src.text.c_str(), rq.source_path.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  check(api.add_name(prog.p, rq.kernel.c_str()), "nvrtcAddNameExpression");
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = api.compile(prog.p, static_cast<int>(argv.size()), argv.data());
  std::size_t log_size = 0;
  check(api.log_size(prog.p, &log_size), "nvrtcGetProgramLogSize");
  std::string log(log_size, '\0');
  if (log_size > 0) check(api.log(prog.p, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  if (compiled != NVRTC_SUCCESS) {
    const bool name_map = log.find("__nv_name_map") != std::string::npos;
    throw compile_error(rq.source_path + ": kernel '" + rq.kernel + "' does not compile for " + rq.arch +
                        (name_map ? ": " + name_expression_problem(rq.kernel, src.text) : "") + ":\n" +
                        user_log(log, rq.source_path));
  }
  const char* lowered = nullptr;
  if (api.lowered_name(prog.p, rq.kernel.c_str(), &lowered) != NVRTC_SUCCESS || lowered == nullptr)
    throw compile_error(rq.source_path + ": no __global__ function '" + rq.kernel + "' in the file");
  k.lowered_name = lowered;
  std::size_t size = 0;
  check(api.cubin_size(prog.p, &size), "nvrtcGetCUBINSize");
  k.cubin.resize(size);
  check(api.cubin(prog.p, k.cubin.data()), "nvrtcGetCUBIN");
  k.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!log.empty())
    spdlog::debug("{}: NVRTC warnings for '{}':\n{}", rq.source_path, rq.kernel, user_log(log, rq.source_path));
  if (!cache_dir.empty()) write_entry(entry, k);
  return k;
}

} // namespace bb::source
