#!/usr/bin/env python3
"""Compare bankbench's shared-memory counters with Nsight Compute's on the same kernels.

usage: ncu_compare.py BANKBENCH EXPERIMENT.yaml WORKDIR [extra ncu options...]

Runs the experiment once with bankbench's own profiler, then once under `ncu` with bankbench's
counters off (each configuration then launches its kernel twice: the verified launch and one
timing sample), and prints, per configuration and metric, both tools' values and the wall time of
each tool.
"""
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time

METRICS = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
]
SHORT = {m: m.split("__")[1].replace("data_bank_conflicts_pipe_lsu_mem_shared_op", "conflicts")
         .replace("data_pipe_lsu_wavefronts_mem_shared_op", "wavefronts")
         .replace("sass_inst_executed_op_shared", "requests") for m in METRICS}


def run_bankbench(bb, exp, db):
    t0 = time.time()
    p = subprocess.run([bb, "--db", db, "-q", "run", exp], capture_output=True, text=True)
    wall = time.time() - t0
    con = sqlite3.connect(db)
    run_id = con.execute("select max(id) from runs").fetchone()[0]
    rows = {}
    for seq, variant, params, name, value in con.execute(
            "select c.seq, c.variant, c.params_json, m.name, m.value from configurations c "
            "join metrics m on m.configuration_id = c.id where c.run_id = ? and m.launch_index = 0 "
            "and m.derived = 0", (run_id,)):
        rows.setdefault(seq, {"label": f"{variant} {params}"})[name] = value
    return rows, wall, p.returncode


def run_ncu(bb, exp, db, extra):
    cmd = ["ncu", "--metrics", ",".join(METRICS), "--csv", "--print-units", "base", *extra,
           bb, "--db", db, "-q", "run", "--no-counters", "--warmup", "0", "--samples", "1", exp]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    lines = p.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit("ncu produced no CSV:\n" + p.stdout[-3000:] + p.stderr[-3000:])
    launches = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if r.get("Metric Name") in METRICS:
            launches.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [launches[k] for k in sorted(launches)], wall


def main():
    bb, exp, work = sys.argv[1:4]
    extra = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    ours, t_bb, rc = run_bankbench(bb, exp, os.path.join(work, "bankbench.sqlite"))
    theirs, t_ncu = run_ncu(bb, exp, os.path.join(work, "ncu-target.sqlite"), extra)
    print(f"bankbench rc={rc}, wall {t_bb:.2f} s; ncu {' '.join(extra) or '(defaults)'}: wall {t_ncu:.2f} s, "
          f"{len(theirs)} kernel launches for {len(ours)} configurations")
    print(f"{'configuration':44} {'metric':16} {'bankbench':>12} {'ncu first':>12} {'ncu second':>12} {'diff':>8}")
    for seq in sorted(ours):
        first = theirs[2 * seq] if 2 * seq < len(theirs) else {}
        second = theirs[2 * seq + 1] if 2 * seq + 1 < len(theirs) else {}
        for m in METRICS:
            a, b, c = ours[seq].get(m), first.get(m), second.get(m)
            diff = "" if a is None or b is None else f"{a - b:+.0f}"
            print(f"{ours[seq]['label'][:44]:44} {SHORT[m]:16} {a if a is not None else '-':>12} "
                  f"{b if b is not None else '-':>12} {c if c is not None else '-':>12} {diff:>8}")


if __name__ == "__main__":
    main()
