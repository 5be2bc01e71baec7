#!/usr/bin/env bash
# One device call, everything packed into one archive under $OUT (the device tool brings back only
# a few files). usage: scripts/gpu-session.sh [MODE]
#   all (default)  gpu-check.sh main, the suite twice more and the spread of the three runs'
#                  medians (as stability), the transpose bandwidth file, the suite with
#                  --cache-control once and none, and the Nsight Compute parity benchmark
#   no-parity      the same without the parity benchmark
#   parity-only    build, then the parity benchmark
#   stability      no-parity, plus the suite twice more into gpu-check's database and the spread
#                  of the three runs' medians for kernels over 20 us
#   final          build, every GPU test, the default suite on one GPU against `run --devices all`
#                  (scripts/multi-gpu-check.sh, on however many GPUs there are), the regression gate's
#                  benchmark, and the source-kernel examples compiled cold and from the cache
#   gate           build, the GPU tests, and the regression gate's benchmark (bench/regress_noise.py:
#                  false alarms over every ordered pair of four suite runs, planted regressions
#                  caught), with a cut of its database (two experiments, every session) as a test
#                  fixture
#   engine         the default suite of an earlier tree (.deps/before.tar.gz, `git archive` of it,
#                  whose commit BB_BEFORE_COMMIT names; built under build/before-src) against this one, twice each into one database, and
#                  bench/same_behaviour.py over the two: configurations, statuses, requests and
#                  wavefronts; then the regression gate between them
#   kinds          build, every GPU test, the suite's wall time with and without the access-kind
#                  experiments (those with `metrics: access_kinds`), each kind experiment's `show`,
#                  and the Nsight Compute parity benchmark over the kind experiments with every
#                  kind's counters (bench/ncu_parity.py --metric-set access_kinds)
#   kernels        build, every GPU test (CUTLASS unpacked from .deps/cutlass-include.tar.gz, which
#                  scripts/stage-build-deps.sh packs, and CUTLASS_DIR set), the source and CuTe
#                  experiments and the real-kernels fixture run and shown, the Nsight Compute parity
#                  benchmark over the CuTe and source experiments (every access kind), the cache
#                  hits of a CuTe and a plain kernel (validate, cold then warm), and the parallel
#                  compile benchmark (scripts/bench-compile.sh) on this machine's cores
#   lines          build, the GPU tests, `run --lines` of the transpose, ldmatrix and cp_async
#                  experiments and the source transpose against Nsight Compute's Source page
#                  (bench/ncu_lines_parity.py), and `bankbench lines` of that run where it exists
#   attach         build, the attach GPU tests (and the source counters beside them), then `bankbench
#                  attach` on the Triton example (plain and swizzled layouts, and `regress` between
#                  them) and on the PyTorch example, and bench/attach_ncu.py (parity and overhead
#                  against Nsight Compute) over the test program, the Triton and the PyTorch examples
#   model          build, the source-counter and per-line GPU tests, then the source experiments (and
#                  the CuTe one where .deps/cutlass-include.tar.gz is staged) and tests/data/emulate's
#                  kernels measured (`run --no-timing --lines`) and predicted from their PTX
#                  (`run --backend model`), and bench/model_parity.py over the two: every predicted
#                  counter and every source line's wavefronts against the hardware's
#   code-lines     build, every GPU test, then bench/model_lines_vs_gpu.py over the default suite (and the
#                  CuTe experiment where .deps/cutlass-include.tar.gz is staged): `run --lines` on the GPU
#                  against `run --backend model --model-source code`, source line by source line
#   speed          the counters-and-verification pass (`run --no-timing`) of earlier trees against this
#                  one on the same GPU: each .deps/speed/<N>-<commit>.tar.gz (`git archive` of that commit, N giving the order)
#                  is built under build/speed/<commit>, and every binary runs the oldest tree's
#                  experiments (the same files for all) twice, in alternating order, with its wall
#                  time; where the suite's time grew, the commits between the two closest builds hold
#                  the cause. Each tree is a whole build: stage few enough for one call's 600 s
#                  (scripts/stage-build-deps.sh first, then
#                  `git archive --format=tar.gz -o .deps/speed/1-45e3417.tar.gz 45e3417`, ...)
# On an H200, all took 470 s before the parity benchmark gained its three ncu runs of the hardware
# counters alone (each about a quarter of a whole-set run); where one call may run 600 s at most,
# run no-parity and parity-only as two calls.
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-all}"
case "$mode" in all | no-parity | parity-only | stability | gate | final | kinds | engine | speed | kernels | lines | attach | model | code-lines) ;; *) echo "gpu-session.sh: unknown mode '$mode'" >&2; exit 2 ;; esac
final="${OUT:-gpu-session-out}"
export OUT="$final/w"
mkdir -p "$OUT"
b=build/gpu/bankbench

if [ "$mode" = final ]; then
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  timeout 240 ctest --test-dir build/gpu -L gpu --output-on-failure -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$OUT/gpu-check.txt"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -25 | tee "$final/ctest-gpu-summary.txt"
  BB_BUILD=build/gpu OUT="$OUT/multi" timeout 200 bash scripts/multi-gpu-check.sh > "$OUT/multi.txt" 2>&1
  echo "multi-gpu-check rc=$?"; cp "$OUT/multi/multi-gpu.md" "$final/" 2>/dev/null; tail -30 "$OUT/multi.txt"
  "$b" --db "$OUT/multi/one.sqlite" techniques -o "$final/techniques.md" > /dev/null 2>&1; echo "techniques rc=$?"
  grep -E "FAIL|failed|wrong|unsupported|configurations in" "$OUT/multi/one.err" | tail -15
  timeout 150 python3 bench/regress_noise.py --bankbench "$b" --out "$OUT/regress" > "$OUT/regress.txt" 2>&1
  echo "regress_noise rc=$?"; cp "$OUT/regress/summary.md" "$final/regress-summary.md" 2>/dev/null
  timeout 90 bash bench/source_kernels.sh "$b" > "$final/source-kernels.txt" 2>&1; echo "source_kernels rc=$?"
  tail -16 "$final/source-kernels.txt"
  cp "$OUT/gpu-check.txt" "$final/"
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' --exclude='pair.sqlite' --exclude='planted.sqlite' -C "$final" w &&
    rm -rf "$final/w"
  head -30 "$final/regress-summary.md" 2>/dev/null
  exit 0
fi
if [ "$mode" = kernels ]; then
  if [ -f .deps/cutlass-include.tar.gz ]; then
    mkdir -p build/cutlass/include && tar xzf .deps/cutlass-include.tar.gz -C build/cutlass/include
    export CUTLASS_DIR="$PWD/build/cutlass"
  fi
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; ncu --version | tail -1
    nproc; echo "CUTLASS_DIR=${CUTLASS_DIR:-unset}"; } | tee "$final/kernels.txt"
  timeout 300 ctest --test-dir build/gpu -L gpu --output-on-failure -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$final/kernels.txt"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|Skipped" "$OUT/ctest-gpu.log" | tail -25 | tee -a "$final/kernels.txt"
  export BB_CACHE_DIR="$OUT/cache"
  for f in experiments/cute/ldmatrix.yaml experiments/source/transpose.yaml; do
    for pass in cold warm; do
      t0=$(date +%s%N)
      "$b" validate "$f" > "$OUT/validate.txt" 2>&1
      echo "validate $f ($pass): rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(grep -o 'kernel(s) compiled.*' "$OUT/validate.txt")" | tee -a "$final/kernels.txt"
    done
  done
  "$b" --db "$OUT/k.sqlite" run experiments/cute experiments/source tests/data/source/validate/real_kernels.yaml \
    > "$OUT/run.txt" 2> "$OUT/run.err"
  echo "run rc=$?" | tee -a "$final/kernels.txt"; tail -60 "$OUT/run.txt" >> "$final/kernels.txt"; tail -8 "$OUT/run.err" | tee -a "$final/kernels.txt"
  .deps/bin/sqlite3 "$OUT/k.sqlite" "SELECT variant, status, compiler, substr(compile_options, 1, 40), compile_ms FROM configurations" \
    >> "$final/kernels.txt" 2>&1
  timeout 200 python3 bench/ncu_parity.py --bankbench "$b" --experiments experiments/cute experiments/source \
    --metric-set access_kinds --out "$OUT/parity" --ncu-runs 2 --ncu-counters-alone-runs 0 > "$OUT/parity.txt" 2>&1
  echo "ncu_parity rc=$?" | tee -a "$final/kernels.txt"; cp "$OUT/parity/summary.md" "$final/parity-summary.md" 2>/dev/null
  if [ -f scripts/bench-compile.sh ]; then
    BANKBENCH="$b" timeout 240 bash scripts/bench-compile.sh 48 "$(nproc)" > "$final/bench-compile.txt" 2>&1
    echo "bench-compile rc=$?" | tee -a "$final/kernels.txt"
    tail -12 "$final/bench-compile.txt"
  fi
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' --exclude='cache' -C "$final" w && rm -rf "$final/w"
  head -40 "$final/parity-summary.md" 2>/dev/null
  exit 0
fi
if [ "$mode" = attach ]; then
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  r="$final/attach.txt"
  { date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
    ncu --version | tail -1; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  } 2>&1 | tee "$r"
  timeout 200 ctest --test-dir build/gpu -L gpu -R "${BB_GPU_TESTS:-gpu_attach|source_counters}" --output-on-failure \
    > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$r"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -25 | tee -a "$r"
  grep -B2 -A30 "Failure\|FAILED" "$OUT/ctest-gpu.log" | head -120 >> "$r"
  t="$OUT/triton.sqlite"
  for layout in --swizzle ""; do
    "$b" --db "$t" attach --name triton_transpose -- python3 experiments/attach/triton_transpose.py $layout \
      > "$OUT/triton$layout.txt" 2>&1
    echo "attach triton $layout rc=$?" | tee -a "$r"; tail -8 "$OUT/triton$layout.txt" | tee -a "$r"
  done
  "$b" --db "$t" show latest >> "$r" 2>&1
  "$b" --db "$t" regress -b 1 -c 2 > "$OUT/regress.txt" 2>&1; echo "regress swizzled -> plain rc=$?" | tee -a "$r"
  head -30 "$OUT/regress.txt" | tee -a "$r"
  p="$OUT/torch.sqlite"
  "$b" -v --db "$p" attach -- python3 experiments/attach/torch_model.py > "$OUT/torch.txt" 2>&1
  echo "attach torch rc=$?" | tee -a "$r"; tail -3 "$OUT/torch.txt" | tee -a "$r"
  grep -E "profiler ready|where the time went" "$OUT/torch.txt" | head -8 | tee -a "$r"
  "$b" --db "$p" attach --nvtx-include 'step 1' -- python3 experiments/attach/torch_model.py > "$OUT/torch-nvtx.txt" 2>&1
  echo "attach torch --nvtx-include rc=$?" | tee -a "$r"; tail -4 "$OUT/torch-nvtx.txt" | tee -a "$r"
  "$b" --db "$p" show 1 > "$OUT/torch-show.txt" 2>&1; head -40 "$OUT/torch-show.txt" >> "$r"
  if [ "${BB_ATTACH_BENCH:-1}" = 1 ]; then
    bench() { # name timeout rounds metrics [--kernel-name R] -- program...
      local name=$1 limit=$2 rounds=$3 set=$4; shift 4
      timeout "$limit" python3 bench/attach_ncu.py --bankbench "$b" --out "$OUT/ncu-$name" --runs "$rounds" \
        --metrics "$set" --label "$name" "$@" > "$OUT/ncu-$name.txt" 2>&1
      echo "attach_ncu $name rc=$?" | tee -a "$r"
      cat "$OUT/ncu-$name/summary.md" 2>/dev/null | tee -a "$r" || tail -5 "$OUT/ncu-$name.txt" | tee -a "$r"
    }
    bench program-quick 60 3 quick -- build/gpu/tests/bb_attach_program
    bench program-bank_conflicts 60 2 bank_conflicts -- build/gpu/tests/bb_attach_program
    bench triton-one-kernel 120 3 quick --kernel-name tile_transpose -- python3 experiments/attach/triton_transpose.py
    bench torch-every-kernel 150 3 quick -- python3 experiments/attach/torch_model.py
    BANKBENCH_ATTACH_REPLAY=user bench torch-every-kernel-user-replay 150 2 quick -- python3 experiments/attach/torch_model.py
    BANKBENCH_ATTACH_REPLAY=user bench program-quick-user-replay 60 2 quick -- build/gpu/tests/bb_attach_program
    bench torch-layer-norm 120 3 quick --kernel-name layer_norm -- python3 experiments/attach/torch_model.py
  fi
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' -C "$final" w && rm -rf "$final/w"
  exit 0
fi
if [ "$mode" = model ]; then
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  r="$final/model.txt"
  { date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; } | tee "$r"
  timeout 200 ctest --test-dir build/gpu -L gpu -R "${BB_GPU_TESTS:-source_counters|gpu_lines}" --output-on-failure -j 4 \
    > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$r"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -25 | tee -a "$r"
  export BB_CACHE_DIR="$OUT/cache"
  files="experiments/source/transpose.yaml experiments/source/histogram.yaml tests/data/emulate/model.yaml"
  files="$files tests/data/emulate/user.yaml"
  if [ -f .deps/cutlass-include.tar.gz ]; then
    mkdir -p build/cutlass/include && tar xzf .deps/cutlass-include.tar.gz -C build/cutlass/include
    export CUTLASS_DIR="$PWD/build/cutlass"
    files="$files experiments/cute"
  fi
  # shellcheck disable=SC2086 # one word per file
  timeout 240 "$b" --db "$OUT/gpu.sqlite" run --no-timing --lines --lines-jobs 8 $files > "$OUT/gpu-run.txt" 2>&1
  echo "gpu run rc=$?" | tee -a "$r"; tail -3 "$OUT/gpu-run.txt" | tee -a "$r"
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  timeout 240 "$b" --db "$OUT/model.sqlite" run --backend model $files > "$OUT/model-run.txt" 2>&1
  echo "model run rc=$? in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$r"; tail -3 "$OUT/model-run.txt" | tee -a "$r"
  python3 bench/model_parity.py "$OUT/gpu.sqlite" "$OUT/model.sqlite" --markdown "$final/model-parity.md" \
    > "$final/model-parity.txt" 2>&1
  echo "model_parity rc=$?" | tee -a "$r"; head -40 "$final/model-parity.txt"
  "$b" --db "$OUT/model.sqlite" lines latest > "$final/model-lines.txt" 2>&1
  "$b" --db "$OUT/gpu.sqlite" lines latest > "$final/gpu-lines.txt" 2>&1
  "$b" --db "$OUT/gpu.sqlite" show latest > "$final/gpu-show.txt" 2>&1
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' --exclude='cache' -C "$final" w && rm -rf "$final/w"
  exit 0
fi

if [ "$mode" = code-lines ]; then
  if [ -f .deps/cutlass-include.tar.gz ]; then
    mkdir -p build/cutlass/include && tar xzf .deps/cutlass-include.tar.gz -C build/cutlass/include
    export CUTLASS_DIR="$PWD/build/cutlass"
  fi
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  r="$final/code-lines.txt"
  { date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; nproc
  } | tee "$r"
  timeout 260 ctest --test-dir build/gpu -L gpu -R "${BB_GPU_TESTS:-.}" --output-on-failure -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$r"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -25 | tee -a "$r"
  grep -B2 -A30 "Failure$\|FAILED" "$OUT/ctest-gpu.log" | head -100 >> "$r"
  export BB_CACHE_DIR="$OUT/cache"
  timeout 240 python3 bench/model_lines_vs_gpu.py --bankbench "$b" --out "$OUT/lines" --lines-jobs 8 experiments \
    > "$OUT/lines.txt" 2>&1
  echo "model_lines_vs_gpu rc=$?" | tee -a "$r"; cp "$OUT/lines/summary.md" "$final/code-lines-summary.md" 2>/dev/null
  head -60 "$final/code-lines-summary.md" 2>/dev/null
  grep -E "predicted in|code twin kernels|configurations \(" "$OUT/lines/model.log" | tail -4 | tee -a "$r"
  tail -2 "$OUT/lines/gpu.log" | tee -a "$r"
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' --exclude='cache' -C "$final" w && rm -rf "$final/w"
  exit 0
fi

if [ "$mode" = lines ]; then
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  { date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2
    ncu --version | tail -1; } | tee "$final/lines.txt"
  # BB_GPU_TESTS: a ctest -R filter for the GPU tests (default: every one)
  timeout 300 ctest --test-dir build/gpu -L gpu -R "${BB_GPU_TESTS:-.}" --output-on-failure -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$final/lines.txt"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -25 | tee -a "$final/lines.txt"
  grep -B5 -A40 "gpu_lines.*Failed\|FAILED.*gpu_lines" "$OUT/ctest-gpu.log" | head -80 >> "$final/lines.txt"
  export BB_CACHE_DIR="$OUT/cache"
  "$b" -vv --db "$OUT/vv.sqlite" run --no-timing --lines --lines-jobs 1 experiments/transpose/transpose.yaml 2>&1 \
    | grep -E "lines: set-up|lines [0-9]" | head -12 >> "$final/lines.txt"
  timeout 330 python3 bench/ncu_lines_parity.py --bankbench "$b" --out "$OUT/parity" --ncu-runs 2 --lines-jobs 8 \
    experiments/transpose/transpose.yaml experiments/ldmatrix experiments/cp_async experiments/source/transpose.yaml \
    > "$OUT/parity.txt" 2>&1
  echo "ncu_lines_parity rc=$?" | tee -a "$final/lines.txt"; tail -5 "$OUT/parity.txt"
  cp "$OUT/parity/summary.md" "$final/lines-parity-summary.md" 2>/dev/null
  # The floor of a process per configuration: 45 processes that only open CUDA, 1 and 8 at a time.
  printf '#include <cuda_runtime.h>\nint main() { return cudaFree(0) == cudaSuccess ? 0 : 1; }\n' > "$OUT/open.cu"
  nvcc -o "$OUT/open" "$OUT/open.cu" && for p in 1 8; do
    t0=$(date +%s%N); seq 45 | xargs -P "$p" -I{} "$OUT/open"
    echo "45 processes opening CUDA, $p at a time: $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$final/lines.txt"
  done
  tail -30 "$OUT/parity/bankbench.log" >> "$final/lines.txt" 2>/dev/null
  if "$b" lines --help > /dev/null 2>&1; then
    "$b" --db "$OUT/parity/lines.sqlite" lines latest > "$final/lines-show.txt" 2>&1; echo "lines rc=$?"
  fi
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' --exclude='cache' -C "$final" w && rm -rf "$final/w"
  cat "$final/lines-parity-summary.md" 2>/dev/null | head -60
  exit 0
fi
if [ "$mode" = engine ]; then
  [ -f .deps/before.tar.gz ] || { echo "gpu-session.sh engine: no .deps/before.tar.gz" >&2; exit 2; }
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  rm -rf build/before-src && mkdir -p build/before-src && tar xzf .deps/before.tar.gz -C build/before-src
  cp -r .deps build/before-src/ 2>/dev/null
  t0=$(date +%s)
  (cd build/before-src && bash scripts/gpu-check.sh build > "$OUT/before-build.txt" 2>&1)
  echo "before build rc=$? in $(( $(date +%s) - t0 )) s"
  before=build/before-src/build/gpu/bankbench db="$OUT/same.sqlite"
  for bin in "$before" "$before" "$b" "$b"; do
    t0=$(date +%s%N)
    commit="${BB_GIT_COMMIT:-}"; [ "$bin" = "$before" ] && commit="${BB_BEFORE_COMMIT:-before}"
    BB_GIT_COMMIT="$commit" "$bin" --db "$db" -q run build/before-src/experiments > /dev/null 2>> "$OUT/engine-runs.err"
    echo "$bin: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$final/engine.txt"
  done
  # This build's whole default suite (the access-kind experiments included), for its wall time.
  t0=$(date +%s%N)
  "$b" --db "$OUT/all.sqlite" -q run experiments > /dev/null 2> "$OUT/all.err"
  echo "whole suite: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$final/engine.txt"
  "$b" --db "$OUT/all.sqlite" techniques latest -o "$final/techniques.md" > /dev/null 2>&1; echo "techniques rc=$?"
  timeout 150 ctest --test-dir build/gpu -L gpu -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$final/engine.txt"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -20 | tee -a "$final/engine.txt"
  python3 bench/same_behaviour.py "$db" --before 1 2 --after 3 4 > "$OUT/same.txt" 2>&1
  echo "same_behaviour rc=$?" | tee -a "$final/engine.txt"; grep -v "^DIFF" "$OUT/same.txt" | tee -a "$final/engine.txt"
  grep "^DIFF" "$OUT/same.txt" | head -40 | tee -a "$final/engine.txt"
  "$b" --db "$db" regress --baseline session:1 --candidate session:3 > "$OUT/regress-1-3.txt" 2>&1
  echo "regress session 1 -> 3 rc=$?" | tee -a "$final/engine.txt"; tail -3 "$OUT/regress-1-3.txt" | tee -a "$final/engine.txt"
  "$b" --db "$db" regress --baseline session:2 --candidate session:4 > "$OUT/regress-2-4.txt" 2>&1
  echo "regress session 2 -> 4 rc=$?" | tee -a "$final/engine.txt"; tail -3 "$OUT/regress-2-4.txt" | tee -a "$final/engine.txt"
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' -C "$final" w && rm -rf "$final/w"
  exit 0
fi
if [ "$mode" = speed ]; then
  ls .deps/speed/*.tar.gz > /dev/null 2>&1 || { echo "gpu-session.sh speed: no .deps/speed/<commit>.tar.gz" >&2; exit 2; }
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  bins=("now=$b") oldest=""
  for a in .deps/speed/*.tar.gz; do # in name order: stage them as <N>-<commit>.tar.gz, oldest first
    c=$(basename "$a" .tar.gz) t0=$(date +%s)
    rm -rf "build/speed/$c" && mkdir -p "build/speed/$c" && tar xzf "$a" -C "build/speed/$c"
    mkdir -p "build/speed/$c/.deps" && cp -r .deps/include .deps/bin .deps/lib "build/speed/$c/.deps/" 2>/dev/null
    (cd "build/speed/$c" && bash scripts/gpu-check.sh build > "$OUT/build-$c.txt" 2>&1)
    echo "$c: build rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$final/speed.txt"
    [ -x "build/speed/$c/build/gpu/bankbench" ] && bins=("$c=build/speed/$c/build/gpu/bankbench" "${bins[@]}")
    [ -z "$oldest" ] && oldest="build/speed/$c/experiments"
  done
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$final/speed.txt"
  echo "experiments: $oldest ($(find "$oldest" -name '*.yaml' | wc -l) files)" | tee -a "$final/speed.txt"
  for round in 1 2; do
    order=("${bins[@]}"); [ "$round" = 2 ] && order=($(printf '%s\n' "${bins[@]}" | tac))
    for pair in "${order[@]}"; do
      name="${pair%%=*}" bin="${pair#*=}" t0=$(date +%s%N)
      BB_GIT_COMMIT="$name" "$bin" --db "$OUT/speed-$name-$round.sqlite" -q run --no-timing "$oldest" \
        > /dev/null 2>> "$OUT/speed-runs.err"
      echo "round $round $name: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$final/speed.txt"
    done
  done
  # The current binary once more without BB_GIT_COMMIT: what asking git costs where the copy has a .git.
  if [ -d .git ]; then echo ".git: $(git rev-parse --short HEAD 2>&1)"; else echo "no .git"; fi | tee -a "$final/speed.txt"
  t0=$(date +%s%N)
  env -u BB_GIT_COMMIT "$b" --db "$OUT/speed-now-git.sqlite" -q run --no-timing "$oldest" > /dev/null 2>> "$OUT/speed-runs.err"
  echo "now, asking git: rc=$? wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$final/speed.txt"
  # Each experiment's seconds per binary (first round), from its runs' started_at and finished_at.
  python3 - "$OUT" > "$final/speed-per-experiment.txt" 2>&1 <<'PY'
import glob, os, sqlite3, sys
from datetime import datetime
def secs(a, b):
    f = lambda t: datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ")
    return (f(b) - f(a)).total_seconds()
cols, names = {}, []
for db in sorted(glob.glob(os.path.join(sys.argv[1], "speed-*-1.sqlite"))):
    name = os.path.basename(db)[6:-9]
    names.append(name)
    con = sqlite3.connect(db)
    for exp, a, b, n in con.execute("SELECT r.experiment_name, r.started_at, r.finished_at, "
                                    "(SELECT COUNT(*) FROM configurations c WHERE c.run_id = r.id) FROM runs r"):
        cols.setdefault(exp, {})[name] = (secs(a, b) if a and b else float("nan"), n)
print("| experiment | " + " | ".join(f"{n} s (configs)" for n in names) + " |")
for exp in sorted(cols):
    print(f"| {exp} | " + " | ".join("{:.2f} ({})".format(*cols[exp][n]) if n in cols[exp] else "-" for n in names) + " |")
PY
  cat "$final/speed-per-experiment.txt"
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' -C "$final" w && rm -rf "$final/w"
  exit 0
fi
if [ "$mode" = kinds ]; then
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  grep -E "build rc" "$OUT/gpu-check.txt"
  # The wgmma objects hold HGMMA instructions (sm_90a).
  for o in $(find build/gpu -path "*wgmma*" -name "*.cu.o"); do
    echo "$o: $(cuobjdump -sass "$o" 2>/dev/null | grep -c HGMMA) HGMMA"
  done | tee "$OUT/wgmma-sass.txt"
  timeout 200 ctest --test-dir build/gpu -L gpu --output-on-failure -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?"
  grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$OUT/ctest-gpu.log" | tail -25 | tee "$final/ctest-gpu-summary.txt"
  grep -E "^[a-z_]+/[a-z_0-9]+ +\{" "$OUT/ctest-gpu.log" | sort -u > "$OUT/kinds-cases.txt"
  # The suite with and without the experiments that collect every kind.
  textbook=() kinds=()
  for f in experiments/*/*.yaml; do
    if grep -q "^metrics: access_kinds" "$f"; then kinds+=("$f"); else textbook+=("$f"); fi
  done
  echo "kind experiments: ${kinds[*]}" | tee "$final/suite-times.txt"
  for pass in 1 2; do
    for suite in textbook kinds-exp all; do
      case $suite in textbook) set -- "${textbook[@]}" ;; kinds-exp) set -- "${kinds[@]}" ;; all) set -- experiments ;; esac
      t0=$(date +%s%N)
      "$b" --db "$OUT/suite-$suite.sqlite" -q run "$@" > /dev/null 2> "$OUT/suite-$suite-$pass.err"
      rc=$?
      echo "suite $suite pass $pass: rc=$rc wall $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$final/suite-times.txt"
    done
  done
  "$b" --db "$OUT/suite-all.sqlite" techniques latest -o "$final/techniques.md" > /dev/null 2>&1; echo "techniques rc=$?"
  "$b" --db "$OUT/suite-kinds-exp.sqlite" show latest > "$final/kinds-show.txt" 2>&1
  "$b" --db "$OUT/suite-kinds-exp.sqlite" show latest --format csv > "$OUT/kinds-show.csv" 2>&1
  grep -iE "expect|FAIL|wrong|unsupported|error" "$OUT/suite-kinds-exp-1.err" | head -60 > "$OUT/kinds-expect.txt"
  tail -5 "$OUT/suite-kinds-exp-1.err"
  timeout 280 python3 bench/ncu_parity.py --bankbench "$b" --experiments "${kinds[@]}" --metric-set access_kinds \
    --bankbench-runs 1 --ncu-runs 3 --ncu-counters-alone-runs 3 --out "$OUT/parity-kinds" > "$OUT/parity-kinds.txt" 2>&1
  echo "parity rc=$?"; cp "$OUT/parity-kinds/summary.md" "$final/parity-kinds-summary.md" 2>/dev/null
    tail -5 "$OUT/parity-kinds.txt"
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' -C "$final" w && rm -rf "$final/w"
  exit 0
fi
if [ "$mode" = gate ]; then
  bash scripts/gpu-check.sh build > "$OUT/gpu-check.txt" 2>&1 || { tail -40 "$OUT/gpu-check.txt"; exit 1; }
  ctest --test-dir build/gpu -L gpu --output-on-failure -j 4 > "$OUT/ctest-gpu.log" 2>&1
  echo "ctest -L gpu rc=$?" | tee -a "$OUT/gpu-check.txt"; grep -E "tests passed|tests failed|Failed|\(Failed\)" "$OUT/ctest-gpu.log" | tail -20
  python3 bench/regress_noise.py --bankbench "$b" --out "$OUT/regress" > "$OUT/regress.txt" 2>&1
  echo "regress_noise rc=$?"
  python3 - "$OUT/regress/noise.sqlite" "$final/regress-fixture.sqlite" <<'PY'
import sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
con = sqlite3.connect(dst)
sqlite3.connect(src).backup(con)
con.execute("PRAGMA foreign_keys = ON")
con.execute("DELETE FROM runs WHERE experiment_name NOT IN ('transpose')")
con.execute("DELETE FROM timing_samples")
con.commit()
con.execute("VACUUM")
con.close()
PY
  cp "$OUT/regress/summary.md" "$final/regress-summary.md" 2>/dev/null
  cp "$OUT/gpu-check.txt" "$final/"
  tar czf "$final/all.tgz" --exclude='*.sqlite-*' --exclude='pair.sqlite' -C "$final" w && rm -rf "$final/w"
  cat "$final/regress-summary.md" 2>/dev/null | head -60
  exit 0
fi
if [ "$mode" = parity-only ]; then
  bash scripts/gpu-check.sh parity > "$OUT/gpu-check.txt" 2>&1 # builds, then bench/ncu_parity.py
else
  bash scripts/gpu-check.sh main > "$OUT/gpu-check.txt" 2>&1
fi
if [ "$mode" = stability ] || [ "$mode" = all ]; then
  for i in 2 3; do "$b" --db "$OUT/gpu-check.sqlite" -q run experiments > /dev/null 2>&1; done
  python3 bench/timing_stability.py "$OUT/gpu-check.sqlite" > "$OUT/stability.txt" 2>&1
  cp "$OUT/stability.txt" "$final/"
fi
if [ "$mode" != parity-only ]; then
  "$b" --db "$OUT/wide.sqlite" run experiments/transpose/wide.yaml > "$OUT/wide.txt" 2>&1
  for cc in once none; do
    "$b" --db "$OUT/cc-$cc.sqlite" -q run --cache-control "$cc" experiments > /dev/null 2> "$OUT/cc-$cc.log"
  done
fi
if [ "$mode" = all ]; then
  python3 bench/ncu_parity.py --bankbench "$b" --out "$OUT/parity" > "$OUT/parity.txt" 2>&1
fi
cp "$OUT/parity/summary.md" "$final/parity-summary.md" 2>/dev/null
cp "$OUT/gpu-check.txt" "$final/"
tar czf "$final/all.tgz" -C "$final" w && rm -rf "$final/w"
tail -60 "$final/gpu-check.txt"
head -40 "$final/parity-summary.md" 2>/dev/null
exit 0
