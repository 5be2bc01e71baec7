#!/usr/bin/env bash
# Configure build/release (the release preset of CMakePresets.json) and build it: everything, the
# tests included, or only the TARGETs named (scripts/run-suite.sh builds bankbench alone).
# usage: scripts/build.sh [TARGET...] [-DVAR=VALUE...]: arguments starting with - go to CMake's
# configure step. nvcc is $CUDACXX, else $CUDAToolkit_ROOT/bin/nvcc, else /usr/local/cuda's.
set -euo pipefail
cd "$(dirname "$0")/.."
configure=()
targets=()
for arg in "$@"; do
  if [[ $arg == -* ]]; then configure+=("$arg"); else targets+=("$arg"); fi
done
cmake --preset release "${configure[@]}"
cmake --build --preset release -j "${BB_JOBS:-$(nproc)}" ${targets[@]+--target "${targets[@]}"}
