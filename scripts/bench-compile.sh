#!/usr/bin/env bash
# Cold compile of N distinct kernels, on one thread against C: `bankbench compile -j1` and
# `bankbench compile -j C` of one generated source experiment (a defines axis of N values, so N
# distinct kernels), each into a fresh cache folder, after one untimed compile that loads NVRTC from
# disk. Prints issue 32's two criteria, each with PASS or FAIL:
#   parallel / (serial / C)                                   1.3 or less (the issue's target)
#   parallel / (1.3 x max(serial / C, longest) + start)       1.0 or less (the target proposed since:
#       no parallel compile beats its longest kernel, nor the start of one compile server)
# where `longest` is the longest kernel of the serial run (its -v log) and `start` one compile
# server's start: `bankbench __compile-server` answering one request, less the serial run's fastest
# kernel (the process, NVRTC opened, its first compile's set-up, the exchange and the exit). Also:
# the longest server start within the parallel run (-v log: all C start at once), the parallel time
# on C threads of one process (BB_COMPILE_SERVERS=0) and a warm run (every kernel in the cache) on 1
# and on C threads.
#
#   scripts/bench-compile.sh [N] [C]        N kernels (default 48), C threads (default: nproc)
#
# BANKBENCH names the binary (default build/release/bankbench); WORK=w makes each kernel's unrolled
# loop w times longer (default 1: about 0.1 s per kernel on the 2-core build host, 0.01 to 0.2 s on a
# 16-core H100 machine; larger kernels show how the compile scales once NVRTC's set-up in each
# server is small beside the compiles); REPEAT=k takes the best of k runs
# of each (default 1). Run it on an otherwise idle machine: other work on the cores shows up as a
# worse ratio. Nothing is written outside a temporary folder, which is removed.
set -euo pipefail

n=${1:-48}
c=${2:-$(nproc)}
repeat=${REPEAT:-1}
work=${WORK:-1}
bin=${BANKBENCH:-build/release/bankbench}
[[ $n =~ ^[1-9][0-9]*$ && $c =~ ^[1-9][0-9]*$ && $repeat =~ ^[1-9][0-9]*$ && $work =~ ^[1-9][0-9]*$ ]] || {
  echo "usage: $0 [N kernels] [C threads]  (positive integers; REPEAT and WORK too)" >&2
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
  for (int r = 0; r < 32 * WORK; ++r) acc += tile[((t * V + r) % 32) * 33 + (r * V + t) % 32] * (r + V);
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
  defines: {V: v, WORK: $work}
  args:
    - {buffer: in, type: float, count: n * 32}
    - {buffer: out, type: float, count: n, output: true}
    - {scalar: n, type: int32}
variants: [strided]
axes: {n: [1024], v: [$values]}
EOF

# Seconds for one cold compile on $1 threads (the best of REPEAT); checks that all N kernels were
# compiled. The best run's -v log is left in $tmp/log.$2 ($2: serial, servers or threads).
cold_compile() {
  local jobs=$1 best="" i
  for ((i = 0; i < repeat; i++)); do
    rm -rf "$tmp/cache"
    local t0=$EPOCHREALTIME out
    out=$(BB_CACHE_DIR="$tmp/cache" "$bin" -v compile --arch sm_90 -j "$jobs" "$tmp/sweep.yaml" 2>"$tmp/log")
    local t1=$EPOCHREALTIME
    grep -q ": $n compiled, 0 from the cache, 0 failed" <<<"$out" || {
      echo "$0: expected $n kernels compiled on $jobs thread(s), got:" >&2
      echo "$out" >&2
      cat "$tmp/log" >&2
      exit 1
    }
    local s
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    if [[ -z $best ]] || awk -v s="$s" -v b="$best" 'BEGIN { exit !(s < b) }'; then
      best=$s
      mv "$tmp/log" "$tmp/log.$2"
    fi
  done
  echo "$best"
}

# Seconds for a compile whose every kernel is in the cache (the best of 3), on $1 threads.
warm_compile() {
  local best="" i
  for ((i = 0; i < 3; i++)); do
    local t0=$EPOCHREALTIME
    BB_CACHE_DIR="$tmp/cache" "$bin" -q compile --arch sm_90 -j "$1" "$tmp/sweep.yaml" >/dev/null
    local t1=$EPOCHREALTIME
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { s = b - a; if (best != "" && best < s) s = best; printf "%.4f", s }')
  done
  echo "$best"
}

# Seconds from starting one compile server to its exit, having answered one request (V=1, no
# cache): the best of REPEAT.
server_once() {
  local best="" i
  local request="{\"source_path\":\"$tmp/kernels.cu\",\"kernel\":\"strided\",\"defines\":[\"V=1\",\"WORK=$work\"],\"include_dirs\":[],\"arch\":\"sm_90\",\"compiler\":\"auto\",\"options\":[],\"cache_dir\":\"\"}"
  for ((i = 0; i < repeat; i++)); do
    local t0=$EPOCHREALTIME out
    out=$("$bin" __compile-server <<<"$request")
    local t1=$EPOCHREALTIME
    grep -q '"ok":true' <<<"$out" || {
      echo "$0: the compile server did not compile V=1: $out" >&2
      exit 1
    }
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { s = b - a; if (best != "" && best < s) s = best; printf "%.4f", s }')
  done
  echo "$best"
}

# Load NVRTC and its builtins from disk once, so that the first timed run does not pay for it.
BB_CACHE_DIR="$tmp/warmup" "$bin" -q compile --arch sm_90 -j 1 "$tmp/sweep.yaml" > /dev/null
serial=$(cold_compile 1 serial)
parallel=$(cold_compile "$c" servers)
warm_c=$(warm_compile "$c")
warm_1=$(warm_compile 1)
threads=$(BB_COMPILE_SERVERS=0 cold_compile "$c" threads)
once=$(server_once)
# "compiled strided (V=7) in 104 ms" per kernel; "compile server 123: ... started in 14 ms" per server.
longest=$(awk '/ debug: compiled / { v = $(NF - 1) / 1000; if (v > m) m = v } END { printf "%.4f", m }' "$tmp/log.serial")
fastest=$(awk '/ debug: compiled / { v = $(NF - 1) / 1000; if (m == "" || v < m) m = v } END { printf "%.4f", m }' "$tmp/log.serial")
loaded_start=$(awk '/ debug: compile server .* started in / { v = $(NF - 1) / 1000; if (v > m) m = v } END { printf "%.4f", m }' "$tmp/log.servers")
awk -v n="$n" -v c="$c" -v s="$serial" -v p="$parallel" -v t="$threads" -v l="$longest" -v once="$once" -v f="$fastest" \
  -v ls="$loaded_start" -v w1="$warm_1" -v wc="$warm_c" -v host="$(hostname)" -v cores="$(nproc)" 'BEGIN {
  start = once - f
  if (start < 0) start = 0
  bound = s / c
  if (l > bound) bound = l
  old = p / (s / c)
  new = p / (1.3 * bound + start)
  printf "%d kernels, bankbench compile --arch sm_90, on %s (%d hardware threads)\n", n, host, cores
  printf "%-34s %8.2f s\n", "serial (-j 1):", s
  printf "%-34s %8.3f s\n", "longest kernel (serial run):", l
  printf "%-34s %8.3f s (one request: %.3f s, less the fastest kernel %.3f s)\n", "one compile server start:", start, once, f
  printf "%-34s %8.3f s\n", "longest server start (-j " c " run):", ls
  printf "%-34s %8.2f s\n", "parallel (-j " c "):", p
  printf "%-34s %8.2f s\n", "serial / " c ":", s / c
  printf "%-34s %8.2f %s (target: 1.3 or less)\n", "parallel / (serial / " c "):", old, old <= 1.3 ? "PASS" : "FAIL"
  printf "%-34s %8.2f %s (target: 1.0 or less; 1.3 x %.3f + %.3f = %.3f s)\n", "parallel / (1.3 max + start):", new,
         new <= 1.0 ? "PASS" : "FAIL", bound, start, 1.3 * bound + start
  printf "%-34s %8.2f s (%.2f times serial / %d)\n", "threads of one process:", t, t / (s / c), c
  printf "%-34s %8.1f ms on 1 thread, %.1f ms on %d\n", "warm (every kernel cached):", w1 * 1000, wc * 1000, c
}'
