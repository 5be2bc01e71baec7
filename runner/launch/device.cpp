#include "runner/launch/device.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>

#include <cuda_runtime_api.h>

#include "runner/common/error.hpp"
#include "runner/launch/cuda_call.hpp"
#include "runner/launch/nvml.hpp"

namespace bb::launch {

static bool driver_installed() {
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib != nullptr) dlclose(lib);
  return lib != nullptr;
}

int device_count() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  switch (err) {
  case cudaSuccess: break;
  case cudaErrorNoDevice: count = 0; break;
  case cudaErrorInsufficientDriver:
    if (!driver_installed())
      throw environment_error("no NVIDIA driver on this machine (libcuda.so.1 not found): to go on "
                              "without a GPU, `bankbench run --backend model` predicts the counters from "
                              "the bank model");
    throw environment_error("the NVIDIA driver is missing or older than this build's CUDA " +
                            std::to_string(CUDART_VERSION / 1000) +
                            " runtime; install a newer driver, or go on without a GPU with "
                            "`bankbench run --backend model` (the bank model's predictions)");
  default:
    throw environment_error(std::string("cannot query CUDA devices: ") + cudaGetErrorName(err) + " (" +
                            cudaGetErrorString(err) + ")");
  }
  if (count == 0)
    throw environment_error("no CUDA device is visible (check nvidia-smi and CUDA_VISIBLE_DEVICES); to go "
                            "on without a GPU, `bankbench run --backend model` predicts the counters from "
                            "the bank model");
  return count;
}

static std::string format_uuid(const cudaUUID_t& id) {
  const auto* b = reinterpret_cast<const unsigned char*>(id.bytes);
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

std::optional<std::string> make_only_visible(int ordinal, const std::optional<std::string>& given) {
  if (ordinal < 0) return std::nullopt;
  std::string entry;
  if (given) {
    // The user's list: ordinal d is its d-th entry (an index, a GPU-... or MIG-... UUID).
    std::vector<std::string> entries;
    const std::string& list = *given;
    for (std::size_t at = 0;;) {
      const auto comma = list.find(',', at);
      entries.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (static_cast<std::size_t>(ordinal) >= entries.size() || entries[static_cast<std::size_t>(ordinal)].empty())
      return std::nullopt;
    entry = entries[static_cast<std::size_t>(ordinal)];
  } else {
    const nvml& n = nvml::instance();
    if (ordinal >= n.device_count() || n.any_mig()) return std::nullopt;
    entry = std::to_string(ordinal); // in CUDA_DEVICE_ORDER's order, as the ordinal itself
  }
  if (setenv("CUDA_VISIBLE_DEVICES", entry.c_str(), 1) != 0) return std::nullopt;
  return entry;
}

device_info open_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw usage_error("--device " + std::to_string(ordinal) + " does not exist: this machine has " +
                      std::to_string(count) + " CUDA device(s), numbered from 0");
  BB_CUDA_CALL(cudaSetDevice(ordinal));
  BB_CUDA_CALL(cudaFree(nullptr)); // creates the primary context now, not inside a timed region

  cudaDeviceProp prop{};
  BB_CUDA_CALL(cudaGetDeviceProperties(&prop, ordinal));
  device_info info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.uuid = format_uuid(prop.uuid);
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.memory_bytes = prop.totalGlobalMem;
  info.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
  int khz = 0;
  BB_CUDA_CALL(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal));
  info.sm_clock_max_mhz = khz / 1000;
  BB_CUDA_CALL(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, ordinal));
  info.mem_clock_max_mhz = khz / 1000;
  BB_CUDA_CALL(cudaDriverGetVersion(&info.cuda_driver_version));
  BB_CUDA_CALL(cudaRuntimeGetVersion(&info.cuda_runtime_version));
  info.driver_version = nvml::instance().driver_version();
  nvml::instance().bind(info.uuid); // its clocks and clock-event reasons are this GPU's from now on
  return info;
}

} // namespace bb::launch
