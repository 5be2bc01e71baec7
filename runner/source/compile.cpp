#include "runner/source/compile.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <nvrtc.h>
#include <spdlog/spdlog.h>

#include "runner/common/atomic_file.hpp"
#include "runner/common/error.hpp"
#include "runner/common/sha256.hpp"
#include "runner/common/suggest.hpp"
#include "runner/source/nvcc.hpp"
#include "runner/source/std_layer.hpp"
#include "runner/source/track.hpp"

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
  decltype(&::nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) ptx = nullptr;
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
    bind(lib, a.ptx_size, "nvrtcGetPTXSize");
    bind(lib, a.ptx, "nvrtcGetPTX");
    return a;
  }();
  return api;
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

// NVRTC and nvcc write "path(12): error: ..."; compilers and editors read "path:12: error: ...".
// nvcc's wrapper file is named as what it is: the kernel instance bankbench asked for.
std::string user_log(const std::string& log, const std::string& kernel) {
  std::string out;
  std::istringstream lines(log);
  const std::regex at(R"(^(.*)\((\d+)\): (.*)$)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, at)) {
      std::string file = m[1].str();
      if (fs::path(file).filename() == k_nvcc_wrapper_name) file = "(the instance " + kernel + ")";
      out += file + ":" + m[2].str() + ": " + m[3].str() + "\n";
    } else if (!line.empty() && line.find(k_nvcc_wrapper_name) == std::string::npos) {
      out += line + "\n";
    }
  }
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

// What went wrong when the compiler could not resolve the name expression (NVRTC's log then
// speaks of "__nv_name_map", nvcc's of the wrapper: files the user never wrote).
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

// A cache entry: "bankbench-kernel 3\n", then "name <lowered name>\n", "arch <arch>\n",
// "compiler <compiler>\n", "options <every flag>\n", "fallback <why nvcc>\n", "ptx-only\n" (a
// compile_request::ptx_only entry, whose cubin is 0 bytes), "cubin <bytes>\n", a blank line, the
// cubin and the PTX. Under an NVRTC key, "nvcc <why>\n" and a blank line instead: NVRTC cannot compile this
// file, ask nvcc.
constexpr const char* k_magic = "bankbench-kernel 3\n";

struct entry {
  compiled_kernel kernel;
  std::string use_nvcc; ///< the NVRTC entry says: NVRTC cannot, because ...
};

bool read_entry(const fs::path& file, entry& e) {
  std::string data;
  if (!read_whole_file(file, data)) return false;
  const std::string magic(k_magic);
  if (data.compare(0, magic.size(), magic) != 0) return false;
  std::size_t at = magic.size(), cubin_bytes = 0;
  bool ptx_only = false;
  while (at < data.size() && data[at] != '\n') {
    const auto eol = data.find('\n', at);
    if (eol == std::string::npos) return false;
    const std::string line = data.substr(at, eol - at);
    const auto space = line.find(' ');
    const std::string key = line.substr(0, space), value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "name") e.kernel.lowered_name = value;
    if (key == "arch") e.kernel.arch = value;
    if (key == "compiler") e.kernel.compiler = value;
    if (key == "fallback") e.kernel.fallback = value;
    if (key == "options") e.kernel.options = value;
    if (key == "nvcc") e.use_nvcc = value.empty() ? "NVRTC cannot compile it" : value;
    if (key == "cubin") cubin_bytes = std::strtoull(value.c_str(), nullptr, 10);
    if (key == "ptx-only") ptx_only = true;
    at = eol + 1;
  }
  if (at >= data.size()) return false;
  if (!e.use_nvcc.empty()) return true;
  if ((cubin_bytes == 0 && !ptx_only) || cubin_bytes > data.size() - at - 1) return false;
  e.kernel.cubin = data.substr(at + 1, cubin_bytes);
  e.kernel.ptx = data.substr(at + 1 + cubin_bytes);
  return !e.kernel.lowered_name.empty() && !e.kernel.ptx.empty();
}

// Written whole or not at all, so a reader never sees a torn entry; a failure only costs the next
// run a compile.
void write_entry(const fs::path& file, const compiled_kernel& k, const std::string& use_nvcc = {}) {
  try {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    write_file_atomically(file, [&](std::ostream& out) {
      out << k_magic;
      if (!use_nvcc.empty()) {
        out << "nvcc " << use_nvcc << "\n\n";
        return;
      }
      out << "name " << k.lowered_name << "\narch " << k.arch << "\ncompiler " << k.compiler << "\noptions "
          << k.options << "\n";
      if (!k.fallback.empty()) out << "fallback " << k.fallback << "\n";
      if (k.cubin.empty()) out << "ptx-only\n";
      out << "cubin " << k.cubin.size() << "\n\n" << k.cubin << k.ptx;
    });
  } catch (const error& e) {
    spdlog::debug("compile cache: {}", e.what());
  }
}

// "-arch=sm_90a", "--gpu-architecture sm_90a" and the like among the user's options: the
// architecture is the GPU's, so the only choice is its arch-specific twin.
std::string arch_in_options(std::vector<std::string>& options, const std::string& arch, const std::string& file) {
  static const std::regex arch_flag(
      R"(^(-arch|--gpu-architecture|-gencode|--generate-code|-code|--gpu-code)(=(.*))?$)");
  std::string chosen = arch;
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < options.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(options[i], m, arch_flag)) {
      kept.push_back(options[i]);
      continue;
    }
    std::string value = m[2].matched ? m[3].str() : (i + 1 < options.size() ? options[++i] : "");
    const std::string base = arch.back() == 'a' ? arch.substr(0, arch.size() - 1) : arch;
    if (value == base || value == base + "a" || value == "compute" + base.substr(2) ||
        value == "compute" + base.substr(2) + "a")
      chosen = value.back() == 'a' ? base + "a" : base;
    else
      throw compile_error(file + ": options: '" + m[1].str() + (value.empty() ? "" : "=" + value) +
                          "': the architecture is the GPU's (" + base + "); bankbench compiles for " + base +
                          "a by itself when the kernel needs it, or write -arch=" + base + "a to ask for it");
  }
  options = kept;
  return chosen;
}

bool has_std_option(const std::vector<std::string>& options) {
  return std::any_of(options.begin(), options.end(),
                     [](const std::string& o) { return o.rfind("-std=", 0) == 0 || o.rfind("--std=", 0) == 0; });
}

// ptxas's words when an instruction exists only on the arch-specific target (wgmma, setmaxnreg,
// some TMA forms): "Instruction 'wgmma.fence' not supported on .target 'sm_90'".
bool needs_arch_specific(const std::string& log, const std::string& arch) {
  return arch.back() != 'a' && log.find("not supported on .target '" + arch + "'") != std::string::npos;
}

// The header a log says cannot be opened, with the file and line that includes it.
struct missing_header {
  std::string name, where;
};

std::optional<missing_header> missing_header_in(const std::string& log) {
  static const std::regex open(R"re((?:^|\n)(.*?)\((\d+)\): catastrophic error: cannot open source file "([^"]+)")re");
  static const std::regex gcc_open(R"re((?:^|\n)([^\n:]*):(\d+):\d+: fatal error: ([^:\n]+): No such file)re");
  std::smatch m;
  if (std::regex_search(log, m, open) || std::regex_search(log, m, gcc_open))
    return missing_header{m[3].str(), m[1].str() + ":" + m[2].str()};
  return std::nullopt;
}

// A header of the host's C and C++ libraries, which nvcc finds and NVRTC does not.
bool host_library_header(const std::string& name) {
  std::error_code ec;
  for (const char* dir : {"/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/aarch64-linux-gnu"})
    if (fs::is_regular_file(fs::path(dir) / name, ec)) return true;
  if (fs::is_directory("/usr/include/c++", ec))
    for (const auto& version : fs::directory_iterator("/usr/include/c++", ec))
      if (fs::is_regular_file(version.path() / name, ec)) return true;
  return false;
}

// Why NVRTC cannot compile a file that nvcc might: empty when the log shows an ordinary error
// (a header that is nowhere, a syntax error), which nvcc would only repeat.
std::string why_not_nvrtc(const std::string& log, nvrtcResult result) {
  if (result == NVRTC_ERROR_INVALID_OPTION) return "NVRTC does not take one of the options";
  if (const auto h = missing_header_in(log)) {
    if (const auto host = host_only_header(h->name)) return *host + ", which NVRTC cannot compile";
    if (host_library_header(h->name)) return "<" + h->name + "> is a host library header, which NVRTC cannot open";
    return {};
  }
  if (log.find("not allowed in JIT mode") != std::string::npos) return "it has host code, which NVRTC cannot compile";
  return {};
}

std::string searched_folders(const compile_request& rq) {
  std::string s = source_dir(rq.source_path);
  for (const auto& d : rq.include_dirs) s += ", " + d;
  for (const auto& d : toolkit_include_dirs()) s += ", " + d;
  return s;
}

// A compile error's words: the header that cannot be found, named with where it was looked for and
// the fix; a name expression that does not resolve; otherwise the compiler's log at the user's lines.
[[noreturn]] void fail(const compile_request& rq, const std::string& compiler, const std::string& arch,
                       const std::string& log, const std::string& note = {}) {
  std::string head = rq.source_path + ": kernel '" + rq.kernel + "' does not compile for " + arch + " with " + compiler;
  if (!note.empty()) head += " (" + note + ")";
  if (const auto h = missing_header_in(log)) {
    std::string fix;
    if (const auto host = host_only_header(h->name))
      fix = *host + ": NVRTC compiles device code only; use `compiler: nvcc` (or `auto`), or remove the include";
    else
      fix = "add its folder to `include:` (in `source:` or the variant)" +
            std::string(compiler.rfind("nvrtc", 0) == 0 ? ", or use `compiler: nvcc`" : "");
    throw compile_error(head + ":\n" + h->where + ": cannot open <" + h->name + ">: looked in " + searched_folders(rq) +
                        "; " + fix);
  }
  const bool name_map = log.find("__nv_name_map") != std::string::npos ||
                        log.find(k_nvcc_wrapper_name) != std::string::npos;
  std::string mapped = log;
  const std::string absolute = fs::absolute(rq.source_path).lexically_normal().string();
  for (std::size_t at = 0; (at = mapped.find(absolute, at)) != std::string::npos; at += rq.source_path.size())
    mapped.replace(at, absolute.size(), rq.source_path);
  std::string text;
  if (name_map) try {
      text = read_source(rq.source_path);
    } catch (const error&) {
    }
  throw compile_error(head + (name_map ? ": " + name_expression_problem(rq.kernel, text) : "") + ":\n" +
                      user_log(mapped, rq.kernel));
}

// The flags both compilers get: line info, the includes, the defines, C++17 unless the user chose.
std::vector<std::string> common_flags(const compile_request& rq, const std::vector<std::string>& user) {
  std::vector<std::string> f{"-lineinfo"};
  if (!has_std_option(user)) f.emplace_back("-std=c++17");
  f.push_back("-I" + source_dir(rq.source_path));
  for (const auto& d : rq.include_dirs) f.push_back("-I" + d);
  for (const auto& d : rq.defines) f.push_back("-D" + d);
  f.insert(f.end(), user.begin(), user.end());
  return f;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

std::string key_of(const std::string& compiler, const std::string& arch, const compile_request& rq,
                   const std::string& source_hash, const std::vector<std::string>& flags) {
  std::string keyed = compiler + "\narch " + arch + "\nkernel " + rq.kernel + "\nsource " + source_hash;
  if (compiler.rfind("nvrtc", 0) == 0) keyed += "\nlayer " + std_layer_hash();
  for (const auto& o : flags) keyed += "\noption " + o;
  if (rq.ptx_only) keyed += "\nptx only";
  return sha256_hex(keyed);
}

struct attempt {
  bool ok = false;
  compiled_kernel k;
  std::string log;
  nvrtcResult result = NVRTC_SUCCESS;
  std::vector<std::string> companion_names; ///< nvcc: the companions' mangled names, in order
};

attempt with_nvrtc(const compile_request& rq, const std::string& arch, const std::vector<std::string>& flags) {
  // PTX alone: the virtual architecture of `arch` (sm_90a: compute_90a), so NVRTC runs no ptxas.
  const std::string target = rq.ptx_only ? "compute_" + arch.substr(arch.find('_') + 1) : arch;
  std::vector<std::string> options{"--gpu-architecture=" + target, "-default-device"};
  options.insert(options.end(), flags.begin(), flags.end());
  for (const auto& d : toolkit_include_dirs()) options.push_back("-I" + d);
  const std::string text = read_source(rq.source_path);
  const auto& layer = std_layer();
  std::vector<const char*> names, texts;
  for (const auto& h : layer) {
    names.push_back(h.name.c_str());
    texts.push_back(h.text.c_str());
  }
  program prog;
  const nvrtc_api& api = nvrtc();
  check(api.create(&prog.p, text.c_str(), rq.source_path.c_str(), static_cast<int>(layer.size()), texts.data(),
                   names.data()),
        "nvrtcCreateProgram");
  check(api.add_name(prog.p, rq.kernel.c_str()), "nvrtcAddNameExpression");
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  attempt a;
  a.result = api.compile(prog.p, static_cast<int>(argv.size()), argv.data());
  std::size_t log_size = 0;
  check(api.log_size(prog.p, &log_size), "nvrtcGetProgramLogSize");
  a.log.assign(log_size, '\0');
  if (log_size > 0) check(api.log(prog.p, a.log.data()), "nvrtcGetProgramLog");
  while (!a.log.empty() && (a.log.back() == '\0' || a.log.back() == '\n')) a.log.pop_back();
  a.k.options = joined(options);
  a.k.arch = arch;
  if (a.result != NVRTC_SUCCESS) return a;
  const char* lowered = nullptr;
  if (api.lowered_name(prog.p, rq.kernel.c_str(), &lowered) != NVRTC_SUCCESS || lowered == nullptr)
    throw compile_error(rq.source_path + ": no __global__ function '" + rq.kernel + "' in the file");
  a.k.lowered_name = lowered;
  std::size_t size = 0;
  if (!rq.ptx_only) {
    check(api.cubin_size(prog.p, &size), "nvrtcGetCUBINSize");
    a.k.cubin.resize(size);
    check(api.cubin(prog.p, a.k.cubin.data()), "nvrtcGetCUBIN");
  }
  check(api.ptx_size(prog.p, &size), "nvrtcGetPTXSize");
  a.k.ptx.resize(size);
  check(api.ptx(prog.p, a.k.ptx.data()), "nvrtcGetPTX");
  while (!a.k.ptx.empty() && a.k.ptx.back() == '\0') a.k.ptx.pop_back();
  if (!a.log.empty())
    spdlog::debug("{}: NVRTC warnings for '{}':\n{}", rq.source_path, rq.kernel, user_log(a.log, rq.kernel));
  a.ok = true;
  return a;
}

attempt with_nvcc(const compile_request& rq, const std::string& arch, const std::vector<std::string>& flags,
                  const std::vector<std::string>& companions) {
  attempt a;
  nvcc_output out = run_nvcc(rq.source_path, rq.kernel, flags, arch, companions, rq.ptx_only);
  a.log = out.log;
  a.k.options = "-arch=" + arch + (rq.ptx_only ? " -ptx " : " ") + joined(flags);
  a.k.arch = arch;
  if (!out.ok) return a;
  a.k.cubin = std::move(out.cubin);
  a.k.ptx = std::move(out.ptx);
  a.k.lowered_name = out.lowered_name;
  a.companion_names = std::move(out.companion_names);
  a.ok = true;
  return a;
}

} // namespace

void note_fallback(const std::string& file, const std::string& why) {
  static std::mutex m;
  static std::set<std::string> said;
  const std::lock_guard lock(m);
  if (said.insert(file).second) spdlog::info("{}: compiled with nvcc: {}", file, why);
}

const char* name_of(compiler_choice c) {
  switch (c) {
  case compiler_choice::nvrtc: return "nvrtc";
  case compiler_choice::nvcc: return "nvcc";
  case compiler_choice::automatic: break;
  }
  return "auto";
}

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
  return track_source(source_path, include_dirs, default_cache_dir()).hash;
}

namespace {

// compile() and find_cached(): the latter returns nullopt where the former would compile.
std::optional<compiled_kernel> compile_or_find(const compile_request& rq, const std::string& cache_dir,
                                               bool may_compile, std::size_t* headers = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  const tracked_source src = track_source(rq.source_path, rq.include_dirs, cache_dir);
  if (headers != nullptr) *headers = src.headers.size();
  std::vector<std::string> user = rq.options;
  std::string arch = arch_in_options(user, rq.arch, rq.source_path);
  const std::vector<std::string> flags = common_flags(rq, user);
  const fs::path dir(cache_dir);

  const auto finish = [&](compiled_kernel k, const std::string& key, bool hit) {
    k.key = key;
    k.source_hash = src.hash;
    k.headers = src.headers;
    k.cache_hit = hit;
    if (k.arch.empty()) k.arch = arch;
    k.compile_ms = hit ? 0 : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return k;
  };

  // A ptx_only request takes the same kernel's entry with a cubin where there is one (`bankbench
  // compile`, a GPU run): its PTX is the same. Its key, or "" where there is none to read.
  const auto full_entry = [&](const std::string& compiler, entry& found) {
    if (cache_dir.empty() || !rq.ptx_only) return std::string();
    compile_request full = rq;
    full.ptx_only = false;
    const std::string key = key_of(compiler, arch, full, src.hash, flags);
    return read_entry(dir / (key + ".cubin"), found) ? key : std::string();
  };
  std::string fallback;
  if (rq.compiler != compiler_choice::nvcc) {
    const std::string compiler = "nvrtc " + nvrtc_version();
    const std::string key = key_of(compiler, arch, rq, src.hash, flags);
    const fs::path file = dir / (key + ".cubin");
    entry e, with_cubin;
    if (const std::string full_key = full_entry(compiler, with_cubin); !full_key.empty()) {
      if (with_cubin.use_nvcc.empty()) return finish(with_cubin.kernel, full_key, true);
      if (rq.compiler == compiler_choice::automatic) fallback = with_cubin.use_nvcc;
    }
    if (!cache_dir.empty() && fallback.empty() && read_entry(file, e)) {
      if (e.use_nvcc.empty()) return finish(e.kernel, key, true);
      if (rq.compiler == compiler_choice::automatic) fallback = e.use_nvcc;
    }
    if (fallback.empty()) {
      if (!may_compile) return std::nullopt;
      attempt a = with_nvrtc(rq, arch, flags);
      if (!a.ok && needs_arch_specific(a.log, arch)) a = with_nvrtc(rq, arch + "a", flags);
      if (a.ok) {
        a.k.compiler = compiler;
        if (!cache_dir.empty()) write_entry(file, a.k);
        return finish(a.k, key, false);
      }
      const std::string why = why_not_nvrtc(a.log, a.result);
      if (rq.compiler == compiler_choice::nvrtc || why.empty()) fail(rq, compiler, arch, a.log);
      fallback = why;
      if (!cache_dir.empty()) write_entry(file, {}, why);
    }
  }

  const std::string compiler = "nvcc " + find_nvcc().version;
  const std::string key = key_of(compiler, arch, rq, src.hash, flags);
  const fs::path file = dir / (key + ".cubin");
  if (!fallback.empty()) note_fallback(rq.source_path, fallback);
  entry e, with_cubin;
  if (const std::string full_key = full_entry(compiler, with_cubin); !full_key.empty() && with_cubin.use_nvcc.empty()) {
    with_cubin.kernel.fallback = fallback;
    return finish(with_cubin.kernel, full_key, true);
  }
  if (!cache_dir.empty() && read_entry(file, e) && e.use_nvcc.empty()) {
    e.kernel.fallback = fallback;
    return finish(e.kernel, key, true);
  }
  if (!may_compile) return std::nullopt;
  // The companions the cache lacks join this nvcc run, each cached under its own key.
  std::vector<std::string> companions;
  std::vector<fs::path> companion_files;
  if (!cache_dir.empty())
    for (const auto& c : rq.companions) {
      compile_request other = rq;
      other.kernel = c;
      other.companions.clear();
      const fs::path f = dir / (key_of(compiler, arch, other, src.hash, flags) + ".cubin");
      entry seen;
      if (c == rq.kernel || (read_entry(f, seen) && seen.use_nvcc.empty())) continue;
      companions.push_back(c);
      companion_files.push_back(f);
    }
  const auto attempt_with = [&](const std::vector<std::string>& with) {
    attempt t = with_nvcc(rq, arch, flags, with);
    if (!t.ok && needs_arch_specific(t.log, arch)) t = with_nvcc(rq, arch + "a", flags, with);
    return t;
  };
  attempt a = attempt_with(companions);
  if (!a.ok && !companions.empty()) { // a companion that does not compile fails only itself, later
    companions.clear();
    companion_files.clear();
    a = attempt_with({});
  }
  if (!a.ok)
    fail(rq, compiler, a.k.arch.empty() ? arch : a.k.arch, a.log,
         fallback.empty() ? "" : "NVRTC could not either: " + fallback);
  a.k.compiler = compiler;
  a.k.fallback = fallback;
  if (!cache_dir.empty()) {
    write_entry(file, a.k);
    for (std::size_t i = 0; i < companions.size() && i < a.companion_names.size(); ++i) {
      compiled_kernel other = a.k;
      other.lowered_name = a.companion_names[i];
      other.fallback.clear();
      write_entry(companion_files[i], other);
    }
  }
  return finish(a.k, key, false);
}

} // namespace

compiled_kernel compile(const compile_request& rq, const std::string& cache_dir) {
  return *compile_or_find(rq, cache_dir, true);
}

std::optional<compiled_kernel> find_cached(const compile_request& rq, const std::string& cache_dir,
                                           std::size_t* headers) {
  if (cache_dir.empty()) {
    if (headers != nullptr) *headers = track_source(rq.source_path, rq.include_dirs, cache_dir).headers.size();
    return std::nullopt;
  }
  return compile_or_find(rq, cache_dir, false, headers);
}

} // namespace bb::source
