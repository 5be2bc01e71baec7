#!/usr/bin/env bash
# The test command: install dependencies, build, run every test. GPU tests (label gpu) run where
# a GPU is visible and are reported as skipped where none is.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
ctest --test-dir build/release --output-on-failure -j "${BB_JOBS:-$(nproc)}"
