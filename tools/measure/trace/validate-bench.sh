#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Checks `superpass analyze` against `superpass bench`'s own measurement of
# the same run (docs/results/analyze.md). Records the bench under
# `superpass record` with SUPERPASS_BENCH_TRACE=1 (one line per blocking:
# request and acquisition times, CLOCK_MONOTONIC like the trace's mono
# clock, and the holder at the request), analyses the trace, and for each
# run of the bench (each sp-ui thread) compares blockings over 1 ms:
# count, P99.9 (nearest rank), max, and whether the thread the bench saw
# holding the lock is among the blockers the analysis names.
#
#   validate-bench.sh SUPERPASS OUTDIR [superpass bench options...]
# e.g. flock /tmp/superpass-measure.lock \
#        tools/measure/trace/validate-bench.sh build/tools/superpass /tmp/v -s mutex -p none -d 10
set -eu
sp=$1 out=$2
shift 2
mkdir -p "$out"
SUPERPASS_BENCH_TRACE=1 "$sp" record -q -o "$out/bench.trace" -- "$sp" bench -q "$@" \
	> "$out/bench.out" 2> "$out/bench.stderr"
"$sp" analyze "$out/bench.trace" --critical sp-ui --csv "$out/episodes.csv" \
	--json "$out/analyze.json" --svg "$out/analyze.svg" --chrome "$out/analyze.chrome.json" \
	> "$out/analyze.txt" 2> "$out/analyze.stderr" || true
awk -F'[ =,]+' '
	FNR == 1 { file++ }
	file == 1 && /^blocking t0=/ {
		# blocking t0=N t1=N ms=X holders=N (tid T) wait_ms=Y
		for (i = 1; i <= NF; i++) {
			if ($i == "t0") t0 = $(i + 1)
			if ($i == "t1") t1 = $(i + 1)
			if ($i == "(tid") ht = $(i + 1)
		}
		sub(/\)/, "", ht)
		np++; P0[np] = t0; P1[np] = t1; PH[np] = ht
		next
	}
	file == 2 && FNR > 1 {
		ne++; ET[ne] = $1; ES[ne] = $3; ED[ne] = $4; EB[ne] = $7
		# blockers "tid:ns;tid:ns" are in $7 (split on , only: see below)
		next
	}
	END {
		for (i = 1; i <= np; i++) {
			d = P1[i] - P0[i]; best = 0
			for (k = 1; k <= ne; k++)
				if (ES[k] + 1000 >= P0[i] && ES[k] + ED[k] <= P1[i] + 1000) { best = k; break }
			if (!best) { unmatched++; continue }
			t = ET[best]
			if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
			if (d >= 1000000) { pn[t]++; pv[t, pn[t]] = d }
			if (ED[best] >= 1000000) { an[t]++; av[t, an[t]] = ED[best] }
			if (d >= 1000000) {
				holder[t] += index(";" EB[best] ";", ";" PH[i] ":") > 0
				diffmax = d > ED[best] ? d - ED[best] : ED[best] - d
				if (diffmax / d > worst[t]) worst[t] = diffmax / d
			}
		}
		printf "| sp-ui tid | blockings >1 ms (bench / trace) | P99.9 ms (bench / trace) | max ms (bench / trace) | worst single-episode difference | bench holder among the named blockers |\n"
		printf "|---|---|---|---|---|---|\n"
		for (j = 1; j <= nt; j++) {
			t = order[j]
			printf "| %s | %d / %d | %.2f / %.2f | %.2f / %.2f | %.2f %% | %d / %d |\n", t, pn[t], an[t],
				q(pv, t, pn[t]) / 1e6, q(av, t, an[t]) / 1e6, mx(pv, t, pn[t]) / 1e6,
				mx(av, t, an[t]) / 1e6, 100 * worst[t], holder[t], pn[t]
		}
		if (unmatched) printf "\n%d bench blockings had no episode in the trace\n", unmatched
	}
	function srt(v, t, n,    i, j, x) {
		for (i = 1; i <= n; i++) s[i] = v[t, i]
		for (i = 2; i <= n; i++) { x = s[i]; for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
	}
	function q(v, t, n,    r) { if (!n) return 0; srt(v, t, n); r = int(n * 0.999 + 0.999999); if (r < 1) r = 1; return s[r] }
	function mx(v, t, n,    i, m) { m = 0; for (i = 1; i <= n; i++) if (v[t, i] > m) m = v[t, i]; return m }
' "$out/bench.stderr" FS=',' "$out/episodes.csv" | tee "$out/validation.md"
echo
grep -E '^(policy|none|pi|rt-ui|superpass)' "$out/bench.out" || true
grep -E '^sp-ui|runnable' "$out/analyze.txt" | head -20
