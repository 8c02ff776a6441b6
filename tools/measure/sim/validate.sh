#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The simulator against this kernel, scenario by scenario (docs/simulator.md,
# "Validation"):
#
#   tools/measure/sim/validate.sh BUILD OUTDIR [--runs N] [--seeds S] [--long S]
#                                 [--rtapp-s S] [--quick] [--real-from DIR]
#
# Real: `superpass bench` (mutex, rwlock at K = 4, 8, 64 = all readers,
# chain; none and superpass), N runs of 2 s (default 5), and every
# rt-app file of examples/workloads that Debian's rt-app runs as the
# simulator reads it, under `superpass run --mode observe` (the plain
# scheduler, its waits counted) and `superpass run` (superpass), N runs of
# --rtapp-s seconds (default 4). Each real run holds
# /tmp/superpass-measure.lock. Simulated: the same workloads (the bench's
# with its vsync frame loop), S seeds (default 21) of a real run's
# duration for the maxima, and one run of --long seconds (default 200) for
# the rates. Writes everything under OUTDIR, OUTDIR/validate.json, and
# prints the table (validate.py). About 4 minutes at the defaults on 2
# CPUs; --quick (1 run, 3 seeds, 20 s) shows the format in about a minute.
# --real-from DIR takes the real side from an earlier OUTDIR (its runs,
# durations and rt-app calibration) and runs only the simulator: a model
# change checked against the same measurements, in seconds, no root
# needed. Never in CI: it measures.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
usage() {
	echo "usage: $0 BUILD OUTDIR [--runs N] [--seeds S] [--long S] [--rtapp-s S] [--quick] [--real-from DIR]" >&2
	exit 2
}
die() { echo "validate.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || usage
build=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such build directory"
out=$2
shift 2
runs=5 seeds=21 long=200 rtapp_s=4 real_from=""
while [ $# -gt 0 ]; do
	case $1 in
	--runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
	--seeds) [ $# -ge 2 ] || usage; seeds=$2; shift 2 ;;
	--long) [ $# -ge 2 ] || usage; long=$2; shift 2 ;;
	--rtapp-s) [ $# -ge 2 ] || usage; rtapp_s=$2; shift 2 ;;
	--quick) runs=1 seeds=3 long=20 rtapp_s=2; shift ;;
	--real-from) [ $# -ge 2 ] || usage; real_from=$(cd "$2" 2>/dev/null && pwd) ||
		die "--real-from: $2: no such directory"; shift 2 ;;
	*) usage ;;
	esac
done
sp=$build/tools/superpass
[ -x "$sp" ] || die "$sp: not built"
[ -n "$real_from" ] || command -v rt-app >/dev/null || die "rt-app is needed (Debian: apt-get install rt-app)"
command -v flock >/dev/null || die "flock is needed (util-linux)"
lock=/tmp/superpass-measure.lock
bench_d=2
mkdir -p "$out/real" "$out/sim" "$out/work"
out=$(cd "$out" && pwd)
py() { python3 "$here/validate.py" "$@"; }

py plan "$root" >"$out/work/plan.json"
mapfile -t files < <(python3 -c 'import json,sys
for f in json.load(open(sys.argv[1]))["rtapp"]: print(f["name"], f["file"], ",".join(f["critical"]))' \
	"$out/work/plan.json")

if [ -n "$real_from" ]; then
	[ -f "$real_from/meta.json" ] && [ -d "$real_from/real" ] ||
		die "--real-from: $real_from has no meta.json and real/ (an OUTDIR of this script)"
	read -r runs bench_d rtapp_s cal < <(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))
print(m["runs"], m["bench_duration_s"], m["rtapp_duration_s"], m["rtapp_calibration_ns"])' \
		"$real_from/meta.json")
	rm -rf "$out/real"
	cp -r "$real_from/real" "$out/real"
	echo "== real: the $runs runs of $real_from" >&2
else
	# rt-app's calibration, once: every run then starts at once with the same
	# ns per loop (rt-app's own calibration runs while the hogs start).
	py variant "$root/examples/workloads/mutex.json" "$out/work/cal.json" --duration 1 --logdir "$out/work"
	cal=$(cd "$out/work" && flock "$lock" rt-app "$out/work/cal.json" 2>&1 |
		sed -n 's/.*pLoad = \([0-9]*\)ns.*/\1/p' | head -1)
	[ -n "$cal" ] || die "rt-app printed no calibration (pLoad)"
	rm -f "$out/work"/*.log

	echo "== real: $runs runs of superpass bench and of ${#files[@]} rt-app files" >&2
	for i in $(seq 1 "$runs"); do
		flock "$lock" "$sp" bench -q -s mutex,rwlock,chain -p none,superpass --k 4,8,64 -r 1 \
			-d "$bench_d" --seed "$i" --json "$out/real/bench-$i.json" >"$out/real/bench-$i.out"
		for f in "${files[@]}"; do
			read -r name file crit <<<"$f"
			for mode in observe auto; do
				d=$out/real/$name/$mode-$i
				mkdir -p "$d"
				py variant "$root/$file" "$d/w.json" --duration "$rtapp_s" --calibration "$cal" --logdir "$d"
				(cd "$d" && flock "$lock" "$sp" run -q -c "$crit" --mode "$mode" --stats "$d/stats.json" \
					-- rt-app "$d/w.json" >run.out 2>&1) ||
					die "$d: superpass run -- rt-app failed (see $d/run.out)"
			done
		done
	done
fi

# The simulator: nice, so that it does not disturb another measurement.
echo "== simulated: $seeds seeds of the real runs' durations, one run of $long s" >&2
sims="[" sep=""
simrun() { # LABEL SCENARIO FILE DURATION K
	local label=$1 scenario=$2 file=$3 dur=$4 k=$5 s
	for s in $(seq 1 "$seeds"); do
		nice -n 19 "$sp" sim "$file" -q -p none,superpass --k "$k" -d "$dur" --seed "$s" \
			--json "$out/sim/$label-short-$s.json" >/dev/null
	done
	nice -n 19 "$sp" sim "$file" -q -p none,superpass --k "$k" -d "$long" \
		--json "$out/sim/$label-long.json" >/dev/null
	sims="$sims$sep{\"label\": \"$label\", \"scenario\": \"$scenario\", \"file\": \"${file#"$root"/}\", \"k\": \"$k\"}"
	sep=", "
}
for sc in mutex rwlock chain; do
	k=4
	[ $sc != rwlock ] || k=4,8,64
	py variant "$root/examples/workloads/$sc.json" "$out/work/bench-$sc.json" --bench
	simrun "bench-$sc" "$sc" "$out/work/bench-$sc.json" "$bench_d" "$k"
done
for f in "${files[@]}"; do
	read -r name file crit <<<"$f"
	simrun "rtapp-$name" "rt-app $name" "$root/$file" "$rtapp_s" 4
done
sims="$sims]"

python3 - "$out/work/plan.json" "$out/meta.json" <<EOF
import json, sys
p = json.load(open(sys.argv[1]))
json.dump(dict(p, runs=$runs, seeds=$seeds, long_s=$long, bench_duration_s=$bench_d,
               rtapp_duration_s=$rtapp_s, rtapp_calibration_ns=$cal, sims=$sims,
               commands={"bench": "superpass bench -q -s mutex,rwlock,chain -p none,superpass --k 4,8,64 -r 1 -d $bench_d --seed I --json FILE",
                         "rtapp": "superpass run -q -c CRITICAL --mode observe|auto --stats FILE -- rt-app FILE (duration $rtapp_s s)",
                         "sim_short": "superpass sim FILE -q -p none,superpass -d DURATION --seed 1..$seeds --json FILE",
                         "sim_long": "superpass sim FILE -q -p none,superpass -d $long --json FILE"}),
          open(sys.argv[2], "w"), indent=1)
EOF
py summarize "$out"
