# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# Prints the names of the functions (and extern objects) that C headers
# declare, one per line, from their preprocessed text (cc -E, with line
# markers). Only text that comes from a file whose path starts with the
# variable `prefix` counts: the system headers pulled in are skipped, and
# so are the files named in `skip` (" a.h b.h ": another library's).
#
#   cc -E -I include - <<< '#include <superpass/core.h>' |
#       awk -v prefix="$PWD/include/superpass/" -f decl-names.awk
#
# Skipped: typedefs (function-pointer and function types), everything
# static (static inline helpers), struct/union/enum bodies (function-pointer
# members), macros (gone after cc -E). A declaration is the text between
# two ';' at brace depth 0, or a function definition's head.
# Plain POSIX awk (mawk on Debian): no gawk extensions.

function reset_decl() { decl = ""; parens = 0 }

# A C identifier starting at position i of s, or "".
function ident_at(s, i) {
	if (!match(substr(s, i), /^[A-Za-z_][A-Za-z_0-9]*/))
		return ""
	return substr(s, i, RLENGTH)
}

function is_word(s, w) {
	return (" " s " ") ~ ("[^A-Za-z_0-9]" w "[^A-Za-z_0-9]")
}

# Not a name even when followed by '(' (GNU C and C11 keywords).
function not_a_name(id) {
	return id ~ /^(__attribute__|__attribute|__asm__|__asm|asm|__typeof__|__typeof|typeof|_Alignas|_Alignof|alignof|_Static_assert|static_assert|__declspec|__extension__|sizeof|_Atomic|__builtin_[A-Za-z_0-9]*)$/
}

# The position just after the ')' that matches the '(' at position i of s.
function skip_parens(s, i,    depth, c) {
	depth = 0
	for (; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "(")
			depth++
		else if (c == ")" && --depth == 0)
			return i + 1
	}
	return i
}

# One declarator (no top-level comma in it): "F name" for a function,
# "O name" for an object when want_object, else "". A function's name is
# the first identifier followed by '(' where that '(' does not open a
# declarator group such as "(*name)" or "int (*f(void))(int)". Attribute
# and asm groups are skipped whole: "aligned(8)" inside one is no function.
function declarator_name(d, want_object,    i, j, n, id, rest, last) {
	n = length(d)
	last = ""
	for (i = 1; i <= n; i++) {
		id = ident_at(d, i)
		if (id == "")
			continue
		j = i + length(id)
		rest = substr(d, j)
		sub(/^[ \t\n]*/, "", rest)
		if (not_a_name(id)) {
			if (substr(rest, 1, 1) == "(")
				i = skip_parens(d, index(substr(d, j), "(") + j - 1) - 1
			else
				i = j - 1
			continue
		}
		if (substr(rest, 1, 1) == "(") {
			rest = substr(rest, 2)
			sub(/^[ \t\n]*/, "", rest)
			if (substr(rest, 1, 1) != "*" && substr(rest, 1, 1) != "^")
				return "F " id
		}
		# An object's name: the last identifier before '[', '=' or ':'.
		last = id
		i = j - 1
		if (substr(rest, 1, 1) ~ /[\[=:]/)
			break
	}
	if (want_object && last != "")
		return "O " last
	return ""
}

# d without what is inside () and [] ("v[static 4]" is no static function).
function outside_groups(d,    i, c, depth, out) {
	depth = 0
	out = ""
	for (i = 1; i <= length(d); i++) {
		c = substr(d, i, 1)
		if (c == "(" || c == "[")
			depth++
		else if (c == ")" || c == "]")
			depth--
		else if (depth == 0)
			out = out c
		else
			continue
		if (depth < 0)
			depth = 0
	}
	return out
}

# Splits a declaration at top-level commas ("int sp_a(void), sp_b(void);")
# and prints each declared name: every function, and objects only when
# the declaration says extern (without it, a declaration with no '(' is a
# struct's forward declaration or a definition, not part of the ABI list).
function emit(d,    i, c, depth, piece, r, want_object, top) {
	gsub(/[ \t\n]+/, " ", d)
	top = outside_groups(d)
	if (top ~ /^ ?$/ || is_word(top, "typedef") || is_word(top, "static"))
		return
	want_object = is_word(top, "extern")
	depth = 0
	piece = ""
	for (i = 1; i <= length(d) + 1; i++) {
		c = (i <= length(d)) ? substr(d, i, 1) : ","
		if (c == "(" || c == "[")
			depth++
		else if (c == ")" || c == "]")
			depth--
		if (c == "," && depth == 0) {
			r = declarator_name(piece, want_object)
			if (r != "")
				print r
			piece = ""
			continue
		}
		piece = piece c
	}
}

# Line markers: '# 12 "/path/file.h" 2'. Everything up to the next marker
# belongs to that file.
/^# [0-9]+ "/ {
	f = $0
	sub(/^# [0-9]+ "/, "", f)
	sub(/".*$/, "", f)
	ours = (substr(f, 1, length(prefix)) == prefix) &&
		!index(" " skip " ", " " substr(f, length(prefix) + 1) " ")
	next
}
/^#/ { next }   # #pragma and other directives cc -E keeps
!ours { next }

{
	line = $0 "\n"
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		if (instr != "") {          # inside a string or char literal
			if (c == "\\")
				i++
			else if (c == instr)
				instr = ""
			continue
		}
		if (c == "\"" || c == "'") {
			instr = c
			continue
		}
		if (c == "{") {
			if (braces == 0)
				head = decl
			braces++
			continue
		}
		if (c == "}") {
			braces--
			# A body closing at depth 0 after ')' was a function
			# definition (no ';' follows it): its head is one
			# declaration. After "struct x" or "=" the declaration
			# goes on until ';'.
			if (braces == 0) {
				h = head
				sub(/[ \t\n]+$/, "", h)
				if (h ~ /\)$/) {
					emit(h)
					reset_decl()
				}
			}
			continue
		}
		if (braces > 0)
			continue
		if (c == ";") {
			emit(decl)
			reset_decl()
			continue
		}
		decl = decl c
	}
}
