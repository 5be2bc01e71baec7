#!/usr/bin/env bash
# Fuzz the experiment loader and validator with libFuzzer, ASan and UBSan for SECONDS (default
# 600). Needs clang and its runtime (apt-get install clang libclang-rt-14-dev). Crashes, leaks and
# sanitizer reports stop the run with a non-zero exit and leave the input in build/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
cuda="${CUDAToolkit_ROOT:-/usr/local/cuda}"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_FUZZ=ON -DBB_BUILD_TESTS=OFF \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CUDA_HOST_COMPILER=g++ \
  -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" >/dev/null
cmake --build build/fuzz --target bb_fuzz_experiment
mkdir -p build/fuzz/corpus
cp tests/fuzz/corpus/* tests/data/good/*.yaml tests/data/bad/*.yaml experiments/*/*.yaml build/fuzz/corpus/ 2>/dev/null || true
cd build/fuzz
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ./tests/fuzz/bb_fuzz_experiment corpus \
  -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
