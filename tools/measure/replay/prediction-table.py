#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The What-if replay's self-check and prediction tables
(docs/results/replay.md) from sets that record-set.sh recorded.

For each set and scenario (mutex; rwlock), every `none` trace is replayed
under none and superpass (`superpass replay TRACE --critical sp-ui -p
none,superpass --k K --runs R --json ...`, K the measured run's: 4 unless
record-set.sh was given another). The self-check compares the trace's
own figures ("trace" in --json) with the median of the `none`
runs; the prediction is the superpass record (its run of median P99.9),
compared with the superpass-preload run recorded beside the trace. A
measured run that the host stole more than --steal-ms of CPU from
(steal_s in its --json) is marked and left out of the second prediction
line: a virtual CPU taken away for tens of ms stalls a fast-tracked holder,
which no replay has. A measurement, not a test: nothing is asserted.

usage: prediction-table.py SUPERPASS DIR [DIR...] [--runs R] [--steal-ms M]
"""
import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile

SCENARIOS = (("mutex", []), ("rwlock", ["--k", "4"]))
FIG = ("blockings", "p999_ns", "janky")


def replay(sp, trace, runs, kargs, out):
    cmd = [sp, "replay", trace, "--critical", "sp-ui", "-p", "none,superpass",
           "--runs", str(runs), "-q", "--json", out] + (kargs or ["--k", "4"])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    with open(out) as f:
        return json.load(f)


def one(sp, d, sc, kargs, i, runs, tmp):
    trace = os.path.join(d, f"none-{sc}-{i}.trace")
    meas = os.path.join(d, f"superpass-preload-{sc}-{i}.json")
    none_json = os.path.join(d, f"none-{sc}-{i}.json")
    if not (os.path.exists(trace) and os.path.exists(meas)):
        return None
    with open(meas) as f:
        m = json.load(f)["runs"][0]
    # the measured run's reader bound, if it had one: the prediction's
    if m.get("k"):
        kargs = ["--k", str(m["k"])]
    js = replay(sp, trace, runs, kargs, os.path.join(tmp, f"{os.path.basename(d)}-{sc}-{i}.json"))
    rec = {r["policy"]: r for r in js["runs"]}
    rr = rec["none"]["replay_runs"]
    steal_none = None
    if os.path.exists(none_json):
        with open(none_json) as f:
            steal_none = json.load(f)["runs"][0].get("steal_s")
    sp_rec = rec["superpass"]
    return {
        "i": i, "trace": js["trace"],
        "none": {k: statistics.median(rr[k]) for k in ("blockings", "p50_ns", "p999_ns", "janky")},
        "none_lo": {k: min(rr[k]) for k in ("blockings", "p999_ns", "janky")},
        "none_hi": {k: max(rr[k]) for k in ("blockings", "p999_ns", "janky")},
        "pred": sp_rec, "meas": m, "steal": m.get("steal_s"), "steal_none": steal_none,
    }


def within(got, want, tol=0.2):
    return abs(got - want) <= tol * want if want else got == 0


def ms(ns):
    return ns / 1e6


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def summary(rows, steal_ms):
    n = len(rows)
    ok = {k: sum(within(r["none"][k], r["trace"][k]) for r in rows) for k in FIG}
    inside = {k: sum(r["none_lo"][k] <= r["trace"][k] <= r["none_hi"][k] for r in rows)
              for k in FIG}
    lines = [
        f"self-check within 20 %: blockings {ok['blockings']}/{n}, P99.9 {ok['p999_ns']}/{n}, "
        f"janky {ok['janky']}/{n}; the trace inside its runs' range: "
        f"{inside['blockings']}, {inside['p999_ns']}, {inside['janky']}",
        f"  medians, trace against replay: blockings {med([r['trace']['blockings'] for r in rows]):.1f} / "
        f"{med([r['none']['blockings'] for r in rows]):.1f}, P50 "
        f"{ms(med([r['trace']['p50_ns'] for r in rows])):.2f} / "
        f"{ms(med([r['none']['p50_ns'] for r in rows])):.2f} ms, P99.9 "
        f"{ms(med([r['trace']['p999_ns'] for r in rows])):.2f} / "
        f"{ms(med([r['none']['p999_ns'] for r in rows])):.2f} ms, janky "
        f"{med([r['trace']['janky'] for r in rows]):.0f} / {med([r['none']['janky'] for r in rows]):.0f}",
    ]
    # The same comparison between two recordings of the same workload: how
    # close a second trace comes to the first, the floor of any replay's
    # self-check (the bench is one draw of a chaotic system).
    pairs = [(a, b) for a in rows for b in rows if a is not b]
    if pairs:
        agree = {k: 100.0 * sum(within(b["trace"][k], a["trace"][k]) for a, b in pairs) / len(pairs)
                 for k in FIG}
        lines.append(
            f"  a second recording against the first, all {len(pairs)} ordered pairs of these traces, "
            f"within 20 %: blockings {agree['blockings']:.0f} %, P99.9 {agree['p999_ns']:.0f} %, "
            f"janky {agree['janky']:.0f} % (the replay: {100.0 * ok['blockings'] / n:.0f}, "
            f"{100.0 * ok['p999_ns'] / n:.0f}, {100.0 * ok['janky'] / n:.0f} %)")
    calm = [r for r in rows if r["steal"] is not None and r["steal"] * 1e3 < steal_ms]
    for what, rs in (("all measured runs", rows), (f"runs with steal < {steal_ms:g} ms", calm)):
        if not rs:
            lines.append(f"  prediction, {what}: none")
            continue
        pm = med([ms(r["pred"]["p999_ns"]) for r in rs])
        mm = med([ms(r["meas"]["p999_ns"]) for r in rs])
        w2 = sum(0.5 <= r["pred"]["p999_ns"] / r["meas"]["p999_ns"] <= 2 for r in rs
                 if r["meas"]["p999_ns"])
        lines.append(
            f"  prediction, {what} ({len(rs)}): P99.9 {pm:.2f} predicted against {mm:.2f} "
            f"measured ({pm / mm:.2f}x), {w2} of {len(rs)} runs within 2x; P50 "
            f"{med([ms(r['pred']['p50_ns']) for r in rs]):.2f} / "
            f"{med([ms(r['meas']['p50_ns']) for r in rs]):.2f} ms; blockings "
            f"{med([r['pred']['blockings'] for r in rs]):.0f} / "
            f"{med([r['meas']['blockings'] for r in rs]):.0f}; janky "
            f"{med([r['pred']['janky'] for r in rs]):.0f} / {med([r['meas']['janky'] for r in rs]):.0f}")
    return ok, n, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("superpass")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--steal-ms", type=float, default=50.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    total_ok = total = 0
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for d in a.dirs:
            for sc, kargs in SCENARIOS:
                futs = [ex.submit(one, a.superpass, d, sc, kargs, i, a.runs, tmp)
                        for i in range(1, 100)]
                rows = [r for r in (f.result() for f in futs) if r]
                if not rows:
                    print(f"{d}: no {sc} pairs", file=sys.stderr)
                    continue
                ks = sorted({r["meas"].get("k", 0) for r in rows})
                print(f"\n== {d} {sc}: {len(rows)} traces, {a.runs} runs a policy"
                      + (f", K = {'/'.join(str(k) for k in ks)}" if any(ks) else ""))
                print("  i | blockings trace/replay | P99.9 ms trace/replay | janky trace/replay "
                      "| P99.9 ms predicted/measured | steal ms (none, preload)")
                for r in rows:
                    t, n_, p, m = r["trace"], r["none"], r["pred"], r["meas"]
                    flag = lambda k: "" if within(n_[k], t[k]) else " (!)"
                    sn = "-" if r["steal_none"] is None else f"{r['steal_none'] * 1e3:.0f}"
                    ss = "-" if r["steal"] is None else f"{r['steal'] * 1e3:.0f}"
                    print(f" {r['i']:2d} | {t['blockings']:4d} / {n_['blockings']:4.0f}{flag('blockings'):4s} "
                          f"| {ms(t['p999_ns']):8.2f} / {ms(n_['p999_ns']):8.2f}{flag('p999_ns'):4s} "
                          f"| {t['janky']:4d} / {n_['janky']:4.0f}{flag('janky'):4s} "
                          f"| {ms(p['p999_ns']):7.2f} / {ms(m['p999_ns']):7.2f} | {sn}, {ss}")
                ok, n, lines = summary(rows, a.steal_ms)
                total_ok += sum(ok.values())
                total += 3 * n
                print("\n".join(lines))
    print(f"\nself-check within 20 %, all sets: {total_ok} of {total} figures")


if __name__ == "__main__":
    main()
