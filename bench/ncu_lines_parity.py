#!/usr/bin/env python3
"""Per-line parity of `bankbench run --lines` with Nsight Compute's Source page.

usage: bench/ncu_lines_parity.py --bankbench BIN --out DIR [--ncu-runs N] [--lines-jobs N] EXPERIMENT...
       bench/ncu_lines_parity.py --again --out DIR EXPERIMENT...

1. `bankbench run --lines --no-timing` over the experiments, timed: every configuration's shared-memory
   instructions with their wavefronts and ideal wavefronts (CUPTI's SASS metrics), into DIR/lines.sqlite.
2. `ncu --section SourceCounters --page source --print-source sass --csv` over
   `bankbench run --launch-once --no-isolation` of the same experiments, N times (default 2): the
   Source page of every measured launch (`--nvtx-include bankbench-measure/`), timed.
3. Per configuration and instruction (matched by its offset in the kernel): bankbench's wavefronts
   and ideal against ncu's "L1 Wavefronts Shared" and "L1 Wavefronts Shared Ideal", counted where
   ncu agrees with itself across its runs. Configurations launching more than one kernel, or none,
   are left out and listed.

Writes DIR/lines-parity.csv (every compared instruction) and DIR/summary.md (versions, wall times,
per experiment the instructions compared and equal). Exit status 0 when it ran (a benchmark), 2 on a
usage or tool error.
"""
import argparse
import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone

NVTX_RANGE = "bankbench-measure"


def version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    except (OSError, IndexError):
        return ""


def fail(message):
    print(f"ncu_lines_parity: {message}", file=sys.stderr)
    sys.exit(2)


def run_timed(cmd, log_path):
    t0 = time.monotonic()
    with open(log_path, "w") as log:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=log, text=True)
    return p, time.monotonic() - t0


def measured(db):
    """(experiment, variant, params) of each configuration that ran, in run order, with its id."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT c.id, r.experiment_name, c.variant, c.params_json, c.status FROM configurations c "
        "JOIN runs r ON r.id = c.run_id ORDER BY c.run_id, c.seq").fetchall()
    con.close()
    return rows


def bankbench_lines(db):
    """{(experiment, variant, params): {pc: (wavefronts, ideal, opcode, file, line)}}, collect times,
    statuses and the instrumented kernel of each configuration."""
    con = sqlite3.connect(db)
    out, times, statuses, kernels = {}, [], {}, {}
    for cid, experiment, variant, params, _ in measured(db):
        row = con.execute("SELECT status, collect_ms, kernel FROM line_collections WHERE configuration_id = ?",
                          (cid,)).fetchone()
        if row is None:
            continue
        kernels[(experiment, variant, params)] = row[2] or ""
        statuses[row[0]] = statuses.get(row[0], 0) + 1
        times.append(row[1] or 0)
        out[(experiment, variant, params)] = {
            pc: (w, i, op, f, line, x) for pc, w, i, op, f, line, x in con.execute(
                "SELECT pc, wavefronts, ideal, opcode, file, line, executions FROM line_counters "
                "WHERE configuration_id = ?", (cid,))}
    con.close()
    return out, times, statuses, kernels


def ncu_pages(text):
    """Each profiled launch's Source page: [(kernel name, {pc: (wavefronts, ideal, sass)})]."""
    pages, current, header, base = [], None, None, None
    for line in text.splitlines():
        if line.startswith('"Kernel Name"'):
            name = next(csv.reader(io.StringIO(line)))[1]
            current = {}
            pages.append((name, current))
            header, base = None, None
            continue
        if current is None or not line.startswith('"'):
            continue
        cells = next(csv.reader(io.StringIO(line)))
        if header is None:
            header = {name: i for i, name in enumerate(cells)}
            continue
        try:
            address = int(cells[header["Address"]], 16)
        except (KeyError, ValueError):
            continue
        base = address if base is None else base
        def number(column):
            value = cells[header[column]] if column in header else "0"
            return int(float(value.replace(",", ""))) if value not in ("", "-") else 0
        current[address - base] = (number("L1 Wavefronts Shared"), number("L1 Wavefronts Shared Ideal"),
                                   cells[header["Source"]].strip(), number("Instructions Executed"))
    return pages


def ncu_run(bb, experiments, out_dir, k):
    """ncu run k over the launch-once target: its Source pages into DIR/ncu-K.csv; the wall time."""
    db = os.path.join(out_dir, f"ncu-{k}.sqlite")
    if os.path.exists(db):
        os.remove(db)
    cmd = ["ncu", "--section", "SourceCounters", "--page", "source", "--print-source", "sass", "--csv",
           "--print-kernel-base", "mangled", "--clock-control", "none", "--nvtx", "--nvtx-include", f"{NVTX_RANGE}/",
           bb, "--db", db, "-q", "run", "--launch-once", "--no-isolation", *experiments]
    p, wall = run_timed(cmd, os.path.join(out_dir, f"ncu-{k}.log"))
    with open(os.path.join(out_dir, f"ncu-{k}.csv"), "w") as f:
        f.write(p.stdout)
    return wall


def ncu_matched(out_dir, k, kernels, lines):
    """{configuration: (kernel, page)}: each configuration's page of the kernel bankbench instrumented
    in ncu run k (pages of other kernels its launch enqueued are passed over)."""
    with open(os.path.join(out_dir, f"ncu-{k}.csv")) as f:
        pages = ncu_pages(f.read())
    if not pages:
        fail(f"ncu wrote no Source page; see {out_dir}/ncu-{k}.log")
    db = os.path.join(out_dir, f"ncu-{k}.sqlite")
    configs = [(e, v, params) for _, e, v, params, status in measured(db) if status in ("ok", "unverified")]
    # ncu 2025.3 printed the Source page of a built-in kernel's launch twice (a source variant's
    # once), so pages are matched rather than counted: each configuration takes the first page
    # after the previous one's that names its instrumented kernel and whose instructions executed
    # equal its own (the launch's geometry; wavefronts, what is compared, play no part).
    out, i = {}, 0
    for key in configs:
        want = kernels.get(key, "")
        ours = lines.get(key, {})
        def same_launch(page):
            name, pcs = page
            return name == want and all(pcs.get(pc, (0, 0, "", -1))[3] == v[5] for pc, v in ours.items())
        j = i
        while j < len(pages) and want and not same_launch(pages[j]):
            j += 1
        if want and j < len(pages):
            out[key] = pages[j]
            i = j + 1
    if not out:
        print(f"ncu run {k}: no Source page names a kernel bankbench instrumented; ncu named "
              f"{sorted({name for name, _ in pages})[:5]}, bankbench {sorted(set(kernels.values()))[:5]}",
              file=sys.stderr)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bankbench")
    ap.add_argument("--again", action="store_true",
                    help="compare what an earlier run left in --out (DIR/walls.json, lines.sqlite, ncu-K.*) again")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ncu-runs", type=int, default=2)
    ap.add_argument("--lines-jobs", type=int, default=4, help="bankbench run --lines-jobs")
    ap.add_argument("experiments", nargs="+")
    a = ap.parse_args()
    if a.ncu_runs < 1:
        fail("--ncu-runs must be at least 1")
    os.makedirs(a.out, exist_ok=True)
    bb = os.path.abspath(a.bankbench) if a.bankbench else ""
    lines_db = os.path.join(a.out, "lines.sqlite")
    walls_path = os.path.join(a.out, "walls.json")
    if not a.again:
        if not bb:
            fail("--bankbench is needed unless --again")
        plain_db = os.path.join(a.out, "plain.sqlite")
        for db in (lines_db, plain_db):
            if os.path.exists(db):
                os.remove(db)
        p, plain_wall = run_timed([bb, "--db", plain_db, "run", "--no-timing", *a.experiments],
                                  os.path.join(a.out, "bankbench-plain.log"))
        if p.returncode not in (0, 1):
            fail(f"bankbench run exited {p.returncode}; see {a.out}/bankbench-plain.log")
        p, bb_wall = run_timed([bb, "--db", lines_db, "run", "--lines", "--lines-jobs", str(a.lines_jobs),
                                "--no-timing", *a.experiments], os.path.join(a.out, "bankbench.log"))
        if p.returncode not in (0, 1):
            fail(f"bankbench run --lines exited {p.returncode}; see {a.out}/bankbench.log")
        ncu_walls = [ncu_run(bb, a.experiments, a.out, k) for k in range(a.ncu_runs)]
        with open(walls_path, "w") as f:
            json.dump({"plain": plain_wall, "lines": bb_wall, "ncu": ncu_walls, "lines_jobs": a.lines_jobs,
                       "gpu": version(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
                       "ncu_version": version(["ncu", "--version"])}, f)
    with open(walls_path) as f:
        walls = json.load(f)
    plain_wall, bb_wall, ncu_walls, a.lines_jobs = walls["plain"], walls["lines"], walls["ncu"], walls["lines_jobs"]
    ours, collect_ms, statuses, kernels = bankbench_lines(lines_db)
    runs = [(ncu_matched(a.out, k, kernels, ours), ncu_walls[k]) for k in range(len(ncu_walls))]

    rows, per_experiment = [], {}
    for key, page_by_pc in ours.items():
        theirs = [r[0].get(key) for r in runs]
        stat = per_experiment.setdefault(key[0], {"configurations": 0, "compared": 0, "wavefronts_equal": 0,
                                                   "ideal_equal": 0, "ncu_disagrees": 0, "missing": 0})
        stat["configurations"] += 1
        if any(t is None for t in theirs):
            stat["missing"] += 1
            continue
        kernel = theirs[0][0]
        pcs = set(page_by_pc) | {pc for pc, v in theirs[0][1].items() if v[0] > 0}
        for pc in sorted(pcs):
            w, i, op, f, line, _ = page_by_pc.get(pc, (0, 0, "", "", 0, 0))
            ncu_values = [t[1].get(pc, (0, 0, ""))[:2] for t in theirs]
            agrees = all(v == ncu_values[0] for v in ncu_values)
            nw, ni = ncu_values[0]
            stat["compared"] += 1
            if not agrees:
                stat["ncu_disagrees"] += 1
            else:
                stat["wavefronts_equal"] += int(w == nw)
                stat["ideal_equal"] += int(i == ni)
            rows.append([key[0], key[1], key[2], kernel, f"0x{pc:x}", op, f"{os.path.basename(f)}:{line}", w, i,
                         nw, ni, int(agrees)])
    with open(os.path.join(a.out, "lines-parity.csv"), "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["experiment", "variant", "params", "kernel", "pc", "opcode", "line", "wavefronts", "ideal",
                    "ncu_wavefronts", "ncu_ideal", "ncu_agrees_with_itself"])
        w.writerows(rows)

    n = len(collect_ms)
    md = [f"# Per-line parity with Nsight Compute's Source page ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
          f"- GPU: {walls.get('gpu', '')}",
          f"- ncu: {walls.get('ncu_version', '')}",
          f"- experiments: {' '.join(a.experiments)}", "",
          f"- `bankbench run --no-timing`: {plain_wall:.1f} s; with `--lines --lines-jobs {a.lines_jobs}`: "
          f"{bb_wall:.1f} s for {n} configurations (collections: "
          f"{', '.join(f'{k} {v}' for k, v in sorted(statuses.items()))}): the lines cost "
          f"{bb_wall - plain_wall:.1f} s, {(bb_wall - plain_wall) * 1000 / max(n, 1):.0f} ms per configuration; each "
          f"collecting process {sum(collect_ms) / max(n, 1):.0f} ms on average (max {max(collect_ms, default=0):.0f} ms)",
          f"- ncu SourceCounters over the same launches: {', '.join(f'{w:.1f} s' for w in ncu_walls)}; "
          f"ncu / the lines' cost: {min(ncu_walls) / max(bb_wall - plain_wall, 1e-9):.1f}x", "",
          "| experiment | configurations | instructions | wavefronts equal | ideal equal | ncu disagrees with itself | not matched |",
          "|---|---|---|---|---|---|---|"]
    for e, s in per_experiment.items():
        agreed = s["compared"] - s["ncu_disagrees"]
        md.append(f"| {e} | {s['configurations']} | {s['compared']} | {s['wavefronts_equal']}/{agreed} | "
                  f"{s['ideal_equal']}/{agreed} | {s['ncu_disagrees']} | {s['missing']} |")
    differing = [r for r in rows if r[-1] and (r[7] != r[9] or r[8] != r[10])]
    if differing:
        md += ["", "Instructions that differ where ncu agrees with itself (first 30):", "",
               "| experiment | variant | params | pc | opcode | line | wavefronts | ideal | ncu wavefronts | ncu ideal |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for r in differing[:30]:
            md.append("| " + " | ".join(str(x) for x in r[:3] + r[4:11]) + " |")
    with open(os.path.join(a.out, "summary.md"), "w") as out:
        out.write("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
