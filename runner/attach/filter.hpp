#pragma once
/// Which launches of an attached program are profiled: by kernel name, by the NVTX ranges open
/// when the kernel is launched, and by position among the launches that pass both (--launch-skip,
/// --launch-count), counted over every process of the program. No CUDA headers.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

namespace bb::attach {

/// The demangled name of a kernel symbol; the symbol itself where it is not a C++ name.
std::string demangle(const std::string& symbol);
/// A demangled name without its parameter list and return type, the name --kernel-name matches:
/// "void ns::tile<32>(float const*, int)" -> "ns::tile<32>".
std::string base_name(const std::string& demangled);

/// The function's own name in a base name, without namespaces and template arguments, as Nsight
/// Compute names kernels by default: "at::native::reduce_kernel<512, 1>" -> "reduce_kernel".
std::string function_name(const std::string& base);

/// --kernel-name REGEX, searched (std::regex, ECMAScript) in the base name and in the function's own
/// name (so `^reduce_kernel` and `at::native::reduce` both select at::native::reduce_kernel<...>);
/// "" selects every kernel.
class kernel_filter {
public:
  /// Throws usage_error naming --kernel-name when `regex` is not a regular expression.
  explicit kernel_filter(const std::string& regex);
  [[nodiscard]] bool matches(const std::string& base) const;

private:
  bool m_all = true;
  std::regex m_regex;
};

/// One --nvtx-include: [DOMAIN@]RANGE. RANGE is a range's message, `*` and `?` as in a shell
/// glob; without DOMAIN@ a range of any domain counts, "default@" names NVTX's default domain.
struct nvtx_rule {
  std::string domain; ///< "" any domain
  std::string range;
  /// Throws usage_error naming --nvtx-include for an empty range or domain.
  static nvtx_rule parse(const std::string& text);
};

/// The NVTX ranges open in one process: push/pop per thread, start/end for the process. Safe to
/// call from any thread.
class nvtx_ranges {
public:
  void push(std::uint64_t thread, const std::string& domain, const std::string& message);
  void pop(std::uint64_t thread, const std::string& domain);
  void start(std::uint64_t id, const std::string& domain, const std::string& message);
  void end(std::uint64_t id);
  /// Whether a range open for `thread` (its own push/pop ranges, or any start/end range) satisfies
  /// one of `rules`; true when there are no rules.
  [[nodiscard]] bool selected(std::uint64_t thread, const std::vector<nvtx_rule>& rules) const;

private:
  struct open_range {
    std::string domain, message;
  };
  mutable std::mutex m_mutex;
  std::map<std::uint64_t, std::vector<open_range>> m_stacks; ///< by thread
  std::map<std::uint64_t, open_range> m_started;             ///< by range id
};

/// --launch-skip and --launch-count over the launches that pass the filters, in the order bankbench
/// is asked about them.
class launch_quota {
public:
  /// `count` 0: no limit.
  launch_quota(std::uint64_t skip, std::uint64_t count) : m_skip(skip), m_count(count) {}
  struct answer {
    bool profile = false;
    bool more = true; ///< false once no later launch can be profiled
  };
  answer ask();
  [[nodiscard]] std::uint64_t granted() const { return m_granted; }

private:
  std::uint64_t m_skip, m_count, m_asked = 0, m_granted = 0;
};

} // namespace bb::attach
