/* SPDX-License-Identifier: Apache-2.0 */
/* worddiff.c - word-level diff (worddiff.h): the common head and tail set
 * aside, the longest common subsequence of the rest by dynamic programming
 * over at most ISOTIER_WORDDIFF_MAX_WORDS words a side. */
#include "worddiff.h"

#include "../../reference/api/isotier_tool.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct word {
	const char *s;
	size_t n;
};

struct words {
	struct word *w;
	size_t n;
};

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int split(struct words *out, const char *s)
{
	size_t n = 0; /* words: runs of non-space after a space or the start */
	for (const char *p = s; *p; p++)
		n += !is_ws(*p) && (p == s || is_ws(p[-1]));
	out->w = calloc(n ? n : 1, sizeof *out->w);
	if (!out->w)
		return -1;
	out->n = 0;
	for (const char *p = s; *p;) {
		while (*p && is_ws(*p))
			p++;
		if (!*p)
			break;
		const char *start = p;
		while (*p && !is_ws(*p))
			p++;
		out->w[out->n++] = (struct word){start, (size_t)(p - start)};
	}
	return 0;
}

static bool same(const struct word *a, const struct word *b)
{
	return a->n == b->n && !memcmp(a->s, b->s, a->n);
}

/* Op kinds in the edit script. */
enum { SAME, DEL, ADD };

static void emit(isotier_strbuf *o, int *open, int kind, const struct word *w)
{
	if (*open != kind) {
		if (*open == DEL)
			isotier__strbuf_add(o, "-]", 2);
		else if (*open == ADD)
			isotier__strbuf_add(o, "+}", 2);
		if (o->len)
			isotier__strbuf_add(o, " ", 1);
		if (kind == DEL)
			isotier__strbuf_add(o, "[-", 2);
		else if (kind == ADD)
			isotier__strbuf_add(o, "{+", 2);
		*open = kind;
	} else if (o->len) {
		isotier__strbuf_add(o, " ", 1);
	}
	isotier__strbuf_add(o, w->s, w->n);
}

/* Cuts s to at most max bytes at a UTF-8 character boundary, marked. */
static void bound(char *s, size_t max)
{
	size_t len = strlen(s);
	if (len <= max)
		return;
	static const char mark[] = " [...]";
	size_t keep = max - (sizeof mark - 1);
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	memcpy(s + keep, mark, sizeof mark);
}

char *isotier_word_diff(const char *old_text, const char *new_text, size_t max_out, size_t *changes)
{
	if (max_out < 64)
		max_out = 64;
	struct words a = {0}, b = {0};
	isotier_strbuf o = {0};
	uint16_t *dp = NULL;
	size_t n_changes = 0;
	char *result = NULL;
	if (split(&a, old_text ? old_text : "") < 0 || split(&b, new_text ? new_text : "") < 0)
		goto done;
	size_t head = 0;
	while (head < a.n && head < b.n && same(&a.w[head], &b.w[head]))
		head++;
	size_t tail = 0;
	while (tail < a.n - head && tail < b.n - head &&
	       same(&a.w[a.n - 1 - tail], &b.w[b.n - 1 - tail]))
		tail++;
	size_t na = a.n - head - tail, nb = b.n - head - tail;
	int open = SAME;
	isotier__strbuf_add(&o, "", 0);
	for (size_t i = 0; i < head; i++)
		emit(&o, &open, SAME, &a.w[i]);
	const struct word *ma = a.w + head, *mb = b.w + head;
	if (na <= ISOTIER_WORDDIFF_MAX_WORDS && nb <= ISOTIER_WORDDIFF_MAX_WORDS && na && nb) {
		/* dp[i][j]: LCS length of ma[i..] and mb[j..]; fits 16 bits. */
		size_t w = nb + 1;
		dp = calloc((na + 1) * w, sizeof *dp);
		if (!dp)
			goto done;
		for (size_t i = na; i-- > 0;)
			for (size_t j = nb; j-- > 0;)
				dp[i * w + j] =
				    same(&ma[i], &mb[j]) ? (uint16_t)(dp[(i + 1) * w + j + 1] + 1)
				    : dp[(i + 1) * w + j] >= dp[i * w + j + 1] ? dp[(i + 1) * w + j]
				                                               : dp[i * w + j + 1];
		size_t i = 0, j = 0;
		while (i < na || j < nb) {
			int kind;
			if (i < na && j < nb && same(&ma[i], &mb[j]))
				kind = SAME;
			else if (j >= nb || (i < na && dp[(i + 1) * w + j] >= dp[i * w + j + 1]))
				kind = DEL;
			else
				kind = ADD;
			if (kind != SAME && kind != open)
				n_changes++;
			emit(&o, &open, kind, kind == ADD ? &mb[j] : &ma[i]);
			i += kind != ADD;
			j += kind != DEL;
		}
	} else {
		/* One side empty, or too long to compare word by word. */
		for (size_t i = 0; i < na; i++)
			emit(&o, &open, DEL, &ma[i]);
		for (size_t j = 0; j < nb; j++)
			emit(&o, &open, ADD, &mb[j]);
		n_changes = (na > 0) + (nb > 0);
	}
	for (size_t i = 0; i < tail; i++)
		emit(&o, &open, SAME, &a.w[a.n - tail + i]);
	if (open == DEL)
		isotier__strbuf_add(&o, "-]", 2);
	else if (open == ADD)
		isotier__strbuf_add(&o, "+}", 2);
	if (o.oom)
		goto done;
	result = isotier__utf8_scrub(o.buf, NULL);
	if (result)
		bound(result, max_out);
done:
	if (changes)
		*changes = n_changes;
	free(dp);
	free(a.w);
	free(b.w);
	free(o.buf);
	return result;
}
