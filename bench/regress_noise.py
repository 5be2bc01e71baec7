#!/usr/bin/env python3
"""The regression gate's two error rates on one GPU: false alarms on unchanged code, and planted
regressions caught.

usage: bench/regress_noise.py [--bankbench BIN] [--experiments PATH] [--out DIR] [--runs K]
       bench/regress_noise.py --db DB [--out DIR]      (judge the sessions of an existing database)

1. `bankbench run` over the suite K times (default 4), each a session of its own, all of one build
   and one commit: K repeats of unchanged code.
2. False alarms: every ordered pair of sessions (i, j), i != j, judged as baseline i, candidate j
   with `bankbench regress` and its default options, twice:
   - one baseline run: a copy of the database holding sessions i and j only, so nothing else is
     known about noise;
   - several baseline runs: the whole database, where the other sessions are repeats of the same
     code and their noise may tighten the allowance.
   Every gated finding is a false alarm.
3. Planted regressions: in a copy of the database, the last session's results are changed, one
   configuration per experiment and kind of change: +0.1 wavefronts per request in its most
   conflict-free configuration (wavefronts per request nearest the ideal), +3 % in its most
   conflicted one (32-way where the experiment has one). `bankbench regress` of that session against
   the first must exit 1 and name every planted configuration; any other gated finding is reported.

Writes DIR/summary.md (versions, figures, every false alarm and every missed plant) and
DIR/noise.sqlite. Exit status: 0 when the benchmark ran (whatever its figures), 2 on a tool error.
"""
import argparse
import itertools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def gpu_line(db):
    """The GPU the database's runs were measured on, as nvidia-smi names it here, else as stored."""
    try:
        r = sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        if r.returncode == 0 and r.stdout.strip():
            return r.stdout.strip().splitlines()[0]
    except FileNotFoundError:
        pass
    con = sqlite3.connect(db)
    rows = con.execute("SELECT DISTINCT g.name || ', ' || coalesce(g.driver_version, '?') FROM gpus g "
                       "JOIN runs r ON r.gpu_id = g.id").fetchall()
    con.close()
    return "; ".join(r[0] for r in rows) + " (from the database)" if rows else "unknown GPU"


def sessions_of(db):
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT id FROM sessions ORDER BY id")]
    con.close()
    return ids


def keep_sessions(src, dst, keep):
    shutil.copyfile(src, dst)
    con = sqlite3.connect(dst)
    con.execute("PRAGMA foreign_keys = ON")
    marks = ",".join("?" * len(keep))
    con.execute(f"DELETE FROM runs WHERE session_id IS NULL OR session_id NOT IN ({marks})", keep)
    con.commit()
    con.close()


def regress(bin_, db, baseline, candidate):
    r = sh([bin_, "-q", "--db", db, "regress", "--baseline", baseline, "--candidate", candidate, "--format", "json"])
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        doc = None
    return r.returncode, doc, r.stderr.strip()


def gated(doc):
    return [f for f in (doc or {}).get("findings", []) if f.get("gated")]


def describe(f):
    params = json.dumps(f["params"], sort_keys=True, separators=(",", ":"))
    return f"{f['experiment']} {f['variant']} {params} {f['metric']}: {f['baseline']} -> {f['candidate']} (allowance {f['allowance']:.4g})"


# (kind prefix, raw wavefront counter) of the two kinds every experiment measures.
KINDS = [("load", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
         ("store", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")]


def plant(db, session):
    """Plants the two changes per experiment into `session`; returns [(experiment, variant, params, metric, what)]."""
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT c.id, r.experiment_name, c.variant, c.params_json, m.name, avg(m.value), c.smem_access_bytes "
        "FROM configurations c JOIN runs r ON r.id = c.run_id JOIN metrics m ON m.configuration_id = c.id "
        "WHERE r.session_id = ? AND c.status = 'ok' AND m.derived = 1 AND m.name IN "
        "('load_wavefronts_per_request', 'store_wavefronts_per_request', 'load_requests', 'store_requests') "
        "GROUP BY c.id, m.name", (session,)).fetchall()
    by_config = {}
    for cid, exp, variant, params, name, value, width in rows:
        by_config.setdefault(cid, {"experiment": exp, "variant": variant, "params": params, "width": width})[name] = value
    planted = []
    for exp in sorted({c["experiment"] for c in by_config.values()}):
        candidates = []  # (excess over ideal, wf/req, cid, kind)
        for cid, c in by_config.items():
            if c["experiment"] != exp:
                continue
            ideal = max(1, -(-32 * max(c["width"], 1) // 128))
            for kind, _ in KINDS:
                wf, req = c.get(f"{kind}_wavefronts_per_request"), c.get(f"{kind}_requests")
                if wf is not None and req and req >= 32:
                    candidates.append((wf - ideal, wf, cid, kind))
        if not candidates:
            continue
        clean = min(candidates, key=lambda t: (abs(t[0]), -t[1]))
        worst = max(candidates, key=lambda t: t[1])
        for (excess, wf, cid, kind), what in ((clean, "+0.1 wf/req"), (worst, "+3 %")):
            if what == "+3 %" and cid == clean[2] and kind == clean[3]:
                continue  # an experiment with one configuration: the first plant covers it
            new = wf + 0.1 if what == "+0.1 wf/req" else wf * 1.03
            factor = new / wf if wf else 1
            raw = dict(KINDS)[kind]
            for name in (f"{kind}_wavefronts_per_request", f"{kind}_wavefronts", raw):
                con.execute("UPDATE metrics SET value = value * ? WHERE configuration_id = ? AND name = ?",
                            (factor, cid, name))
            c = by_config[cid]
            planted.append((exp, c["variant"], json.dumps(json.loads(c["params"]), sort_keys=True, separators=(",", ":")),
                            f"{kind}_wavefronts_per_request", f"{what} ({wf:.4f} -> {new:.4f})"))
    con.commit()
    con.close()
    return planted


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bankbench", default="build/release/bankbench")
    ap.add_argument("--experiments", default="experiments")
    ap.add_argument("--out", default="regress-noise-out")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--db", help="judge this database's sessions instead of running the suite")
    ap.add_argument("--run-option", action="append", default=[], help="passed to every `bankbench run`")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if not os.path.exists(a.bankbench):
        print(f"regress_noise.py: no bankbench at {a.bankbench}", file=sys.stderr)
        return 2
    db = os.path.join(a.out, "noise.sqlite")
    walls = []
    if a.db:
        shutil.copyfile(a.db, db)
    else:
        for f in (db, db + "-wal", db + "-shm"):
            if os.path.exists(f):
                os.remove(f)
        for k in range(a.runs):
            t0 = time.time()
            r = sh([a.bankbench, "-q", "--db", db, "run", *a.run_option, a.experiments])
            walls.append(time.time() - t0)
            print(f"run {k + 1}/{a.runs}: exit {r.returncode} in {walls[-1]:.1f} s; {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}",
                  flush=True)
            if r.returncode not in (0, 1):
                print(r.stderr[-4000:], file=sys.stderr)
                return 2
    sessions = sessions_of(db)
    if len(sessions) < 2:
        print("regress_noise.py: fewer than two sessions to judge", file=sys.stderr)
        return 2

    pairs = []  # (mode, i, j, exit, gated findings, compared, judged)
    for mode in ("one baseline run", "several baseline runs"):
        for i, j in itertools.permutations(sessions, 2):
            target = db
            if mode == "one baseline run":
                target = os.path.join(a.out, "pair.sqlite")
                keep_sessions(db, target, [i, j])
            rc, doc, err = regress(a.bankbench, target, f"session:{i}", f"session:{j}")
            if doc is None:
                print(f"regress session {i} -> {j} ({mode}) gave no JSON (exit {rc}): {err}", file=sys.stderr)
                return 2
            pairs.append((mode, i, j, rc, gated(doc), doc.get("compared", 0), doc.get("judged", 0)))
            print(f"{mode}: session {i} -> {j}: exit {rc}, {len(gated(doc))} false regression(s), "
                  f"{doc.get('judged', 0)} judgements", flush=True)

    planted_db = os.path.join(a.out, "planted.sqlite")
    shutil.copyfile(db, planted_db)
    first, last = sessions[0], sessions[-1]
    planted = plant(planted_db, last)
    rc, doc, err = regress(a.bankbench, planted_db, f"session:{first}", f"session:{last}")
    found = {(f["experiment"], f["variant"], json.dumps(f["params"], sort_keys=True, separators=(",", ":")), f["metric"])
             for f in gated(doc)}
    caught = [p for p in planted if p[:4] in found]
    missed = [p for p in planted if p[:4] not in found]
    extra = [f for f in gated(doc) if (f["experiment"], f["variant"],
                                       json.dumps(f["params"], sort_keys=True, separators=(",", ":")), f["metric"])
             not in {p[:4] for p in planted}]
    for f in (os.path.join(a.out, "pair.sqlite"),):
        if os.path.exists(f):
            os.remove(f)

    version = sh([a.bankbench, "--version"]).stdout.strip()
    lines = [f"# Regression gate: false alarms and planted regressions ({datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC)", "",
             f"- GPU: {gpu_line(db)}", f"- bankbench: {version}, commit {os.environ.get('BB_GIT_COMMIT', '?')}",
             f"- command: `python3 bench/regress_noise.py --bankbench {a.bankbench} --runs {a.runs}`",
             f"- sessions: {len(sessions)} runs of `{a.experiments}`" +
             (f", wall {', '.join(f'{w:.1f}' for w in walls)} s" if walls else " (from an existing database)"),
             "- gate: `bankbench regress --baseline session:I --candidate session:J` with its default options", "",
             "## Unchanged code: every ordered pair of sessions", "",
             "| baseline | pairs | pairs with a false regression | false regressions | judgements per pair |",
             "|---|---|---|---|---|"]
    for mode in ("one baseline run", "several baseline runs"):
        ps = [p for p in pairs if p[0] == mode]
        lines.append(f"| {mode} | {len(ps)} | {sum(1 for p in ps if p[4])} | {sum(len(p[4]) for p in ps)} | "
                     f"{min(p[6] for p in ps)}-{max(p[6] for p in ps)} |")
    alarms = [(p, f) for p in pairs for f in p[4]]
    lines += ["", f"False regressions: {len(alarms)}."]
    for p, f in alarms[:50]:
        lines.append(f"- {p[0]}, session {p[1]} -> {p[2]}: {describe(f)}")
    lines += ["", f"## Planted into session {last}, judged against session {first}", "",
              f"`regress` exit {rc}; planted {len(planted)}, caught {len(caught)}, missed {len(missed)}, "
              f"other regressions {len(extra)}.", "", "| experiment | variant | params | metric | change | caught |",
              "|---|---|---|---|---|---|"]
    for p in planted:
        lines.append(f"| {p[0]} | {p[1]} | `{p[2]}` | {p[3]} | {p[4]} | {'yes' if p in caught else 'NO'} |")
    for f in extra:
        lines.append(f"- other: {describe(f)}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "summary.md"), "w") as fh:
        fh.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
