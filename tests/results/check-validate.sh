#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# tools/measure/sim/validate.sh's table without measuring: a made-up
# output directory (bench runs, rt-app logs and runtime statistics,
# simulator runs) through validate.py summarize, then collect.py and
# render.py as generate.sh's sim-validate stage runs them. The cells are
# the runs' medians and min-max, the ratios simulated over real, and a
# ratio outside 2x (P99.9) or 30 % (blockings/s) is marked a miss.
#   check-validate.sh PYTHON3
set -eu
py=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
. "$here/../cli-lib.sh"

raw=$tmp/raw
mkdir -p "$raw/v"
"$py" - "$raw/v" <<'EOF'
import json, os, sys
out = sys.argv[1]
def put(path, obj):
    os.makedirs(os.path.dirname(os.path.join(out, path)), exist_ok=True)
    with open(os.path.join(out, path), "w") as f:
        json.dump(obj, f)
put("meta.json", {
    "rtapp": [{"name": "mutex", "file": "examples/workloads/mutex.json", "critical": ["sp-ui"]}],
    "not_rtapp": [{"file": "examples/workloads/rwlock.json", "why": "rwlock events, which rt-app reads as nothing"}],
    "runs": 3, "seeds": 3, "long_s": 100, "bench_duration_s": 2, "rtapp_duration_s": 4,
    "rtapp_calibration_ns": 15,
    "sims": [{"label": "bench-mutex", "scenario": "mutex", "file": "x", "k": "4"},
             {"label": "rtapp-mutex", "scenario": "rt-app mutex", "file": "x", "k": "4"}],
    "commands": {"bench": "B", "rtapp": "R", "sim_short": "S", "sim_long": "L"}})
for i in range(3):
    run = lambda pol, k, mx, b: {"scenario": "mutex", "policy": pol, "k": k, "max_ns": mx,
                                 "blockings": b, "janky": 100 + 2 * i, "seconds": 2.0}
    put(f"real/bench-{i + 1}.json", {"runs": [run("none", 0, (i + 1) * 100e6, 10 + 2 * i),
                                              run("superpass", 0, (4 + i) * 0.1e6, 20)]})
    d = f"real/mutex/observe-{i + 1}"
    put(f"{d}/stats.json", {"blockings": 8, "blocking_ns": {"max": (i + 1) * 2e6}})
    with open(os.path.join(out, d, "sp-mutex-sp-ui-0.log"), "w") as f:
        f.write("# Policy\n#idx perf run period start end rel_st slack\n")
        for slack in (100, -5, 7, -1) if i == 1 else (100, 200):
            f.write(f"   0 1 2 3 4 5 6 {slack} 1200 8333 80\n")
    d = f"real/mutex/auto-{i + 1}"
    put(f"{d}/stats.json", {"blockings": 4, "blocking_ns": {"max": 1e6}})
    open(os.path.join(out, d, "sp-mutex-sp-ui-0.log"), "w").close()
sim = lambda mn, ms, bn, bs, s: {"runs": [
    {"policy": "none", "k": 0, "max_ns": mn, "blockings": bn, "janky": 10, "seconds": s},
    {"policy": "superpass", "k": 4, "max_ns": ms, "blockings": bs, "janky": 0, "seconds": s}]}
for s, m in enumerate((150e6, 250e6, 450e6)):
    put(f"sim/bench-mutex-short-{s + 1}.json", sim(m, 1.5e6, 1, 1, 2.0))
    put(f"sim/rtapp-mutex-short-{s + 1}.json", sim(4e6, 1e6, 1, 1, 4.0))
put("sim/bench-mutex-long.json", sim(1, 1, 600, 500, 100.0))
put("sim/rtapp-mutex-long.json", sim(1, 1, 200, 100, 100.0))
EOF

cli_expect_rc 0 "validate.py summarize" "$py" "$top/tools/measure/sim/validate.py" summarize "$raw/v"
cp "$tmp/out" "$raw/validate.out"
grep -q "4 rows, 2 misses" "$tmp/out" || cli_fail "summarize: the misses not counted"
grep -q "mutex superpass: P99.9" "$tmp/out" || cli_fail "summarize: the P99.9 miss not named"
[ -s "$raw/v/validate.json" ] || cli_fail "no validate.json written"

cli_expect_rc 0 "collect.py begin" "$py" "$top/docs/results/collect.py" begin "$raw"
cli_expect_rc 0 "collect.py end sim-validate" "$py" "$top/docs/results/collect.py" end sim-validate \
	"$raw" "$tmp/sim-validate.json" --command=fixture
cli_expect_rc 0 "render.py sim-validate" "$py" "$top/docs/results/render.py" "$tmp/sim-validate.json"

"$py" - "$tmp/sim-validate.md" <<'EOF' || fail=1
import sys
bad = 0
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("|") and not line.startswith("|---"):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows[(c[0], c[1])] = c
head = rows.pop(("scenario", "policy"))
def check(what, got, want):
    global bad
    print(("ok" if got == want else "FAIL") + f": {what}: {got!r}" + ("" if got == want else f", want {want!r}"))
    bad |= got != want
check("rows", sorted(rows), [("mutex", "none"), ("mutex", "superpass"), ("rt-app mutex", "none"),
                             ("rt-app mutex", "superpass")])
n = rows[("mutex", "none")]
check("runs", n[2], "3")
check("real P99.9: median of the runs' maxima (min-max)", n[3], "200 (100-300)")
check("sim P99.9: median of the seeds' maxima (min-max)", n[4], "250 (150-450)")
check("P99.9 ratio inside 2x", n[5], "1.25x")
check("real blockings/s", n[6], "6.00 (5.00-7.00)")
check("sim blockings/s: the long run", n[7], "6.00")
check("blockings ratio", n[8], "1.00x")
check("real janky/s", n[9], "51.0 (50.0-52.0)")
check("sim janky/s", n[10], "0.100")
s = rows[("mutex", "superpass")]
check("P99.9 outside 2x: a miss", s[5], "**3.00x miss**")
check("blockings/s outside 30 %: a miss", s[8], "**0.50x miss**")
r = rows[("rt-app mutex", "none")]
check("rt-app: the runtime's longest wait", r[3], "4.00 (2.00-6.00)")
check("rt-app: blockings/s from the statistics", r[6], "2.00")
check("rt-app: late frames (slack < 0) per second", r[9], "0 (0-0.500)")
md = open(sys.argv[1]).read()
check("the files not run on rt-app, with why", "examples/workloads/rwlock.json: rwlock events" in md, True)
sys.exit(bad)
EOF
exit $fail
