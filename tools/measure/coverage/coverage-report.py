#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The coverage table from coverage-table.sh's runs (one JSON object per
run and mode). Prints a Markdown table; --json FILE also writes the rows.

    coverage-report.py RUNS.jsonl [--json FILE] [--note TEXT]

Per row: superpass sees it when blockings > 0 in its runs under superpass
("partly" when in some); for a row the build lists as not seen (its lock
goes past the interposer), blockings > 0 are waits for the language
runtime's own pthread locks (the JVM's, CPython's GIL mutex), not for L,
and the column says so; the ui's longest wait plain and under superpass
as median (min-max) over the runs; the cut is 1 - median(superpass) /
median(plain); precision and recall (candidates.py) as medians over the
runs, for the rows that report them. Standard library only."""

import json
import statistics
import sys


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    m = med(xs)
    fmt = (lambda v: f"{v:.0f}") if m >= 100 else (lambda v: f"{v:.1f}")
    if len(xs) == 1:
        return f"{fmt(m)} ms"
    return f"{fmt(m)} ({fmt(min(xs))}-{fmt(max(xs))}) ms"


def rows_of(runs):
    order, rows = [], {}
    for r in runs:
        key = (r["host"], r["id"])
        if key not in rows:
            order.append(key)
            rows[key] = {"id": r["id"], "impl": r["impl"], "through": r["through"],
                         "host": r["host"], "pr": r["pr"], "expect": r.get("expect", "seen"), "plain": [], "superpass": [],
                         "plain_all": [], "superpass_all": [],
                         "blockings": [], "precision": [], "recall": []}
        row = rows[key]
        row[r["mode"]].append(r["longest_ms"])
        row[r["mode"] + "_all"].append(r.get("longest_all_ms"))
        if r["mode"] != "plain":
            row["blockings"].append(r["blockings"])
            c = r.get("candidates") or {}
            row["precision"].append(c.get("precision"))
            row["recall"].append(c.get("recall"))
    out = []
    for key in order:
        row = rows[key]
        seen = sum(1 for b in row["blockings"] if b > 0)
        n = len(row["blockings"])
        pm, sm = med(row["plain"]), med(row["superpass"])
        if n and seen == n:
            said = "yes"
        elif seen == 0:
            said = "no"
        else:
            said = f"partly ({seen}/{n} runs)"
        if row["expect"] != "seen" and seen:
            said = f"no: only the runtime's own pthread locks ({said})"
        out.append({
            "id": row["id"], "implementation": row["impl"], "through": row["through"],
            "host": row["host"],
            "seen": said,
            "blockings_median": med(row["blockings"]),
            "plain_ms": row["plain"], "superpass_ms": row["superpass"],
            "plain_median_ms": pm, "superpass_median_ms": sm,
            # the whole run's longest, the warm-up's first waits included
            "plain_all_ms": row["plain_all"], "superpass_all_ms": row["superpass_all"],
            "plain_all_median_ms": med(row["plain_all"]),
            "superpass_all_median_ms": med(row["superpass_all"]),
            "cut_pct": round(100.0 * (1 - sm / pm), 1) if pm and sm is not None else None,
            "precision": med(row["precision"]) if row["pr"] else None,
            "recall": med(row["recall"]) if row["pr"] else None,
            "precision_runs": row["precision"] if row["pr"] else None,
            "recall_runs": row["recall"] if row["pr"] else None,
        })
    return out


def pct(v):
    return "-" if v is None else f"{100 * v:.0f} %"


def main(argv):
    path, json_out, note = None, None, ""
    it = iter(argv[1:])
    for a in it:
        if a == "--json":
            json_out = next(it)
        elif a == "--note":
            note = next(it)
        else:
            path = a
    if not path:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(path, encoding="utf-8") as f:
        runs = [json.loads(line) for line in f if line.strip()]
    rows = rows_of(runs)
    print("| implementation | what the wait goes through | superpass sees it (blockings>0) "
          "| ui longest wait, plain -> superpass (median, min-max) | cut "
          "| candidate precision | recall |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        host = "" if r["host"] == "run" else f" ({r['host']})"
        cut = "-" if r["cut_pct"] is None else f"{r['cut_pct']:.0f} %"
        print(f"| {r['implementation']}{host} | {r['through']} | {r['seen']} "
              f"| {spread(r['plain_ms'])} -> {spread(r['superpass_ms'])} | {cut} "
              f"| {pct(r['precision'])} | {pct(r['recall'])} |")
    if note:
        print(f"\n({note})")
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump({"note": note, "rows": rows}, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
