#pragma once
/// Device discovery and identity: what a stored run says about the GPU it ran on.
#include <cstdint>
#include <optional>
#include <string>

namespace bb::launch {

struct device_info {
  int ordinal = 0;
  std::string name;
  std::string uuid; ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int sm_clock_max_mhz = 0;
  int mem_clock_max_mhz = 0;
  std::string driver_version;   ///< "580.159.04" from NVML; "" when NVML is not there
  int cuda_driver_version = 0;  ///< e.g. 13000
  int cuda_runtime_version = 0; ///< e.g. 13000
};

/// Number of CUDA devices. Throws environment_error with one clear line when there is no
/// driver, no device, or a driver older than the runtime.
int device_count();

/// Selects `ordinal`, creates its primary context, binds NVML to it (clocks, clock-event reasons),
/// and describes it.
device_info open_device(int ordinal);

/// Narrows CUDA_VISIBLE_DEVICES to device `ordinal` of `given` (the list the run started under;
/// nullopt: unset, every GPU in NVML's order), so that CUDA sets up that GPU alone in this process,
/// where it is then device 0: on a host with two H200s, opening one GPU and checking two metric
/// lists against it took 0.56 and 0.70 s with both visible, 0.24 s each with one. Call before any
/// CUDA call. Returns the entry it set; changes nothing and returns nullopt where the device cannot
/// be told for certain: an ordinal past the list's entries or NVML's count, no NVML, or a GPU in
/// MIG mode.
std::optional<std::string> make_only_visible(int ordinal, const std::optional<std::string>& given);

} // namespace bb::launch
