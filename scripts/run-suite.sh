#!/usr/bin/env bash
# The main job: install dependencies, build bankbench alone (Release; the tests are test.sh's), run
# the default experiment suite on the GPU, store it in results/bankbench.sqlite and print the
# results tables. Arguments go to `bankbench run`; without a GPU: scripts/run-suite.sh --backend
# model (the bank model's predictions).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ " $* " != *" --backend"* && " $* " != *" -b "* ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "run-suite.sh: no NVIDIA GPU answers nvidia-smi: the run after the build will stop with exit 3;" \
       "to go on without a GPU, run scripts/run-suite.sh --backend model" >&2
fi
scripts/install-deps.sh
scripts/build.sh bankbench
exec build/release/bankbench run "${@:-experiments}" # into results/bankbench.sqlite, or $BANKBENCH_DB
