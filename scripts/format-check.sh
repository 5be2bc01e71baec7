#!/usr/bin/env bash
# Reports the C++ and CUDA files that do not follow .clang-format, with the number of lines
# clang-format would change in each, and exits 1 if there is any (0: all follow it; 2: no
# clang-format). usage: scripts/format-check.sh [PATH...] (default: runner kernels tests include bench);
# to fix a file: clang-format -i FILE.
set -uo pipefail
cd "$(dirname "$0")/.."
cf="${CLANG_FORMAT:-clang-format}"
command -v "$cf" >/dev/null || { echo "format-check.sh: $cf not found (apt-get install clang-format)" >&2; exit 2; }
[ $# -gt 0 ] || set -- runner kernels tests include bench
files=$(git ls-files -- "$@" | grep -E '\.(cpp|hpp|cu|cuh|h)$')
# One line per file that differs: "<changed lines> <file>".
report=$(printf '%s\n' $files | xargs -P "$(nproc)" -I{} sh -c \
  'n=$("$0" --style=file "$1" | diff "$1" - | grep -c "^[<>]"); [ "$n" -eq 0 ] || echo "$n $1"' "$cf" {} | sort -k2)
total=$(printf '%s\n' $files | grep -c .)
[ "$total" -gt 0 ] || { echo "format-check.sh: no C++ or CUDA files under $*"; exit 0; }
if [ -z "$report" ]; then
  echo "format-check.sh: all $total files follow .clang-format"
  exit 0
fi
echo "$report"
echo "format-check.sh: $(printf '%s\n' "$report" | grep -c .) of $total files do not follow .clang-format;" \
  "$(printf '%s\n' "$report" | awk '{s += $1} END {print s}') diff lines (removed + added)" >&2
exit 1
