// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The byte-by-byte prefix parser: every prefix form the text reader takes
 * (tracefs, trace-cmd report and its -l, record-tgid, instance names).
 */
#include <superpass/trace.h>

#include "sp_trace_parse.h"
#include "sp_trace_scan.h"

/* Back from @q over spaces, not before @p. */
static inline const char *spaces_back(const char *p, const char *q)
{
	while (q > p && is_space(q[-1]))
		q--;
	return q;
}

/* Back from @q over a word (no spaces), not before @p: its start. */
static inline const char *word_back(const char *p, const char *q)
{
	while (q > p && !is_space(q[-1]))
		q--;
	return q;
}

/* The prefix of an event line, [p, e) with p at its first non-space byte:
 * the timestamp, CPU, flags, pid and comm into @ev, and the event's name
 * [*name, *ne). 1 when there is one, else parse_line's value for the line
 * (*why set). Byte by byte: every form the reader takes. */
int sp_trace_prefix_general(const char *p, const char *e, struct sp_trace_event *ev,
			  const char **why, const char **name_out, const char **ne_out)
{
	const char *ts = NULL, *te = NULL, *q, *cpu_tok = NULL;
	const char *name, *ne, *pre_e, *tok, *tok_e, *dash;
	uint64_t secs = 0, frac = 0;
	int fd = 0;
	int64_t v;

	/* The timestamp: the first " SECS[.FRAC]: " */
	for (q = p; q + 1 < e; q++) {
		const char *d;

		q = find_byte(q, e - 1, ':');
		if (!q)
			break;
		if (q[1] != ' ')
			continue;
		d = q;
		while (d > p && is_digit(d[-1]))
			d--;
		if (d < q && d > p && d[-1] == '.') {
			const char *s = d - 1;

			while (s > p && is_digit(s[-1]))
				s--;
			if (s < d - 1 && s > p && is_space(s[-1])) {
				ts = s;
				te = q;
				break;
			}
		} else if (d < q && d > p && is_space(d[-1])) {
			ts = d;
			te = q;
			break;
		}
	}
	if (!ts) {
		*why = "no timestamp";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	for (q = ts; q < te && *q != '.'; q++) {
		if (secs > UINT64_MAX / 10 - 10)
			goto bad_ts;
		secs = secs * 10 + (uint64_t)(*q - '0');
	}
	if (q < te) {
		for (q++; q < te; q++, fd++)
			if (fd < 9)
				frac = frac * 10 + (uint64_t)(*q - '0');
		for (; fd < 9; fd++)
			frac *= 10;
		if (secs > (UINT64_MAX - frac) / 1000000000ull)
			goto bad_ts;
		ev->ts_ns = secs * 1000000000ull + frac;
	} else {
		ev->ts_ns = secs; /* a counter clock: raw units */
	}

	/* The prefix, right to left: [flags] [CPU] [(tgid)] comm-pid */
	ev->cpu = -1;
	pre_e = spaces_back(p, ts);
	tok_e = pre_e;
	tok = word_back(p, tok_e);
	if (tok < tok_e && tok[0] == '[' && tok_e[-1] == ']') {
		cpu_tok = tok;
	} else if (flags_token(tok, tok_e)) {
		const char *c = tok, *f;

		while (c < tok_e && is_digit(*c))
			c++;
		f = c;
		if (c > tok && tok_e - f >= 4) { /* trace-cmd -l: CPU digits fused */
			q = tok;
			if (!parse_dec(&q, c, &v) && v < INT32_MAX)
				ev->cpu = (int32_t)v;
		}
		ev->flags |= SP_TRACE_EVF_CTX_KNOWN;
		if (tok_e - f >= 3 && (f[2] == 'h' || f[2] == 'H' || f[2] == 's' || f[2] == 'S' ||
				       f[2] == 'z' || f[2] == 'Z'))
			ev->flags |= SP_TRACE_EVF_IRQ;
		pre_e = spaces_back(p, tok);
		tok_e = pre_e;
		tok = word_back(p, tok_e);
		if (ev->cpu < 0 && tok < tok_e && tok[0] == '[' && tok_e[-1] == ']')
			cpu_tok = tok;
	}
	if (cpu_tok) {
		q = cpu_tok + 1;
		if (parse_dec(&q, tok_e - 1, &v) || q != tok_e - 1 || v < 0 || v > 1 << 20) {
			*why = "bad CPU column";
			return -(1 + SP_TRSK_BAD_VALUE);
		}
		ev->cpu = (int32_t)v;
		pre_e = spaces_back(p, cpu_tok);
	} else if (ev->cpu < 0) {
		*why = "no CPU column";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	/* "(  123)" or "(-----)" */
	if (pre_e > p && pre_e[-1] == ')') {
		q = pre_e - 1;
		while (q > p && *q != '(')
			q--;
		if (*q != '(') {
			*why = "unbalanced tgid column";
			return -(1 + SP_TRSK_UNPARSABLE);
		}
		pre_e = spaces_back(p, q);
	}
	/* trace-cmd's instance name: "sptest:   comm-pid" */
	q = find_space(p, pre_e, true);
	if (q > p && q < pre_e && q[-1] == ':') {
		while (q < pre_e && is_space(*q))
			q++;
		p = q;
	}
	dash = NULL;
	for (q = pre_e - 1; q > p; q--)
		if (*q == '-') {
			dash = q;
			break;
		}
	if (!dash || dash + 1 >= pre_e) {
		*why = "no comm-pid";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	q = dash + 1;
	if (parse_i32(&q, pre_e, &ev->pid) || q != pre_e || ev->pid < 0) {
		*why = "bad pid";
		return -(1 + SP_TRSK_BAD_VALUE);
	}
	copy_comm(ev->comm, p, dash);

	name = te + 2;
	while (name < e && is_space(*name))
		name++;
	ne = name;
	while (ne < e && (cls[(unsigned char)*ne] & CL_WORD))
		ne++;
	*name_out = name;
	*ne_out = ne;
	return 1;

bad_ts:
	*why = "timestamp out of range";
	return -(1 + SP_TRSK_BAD_VALUE);
}
