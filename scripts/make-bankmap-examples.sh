#!/usr/bin/env bash
# Regenerates the bank maps in docs/bankmap/ with bankbench itself (tests/cli/test_cli_bankmap.cpp
# checks that the committed files are what the tool prints). Usage:
#   scripts/make-bankmap-examples.sh [path/to/bankbench]     (default: build/release/bankbench)
set -euo pipefail
cd "$(dirname "$0")/.."
bankbench=${1:-build/release/bankbench}
if [[ ! -x $bankbench ]]; then
  echo "make-bankmap-examples: no bankbench at $bankbench; build first or pass its path" >&2
  exit 2
fi
out=docs/bankmap
mkdir -p "$out"

# Column 0 of the three 32x32 float tiles of kernels/transpose/: a warp reading one column.
"$bankbench" -q bankmap --rows 32 --cols 32 --type float --col 0 --svg "$out/naive.svg" >"$out/naive.txt"
"$bankbench" -q bankmap --rows 32 --cols 32 --type float --pad 1 --col 0 --svg "$out/padded.svg" >"$out/padded.txt"
"$bankbench" -q bankmap --rows 32 --cols 32 --type float --swizzle 32 --col 0 --svg "$out/swizzled.svg" >"$out/swizzled.txt"
# The padding people are told is enough and is not: 136-byte rows, 2-way.
"$bankbench" -q bankmap --rows 32 --cols 32 --type float --pad 2 --col 0 --svg "$out/pad2.svg" >"$out/pad2.txt"
# The same column read taken from the kernel's own access plan.
"$bankbench" -q bankmap --variant transpose/naive --params n=1024 >"$out/transpose-naive-plan.txt"
echo "wrote $(ls "$out" | wc -l) files to $out"
