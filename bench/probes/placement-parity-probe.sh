#!/usr/bin/env bash
# Do conflict counts depend on where a configuration's buffers lie? bankbench's two runs of the
# parity benchmark differ from ncu's counters in the same direction configuration by configuration
# (more than two ncu runs do), as if each tool had its own placement. Over the whole default suite:
# bankbench `run --no-timing` twice with the memory pool (the default), twice with
# `--allocator driver` and `run` (with its timing pass) twice; ncu with the four l1tex counters
# alone RUNS times (default 4) over the launch-once target with the pool and RUNS times with
# `--allocator driver`. Writes one row per configuration
# and conflict metric with every reading to $OUT/placement/placement.csv (and placement.tgz), and
# prints for pairs of conditions how often every reading of one lies above or below every reading of
# the other, against chance.
# usage (on a GPU machine, after scripts/gpu-check.sh build): bench/probes/placement-parity-probe.sh [RUNS]
set -uo pipefail
cd "$(dirname "$0")/../.."
export PATH=/usr/local/cuda/bin:$PATH
runs="${1:-4}"
o="${OUT:-probe-out}/placement"
mkdir -p "$o"
b=build/gpu/bankbench
[ -x "$b" ] || { echo "placement-parity-probe.sh: no $b; run scripts/gpu-check.sh build first" >&2; exit 2; }
python3 - "$b" "$o" "$runs" <<'PY'
import csv, math, os, statistics, sys
sys.path.insert(0, "bench")
import ncu_parity as p

bb, out, runs = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
suite = "experiments"
n_exp = p.experiment_count(bb, suite)
names = tuple(p.COUNTERS_ALONE)
conflicts = [n for n, (_, what) in p.COUNTERS_ALONE.items() if what == "conflicts"]
readings = {}  # condition -> list of runs, each [values per configuration]
keys = None


def bankbench(label, options):
    global keys
    db = os.path.join(out, f"{label}.sqlite")
    p.remove_database(db)
    for i in range(2):
        wall = p.bankbench_pass(bb, suite, db, os.path.join(out, f"{label}-{i + 1}.log"), options)
        print(f"{label} {i + 1}: {wall:.2f} s", flush=True)
    ids = p.newest_runs(db, 2 * n_exp)
    for k in range(2):
        configs = p.configurations(db, ids[k * n_exp:(k + 1) * n_exp])
        keys = keys or [c["key"] for c in configs]
        readings.setdefault(label, []).append([c["values"] for c in configs])
    return configs


def ncu(label, target_options, configs):
    for i in range(runs):
        db = os.path.join(out, f"{label}-target.sqlite")
        p.remove_database(db)
        launches, kernels, wall = p.ncu_pass(bb, suite, db, os.path.join(out, f"{label}-{i + 1}.log"), [], names,
                                             target_options)
        target = p.configurations(db, p.newest_runs(db, n_exp))
        per = p.split_launches([c["kernels"] for c in configs], [t["status"] for t in target], launches, kernels,
                               f"{label} {i + 1}")
        readings.setdefault(label, []).append([g[0] if g else {} for g in per])
        print(f"{label} {i + 1}: {wall:.2f} s", flush=True)


configs = bankbench("bb-pool", ["--no-timing"])
bankbench("bb-driver", ["--no-timing", "--allocator", "driver"])
bankbench("bb-timed", [])
ncu("ncu-pool", [], configs)
ncu("ncu-driver", ["--allocator", "driver"], configs)

labels = list(readings)
with open(os.path.join(out, "placement.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["configuration", "metric"] + [f"{l} {i + 1}" for l in labels for i in range(len(readings[l]))])
    for idx, key in enumerate(keys):
        for name in conflicts:
            row = [readings[l][i][idx].get(name) for l in labels for i in range(len(readings[l]))]
            if any(v is None for v in row):
                continue
            w.writerow([key, p.COUNTERS_ALONE[name][0]] + [f"{v:.0f}" for v in row])

# How often every reading of one condition lies above (or below) every reading of the other, over
# the conflict counts of at least 5000 that vary between readings, against how often chance alone
# would give that (2 / C(a + b, a) for a and b readings).
varying = []
for idx in range(len(keys)):
    for name in conflicts:
        values = [r[idx].get(name) for l in labels for r in readings[l]]
        if None not in values and statistics.median(values) >= 5000 and len(set(values)) > 4:
            varying.append((idx, name))
print(f"\n{len(varying)} conflict counts of at least 5000 that vary; conditions separated (by chance):")
pairs = [("ncu-driver", "ncu-pool"), ("bb-pool", "ncu-pool"), ("bb-timed", "ncu-pool"), ("bb-driver", "ncu-driver"),
         ("bb-pool", "ncu-driver"), ("bb-driver", "bb-pool"), ("bb-timed", "bb-pool")]
for a, b in pairs:
    apart = 0
    for idx, name in varying:
        va = [r[idx][name] for r in readings[a]]
        vb = [r[idx][name] for r in readings[b]]
        apart += min(va) > max(vb) or max(va) < min(vb)
    chance = 2 / math.comb(len(readings[a]) + len(readings[b]), len(readings[a])) * len(varying)
    print(f"{a} / {b}: {apart} ({chance:.1f})")

# The part of a difference between two conditions that repeats: each condition's runs split in two
# halves (first and second), the difference taken within each half, relative to the count; the
# covariance of the two halves' differences over the varying counts estimates the variance of the
# per-configuration offset, noise left out. Printed as its square root, in per cent.
print("\nreproducible per-configuration difference (root mean square, noise left out):")
for a, b in pairs:
    products = []
    for idx, name in varying:
        va = [r[idx][name] for r in readings[a]]
        vb = [r[idx][name] for r in readings[b]]
        ha, hb = len(va) // 2, len(vb) // 2
        scale = statistics.mean(vb)
        first = (statistics.mean(va[:ha]) - statistics.mean(vb[:hb])) / scale
        second = (statistics.mean(va[ha:]) - statistics.mean(vb[hb:])) / scale
        products.append(first * second)
    cov = statistics.mean(products)
    print(f"{a} - {b}: {100 * max(cov, 0.0) ** 0.5:.2f} %")
PY
python3 - "$o" <<'PY'
import glob, os, sqlite3, sys
for d in sorted(glob.glob(os.path.join(sys.argv[1], "*.sqlite"))):
    rows = sqlite3.connect(d).execute("select device_used_bytes, pool_reserved_bytes from configurations "
                                      "order by id limit 4").fetchall()
    print(os.path.basename(d), "device MiB in use / pool MiB after the first configurations:",
          " ".join(f"{(u or 0) >> 20}/{(q or 0) >> 20}" for u, q in rows))
PY
(cd "$o/.." && tar czf placement.tgz placement/placement.csv placement/*.log)
