#!/usr/bin/env bash
# Source kernels on one machine: NVRTC compile times of the examples in experiments/source, cold
# (an empty cache) and from the cache, through `bankbench validate` (no GPU needed); then, where a
# GPU is visible, the examples run next to the compiled-in transpose, and the source transpose's
# requests and wavefronts per request beside its compiled twin's at the same parameters.
# usage: bench/source_kernels.sh [BANKBENCH] (default build/release/bankbench)
set -uo pipefail
cd "$(dirname "$0")/.."
b="${1:-build/release/bankbench}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BB_CACHE_DIR="$work/cache"
echo "== compile (sm_90): cold, then from the cache, three times each way"
for i in 1 2 3; do
  rm -rf "$BB_CACHE_DIR"
  "$b" validate experiments/source | sed 's/^/cold: /'
  "$b" validate experiments/source | sed 's/^/warm: /'
done
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: compile times only"; exit 0; }
echo "== run on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
"$b" -q --db "$work/s.sqlite" run experiments/source experiments/transpose/transpose.yaml >/dev/null
echo "run rc=$?"
python3 - "$work/s.sqlite" <<'PY'
import json, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
rows = con.execute("""
  SELECT r.experiment_name, c.variant, c.params_json, c.status, c.compile_ms,
         (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id AND m.name = 'load_requests'),
         (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id AND m.name = 'load_wavefronts_per_request'),
         (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id AND m.name = 'store_requests'),
         (SELECT avg(value) FROM metrics m WHERE m.configuration_id = c.id AND m.name = 'store_wavefronts_per_request')
  FROM configurations c JOIN runs r ON r.id = c.run_id ORDER BY r.id, c.seq""").fetchall()
def key(params):
    p = json.loads(params)
    return (p.get("n"), p.get("tile", 32), p.get("block_rows", 8))
built = {(v.split("/")[1], key(p)): (lr, lw, sr, sw) for e, v, p, s, ms, lr, lw, sr, sw in rows
         if e == "transpose" and json.loads(p).get("type", "float") == "float"}
print("| source variant | params | status | compile ms | ld req | ld wf/req | st req | st wf/req | compiled twin: ld req, ld wf/req, st req, st wf/req |")
print("|---|---|---|---|---|---|---|---|---|")
fmt = lambda x: "-" if x is None else (f"{x:.0f}" if x > 100 else f"{x:.4f}")
for e, v, p, s, ms, lr, lw, sr, sw in rows:
    if not e.startswith("source"):
        continue
    twin = built.get((v.split("/")[1], key(p)))
    tw = ", ".join(fmt(x) for x in twin) if twin else "-"
    print(f"| {v} | `{p}` | {s} | {fmt(ms)} | {fmt(lr)} | {fmt(lw)} | {fmt(sr)} | {fmt(sw)} | {tw} |")
PY
