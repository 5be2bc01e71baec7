#!/usr/bin/env bash
# Reports the C++ and CUDA files that do not follow .clang-format, with the number of lines
# clang-format would change in each, and exits 1 if there is any (0: all follow it; 2: no
# clang-format 14, whose layout the tree follows: other versions lay some lines out differently).
# CTest runs it as the test `format_check` (label lint).
# usage: scripts/format-check.sh [PATH...] (default: runner kernels tests include bench);
# to fix a file: clang-format-14 -i FILE. CLANG_FORMAT names another binary.
set -uo pipefail
cd "$(dirname "$0")/.."
cf="${CLANG_FORMAT:-}"
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do command -v "$c" >/dev/null && { cf="$c"; break; }; done
fi
[ -n "$cf" ] && command -v "$cf" >/dev/null ||
  { echo "format-check.sh: clang-format 14 not found (apt-get install clang-format-14)" >&2; exit 2; }
version=$("$cf" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
[ "$version" = 14 ] ||
  { echo "format-check.sh: $cf is version ${version:-unknown}; the tree follows clang-format 14 (apt-get install clang-format-14, or CLANG_FORMAT=...)" >&2; exit 2; }
[ $# -gt 0 ] || set -- runner kernels tests include bench
# tests/data/source holds kernels that tests read as input (error messages name their lines).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files -- "$@" | grep -E '\.(cpp|hpp|cu|cuh|h)$' | grep -v '^tests/data/source/')
else # a copy without git: every such file under the paths
  files=$(find "$@" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) |
    grep -v '^tests/data/source/' | sort)
fi
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
  "$(printf '%s\n' "$report" | awk '{s += $1} END {print s}') diff lines (removed + added); fix: $cf -i FILE" >&2
exit 1
