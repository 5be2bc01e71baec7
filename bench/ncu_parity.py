#!/usr/bin/env python3
"""Counter parity and speed against Nsight Compute, over the whole default suite, on one GPU.

usage: bench/ncu_parity.py [--bankbench BIN] [--experiments PATH...] [--out DIR] [--metric-set SET]
                           [--bankbench-runs N] [--ncu-runs N] [--ncu-counters-alone-runs N]
                           [--ncu-option OPT ...]
       bench/ncu_parity.py --calibrate DIR/parity.csv

1. `bankbench run` over the suite, as a user runs it (counters, timing, verification), N times
   (default 2): the first run's wall time is bankbench's time; the runs' spread is its noise.
2. `ncu --metrics <the bank_conflicts set> --csv` over `bankbench run --launch-once --no-isolation`
   (each configuration set up, launched once inside the NVTX range "bankbench-measure", verified;
   no profiler of its own, no timing), N times (default 3): the first run's wall time is ncu's
   time; the runs' spread is ncu's own noise. Only the measured launches are profiled
   (`--nvtx --nvtx-include bankbench-measure/`), never set-up kernels.
3. Per configuration and metric: both tools' values, their difference, ncu's run-to-run spread,
   and whether the targets hold: requests and wavefronts equal to ncu's wherever ncu agrees with
   itself; conflicts within max(0.5 %, ncu's own spread).
   A second reference, `--ncu-counters-alone-runs N` (default 10): ncu with the four l1tex
   counters alone, without the SASS metric, whose instrumentation lowers the conflicts ncu reads
   in some kernels (docs/ncu-parity.md); the same rules for wavefronts and conflicts. These runs
   take about 11 s each on an H200 (the whole set about 80 s), so ten of them give ncu's spread
   where three underestimate it (each of ncu's own runs met the conflicts rule against the others in
   555 to 563 of 603 configurations with three runs, in 592 to 602 with ten). Their time is not part of the
   speed ratio, which stays that of the whole set.
4. The same conflicts rule applied to each ncu run against the other ncu runs (with three or more):
   how often ncu itself meets it; and per experiment, which way bankbench's conflict counts differ
   from ncu's. `--calibrate DIR/parity.csv` prints the targets and both tables for an earlier run.

ncu runs with `--clock-control none`: the lent GPUs this runs on must keep their clock settings,
and bankbench does not lock clocks either; cache control stays at ncu's default (`all`), which
bankbench matches with its own L2 flush before the counter pass (`run --cache-control all`).

Writes DIR/parity.csv (every configuration and metric), DIR/summary.md (versions, the targets at a
glance, wall times, the summary table and every configuration that misses a target) and the
databases. Exit status:
0 when the run completed (whatever the targets say: it is a benchmark), 2 on a usage or tool error.
"""
import argparse
import csv
import glob
import io
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

METRICS = {
    "smsp__sass_inst_executed_op_shared_ld.sum": ("ld", "requests"),
    "smsp__sass_inst_executed_op_shared_st.sum": ("st", "requests"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": ("ld", "wavefronts"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": ("st", "wavefronts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": ("ld", "conflicts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": ("st", "conflicts"),
}
# The access kinds apart (`--metric-set access_kinds`, for experiments that collect that set):
# op_ld/op_st above include the ldmatrix/stmatrix wavefronts.
KIND_METRICS = {
    "smsp__inst_executed_op_ldsm.sum": ("ldsm", "requests"),
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum": ("ldsm", "wavefronts"),
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum": ("ldsm", "conflicts"),
    "smsp__inst_executed_op_shared_stsm.sum": ("stsm", "requests"),
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum": ("stsm", "wavefronts"),
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum": ("stsm", "conflicts"),
    "smsp__sass_inst_executed_op_shared_atom.sum": ("atom", "requests"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": ("atom", "wavefronts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum": ("atom", "conflicts"),
    "smsp__inst_executed_op_ldgsts.sum": ("ldgsts", "requests"),
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum": ("ldgsts", "wavefronts"),
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum": ("ldgsts", "conflicts"),
    "sm__sass_inst_executed_op_shared_gmma.sum": ("gmma", "requests"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum": ("gmma", "wavefronts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum": ("gmma", "conflicts"),
    "smsp__inst_executed_op_tma_ld.sum": ("tma_ld", "requests"),
    "smsp__inst_executed_op_tma_st.sum": ("tma_st", "requests"),
    "l1tex__data_bank_conflicts_type_arbitration.sum": ("arbitration", "conflicts"),
}
DURATION = "gpu__time_duration.sum"  # part of the set, so both tools collect the same passes
# The hardware counters alone: ncu reads 1.6-3 % fewer conflicts in some kernels when its list also
# has the SASS metric, which instruments the kernel (docs/ncu-parity.md). A second reference.
COUNTERS_ALONE = {name: kw for name, kw in METRICS.items() if not name.startswith("smsp__sass")}
NVTX_RANGE = "bankbench-measure"
CONFLICT_FLOOR = 0.005


def fail(message):
    print(f"ncu_parity: {message}", file=sys.stderr)
    sys.exit(2)


def remove_database(path):
    """A fresh database for each pass: the file and its WAL companions."""
    for stale in (path, path + "-wal", path + "-shm"):
        if os.path.exists(stale):
            os.remove(stale)


def run_timed(cmd, log_path):
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
    return p, time.monotonic() - t0


def newest_runs(db, count):
    """The ids of the newest `count` runs' configurations, grouped per run, oldest run first."""
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("select id from runs order by id desc limit ?", (count,))]
    con.close()
    return sorted(ids)


def configurations(db, run_ids):
    """[(key, status, {metric: value of launch 0})] for every configuration of the runs, in order."""
    con = sqlite3.connect(db)
    out = []
    for run_id in run_ids:
        exp = con.execute("select experiment_name from runs where id = ?", (run_id,)).fetchone()[0]
        for cid, seq, variant, params, status in con.execute(
                "select id, seq, variant, params_json, status from configurations where run_id = ? order by seq",
                (run_id,)):
            values = {}
            launches = set()
            for name, launch, value in con.execute(
                    "select name, launch_index, value from metrics where configuration_id = ? and derived = 0",
                    (cid,)):
                launches.add(launch)
                if launch == 0:
                    values[name] = value
            out.append({"key": f"{exp}|{variant}|{params}", "status": status, "values": values,
                        "kernels": len(launches)})
    con.close()
    return out


def bankbench_pass(bb, experiments, db, log, options=()):
    p, wall = run_timed([bb, "--db", db, "run", *options, *experiments], log)
    if p.returncode not in (0, 1):
        fail(f"bankbench run exited {p.returncode}; see {log}")
    return wall


def experiment_count(bb, experiments):
    p = subprocess.run([bb, "run", "--dry-run", *experiments], capture_output=True, text=True)
    if p.returncode != 0:
        fail("bankbench run --dry-run failed:\n" + p.stderr)
    return len({line.split(":")[0] for line in p.stdout.splitlines() if line.strip()})


def ncu_pass(bb, experiments, db, log, extra, names=tuple(METRICS) + (DURATION,), target=()):
    """One ncu run over the launch-once target; `extra`: ncu options, `target`: options of the
    target's `run`."""
    metrics = ",".join(names)
    cmd = ["ncu", "--metrics", metrics, "--csv", "--print-units", "base", "--clock-control", "none",
           "--nvtx", "--nvtx-include", f"{NVTX_RANGE}/", *extra,
           bb, "--db", db, "-q", "run", "--launch-once", "--no-isolation", *target, *experiments]
    p, wall = run_timed(cmd, log)
    lines = p.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        fail(f"ncu wrote no CSV (exit {p.returncode}); see {log}:\n" + "\n".join(lines[-20:]))
    launches = {}
    kernels = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        name = row.get("Metric Name")
        if name in names:
            launch = int(row["ID"])
            launches.setdefault(launch, {})[name] = float(row["Metric Value"].replace(",", ""))
            kernels[launch] = row.get("Kernel Name", "")
    order = sorted(launches)
    return [launches[k] for k in order], [kernels[k] for k in order], wall


def split_launches(kernels, statuses, launches, names, label):
    """Each configuration's (metrics, kernel name) in one ncu pass, or None where it launched nothing."""
    out, i = [], 0
    for k, status in zip(kernels, statuses):
        take = k if status in ("ok", "wrong_result", "unverified") else 0
        out.append((launches[i], names[i]) if take > 0 and i < len(launches) else None)
        i += take
    if i != len(launches):
        fail(f"{label}: ncu profiled {len(launches)} launches, the suite's configurations account for {i}; "
             "the NVTX filter or the suite changed between runs")
    return out


def versions(bb):
    def out(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""
    smi = out(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm", "--format=csv,noheader"])
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "gpu": smi,
        "cuda": (out(["nvcc", "--version"]).splitlines() or [""])[-1],
        "ncu": (out(["ncu", "--version"]).splitlines() or [""])[-1],
        "bankbench": out([bb, "--version"]),
        "host": f"{platform.node()}, {os.cpu_count()} cores",
    }


def conflicts_allowance(reference_runs):
    """How far a conflict count may be from the first reference run: max(0.5 % of it, the runs' spread)."""
    return max(CONFLICT_FLOOR * reference_runs[0], max(reference_runs) - min(reference_runs))


def judge(c, reference="ncu", metrics=METRICS):
    """Per metric: bankbench, the values of the reference ncu runs (c[reference]), the verdict."""
    rows = []
    for name, (kind, what) in metrics.items():
        ours = c["values"].get(name)
        theirs = [n.get(name) if n else None for n in c.get(reference, [])]
        theirs = [t for t in theirs if t is not None]
        if ours is None or not theirs:
            continue
        verdict, allowed = verdict_of(what, ours, theirs)
        rows.append({"name": name, "metric": f"{kind} {what}", "bankbench": ours, "ncu": theirs,
                     "diff": ours - theirs[0], "ncu_spread": max(theirs) - min(theirs), "allowed": allowed,
                     "verdict": verdict})
    return rows


def verdict_of(what, ours, theirs):
    """(verdict, allowance) of one value against the reference runs: conflicts within the
    allowance ("ok" or "MISS"); requests and wavefronts equal to the first run ("ok"), or not where
    the runs agree ("MISS") or disagree ("ncu-unstable")."""
    diff = ours - theirs[0]
    if what == "conflicts":
        allowed = conflicts_allowance(theirs)
        return ("ok" if abs(diff) <= allowed else "MISS"), allowed
    return ("ok" if diff == 0 else ("MISS" if max(theirs) == min(theirs) else "ncu-unstable")), 0.0


def agreement(table, metrics):
    """The agreement table: per metric, how many configurations are equal or within the allowance."""
    lines = ["| metric | compared | equal / within allowance | ncu unstable | misses | ncu self-disagreements |",
             "|---|---|---|---|---|---|"]
    for kind, what in metrics.values():
        rows = [r for r in table if r["metric"] == f"{kind} {what}"]
        ok = sum(1 for r in rows if r["verdict"] == "ok")
        unstable = sum(1 for r in rows if r["verdict"] == "ncu-unstable")
        miss = sum(1 for r in rows if r["verdict"] == "MISS")
        selfdis = sum(1 for r in rows if r["ncu_spread"] != 0)
        lines.append(f"| {kind} {what} | {len(rows)} | {ok} | {unstable} | {miss} | {selfdis} |")
    return lines


def within_rule(value, reference_runs):
    """The conflicts rule: |value - first reference run| <= conflicts_allowance(reference_runs)."""
    return abs(value - reference_runs[0]) <= conflicts_allowance(reference_runs)


def others(runs, k):
    """The runs but run k."""
    return [v for j, v in enumerate(runs) if j != k]


def held_out(rows):
    """For each ncu run k: in how many rows it meets the conflicts rule against the other runs."""
    runs = min(len(r["ncu"]) for r in rows)
    return [sum(1 for r in rows if within_rule(r["ncu"][k], others(r["ncu"], k))) for k in range(runs)]


def targets(whole, alone=(), pairs=(), speed=None):
    """The issue's targets at a glance: per target and reference, bankbench's count, the range of
    ncu's own runs held out against the others (conflicts, with three runs or more), and whether
    the target is met. `whole` and `alone`: rows with "metric", "bankbench" and the runs ("ncu");
    `pairs`: rows with both ("ncu", "alone"), as both_readings takes; `speed`: ncu's wall time over
    bankbench's. Markdown lines."""
    def count(rows, metric, want):
        rows = [r for r in rows if r["metric"] == metric and r["ncu"]]
        return sum(1 for r in rows if verdict_of(metric.split()[1], r["bankbench"], r["ncu"])[0] in want), len(rows)

    def span(values):
        return f"{min(values)}" if min(values) == max(values) else f"{min(values)} to {max(values)}"

    def of(ld, st):  # ((count, compared) for loads, for stores) -> "570 / 561 of 603"
        if ld[1] == st[1]:
            return f"{ld[0]} / {st[0]} of {ld[1]}"
        return " / ".join(f"{c} of {n}" if n else "-" for c, n in (ld, st))

    def all_met(*counts):
        return "yes" if all(c == n for c, n in counts) else "no"

    lines = ["| target | reference | bankbench (ld / st) | ncu's runs, each against the others (ld / st) | met |",
             "|---|---|---|---|---|"]
    ld, st = count(whole, "ld requests", ("ok",)), count(whole, "st requests", ("ok",))
    if ld[1] or st[1]:
        lines.append(f"| requests equal | whole set | {of(ld, st)} | | {all_met(ld, st)} |")
    for label, rows in (("whole set", whole), ("counters alone", alone)):
        runs = min((len(r["ncu"]) for r in rows), default=0)
        misses = [count(rows, f"{k} wavefronts", ("MISS",)) for k in ("ld", "st")]
        if misses[0][1] or misses[1][1]:
            met = "yes" if misses[0][0] == misses[1][0] == 0 else "no"
            lines.append(f"| wavefronts equal where ncu agrees with itself | {label} ({runs} runs) | "
                         f"{misses[0][0]} / {misses[1][0]} misses | | {met} |")
    for label, rows in (("whole set", whole), ("counters alone", alone)):
        got, held = [], []
        for k in ("ld", "st"):
            rk = [r for r in rows if r["metric"] == f"{k} conflicts" and r["ncu"]]
            got.append(count(rows, f"{k} conflicts", ("ok",)))
            held.append(span(held_out(rk)) if rk and min(len(r["ncu"]) for r in rk) >= 3 else "-")
        if got[0][1] or got[1][1]:
            runs = min(len(r["ncu"]) for r in rows if r["metric"].endswith("conflicts") and r["ncu"])
            lines.append(f"| conflicts within max(0.5 %, ncu's spread) | {label} ({runs} runs) | {of(*got)} | "
                         f"{held[0]} / {held[1]} | {all_met(*got)} |")
    either, held = [], []
    for k in ("ld", "st"):
        counts = either_reading(pairs, f"{k} conflicts")
        either.append((counts[4], counts[0]) if counts else (0, 0))
        held.append(span(counts[1] + counts[2]) if counts else "-")
    if either[0][1] or either[1][1]:
        lines.append(f"| conflicts within max(0.5 %, ncu's spread) | either reading | {of(*either)} | "
                     f"{held[0]} / {held[1]} | {all_met(*either)} |")
    if speed is not None:
        lines.append(f"| wall time at least 20x less than ncu's | whole set | {speed:.1f}x | | "
                     f"{'yes' if speed >= 20 else 'no'} |")
    return lines


def calibration(table):
    """How often one of ncu's own runs meets the conflicts rule when judged against its other runs,
    beside bankbench judged against the same number of ncu runs: the rule's noise floor. Markdown
    lines; empty with fewer than three ncu runs."""
    lines = []
    for metric in ("ld conflicts", "st conflicts"):
        rows = [r for r in table if r["metric"] == metric and len(r["ncu"]) >= 3]
        if not rows:
            continue
        runs = len(rows[0]["ncu"])
        held = held_out(rows)
        ours = sum(1 for r in rows if within_rule(r["bankbench"], r["ncu"][:runs - 1]))
        lines.append(f"| {metric} | {len(rows)} | {', '.join(str(h) for h in held)} | {ours} |")
    if not lines:
        return []
    return ["| metric | compared | each ncu run against its other runs | bankbench against ncu's first runs (as many) |",
            "|---|---|---|---|"] + lines


def direction(table):
    """Per experiment, for the conflict counts: where bankbench's runs sit against ncu's. A
    difference that noise would explain goes both ways; one experiment whose counts sit above (or
    below) every ncu run points at a condition the two tools do not share. Relative differences
    (bankbench's mean against ncu's median) only where that median is at least 1000. Markdown lines."""
    groups = {}
    for r in table:
        if not r["metric"].endswith("conflicts") or not r["ncu"]:
            continue
        ours = [r["bankbench"]] + list(r.get("bankbench_repeats", []))
        median = statistics.median(r["ncu"])
        g = groups.setdefault(r["experiment"], {"counts": 0, "rel": [], "above": 0, "below": 0})
        g["counts"] += 1
        if median >= 1000:
            g["rel"].append((statistics.mean(ours) - median) / median)
        if min(ours) > max(r["ncu"]):
            g["above"] += 1
        elif max(ours) < min(r["ncu"]):
            g["below"] += 1
    if not groups:
        return []
    lines = ["| experiment | conflict counts | of them over 1000 | mean difference | mean abs. difference | "
             "bankbench above every ncu run | below every ncu run |", "|---|---|---|---|---|---|---|"]
    for name in sorted(groups):
        g = groups[name]
        rel = g["rel"]
        mean = f"{statistics.mean(rel) * 100:+.2f} %" if rel else "-"
        mean_abs = f"{statistics.mean(abs(x) for x in rel) * 100:.2f} %" if rel else "-"
        lines.append(f"| {name} | {g['counts']} | {len(rel)} | {mean} | {mean_abs} | {g['above']} | {g['below']} |")
    return lines


def either_reading(pairs, metric):
    """ncu reads a different number of conflicts with and without the SASS metric in its list
    (docs/ncu-parity.md): both are ncu's readings of the same counter. The conflicts rule against
    either reference, over the rows of `metric` with two runs of each: (rows compared, each
    whole-set run held out, each counters-alone run held out, bankbench against the whole-set runs
    but the last, bankbench against all runs), or None without such rows. `pairs`: rows with the
    whole-set runs ("ncu") and the counters-alone runs ("alone")."""
    rows = [p for p in pairs if p["metric"] == metric and len(p["ncu"]) >= 2 and len(p["alone"]) >= 2]
    if not rows:
        return None
    nw, na = len(rows[0]["ncu"]), len(rows[0]["alone"])
    rows = [p for p in rows if len(p["ncu"]) == nw and len(p["alone"]) == na]
    held_whole = [sum(1 for p in rows if within_rule(p["ncu"][k], others(p["ncu"], k))
                      or within_rule(p["ncu"][k], p["alone"])) for k in range(nw)]
    held_alone = [sum(1 for p in rows if within_rule(p["alone"][k], others(p["alone"], k))
                      or within_rule(p["alone"][k], p["ncu"])) for k in range(na)]
    ours_held = sum(1 for p in rows if within_rule(p["bankbench"], p["ncu"][:nw - 1])
                    or within_rule(p["bankbench"], p["alone"]))
    ours_all = sum(1 for p in rows
                   if within_rule(p["bankbench"], p["ncu"]) or within_rule(p["bankbench"], p["alone"]))
    return len(rows), held_whole, held_alone, ours_held, ours_all


def both_readings(pairs):
    """either_reading() for loads and stores, as a table. Markdown lines; empty without two runs
    of each reference."""
    lines = []
    for metric in ("ld conflicts", "st conflicts"):
        counts = either_reading(pairs, metric)
        if counts is None:
            continue
        n, held_whole, held_alone, ours_held, ours_all = counts
        lines.append(f"| {metric} | {n} | {', '.join(map(str, held_whole))} | "
                     f"{', '.join(map(str, held_alone))} | {ours_held} | {ours_all} |")
    if not lines:
        return []
    return ["| metric | compared | each whole-set ncu run against its other runs or the counters alone | "
            "each counters-alone run against its other runs or the whole set | bankbench against ncu's whole-set "
            "runs but the last, or the counters alone | bankbench against all runs of either |",
            "|---|---|---|---|---|---|"] + lines


def duration_values(c):
    """(bankbench's gpu__time_duration of one configuration or None, ncu's runs' values)."""
    theirs = [n.get(DURATION) for n in c.get("ncu", []) if n and n.get(DURATION) is not None]
    return c["values"].get(DURATION), theirs


def durations(c):
    """[bankbench's gpu__time_duration, ncu's runs'] of one configuration, as parity.csv writes them."""
    ours, theirs = duration_values(c)
    return [f"{ours:.0f}" if ours is not None else "", " ".join(f"{v:.0f}" for v in theirs)]


def duration_offset(configs):
    """gpu__time_duration.sum is not judged: bankbench's is the duration of the user range around
    the launch, ncu's the kernel's. Their difference per configuration (bankbench minus the median
    of ncu's runs), in microseconds: (count, min, median, max), or None."""
    diffs = []
    for c in configs:
        ours, theirs = duration_values(c)
        if ours is not None and theirs:
            diffs.append((ours - statistics.median(theirs)) / 1000.0)
    if not diffs:
        return None
    return len(diffs), min(diffs), statistics.median(diffs), max(diffs)


def calibrate_csv(path):
    """--calibrate: the calibration and per-experiment tables from an earlier run's parity.csv, for
    the whole-set ncu runs and, where the file has them, the runs of the counters alone."""
    tables = {"ncu_runs": [], "ncu_counters_alone_runs": []}
    pairs = []
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in ("metric", "bankbench", "ncu_runs") if c not in (reader.fieldnames or [])]
            if missing:
                fail(f"{path}: line 1: no column {', '.join(missing)}; pass the parity.csv this script wrote")
            for line, r in enumerate(reader, start=2):
                for column, table in tables.items():
                    if not (r.get(column) and r["bankbench"]):
                        continue
                    try:
                        table.append({"metric": r["metric"], "bankbench": float(r["bankbench"]),
                                      "bankbench_repeats": [float(v) for v in (r.get("bankbench_repeats") or "").split()],
                                      "ncu": [float(v) for v in r[column].split()],
                                      "experiment": r.get("experiment") or "?"})
                    except ValueError:
                        fail(f"{path}: line {line}: 'bankbench' or '{column}' is not a number: "
                             f"{r['bankbench']!r}, {r[column]!r}")
                if r.get("ncu_runs") and r.get("ncu_counters_alone_runs") and r["bankbench"]:
                    whole, alone = tables["ncu_runs"][-1], tables["ncu_counters_alone_runs"][-1]
                    pairs.append({"metric": r["metric"], "bankbench": whole["bankbench"], "ncu": whole["ncu"],
                                  "alone": alone["ncu"]})
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    def show(table):
        print("\n".join(calibration(table)) or "fewer than three ncu runs: nothing to calibrate")
        print()
        print("\n".join(direction(table)) or "no conflict counts")

    print("## Targets\n")
    print("\n".join(targets(tables["ncu_runs"], tables["ncu_counters_alone_runs"], pairs)))
    print()
    show(tables["ncu_runs"])
    if tables["ncu_counters_alone_runs"]:
        print("\n## Against ncu's hardware counters alone\n")
        show(tables["ncu_counters_alone_runs"])
        both = both_readings(pairs)
        if both:
            print("\n## Against either of ncu's readings\n")
            print("\n".join(both))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bankbench", default=None, help="the binary (default: the newest build*/bankbench)")
    ap.add_argument("--experiments", nargs="+", default=["experiments"],
                    help="experiment files or folders to run (default: experiments)")
    ap.add_argument("--out", default="parity-out", help="folder for the databases, logs and results")
    ap.add_argument("--bankbench-runs", type=int, default=2)
    ap.add_argument("--ncu-runs", type=int, default=3)
    ap.add_argument("--ncu-counters-alone-runs", type=int, default=10,
                    help="ncu runs with the hardware counters alone (no SASS metric), a second reference for "
                         "wavefronts and conflicts, about 11 s each on an H200; 0 to skip (default 10)")
    ap.add_argument("--metric-set", choices=("bank_conflicts", "access_kinds"), default="bank_conflicts",
                    help="counters to compare: the default set's, or every access kind's (for experiments "
                         "with `metrics: access_kinds`)")
    ap.add_argument("--ncu-option", action="append", default=[], help="extra ncu option (repeatable)")
    ap.add_argument("--bankbench-option", action="append", default=[],
                    help="extra `bankbench run` option for the compared runs (repeatable)")
    ap.add_argument("--calibrate", metavar="CSV",
                    help="print how often ncu's own runs meet the conflicts rule, from an earlier parity.csv, and exit")
    a = ap.parse_args()
    if a.metric_set == "access_kinds":
        # In place: the functions' defaults hold these very dicts.
        METRICS.update(KIND_METRICS)
        COUNTERS_ALONE.update({n: kw for n, kw in KIND_METRICS.items() if not n.startswith("smsp__sass")})
    if a.calibrate:
        calibrate_csv(a.calibrate)
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bb = a.bankbench
    if bb is None:
        builds = glob.glob(os.path.join(root, "build*", "bankbench")) + glob.glob(os.path.join(root, "build", "*", "bankbench"))
        builds = [b for b in builds if os.access(b, os.X_OK)]
        if not builds:
            fail("no bankbench binary found; build first or pass --bankbench")
        bb = max(builds, key=os.path.getmtime)
    bb = os.path.abspath(bb)
    os.makedirs(a.out, exist_ok=True)
    n_exp = experiment_count(bb, a.experiments)
    info = versions(bb)

    bb_db = os.path.join(a.out, "bankbench.sqlite")
    remove_database(bb_db)
    bb_walls = []
    for i in range(a.bankbench_runs):
        bb_walls.append(bankbench_pass(bb, a.experiments, bb_db, os.path.join(a.out, f"bankbench-{i + 1}.log"),
                                       a.bankbench_option))
        print(f"bankbench run {i + 1}: {bb_walls[-1]:.2f} s", flush=True)
    # The like-for-like time: the same counters and verification, without bankbench's timing pass.
    counters_db = os.path.join(a.out, "bankbench-counters-only.sqlite")
    remove_database(counters_db)
    counters_wall = bankbench_pass(bb, a.experiments, counters_db, os.path.join(a.out, "bankbench-counters-only.log"),
                                   ["--no-timing", *a.bankbench_option])
    print(f"bankbench run --no-timing: {counters_wall:.2f} s", flush=True)
    all_runs = newest_runs(bb_db, n_exp * a.bankbench_runs)
    configs = configurations(bb_db, all_runs[:n_exp])
    repeats = [configurations(bb_db, all_runs[k * n_exp:(k + 1) * n_exp]) for k in range(1, a.bankbench_runs)]

    def ncu_runs(count, key, names, label):
        """count ncu runs of the given metrics; each configuration's values go to c[key]."""
        walls = []
        for i in range(count):
            db = os.path.join(a.out, f"{label}-target-{i + 1}.sqlite")
            remove_database(db)
            launches, kernels, wall = ncu_pass(bb, a.experiments, db, os.path.join(a.out, f"{label}-{i + 1}.log"),
                                               a.ncu_option, names)
            walls.append(wall)
            target = configurations(db, newest_runs(db, n_exp))
            if [t["key"] for t in target] != [c["key"] for c in configs]:
                fail("the ncu target ran other configurations than bankbench")
            per_config = split_launches([c["kernels"] for c in configs], [t["status"] for t in target], launches,
                                        kernels, f"{label} run {i + 1}")
            for c, got in zip(configs, per_config):
                c.setdefault(key, []).append(got[0] if got else None)
                if got and not c.get("kernel_names"):
                    c["kernel_names"] = got[1]
            print(f"{label} run {i + 1}: {wall:.2f} s, {len(launches)} kernels profiled", flush=True)
        return walls

    ncu_walls = ncu_runs(a.ncu_runs, "ncu", tuple(METRICS) + (DURATION,), "ncu")
    alone_walls = ncu_runs(a.ncu_counters_alone_runs, "ncu_alone", tuple(COUNTERS_ALONE), "ncu-counters-alone")

    # Per configuration and metric.
    def compared(reference, metrics):
        out = []
        for idx, c in enumerate(configs):
            for r in judge(c, reference, metrics):
                repeat_values = [rep[idx]["values"].get(r["name"]) for rep in repeats]
                r["bankbench_repeats"] = [v for v in repeat_values if v is not None]
                r["configuration"] = c["key"]
                r["experiment"] = c["key"].split("|", 1)[0]
                r["kernel"] = c.get("kernel_names", "")
                out.append(r)
        return out

    table = compared("ncu", METRICS)
    alone = compared("ncu_alone", COUNTERS_ALONE)
    alone_by_key = {(r["configuration"], r["metric"]): r for r in alone}
    pairs = [{"metric": r["metric"], "bankbench": r["bankbench"], "ncu": r["ncu"],
              "alone": alone_by_key[(r["configuration"], r["metric"])]["ncu"]}
             for r in table if (r["configuration"], r["metric"]) in alone_by_key]
    with open(os.path.join(a.out, "parity.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["experiment", "variant", "params", "kernel", "metric", "bankbench", "bankbench_repeats",
                    "ncu_runs", "diff", "ncu_spread", "allowed", "verdict", "ncu_counters_alone_runs",
                    "verdict_counters_alone", "bankbench_duration_ns", "ncu_duration_ns"])
        by_key = {c["key"]: c for c in configs}
        for r in table:
            exp, variant, params = r["configuration"].split("|", 2)
            other = alone_by_key.get((r["configuration"], r["metric"]))
            w.writerow([exp, variant, params, r["kernel"], r["metric"], f"{r['bankbench']:.0f}",
                        " ".join(f"{v:.0f}" for v in r["bankbench_repeats"]),
                        " ".join(f"{v:.0f}" for v in r["ncu"]), f"{r['diff']:+.0f}", f"{r['ncu_spread']:.0f}",
                        f"{r['allowed']:.1f}", r["verdict"],
                        " ".join(f"{v:.0f}" for v in other["ncu"]) if other else "",
                        other["verdict"] if other else "", *durations(by_key[r["configuration"]])])

    # Summary per metric kind.
    lines = ["# Counter parity and speed: bankbench against Nsight Compute", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += [f"- suite: `{' '.join(a.experiments)}`, {len(configs)} configurations, "
              f"{sum(1 for c in configs if c['ncu'] and c['ncu'][0])} with kernels profiled by both",
              f"- ncu: `ncu --metrics <{a.metric_set} set> --csv --clock-control none --nvtx --nvtx-include "
              f"{NVTX_RANGE}/ {' '.join(a.ncu_option)}` over `bankbench run --launch-once --no-isolation`",
              f"- bankbench: `bankbench run {' '.join(a.bankbench_option)}`",
              "", "## Targets", ""] + targets(table, alone, pairs, ncu_walls[0] / counters_wall) + [
              "", "## Wall time for the whole suite", "",
              "| tool | runs (s) | first run (s) |", "|---|---|---|",
              f"| bankbench run (counters, timing, verification) | {', '.join(f'{w:.2f}' for w in bb_walls)} | {bb_walls[0]:.2f} |",
              f"| bankbench run --no-timing (counters, verification) | {counters_wall:.2f} | {counters_wall:.2f} |",
              f"| ncu over the launch-once target (counters, verification) | {', '.join(f'{w:.2f}' for w in ncu_walls)} | {ncu_walls[0]:.2f} |",
              "", f"Speed ratio, ncu / bankbench: **{ncu_walls[0] / counters_wall:.1f}x** for the same work (counters "
              f"and verification); {ncu_walls[0] / bb_walls[0]:.1f}x against bankbench's full run with its timing pass.",
              "",
              "## Agreement per metric", ""] + agreement(table, METRICS)
    calib = calibration(table)
    if calib:
        lines += ["", "## The conflicts rule applied to ncu itself", "",
                  "Each ncu run judged by the same rule against the other ncu runs (their first run, their spread), "
                  "beside bankbench judged against as many ncu runs: configurations within the allowance.", ""] + calib
    lines += ["", "## Conflicts per experiment: which way bankbench differs", "",
              "Noise goes both ways; an experiment whose counts sit on one side of every ncu run points at a "
              "condition the two tools do not share (docs/ncu-parity.md).", ""] + direction(table)
    if alone:
        lines += ["", f"## Against ncu's hardware counters alone ({len(alone_walls)} runs)", "",
                  "ncu with the four l1tex counters alone, without the SASS metric that instruments the kernel "
                  f"({', '.join(f'{w:.2f}' for w in alone_walls)} s): the same rules.", ""]
        lines += agreement(alone, COUNTERS_ALONE)
        calib = calibration(alone)
        if calib:
            lines += [""] + calib
        lines += [""] + direction(alone)
        both = both_readings(pairs)
        if both:
            lines += ["", "## Against either of ncu's readings", "",
                      "ncu's whole set and its counters alone read the same counters differently (the SASS metric "
                      "moves store conflicts by several per cent in some kernels): a count within the allowance "
                      "of either set of runs, for ncu's own runs held out and for bankbench.", ""] + both
    offset = duration_offset(configs)
    if offset:
        n, lo, mid, hi = offset
        lines += ["", "## Profiled duration (not judged)", "",
                  f"`{DURATION}`: bankbench's is the duration of the user range around the launch, ncu's the "
                  f"kernel's. bankbench minus ncu's median, over {n} configurations: median {mid:+.1f} us "
                  f"(from {lo:+.1f} to {hi:+.1f} us). Kernel times come from bankbench's timing pass."]
    misses = [r for r in table if r["verdict"] != "ok"]
    lines += ["", f"## Configurations off target or where ncu disagrees with itself ({len(misses)})", ""]
    if misses:
        lines += ["| configuration | metric | bankbench | bankbench again | ncu runs | diff | allowed | verdict |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in misses[:400]:
            lines.append(f"| {r['configuration'].replace('|', ' ')} | {r['metric']} | {r['bankbench']:.0f} | "
                         f"{' '.join(f'{v:.0f}' for v in r['bankbench_repeats'])} | "
                         f"{' '.join(f'{v:.0f}' for v in r['ncu'])} | {r['diff']:+.0f} | {r['allowed']:.1f} | "
                         f"{r['verdict']} |")
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump({"info": info, "bankbench_wall_s": bb_walls, "bankbench_counters_only_wall_s": counters_wall,
                   "ncu_wall_s": ncu_walls, "ncu_counters_alone_wall_s": alone_walls,
                   "configurations": len(configs)}, f, indent=1)
    print("\n".join(lines[:40]))


if __name__ == "__main__":
    main()
