#!/usr/bin/env bash
# Cold compile of N distinct kernels, on one thread against C: `bankbench compile -j1` and
# `bankbench compile -j C` of one generated source experiment (a defines axis of N values, so N
# distinct kernels), each into a fresh cache folder, after one untimed compile that loads NVRTC from
# disk. Prints the serial time, the parallel time (compile-server processes), serial/C and the
# ratio parallel / (serial/C), issue 32's target being 1.3 or less; and, for comparison, the
# parallel time on C threads of one process (BB_COMPILE_SERVERS=0).
#
#   scripts/bench-compile.sh [N] [C]        N kernels (default 48), C threads (default: nproc)
#
# BANKBENCH names the binary (default build/release/bankbench); REPEAT=k takes the best of k runs
# of each (default 1). Run it on an otherwise idle machine: other work on the cores shows up as a
# worse ratio. Nothing is written outside a temporary folder, which is removed.
set -euo pipefail

n=${1:-48}
c=${2:-$(nproc)}
repeat=${REPEAT:-1}
bin=${BANKBENCH:-build/release/bankbench}
[[ $n =~ ^[1-9][0-9]*$ && $c =~ ^[1-9][0-9]*$ && $repeat =~ ^[1-9][0-9]*$ ]] || {
  echo "usage: $0 [N kernels] [C threads]  (positive integers; REPEAT too)" >&2
  exit 2
}
[[ -x $bin ]] || {
  echo "$0: no bankbench at $bin (build it, or set BANKBENCH)" >&2
  exit 2
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A kernel with some work for the compiler: a shared tile read through V-dependent strides in an
# unrolled loop, so each value of V is a kernel of its own (about 0.1 s each for NVRTC 13).
cat >"$tmp/kernels.cu" <<'EOF'
__global__ void strided(const float* in, float* out, int n) {
  __shared__ float tile[32 * 33];
  const int t = threadIdx.x;
  float acc = 0.0f;
#pragma unroll
  for (int r = 0; r < 32; ++r) tile[r * 33 + t] = in[(blockIdx.x * 32 + r) * 32 + t];
  __syncthreads();
#pragma unroll
  for (int r = 0; r < 32; ++r) acc += tile[((t * V + r) % 32) * 33 + (r * V + t) % 32] * (r + V);
  if (blockIdx.x * 32 + t < n) out[blockIdx.x * 32 + t] = acc;
}
EOF
values=$(seq -s ', ' 1 "$n")
cat >"$tmp/sweep.yaml" <<EOF
name: bench_compile
description: $n distinct kernels, one per value of V, to time the parallel compile.
source:
  file: kernels.cu
  kernel: strided
  grid: ceil_div(n, 32)
  block: 32
  defines: {V: v}
  args:
    - {buffer: in, type: float, count: n * 32}
    - {buffer: out, type: float, count: n, output: true}
    - {scalar: n, type: int32}
variants: [strided]
axes: {n: [1024], v: [$values]}
EOF

# Seconds for one cold compile on $1 threads; checks that all N kernels were compiled.
cold_compile() {
  local jobs=$1 best="" i
  for ((i = 0; i < repeat; i++)); do
    rm -rf "$tmp/cache"
    local t0=$EPOCHREALTIME out
    out=$(BB_CACHE_DIR="$tmp/cache" "$bin" -q compile --arch sm_90 -j "$jobs" "$tmp/sweep.yaml")
    local t1=$EPOCHREALTIME
    grep -q ": $n compiled, 0 from the cache, 0 failed" <<<"$out" || {
      echo "$0: expected $n kernels compiled on $jobs thread(s), got:" >&2
      echo "$out" >&2
      exit 1
    }
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { s = b - a; if (best != "" && best < s) s = best; printf "%.3f", s }')
  done
  echo "$best"
}

# Load NVRTC and its builtins from disk once, so that the first timed run does not pay for it.
BB_CACHE_DIR="$tmp/warmup" "$bin" -q compile --arch sm_90 -j 1 "$tmp/sweep.yaml" > /dev/null
serial=$(cold_compile 1)
parallel=$(cold_compile "$c")
threads=$(BB_COMPILE_SERVERS=0 cold_compile "$c")
awk -v n="$n" -v c="$c" -v s="$serial" -v p="$parallel" -v t="$threads" -v host="$(hostname)" -v cores="$(nproc)" 'BEGIN {
  printf "%d kernels, bankbench compile --arch sm_90, on %s (%d hardware threads)\n", n, host, cores
  printf "%-26s %8.2f s\n", "serial (-j 1):", s
  printf "%-26s %8.2f s\n", "parallel (-j " c "):", p
  printf "%-26s %8.2f s\n", "serial / " c ":", s / c
  printf "%-26s %8.2f (target: 1.3 or less)\n", "parallel / (serial / " c "):", p / (s / c)
  printf "%-26s %8.2f s (%.2f times serial / %d)\n", "threads of one process:", t, t / (s / c), c
}'
