#pragma once
/// Kernel families and variants, registered statically by each kernels/<family>/<name>.cu.
/// Registration stores names and factories only: no CUDA call runs during static initialisation.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/model/access_plan.hpp"

namespace bb {

/// A parameter a family understands; experiment axes must name one of these.
struct param_spec {
  std::string name;
  nlohmann::json default_value;
  std::string description;
};

struct family_info {
  std::string name;
  std::string description;
  std::vector<param_spec> params;
};

struct verify_result {
  bool ok = false;
  std::uint64_t checked = 0;
  std::uint64_t mismatches = 0;
  std::string first_mismatch; ///< "out[12,7] = 0.5, expected 0.25" for the first bad element
};

/// A configuration's prepared problem: buffers allocated, inputs filled.
/// launch() only enqueues work, so it can be timed and profiled.
class problem {
public:
  virtual ~problem() = default;
  /// Enqueue the kernel on `stream` (a cudaStream_t).
  virtual void launch(void* stream) = 0;
  /// Fill the output with a sentinel, so an element the kernel never writes fails verify().
  virtual void poison_output() = 0;
  /// Copy the output back and compare it element by element with the CPU reference.
  virtual verify_result verify() = 0;
  /// Bytes the kernel must move through device memory (each input read once, output written once).
  [[nodiscard]] virtual std::uint64_t bytes_moved() const = 0;
  /// Width in bytes of one lane's shared-memory access; metrics::ideal_wavefronts_per_request() gives the ideal.
  [[nodiscard]] virtual int smem_access_bytes() const = 0;
  /// Device memory the problem holds, for the run's log.
  [[nodiscard]] virtual std::uint64_t device_bytes() const = 0;
  /// Kernels one launch() enqueues: each is one profiled range. 0 (a plain cudaMemcpyAsync, say)
  /// skips the counter pass.
  [[nodiscard]] virtual int kernels_per_launch() const { return 1; }
};

/// Thrown by a factory when a parameter value is outside what the variant supports.
class unsupported_parameter : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

using problem_factory = std::function<std::unique_ptr<problem>(const nlohmann::json& params, std::uint64_t seed)>;

/// A variant's shared-memory requests for given parameters, for the bank model (runner/model).
/// Built from the same __host__ __device__ index functions the kernel uses, so the two cannot
/// drift apart; throws unsupported_parameter where the factory would.
using plan_builder = std::function<model::access_plan(const nlohmann::json& params)>;

struct variant_info {
  std::string family;
  std::string name;
  std::string summary; ///< one line: what makes this variant different
  problem_factory make;
  plan_builder plan; ///< empty: the model cannot predict this variant
  [[nodiscard]] std::string id() const { return family + "/" + name; }
};

class registry {
public:
  /// The process-wide registry that kernels/ fill at static-initialisation time.
  static registry& instance();

  /// Adding a family twice with the same name keeps the first.
  void add_family(family_info family);
  void add_variant(variant_info variant);

  [[nodiscard]] const family_info* find_family(const std::string& name) const;
  [[nodiscard]] const variant_info* find_variant(const std::string& family, const std::string& name) const;
  /// Families sorted by name.
  [[nodiscard]] std::vector<const family_info*> families() const;
  /// Variants of one family sorted by name.
  [[nodiscard]] std::vector<const variant_info*> variants(const std::string& family) const;

private:
  std::vector<family_info> m_families;
  std::vector<variant_info> m_variants;
};

/// Used by BB_REGISTER_VARIANT: registers at static-initialisation time.
struct variant_registrar {
  variant_registrar(family_info family, variant_info variant);
};

} // namespace bb

#define BB_CONCAT_IMPL(a, b) a##b
#define BB_CONCAT(a, b) BB_CONCAT_IMPL(a, b)
/// Register a variant: BB_REGISTER_VARIANT(family_info_expr, "name", "summary", factory).
#define BB_REGISTER_VARIANT(FAMILY, NAME, SUMMARY, FACTORY)                         \
  static const ::bb::variant_registrar BB_CONCAT(bb_variant_registrar_, __LINE__) { \
    (FAMILY), ::bb::variant_info {                                                  \
      (FAMILY).name, (NAME), (SUMMARY), (FACTORY), {}                               \
    }                                                                               \
  }
/// Register a variant with an access plan for the bank model:
/// BB_REGISTER_VARIANT_WITH_PLAN(family_info_expr, "name", "summary", factory, plan_builder).
#define BB_REGISTER_VARIANT_WITH_PLAN(FAMILY, NAME, SUMMARY, FACTORY, PLAN)              \
  static const ::bb::variant_registrar BB_CONCAT(bb_variant_registrar_, __LINE__) {      \
    (FAMILY), ::bb::variant_info { (FAMILY).name, (NAME), (SUMMARY), (FACTORY), (PLAN) } \
  }
