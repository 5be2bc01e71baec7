#!/usr/bin/env bash
# Configure and build bankbench (Release) into build/release. Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
cuda="${CUDAToolkit_ROOT:-/usr/local/cuda}"
export PATH="$cuda/bin:$PATH"
jobs="${BB_JOBS:-$(nproc)}"
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" "$@"
cmake --build build/release -j "$jobs"
