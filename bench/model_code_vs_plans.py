#!/usr/bin/env python3
"""The bank model from a built-in family's own kernel code (PTX) against its access plans.

usage: bench/model_code_vs_plans.py [--bankbench B] [--out DIR] TWIN.yaml ...

A twin is a source-variant experiment (bench/code_twins/FAMILY.yaml) that launches the family's
own kernels (kernels/FAMILY/kernel.cuh, the device code alone, in one nvcc run) with the family's
variant names and parameter axes. For each twin the script writes the same sweep as a built-in
experiment (family, variants, axes, zip, metrics), runs both with `--backend model` into one database, and
compares every raw counter the model stores per (variant, parameters): requests, wavefronts and
conflicts per direction and per access kind. Prints a summary line per twin and every difference;
exit status 0 when every configuration is equal and predicted from code, else 1.
CTest runs it over every twin (tests/CMakeLists.txt, code_twins).
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

import yaml


def counters(con, run_id, axes):
    """{(variant name, params json over `axes`): (status, {counter: value})} of one run."""
    out = {}
    for cid, variant, params, status in con.execute(
            "SELECT id, variant, params_json, status FROM configurations WHERE run_id = ?", (run_id,)):
        values = dict(con.execute(
            "SELECT name, value FROM metrics WHERE configuration_id = ? AND derived = 0 AND launch_index = 0", (cid,)))
        if status not in ("ok", "unverified"):
            values = {"reason": con.execute("SELECT reason FROM configurations WHERE id = ?", (cid,)).fetchone()[0]}
        shown = {k: v for k, v in json.loads(params).items() if k in axes}
        out[(variant.split("/", 1)[1], json.dumps(shown, sort_keys=True))] = (status, values)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bankbench", default="build/release/bankbench")
    ap.add_argument("--out", help="folder for the databases and the built-in experiments (default: a temporary one)")
    ap.add_argument("twins", nargs="+")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="code-vs-plans-")
    os.makedirs(out, exist_ok=True)
    failed = False
    totals = {"configurations": 0, "equal": 0, "differ": 0, "not predicted from code": 0}
    for twin in a.twins:
        family = os.path.splitext(os.path.basename(twin))[0]
        with open(twin) as f:
            spec = yaml.safe_load(f)
        variants = [v["name"] for v in spec["variants"]]
        builtin = {"name": family + "_plans", "description": "the twin's sweep, from the access plans",
                   "family": family, "variants": variants, "axes": spec.get("axes", {})}
        for key in ("zip", "metrics"):
            if key in spec:
                builtin[key] = spec[key]
        plans_yaml = os.path.join(out, family + "_plans.yaml")
        with open(plans_yaml, "w") as f:
            yaml.safe_dump(builtin, f, sort_keys=False)
        db = os.path.join(out, family + ".sqlite")
        if os.path.exists(db):
            os.remove(db)
        for path in (plans_yaml, twin):
            r = subprocess.run([a.bankbench, "--db", db, "-q", "run", "--backend", "model", path],
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):
                print(f"{twin}: `bankbench run --backend model {path}` exited {r.returncode}:\n{r.stderr}")
                failed = True
        con = sqlite3.connect(db)
        runs = [row[0] for row in con.execute("SELECT id FROM runs ORDER BY id")]
        if len(runs) != 2:
            print(f"{twin}: expected two runs in {db}, found {len(runs)}")
            failed = True
            continue
        axes = set(spec.get("axes", {}))
        plans, code = counters(con, runs[0], axes), counters(con, runs[1], axes)
        n = {"configurations": 0, "equal": 0, "differ": 0, "not predicted from code": 0}
        for key in sorted(plans):
            pstatus, pvalues = plans[key]
            if pstatus != "ok":
                continue
            n["configurations"] += 1
            if key not in code:
                print(f"{family} {key[0]} {key[1]}: missing from the twin")
                n["differ"] += 1
                continue
            cstatus, cvalues = code[key]
            if cstatus not in ("ok", "unverified"):
                print(f"{family} {key[0]} {key[1]}: {cstatus} from code: {cvalues.get('reason', '')}")
                n["not predicted from code"] += 1
                continue
            diffs = [f"{name} plan {pvalues.get(name, 0):.0f} code {cvalues.get(name, 0):.0f}"
                     for name in sorted(set(pvalues) | set(cvalues)) if pvalues.get(name, 0) != cvalues.get(name, 0)]
            if diffs:
                n["differ"] += 1
                print(f"{family} {key[0]} {key[1]}: " + "; ".join(diffs))
            else:
                n["equal"] += 1
        print(f"{family}: " + ", ".join(f"{k} {v}" for k, v in n.items()))
        for k, v in n.items():
            totals[k] += v
        failed = failed or n["differ"] > 0 or n["not predicted from code"] > 0
    print("all: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
