#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Turns one measurement's raw outputs into docs/results/NAME.json, with its
stamp (generate.sh runs it; render.py reads what it writes).

  collect.py begin RAW                     before the run: time, /proc/stat
  collect.py end NAME RAW OUT --command C  after it: NAME.json from RAW

RAW is the measurement's scratch directory; each NAME below says which of
its files it reads. The scripts in tools/measure print tables, not JSON, so
their lines are parsed here into numbers; the text itself is kept beside
them ("text"), so a reader can check one against the other.
"""
import argparse
import concurrent.futures
import datetime
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = "superpass-results/1"


def fail(msg):
    print(f"collect.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")


def cpu_ticks():
    """/proc/stat's "cpu" line: (steal, total) in clock ticks, all CPUs."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is in user)
    return {"steal": v[7] if len(v) > 7 else 0, "total": sum(v[:8])}


def begin(raw):
    os.makedirs(raw, exist_ok=True)
    with open(os.path.join(raw, "begin.json"), "w") as f:
        json.dump({"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "t": datetime.datetime.now(datetime.timezone.utc).timestamp(),
                   "ticks": cpu_ticks()}, f)


def commit():
    try:
        p = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                           capture_output=True, text=True, check=True)
        return p.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def stamp(raw, command, note):
    b = load(os.path.join(raw, "begin.json"))
    now = datetime.datetime.now(datetime.timezone.utc)
    t0, t1 = b.get("ticks"), cpu_ticks()
    hz = os.sysconf("SC_CLK_TCK")
    steal_s = share = None
    if t0 and t1:
        steal_s = (t1["steal"] - t0["steal"]) / hz
        dt = t1["total"] - t0["total"]
        share = (t1["steal"] - t0["steal"]) / dt if dt > 0 else 0.0
    return {"command": command, "commit": commit(), "date": b["date"],
            "wall_s": round(now.timestamp() - b["t"], 1), "kernel": os.uname().release,
            "cpus": os.cpu_count(), "steal_s": steal_s, "steal_share": share,
            "note": note or None}


# --- one function per measurement: RAW's files -> the "data" object ---------

def c_bench(raw):
    return {"bench": load(os.path.join(raw, "bench.json")),
            "text": read(os.path.join(raw, "bench.out"))}


def c_bench_readers(raw):
    """readers-R-a.json and readers-R-b.json (two ranges of K): one set per R."""
    sets = {}
    for p in glob.glob(os.path.join(raw, "readers-*-*.json")):
        r = int(re.findall(r"readers-(\d+)-", p)[0])
        b = load(p)
        if r in sets:
            sets[r]["runs"] += b["runs"]
        else:
            sets[r] = b
    if not sets:
        fail(f"{raw}: no readers-R-*.json")
    return {"sets": [{"readers": r, "bench": sets[r]} for r in sorted(sets)]}


def parse_core_table(text):
    """sp_bench_core's Markdown table: operation, threads, CPU ns, min..max, wall ns."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\|\s*(.+?)\s*\|\s*(\d+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\.\.\s*([\d.]+)\s*\|"
                     r"\s*([\d.]+)\s*\|", line)
        if m:
            rows.append({"operation": m.group(1), "threads": int(m.group(2)),
                         "cpu_ns": float(m.group(3)), "cpu_min_ns": float(m.group(4)),
                         "cpu_max_ns": float(m.group(5)), "wall_ns": float(m.group(6))})
    return rows


def c_micro(raw):
    runs = [load(p) for p in sorted(glob.glob(os.path.join(raw, "micro-*.json")),
                                    key=lambda p: int(re.findall(r"(\d+)\.json$", p)[0]))]
    if not runs:
        fail(f"{raw}: no micro-N.json")
    core = None
    p = os.path.join(raw, "core.txt")
    if os.path.exists(p):
        # its first line names the binary by the build directory's path: left out
        t = "".join(l for l in read(p).splitlines(True) if not l.startswith("command:"))
        core = {"rows": parse_core_table(t), "text": t}
    return {"runs": runs, "core": core}


def c_sim_paper(raw):
    files = json.loads(read(os.path.join(raw, "files.json")))
    speed = []
    for p in sorted(glob.glob(os.path.join(raw, "speed-*.txt"))):
        m = re.search(r"([\d.]+) M events/s, (\d+)x real time", read(p))
        if m:
            speed.append({"mevents_per_s": float(m.group(1)), "x_real_time": int(m.group(2))})
    return {"workloads": [{"file": f, "options": o,
                           "sim": load(os.path.join(raw, f"sim-{i}.json")),
                           "text": read(os.path.join(raw, f"sim-{i}.out"))}
                          for i, (f, o) in enumerate(files)],
            "speed": speed,
            "speed_command": read(os.path.join(raw, "speed-command.txt")).strip()}


def c_sweep(raw):
    meta = json.loads(read(os.path.join(raw, "sweep-meta.json")))
    return dict(meta, sim=load(os.path.join(raw, "sweep.json")),
                text=read(os.path.join(raw, "sweep.out")))


def c_sim_real(raw):
    files = json.loads(read(os.path.join(raw, "files.json")))
    return {"bench": load(os.path.join(raw, "bench.json")),
            "bench_stamp": load(os.path.join(raw, "bench-stamp.json")),
            "sims": [{"file": f, "options": o, "sim": load(os.path.join(raw, f"sim-{i}.json"))}
                     for i, (f, o) in enumerate(files)]}


def c_sim_validate(raw):
    return {"validate": load(os.path.join(raw, "v", "validate.json")),
            "text": read(os.path.join(raw, "validate.out"))}


def parse_validation(text):
    rows = []
    for line in text.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) != 6 or not c[0].isdigit():
            continue
        nums = lambda s: [float(x) for x in s.split("/")]
        (bb, tb), (bp, tp), (bm, tm) = nums(c[1]), nums(c[2]), nums(c[3])
        hn, hd = (int(x) for x in c[5].split("/"))
        rows.append({"tid": int(c[0]), "bench_blockings": int(bb), "trace_blockings": int(tb),
                     "bench_p999_ms": bp, "trace_p999_ms": tp, "bench_max_ms": bm,
                     "trace_max_ms": tm, "worst_diff_pct": float(c[4].rstrip(" %")),
                     "holder_named": hn, "holder_of": hd})
    return rows


def c_analyze(raw):
    v = os.path.join(raw, "v")
    return {"bench": load(os.path.join(v, "bench.json")),
            "analyze": load(os.path.join(v, "analyze.json")),
            "validation": parse_validation(read(os.path.join(v, "validation.md"))),
            "text": read(os.path.join(v, "analyze.txt")).replace("v/bench.trace", "bench.trace"),
            "trace_bytes": os.path.getsize(os.path.join(v, "bench.trace"))}


SPT = re.compile(r"^SPT (\S+) (\S+) (SPW|SPW_STATS) (\S+) (.*)$")


def parse_spt(text):
    """The guest's figures: {scenario: {mode: {key: value}}}, module stats,
    and the probe-cost loop's runs."""
    runs, stats, pcost = {}, {}, []
    for line in text.splitlines():
        m = SPT.match(line)
        if m:
            sc, mode, kind, k, v = m.groups()
            try:
                v = float(v)
            except ValueError:
                pass
            if kind == "SPW":
                runs.setdefault(sc, {}).setdefault(mode, {})[k] = v
            else:
                stats.setdefault(sc, {})[k] = v
            continue
        f = line.split()
        # SPT pcost MODE KIND iters N ns N contended N
        if len(f) >= 10 and f[:2] == ["SPT", "pcost"] and f[4] == "iters":
            pcost.append({"mode": f[2], "kind": f[3], "iters": int(f[5]), "ns": int(f[7]),
                          "contended": int(f[9])})
    return {"runs": runs, "stats": stats, "pcost": pcost}


def c_kmod_qemu(raw):
    boots = []
    for d in sorted(glob.glob(os.path.join(raw, "boot-*"))):
        meta = json.loads(read(os.path.join(d, "meta.json")))
        out = read(os.path.join(d, "out.txt"))
        spt = os.path.join(d, "work", "spt.txt")
        b = dict(meta, passed=out.rstrip().endswith("PASS"),
                 figures=out[out.find("== figures"):] if "== figures" in out else "")
        b.update(parse_spt(read(spt)) if os.path.exists(spt) else {"runs": {}, "stats": {}, "pcost": []})
        boots.append(b)
    if not any(b["runs"] for b in boots):
        fail(f"{raw}: no boot finished (see boot-*/out.txt)")
    replay = []
    p = os.path.join(raw, "replay.tsv")
    if os.path.exists(p):
        lines = [l.split("\t") for l in read(p).splitlines() if l.strip()]
        for f in lines[1:]:
            r = dict(zip(lines[0], f))
            for k, v in r.items():
                for conv in (int, float):
                    try:
                        r[k] = conv(v)
                        break
                    except ValueError:
                        pass
            r["dir"] = os.path.basename(os.path.dirname(str(r.get("dir", "")).rstrip("/")))
            replay.append(r)
    return {"boots": boots, "replay": replay}


def prediction_module():
    path = os.path.join(ROOT, "tools", "measure", "replay", "prediction-table.py")
    sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
    spec = importlib.util.spec_from_file_location("prediction_table", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def c_replay(raw):
    """The recorded set replayed through prediction-table.py's own functions
    (the same replays and summaries it prints), kept as numbers."""
    pt = prediction_module()
    meta = json.loads(read(os.path.join(raw, "replay-meta.json")))
    sp, runs = meta["superpass"], meta["runs"]
    out = {"runs_per_policy": runs, "steal_ms": 50.0, "scenarios": []}
    tmp = os.path.join(raw, "replays")
    os.makedirs(tmp, exist_ok=True)
    for sc, kargs in pt.SCENARIOS:
        # as prediction-table.py does: the traces' replays side by side
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as ex:
            futs = [ex.submit(pt.one, sp, os.path.join(raw, "set"), sc, kargs, i, runs, tmp)
                    for i in range(1, 100)]
            rows = [r for r in (f.result() for f in futs) if r]
        if not rows:
            continue
        ok, n, lines = pt.summary(rows, out["steal_ms"])
        out["scenarios"].append({"scenario": sc, "rows": rows, "within_20pct": ok, "n": n,
                                 "summary": lines})
    if not out["scenarios"]:
        fail(f"{raw}/set: no recorded pairs")
    return out


def c_parse(raw):
    text = read(os.path.join(raw, "parse.txt"))
    rows = []
    num = lambda s: None if s in ("-", "") or s.startswith(">") else float(s)
    for line in text.splitlines():
        f = line.split()
        if len(f) == 8 and f[0] in ("tasks", "events"):
            rows.append({"series": f[0], "n": int(f[1]), "bytes": int(f[2]),
                         "wall_s": num(f[3]), "killed": f[3].startswith(">"),
                         "wall_ratio": num(f[4]), "cpu_s": num(f[5]), "cpu_ratio": num(f[6]),
                         "rss_mib": num(f[7])})
    if not rows:
        fail(f"{raw}/parse.txt: no rows")
    return {"rows": rows, "text": text}


def c_trace_speed(raw):
    text = read(os.path.join(raw, "speed.txt"))
    times = {}
    for key, label in (("wc", "wc -l:"), ("analyze", "analyze:")):
        m = re.search(r"^" + re.escape(label) + r"\s+([\d. ]+)s$", text, re.M)
        if not m:
            fail(f"{raw}/speed.txt: no '{label}' times")
        times[key] = [float(x) for x in m.group(1).split()]
    m = re.search(r"\((\d+) bytes, (\d+) events\)", text)
    return {"wc_s": times["wc"], "analyze_s": times["analyze"],
            "bytes": int(m.group(1)) if m else None, "events": int(m.group(2)) if m else None,
            "source_trace_bytes": json.loads(read(os.path.join(raw, "meta.json")))["source_bytes"],
            "text": text}


def c_coverage(raw):
    """coverage-table.sh's --json (rows and note) as it is."""
    try:
        with open(os.path.join(raw, "coverage.json"), encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{raw}/coverage.json: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list) or not doc["rows"]:
        fail(f"{raw}/coverage.json: no rows")
    return {"rows": doc["rows"], "note": doc.get("note", "")}


COLLECT = {"coverage": c_coverage, "bench": c_bench, "bench-readers": c_bench_readers, "micro": c_micro, "sim-paper": c_sim_paper, "sweep": c_sweep,
           "sim-real": c_sim_real, "sim-validate": c_sim_validate, "analyze": c_analyze, "kmod-qemu": c_kmod_qemu,
           "replay": c_replay, "parse": c_parse, "trace-speed": c_trace_speed}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("begin")
    b.add_argument("raw")
    e = sub.add_parser("end")
    e.add_argument("name", choices=sorted(COLLECT))
    e.add_argument("raw")
    e.add_argument("out")
    e.add_argument("--command", required=True)
    e.add_argument("--note", default="")
    a = ap.parse_args()
    if a.cmd == "begin":
        begin(a.raw)
        return
    doc = {"schema": SCHEMA, "name": a.name, "stamp": stamp(a.raw, a.command, a.note),
           "data": COLLECT[a.name](a.raw)}
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
