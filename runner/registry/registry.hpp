#pragma once
/// Kernel families and variants, registered statically by each kernels/<family>/<name>.cu.
/// Registration stores names and factories only: no CUDA call runs during static initialisation.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runner/model/access_plan.hpp"

namespace bb {

/// A parameter's default value: an integer, a number, true or false, or text. nlohmann::json is
/// only forward-declared here, since every kernel includes this header and the full one costs each
/// of them seconds to compile: `nlohmann::json j = value;` converts it (to_json, registry.cpp)
/// where <nlohmann/json.hpp> is included.
class param_default {
public:
  enum class kind { integer, number, boolean, text };
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0> param_default(T v)
      : m_kind(kind::integer), m_integer(static_cast<std::int64_t>(v)) {}
  param_default(double v) : m_kind(kind::number), m_number(v) {}
  param_default(bool v) : m_kind(kind::boolean), m_boolean(v) {}
  param_default(const char* v) : m_kind(kind::text), m_text(v) {}
  param_default(std::string v) : m_kind(kind::text), m_text(std::move(v)) {}

  [[nodiscard]] kind type() const { return m_kind; }
  /// The value of that kind; std::logic_error for another kind.
  [[nodiscard]] std::int64_t integer() const;
  [[nodiscard]] double number() const;
  [[nodiscard]] bool boolean() const;
  [[nodiscard]] const std::string& text() const;

private:
  kind m_kind;
  std::int64_t m_integer = 0;
  double m_number = 0;
  bool m_boolean = false;
  std::string m_text;
};

/// The JSON value of a default: a number_integer, number_float, boolean or string.
void to_json(nlohmann::json& j, const param_default& value);

/// A parameter a family understands; experiment axes must name one of these.
struct param_spec {
  std::string name;
  param_default default_value;
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
