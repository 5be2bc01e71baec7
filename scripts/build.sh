#!/usr/bin/env bash
# Configure and build bankbench and its tests (the release preset of CMakePresets.json) into
# build/release. Extra arguments go to CMake's configure step. nvcc is $CUDACXX, else
# $CUDAToolkit_ROOT/bin/nvcc, else /usr/local/cuda's (CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release "$@"
cmake --build --preset release -j "${BB_JOBS:-$(nproc)}"
