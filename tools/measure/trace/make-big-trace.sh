#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Makes a large ftrace text trace out of a small one, for the reader's speed
# figure (tools/measure/trace/speed-bench.sh): IN repeated until OUT holds at least
# MB megabytes (10^6 bytes). Each copy's timestamps are moved later by the
# copy number times IN's span rounded up to whole seconds plus one second,
# so that time runs forward through the file as in a long recording (a plain
# `cat` repetition would send time backwards at every copy: the reader
# clamps such timestamps and the analysis would then see all but the first
# copy at one instant). Only the seconds change; the line format stays the
# kernel's. Header lines are kept from the first copy only.
#   make-big-trace.sh IN OUT [MB]   (default 1100)
set -eu
in=$1 out=$2 mb=${3:-1100}
span=$(awk 'match($0, / [0-9]+\.[0-9]+: /) {
		s = substr($0, RSTART + 1, RLENGTH - 3) + 0
		if (!n++) first = s
		last = s
	}
	END { if (!n) exit 1; printf "%d\n", int(last - first) + 2 }' "$in") || {
	echo "make-big-trace.sh: $in has no timestamped lines" >&2
	exit 2
}
size=$(wc -c < "$in")
copies=$(( (mb * 1000000 + size - 1) / size ))
: > "$out"
k=0
while [ "$k" -lt "$copies" ]; do
	awk -v k="$k" -v d="$span" '
		/^#/ { if (k == 0) print; next }
		match($0, / [0-9]+\.[0-9]+: /) {
			s = substr($0, RSTART + 1, RLENGTH - 3)
			dot = index(s, ".")
			printf "%s%d%s%s\n", substr($0, 1, RSTART), substr(s, 1, dot - 1) + k * d,
				substr(s, dot), substr($0, RSTART + RLENGTH - 2)
			next
		}
		{ print }' "$in" >> "$out"
	k=$((k + 1))
done
echo "$out: $copies copies of $in, $(wc -c < "$out") bytes"
