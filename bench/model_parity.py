#!/usr/bin/env python3
"""The bank model's predictions from kernels' code against the hardware, configuration by
configuration and source line by source line.

usage: bench/model_parity.py GPU_DB MODEL_DB [--markdown FILE]

GPU_DB holds `bankbench run --lines` of some experiments on a GPU; MODEL_DB the same experiments
run with `--backend model`. For every configuration (experiment, variant, parameters) both ran to a
result (ok or unverified): each raw shared-memory counter the model predicts (requests, wavefronts
and conflicts per direction and per access kind) against the measured one, and for every source
line (file, line, kind) the lines tables hold on both sides: wavefronts and ideal wavefronts.
Prints a summary and every difference; exit status 0 when every value is equal, 1 otherwise.
"""
import argparse
import os
import sqlite3
import sys

def latest_results(con):
    """{(experiment, variant, params): (configuration id, status)} of the newest run of each key."""
    out = {}
    for cid, exp, variant, params, status in con.execute(
            "SELECT c.id, r.experiment_name, c.variant, c.params_json, c.status FROM configurations c "
            "JOIN runs r ON r.id = c.run_id ORDER BY r.id, c.seq"):
        out[(exp, variant, params)] = (cid, status)
    return out


def counters(con, cid):
    values = {}
    for name, value in con.execute(
            "SELECT name, value FROM metrics WHERE configuration_id = ? AND derived = 0 AND launch_index = 0", (cid,)):
        if not name.startswith("gpu__time"):
            values[name] = value
    return values


def lines(con, cid):
    """{(file name, line, kind): [executions, wavefronts, ideal]} summed over instructions."""
    out = {}
    try:
        rows = con.execute("SELECT file, line, kind, executions, wavefronts, ideal FROM line_counters "
                           "WHERE configuration_id = ?", (cid,)).fetchall()
    except sqlite3.OperationalError:
        return out
    for file, line, kind, executions, wavefronts, ideal in rows:
        key = (os.path.basename(file), line, kind)
        s = out.setdefault(key, [0, 0, 0])
        s[0] += executions
        s[1] += wavefronts
        s[2] += ideal
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gpu_db")
    ap.add_argument("model_db")
    ap.add_argument("--markdown", help="also write the per-configuration table here")
    a = ap.parse_args()
    gpu, model = sqlite3.connect(a.gpu_db), sqlite3.connect(a.model_db)
    measured, predicted = latest_results(gpu), latest_results(model)
    ran = ("ok", "unverified")
    problems, table = [], []
    n = {"configurations": 0, "not predicted": 0, "counters compared": 0, "counters equal": 0,
         "lines compared": 0, "lines equal": 0}
    for key in sorted(predicted):
        mcid, mstatus = predicted[key]
        if key not in measured:
            continue
        gcid, gstatus = measured[key]
        if gstatus not in ran:
            continue
        label = f"{key[0]} {key[1]} {key[2]}"
        n["configurations"] += 1
        if mstatus not in ran:
            n["not predicted"] += 1
            reason = model.execute("SELECT reason FROM configurations WHERE id = ?", (mcid,)).fetchone()[0]
            table.append((label, mstatus, "-", "-", reason or ""))
            continue
        want, got = counters(gpu, gcid), counters(model, mcid)  # the model stores only what it predicts
        equal = 0
        for name in sorted(got):
            if name not in want:
                continue
            n["counters compared"] += 1
            if want[name] == got[name]:
                n["counters equal"] += 1
                equal += 1
            else:
                problems.append(f"{label}: {name} measured {want[name]:.0f}, predicted {got[name]:.0f}")
        wl, gl = lines(gpu, gcid), lines(model, mcid)
        line_equal = 0
        for lk in sorted(set(wl) & set(gl)):
            n["lines compared"] += 1
            if wl[lk][1:] == gl[lk][1:]:
                n["lines equal"] += 1
                line_equal += 1
            else:
                problems.append(f"{label}: {lk[0]}:{lk[1]} {lk[2]}: measured wavefronts/ideal {wl[lk][1]}/{wl[lk][2]} "
                                f"({wl[lk][0]} executions), predicted {gl[lk][1]}/{gl[lk][2]} ({gl[lk][0]} requests)")
        for lk in sorted(set(wl) ^ set(gl)):
            side = "measured only" if lk in wl else "predicted only"
            problems.append(f"{label}: {lk[0]}:{lk[1]} {lk[2]}: {side}")
        table.append((label, "ok", f"{equal}/{len(set(got) & set(want))}",
                      f"{line_equal}/{len(set(wl) & set(gl))}", ""))
    print(", ".join(f"{k} {v}" for k, v in n.items()))
    for p in problems:
        print(p)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| configuration | model | counters equal | lines equal | reason |\n|---|---|---|---|---|\n")
            for row in table:
                f.write("| " + " | ".join(row) + " |\n")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
