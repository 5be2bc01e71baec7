#!/usr/bin/env python3
"""Summary of scripts/timing-probe.sh: one database per process.

usage: scripts/timing-probe-summary.py P1.sqlite P2.sqlite ...

Groups the timed configurations by variant and parameters (reference copies scaled to 256 MiB,
bytes dropped), and prints for each: every process's medians in the order run, the largest spread
within one process, and the spread between processes of their per-process means.
"""
import json
import sqlite3
import sys

REF_BYTES = 268435456


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    groups = {}  # key -> [per-process list of medians in us]
    for p, path in enumerate(sys.argv[1:]):
        con = sqlite3.connect(path)
        rows = con.execute(
            "select c.variant, c.params_json, t.median_ns from configurations c "
            "join runs r on r.id = c.run_id join timings t on t.configuration_id = c.id "
            "order by r.id, c.seq").fetchall()
        for variant, params_json, median in rows:
            params = json.loads(params_json)
            scale = 1.0
            if "bytes" in params:
                scale = REF_BYTES / params.pop("bytes")
            key = f"{variant} {json.dumps(params, sort_keys=True)}"
            per = groups.setdefault(key, [])
            while len(per) <= p:
                per.append([])
            per[p].append(median * scale / 1e3)
    for key, per in groups.items():
        per = [m for m in per if m]
        means = [sum(m) / len(m) for m in per]
        within = max((max(m) - min(m)) / min(m) for m in per)
        between = (max(means) - min(means)) / min(means)
        print(f"{key}: within one process up to {100 * within:.2f} %, between processes {100 * between:.2f} %")
        for i, m in enumerate(per):
            print(f"  process {i + 1}: " + " ".join(f"{x:.2f}" for x in m))


if __name__ == "__main__":
    main()
