// A source variant's configuration on the GPU: its kernel loaded from the cubin through the
// runtime (cudaLibraryLoadData: the runtime loads libcuda itself, as for everything else), its
// parameters checked with cuKernelGetParamInfo (from cudaGetDriverEntryPointByVersion), its
// buffers allocated from the pool and filled on the host.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "kernels/common/readback.cuh"
#include "runner/common/path_text.hpp"
#include "runner/common/sha256.hpp"
#include "runner/config/expression.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/launch/device_memory.hpp"
#include "runner/registry/compiled_problem.hpp"
#include "runner/source/compile.hpp"
#include "runner/source/emulate.hpp"
#include "runner/source/inputs.hpp"
#include "runner/source/known_kernels.hpp"
#include "runner/source/launch_args.hpp"
#include "runner/source/shared_bytes.hpp"
#include "runner/source/variants.hpp"

namespace bb::source {

namespace {

// The kernels loaded in this process, by compile key: loaded once, kept for the process's life.
struct loaded {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  std::vector<std::size_t> param_sizes;
};

using param_info_fn = CUresult (*)(CUkernel, size_t, size_t*, size_t*);

// A driver function through the runtime (nothing links libcuda); null where this driver lacks it.
void* driver_entry(const char* name, unsigned version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return p;
}

param_info_fn param_info() {
  static const auto fn = reinterpret_cast<param_info_fn>(driver_entry("cuKernelGetParamInfo", 12040));
  return fn;
}

using encode_tiled_fn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                     const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                     CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

encode_tiled_fn encode_tiled(const std::string& where) {
  static const auto fn = reinterpret_cast<encode_tiled_fn>(driver_entry("cuTensorMapEncodeTiled", 12000));
  if (fn == nullptr)
    throw unsupported_parameter(where + ": this driver has no cuTensorMapEncodeTiled (tensor maps need CUDA 12)");
  return fn;
}

CUtensorMapDataType tensor_type_of(const element_type& t) {
  const std::string n = t.name;
  if (n == "float") return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  if (n == "double") return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  if (n == "float16") return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if (n == "bfloat16") return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (n == "int32") return CU_TENSOR_MAP_DATA_TYPE_INT32;
  if (n == "uint32") return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  if (n == "int64") return CU_TENSOR_MAP_DATA_TYPE_INT64;
  if (n == "uint64") return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  return t.bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_UINT16; // the bits of (u)int8, (u)int16
}

// The CUtensorMap of tensor-map argument `a` over the buffer at `global`: its 128 bytes.
std::vector<unsigned char> encoded_map(const std::string& where, const config::source_arg& a, const element_type& t,
                                       const nlohmann::json& params, void* global) {
  const ptx::tensor_map m = tensor_map_of(a, t, params, where, reinterpret_cast<std::uint64_t>(global));
  cuuint64_t dims[5] = {}, strides[4] = {};
  cuuint32_t box[5] = {}, element_strides[5] = {};
  for (std::uint32_t k = 0; k < m.rank; ++k) {
    dims[k] = m.dims[k];
    box[k] = m.box[k];
    element_strides[k] = 1;
    if (k > 0) strides[k - 1] = m.strides[k];
  }
  static constexpr CUtensorMapSwizzle k_swizzle[4] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                                                      CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
  CUtensorMap map{};
  const CUresult r = encode_tiled(where)(&map, tensor_type_of(t), m.rank, global, dims, strides, box, element_strides,
                                         CU_TENSOR_MAP_INTERLEAVE_NONE, k_swizzle[m.swizzle_bits],
                                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw unsupported_parameter(where + ": cuTensorMapEncodeTiled refused tensor map '" + a.name + "' (CUresult " +
                                std::to_string(static_cast<int>(r)) + ")");
  std::vector<unsigned char> out(sizeof map);
  std::memcpy(out.data(), &map, sizeof map);
  return out;
}

const loaded& load(const compiled_kernel& k) {
  static std::mutex mutex;
  static std::map<std::string, loaded> kernels;
  std::lock_guard<std::mutex> lock(mutex);
  int device = 0;
  BB_CUDA_CALL(cudaGetDevice(&device));
  const std::string key = k.key + "/" + std::to_string(device);
  if (const auto it = kernels.find(key); it != kernels.end()) return it->second;
  loaded l;
  BB_CUDA_CALL(cudaLibraryLoadData(&l.library, k.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  BB_CUDA_CALL(cudaLibraryGetKernel(&l.kernel, l.library, k.lowered_name.c_str()));
  if (const auto fn = param_info()) {
    for (std::size_t i = 0;; ++i) {
      std::size_t offset = 0, size = 0;
      if (fn(reinterpret_cast<CUkernel>(l.kernel), i, &offset, &size) != CUDA_SUCCESS) break;
      l.param_sizes.push_back(size);
    }
  }
  return kernels.emplace(key, std::move(l)).first->second;
}

std::string current_arch() {
  int device = 0, major = 0, minor = 0;
  BB_CUDA_CALL(cudaGetDevice(&device));
  BB_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  BB_CUDA_CALL(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return arch_of(major, minor);
}

std::vector<std::string> defines_of(const config::source_variant& v, const nlohmann::json& params) {
  std::vector<std::string> out;
  for (const auto& [name, text] : v.defines) {
    const std::string value = config::substitute_params(text, params);
    std::string shown = value;
    try { // an integer expression becomes its value; anything else (a type name) goes as written
      shown = std::to_string(
          config::evaluate(value, [](const std::string&) -> std::optional<std::int64_t> { return std::nullopt; }));
    } catch (const config::expression_error&) {
    }
    out.push_back(name + "=" + shown);
  }
  return out;
}

compiler_choice choice_of(const std::string& name) {
  if (name == "nvrtc") return compiler_choice::nvrtc;
  if (name == "nvcc") return compiler_choice::nvcc;
  return compiler_choice::automatic;
}

struct buffer {
  launch::device_block block;
  std::size_t count = 0, bytes = 0;
  const element_type* type = nullptr;
  const config::source_arg* arg = nullptr;
  shared_bytes::handle reset; ///< an output read by the kernel: its initial contents, restored before verifying
  buffer() = default;
  buffer(buffer&& o) noexcept
      : block(std::exchange(o.block, {})),
        count(o.count),
        bytes(o.bytes),
        type(o.type),
        arg(o.arg),
        reset(std::move(o.reset)) {}
  buffer& operator=(buffer&&) = delete;
  buffer(const buffer&) = delete;
  ~buffer() { launch::device_release(block); }
};

class source_problem final : public compiled_problem {
public:
  source_problem(const config::experiment& exp, const config::source_variant& variant, const nlohmann::json& params,
                 std::uint64_t seed, const std::string& cache_dir, bool with_check = true)
      : m_variant(config::with_types_at(variant, params)) {
    const config::source_variant& v = m_variant; // argument types that name an axis resolved
    const std::string where = exp.name + "/" + v.name;
    config::check_source_configuration(exp, v, params);
    // The variant as written: request_of spells its type axes' values as C++ types.
    const compiled_kernel k = compile_known(request_of(variant, params, current_arch()), cache_dir);
    m_compile = {k.key, k.compile_ms, k.compiler, k.options};
    const loaded& l = load(k);
    m_kernel = l.kernel;
    geometry(where, params);
    m_values.resize(v.args.size());
    for (std::size_t i = 0; i < v.args.size(); ++i) prepare_arg(where, v.args[i], i, params, seed);
    check_params(where, l, k);
    if (with_check && v.check) expected_outputs(exp, *v.check, params, seed, cache_dir);
  }

  void launch(void* stream) override {
    std::vector<void*> argv;
    for (auto& value : m_values) argv.push_back(value.data());
    BB_CUDA_CALL(cudaLaunchKernel(reinterpret_cast<const void*>(m_kernel), m_grid, m_block, argv.data(), m_shared,
                                  static_cast<cudaStream_t>(stream)));
  }

  void poison_output() override {
    for (auto& b : m_buffers) {
      if (!b.arg->output) continue;
      if (b.reset)
        BB_CUDA_CALL(cudaMemcpy(b.block.ptr, b.reset->front().data(), b.bytes, cudaMemcpyHostToDevice));
      else if (b.arg->init_given)
        BB_CUDA_CALL(cudaMemset(b.block.ptr, 0, b.bytes)); // init: zeros
      else
        BB_CUDA_CALL(cudaMemset(b.block.ptr, 0xff, b.bytes)); // NaN for floats
    }
  }

  verify_result verify() override {
    verify_result r;
    if (!m_variant.check) {
      r.ok = true;
      return r;
    }
    r.ok = true;
    std::size_t o = 0;
    for (auto& b : m_buffers) {
      if (!b.arg->output) continue;
      const std::vector<unsigned char>& want = m_expected->at(o++);
      // In pieces of k_piece_bytes through the pinned buffers the process keeps (a multiple of
      // every element's size, so each piece holds whole elements).
      host::add_piece(r, verify_pieces(static_cast<const unsigned char*>(b.block.ptr), b.bytes,
                                       [&](std::size_t first, const unsigned char* got, std::size_t n) {
                                         return compare(b, first, got, n, want);
                                       }));
    }
    return r;
  }

  [[nodiscard]] std::uint64_t bytes_moved() const override { return m_device_bytes; }
  [[nodiscard]] int smem_access_bytes() const override { return m_variant.smem_access_bytes; }
  [[nodiscard]] std::uint64_t device_bytes() const override { return m_device_bytes; }
  [[nodiscard]] const compile_info& compiled() const override { return m_compile; }
  [[nodiscard]] bool unverified() const override { return !m_variant.check.has_value(); }

  /// The outputs after one launch (for a variant that others check against).
  std::vector<std::vector<unsigned char>> run_for_reference() {
    poison_output();
    launch(nullptr);
    BB_CUDA_CALL(cudaDeviceSynchronize());
    std::vector<std::vector<unsigned char>> out;
    for (auto& b : m_buffers)
      if (b.arg->output) {
        out.emplace_back(b.bytes);
        BB_CUDA_CALL(cudaMemcpy(out.back().data(), b.block.ptr, b.bytes, cudaMemcpyDeviceToHost));
      }
    return out;
  }

private:
  const config::source_variant m_variant; ///< at this configuration (config::with_types_at)
  compile_info m_compile;
  cudaKernel_t m_kernel = nullptr;
  dim3 m_grid, m_block;
  std::size_t m_shared = 0;
  std::vector<buffer> m_buffers;
  std::vector<std::vector<unsigned char>> m_values; ///< each argument's bytes, as the kernel takes it
  shared_bytes::handle m_expected;                  ///< each output's expected bytes
  std::uint64_t m_device_bytes = 0;

  void geometry(const std::string& where, const nlohmann::json& params) {
    const launch_shape shape = shape_of(m_variant, params, where);
    m_grid = dim3(shape.grid[0], shape.grid[1], shape.grid[2]);
    m_block = dim3(shape.block[0], shape.block[1], shape.block[2]);
    m_shared = static_cast<std::size_t>(shape.shared_bytes);
    int device = 0, max_threads = 0, max_shared = 0, max_grid_y = 0, max_grid_z = 0;
    BB_CUDA_CALL(cudaGetDevice(&device));
    BB_CUDA_CALL(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
    BB_CUDA_CALL(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    BB_CUDA_CALL(cudaDeviceGetAttribute(&max_grid_y, cudaDevAttrMaxGridDimY, device));
    BB_CUDA_CALL(cudaDeviceGetAttribute(&max_grid_z, cudaDevAttrMaxGridDimZ, device));
    const std::uint64_t threads = std::uint64_t{m_block.x} * m_block.y * m_block.z;
    if (threads > static_cast<std::uint64_t>(max_threads))
      throw unsupported_parameter(where + ": a block of " + std::to_string(threads) + " threads; the device allows " +
                                  std::to_string(max_threads));
    if (m_grid.y > static_cast<unsigned>(max_grid_y) || m_grid.z > static_cast<unsigned>(max_grid_z))
      throw unsupported_parameter(where + ": grid (" + std::to_string(m_grid.x) + ", " + std::to_string(m_grid.y) +
                                  ", " + std::to_string(m_grid.z) + ") exceeds the device's y/z limits (" +
                                  std::to_string(max_grid_y) + ", " + std::to_string(max_grid_z) + ")");
    if (m_shared > static_cast<std::size_t>(max_shared))
      throw unsupported_parameter(where + ": " + std::to_string(m_shared) +
                                  " bytes of dynamic shared memory; the device allows " + std::to_string(max_shared) +
                                  " per block");
    if (m_shared > 48 * 1024)
      BB_CUDA_CALL(cudaKernelSetAttributeForDevice(m_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   static_cast<int>(m_shared), device));
  }

  void prepare_arg(const std::string& where, const config::source_arg& a, std::size_t index,
                   const nlohmann::json& params, std::uint64_t seed) {
    const element_type& t = type_named(a.type);
    auto& value = m_values[index];
    if (!a.is_buffer) {
      value = scalar_bytes(a, params, where);
      return;
    }
    std::uint64_t bytes = 0;
    const std::size_t count = buffer_count(a, t, params, where, bytes);
    buffer b;
    b.count = count;
    b.bytes = static_cast<std::size_t>(bytes);
    b.type = &t;
    b.arg = &a;
    b.block = launch::device_allocate(std::max<std::size_t>(b.bytes, 1));
    m_device_bytes += bytes;
    if (a.init == "zeros") {
      BB_CUDA_CALL(cudaMemset(b.block.ptr, 0, b.bytes));
    } else {
      auto contents = initial_bytes(a, t, b.count, seed, index, params);
      BB_CUDA_CALL(cudaMemcpy(b.block.ptr, contents->front().data(), b.bytes, cudaMemcpyHostToDevice));
      if (a.output && a.init_given) b.reset = std::move(contents);
    }
    if (a.tensor_map) {
      value = encoded_map(where, a, t, params, b.block.ptr);
    } else {
      value.resize(sizeof(void*));
      std::memcpy(value.data(), &b.block.ptr, sizeof(void*));
    }
    m_buffers.push_back(std::move(b));
  }

  void check_params(const std::string& where, const loaded& l, const compiled_kernel& k) {
    if (param_info() != nullptr) // a driver before 12.4: sizes unchecked
      check_parameter_sizes(where, m_variant, k.lowered_name, l.param_sizes);
    if (const auto types = ptx_parameter_types(k)) check_parameter_types(where, m_variant, k.lowered_name, *types);
  }

  void expected_outputs(const config::experiment& exp, const config::source_check& c, const nlohmann::json& params,
                        std::uint64_t seed, const std::string& cache_dir) {
    if (!c.reference.empty()) {
      const config::source_variant* ref = exp.find_source(c.reference);
      if (ref == nullptr) throw error(exit_code::usage, "no reference variant '" + c.reference + "'");
      const std::string key = "reference outputs\n" + exp.path + "\n" + exp.name + "\n" + c.reference + "\n" +
                              params.dump() + "\n" + std::to_string(seed);
      m_expected = shared_bytes::process().find(key);
      if (!m_expected) {
        source_problem reference(exp, *ref, params, seed, cache_dir, false);
        m_expected = shared_bytes::process().keep(key, reference.run_for_reference());
      }
      std::size_t outputs = 0;
      for (const auto& b : m_buffers) outputs += b.arg->output ? 1 : 0;
      if (m_expected->size() != outputs)
        throw error(exit_code::usage, "reference variant '" + c.reference + "' has " +
                                          std::to_string(m_expected->size()) + " output buffer(s), '" + m_variant.name +
                                          "' " + std::to_string(outputs));
      std::size_t o = 0;
      for (const auto& b : m_buffers)
        if (b.arg->output && (*m_expected)[o++].size() != b.bytes)
          throw error(exit_code::usage,
                      "output '" + b.arg->name + "' of '" + m_variant.name + "' and its reference differ in size");
    } else {
      std::ifstream in(c.file, std::ios::binary);
      if (!in) throw error(exit_code::usage, "cannot read the check file " + shown_path(c.file));
      std::ostringstream ss;
      ss << in.rdbuf();
      const std::string bytes = ss.str();
      m_expected = std::make_shared<const shared_bytes::blocks>(
          shared_bytes::blocks{std::vector<unsigned char>(bytes.begin(), bytes.end())});
      for (const auto& b : m_buffers)
        if (b.arg->output && b.bytes != bytes.size())
          throw error(exit_code::usage, "check file " + shown_path(c.file) + " holds " + std::to_string(bytes.size()) +
                                            " bytes; output '" + b.arg->name + "' has " + std::to_string(b.bytes));
    }
  }

  /// Bytes [first, first + n) of output `b`, held in got[0, n), against the expected bytes.
  verify_result compare(const buffer& b, std::size_t first, const unsigned char* got, std::size_t n,
                        const std::vector<unsigned char>& want) const {
    verify_result r;
    const std::size_t size = b.type->bytes;
    if (std::memcmp(got, want.data() + first, n) == 0) { // the usual case, at memory speed
      r.checked = n / size;
      return r;
    }
    const double tol = m_variant.check->tolerance;
    for (std::size_t j = 0; j < n / size; ++j) {
      const unsigned char* g = got + j * size;
      const unsigned char* w = want.data() + first + j * size;
      ++r.checked;
      if (elements_match(g, w, *b.type, tol)) continue;
      if (r.mismatches++ == 0) {
        std::ostringstream s;
        s << b.arg->name << "[" << first / size + j << "] = " << load_number(g, *b.type) << ", expected "
          << load_number(w, *b.type);
        r.first_mismatch = s.str();
      }
    }
    return r;
  }
};

} // namespace

std::vector<variant_info> variants_of(const config::experiment& exp, const std::string& cache_dir) {
  std::vector<variant_info> out;
  const std::string dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  for (const auto& v : exp.sources) {
    const config::source_variant* sv = &v;
    const config::experiment* e = &exp;
    out.push_back({exp.family,
                   v.name,
                   v.kernel + " from " + v.file,
                   [e, sv, dir](const nlohmann::json& params, std::uint64_t seed) -> std::unique_ptr<problem> {
                     return std::make_unique<source_problem>(*e, *sv, params, seed, dir);
                   },
                   {}});
  }
  return out;
}

std::string source_fingerprint(const config::experiment& exp) {
  if (exp.sources.empty()) return {};
  std::string all;
  for (const auto& v : exp.sources) {
    all += "variant " + v.name + "\nfile " + source_hash(v.file, v.include_dirs) + "\nkernel " + v.kernel + "\n";
    for (const auto& [name, value] : v.defines) all += "define " + name + "=" + value + "\n";
    for (const auto& a : v.args) all += "arg " + a.name + " " + a.type + " " + a.expression + " " + a.init + "\n";
  }
  return sha256_hex(all);
}

namespace {
/// The C++ type of an element type's name, for a kernel's template arguments.
const char* cpp_type_of(const std::string& element) {
  static const std::map<std::string, const char*> names = {{"int8", "signed char"}, {"uint8", "unsigned char"},
                                                           {"int16", "short"},      {"uint16", "unsigned short"},
                                                           {"int32", "int"},        {"uint32", "unsigned int"},
                                                           {"int64", "long long"},  {"uint64", "unsigned long long"},
                                                           {"float16", "__half"},   {"bfloat16", "__nv_bfloat16"}};
  const auto it = names.find(element);
  return it == names.end() ? nullptr : it->second;
}

/// `params` as the kernel's name expression and defines take them: an axis that an argument's
/// `type:` names holds element types, which go in as their C++ types (int32 as int, float16 as
/// __half; float and double as they are).
nlohmann::json for_the_compiler(const config::source_variant& v, const nlohmann::json& params) {
  nlohmann::json out = params;
  for (const auto& a : v.args)
    if (params.is_object() && params.contains(a.type) && params.at(a.type).is_string())
      if (const char* cpp = cpp_type_of(params.at(a.type).get<std::string>())) out[a.type] = cpp;
  return out;
}
} // namespace

compile_request request_of(const config::source_variant& v, const nlohmann::json& params_in, const std::string& arch) {
  const nlohmann::json params = for_the_compiler(v, params_in);
  return {v.file,
          config::substitute_params(v.kernel, params),
          defines_of(v, params),
          v.include_dirs,
          arch,
          choice_of(v.compiler),
          v.options};
}

} // namespace bb::source
