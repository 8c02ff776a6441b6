#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The coverage table (docs/coverage.md): each program of examples/coverage
# RUNS times plain and RUNS times under `superpass run -c ui`, alternating,
# SECONDS each; prints, per lock implementation, whether superpass saw the
# ui's waits (blockings > 0), the ui's longest wait plain -> superpass
# (median, min-max), the cut, and for the rows marked in the build's
# coverage-programs.tsv the fast track's precision and recall against the
# program's own record of who held L (candidates.py). Benchmark output:
# nothing is asserted.
#
#   coverage-table.sh [--json FILE] [--warmup-ms N] BUILD_DIR [RUNS] [SECONDS]
#                                          (3 runs, 8 s, warm-up 1000 ms)
#
# The longest wait is taken after a warm-up (steady-longest.py says why),
# the same in every row and mode; the JSON keeps the whole run's too
# ("longest_all_ms").
#
# Rows of another host: an executable kmod-rows.sh beside this script (the
# kernel module's part, not built here) is run as
# `kmod-rows.sh BUILD_DIR RUNS SECONDS` and prints one JSON object per run,
# like the lines this script writes to $work/runs.jsonl (see run_one), with
# "host": "kmod"; its rows join the table.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
json=""
warmup=1000
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=${2:?--json needs a file}; shift 2 ;;
	--warmup-ms) warmup=${2:?--warmup-ms needs a number}; shift 2 ;;
	*) break ;;
	esac
done
case $warmup in ''|*[!0-9]*) echo "$0: --warmup-ms: want a whole number of ms, not '$warmup'" >&2; exit 2 ;; esac
[ $# -ge 1 ] || { echo "usage: $0 [--json FILE] [--warmup-ms N] BUILD_DIR [RUNS] [SECONDS]" >&2; exit 2; }
build=$(cd "$1" && pwd)
runs=${2:-3}
seconds=${3:-8}
superpass=$build/tools/superpass
manifest=$build/examples/coverage/coverage-programs.tsv
[ -x "$superpass" ] || { echo "$0: no $superpass (build first)" >&2; exit 1; }
[ -r "$manifest" ] || { echo "$0: no $manifest (configure with SUPERPASS_EXAMPLES=ON)" >&2; exit 1; }
python=${PYTHON3:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/superpass-coverage.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/runs.jsonl
: >"$out"

echo "coverage-table: $runs runs x ${seconds} s per program and mode, $(nproc) CPUs," \
	"load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
while IFS=$'\t' read -r id impl through expect pr rest; do
	[ -n "$id" ] || continue
	IFS=$'\t' read -r -a cmd <<<"$rest"
	[ -n "${cmd[0]:-}" ] || continue
	for r in $(seq 1 "$runs"); do
		for mode in plain superpass; do
			rec=$work/$id.$mode.$r.rec
			act=$work/$id.$r.act
			if [ "$mode" = plain ]; then
				"${cmd[@]}" "$seconds" "$rec" >"$work/o" 2>"$work/e" || true
			else
				rm -f "$work"/stats.*
				SUPERPASS_LOG=$act "$superpass" run -q -c ui --stats "$work/stats.%p.json" -- \
					"${cmd[@]}" "$seconds" "$rec" >"$work/o" 2>"$work/e" || true
			fi
			longest_all=$(sed -n 's/^ui: longest_wait_ms=\([0-9.]*\) .*/\1/p' "$work/o")
			longest=$longest_all
			if [ -r "$rec" ]; then
				longest=$("$python" "$here/steady-longest.py" "$rec" "$warmup")
				[ "$longest" = null ] && longest=""
			fi
			blockings=0
			if [ "$mode" = superpass ]; then
				for f in "$work"/stats.*.json; do
					[ -r "$f" ] || continue
					blockings=$((blockings + $(sed -n 's/^  "blockings": \([0-9]*\),$/\1/p' "$f")))
				done
			fi
			cand=null
			if [ "$mode" = superpass ] && [ "$pr" = pr ] && [ -r "$rec" ] && [ -r "$act" ]; then
				cand=$("$python" "$here/candidates.py" "$rec" "$act")
			elif [ "$mode" = superpass ] && [ "$pr" = pr ] && [ -r "$rec" ]; then
				cand='{"note": "no fast track logged"}'
			fi
			printf '{"id": "%s", "impl": "%s", "through": "%s", "host": "run", "expect": "%s", "pr": %s, "mode": "%s", "run": %d, "longest_ms": %s, "longest_all_ms": %s, "blockings": %d, "candidates": %s}\n' \
				"$id" "$impl" "$through" "$expect" "$([ "$pr" = pr ] && echo true || echo false)" \
				"$mode" "$r" "${longest:-null}" "${longest_all:-null}" "$blockings" "$cand" >>"$out"
			echo "  $id $mode run $r: longest ${longest:-?} ms, blockings $blockings" >&2
		done
	done
done <"$manifest"

# The hook for rows of another host (see the header).
if [ -x "$here/kmod-rows.sh" ]; then
	"$here/kmod-rows.sh" "$build" "$runs" "$seconds" >>"$out"
fi

"$python" "$here/coverage-report.py" "$out" ${json:+--json "$json"} \
	--note "$runs runs x ${seconds} s, longest wait after a ${warmup} ms warm-up, $(nproc) CPUs, load after: $(cut -d' ' -f1-3 /proc/loadavg)"
