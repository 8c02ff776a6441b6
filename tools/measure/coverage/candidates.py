#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Precision and recall of superpass's fast track against the truth of one
coverage run (examples/coverage).

    candidates.py RECORD ACTUATOR_LOG [--min-overlap-us N]

RECORD is the program's own record ("pid P", "hold TID START END" per hold
of L, "wait TID START END" per ui wait, CLOCK_MONOTONIC ns); ACTUATOR_LOG
is SUPERPASS_LOG's file ("fast_track t=NS pid=P tid=T ... rc=R", "restore
t=NS ...", "overridden t=NS ...", the same clock). A thread is boosted from
its fast_track (rc=0) to its restore or overridden line (or the end of the
run).

- A ui wait is contended when another thread held L during it, for at
  least --min-overlap-us (default 50: a shorter overlap ends before any
  fast track could start); those threads are the wait's holders.
- Recall: the share of contended waits in which every holder was boosted
  at some time while it held L during the wait.
- Precision: of the boost time that fell inside the ui's waits, the share
  that went to a thread then holding L.

Prints one JSON object. Python standard library only (json)."""

import bisect
import json
import sys


def parse_record(path):
    pid, holds, waits = None, {}, []
    with open(path, encoding="ascii") as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "pid":
                pid = int(w[1])
            elif w[0] == "hold":
                holds.setdefault(int(w[1]), []).append((int(w[2]), int(w[3])))
            elif w[0] == "wait":
                waits.append((int(w[1]), int(w[2]), int(w[3])))
    for spans in holds.values():
        spans.sort()
    waits.sort(key=lambda x: x[1])
    return pid, holds, waits


def parse_actuator(path, pid, end_ns):
    boosts, open_at = {}, {}
    with open(path, encoding="ascii") as f:
        for line in f:
            w = line.split()
            if len(w) < 2:
                continue
            kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
            if int(kv.get("pid", -1)) != pid:
                continue
            t, tid = int(kv["t"]), int(kv["tid"])
            if w[0] == "fast_track" and kv.get("rc") == "0":
                open_at.setdefault(tid, t)
            elif w[0] in ("restore", "overridden") and tid in open_at:
                boosts.setdefault(tid, []).append((open_at.pop(tid), t))
    for tid, t in open_at.items():
        boosts.setdefault(tid, []).append((t, max(t, end_ns)))
    for spans in boosts.values():
        spans.sort()
    return boosts


def intersect(a, b):
    """Intersection of two sorted lists of disjoint spans."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def total(spans):
    return sum(e - s for s, e in spans)


def overlapping(spans, ends, s, e):
    """The parts of spans (sorted, disjoint; ends their end times) inside [s, e)."""
    out = []
    k = bisect.bisect_right(ends, s)
    while k < len(spans) and spans[k][0] < e:
        out.append((max(spans[k][0], s), min(spans[k][1], e)))
        k += 1
    return out


def analyse(record, actlog, min_overlap_ns=50000):
    pid, holds, waits = parse_record(record)
    ui = waits[0][0] if waits else None
    end_ns = max([e for sp in holds.values() for _, e in sp] + [e for _, _, e in waits] + [0])
    boosts = parse_actuator(actlog, pid, end_ns)
    ends = {tid: [e for _, e in sp] for tid, sp in holds.items()}
    bends = {tid: [e for _, e in sp] for tid, sp in boosts.items()}
    contended = covered = 0
    for _, ws, we in waits:
        holders = {}
        for tid, spans in holds.items():
            if tid == ui:
                continue
            part = overlapping(spans, ends[tid], ws, we)
            if total(part) >= min_overlap_ns:
                holders[tid] = part
        if not holders:
            continue
        contended += 1
        if all(intersect(part, overlapping(boosts.get(tid, []), bends.get(tid, []),
                                           part[0][0], part[-1][1]))
               for tid, part in holders.items()):
            covered += 1
    wait_spans = [(s, e) for _, s, e in waits]
    boost_in_waits = to_holder = 0
    for tid, spans in boosts.items():
        inside = intersect(spans, wait_spans)
        boost_in_waits += total(inside)
        to_holder += total(intersect(inside, holds.get(tid, [])))
    return {
        "waits": len(waits),
        "contended": contended,
        "covered": covered,
        "recall": covered / contended if contended else None,
        "boost_ms_in_waits": round(boost_in_waits / 1e6, 3),
        "boost_ms_to_holder": round(to_holder / 1e6, 3),
        "precision": to_holder / boost_in_waits if boost_in_waits else None,
        "boosted_threads": sorted(boosts),
    }


def main(argv):
    args, min_us = [], 50
    it = iter(argv[1:])
    for a in it:
        if a == "--min-overlap-us":
            min_us = int(next(it))
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    print(json.dumps(analyse(args[0], args[1], min_us * 1000)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
