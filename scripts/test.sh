#!/usr/bin/env bash
# The test command (CI runs it through .ci/run): install dependencies, then the two workflow
# presets of CMakePresets.json and a short fuzzing run.
# - ci: configure and build build/release (bankbench and every test), run every test. GPU tests
#   (label gpu) run where a GPU is visible and are reported as skipped where none is.
# - ci-asan: build/asan, the host code built once with AddressSanitizer, UBSan and libFuzzer's
#   coverage (clang) for the unit tests and the fuzz targets, linking build/release's kernel
#   objects instead of compiling the kernels again; runs the unit tests.
# Both configure presets (ci, ci-asan) are the release and asan ones with each module and test
# program compiled in one unity batch (BB_UNITY_BATCH=0): the fastest from a fresh tree, where the
# presets for working in the tree keep batches of 8 so that an edit recompiles less. ci-asan's debug
# information is line tables alone (-gline-tables-only): sanitizer reports still name function, file
# and line; the asan preset keeps -g for a debugger.
# - scripts/fuzz.sh: the fuzz targets of build/asan, BB_FUZZ_SECONDS in all (default 45; 0 skips).
# BB_JOBS sets the parallel jobs (default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${BB_JOBS:-$(nproc)}" CTEST_PARALLEL_LEVEL="${BB_JOBS:-$(nproc)}"
cmake --workflow --preset ci

echo "== unit tests under AddressSanitizer + UBSan" >&2
cmake --workflow --preset ci-asan

if (( ${BB_FUZZ_SECONDS:-45} > 0 )); then
  echo "== fuzzing for ${BB_FUZZ_SECONDS:-45} s" >&2
  scripts/fuzz.sh "${BB_FUZZ_SECONDS:-45}"
fi
