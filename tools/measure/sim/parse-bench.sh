#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Parse time of `superpass sim FILE --check` against the workload's size:
# N tasks (each locking a mutex of its own), and N events in one task
# (lock/unlock pairs, a mutex per pair), N = 1k, 10k, 100k, 1M. Prints the
# median wall time of RUNS runs per size and its ratio to the size 10x
# smaller (a linear parser gives about 10), and with GNU time the median
# CPU time (user + sys: what other load on the machine changes least), its
# ratio and the peak RSS. A run longer than LIMIT seconds is killed and ends
# its series. Asserts nothing. Take the measure lock around it:
#   flock -x /tmp/superpass-measure.lock tools/measure/sim/parse-bench.sh \
#       build/tools/superpass [RUNS] [MAX_N] [LIMIT]
set -eu
sp=$1 runs=${2:-3} max=${3:-1000000} limit=${4:-300}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/superpass-parse-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

gen() { # KIND N > FILE
	awk -v kind="$1" -v n="$2" 'BEGIN {
		printf "{\"global\": {\"duration\": 1},\n\"tasks\": {\n"
		if (kind == "tasks") {
			for (i = 0; i < n; i++)
				printf "\"t%d\":{\"lock\":\"m%d\",\"run\":1,\"unlock\":\"m%d\"}%s\n",
					i, i, i, i + 1 < n ? "," : ""
		} else {
			printf "\"t\": {\n"
			for (i = 0; i < n; i += 2)
				printf "\"lock%d\":\"m%d\",\"unlock%d\":\"m%d\"%s\n",
					i, i, i + 1, i, i + 2 < n ? "," : ""
			printf "}\n"
		}
		printf "}}\n"
	}'
}

# Seconds of wall time of one --check run of FILE, "killed" or "failed".
one() {
	s=$(date +%s%N)
	rc=0
	$gtime timeout "$limit" "$sp" sim "$1" --check -q >"$tmp/out" 2>"$tmp/err" || rc=$?
	e=$(date +%s%N)
	if [ "$rc" = 124 ]; then
		echo killed
		return
	fi
	if [ "$rc" != 0 ]; then
		echo "parse-bench: $1: exit $rc: $(cat "$tmp/err")" >&2
		echo failed
		return
	fi
	[ -z "$gtime" ] || cat "$tmp/gtime" >>"$tmp/cpu"
	echo "$s $e" | awk '{ printf "%.3f\n", ($2 - $1) / 1e9 }'
}

# GNU time: CPU seconds and peak RSS of the command (timeout's child)
gtime=
if [ -x /usr/bin/time ] && /usr/bin/time -f '%U %S %M' -o "$tmp/gtime" true 2>/dev/null; then
	gtime="/usr/bin/time -f %U_%S_%M -o $tmp/gtime"
fi
med() { sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }
printf '%-7s %9s %10s %8s %6s %8s %6s %8s\n' series N bytes wall_s x/10x cpu_s x/10x 'RSS_MiB'
for kind in tasks events; do
	prev= prevc=
	n=1000
	while [ "$n" -le "$max" ]; do
		f=$tmp/$kind-$n.json
		gen "$kind" "$n" >"$f"
		bytes=$(wc -c <"$f")
		: >"$tmp/times"
		: >"$tmp/cpu"
		i=0 killed=
		while [ "$i" -lt "$runs" ]; do
			t=$(one "$f")
			[ "$t" != failed ] || exit 1
			if [ "$t" = killed ]; then
				killed=1
				break
			fi
			echo "$t" >>"$tmp/times"
			i=$((i + 1))
		done
		rm -f "$f"
		if [ -n "$killed" ]; then
			printf '%-7s %9d %10d %8s %6s %8s %6s %8s\n' "$kind" "$n" "$bytes" ">$limit" - - - -
			break
		fi
		wall=$(med <"$tmp/times")
		cpu=- mib=- cratio=-
		if [ -n "$gtime" ]; then
			cpu=$(tr '_' ' ' <"$tmp/cpu" | awk '{ printf "%.3f\n", $1 + $2 }' | med)
			mib=$(tr '_' ' ' <"$tmp/cpu" | awk '{ printf "%.0f\n", $3 / 1024 }' | sort -n | tail -1)
			cratio=$(ratio "$cpu" "$prevc")
		fi
		printf '%-7s %9d %10d %8.3f %6s %8s %6s %8s\n' "$kind" "$n" "$bytes" "$wall" \
			"$(ratio "$wall" "$prev")" "$cpu" "$cratio" "$mib"
		prev=$wall prevc=$cpu
		n=$((n * 10))
	done
done
