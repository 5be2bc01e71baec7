#!/usr/bin/env bash
# The main job: install dependencies, build Release, run the default experiment suite on the GPU,
# store it in results/bankbench.sqlite and print the results tables. Arguments go to `bankbench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/release/bankbench --db results/bankbench.sqlite run "${@:-experiments}"
