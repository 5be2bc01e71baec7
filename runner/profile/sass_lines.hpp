#pragma once
/// Shared-memory counters per SASS instruction of one kernel launch, from CUPTI's SASS metrics API
/// (instrumentation: the kernel's code is patched, not the range profiler's counters), and each
/// instruction's source file and line from the kernel's cubin (needs -lineinfo).
///
/// What CUPTI 13.0 allows, measured on an H100 (docs/measuring.md, "Per line"): after
/// cuptiSassMetricsSetConfig, only the first kernel function launched in the process is
/// instrumented, and a second SetConfig fails. A process collects one kernel: begin(), one launch,
/// end(). Kernels launched before begin() do not count against it.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bb::profile {

/// One instrumented instruction: its place and its metric values, one launch's worth.
struct sass_record {
  std::string function;                        ///< mangled name
  std::uint32_t pc = 0;                        ///< byte offset in the function
  std::uint32_t crc = 0;                       ///< CUPTI's CRC of the cubin holding it (cubin_of)
  std::uint32_t function_index = 0;            ///< the function's symbol index in that cubin
  std::string file;                            ///< source file ("" without line info)
  int line = 0;                                ///< 0 without line info
  std::map<std::string, std::uint64_t> values; ///< by metric name, summed over the GPU
};

class sass_lines {
public:
  /// Call before any CUDA call of the process: keeps the cubin of every module loaded from then
  /// on, to map PCs to source lines.
  static void watch_modules();
  /// The cubin, as loaded, whose CUPTI CRC is `crc` and which holds `function` (CUPTI gives cubins
  /// that differ the same CRC at times); nullptr when none was seen.
  static const std::vector<char>* cubin_of(std::uint32_t crc, const std::string& function);

  /// Sets up and enables collection on `device` (its context current) for the metrics of
  /// metric_names() the chip has. Throws environment_error where CUPTI or the device does not
  /// support SASS metrics.
  static std::unique_ptr<sass_lines> begin(int device);
  ~sass_lines();
  sass_lines(const sass_lines&) = delete;
  sass_lines& operator=(const sass_lines&) = delete;

  /// Waits for the device, then takes every record collected since begin(), with source lines,
  /// and ends the collection.
  std::vector<sass_record> end();

  /// The metrics asked for, where the chip has them.
  static const std::vector<std::string>& metric_names();
  [[nodiscard]] const std::string& chip() const { return m_chip; }

private:
  sass_lines() = default;
  void stop() noexcept;
  std::string m_chip;
  int m_device = 0;
  void* m_ctx = nullptr;
  bool m_enabled = false, m_configured = false;
  std::map<std::uint64_t, std::string> m_names; ///< metric id -> name
};

} // namespace bb::profile
