#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Regenerates docs/results: runs each measurement with --json, keeps its
# raw JSON (NAME.json, stamped by collect.py) and renders NAME.md and
# NAME.svg from it (render.py). See docs/results/README.md.
#
#   docs/results/generate.sh BUILD_DIR [--long] [--only NAME,...] [--quick]
#                            [--out DIR] [--note TEXT] [--keep]
#                            [--replay-set DIR]
#
# Default set: bench micro sim-paper sweep sim-real analyze (about 5 min
# on 2 CPUs, as root). --long adds bench-readers kmod-qemu replay parse
# trace-speed coverage sim-validate (about 35 min more). --only runs just
# those (long ones included when named). --quick shortens every run, to
# try the script or show the format: its figures are not results, and the
# stamp says so. Run it on a quiet machine: anything else running moves
# the figures. --replay-set DIR: the replay measurement replays the set
# already recorded in DIR (tools/measure/replay/record-set.sh SUPERPASS
# DIR) instead of recording one: the recording is the part that needs the
# quiet machine, the replays are deterministic.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage() {
	echo "usage: $0 BUILD_DIR [--long] [--only NAME,...] [--quick] [--out DIR] [--note TEXT] [--keep] [--replay-set DIR]" >&2
	echo "names: $default_set $long_set" >&2
	exit 2
}
die() { echo "generate.sh: $*" >&2; exit 2; }
default_set="bench micro sim-paper sweep sim-real analyze"
long_set="bench-readers kmod-qemu replay parse trace-speed coverage sim-validate"

[ $# -ge 1 ] || usage
case $1 in -*) usage ;; esac
build=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such build directory"
shift
long=0 only="" quick=0 out=$here note="" keep=0 replay_set=""
while [ $# -gt 0 ]; do
	case $1 in
	--long) long=1; shift ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--note) [ $# -ge 2 ] || usage; note=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--replay-set) [ $# -ge 2 ] || usage; replay_set=$(cd "$2" 2>/dev/null && pwd) ||
		die "--replay-set: $2: no such directory"; shift 2 ;;
	*) usage ;;
	esac
done
sp=$build/tools/superpass
[ -x "$sp" ] || die "$sp: not built (cmake --build $1)"
command -v python3 >/dev/null || die "python3 is needed (collect.py, render.py)"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# the command as the stamp gives it (the build directory is the reader's own)
cmdline="docs/results/generate.sh BUILD_DIR"
[ $long = 0 ] || cmdline="$cmdline --long"
[ -z "$only" ] || cmdline="$cmdline --only $only"
[ $quick = 0 ] || cmdline="$cmdline --quick"
[ -z "$replay_set" ] || cmdline="$cmdline --replay-set DIR (recorded by tools/measure/replay/record-set.sh)"
if [ $quick = 1 ] && [ -z "$note" ]; then
	note="--quick: shortened runs, to show the format; not a result"
fi

names=$default_set
[ $long = 0 ] || names="$names $long_set"
if [ -n "$only" ]; then
	names=""
	for n in ${only//,/ }; do
		case " $default_set $long_set " in *" $n "*) names="$names $n" ;; *) die "--only: no measurement '$n' (names: $default_set $long_set)" ;; esac
	done
fi

# Durations: the documented ones, or short ones under --quick.
if [ $quick = 1 ]; then
	bench_args=(-d 0.5 -r 2) readers_args=(-d 0.2 -r 1) micro_runs=2 micro_iters=(--iters 100000) core_scale=0.05
	paper_d=20 speed_d=2 sweep_d=20 analyze_d=1 kmod_secs=2 rec_n=1 replay_runs=2
	parse_args=(2 10000 60) speed_mb=20 speed_runs=2 speed_src_d=2 coverage_args=(1 2)
else
	bench_args=() readers_args=(-d 2 -r 3) micro_runs=5 micro_iters=() core_scale=1
	paper_d=1000 speed_d=10 sweep_d=1000 analyze_d=3 kmod_secs=6 rec_n=10 replay_runs=7
	parse_args=(3 1000000 300) speed_mb=1100 speed_runs=5 speed_src_d=10 coverage_args=(3 8)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/superpass-results.XXXXXX")
[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT
failed=""

# run NAME COMMAND: the measurement's function in its own raw directory,
# between collect.py's begin and end (the stamp), then the rendering.
run() {
	local name=$1 raw=$work/$1
	shift
	mkdir -p "$raw"
	echo "== $name: $*" >&2
	python3 "$here/collect.py" begin "$raw"
	# a subshell of its own with -e in force (an "if" would turn it off)
	set +e
	(set -e; cd "$raw"; "$@")
	local rc=$?
	set -e
	if [ $rc != 0 ]; then
		echo "generate.sh: $name failed (raw outputs in $raw)" >&2
		failed="$failed $name"
		keep=1
		trap - EXIT
		return 0
	fi
	python3 "$here/collect.py" end "$name" "$raw" "$out/$name.json" --command="$cmdline" \
		--note="$note" && python3 "$here/render.py" "$out/$name.json" ||
		{ failed="$failed $name"; keep=1; trap - EXIT; }
}

m_bench() {
	"$sp" bench -q --json bench.json "${bench_args[@]}" >bench.out
}

# The rwlock's P99.9 against K and the number of readers.
m_bench_readers() {
	local r
	# --k takes at most 8 values: two invocations per reader count
	for r in 1 2 4 8; do
		"$sp" bench -q -s rwlock -p superpass --readers "$r" --k 1,2,3,4 \
			"${readers_args[@]}" --json "readers-$r-a.json" >"readers-$r-a.out"
		"$sp" bench -q -s rwlock -p superpass --readers "$r" --k 5,6,7,8,64 \
			"${readers_args[@]}" --json "readers-$r-b.json" >"readers-$r-b.out"
	done
}

m_micro() {
	local i
	for i in $(seq 1 "$micro_runs"); do
		"$sp" bench micro "${micro_iters[@]}" --json "micro-$i.json" >"micro-$i.out"
	done
	# the core's event paths (built with the tests)
	if [ -x "$build/tools/measure/sp_bench_core" ]; then
		"$build/tools/measure/sp_bench_core" "$core_scale" >core.txt
	fi
}

m_sim_paper() {
	local i=0 f
	printf '[' >files.json
	for f in kmutex mutex rwsem; do
		"$sp" sim "$root/examples/workloads/$f.json" -q --duration "$paper_d" --k 4 \
			--json "sim-$i.json" >"sim-$i.out"
		[ $i = 0 ] || printf ',' >>files.json
		printf '["examples/workloads/%s.json", "--duration %s --k 4"]' "$f" "$paper_d" >>files.json
		i=$((i + 1))
	done
	printf ']\n' >>files.json
	echo "superpass sim examples/workloads/mutex.json -q --speed -d $speed_d -p none,superpass" \
		>speed-command.txt
	for i in 1 2 3; do
		"$sp" sim "$root/examples/workloads/mutex.json" -q --speed -d "$speed_d" \
			-p none,superpass >/dev/null 2>"speed-$i.txt"
	done
}

m_sweep() {
	"$sp" sim "$root/examples/workloads/rwsem.json" -q --duration "$sweep_d" -p none,superpass \
		--k 1,2,4,8,16 --sweep holders=1,2,4,8,16 --json sweep.json --svg "$out/sweep-sim.svg" \
		>sweep.out
	printf '{"file": "examples/workloads/rwsem.json", "param": "holders", "values": [1, 2, 4, 8, 16], "ks": [1, 2, 4, 8, 16], "policies": ["none", "superpass"], "options": "-p none,superpass --k 1,2,4,8,16 --sweep holders=1,2,4,8,16 --duration %s"}\n' \
		"$sweep_d" >sweep-meta.json
}

# The simulator on the bench's own workloads, durations and K, next to
# the bench's runs (bench.json of this output directory).
m_sim_real() {
	[ -f "$out/bench.json" ] || { echo "sim-real: no $out/bench.json: run bench first" >&2; return 1; }
	python3 - "$out/bench.json" <<-'EOF'
		import json, sys
		d = json.load(open(sys.argv[1]))
		json.dump(d["data"]["bench"], open("bench.json", "w"))
		json.dump(d["stamp"], open("bench-stamp.json", "w"))
		o = d["data"]["bench"]["options"]
		ks = sorted({r["k"] for r in d["data"]["bench"]["runs"] if r["k"]}) or [4]
		open("args", "w").write("%g %s\n" % (o["duration_s"], ",".join(map(str, ks))))
	EOF
	local dur ks i=0 f
	read -r dur ks <args
	printf '[' >files.json
	for f in mutex rwlock chain; do
		# K matters for the rwlock only; the others run the default, 4
		local kk=4
		[ $f != rwlock ] || kk=$ks
		"$sp" sim "$root/examples/workloads/$f.json" -q --duration "$dur" --k "$kk" \
			-p none,pi,rt-ui,superpass --json "sim-$i.json" >/dev/null
		[ $i = 0 ] || printf ',' >>files.json
		printf '["examples/workloads/%s.json", "-p none,pi,rt-ui,superpass --duration %s --k %s"]' \
			"$f" "$dur" "$kk" >>files.json
		i=$((i + 1))
	done
	printf ']\n' >>files.json
}

# The simulator against this kernel, row by row (validate.sh: the bench and
# the rt-app files, real and simulated, and the ratios).
m_sim_validate() {
	local q=()
	[ $quick = 0 ] || q=(--quick)
	"$root/tools/measure/sim/validate.sh" "$build" v "${q[@]}" >validate.out
}

m_analyze() {
	"$root/tools/measure/trace/validate-bench.sh" "$sp" v -s mutex,rwlock,chain -p none \
		-d "$analyze_d" -r 1 --json "$PWD/v/bench.json" >validate.out
	cp v/analyze.svg "$out/analyze-tool.svg"
}

# Both amd64 boots at once, as CI runs them (each one host thread). Each
# also records its scenarios' base runs (--record-base: one traced run more
# after the untraced base run; the base, idle and module runs are as in CI),
# which replay-qemu.sh then replays beside the module run of the same boot.
m_kmod_qemu() {
	local k pids=() rc=0
	for k in 6.1 6.12; do
		mkdir -p "boot-$k/tmp" "boot-$k/rec"
		printf '{"kernel_series": "%s", "seconds": %s, "arch": "amd64"}\n' "$k" "$kmod_secs" \
			>"boot-$k/meta.json"
		TMPDIR=$PWD/boot-$k/tmp bash "$root/tests/kmod/run-qemu-test.sh" --kernel "$k" \
			--workdir "$PWD/boot-$k/work" --seconds "$kmod_secs" --timeout 900 \
			--superpass "$sp" --record-base "$PWD/boot-$k/rec" >"boot-$k/out.txt" 2>&1 &
		pids+=($!)
	done
	for k in "${pids[@]}"; do wait "$k" || rc=1; done
	[ $rc = 0 ] || echo "kmod-qemu: a boot failed or was skipped (see boot-*/out.txt); its figures are kept" >&2
	local recs=()
	for k in 6.1 6.12; do
		[ ! -r "boot-$k/rec/figures.tsv" ] || recs+=("boot-$k/rec")
	done
	if [ ${#recs[@]} -gt 0 ]; then
		bash "$root/tests/kmod/replay-qemu.sh" --superpass "$sp" "${recs[@]}" >replay.tsv ||
			echo "kmod-qemu: replay-qemu.sh failed; the boots' figures are kept" >&2
	fi
	return 0
}

m_replay() {
	local k=4
	if [ -n "$replay_set" ]; then
		ls "$replay_set"/none-*.trace >/dev/null 2>&1 ||
			{ echo "generate.sh: --replay-set $replay_set: no none-*.trace recordings" >&2; return 1; }
		ln -s "$replay_set" set
		rec_n=$(ls "$replay_set"/none-mutex-*.trace 2>/dev/null | wc -l)
	else
		bash "$root/tools/measure/replay/record-set.sh" "$sp" set "$rec_n" "$k" >record.out
	fi
	printf '{"superpass": "%s", "runs": %s, "pairs": %s, "k": %s}\n' "$sp" "$replay_runs" \
		"$rec_n" "$k" >replay-meta.json
}

m_parse() {
	sh "$root/tools/measure/sim/parse-bench.sh" "$sp" "${parse_args[@]}" >parse.txt
}

m_coverage() {
	bash "$root/tools/measure/coverage/coverage-table.sh" --json coverage.json "$build" \
		"${coverage_args[@]}" >coverage.md
}

m_trace_speed() {
	"$sp" record -q -o src.trace -- "$sp" bench -q -s mutex -p none -d "$speed_src_d" \
		--repeat 1 >/dev/null
	printf '{"source_bytes": %s}\n' "$(wc -c <src.trace)" >meta.json
	sh "$root/tools/measure/trace/make-big-trace.sh" src.trace big.trace "$speed_mb" >/dev/null
	rm -f src.trace
	sh "$root/tools/measure/trace/speed-bench.sh" "$sp" big.trace "$speed_runs" >speed.txt
	rm -f big.trace
}

for n in $names; do
	run "$n" "m_${n//-/_}"
done
if [ -n "$failed" ]; then
	echo "generate.sh: failed:$failed (raw outputs kept in $work)" >&2
	exit 1
fi
[ $keep = 0 ] || echo "generate.sh: raw outputs in $work" >&2
echo "generate.sh: wrote $(for n in $names; do printf '%s.json ' "$n"; done)in $out" >&2
