#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "cli.sim-check": `superpass sim FILE --check` reads and checks a
# workload and runs nothing: exit 0 and one line for every shipped workload
# and for a 100,000-task file, exit 2 and the file's message (once) for a
# bad one and for a --critical name the file lacks.
#   check-cli-check.sh SUPERPASS WORKLOAD_DIR BAD_DIR
set -eu
sp=$1 wl=$2 bad=$3
. "$(dirname "$0")/../cli-lib.sh"

for f in "$wl"/*.json; do
	n=$(basename "$f" .json)
	cli_expect_output 0 "read and checked, nothing run" "$sp" sim "$f" --check || continue
	[ "$(wc -l <"$tmp/out")" = 1 ] && [ ! -s "$tmp/err" ] || cli_fail "$n: not one line"
done
"$sp" sim --help | grep -q -- '--check' || cli_fail "--help lacks --check"

# every task locks a mutex of its own: 100,000 task and lock names
awk 'BEGIN {
	printf "{\"tasks\": {\n"
	for (i = 0; i < 100000; i++)
		printf "\"t%d\": {\"lock\": \"m%d\", \"run\": 10, \"unlock\": \"m%d\"}%s\n",
			i, i, i, i < 99999 ? "," : ""
	printf "}}\n"
}' >"$tmp/big.json"
cli_expect_output 0 "big.json: workload 'big' read and checked" "$sp" sim "$tmp/big.json" \
	--check --critical t99999 || :
cli_expect_output 2 "has no task named 'nobody'" "$sp" sim "$tmp/big.json" --check \
	--critical nobody || :

want=$(cat "$bad/dup-key.expect")
if cli_expect_rc 2 "dup-key --check" "$sp" sim "$bad/dup-key.json" --check; then
	cli_expect_err "$want" "dup-key --check" || :
	[ "$(grep -c . "$tmp/err")" = 1 ] || cli_fail "dup-key --check: not told once"
	[ ! -s "$tmp/out" ] || cli_fail "dup-key --check: output on stdout"
fi
cli_done sim_check
