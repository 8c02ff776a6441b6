#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The micro measurement of docs/results end to end on a short run:
# `superpass bench micro --json` twice, collect.py's stamp and JSON, and
# render.py's table with one row per loop and its median (min-max).
#   check-micro.sh SUPERPASS PYTHON3
set -eu
sp=$1 py=$2
here=$(cd "$(dirname "$0")" && pwd)
res=$here/../../docs/results
. "$here/../cli-lib.sh"

mkdir "$tmp/raw"
"$py" "$res/collect.py" begin "$tmp/raw"
for i in 1 2; do
	cli_expect_rc 0 "bench micro --json, run $i" "$sp" bench micro --iters 2000 --json "$tmp/raw/micro-$i.json"
done
cli_expect_rc 2 "bench micro --json to an unwritable path" "$sp" bench micro --iters 2000 --json "$tmp/no/such/dir/x.json"
cli_expect_err "--json: cannot write $tmp/no/such/dir/x.json" "the unwritable path named" || true
cli_expect_rc 0 "collect.py end micro" "$py" "$res/collect.py" end micro "$tmp/raw" "$tmp/micro.json" --command "check-micro.sh"
cli_expect_rc 0 "render.py micro.json" "$py" "$res/render.py" "$tmp/micro.json"

"$py" - "$tmp" <<'PY' || fail=1
import json, os, re, sys
tmp = sys.argv[1]
bad = 0
def check(what, ok, got=""):
    global bad
    print(("ok: " if ok else "FAIL: ") + what + (f": {got!r}" if got and not ok else ""))
    bad |= not ok
d = json.load(open(os.path.join(tmp, "micro.json")))
runs = d["data"]["runs"]
check("two runs kept", len(runs) == 2, len(runs))
names = [x["name"] for x in runs[0]["loops"]]
check("the four loops", names == ["glibc pthread_mutex", "sp_mutex_t", "glibc pthread_rwlock (read)",
                                  "sp_rwlock_t (read)"], names)
check("iters recorded", runs[0]["iters"] == 2000, runs[0]["iters"])
check("glibc is its own baseline", all(r["loops"][0]["vs_glibc"] == 1.0 for r in runs))
check("stamp has a kernel and CPUs", bool(d["stamp"]["kernel"]) and d["stamp"]["cpus"] >= 1)
md = open(os.path.join(tmp, "micro.md")).read()
rows = {l.split("|")[1].strip(): l for l in md.splitlines() if l.startswith("| sp_")}
check("sp_mutex_t and sp_rwlock_t rows", sorted(rows) == ["sp_mutex_t", "sp_rwlock_t (read)"], sorted(rows))
cell = rows.get("sp_mutex_t", "").split("|")
check("a cell is a median with its range, or one value", len(cell) > 2 and
      re.fullmatch(r"[\d.]+( \([\d.]+-[\d.]+\))?", cell[2].strip()) is not None, cell)
sys.exit(bad)
PY
exit $fail
