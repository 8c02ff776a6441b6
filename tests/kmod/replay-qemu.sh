#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Replays the base runs that `run-qemu-test.sh --record-base DIR` recorded
# and sets the prediction beside the module run of the same boot:
#
#   tests/kmod/replay-qemu.sh [--superpass BIN] DIR... [-- REPLAY-OPTIONS]
#
# For each DIR/base-SCENARIO.trace: `superpass replay TRACE --critical
# sp-crit -p none,superpass --json ...` (plus REPLAY-OPTIONS), then one line
# per scenario (ms; tab-separated, with a header):
#   the traced base run: the workload's operations (ops, P50, P99.9) and the
#     trace's blockings of sp-crit (n, P50, P99.9; what the replay measures),
#   the replay under none (n, P50, P99.9: the self-check),
#   the replay under superpass (n, P50, P99.9: the prediction),
#   the module run: the workload's operations (ops, P50, P99.9) and the
#     module's own blocking figures (/proc/superpass/stats: blockings,
#     blocking_p50_ns, blocking_p999_ns),
#   the prediction's P99.9 over the module run's operation P99.9.
# A blocking is one wait of sp-crit for a lock (contention_begin to end);
# an operation is one pwrite/write/mmap+munmap, the wait included. The
# replay's JSON goes to DIR/replay-SCENARIO.json, its table to
# DIR/replay-SCENARIO.txt.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SP=$HERE/../../build/tools/superpass
ROPTS=()
DIRS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--superpass) SP=$2; shift 2 ;;
	--) shift; ROPTS+=("$@"); break ;;
	-h | --help) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) DIRS+=("$1"); shift ;;
	esac
done
[ ${#DIRS[@]} -gt 0 ] || { echo "usage: $0 [--superpass BIN] DIR... [-- REPLAY-OPTIONS]" >&2; exit 2; }
[ -x "$SP" ] || { echo "$0: no superpass command at $SP (--superpass BIN)" >&2; exit 2; }
command -v jq >/dev/null || { echo "$0: jq is needed" >&2; exit 2; }
for d in "${DIRS[@]}"; do
	[ -r "$d/figures.tsv" ] || { echo "$0: $d has no figures.tsv (run-qemu-test.sh --record-base $d)" >&2; exit 2; }
done

printf "dir\tkernel\tscenario\ttraced_ops\ttraced_op_p50\ttraced_op_p999\ttrace_blk\ttrace_p50\ttrace_p999"
printf "\tnone_blk\tnone_p50\tnone_p999\tsp_blk\tsp_p50\tsp_p999"
printf "\tmodule_ops\tmodule_op_p50\tmodule_op_p999\tmodule_blk\tmodule_blk_p50\tmodule_blk_p999\tsp_over_module_op_p999\n"
for d in "${DIRS[@]}"; do
	for tr in "$d"/base-*.trace; do
		[ -e "$tr" ] || continue
		sc=${tr##*/base-}; sc=${sc%.trace}
		"$SP" replay "$tr" --critical sp-crit -p none,superpass --json "$d/replay-$sc.json" "${ROPTS[@]}" \
			>"$d/replay-$sc.txt" 2>&1 || { echo "$0: replay of $tr failed: $(tail -3 "$d/replay-$sc.txt")" >&2; exit 1; }
		# The trace's own figures: the self-check's "trace" line.
		read -r tb tp50 _ tp999 _ < <(awk '$1 == "trace" { print $2, $3, $4, $5, $6; exit }' "$d/replay-$sc.txt")
		run() { jq -r --arg p "$1" '.runs[] | select(.policy == $p) |
			"\(.blockings) \(.p50_ns / 1e6) \(.p999_ns / 1e6)"' "$d/replay-$sc.json" | head -1; }
		read -r nb np50 np999 < <(run none)
		read -r sb sp50 sp999 < <(run superpass)
		fig() { awk -F'\t' -v s="$sc" -v m="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			$2 == s && $3 == m { print $col[c]; exit }' "$d/figures.tsv"; }
		kver=$(awk -F'\t' 'NR == 2 { print $1 }' "$d/figures.tsv")
		stat() { sed -n "s/^SPT $sc module SPW_STATS $1 //p" "$d/console.txt" | head -1; }
		mop999=$(fig module p999_us)
		printf "%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\t%s" "$d" "$kver" "$sc" "$(fig traced ops)" \
			"$(echo "$(fig traced p50_us)" | awk '{ print $1 / 1e3 }')" \
			"$(echo "$(fig traced p999_us)" | awk '{ print $1 / 1e3 }')" "$tb" "$tp50" "$tp999"
		printf "\t%s\t%.3f\t%.3f\t%s\t%.3f\t%.3f" "$nb" "$np50" "$np999" "$sb" "$sp50" "$sp999"
		printf "\t%s\t%.3f\t%.3f\t%s\t%.3f\t%.3f\t%.2f\n" "$(fig module ops)" \
			"$(echo "$(fig module p50_us)" | awk '{ print $1 / 1e3 }')" \
			"$(echo "$mop999" | awk '{ print $1 / 1e3 }')" "$(stat blockings)" \
			"$(echo "$(stat blocking_p50_ns)" | awk '{ print $1 / 1e6 }')" \
			"$(echo "$(stat blocking_p999_ns)" | awk '{ print $1 / 1e6 }')" \
			"$(awk -v a="$sp999" -v b="$mop999" 'BEGIN { print (b > 0 ? a / (b / 1e3) : 0) }')"
	done
done
