#include "runner/launch/nvml.hpp"

#include <dlfcn.h>

namespace bb::launch {

namespace {
constexpr int k_nvml_success = 0;
constexpr int k_nvml_clock_sm = 1;
struct reason_name {
  std::uint64_t bit;
  const char* name;
  bool slowdown;
};
constexpr reason_name k_reasons[] = {
    {0x1, "gpu_idle", false},   {0x2, "applications_clocks", false}, {0x4, "sw_power_cap", true},
    {0x8, "hw_slowdown", true}, {0x10, "sync_boost", false},         {0x20, "sw_thermal", true},
    {0x40, "hw_thermal", true}, {0x80, "hw_power_brake", true},      {0x100, "display_clocks", false},
};

template <class Fn> Fn lookup(void* lib, const char* name) { return reinterpret_cast<Fn>(dlsym(lib, name)); }
} // namespace

nvml& nvml::instance() {
  static nvml n;
  return n;
}

nvml::nvml() {
  m_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (m_lib == nullptr) return;
  auto init = lookup<int (*)()>(m_lib, "nvmlInit_v2");
  m_get_driver_version = lookup<decltype(m_get_driver_version)>(m_lib, "nvmlSystemGetDriverVersion");
  m_get_handle_by_uuid = lookup<decltype(m_get_handle_by_uuid)>(m_lib, "nvmlDeviceGetHandleByUUID");
  m_get_clock_info = lookup<decltype(m_get_clock_info)>(m_lib, "nvmlDeviceGetClockInfo");
  m_get_reasons = lookup<decltype(m_get_reasons)>(m_lib, "nvmlDeviceGetCurrentClocksEventReasons");
  m_get_count = lookup<decltype(m_get_count)>(m_lib, "nvmlDeviceGetCount_v2");
  m_get_handle_by_index = lookup<decltype(m_get_handle_by_index)>(m_lib, "nvmlDeviceGetHandleByIndex_v2");
  m_get_mig_mode = lookup<decltype(m_get_mig_mode)>(m_lib, "nvmlDeviceGetMigMode");
  m_get_compute_capability = lookup<decltype(m_get_compute_capability)>(m_lib, "nvmlDeviceGetCudaComputeCapability");
  if (m_get_reasons == nullptr)
    m_get_reasons = lookup<decltype(m_get_reasons)>(m_lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (init == nullptr || init() != k_nvml_success) {
    dlclose(m_lib);
    m_lib = nullptr;
  }
}

std::string nvml::driver_version() const {
  char buf[96] = {};
  if (m_lib == nullptr || m_get_driver_version == nullptr || m_get_driver_version(buf, sizeof buf) != k_nvml_success)
    return "";
  return buf;
}

void nvml::bind(const std::string& uuid) {
  m_device = nullptr;
  if (m_lib == nullptr || m_get_handle_by_uuid == nullptr) return;
  void* dev = nullptr;
  if (m_get_handle_by_uuid(uuid.c_str(), &dev) == k_nvml_success) m_device = dev;
}

int nvml::device_count() const {
  unsigned n = 0;
  if (m_lib == nullptr || m_get_count == nullptr || m_get_count(&n) != k_nvml_success) return -1;
  return static_cast<int>(n);
}

bool nvml::any_mig() const {
  const int n = device_count();
  if (n < 0 || m_get_handle_by_index == nullptr || m_get_mig_mode == nullptr) return true;
  constexpr int k_nvml_not_supported = 3; // a GPU without MIG
  for (int i = 0; i < n; ++i) {
    void* dev = nullptr;
    if (m_get_handle_by_index(static_cast<unsigned>(i), &dev) != k_nvml_success) return true;
    unsigned current = 0, pending = 0;
    const int rc = m_get_mig_mode(dev, &current, &pending);
    if (rc == k_nvml_not_supported) continue;
    if (rc != k_nvml_success || current != 0) return true;
  }
  return false;
}

int nvml::common_compute_capability() const {
  const int n = device_count();
  if (n <= 0 || m_get_handle_by_index == nullptr || m_get_compute_capability == nullptr) return 0;
  int common = 0;
  for (int i = 0; i < n; ++i) {
    void* dev = nullptr;
    int major = 0, minor = 0;
    if (m_get_handle_by_index(static_cast<unsigned>(i), &dev) != k_nvml_success ||
        m_get_compute_capability(dev, &major, &minor) != k_nvml_success || major <= 0)
      return 0;
    const int cc = major * 10 + minor;
    if (common != 0 && cc != common) return 0;
    common = cc;
  }
  return common;
}

int nvml::sm_clock_mhz() const {
  unsigned mhz = 0;
  if (m_device == nullptr || m_get_clock_info == nullptr ||
      m_get_clock_info(m_device, k_nvml_clock_sm, &mhz) != k_nvml_success)
    return 0;
  return static_cast<int>(mhz);
}

std::uint64_t nvml::clock_event_reasons() const {
  unsigned long long bits = 0;
  if (m_device == nullptr || m_get_reasons == nullptr || m_get_reasons(m_device, &bits) != k_nvml_success) return 0;
  return bits;
}

bool nvml::is_throttled(std::uint64_t reasons) {
  for (const auto& r : k_reasons)
    if (r.slowdown && (reasons & r.bit) != 0) return true;
  return false;
}

std::string nvml::describe(std::uint64_t reasons) {
  std::string out;
  for (const auto& r : k_reasons) {
    if ((reasons & r.bit) == 0) continue;
    if (!out.empty()) out += ',';
    out += r.name;
  }
  return out;
}

} // namespace bb::launch
