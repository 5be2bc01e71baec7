#!/usr/bin/env python3
"""The table of bench/scale.sh: reads its folder (walls.txt, each run's -vv log and database).

usage: bench/scale_report.py OUT [WORK] (WORK: where the databases are, default OUT)

Per run: wall time; throughput against the one-GPU run of the same kind (full or counters alone);
per worker, its start-up (from the run's first log line to the worker's first configuration), its
configurations and their time, per configuration the set-up, verification, counter pass and timing
pass; the counter pass's parts summed over its groups (set-up, Start and enqueue, the wait for the
device, Stop, decode and evaluation). Then the floor: each configuration's kernel time (its timing
median, from the one-GPU full run) times the passes its metric set needs, plus one verified launch.
"""
import collections
import datetime
import pathlib
import re
import sqlite3
import statistics
import sys

LINE = re.compile(r"^bankbench: (?:\[gpu (\d+)\] )?(\d\d:\d\d:\d\d\.\d\d\d) \w+: (.*)$")
PER_CONFIG = re.compile(
    r"(\d+) configurations in ([\d.]+) s; per configuration: setup ([\d.]+) ms, verify ([\d.]+) ms, "
    r"counter pass ([\d.]+) ms, timing pass ([\d.]+) ms")
GROUP = re.compile(r"counter passes of (\d+) configuration\(s\): (.*)$")
PART = re.compile(r"([a-z+]+) ([\d.]+) ms")
PASSES = re.compile(r"metric set (\S+): (\d+) counter\(s\) in (\d+) pass\(es\)")
OPENED = re.compile(r"GPU \d+ opened in (\d+) ms")
SETUP = re.compile(r"profiler set up in (\d+) ms \(\d+ metric list\(s\) checked in (\d+) ms")


def seconds(stamp):
    t = datetime.datetime.strptime(stamp, "%H:%M:%S.%f")
    return t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6


def parse_log(path):
    workers = collections.defaultdict(lambda: {"parts": collections.Counter(), "groups": 0, "grouped": 0})
    first = None
    passes = {}
    for raw in path.read_text(errors="replace").splitlines():
        m = LINE.match(raw)
        if not m:
            continue
        gpu, stamp, text = m.group(1) or "-", seconds(m.group(2)), m.group(3)
        first = stamp if first is None else min(first, stamp)
        w = workers[gpu]
        w.setdefault("first_line", stamp)
        if text.startswith("[1/") and "first_config" not in w:
            w["first_config"] = stamp
        if (p := PASSES.search(text)):
            passes[p.group(1)] = int(p.group(3))
        if (o := OPENED.search(text)):
            w["opened_ms"] = int(o.group(1))
        if (s := SETUP.search(text)):
            w["profiler_ms"], w["checked_ms"] = int(s.group(1)), int(s.group(2))
        if (g := GROUP.search(text)):
            body = g.group(2)
            decode = re.search(r"\(decode ([\d.]+) ms\)", body)
            for name, ms in PART.findall(body.split(" (decode")[0]):
                w["parts"][name] += float(ms)
            if decode:
                w["parts"]["decode"] += float(decode.group(1))
            w["groups"] += 1
            w["grouped"] += int(g.group(1))
        if (c := PER_CONFIG.search(text)):
            w["configs"] = int(c.group(1))
            w["configs_s"] = float(c.group(2))
            w["per"] = tuple(float(c.group(i)) for i in range(3, 7))
            w["end"] = stamp
    if list(workers) == ["-"]:  # one GPU: the run's own process is its worker
        workers = {"0": workers["-"]}
    return first, dict(workers), passes


def floor_ms(db, passes):
    """Kernel time x (passes + 1 verified launch), and the timing pass's own launches, in ms."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT r.metric_set, t.median_ns, t.launches_per_sample, t.samples, r.warmup FROM configurations c "
        "JOIN runs r ON r.id = c.run_id JOIN timings t ON t.configuration_id = c.id WHERE c.status = 'ok'").fetchall()
    counters = timing = 0.0
    unknown = set()
    for metric_set, median, per_sample, samples, warmup in rows:
        p = passes.get(metric_set)
        if p is None:
            unknown.add(metric_set)
            p = 1
        counters += median * (p + 1)
        timing += median * (per_sample * samples + warmup)
    return counters / 1e6, timing / 1e6, len(rows), unknown


def amdahl_lines(runs):
    """With timing on N GPUs against the best Amdahl's law allows when the counter pass scales only as
    far as counters alone did on N GPUs (the range profiler serialises across the host) and the rest
    (timing, the full run's extra time over counters alone on one GPU) perfectly: bound = F1 / (CN +
    (F1 - C1) / N), walls' medians. Empty without full and counters-alone runs on one GPU."""
    def median_wall(gpus, kind):
        walls = [r["wall"] for r in runs if r["gpus"] == gpus and r["timing"] == kind]
        return statistics.median(walls) if walls else None

    f1, c1 = median_wall(1, "full"), median_wall(1, "counters")
    lines = []
    if f1 is None or c1 is None:
        return lines
    for n in sorted({r["gpus"] for r in runs if r["gpus"] > 1}):
        fn, cn = median_wall(n, "full"), median_wall(n, "counters")
        if fn is None or cn is None:
            continue
        bound = f1 / (cn + (f1 - c1) / n)
        lines.append(f"- {n} GPUs: with timing {f1 / fn:.2f}x one GPU; bound {bound:.2f}x (counters alone "
                     f"{c1 / cn:.2f}x, the other {f1 - c1:.2f} s of one GPU's full run divided by {n}); "
                     f"{100 * f1 / fn / bound:.0f} % of the bound")
    return lines


def main():
    out = pathlib.Path(sys.argv[1])
    work = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else out
    runs = []
    for line in (out / "walls.txt").read_text().splitlines()[1:]:
        label, devices, gpus, timing, rnd, wall, rc = line.split()
        runs.append({"label": label, "devices": devices, "gpus": int(gpus), "timing": timing,
                     "round": int(rnd), "wall": float(wall), "rc": int(rc)})
    all_passes = {}
    for r in runs:
        r["first"], r["workers"], passes = parse_log(out / (r["label"] + ".err"))
        all_passes.update(passes)

    print("# Speed and scale: one GPU against several (bench/scale.sh)\n")
    print("```")
    print((out / "machine.txt").read_text().strip())
    print("```\n")
    print("| run | GPUs | wall s | throughput vs one GPU | configurations per worker | worker start-up s | "
          "configurations s per worker |")
    print("|---|---:|---:|---:|---|---|---|")
    one = {}
    for r in runs:
        if r["gpus"] == 1:
            one.setdefault(r["timing"], []).append(r["wall"])
    for r in runs:
        base = statistics.median(one.get(r["timing"], [r["wall"]]))
        ws = [r["workers"][k] for k in sorted(r["workers"])]
        startup = ", ".join(f"{w['first_config'] - r['first']:.2f}" for w in ws if "first_config" in w)
        cfg_s = ", ".join(f"{w.get('configs_s', 0):.2f}" for w in ws)
        counts = ", ".join(str(w.get("configs", 0)) for w in ws)
        print(f"| {r['timing']} r{r['round']} | {r['gpus']} | {r['wall']:.2f} | {base / r['wall']:.2f}x | {counts} | "
              f"{startup} | {cfg_s} |")

    amdahl = amdahl_lines(runs)
    if amdahl:
        print("\nWith timing, against the counter pass's ceiling (Amdahl's law: the counter pass scaling as "
              "counters alone did, the rest perfectly):\n")
        print("\n".join(amdahl))

    print("\nPer configuration, averaged over each worker (ms): set-up, verification, counter pass, timing pass; "
          "then the counter pass's parts summed over the worker's groups, per configuration grouped (ms).\n")
    print("| run | GPUs | worker | setup | verify | counter | timing | groups | "
          "c.setup | start+enqueue | wait | stop | decode | evaluate | GPU opened ms | metric lists ms | profiler ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        for k in sorted(r["workers"]):
            w = r["workers"][k]
            if "per" not in w:
                continue
            n = max(w["grouped"], 1)
            p = w["parts"]
            evaluate = p["decode+evaluate"] - p["decode"]
            print(f"| {r['timing']} r{r['round']} | {r['gpus']} | {k} | " + " | ".join(f"{x:.2f}" for x in w["per"]) +
                  f" | {w['groups']} | {p['setup'] / n:.3f} | {p['start+enqueue'] / n:.3f} | {p['wait'] / n:.3f} | "
                  f"{p['stop'] / n:.3f} | {p['decode'] / n:.3f} | {evaluate / n:.3f} | {w.get('opened_ms', '-')} | "
                  f"{w.get('checked_ms', '-')} | {w.get('profiler_ms', '-')} |")

    full_one = [r for r in runs if r["gpus"] == 1 and r["timing"] == "full"]
    if full_one:
        db = work / (full_one[0]["label"] + ".sqlite")
        counters, timing, n, unknown = floor_ms(db, all_passes)
        print(f"\nFloor, over the {n} verified configurations of {full_one[0]['label']} (passes per metric set: "
              f"{dict(sorted(all_passes.items()))}{'; unknown: ' + str(sorted(unknown)) if unknown else ''}):")
        print(f"- counters and verification: kernel time x (passes + 1) = {counters / 1000:.3f} s")
        print(f"- timing: the samples' launches and the warm-up = {timing / 1000:.3f} s")
        for kind, fl in (("counters", counters), ("full", counters + timing)):
            walls = [r["wall"] for r in runs if r["gpus"] == 1 and r["timing"] == kind]
            if walls:
                w = statistics.median(walls)
                print(f"- one GPU, {kind}: wall {w:.2f} s against a floor of {fl / 1000:.3f} s: "
                      f"{w / max(fl / 1000, 1e-9):.1f}x the floor")


if __name__ == "__main__":
    main()
