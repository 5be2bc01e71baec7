#!/usr/bin/env bash
# Fuzz with libFuzzer, ASan and UBSan for SECONDS in all (default 600), split over the targets:
# the experiment loader and validator (seeded from experiments/ and tests/data), the results
# commands' run selectors, and bankmap's parameters. The targets are built in build/asan (the asan
# preset: clang, the host code instrumented once for the unit tests and the fuzzers, linking
# build/release's kernel objects); needs clang and its runtime (clang, libclang-rt-14-dev;
# scripts/install-deps.sh installs them). The targets run side by side, one per core (BB_JOBS), each
# for its share of SECONDS. Crashes, leaks, timeouts and sanitizer reports end the run with a
# non-zero exit (after the other targets' turns) and leave the input in build/asan/.
# FUZZ_TARGETS="experiment selector" runs some of them only.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
targets=(${FUZZ_TARGETS:-experiment selector bankmap})
# bankmap's target registers every variant: build/release must be configured to give its kernel
# objects (built there if needed).
[ -f build/release/CMakeCache.txt ] || cmake --preset release >/dev/null
# build/asan as it is where configured already (scripts/test.sh's ci-asan, or asan): configuring
# it with the other preset would compile its host code again with that one's flags.
[ -f build/asan/CMakeCache.txt ] || cmake --preset asan >/dev/null
cmake --build build/asan -j "${BB_JOBS:-$(nproc)}" --target "${targets[@]/#/bb_fuzz_}"

seed() { # target, then folders or files to copy into its corpus
  local dir="build/asan/corpus/$1"
  shift
  mkdir -p "$dir"
  for src in "$@"; do cp -r "$src" "$dir/" 2>/dev/null || true; done
}
seed experiment tests/fuzz/corpus/*.yaml tests/data/good/*.yaml tests/data/bad/*.yaml experiments/*/*.yaml
seed selector tests/fuzz/corpus_selector/*
seed bankmap tests/fuzz/corpus_bankmap/*

per_target=$((seconds / ${#targets[@]}))
((per_target > 0)) || per_target=1
# The targets run side by side, BB_JOBS at a time (default: the number of cores; each fuzzer uses
# one): every target still gets its share of SECONDS, and 3 targets on 2 cores take 2 shares of
# wall time instead of 3.
slots="${BB_JOBS:-$(nproc)}"
((slots > 0)) || slots=1
fuzz_one() { # target: its log in build/asan/fuzz-<target>.log, its exit status in .status
  local t=$1 rc=0
  # A small ASan quarantine: with the default 256 MiB the process grew past the RSS limit in a
  # few thousand runs with no input to blame. The outer timeout keeps a stuck fuzzer (the leak
  # check after an out-of-memory report can hang where ptrace is restricted) from stalling CI.
  (cd build/asan && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=32 \
    timeout -s KILL $((per_target + 120)) "./tests/fuzz/bb_fuzz_$t" "corpus/$t" -max_total_time="$per_target" \
    -max_len=8192 -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 2>"fuzz-$t.log") ||
    rc=$?
  echo "$rc" >"build/asan/fuzz-$t.status"
}
running=0
for t in "${targets[@]}"; do
  rm -f "build/asan/fuzz-$t.status"
  if ((running >= slots)); then
    wait -n || true
    running=$((running - 1))
  fi
  echo "== fuzzing $t for $per_target s" >&2
  fuzz_one "$t" &
  running=$((running + 1))
done
wait
status=0
for t in "${targets[@]}"; do
  rc=$(cat "build/asan/fuzz-$t.status" 2>/dev/null || echo 1)
  echo "== $t: exit $rc" >&2
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "build/asan/fuzz-$t.log" >&2 || true
  if ((rc != 0)); then
    tail -n 60 "build/asan/fuzz-$t.log" >&2
    ((status != 0)) || status=$rc
  fi
done
exit "$status"
