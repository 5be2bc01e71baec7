#!/usr/bin/env python3
"""Summary of scripts/parity-probe.sh's output: each variant's bankbench conflicts (the mean of its
runs) against the median of every ncu run made with unmoved buffers (the variants not named
shift*), with the issue's allowance max(0.5 %, the pooled ncu runs' spread); the ncu runs of the
shift* variants against the same reference; and each pooled ncu run against the others.

usage: scripts/parity-probe-summary.py PROBE_DIR"""
import csv
import os
import statistics as st
import sys


def load(path):
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if "conflicts" not in r["metric"]:
                continue
            bb = [float(r["bankbench"])] + [float(x) for x in r["bankbench_repeats"].split()]
            out[(r["variant"], r["params"], r["metric"])] = (bb, [float(x) for x in r["ncu_runs"].split()])
    return out


def judge(reference, values):
    med = st.median(reference)
    allow = max(0.005 * med, max(reference) - min(reference))
    mean = st.mean(values)
    return abs(mean - med) > allow, (mean - med) / med if med > 1000 else None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    variants = sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "parity.csv")))
    if "base" not in variants:
        sys.exit(f"{root}: no base/parity.csv")
    data = {v: load(os.path.join(root, v, "parity.csv")) for v in variants}
    keys = list(data["base"])
    pooled = [v for v in variants if not v.startswith("shift")]
    ref = {k: sum((data[v][k][1] for v in pooled), []) for k in keys}
    print(f"{len(keys)} conflict counts; reference: {len(ref[keys[0]])} ncu runs ({', '.join(pooled)})")
    print("| runs of | variant | runs | misses | mean difference | mean abs. difference |")
    print("|---|---|---|---|---|---|")

    def row(tool, v, pick):
        misses, rel = 0, []
        for k in keys:
            miss, r = judge(ref[k], pick(k))
            misses += miss
            if r is not None:
                rel.append(r)
        n = len(pick(keys[0]))
        print(f"| {tool} | {v} | {n} | {misses} | {st.mean(rel) * 100:+.2f} % | {st.mean(map(abs, rel)) * 100:.2f} % |")

    for v in variants:
        row("bankbench", v, lambda k, v=v: data[v][k][0])
    for v in variants:
        if v.startswith("shift"):
            row("ncu", v, lambda k, v=v: data[v][k][1])
    n = len(ref[keys[0]])
    held_out = []
    for i in range(n):
        held_out.append(sum(judge([x for j, x in enumerate(ref[k]) if j != i], [ref[k][i]])[0] for k in keys))
    print(f"\neach pooled ncu run against the other {n - 1}: misses {', '.join(map(str, held_out))}")


if __name__ == "__main__":
    main()
