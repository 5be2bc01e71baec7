#!/usr/bin/env bash
# The test command: install dependencies, build, run every test. GPU tests (label gpu) run where
# a GPU is visible and are reported as skipped where none is. Then the host-only unit tests again,
# built with AddressSanitizer and UBSan (the `asan` preset).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build/release --output-on-failure -j "${BB_JOBS:-$(nproc)}"

echo "== unit tests under AddressSanitizer + UBSan" >&2
cmake --preset asan >/dev/null
cmake --build build/asan -j "${BB_JOBS:-$(nproc)}"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --test-dir build/asan -L unit --output-on-failure -j "${BB_JOBS:-$(nproc)}"

# A short fuzzing run of every libFuzzer target (scripts/fuzz.sh; BB_FUZZ_SECONDS=0 skips it).
if (( ${BB_FUZZ_SECONDS:-45} > 0 )); then
  echo "== fuzzing for ${BB_FUZZ_SECONDS:-45} s" >&2
  scripts/fuzz.sh "${BB_FUZZ_SECONDS:-45}"
fi
