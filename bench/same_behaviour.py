#!/usr/bin/env python3
"""Does one build behave as another over a suite? Compares two sets of sessions of one database.

usage: bench/same_behaviour.py DB --before S [S ...] --after S [S ...]

S: session ids. For every configuration (experiment, variant, parameters) of the first `before`
session: whether the `after` sessions have it, with the same status, the same requests (SASS
instruction counts, which do not vary) and wavefronts within the spread the `before` sessions
show among themselves plus 0.5 % (lost arbitration moves wavefronts between runs of one binary).
Prints a summary and every difference; exit status 0 when nothing differs, 1 otherwise.
"""
import argparse
import sqlite3
import sys

REQUESTS = "smsp__sass_inst_executed_op_shared_"
WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_"


def configurations(con, session):
    """{(experiment, variant, params): (status, {raw counter: value summed over launch 0's kernels})}."""
    out = {}
    rows = con.execute(
        "SELECT c.id, r.experiment_name, c.variant, c.params_json, c.status FROM configurations c "
        "JOIN runs r ON r.id = c.run_id WHERE r.session_id = ?", (session,))
    for cid, exp, variant, params, status in rows:
        values = {}
        for name, value in con.execute(
                "SELECT name, value FROM metrics WHERE configuration_id = ? AND derived = 0 AND launch_index = 0",
                (cid,)):
            if name.startswith(REQUESTS) or name.startswith(WAVEFRONTS):
                values[name] = values.get(name, 0.0) + value
        out[(exp, variant, params)] = (status, values)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--before", nargs="+", type=int, required=True)
    ap.add_argument("--after", nargs="+", type=int, required=True)
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    before = [configurations(con, s) for s in a.before]
    after = [configurations(con, s) for s in a.after]
    ref = before[0]
    problems = []
    counts = {"configurations": len(ref), "statuses equal": 0, "requests equal": 0, "wavefronts compared": 0,
              "wavefronts equal": 0, "wavefronts within spread": 0}
    worst = 0.0
    for key, (status, values) in sorted(ref.items()):
        label = " ".join(key)
        for k, run in enumerate(after):
            if key not in run:
                problems.append(f"{label}: missing in after session {a.after[k]}")
                continue
        if any(key not in run for run in after):
            continue
        if all(run[key][0] == status for run in after):
            counts["statuses equal"] += 1
        else:
            problems.append(f"{label}: status {status} before, {[run[key][0] for run in after]} after")
        for name, value in sorted(values.items()):
            theirs = [run[key][1].get(name) for run in after]
            if name.startswith(REQUESTS):
                if all(t == value for t in theirs):
                    counts["requests equal"] += 1
                else:
                    problems.append(f"{label}: {name} {value:.0f} before, {theirs} after")
                continue
            counts["wavefronts compared"] += 1
            seen = [b[key][1].get(name) for b in before if key in b and b[key][1].get(name) is not None]
            lo, hi = min(seen), max(seen)
            slack = 0.005 * max(abs(value), 1.0)
            if all(t == value for t in theirs):
                counts["wavefronts equal"] += 1
            if all(t is not None and lo - slack <= t <= hi + slack for t in theirs):
                counts["wavefronts within spread"] += 1
            else:
                problems.append(f"{label}: {name} before {seen}, after {theirs}")
            for t in theirs:
                if t is not None and value:
                    worst = max(worst, abs(t - value) / abs(value))
    extra = {key for run in after for key in run} - set(ref)
    for key in sorted(extra):
        problems.append(f"{' '.join(key)}: only after")
    print(f"before sessions {a.before}, after sessions {a.after}")
    for name, n in counts.items():
        print(f"  {name}: {n}")
    print(f"  largest relative wavefront difference from the first before session: {100 * worst:.2f} %")
    for p in problems:
        print("DIFF", p)
    print("same behaviour" if not problems else f"{len(problems)} difference(s)")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
