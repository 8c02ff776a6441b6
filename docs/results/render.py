#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Renders docs/results/NAME.md (and NAME.svg where there is a picture)
from NAME.json alone, as collect.py wrote it: rendering again needs no
rerun of the measurement.

  render.py FILE.json...      writes each FILE.md (and FILE.svg) beside it
  render.py --dir DIR         every DIR/*.json that is a results file

Exit status: 0, or 2 when a file is not valid JSON or not a results file
(the message names the file and what was wrong).
"""
import argparse
import glob
import importlib.util
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

SCHEMA = "superpass-results/1"
FEW = ("P99.9 over fewer than 1000 blockings is the largest of them (the nearest rank of "
       "0.999 n is n; the bench's is the bound of the histogram bucket it falls in): one "
       "event of the run, not the tail of a distribution, and it moves from run to run with "
       "whatever else the machine did.")


class Bad(Exception):
    pass


# --- numbers -----------------------------------------------------------------

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def num(x, digits=3):
    """x with `digits` significant figures, plain notation."""
    if x is None:
        return "-"
    if isinstance(x, float) and math.isnan(x):
        return "-"
    if x == 0:
        return "0"
    if isinstance(x, int):
        return str(x)
    a = abs(x)
    if a >= 10 ** digits:
        return f"{x:.0f}"
    d = max(0, digits - 1 - int(math.floor(math.log10(a))))
    return f"{x:.{d}f}"


def mmm(xs, f=num):
    """median (min-max) of xs, or the value alone when they agree."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    if f is num and all(isinstance(x, int) for x in xs):
        f = count  # counts: whole, and a median between two of them ends in .5
    m, lo, hi = med(xs), min(xs), max(xs)
    if len(xs) == 1 or f(lo) == f(hi):
        return f(m)
    return f"{f(m)} ({f(lo)}-{f(hi)})"


def count(x):
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def ms(ns):
    return None if ns is None else ns / 1e6


def pct(x):
    return "-" if x is None else f"{100 * x:.0f} %"


def mmm_pct(xs):
    """mmm of shares, in percent: "97 (80-100) %"."""
    s = mmm(xs, lambda v: f"{100 * v:.0f}")
    return s if s == "-" else s + " %"


def table(head, rows, align=None):
    align = align or ["l"] + ["r"] * (len(head) - 1)
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --- the stamp ---------------------------------------------------------------

def stamp_md(title, st):
    steal = "unknown"
    if st.get("steal_s") is not None:
        steal = f"{st['steal_s']:.2f} s, {100 * (st.get('steal_share') or 0):.2f} % of all CPU time"
    lines = [f"# {title}", "",
             f"- command: `{st['command']}`",
             f"- commit: `{st['commit']}`",
             f"- date (UTC): {st['date']}, {st.get('wall_s', '?')} s of wall time",
             f"- kernel: {st['kernel']}, {st['cpus']} CPUs",
             f"- host steal during the run (/proc/stat): {steal}"]
    if st.get("note"):
        lines.append(f"- **note: {st['note']}**")
    return "\n".join(lines) + "\n"


# --- pictures ----------------------------------------------------------------

W, FONT = 720, 'font-family="sans-serif" font-size="12"'
DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4"]
COLORS = ["#444444", "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]
MARKS = ["circle", "square", "triangle", "diamond", "cross", "circle", "square", "triangle"]


def log_ticks(lo, hi):
    """Decade ticks covering [lo, hi]."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if a == b:
        b += 1
    return [10 ** e for e in range(a, b + 1)]


def tick_label(v):
    return f"{v:g}" if v >= 0.001 else f"{v:.0e}"


def svg_hbars(title, groups, xlabel, caption="bar: median; whisker: min-max over the runs; log scale"):
    """Horizontal bars on a log axis: groups of (label, median, lo, hi)."""
    vals = [v for _, rows in groups for r in rows for v in r[1:] if v]
    if not vals:
        return None
    ticks = log_ticks(min(vals), max(vals))
    lo, hi = math.log10(ticks[0]), math.log10(ticks[-1])
    left, right, top, bar = 230, 30, 46, 16
    n = sum(len(r) + 1 for _, r in groups)
    h = top + n * (bar + 4) + 60
    x = lambda v: left + (math.log10(v) - lo) / (hi - lo) * (W - left - right)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" {FONT}>',
         f'<rect width="{W}" height="{h}" fill="white"/>',
         f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{esc(title)}</text>']
    ybot = h - 46
    for t in ticks:
        s.append(f'<line x1="{x(t):.1f}" y1="{top - 6}" x2="{x(t):.1f}" y2="{ybot}" stroke="#ddd"/>')
        s.append(f'<text x="{x(t):.1f}" y="{ybot + 16}" text-anchor="middle">{tick_label(t)}</text>')
    s.append(f'<line x1="{left}" y1="{ybot}" x2="{W - right}" y2="{ybot}" stroke="black"/>')
    s.append(f'<text x="{(left + W - right) / 2}" y="{h - 10}" text-anchor="middle">{esc(xlabel)}</text>')
    y = top
    for gi, (g, rows) in enumerate(groups):
        s.append(f'<text x="8" y="{y + 12}" font-weight="bold">{esc(g)}</text>')
        y += bar + 4
        for label, m, a, b in rows:
            s.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">{esc(label)}</text>')
            if m:
                s.append(f'<rect x="{left}" y="{y}" width="{max(1.0, x(m) - left):.1f}" height="{bar}" '
                         f'fill="{COLORS[1] if "superpass" in label else COLORS[0]}" opacity="0.75"/>')
            if a and b and a != b:
                s.append(f'<line x1="{x(a):.1f}" y1="{y + bar / 2}" x2="{x(b):.1f}" y2="{y + bar / 2}" stroke="black"/>')
                for v in (a, b):
                    s.append(f'<line x1="{x(v):.1f}" y1="{y + 3}" x2="{x(v):.1f}" y2="{y + bar - 3}" stroke="black"/>')
            y += bar + 4
    s.append(f'<text x="{W - right}" y="{top - 14}" text-anchor="end" fill="#555">{esc(caption)}</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def marker(kind, cx, cy, color):
    r = 4
    if kind == "square":
        return f'<rect x="{cx - r}" y="{cy - r}" width="{2 * r}" height="{2 * r}" fill="{color}"/>'
    if kind == "triangle":
        return f'<polygon points="{cx},{cy - r - 1} {cx - r - 1},{cy + r} {cx + r + 1},{cy + r}" fill="{color}"/>'
    if kind == "diamond":
        return f'<polygon points="{cx},{cy - r - 1} {cx + r + 1},{cy} {cx},{cy + r + 1} {cx - r - 1},{cy}" fill="{color}"/>'
    if kind == "cross":
        return (f'<path d="M{cx - r},{cy - r}L{cx + r},{cy + r}M{cx - r},{cy + r}L{cx + r},{cy - r}" '
                f'stroke="{color}" stroke-width="2"/>')
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{color}"/>'


def svg_lines(title, xs, series, xlabel, ylabel, logx=True):
    """Lines with markers and dashes on a log y axis (log x if asked);
    series: (name, [y or None per x]). A series equal to an earlier one is
    drawn and its legend entry says so."""
    vals = [v for _, ys in series for v in ys if v]
    if not vals:
        return None
    yt = log_ticks(min(vals), max(vals))
    left, right, top, bottom = 70, 170, 40, 56
    h = 380
    pw, ph = W - left - right, h - top - bottom
    if logx:
        xl, xh = math.log10(min(xs)), math.log10(max(xs))
        fx = lambda v: left + ((math.log10(v) - xl) / (xh - xl) if xh > xl else 0.5) * pw
    else:
        xl, xh = min(xs), max(xs)
        fx = lambda v: left + ((v - xl) / (xh - xl) if xh > xl else 0.5) * pw
    yl, yh = math.log10(yt[0]), math.log10(yt[-1])
    fy = lambda v: top + ph - (math.log10(v) - yl) / (yh - yl) * ph
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" {FONT}>',
         f'<rect width="{W}" height="{h}" fill="white"/>',
         f'<text x="{left + pw / 2}" y="20" text-anchor="middle" font-size="14">{esc(title)}</text>']
    for t in yt:
        s.append(f'<line x1="{left}" y1="{fy(t):.1f}" x2="{left + pw}" y2="{fy(t):.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{left - 6}" y="{fy(t) + 4:.1f}" text-anchor="end">{tick_label(t)}</text>')
    for v in xs:
        s.append(f'<line x1="{fx(v):.1f}" y1="{top + ph}" x2="{fx(v):.1f}" y2="{top + ph + 5}" stroke="black"/>')
        s.append(f'<text x="{fx(v):.1f}" y="{top + ph + 18}" text-anchor="middle">{v:g}</text>')
    s.append(f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
    s.append(f'<text x="{left + pw / 2}" y="{h - 12}" text-anchor="middle">{esc(xlabel)}</text>')
    s.append(f'<text transform="translate(16 {top + ph / 2}) rotate(-90)" text-anchor="middle">'
             f'{esc(ylabel)} (log scale)</text>')
    seen = []
    for i, (name, ys) in enumerate(series):
        color, dash, mk = COLORS[i % len(COLORS)], DASHES[i % len(DASHES)], MARKS[i % len(MARKS)]
        same = next((n for n, y in seen if y == ys), None)
        seen.append((name, ys))
        pts = [(fx(x), fy(y)) for x, y in zip(xs, ys) if y]
        if len(pts) > 1:
            d = " ".join(f"{'M' if j == 0 else 'L'}{px:.1f},{py:.1f}" for j, (px, py) in enumerate(pts))
            s.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="2"'
                     + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        for px, py in pts:
            s.append(marker(mk, round(px, 1), round(py, 1), color))
        ly = top + 10 + i * 20
        lx = left + pw + 12
        s.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 26}" y2="{ly}" stroke="{color}" stroke-width="2"'
                 + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        s.append(marker(mk, lx + 13, ly, color))
        s.append(f'<text x="{lx + 32}" y="{ly + 4}">{esc(name)}{esc(f" (= {same})") if same else ""}</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


# --- one renderer per measurement: data -> (markdown body, svg or None) ------

def row_name(r):
    return r["policy"] + (f" K={r['k']}" if r.get("k") and "superpass" in r["policy"] else "")


def group_runs(runs):
    """Rows in first-seen order, each the list of its runs (the repeats)."""
    rows = {}
    for r in runs:
        if r.get("skipped"):
            continue
        rows.setdefault((r["scenario"], row_name(r)), []).append(r)
    return rows


def r_bench(d, st):
    b = d["bench"]
    o = b["options"]
    rows = group_runs(b["runs"])
    cpus = st.get("cpus") or 2
    out = [f"`superpass bench --json FILE` at its defaults: {o['duration_s']:g} s per run, "
           f"{o['repeat']} runs of every row (policies alternating), {o['hogs']} hogs, "
           f"{o['holders']} holders, {o['readers']} readers, {o['cs_us']} us sections. Each cell: "
           "the median over the runs, min-max in brackets.", ""]
    groups = []
    for sc in dict.fromkeys(k[0] for k in rows):
        out.append(f"## {sc}\n")
        t, g = [], []
        for (s, name), rs in rows.items():
            if s != sc:
                continue
            p999 = [ms(r["p999_ns"]) for r in rs]
            hw = [r["holder_wait_ns"] / r["blocked_ns"] if r.get("blocked_ns") else None for r in rs]
            boost = "-"
            if any(r.get("boosts_measured") for r in rs):
                boost = f"{num(med([r['boost_p50_ns'] / 1e3 for r in rs]))} / {num(med([r['boost_p99_ns'] / 1e3 for r in rs]))}"
            rt = [r["rt_cpu_s"] / (r["seconds"] * cpus) if r.get("seconds") else None for r in rs]
            t.append([name, len(rs), mmm([r["blockings"] for r in rs]), mmm([ms(r["p50_ns"]) for r in rs]),
                      mmm(p999), mmm([ms(r["max_ns"]) for r in rs]),
                      f"{mmm([r['janky'] for r in rs])} of {count(med([r['frames'] for r in rs]))}",
                      mmm_pct(hw), boost,
                      "-" if not any(rt) else f"{100 * med(rt):.2f} %",
                      f"{1e3 * sum(r.get('steal_s') or 0 for r in rs):.0f}"])
            g.append((name, med(p999), min(p999), max(p999)))
        out.append(table(["row", "runs", "blockings", "P50 ms", "P99.9 ms", "max ms", "janky frames",
                          "h_wait", "boost_us P50 / P99", "rt_cpu", "steal ms"], t))
        out.append("")
        groups.append((sc, g))
    nb = [r["blockings"] for r in b["runs"] if not r.get("skipped")]
    out += ["blockings: the critical thread's waits from lock request to acquisition; janky: frames "
            "whose work ended after the 8.33 ms deadline; h_wait: share of the blocking time the "
            "holders spent runnable, waiting for a CPU; boost_us: from the critical wait to a holder "
            "running in SCHED_FIFO (medians of the runs' P50 and P99); rt_cpu: the runtime's worker "
            "thread's CPU time as a share of all CPUs; steal ms: the hypervisor's steal time during "
            "the row's runs, summed.", "",
            f"Runs had {min(nb) if nb else 0}-{max(nb) if nb else 0} blockings each. {FEW}", ""]
    svg = svg_hbars("superpass bench: P99.9 blocking of the critical thread", groups,
                    "P99.9 blocking, ms (log scale)")
    return "\n".join(out), svg


def r_bench_readers(d, st):
    sets = d["sets"]
    o = sets[0]["bench"]["options"]
    ks = sorted({r["k"] for s in sets for r in s["bench"]["runs"]})
    out = [f"`superpass bench -q -s rwlock -p superpass --readers R --k LIST -d {o['duration_s']:g} "
           f"-r {o['repeat']} --json FILE`, K = {', '.join(map(str, ks))} (two invocations), for R = "
           f"{', '.join(str(s['readers']) for s in sets)}: the critical writer's P99.9 blocking (ms) "
           "against the reader tracker's bound K and the number of concurrent readers; median "
           "(min-max) over the runs.", ""]
    t, series = [], []
    for s in sets:
        by = {}
        for r in s["bench"]["runs"]:
            if not r.get("skipped"):
                by.setdefault(r["k"], []).append(r)
        bl = [r["blockings"] for rs in by.values() for r in rs]
        t.append([s["readers"]] + [mmm([ms(r["p999_ns"]) for r in by.get(k, [])]) for k in ks]
                 + [f"{min(bl)}-{max(bl)}" if bl else "-"])
        series.append((f"{s['readers']} readers", [med([ms(r["p999_ns"]) for r in by.get(k, [])]) for k in ks]))
    out += [table(["readers"] + [f"K={k}" for k in ks] + ["blockings a run"], t), "",
            f"K at least the number of readers tracks every reader that holds the lock. {FEW}", ""]
    svg = svg_lines("superpass bench rwlock: P99.9 against K", ks, series,
                    "reader-tracker bound K", "P99.9 blocking, ms (median of the runs)")
    return "\n".join(out), svg


def r_micro(d, st):
    runs = d["runs"]
    out = [f"`superpass bench micro --json FILE`, {len(runs)} runs one after the other; each run "
           f"times every loop in {runs[0]['rounds']} interleaved rounds of {runs[0]['iters']} "
           "lock+unlock pairs and keeps its best round (thread CPU time). Cells: median (min-max) "
           "over the runs; the ratio is against glibc timed in the same process.", ""]
    for key, title in (("loops", "Uncontended lock+unlock, one thread"),
                       ("interposer", "Under the interposer (the runtime live)")):
        if any(r.get(key) is None for r in runs):
            out += [f"## {title}", "", "Not measured: the interposer was not found.", ""]
            continue
        names = [x["name"] for x in runs[0][key]]
        t = [[n, mmm([r[key][i]["ns"] for r in runs]), mmm([r[key][i]["vs_glibc"] for r in runs],
                                                           lambda v: f"{v:.2f}x")]
             for i, n in enumerate(names)]
        out += [f"## {title}", "", table(["lock", "ns per pair", "vs glibc"], t), ""]
    if d.get("core"):
        t = [[r["operation"], r["threads"], num(r["cpu_ns"]),
              f"{num(r['cpu_min_ns'])}-{num(r['cpu_max_ns'])}", num(r["wall_ns"])]
             for r in d["core"]["rows"]]
        out += ["## The core's event paths", "",
                "`sp_bench_core` (tools/measure/core, built with the tests): ns per pair of events, "
                "median of its 5 runs, thread CPU time; the actuator does nothing.", "",
                table(["operation", "threads", "CPU ns", "min-max", "wall ns"], t), ""]
    return "\n".join(out), None


def merge_identical(rows, key):
    """Consecutive rows with the same figures become one, names joined."""
    out = []
    for name, r in rows:
        if out and key(out[-1][1]) == key(r):
            out[-1] = (out[-1][0] + ", " + name, out[-1][1])
        else:
            out.append((name, r))
    return out


def sim_rows(runs):
    return merge_identical([(row_name(r), r) for r in runs],
                           lambda r: (r["blockings"], r["p50_ns"], r["p999_ns"], r["janky"]))


def r_sim_paper(d, st):
    out = ["`superpass sim FILE -q --json OUT` on the example workloads. The simulator is "
           "deterministic: one run per row, and the same command gives the same figures on any "
           "machine. Policies with the same figures share a row.", ""]
    for w in d["workloads"]:
        runs = w["sim"]["runs"]
        dur = runs[0].get("seconds") if runs else None
        out += [f"## {w['file']}", "", f"`superpass sim {w['file']} -q {w['options']}`"
                + (f" ({num(dur)} simulated s per row, {runs[0].get('cpus', '?')} CPUs)" if dur else ""), ""]
        t = []
        for name, r in sim_rows(runs):
            t.append([name, r["blockings"], num(ms(r["p50_ns"])), num(ms(r["p999_ns"])), r["janky"],
                      pct(r["holder_wait_ns"] / r["blocked_ns"] if r.get("blocked_ns") else None)])
        out += [table(["policy", "blockings", "P50 ms", "P99.9 ms", "janky", "h_wait"], t), ""]
    nb = [r["blockings"] for w in d["workloads"] for r in w["sim"]["runs"]]
    out += ["h_wait: share of the critical thread's blocking time its blockers spent runnable, "
            "waiting for a CPU (under none: the paper's first insight).", ""]
    if nb and min(nb) < 1000:
        out += [f"Some rows have under 1000 blockings ({min(nb)}). {FEW}", ""]
    if d.get("speed"):
        sp = d["speed"]
        out += ["## Speed", "", f"`{d['speed_command']}`, {len(sp)} runs: "
                f"{mmm([x['mevents_per_s'] for x in sp])} M simulated events/s, "
                f"{mmm([x['x_real_time'] for x in sp], lambda v: f'{v:.0f}')}x real time "
                "(wall time: the machine's load moves it).", ""]
    return "\n".join(out), None


def r_sweep(d, st):
    runs, vals, ks = d["sim"]["runs"], d["values"], d["ks"]
    per = len(runs) // len(vals) if vals else 0
    if not per or per * len(vals) != len(runs):
        raise Bad(f"data.sim.runs: {len(runs)} runs do not split into {len(vals)} values")
    cols = [row_name(r) for r in runs[:per]]
    grid = [runs[i * per:(i + 1) * per] for i in range(len(vals))]
    t = [[v] + [f"{num(ms(r['p999_ns']))} ({r['blockings']})" for r in g] for v, g in zip(vals, grid)]
    out = [f"`superpass sim {d['file']} -q {d['options']} --json OUT`: P99.9 blocking (ms) of "
           f"the critical writer against the number of concurrent readers ({d['param']}) and the "
           "reader tracker's bound K; blockings in brackets. Deterministic: one run per cell.", "",
           table([d["param"]] + cols, t), "",
           "With K at least the number of readers every reader holding the lock is fast-tracked; "
           f"below it the untracked readers wait for a CPU as under none. {FEW}", "",
           "The picture `superpass sim --svg` draws of the same sweep is sweep-sim.svg.", ""]
    series = [(c, [ms(g[i]["p999_ns"]) for g in grid]) for i, c in enumerate(cols)]
    svg = svg_lines(f"superpass sim {os.path.basename(d['file'])}: P99.9 blocking against readers",
                    vals, series, f"concurrent readers ({d['param']})", "P99.9 blocking, ms")
    return "\n".join(out), svg


def r_sim_real(d, st):
    bench = d["bench"]
    brows = group_runs(bench["runs"])
    sims = {}
    for s in d["sims"]:
        for r in s["sim"]["runs"]:
            sims[(r["scenario"], row_name(r))] = r
            # a bench row without K (mutex, chain) meets the simulator's one K
            sims.setdefault((r["scenario"], r["policy"]), r)
    bs = d["bench_stamp"]
    out = [f"The bench's runs (bench.json: {bs['date']}, commit `{bs['commit']}`) next to the "
           "simulator on the same workloads at the bench's defaults, duration and K. Bench cells: "
           "median (min-max) over its runs; the simulator is deterministic (one run a row):", ""]
    out += [f"- `superpass sim {s['file']} -q {s['options']}`" for s in d["sims"]] + [""]
    t = []
    for (sc, name), rs in brows.items():
        s = sims.get((sc, name))
        t.append([sc, name, mmm([ms(r["p999_ns"]) for r in rs]), mmm([r["janky"] for r in rs]),
                  mmm([r["blockings"] for r in rs]),
                  num(ms(s["p999_ns"])) if s else "-", s["janky"] if s else "-",
                  s["blockings"] if s else "-"])
    out += [table(["scenario", "policy", "bench P99.9 ms", "bench janky", "bench blockings",
                   "sim P99.9 ms", "sim janky", "sim blockings"], t, ["l", "l"] + ["r"] * 6), "",
            "`-`: the simulator has no such policy (superpass-preload is the bench's interposed "
            f"run of the none workload). {FEW}", ""]
    return "\n".join(out), None


def validate_module():
    """tools/measure/sim/validate.py: the table validate.sh prints."""
    path = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "measure", "sim", "validate.py")
    sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
    spec = importlib.util.spec_from_file_location("sp_validate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def r_sim_validate(d, st):
    v = validate_module()
    data = d["validate"]
    c = data["commands"]
    out = [f"`tools/measure/sim/validate.sh BUILD OUT` (`--runs {data['runs']}`): each scenario on "
           f"this kernel, {data['runs']} runs a row, and in the simulator. Real P99.9: the median of "
           "the runs' maxima (min-max); every run has under 1000 blockings, so its P99.9 is its "
           f"maximum. Simulated P99.9: the same statistic, the maximum of a run as long as a real "
           f"one, over {data['seeds']} seeds (median, min-max). Simulated rates: one run of "
           f"{data['long_s']:g} s. Ratios: simulated over real; a miss is a P99.9 outside "
           f"{v.P999_RATIO:g}x or blockings per second outside {100 * v.RATE_TOL:.0f} %.", "",
           f"- real, bench ({data['bench_duration_s']:g} s runs): `{c['bench']}`",
           f"- real, rt-app ({data['rtapp_duration_s']:g} s runs, calibration "
           f"{data['rtapp_calibration_ns']} ns per loop): `{c['rtapp']}`; frames and late frames "
           "(slack < 0) from rt-app's log of the critical task, blockings and the longest wait "
           "from the runtime's statistics; `--mode observe` is the plain scheduler with the waits "
           "counted",
           f"- simulated: `{c['sim_short']}` and `{c['sim_long']}`; the bench's rows run "
           "the file with the bench's frame loop (vsync: every period a frame, every missed "
           "deadline a janky one)", ""]
    out += v.table(data) + [""]
    m = v.misses(data)
    out.append(f"{len(data['rows'])} rows, {len(m)} misses" + (":" if m else "."))
    out += [f"- {s} {p}: {w}" for s, p, w in m]
    out.append("")
    if data.get("not_rtapp"):
        out += ["Files of examples/workloads not run on rt-app (rt-app reads sp_* keys as "
                "nothing):", ""]
        out += [f"- {x['file']}: {x['why']}" for x in data["not_rtapp"]] + [""]
    return "\n".join(out), None


def r_analyze(d, st):
    a, b = d["analyze"], d["bench"]
    runs = [r for r in b["runs"] if not r.get("skipped")]
    threads = sorted(a["threads"], key=lambda t: t["tid"])
    names = {t["tid"]: f"{r['scenario']} {row_name(r)}" for t, r in zip(threads, runs)} \
        if len(threads) == len(runs) else {}
    tr = a["trace"]
    opts = b["options"]
    out = ["`tools/measure/trace/validate-bench.sh`: `superpass bench -s mutex,rwlock,chain -p none "
           f"-d {opts['duration_s']:g} -r 1` recorded under `superpass record` (with "
           "SUPERPASS_BENCH_TRACE=1: the bench logs each blocking), then `superpass analyze TRACE "
           "--critical sp-ui --json --svg --csv`. The trace: "
           f"{d['trace_bytes'] / 1e6:.1f} MB, {tr['events']} events, {tr['waits']} lock waits.", "",
           "## What the trace says", ""]
    t, bars = [], []
    for th in threads:
        bl = sorted(th.get("blockers", []), key=lambda x: -x["blocking_ns"])
        tot = {k: sum(x.get(k + "_ns", 0) for x in bl) for k in ("running", "runnable", "sleeping", "blocked")}
        s = sum(tot.values())
        who = ", ".join(f"{x['comm']} {x['runnable_ns'] / x['blocking_ns'] * 100:.0f} % runnable"
                        for x in bl[:2] if x["blocking_ns"])
        t.append([names.get(th["tid"], th["comm"]), th["tid"], th["blockings"], num(ms(th["p50_ns"])),
                  num(ms(th["p999_ns"])), num(ms(th["max_ns"])), pct(th.get("runnable_share")), who or "-"])
        bars.append((names.get(th["tid"], f"tid {th['tid']}"), {k: v / s if s else 0 for k, v in tot.items()}))
    out += [table(["run", "tid", "blockings", "P50 ms", "P99.9 ms", "max ms", "blockers runnable",
                   "main blockers"], t, ["l"] + ["r"] * 6 + ["l"]), "",
            "blockers runnable: share of the blocking time the threads that held the lock spent "
            f"runnable but not running. {FEW}", ""]
    if d.get("validation"):
        v = d["validation"]
        t = [[names.get(r["tid"], r["tid"]), f"{r['bench_blockings']} / {r['trace_blockings']}",
              f"{r['bench_p999_ms']:.2f} / {r['trace_p999_ms']:.2f}",
              f"{r['bench_max_ms']:.2f} / {r['trace_max_ms']:.2f}", f"{r['worst_diff_pct']:.2f} %",
              f"{r['holder_named']} / {r['holder_of']}"] for r in v]
        out += ["## Against the bench's own measurement", "",
                "Blockings over 1 ms, the bench's log against the trace's analysis of the same run:", "",
                table(["run", "blockings", "P99.9 ms", "max ms", "worst single difference",
                       "bench's holder among the named blockers"], t), ""]
    text = d.get("text", "").splitlines()
    out += ["## The output", "", "`superpass analyze TRACE --critical sp-ui`" +
            (f" (first 40 of {len(text)} lines)" if len(text) > 40 else "") + ":", "", "```",
            *text[:40], "```", "",
            "The picture `superpass analyze --svg` draws of the same trace is analyze-tool.svg.", ""]
    return "\n".join(out), svg_split(bars)


def svg_split(bars):
    """Stacked bars: how the blockers spent the critical thread's blocking time."""
    if not bars:
        return None
    keys = [("runnable", "#d62728"), ("running", "#2ca02c"), ("sleeping", "#1f77b4"), ("blocked", "#9467bd")]
    left, right, top, bar = 200, 30, 60, 22
    h = top + len(bars) * (bar + 10) + 50
    pw = W - left - right
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" {FONT}>',
         f'<rect width="{W}" height="{h}" fill="white"/>',
         f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">'
         'superpass analyze: what the lock holders did while the critical thread waited</text>']
    for i, (k, c) in enumerate(keys):
        s.append(f'<rect x="{left + i * 110}" y="32" width="12" height="12" fill="{c}"/>')
        s.append(f'<text x="{left + i * 110 + 16}" y="42">{k}</text>')
    y = top
    for name, sh in bars:
        s.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{esc(name)}</text>')
        x = left
        for k, c in keys:
            w = sh.get(k, 0) * pw
            if w > 0:
                s.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar}" fill="{c}"/>')
            x += w
        y += bar + 10
    for p in range(0, 101, 25):
        xx = left + p / 100 * pw
        s.append(f'<line x1="{xx:.1f}" y1="{y}" x2="{xx:.1f}" y2="{y + 5}" stroke="black"/>')
        s.append(f'<text x="{xx:.1f}" y="{y + 18}" text-anchor="middle">{p} %</text>')
    s.append(f'<text x="{left + pw / 2}" y="{h - 8}" text-anchor="middle">share of the blocking time</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def probe_cost(pc):
    """Per kind and mode, over the runs that contended on (nearly) every
    acquisition (contended >= 1.8 x iters), the fastest ns per contended
    acquisition, as run-qemu-test.sh prints it."""
    res = {}
    for kind in ("mutex", "rwsem"):
        for mode in ("base", "idle", "marked"):
            v = sorted(r["ns"] / r["contended"] for r in pc
                       if r["kind"] == kind and r["mode"] == mode and r["contended"] >= 1.8 * r["iters"])
            n = sum(1 for r in pc if r["kind"] == kind and r["mode"] == mode)
            res[(kind, mode)] = (v[0] if v else None, len(v), n)
    return res


def r_kmod_qemu(d, st):
    out = ["`tests/kmod/run-qemu-test.sh --kernel SERIES --seconds S` for each kernel, both boots at "
           "once as CI runs them (TCG, one host thread each, 2 vCPUs). The critical thread's "
           "operations (`pwrite`, `write`, `mmap`+`munmap` with their wait): base without the "
           "module, idle with it loaded and nothing marked, module with the critical thread marked.", ""]
    groups = []
    for b in d["boots"]:
        out += [f"## Linux {b['kernel_series']}" + ("" if b.get("passed") else " (the test did not pass: see its output)"), ""]
        t, g = [], []
        for sc, modes in b["runs"].items():
            if sc == "micro" or "base" not in modes:
                continue
            base, mod = modes.get("base", {}), modes.get("module", {})
            cell = lambda m: (f"{num(m.get('p999_us', 0) / 1e3)} / {num(m.get('max_us', 0) / 1e3)} "
                              f"({m.get('ops', 0):.0f})") if m else "-"
            ch = "-"
            if base.get("p999_us") and mod.get("p999_us") is not None:
                ch = f"{100 * (mod['p999_us'] / base['p999_us'] - 1):+.1f} %"
            stt = b["stats"].get(sc, {})
            t.append([sc, cell(base), cell(modes.get("idle", {})), cell(mod), ch,
                      f"{stt.get('grants', 0):.0f} / {stt.get('expiries', 0):.0f} / {stt.get('throttles', 0):.0f}"])
            g += [(f"{sc} base", base.get("p999_us", 0) / 1e3 or None, None, None),
                  (f"{sc} superpass.ko", mod.get("p999_us", 0) / 1e3 or None, None, None)]
        out += [table(["scenario", "base P99.9 / max ms (ops)", "idle", "module", "P99.9 vs base",
                       "grants / expiries / throttles"], t), ""]
        pc = probe_cost(b.get("pcost", []))
        if b.get("pcost"):
            t = []
            for kind in ("mutex", "rwsem"):
                base = pc[(kind, "base")][0]
                cells = []
                for mode in ("base", "idle", "marked"):
                    v, c, n = pc[(kind, mode)]
                    if v is None:
                        cells.append(f"n/a (0 of {n} runs)")
                    elif mode == "base" or not base:
                        cells.append(f"{v / 1e3:.1f} us ({c} of {n} runs)")
                    else:
                        cells.append(f"{v / 1e3:.1f} us, {(v - base) / 1e3:+.1f} ({c} of {n})")
                t.append([kind] + cells)
            out += ["Probe cost per contended acquisition (tools/measure/kmod/sp_probe_cost.c: two "
                    "kthreads on one CPU; the fastest of the runs that contended on at least 90 % of "
                    "the acquisitions):", "",
                    table(["lock", "base", "idle (loaded, nothing marked)", "marked (both critical)"], t), ""]
        groups.append((f"Linux {b['kernel_series']}", g))
    if d.get("replay"):
        t = [[r["kernel"], r["scenario"], f"{num(r['trace_blk'])} / {num(r['trace_p999'])}",
              f"{num(r['none_blk'])} / {num(r['none_p999'])}", f"{num(r['sp_blk'])} / {num(r['sp_p999'])}",
              f"{num(r['module_blk'])} / {num(r['module_blk_p999'])}", num(r["module_op_p999"]),
              f"{r['sp_over_module_op_p999']:.2f}"] for r in d["replay"]]
        out += ["## The base runs, replayed", "",
                "Each boot also ran every scenario's base run again under `superpass record` "
                "(`--record-base`), and `tests/kmod/replay-qemu.sh` replayed those traces "
                "(`superpass replay TRACE --critical sp-crit -p none,superpass`): the self-check is "
                "the none replay against its trace, the prediction the superpass replay against the "
                "module run of the same boot. Blockings: sp-crit's waits for a lock (what the replay "
                "and the module count); ms.", "",
                table(["kernel", "scenario", "trace: blockings / P99.9", "none replay",
                       "superpass replay", "module: blockings / P99.9", "module operation P99.9",
                       "predicted / module operation P99.9"], t, ["l", "l"] + ["r"] * 6), ""]
    out += [f"A run has a few hundred to about 1400 operations, a base run often fewer than 200: {FEW}",
            "Under TCG the guest's CPU is the emulator's: sections, slices and the module's worker "
            "run at its pace.", ""]
    return "\n".join(out), svg_hbars("superpass.ko under QEMU: P99.9 of the critical operations",
                                     groups, "P99.9, ms (log scale)", "one boot per kernel; log scale")


def r_replay(d, st):
    out = [f"`tools/measure/replay/record-set.sh SUPERPASS DIR N K` recorded N pairs of the bench's "
           "mutex and rwlock scenarios (a `none` run and a `superpass-preload` run of 5 s each, both "
           "traced); every `none` trace was then replayed by `prediction-table.py`'s own functions "
           f"(`superpass replay TRACE --critical sp-ui -p none,superpass --runs "
           f"{d['runs_per_policy']} --json`).", "",
           "**Self-check**: the trace's figures against the median of its replay's `none` runs "
           "(within 20 %); beside it, how often a second recording of the same workload comes within "
           "20 % of the first (the floor of any replay). **Prediction**: the superpass replay's run "
           "of median P99.9 against the superpass-preload run recorded beside the trace.", ""]
    t, p = [], []
    for s in d["scenarios"]:
        rows, n = s["rows"], s["n"]
        ok = s["within_20pct"]
        pairs = [(a, b) for a in rows for b in rows if a is not b]

        def agree(k):
            if not pairs:
                return "-"
            w = sum(abs(b["trace"][k] - a["trace"][k]) <= 0.2 * a["trace"][k] if a["trace"][k]
                    else b["trace"][k] == 0 for a, b in pairs)
            return f"{100 * w / len(pairs):.0f} %"
        t.append([s["scenario"], n, f"{ok['blockings']} / {ok['p999_ns']} / {ok['janky']}",
                  f"{agree('blockings')} / {agree('p999_ns')} / {agree('janky')}",
                  f"{num(med([r['trace']['blockings'] for r in rows]))} / {num(med([r['none']['blockings'] for r in rows]))}",
                  f"{num(ms(med([r['trace']['p50_ns'] for r in rows])))} / {num(ms(med([r['none']['p50_ns'] for r in rows])))}"])
        for what, rs in (("all", rows), (f"steal < {d['steal_ms']:g} ms",
                                         [r for r in rows if r.get("steal") is not None and r["steal"] * 1e3 < d["steal_ms"]])):
            if not rs:
                p.append([s["scenario"], what, 0, "-", "-", "-"])
                continue
            w2 = sum(0.5 <= r["pred"]["p999_ns"] / r["meas"]["p999_ns"] <= 2 for r in rs if r["meas"]["p999_ns"])
            p.append([s["scenario"], what, len(rs), mmm([ms(r["pred"]["p999_ns"]) for r in rs]),
                      mmm([ms(r["meas"]["p999_ns"]) for r in rs]), f"{w2} of {len(rs)}"])
    out += ["## Self-check", "",
            table(["scenario", "traces", "within 20 %: blockings / P99.9 / janky",
                   "a second recording within 20 %", "blockings, trace / replay (medians)",
                   "P50 ms, trace / replay"], t), "",
            "## Prediction", "",
            table(["scenario", "measured runs", "n", "P99.9 ms predicted", "P99.9 ms measured",
                   "within 2x"], p, ["l", "l", "r", "r", "r", "r"]), "",
            f"A measured run whose host stole {d['steal_ms']:g} ms or more of CPU is left out of the "
            "second line: a virtual CPU taken away stalls a fast-tracked holder, which no replay has. "
            f"Runs have 20-260 blockings: {FEW}", "", "## prediction-table.py's summaries", "", "```"]
    for s in d["scenarios"]:
        out += [f"{s['scenario']}:"] + s["summary"]
    out += ["```", ""]
    pts = [(ms(r["meas"]["p999_ns"]), ms(r["pred"]["p999_ns"]), s["scenario"])
           for s in d["scenarios"] for r in s["rows"] if r["meas"]["p999_ns"] and r["pred"]["p999_ns"]]
    return "\n".join(out), None if not pts else svg_scatter(pts)


def svg_scatter(pts):
    vals = [v for a, b, _ in pts for v in (a, b)]
    t = log_ticks(min(vals), max(vals))
    lo, hi = math.log10(t[0]), math.log10(t[-1])
    left, top, size = 80, 40, 420
    h = top + size + 60
    f = lambda v: (math.log10(v) - lo) / (hi - lo) * size
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" {FONT}>',
         f'<rect width="{W}" height="{h}" fill="white"/>',
         f'<text x="{left + size / 2}" y="20" text-anchor="middle" font-size="14">'
         'superpass replay: predicted against measured P99.9</text>']
    for v in t:
        s.append(f'<line x1="{left + f(v):.1f}" y1="{top}" x2="{left + f(v):.1f}" y2="{top + size}" stroke="#ddd"/>')
        s.append(f'<line x1="{left}" y1="{top + size - f(v):.1f}" x2="{left + size}" y2="{top + size - f(v):.1f}" stroke="#ddd"/>')
        s.append(f'<text x="{left + f(v):.1f}" y="{top + size + 16}" text-anchor="middle">{tick_label(v)}</text>')
        s.append(f'<text x="{left - 6}" y="{top + size - f(v) + 4:.1f}" text-anchor="end">{tick_label(v)}</text>')
    s.append(f'<line x1="{left}" y1="{top + size}" x2="{left + size}" y2="{top}" stroke="#888" stroke-dasharray="4 3"/>')
    s.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="black"/>')
    kinds = sorted({k for _, _, k in pts})
    for a, b, k in pts:
        i = kinds.index(k)
        s.append(marker(MARKS[i], round(left + f(a), 1), round(top + size - f(b), 1), COLORS[i + 1]))
    for i, k in enumerate(kinds):
        s.append(marker(MARKS[i], left + size + 30, top + 10 + 20 * i, COLORS[i + 1]))
        s.append(f'<text x="{left + size + 42}" y="{top + 14 + 20 * i}">{esc(k)}</text>')
    s.append(f'<text x="{left + size + 30}" y="{top + 14 + 20 * len(kinds)}" fill="#555">dashed: equal</text>')
    s.append(f'<text x="{left + size / 2}" y="{h - 14}" text-anchor="middle">measured P99.9, ms (log scale)</text>')
    s.append(f'<text transform="translate(20 {top + size / 2}) rotate(-90)" text-anchor="middle">'
             'predicted P99.9, ms (log scale)</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def r_parse(d, st):
    rows = d["rows"]
    t = [[r["series"], r["n"], r["bytes"], ">" + "limit" if r["killed"] else num(r["wall_s"]),
          num(r["wall_ratio"]), num(r["cpu_s"]), num(r["cpu_ratio"]), num(r["rss_mib"])] for r in rows]
    out = ["`tools/measure/sim/parse-bench.sh SUPERPASS RUNS MAX_N LIMIT`: `superpass sim FILE --check` "
           "on generated workloads of N tasks (each locking a mutex of its own) and of N events in one "
           "task. Times are the medians of the script's runs; x/10x is the ratio to the size ten times "
           "smaller (a linear parser gives about 10).", "",
           table(["series", "N", "bytes", "wall s", "x/10x", "CPU s", "x/10x", "peak RSS MiB"], t), ""]
    xs = sorted({r["n"] for r in rows})
    series = [(s, [next((r["wall_s"] for r in rows if r["series"] == s and r["n"] == x), None) for x in xs])
              for s in ("tasks", "events")]
    return "\n".join(out), svg_lines("superpass sim --check: parse time against workload size", xs,
                                     series, "N (tasks, or events in one task)", "wall time, s")


def r_coverage(d, st):
    def longest(xs):
        return "-" if not any(x is not None for x in xs) else mmm(xs) + " ms"

    t = []
    for r in d["rows"]:
        t.append([r["implementation"], r["through"], r["seen"],
                  longest(r["plain_ms"]) + " -> " + longest(r["superpass_ms"]),
                  "-" if r["cut_pct"] is None else f"{r['cut_pct']:.0f} %",
                  num(r.get("plain_all_median_ms")) + " -> " + num(r.get("superpass_all_median_ms")) + " ms",
                  pct(r["precision"]), pct(r["recall"])])
    out = ["`tools/measure/coverage/coverage-table.sh --json FILE BUILD 3 8`: each program of "
           "examples/coverage (a nice -10 `ui` thread in a 120 Hz frame loop taking lock L twice a "
           "frame, two nice 19 `bg` threads holding L for 0.5-1.5 ms of CPU, four nice 0 hogs) 3 times "
           "plain and 3 times under `superpass run -c ui`, alternating, 8 s each. The ui's longest wait "
           "for L is taken after a 1 s warm-up, in every row and mode alike: superpass learns a futex "
           "word's candidate holders from its first wakes, so the word's first contended wait finds "
           "none (tools/measure/coverage/steady-longest.py). The whole run's longest, that first wait "
           "included, is beside it (medians). Precision and recall of the fast track against the "
           "program's own record of who held L (candidates.py): recall, the share of contended ui "
           "waits whose holder was fast-tracked while it held L; precision, the share of the "
           "fast-track time inside the ui's waits that went to the thread then holding L.", "",
           table(["implementation", "the wait goes through", "superpass sees it",
                  "ui longest wait after warm-up, plain -> superpass (median, min-max)", "cut",
                  "whole run, plain -> superpass", "precision", "recall"], t,
                 ["l", "l", "l", "r", "r", "r", "r", "r"]), ""]
    if d.get("note"):
        out += [f"({d['note']})", ""]
    return "\n".join(out), None


def r_trace_speed(d, st):
    w, a = d["wc_s"], d["analyze_s"]
    ratio = med(a) / med(w) if med(w) else None
    out = ["`tools/measure/trace/speed-bench.sh SUPERPASS TRACE RUNS`: `wc -l` and `superpass analyze "
           "TRACE --critical sp-ui -q` in turn on one large text trace, page cache warm. The trace: "
           f"the bench's mutex run under `none`, recorded ({d['source_trace_bytes'] / 1e6:.1f} MB), "
           "repeated by `tools/measure/trace/make-big-trace.sh` with time running forward.", "",
           table(["", "runs", "s, median (min-max)"], [["wc -l", len(w), mmm(w)], ["superpass analyze", len(a), mmm(a)]]),
           ""]
    if d.get("bytes") and med(a):
        out += [f"analyze: {num(ratio)}x `wc -l`; {d['bytes'] / med(a) / 1e6:.0f} MB/s and "
                f"{(d.get('events') or 0) / med(a) / 1e6:.2f} M events/s ({d['bytes']} bytes, "
                f"{d.get('events')} events).", ""]
    return "\n".join(out), None


TITLES = {"bench": ("superpass bench: the headline benchmark", r_bench),
          "bench-readers": ("superpass bench: the rwlock against K and readers", r_bench_readers),
          "micro": ("superpass bench micro: uncontended lock costs", r_micro),
          "sim-paper": ("superpass sim: the paper's scenarios offline", r_sim_paper),
          "sweep": ("superpass sim --sweep: P99.9 against readers and K", r_sweep),
          "sim-real": ("superpass sim against the real kernel", r_sim_real),
          "sim-validate": ("superpass sim validated against this kernel", r_sim_validate),
          "analyze": ("superpass record and analyze: the bench's trace", r_analyze),
          "kmod-qemu": ("superpass.ko under QEMU", r_kmod_qemu),
          "replay": ("superpass replay: self-check and prediction", r_replay),
          "parse": ("superpass sim: workload parse time", r_parse),
          "trace-speed": ("superpass analyze: trace reading speed", r_trace_speed),
          "coverage": ("superpass run: the lock implementations it sees", r_coverage)}


def render(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise Bad(f"cannot read: {e.strerror}")
    except ValueError as e:
        raise Bad(f"not valid JSON: {e}")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise Bad(f"not a results file (no \"schema\": \"{SCHEMA}\")")
    name = doc.get("name")
    if name not in TITLES:
        raise Bad(f"unknown measurement {name!r} (known: {', '.join(sorted(TITLES))})")
    title, fn = TITLES[name]
    try:
        body, svg = fn(doc["data"], doc["stamp"])
        head = stamp_md(title, doc["stamp"])
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError) as e:
        what = f"missing key {e}" if isinstance(e, KeyError) else f"{type(e).__name__}: {e}"
        raise Bad(f"not a valid {name} results file: {what}")
    base = os.path.splitext(path)[0]
    pic = ""
    if svg:
        with open(base + ".svg", "w") as f:
            f.write(svg)
        pic = f"![{title}]({os.path.basename(base)}.svg)\n\n"
    with open(base + ".md", "w") as f:
        f.write(head + "\n" + pic + body.rstrip() + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--dir")
    a = ap.parse_args()
    files = list(a.files)
    if a.dir:
        for p in sorted(glob.glob(os.path.join(a.dir, "*.json"))):
            try:
                with open(p) as f:
                    if json.load(f).get("schema") == SCHEMA:
                        files.append(p)
            except (OSError, ValueError, AttributeError):
                pass
    if not files:
        ap.error("no results file given")
    rc = 0
    for p in files:
        try:
            render(p)
        except Bad as e:
            print(f"render.py: {p}: {e}", file=sys.stderr)
            rc = 2
    return rc


if __name__ == "__main__":
    sys.exit(main())
