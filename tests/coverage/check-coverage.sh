#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# coverage.functional: each program of examples/coverage, briefly, under
# `superpass run -c ui`. A program of a row superpass sees today must show
# blockings > 0 and grants > 0 and leave no thread boosted (act_boosted_now
# 0, fast tracks equal to restores, in the core and in the actuator); the
# others (Go, Java, Python) must run to their end and exit 0. Behaviour
# only: the printed waits are not checked.
#
#   check-coverage.sh COVERAGE_BUILD_DIR SUPERPASS [SECONDS]
#
# A program whose toolchain was missing at configure time is listed in
# coverage-missing.tsv: named and skipped, and with SUPERPASS_SKIP_CODE=1
# (tests/run-all.sh, where tests/setup-debian.sh installed every
# toolchain) a failure.
. "$(dirname "$0")/../cli-lib.sh"

dir=$1
superpass=$2
seconds=${3:-2}
[ -r "$dir/coverage-programs.tsv" ] || cli_die "no $dir/coverage-programs.tsv"

# stat FILE NAME: the number of a top-level "NAME": N line of a stats JSON.
stat() {
	sed -n "s/^  \"$2\": \([0-9]*\),\$/\1/p" "$1"
}

tab=$(printf '\t')
ran=0
while IFS="$tab" read -r id impl through expect _pr cmd; do
	[ -n "$id" ] || continue
	ran=$((ran + 1))
	# The command's words are tab-separated (paths may hold spaces).
	set -f
	old_ifs=$IFS
	IFS=$tab
	# shellcheck disable=SC2086
	set -- $cmd
	IFS=$old_ifs
	set +f
	# A seen row may, by chance, have had no contended wait in one short
	# run (the bg threads barely run at nice 19): up to 3 runs until one
	# shows blockings and grants. Every run must leave no thread boosted.
	for attempt in 1 2 3; do
		rm -f "$tmp"/stats.*
		cli_run "$superpass" run -c ui --stats "$tmp/stats.%p.json" -- "$@" "$seconds"
		if [ "$rc" != 0 ] || ! grep -q '^ui: longest_wait_ms=' "$tmp/out"; then
			cli_fail "$id ($impl): exit $rc, output:"
			sed 's/^/    /' "$tmp/out" "$tmp/err"
			break
		fi
		if [ "$expect" != seen ]; then
			echo "ok: $id ($impl, not seen today): ran to its end under superpass run"
			break
		fi
		blockings=0 grants=0 bad=""
		for f in "$tmp"/stats.*.json; do
			[ -r "$f" ] || continue
			blockings=$((blockings + $(stat "$f" blockings)))
			grants=$((grants + $(stat "$f" grants)))
			[ "$(stat "$f" act_boosted_now)" = 0 ] || bad="$bad act_boosted_now=$(stat "$f" act_boosted_now)"
			[ "$(stat "$f" act_fast_tracks)" = "$(stat "$f" act_restores)" ] ||
				bad="$bad act_fast_tracks=$(stat "$f" act_fast_tracks)/act_restores=$(stat "$f" act_restores)"
			[ "$(stat "$f" fast_tracks)" = "$(stat "$f" restores)" ] ||
				bad="$bad fast_tracks=$(stat "$f" fast_tracks)/restores=$(stat "$f" restores)"
		done
		if [ -n "$bad" ]; then
			cli_fail "$id ($impl): left boosted:$bad"
			sed 's/^/    /' "$tmp/err"
			break
		fi
		if [ "$blockings" -gt 0 ] && [ "$grants" -gt 0 ]; then
			echo "ok: $id ($impl, through $through): blockings $blockings, grants $grants, none left boosted (run $attempt)"
			break
		fi
		echo "note: $id run $attempt: blockings $blockings, grants $grants"
		if [ "$attempt" = 3 ]; then
			cli_fail "$id ($impl, through $through): no run of 3 showed blockings and grants"
			sed 's/^/    /' "$tmp/err"
		fi
	done
done <"$dir/coverage-programs.tsv"

missing=0
while IFS="$tab" read -r id why; do
	[ -n "$id" ] || continue
	missing=$((missing + 1))
	if [ "${SUPERPASS_SKIP_CODE:-77}" = 1 ]; then
		cli_fail "$id not built: $why (tests/setup-debian.sh installs every toolchain)"
	else
		echo "SKIP: $id not built: $why"
	fi
done <"$dir/coverage-missing.tsv"

if [ "$ran" = 0 ] && [ "$fail" = 0 ]; then
	echo "SKIP: no coverage program was built"
	exit "${SUPERPASS_SKIP_CODE:-77}"
fi
echo "coverage.functional: $ran programs run, $missing not built"
exit "$fail"
