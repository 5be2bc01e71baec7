#!/usr/bin/env python3
"""Per-line predictions from the kernels' code against per-line measurements on a GPU.

usage: bench/model_lines_vs_gpu.py --bankbench BIN --out DIR [--lines-jobs N] EXPERIMENT...
       bench/model_lines_vs_gpu.py --again --out DIR

1. `bankbench run --lines --no-timing` over the experiments on the GPU, timed: every configuration's
   shared-memory instructions with wavefronts and ideal wavefronts (CUPTI's SASS metrics).
2. `bankbench run --backend model --model-source code` over the same experiments into the same
   database, timed: built-in variants from their code twins, source variants from their PTX.
3. Per configuration measured with lines by both and per source line (file, line): the GPU's
   wavefronts and ideal, summed over the line's SASS instructions, against the model's, summed over
   the line's PTX instructions. A line one side has and the other does not counts as different.
   Configurations the model predicted from a plan (no line collection) are counted apart; one whose
   kernel makes no shared-memory request on either side is compared with no line.

Writes DIR/lines.sqlite, DIR/model-lines.csv (every compared line) and DIR/summary.md (versions,
wall times, per experiment the configurations and lines compared and equal, the lines that differ).
Exit status 0 when it ran (a benchmark), 2 on a usage or tool error.
"""
import argparse
import csv
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone


def fail(message):
    print(f"model_lines_vs_gpu: {message}", file=sys.stderr)
    sys.exit(2)


def run_timed(cmd, log_path, env=None):
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=log, text=True, env=env)
    return p.returncode, time.monotonic() - t0


def per_line(db, backend):
    """{(experiment, variant, params): {(file, line): [wavefronts, ideal]}} of `backend`'s runs."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT r.experiment_name, c.variant, c.params_json, l.file, l.line, l.wavefronts, l.ideal "
        "FROM line_counters l JOIN configurations c ON c.id = l.configuration_id "
        "JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id WHERE g.backend = ?",
        (backend,)).fetchall()
    con.close()
    out = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for experiment, variant, params, file, line, wavefronts, ideal in rows:
        key = (experiment, variant, json.dumps(json.loads(params), sort_keys=True))
        # The same file reached by another path (a symbolic link, `..`) is the same file.
        where = (os.path.realpath(file) if file else "", line)
        out[key][where][0] += wavefronts
        out[key][where][1] += ideal
    return out


def configurations(db, backend):
    """{(experiment, variant, params): its lines' status, or None where it has no line collection
    (the model: predicted from an access plan, or not modelled)}."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT r.experiment_name, c.variant, c.params_json, lc.status FROM configurations c "
        "JOIN runs r ON r.id = c.run_id JOIN gpus g ON g.id = r.gpu_id "
        "LEFT JOIN line_collections lc ON lc.configuration_id = c.id WHERE g.backend = ?", (backend,)).fetchall()
    con.close()
    return {(e, v, json.dumps(json.loads(p), sort_keys=True)): s for e, v, p, s in rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bankbench", default="build/bankbench")
    ap.add_argument("--out", required=True)
    ap.add_argument("--lines-jobs", type=int, default=8)
    ap.add_argument("--again", action="store_true", help="compare what an earlier run left in --out again")
    ap.add_argument("experiments", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    db = os.path.join(a.out, "lines.sqlite")
    walls_path = os.path.join(a.out, "walls.json")
    if a.again:
        if not os.path.exists(db) or not os.path.exists(walls_path):
            fail(f"--again: {a.out} holds no earlier run")
        walls = json.load(open(walls_path))
    else:
        if not a.experiments:
            fail("name the experiments (files or folders)")
        if os.path.exists(db):
            os.remove(db)
        bb = a.bankbench
        code, gpu_s = run_timed([bb, "--db", db, "run", "--lines", "--no-timing", "--lines-jobs", str(a.lines_jobs)] +
                                a.experiments, os.path.join(a.out, "gpu.log"))
        if code not in (0, 1):
            fail(f"the GPU run exited {code}: {os.path.join(a.out, 'gpu.log')}")
        code, model_s = run_timed([bb, "--db", db, "run", "--backend", "model", "--model-source", "code"] +
                                  a.experiments, os.path.join(a.out, "model.log"),
                                  dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        if code not in (0, 1):
            fail(f"the model run exited {code}: {os.path.join(a.out, 'model.log')}")
        version = subprocess.run([bb, "--version"], capture_output=True, text=True).stdout.strip()
        walls = {"gpu_s": gpu_s, "model_s": model_s, "bankbench": version,
                 "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
        json.dump(walls, open(walls_path, "w"))

    gpu, model = per_line(db, "cupti"), per_line(db, "model")
    gpu_configs, model_configs = configurations(db, "cupti"), configurations(db, "model")
    per_experiment = defaultdict(lambda: {"configs": 0, "configs_equal": 0, "lines": 0, "lines_equal": 0,
                                          "from_plan": 0, "no_gpu_lines": 0})
    differing = []
    with open(os.path.join(a.out, "model-lines.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "variant", "params", "file", "line", "gpu_wavefronts", "gpu_ideal",
                    "model_wavefronts", "model_ideal", "equal"])
        for key in sorted(model_configs):
            e = per_experiment[key[0]]
            if key not in gpu_configs:
                continue
            if model_configs[key] is None:
                e["from_plan"] += 1
                continue
            if key not in gpu and key in model:
                e["no_gpu_lines"] += 1
                continue
            e["configs"] += 1
            all_equal = True
            # Neither side has a line where the kernel makes no shared-memory request.
            gpu_lines, model_lines = gpu.get(key, {}), model.get(key, {})
            for where in sorted(set(gpu_lines) | set(model_lines)):
                g = gpu_lines.get(where, [0, 0])
                m = model_lines.get(where, [0, 0])
                if g == [0, 0] and m == [0, 0]:
                    continue
                equal = g == m
                e["lines"] += 1
                e["lines_equal"] += 1 if equal else 0
                all_equal = all_equal and equal
                w.writerow([key[0], key[1], key[2], where[0], where[1], g[0], g[1], m[0], m[1], int(equal)])
                if not equal:
                    differing.append((key, where, g, m))
            e["configs_equal"] += 1 if all_equal else 0

    total = {k: sum(e[k] for e in per_experiment.values()) for k in
             ("configs", "configs_equal", "lines", "lines_equal", "from_plan", "no_gpu_lines")}
    with open(os.path.join(a.out, "summary.md"), "w") as s:
        s.write(f"# Per-line model from code against the GPU\n\n{walls['date']}, {walls['bankbench']}\n\n")
        s.write(f"GPU `run --lines --no-timing`: {walls['gpu_s']:.1f} s; model `run --backend model "
                f"--model-source code`: {walls['model_s']:.1f} s.\n\n")
        s.write("| experiment | configurations compared | all lines equal | lines | lines equal | from a plan "
                "| no GPU lines |\n|---|---|---|---|---|---|---|\n")
        for name in sorted(per_experiment):
            e = per_experiment[name]
            s.write(f"| {name} | {e['configs']} | {e['configs_equal']} | {e['lines']} | {e['lines_equal']} "
                    f"| {e['from_plan']} | {e['no_gpu_lines']} |\n")
        s.write(f"| all | {total['configs']} | {total['configs_equal']} | {total['lines']} | {total['lines_equal']} "
                f"| {total['from_plan']} | {total['no_gpu_lines']} |\n\n")
        if differing:
            s.write("Lines that differ (GPU wavefronts/ideal, model wavefronts/ideal), the first 60:\n\n")
            for (exp, variant, params), (file, line), g, m in differing[:60]:
                s.write(f"- {exp} {variant} {params} {os.path.basename(file)}:{line}: GPU {g[0]}/{g[1]}, "
                        f"model {m[0]}/{m[1]}\n")
    print(open(os.path.join(a.out, "summary.md")).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
