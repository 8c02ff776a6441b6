# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Prints the names (or patterns) in the global: sections of a linker
# version script, one per line. C comments, the only kind ld and this
# parser share, are removed first. Used by check-exports.sh and
# check-prefix.sh.
{ s = s $0 "\n" }
END {
	while ((i = index(s, "/*")) > 0) {
		rest = substr(s, i + 2)
		j = index(rest, "*/")
		s = substr(s, 1, i - 1) " " (j ? substr(rest, j + 2) : "")
	}
	gsub(/[ \t\n]+/, "", s)
	gsub(/}/, ";};", s)         # a node ends its last section
	n = split(s, tok, ";")
	for (k = 1; k <= n; k++) {
		t = tok[k]
		sub(/^.*{/, "", t)      # "SUPERPASS_1{global:x" -> "global:x"
		if (t ~ /^global:/) { on = 1; sub(/^global:/, "", t) }
		else if (t ~ /^local:/ || t ~ /^}/) on = 0
		if (on && t != "") print t
	}
}
