#!/usr/bin/env python3
"""`bankbench attach` against Nsight Compute over the same program, filter and metrics.

usage: bench/attach_ncu.py --bankbench BIN --out DIR [--runs N] [--kernel-name REGEX]
                           [--metrics quick|bank_conflicts] [--label NAME] [--attach-arg OPTION]...
                           -- PROGRAM [ARGS...]

For one program (a CUDA binary, `python3 script.py`):
1. N rounds (default 3), each: the program alone, `bankbench attach --metrics <set>` (default
   quick), and `ncu --metrics <the same counters> --csv --target-processes all` (with
   `--kernel-name regex:REGEX` where one is given), in that order, so that drift in the machine
   falls on all three alike. A tool's profiling overhead is its median wall time minus the
   program's own median.
2. Parity: the i-th launch bankbench profiled against the i-th launch ncu profiled (both profile
   the launches that pass the filter in program order; the kernel names are checked to agree):
   requests and wavefronts must be equal; conflicts are listed with their difference. Also counted:
   the values where every ncu round agrees (launch i of each round), how many of those bankbench's
   first round equals, and the values bankbench's rounds agree on among themselves.
Writes DIR/summary.md and DIR/parity.csv and prints the summary. ncu runs with
`--clock-control none` (the lent GPUs keep their clock settings) and its default cache control.
"""
import argparse
import csv
import io
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

L1TEX = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
]
# bankbench's named sets (runner/common/metrics.cpp), as CUPTI lists both tools are given.
SETS = {
    "quick": ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
              "smsp__inst_executed_op_ldsm.sum", "smsp__inst_executed_op_shared_stsm.sum"] + L1TEX
             + ["gpu__time_duration.sum"],
    "bank_conflicts": ["smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum"]
                      + L1TEX + ["gpu__time_duration.sum"],
}
METRICS = SETS["quick"]


def timed(cmd, log, env=None):
    t0 = time.monotonic()
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=f, text=True, env=env)
    return p, time.monotonic() - t0


def ncu_launches(stdout):
    lines = stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        return []
    launches = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if row.get("Metric Name") in METRICS:
            key = (int(row.get("Process ID") or 0), int(row["ID"]))
            entry = launches.setdefault(key, {"kernel": row.get("Kernel Name", ""), "values": {}})
            entry["values"][row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return [launches[k] for k in sorted(launches)]


def attach_launches(db, run_id):
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT c.seq, c.variant, m.name, m.value FROM configurations c JOIN metrics m ON m.configuration_id = c.id "
        "WHERE c.run_id = ? AND m.derived = 0 ORDER BY c.seq", (run_id,)).fetchall()
    con.close()
    out = {}
    for seq, variant, name, value in rows:
        out.setdefault(seq, {"kernel": variant, "values": {}})["values"][name] = value
    return [out[k] for k in sorted(out)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bankbench", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--kernel-name", default="")
    ap.add_argument("--label", default="")
    ap.add_argument("--metrics", default="quick", choices=sorted(SETS))
    ap.add_argument("--attach-arg", action="append", default=[],
                    help="an option for `bankbench attach` (repeatable), e.g. --attach-arg=--cache-control=none")
    ap.add_argument("program", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    program = a.program[1:] if a.program[:1] == ["--"] else a.program
    if not program:
        sys.exit("attach_ncu.py: give the program after --")
    os.makedirs(a.out, exist_ok=True)
    log = os.path.join(a.out, "log.txt")
    db = os.path.join(a.out, "attach.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)

    global METRICS
    METRICS = SETS[a.metrics]
    exact = [m for m in METRICS if "bank_conflicts" not in m and "time_duration" not in m]
    attach_cmd = [a.bankbench, "--db", db, "-q", "attach", "--metrics", ",".join(METRICS)]
    if a.kernel_name:
        attach_cmd += ["--kernel-name", a.kernel_name]
    attach_cmd += a.attach_arg
    ncu_cmd = ["ncu", "--metrics", ",".join(METRICS), "--csv", "--print-units", "base", "--clock-control", "none",
               "--target-processes", "all"]
    if a.kernel_name:
        ncu_cmd += ["--kernel-name", "regex:" + a.kernel_name]
    alone, attach_walls, run_ids, ncu_walls, ncu_rounds = [], [], [], [], []
    for _ in range(a.runs):
        alone.append(timed(program, log)[1])
        p, wall = timed(attach_cmd + ["--", *program], log)
        attach_walls.append(wall)
        if p.returncode != 0:
            sys.exit(f"attach_ncu.py: bankbench attach exited {p.returncode}; see {log}")
        con = sqlite3.connect(db)
        run_ids.append(con.execute("SELECT max(id) FROM runs").fetchone()[0])
        con.close()
        p, wall = timed(ncu_cmd + program, log)
        ncu_walls.append(wall)
        ncu_rounds.append(ncu_launches(p.stdout))
    ncu_first = ncu_rounds[0] if ncu_rounds else None
    mine_rounds = [attach_launches(db, r) for r in run_ids]
    mine = mine_rounds[0]
    rows, exact_ok, exact_total = [], 0, 0
    # Where ncu agrees with itself: the value is the same in every ncu round (launch i of each).
    stable_total = stable_ok = mine_stable = 0
    for i, (b, n) in enumerate(zip(mine, ncu_first or [])):
        # ncu names a kernel by its function's base name by default: compare the last component.
        same_kernel = b["kernel"].split("<")[0].split("::")[-1] in n["kernel"]
        for m in METRICS:
            bv, nv = b["values"].get(m), n["values"].get(m)
            rows.append({"launch": i, "kernel": b["kernel"], "ncu_kernel": n["kernel"], "metric": m,
                         "bankbench": bv, "ncu": nv, "same_kernel": same_kernel})
            if m in exact and bv is not None and nv is not None:
                exact_total += 1
                exact_ok += int(bv == nv)
                theirs = [r[i]["values"].get(m) for r in ncu_rounds if i < len(r)]
                ours = [r[i]["values"].get(m) for r in mine_rounds if i < len(r)]
                mine_stable += int(len(ours) == len(mine_rounds) and len(set(ours)) == 1)
                if len(theirs) == len(ncu_rounds) and len(set(theirs)) == 1:
                    stable_total += 1
                    stable_ok += int(bv == nv)
    with open(os.path.join(a.out, "parity.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["launch"])
        w.writeheader()
        w.writerows(rows)

    med = statistics.median
    own = med(alone)
    over_b, over_n = med(attach_walls) - own, med(ncu_walls) - own
    conflicts = [r for r in rows if "bank_conflicts" in r["metric"] and r["bankbench"] is not None and r["ncu"]]
    worst = max((abs(r["bankbench"] - r["ncu"]) / max(r["ncu"], 1) for r in conflicts), default=0.0)
    lines = [
        f"# attach against ncu: {a.label or ' '.join(program)}",
        "",
        f"- program: `{' '.join(program)}`; filter: `{a.kernel_name or 'every kernel'}`; metrics: {a.metrics}; "
        f"rounds: {a.runs}",
        f"- launches profiled: bankbench {len(mine)}, ncu {len(ncu_first or [])}; kernel names agree in "
        f"{sum(1 for r in rows if r['metric'] == METRICS[0] and r['same_kernel'])} of {min(len(mine), len(ncu_first or []))}",
        f"- requests and wavefronts equal to ncu's: {exact_ok} of {exact_total} values",
        f"- where ncu agrees with itself over its {len(ncu_rounds)} rounds ({stable_total} of {exact_total} values): "
        f"{stable_ok} equal; bankbench agrees with itself over its rounds in {mine_stable} of {exact_total}",
        f"- bank conflicts: largest difference {100 * worst:.2f} % of ncu's value",
        f"- program alone: {', '.join(f'{w:.2f}' for w in alone)} s (median {own:.2f} s)",
        f"- bankbench attach: {', '.join(f'{w:.2f}' for w in attach_walls)} s; overhead {over_b:.2f} s",
        f"- ncu: {', '.join(f'{w:.2f}' for w in ncu_walls)} s; overhead {over_n:.2f} s",
        f"- overhead ratio ncu / bankbench: {over_n / over_b:.1f}x" if over_b > 0 else "- overhead ratio: n/a",
    ]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(text)
    print(text)
    print(json.dumps({"exact_ok": exact_ok, "exact_total": exact_total, "stable_ok": stable_ok,
                      "stable_total": stable_total}))


if __name__ == "__main__":
    main()
