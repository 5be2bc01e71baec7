#!/usr/bin/env python3
"""Timing stability across repeated runs of the same suite in one database.

usage: bench/timing_stability.py DB [--min-us 20] [--limit 2]

For every configuration timed in at least two runs of the default suite (runs whose command line
is `run [OPTION...] experiments`) with a median over --min-us microseconds: the spread of its medians,
(max - min) / min. Prints how many stay within --limit percent, the largest spreads, and the
throttled samples. A benchmark: exit 0 whatever the numbers.
"""
import argparse
import sqlite3
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("db")
    ap.add_argument("--min-us", type=float, default=20.0)
    ap.add_argument("--limit", type=float, default=2.0, help="percent")
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    by = {}
    throttled = samples = 0
    for run_id, cmd in con.execute("select id, command_line from runs order by id"):
        words = cmd.split()
        if "run" not in words or words[-1] != "experiments":
            continue
        for exp, variant, params, median, thr, n in con.execute(
                "select r.experiment_name, c.variant, c.params_json, t.median_ns, t.throttled_samples, t.samples "
                "from configurations c join runs r on r.id = c.run_id join timings t on t.configuration_id = c.id "
                "where r.id = ?", (run_id,)):
            by.setdefault((exp, variant, params), []).append(median)
            throttled += thr
            samples += n
    rows = []
    for key, medians in by.items():
        if len(medians) < 2 or min(medians) < a.min_us * 1e3:
            continue
        rows.append((100 * (max(medians) - min(medians)) / min(medians), key, medians))
    rows.sort(reverse=True)
    runs = max((len(r[2]) for r in rows), default=0)
    print(f"{len(rows)} configurations over {a.min_us:g} us timed in {runs} runs; "
          f"{sum(1 for r in rows if r[0] <= a.limit)} within {a.limit:g} %; "
          f"median spread {statistics.median([r[0] for r in rows]) if rows else 0:.2f} %; "
          f"throttled samples {throttled} of {samples}")
    for spread, (exp, variant, params), medians in rows[:10]:
        print(f"{spread:6.2f} %  {variant} {params}  medians us {[round(m / 1e3, 2) for m in medians]}")


if __name__ == "__main__":
    main()
