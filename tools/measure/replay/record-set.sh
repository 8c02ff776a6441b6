#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Records one set of the What-if replay's measurements
# (docs/results/replay.md): N recordings of the bench's mutex scenario and N
# of its rwlock scenario (K = 4), each under `none` and then
# `superpass-preload`, every run traced with `superpass record` and its
# figures kept with --json. The
# two runs of a pair are recorded back to back in one exclusive hold of
# the measure lock, so that nothing else measured on the machine runs
# between them. A measurement, not a test: nothing is asserted.
#   record-set.sh SUPERPASS DIR [N [K [SCENARIOS]]]   (as root: tracefs, SCHED_FIFO)
# N pairs each (default 10), the rwlock's reader bound K (default 4: eight
# readers for four slots), SCENARIOS "mutex rwlock" by default.
# Then: prediction-table.py SUPERPASS DIR [DIR...]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 SUPERPASS DIR [N [K [SCENARIOS]]]" >&2; exit 2; }
sp=$(realpath "$1")
dir=$2
n=${3:-10}
k=${4:-4}
scenarios=${5:-mutex rwlock}
lock=${SUPERPASS_MEASURE_LOCK:-/tmp/superpass-measure.lock}
[ -x "$sp" ] || { echo "$0: $sp is not executable" >&2; exit 2; }
mkdir -p "$dir"
cd "$dir"
echo "record-set: $n pairs of $scenarios (rwlock K = $k) into $PWD, from $(date -u +%FT%TZ)"
for i in $(seq 1 "$n"); do
	for sc in $scenarios; do
		kopt=()
		[ "$sc" = rwlock ] && kopt=(--k "$k")
		flock "$lock" bash -c '
			sp=$1 sc=$2 i=$3; shift 3
			for po in none superpass-preload; do
				"$sp" record -q -o "$po-$sc-$i.trace" -- \
					"$sp" bench -q -s "$sc" -p "$po" "$@" -d 5 --repeat 1 \
					--json "$po-$sc-$i.json" >/dev/null
			done' _ "$sp" "$sc" "$i" "${kopt[@]}"
	done
done
echo "record-set: done at $(date -u +%FT%TZ)"
