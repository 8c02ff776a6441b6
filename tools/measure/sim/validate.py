#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The simulator against this kernel: validate.sh's helper (the plan, the
workload copies it runs, the summary and its table; render.py imports
table() so the results page and the script print the same rows).

  validate.py plan ROOT                  rt-app files to run, and the others with why
  validate.py variant SRC DST [--bench] [--duration S] [--calibration NS] [--logdir D]
  validate.py summarize OUTDIR           OUTDIR/validate.json, and the table on stdout
"""
import argparse
import glob
import json
import os
import statistics
import sys

# The targets the validation is held to: sim/real within these.
P999_RATIO = 2.0      # P99.9: within 2x either way
RATE_TOL = 0.30       # blockings per second: within 30 %

LOCK_EVENTS = ("lock", "unlock")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def critical_tasks(w):
    g = w.get("global", {}).get("sp_critical") or []
    return [n for n, t in w["tasks"].items() if t.get("sp_critical") or n in g]


def why_not_rtapp(w, cpus):
    """None when Debian's rt-app runs the file as the simulator reads it,
    else why not (rt-app reads sp_* keys as nothing)."""
    g = w.get("global", {})
    rw = set()

    def scan(obj):
        for k, v in obj.items():
            base = k.rstrip("0123456789")
            if base in ("sp_rdlock", "sp_wrlock", "sp_unlock"):
                rw.add(base)
            elif isinstance(v, dict) and k != "timer":
                scan(v)
    for t in w["tasks"].values():
        scan(t)
    if rw:
        return ("rwlock events (" + ", ".join(sorted(rw)) + "), which rt-app reads as nothing: "
                "there the file takes no lock")
    kinds = sorted({k for k in (g.get("sp_locks") or {}).values() if k != "mutex"})
    if kinds:
        return ("kernel locks (" + ", ".join(kinds) + "), which rt-app runs as pthread mutexes: "
                "there the file is another workload")
    if g.get("sp_cpus", 2) > cpus:
        return f"needs {g['sp_cpus']} CPUs, this machine has {cpus}"
    if not critical_tasks(w):
        return "no critical task"
    return None


def plan(root):
    cpus = os.cpu_count() or 1
    run, skip = [], []
    for p in sorted(glob.glob(os.path.join(root, "examples", "workloads", "*.json"))):
        w = load(p)
        why = why_not_rtapp(w, cpus)
        name = os.path.splitext(os.path.basename(p))[0]
        if why:
            skip.append({"file": os.path.relpath(p, root), "why": why})
        else:
            run.append({"name": name, "file": os.path.relpath(p, root),
                        "critical": critical_tasks(w)})
    return {"rtapp": run, "not_rtapp": skip}


def variant(src, dst, bench, duration, calibration, logdir):
    """A copy of SRC: with --bench the critical task's timer is the bench's
    frame loop (vsync: absolute, late periods skipped, every period a frame
    and every missed deadline a janky one); the rest sets what rt-app
    needs on this run (duration, a fixed calibration, where its logs go)."""
    w = load(src)
    g = w["global"]
    if bench:
        for n in critical_tasks(w):
            t = w["tasks"][n]
            t["timer"] = {"ref": "unique", "period": t["timer"]["period"], "mode": "absolute",
                          "sp_skip": True}
    if duration is not None:
        g["duration"] = duration
    if calibration is not None:
        g["calibration"] = calibration
    if logdir is not None:
        g["logdir"] = logdir
    with open(dst, "w") as f:
        json.dump(w, f, indent=1)


# --- the summary -------------------------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    return {"median": med(xs), "min": min(xs), "max": max(xs), "n": len(xs)} if xs else None


def row_name(r):
    return r["policy"] + (f" K={r['k']}" if r.get("k") and "superpass" in r["policy"] else "")


def sim_rows(path, scenario, rows):
    """(row key, run) of a simulator output for the real rows it matches:
    by name, or by policy where the real row has no K (the bench's mutex
    and chain rows, rt-app: the reader tracker's bound does not matter)."""
    for r in load(path)["runs"]:
        if r.get("skipped"):
            continue
        for key in ((scenario, row_name(r)), (scenario, r["policy"])):
            if key in rows:
                yield key, r
                break


def rtapp_frames(logdir, task):
    """rt-app's log of TASK: (frames, late frames), one row per timer it
    reached, late when slack < 0."""
    frames = late = 0
    for p in glob.glob(os.path.join(logdir, f"*-{task}-*.log")):
        for line in open(p):
            f = line.split()
            if len(f) >= 8 and not line.startswith("#"):
                frames += 1
                late += int(f[7]) < 0
    return frames, late


def summarize(out):
    meta = load(os.path.join(out, "meta.json"))
    rows = {}

    def row(scenario, policy, source):
        return rows.setdefault((scenario, policy), {"scenario": scenario, "policy": policy,
                                                    "source": source, "real": [], "sim_max_ns": []})
    # real: the bench's runs, one file a run
    for p in sorted(glob.glob(os.path.join(out, "real", "bench-*.json"))):
        for r in load(p)["runs"]:
            if r.get("skipped"):
                continue
            s = r["seconds"]
            row(r["scenario"], row_name(r), "bench")["real"].append(
                {"max_ns": r["max_ns"], "blockings_s": r["blockings"] / s, "janky_s": r["janky"] / s,
                 "blockings": r["blockings"], "seconds": s, "steal_s": r.get("steal_s")})
    # real: rt-app under superpass run (observe: none; auto: superpass)
    for f in meta["rtapp"]:
        for mode, policy in (("observe", "none"), ("auto", "superpass")):
            for d in sorted(glob.glob(os.path.join(out, "real", f["name"], f"{mode}-*"))):
                st = load(os.path.join(d, "stats.json"))
                fr, late = 0, 0
                for t in f["critical"]:
                    a, b = rtapp_frames(d, t)
                    fr, late = fr + a, late + b
                s = meta["rtapp_duration_s"]
                row("rt-app " + f["name"], policy, "rt-app")["real"].append(
                    {"max_ns": st.get("blocking_ns", {}).get("max", 0), "blockings_s": st["blockings"] / s,
                     "janky_s": late / s, "frames": fr, "blockings": st["blockings"], "seconds": s})
    # simulated: short runs over seeds (the maxima), one long run (the rates)
    for sc in meta["sims"]:
        for p in sorted(glob.glob(os.path.join(out, "sim", f"{sc['label']}-short-*.json"))):
            for key, r in sim_rows(p, sc["scenario"], rows):
                rows[key]["sim_max_ns"].append(r["max_ns"])
                rows[key].setdefault("sim_short_blockings_s", []).append(r["blockings"] / r["seconds"])
        for key, r in sim_rows(os.path.join(out, "sim", f"{sc['label']}-long.json"), sc["scenario"], rows):
            rows[key].update(
                sim_blockings_s=r["blockings"] / r["seconds"], sim_janky_s=r["janky"] / r["seconds"],
                sim_long_blockings=r["blockings"], sim_long_s=r["seconds"])
    table_rows = []
    for r in rows.values():
        real = r.pop("real")
        r["runs"] = len(real)
        r["real_max_ms"] = spread([x["max_ns"] / 1e6 for x in real])
        r["real_blockings_s"] = spread([x["blockings_s"] for x in real])
        r["real_janky_s"] = spread([x["janky_s"] for x in real])
        r["sim_max_ms"] = spread([x / 1e6 for x in r.pop("sim_max_ns")])
        # the rate over runs as short as the real ones, beside the long run's
        r["sim_short_blockings_s"] = spread(r.get("sim_short_blockings_s") or [])
        table_rows.append(r)
    data = dict(meta, rows=table_rows)
    with open(os.path.join(out, "validate.json"), "w") as f:
        json.dump(data, f, indent=1)
    return data


# --- the table (render.py prints the same) ------------------------------------

def fmt(x, digits=3):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 10 ** digits:
        return f"{x:.0f}"
    d = 0
    while a < 10 ** (digits - 1) and d < 6:
        a *= 10
        d += 1
    return f"{x:.{d}f}"


def cell(s):
    if not s:
        return "-"
    if fmt(s["min"]) == fmt(s["max"]):
        return fmt(s["median"])
    return f"{fmt(s['median'])} ({fmt(s['min'])}-{fmt(s['max'])})"


def ratio(sim, real):
    if sim is None or real is None:
        return None
    if real == 0:
        return None if sim == 0 else float("inf")
    return sim / real


def rcell(x, lo, hi):
    if x is None:
        return "-"
    s = "inf" if x == float("inf") else f"{x:.2f}x"
    return s if lo <= x <= hi else f"**{s} miss**"


def verdict(r):
    """(P99.9 ratio, blockings/s ratio, janky/s ratio, misses)."""
    g = lambda s: s["median"] if s else None
    rp = ratio(g(r.get("sim_max_ms")), g(r.get("real_max_ms")))
    rb = ratio(r.get("sim_blockings_s"), g(r.get("real_blockings_s")))
    rj = ratio(r.get("sim_janky_s"), g(r.get("real_janky_s")))
    miss = []
    if rp is not None and not 1 / P999_RATIO <= rp <= P999_RATIO:
        miss.append("P99.9")
    if rb is not None and not 1 - RATE_TOL <= rb <= 1 + RATE_TOL:
        miss.append("blockings/s")
    return rp, rb, rj, miss


HEAD = ["scenario", "policy", "runs", "real P99.9 ms", "sim P99.9 ms", "ratio",
        "real blockings/s", "sim blockings/s", "ratio", "real janky/s", "sim janky/s", "ratio"]


def table(data):
    """The Markdown table: a header line, the separator, one line a row."""
    out = ["| " + " | ".join(HEAD) + " |", "|---|---|" + "---:|" * (len(HEAD) - 2)]
    for r in data["rows"]:
        rp, rb, rj, _ = verdict(r)
        out.append("| " + " | ".join([
            r["scenario"], r["policy"], str(r["runs"]), cell(r["real_max_ms"]), cell(r["sim_max_ms"]),
            rcell(rp, 1 / P999_RATIO, P999_RATIO), cell(r["real_blockings_s"]),
            fmt(r.get("sim_blockings_s")), rcell(rb, 1 - RATE_TOL, 1 + RATE_TOL),
            cell(r["real_janky_s"]), fmt(r.get("sim_janky_s")),
            "-" if rj is None else ("inf" if rj == float("inf") else f"{rj:.2f}x")]) + " |")
    return out


def misses(data):
    return [(r["scenario"], r["policy"], m) for r in data["rows"] for m in verdict(r)[3]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("plan").add_argument("root")
    v = sub.add_parser("variant")
    v.add_argument("src")
    v.add_argument("dst")
    v.add_argument("--bench", action="store_true")
    v.add_argument("--duration", type=int)
    v.add_argument("--calibration", type=int)
    v.add_argument("--logdir")
    sub.add_parser("summarize").add_argument("out")
    a = ap.parse_args()
    if a.cmd == "plan":
        json.dump(plan(a.root), sys.stdout, indent=1)
        print()
    elif a.cmd == "variant":
        variant(a.src, a.dst, a.bench, a.duration, a.calibration, a.logdir)
    else:
        data = summarize(a.out)
        print("\n".join(table(data)))
        m = misses(data)
        print(f"\n{len(data['rows'])} rows, {len(m)} misses (P99.9 outside {P999_RATIO:g}x, "
              f"blockings/s outside {100 * RATE_TOL:.0f} %)" + "".join(f"\n  {s} {p}: {w}" for s, p, w in m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
