#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# docs/results/render.py on the committed fixtures: the tables it writes
# hold the fixtures' rows and medians (read back from the Markdown), the
# pictures are well-formed SVG (and render, where rsvg-convert is), and a
# malformed or incomplete results file is refused with exit 2 and a
# message naming the file and what was wrong.
#   check-render.sh PYTHON3
set -eu
py=$1
here=$(cd "$(dirname "$0")" && pwd)
render=$here/../../docs/results/render.py
. "$here/../cli-lib.sh"

cp "$here/fixtures/bench.json" "$here/fixtures/sweep.json" "$here/fixtures/coverage.json" "$tmp/"
cli_expect_rc 0 "render.py on the fixtures" "$py" "$render" "$tmp/bench.json" "$tmp/sweep.json" \
	"$tmp/coverage.json"

# The Markdown read back: every table row as a list of cells, by heading.
"$py" - "$tmp" <<'EOF' || fail=1
import os, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
bad = 0

def tables(path):
    """{section heading: [rows]} of the Markdown tables, rows as cell lists."""
    out, sec = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#"):
            sec = line.lstrip("# ")
        elif line.startswith("|") and not line.startswith("|---"):
            out.setdefault(sec, []).append([c.strip() for c in line.strip("|").split("|")])
    return out

def check(what, got, want):
    global bad
    if got == want:
        print(f"ok: {what}: {got!r}")
    else:
        print(f"FAIL: {what}: {got!r}, want {want!r}")
        bad = 1

md = open(os.path.join(tmp, "bench.md")).read()
check("stamp: commit line", "- commit: `fixture`" in md, True)
check("stamp: steal line", "- host steal during the run (/proc/stat): 0.50 s, 1.00 % of all CPU time" in md, True)
check("stamp: note", "**note: test fixture**" in md, True)
check("a line on P99.9 over few samples", "P99.9 over fewer than 1000 blockings is the largest" in md, True)
t = tables(os.path.join(tmp, "bench.md"))
check("bench sections", sorted(k for k in t if k in ("mutex", "rwlock")), ["mutex", "rwlock"])
head, *rows = t["mutex"]
col = {h: i for i, h in enumerate(head)}
by = {r[0]: r for r in rows}
check("mutex rows", sorted(by), ["none", "superpass"])
check("none: runs", by["none"][col["runs"]], "3")
check("none: P99.9 median (min-max)", by["none"][col["P99.9 ms"]], "120 (100-300)")
check("none: blockings median (min-max)", by["none"][col["blockings"]], "11 (10-16)")
check("none: janky", by["none"][col["janky frames"]], "151 (150-152) of 240")
check("none: steal ms summed over its runs", by["none"][col["steal ms"]], "30")
check("superpass: P99.9", by["superpass"][col["P99.9 ms"]], "0.500 (0.400-0.600)")
check("superpass: boost_us", by["superpass"][col["boost_us P50 / P99"]], "20.0 / 40.0")
check("rwlock row named with its K", [r[0] for r in t["rwlock"][1:]], ["superpass K=8"])

t = tables(os.path.join(tmp, "sweep.md"))
(head, *rows), = [v for k, v in t.items()]
check("sweep columns", head, ["holders", "none", "superpass K=1", "superpass K=2"])
check("sweep rows", [r[0] for r in rows], ["1", "2"])
check("sweep cell: P99.9 (blockings)", rows[1][2], "75.0 (190)")

t = tables(os.path.join(tmp, "coverage.md"))
(head, *rows), = [v for k, v in t.items()]
col = {h: i for i, h in enumerate(head)}
by = {r[0]: r for r in rows}
check("coverage rows", sorted(by), ["GLib GMutex", "Go sync.Mutex"])
g = by["GLib GMutex"]
check("coverage: cut", g[col["cut"]], "99 %")
check("coverage: whole run medians", g[col["whole run, plain -> superpass"]], "280 -> 110 ms")
check("coverage: precision (median of the runs)", g[col["precision"]], "85 %")

for name in ("bench", "sweep"):
    try:
        root = ET.parse(os.path.join(tmp, name + ".svg")).getroot()
        check(f"{name}.svg is SVG", root.tag, "{http://www.w3.org/2000/svg}svg")
    except (OSError, ET.ParseError) as e:
        check(f"{name}.svg parses", str(e), "")
svg = open(os.path.join(tmp, "sweep.svg")).read()
check("sweep.svg: log axis said", "(log scale)" in svg, True)
check("sweep.svg: every series in the legend", all(s in svg for s in ("none", "superpass K=1", "superpass K=2")), True)
sys.exit(bad)
EOF

if command -v rsvg-convert >/dev/null; then
	for f in bench sweep; do
		cli_expect_rc 0 "rsvg-convert renders $f.svg" rsvg-convert "$tmp/$f.svg" -o "$tmp/$f.png"
	done
fi

# Malformed JSON: refused, naming the file and the error.
cp "$here/fixtures/malformed.json" "$tmp/malformed.json"
cli_expect_rc 2 "malformed JSON" "$py" "$render" "$tmp/malformed.json"
cli_expect_err "$tmp/malformed.json: not valid JSON" "malformed JSON named" || true
[ ! -e "$tmp/malformed.md" ] || cli_fail "malformed JSON: a Markdown file was written"

# Valid JSON, not a results file; a results file with a key missing.
echo '[1, 2]' >"$tmp/list.json"
cli_expect_rc 2 "JSON that is not a results file" "$py" "$render" "$tmp/list.json"
cli_expect_err "not a results file" "not a results file named" || true
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1])); del d["data"]["bench"]["runs"]
json.dump(d, open(sys.argv[2], "w"))' "$here/fixtures/bench.json" "$tmp/noruns.json"
cli_expect_rc 2 "a results file without its runs" "$py" "$render" "$tmp/noruns.json"
cli_expect_err "noruns.json: not a valid bench results file: missing key 'runs'" "the missing key named" || true

# One bad file does not stop the others: bench.json is still rendered.
rm -f "$tmp/bench.md"
cli_expect_rc 2 "a bad file among good ones" "$py" "$render" "$tmp/malformed.json" "$tmp/bench.json"
[ -s "$tmp/bench.md" ] || cli_fail "bench.md not written beside a bad file"

exit $fail
