#pragma once
/// NVML, loaded at run time: the current SM clock and why it is held down. The binary does not
/// link libnvidia-ml, so it still starts (and `validate` still works) on machines with no driver.
#include <cstdint>
#include <string>

namespace bb::launch {

class nvml {
public:
  /// Loaded once; every query degrades to "unknown" (0 or "") when NVML is not there.
  static nvml& instance();

  [[nodiscard]] bool available() const { return m_lib != nullptr; }
  [[nodiscard]] std::string driver_version() const;
  /// Select the device later queries read, by its "GPU-..." UUID.
  void bind(const std::string& uuid);
  /// Current SM clock in MHz; 0 when unknown.
  [[nodiscard]] int sm_clock_mhz() const;
  /// NVML's clock-event (throttle) reason bits; 0 when none or unknown.
  [[nodiscard]] std::uint64_t clock_event_reasons() const;

  /// GPUs NVML sees (all of the machine's, whatever CUDA_VISIBLE_DEVICES says); -1 when unknown.
  [[nodiscard]] int device_count() const;
  /// Whether any GPU has MIG mode on (or NVML cannot tell).
  [[nodiscard]] bool any_mig() const;
  /// The CUDA compute capability (major * 10 + minor) every GPU NVML sees shares; 0 when they
  /// differ, when there are none, or when NVML cannot tell.
  [[nodiscard]] int common_compute_capability() const;

  /// True when the reasons include a slowdown (power cap, thermal, hardware brake).
  static bool is_throttled(std::uint64_t reasons);
  /// "sw_power_cap,hw_thermal", or "" when none.
  static std::string describe(std::uint64_t reasons);

  nvml(const nvml&) = delete;
  nvml& operator=(const nvml&) = delete;

private:
  nvml();
  void* m_lib = nullptr;
  void* m_device = nullptr;
  int (*m_get_driver_version)(char*, unsigned) = nullptr;
  int (*m_get_handle_by_uuid)(const char*, void**) = nullptr;
  int (*m_get_clock_info)(void*, int, unsigned*) = nullptr;
  int (*m_get_reasons)(void*, unsigned long long*) = nullptr;
  int (*m_get_count)(unsigned*) = nullptr;
  int (*m_get_handle_by_index)(unsigned, void**) = nullptr;
  int (*m_get_mig_mode)(void*, unsigned*, unsigned*) = nullptr;
  int (*m_get_compute_capability)(void*, int*, int*) = nullptr;
};

} // namespace bb::launch
