#pragma once
/// The toolkit's nvcc as a second compiler for source variants, for files NVRTC cannot compile
/// (host code in a header such as <cub/cub.cuh>, <iostream>). Each kernel is compiled to a cubin
/// through a small wrapper file that includes the user's file unchanged and stores the address
/// of the requested instance (`transpose<padded, 32, 8>`) in a __device__ variable: the PTX
/// nvcc keeps then names the instance's mangled symbol, as nvrtcGetLoweredName does.
#include <string>
#include <vector>

namespace bb::source {

struct nvcc_tool {
  std::string path;    ///< the nvcc that runs
  std::string version; ///< "13.0.88"
  int major = 0, minor = 0;
};

/// nvcc: $BB_NVCC, else $CUDA_HOME/bin/nvcc, else the toolkit bankbench was built with, else PATH.
/// Throws environment_error naming where it looked when none runs, or when it is older than 11.0.
/// Found once per process.
const nvcc_tool& find_nvcc();

struct nvcc_output {
  bool ok = false;
  std::string log;          ///< nvcc's messages, as it printed them
  std::string cubin;        ///< when ok, unless ptx_only
  std::string ptx;          ///< when ok: the PTX nvcc made the cubin from
  std::string lowered_name; ///< when ok
  /// when ok: the mangled name of each of run_nvcc's `companions`, in order
  std::vector<std::string> companion_names;
};

/// Compiles `kernel` (a name expression) of `source_path` to a cubin for `arch` with `flags`
/// (everything but the architecture and the output). Runs in a temporary folder it removes.
/// `companions`: more name expressions of the same file, instantiated in the same run (nvcc
/// compiles the whole file whichever instance is asked for, so one run makes them all).
/// `ptx_only`: stop at the PTX (`nvcc -ptx`: no ptxas, `cubin` left empty).
nvcc_output run_nvcc(const std::string& source_path, const std::string& kernel, const std::vector<std::string>& flags,
                     const std::string& arch, const std::vector<std::string>& companions = {}, bool ptx_only = false);

/// The wrapper file's name in nvcc's messages, so that they can be mapped to the user's terms.
inline constexpr const char* k_nvcc_wrapper_name = "bankbench_kernel.cu";

} // namespace bb::source
