/* SPDX-License-Identifier: Apache-2.0 */
/* sources_passage.c - the passage around a quote and how a page moved
 * against its kept baseline (sources_baseline.h). */
#include "htmltext.h"
#include "sources_baseline.h"
#include "worddiff.h"

#include <string.h>

const char *sources_change_name(sources_change c)
{
	switch (c) {
	case SOURCES_UNCHANGED: return "none";
	case SOURCES_QUOTE_GONE: return "quote_gone";
	case SOURCES_PASSAGE_CHANGED: return "passage_changed";
	case SOURCES_PAGE_CHANGED: return "page_changed";
	}
	return "none";
}

const char *sources_change_words(sources_change c)
{
	switch (c) {
	case SOURCES_UNCHANGED: return "unchanged";
	case SOURCES_QUOTE_GONE: return "quote gone";
	case SOURCES_PASSAGE_CHANGED: return "passage changed";
	case SOURCES_PAGE_CHANGED: return "page changed elsewhere";
	}
	return "unchanged";
}

static bool sentence_end(const char *t, size_t len, size_t i)
{
	return (t[i] == '.' || t[i] == '!' || t[i] == '?') && (i + 1 == len || t[i + 1] == ' ');
}

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

char *sources_passage(const char *text, size_t len, size_t qs, size_t qe)
{
	if (qs > qe || qe > len)
		return NULL;
	/* Start: after the second sentence end before the quote (the one that
	 * ends the sentence before the quote's), within the side limit. */
	size_t start = 0, floor = qs > SOURCES_PASSAGE_SIDE_MAX ? qs - SOURCES_PASSAGE_SIDE_MAX : 0;
	int ends = 0;
	bool found = false;
	for (size_t i = qs; i-- > floor;) {
		if (i + 1 < qs && sentence_end(text, len, i) && ++ends == 2) {
			start = i + 2;
			found = true;
			break;
		}
	}
	if (!found && floor > 0) { /* cut: begin at the first word inside the limit */
		start = floor;
		const char *sp = memchr(text + floor, ' ', qs - floor);
		if (sp)
			start = (size_t)(sp - text) + 1;
		while (start < qs && continuation((unsigned char)text[start]))
			start++;
	}
	/* End: the second sentence end from the quote's last character (a
	 * quote ending with its full stop ends its own sentence). */
	size_t ceil = len - qe > SOURCES_PASSAGE_SIDE_MAX ? qe + SOURCES_PASSAGE_SIDE_MAX : len;
	size_t end = ceil;
	ends = 0;
	found = false;
	for (size_t i = qe > qs ? qe - 1 : qe; i < ceil; i++) {
		if (sentence_end(text, len, i) && ++ends == 2) {
			end = i + 1;
			found = true;
			break;
		}
	}
	if (!found && ceil < len) { /* cut: end at the last word inside the limit */
		size_t e = ceil;
		while (e > qe && text[e] != ' ')
			e--;
		end = e > qe ? e : ceil;
		while (end > qe && continuation((unsigned char)text[end]))
			end--;
	}
	while (start < end && text[start] == ' ')
		start++;
	while (end > start && text[end - 1] == ' ')
		end--;
	char *p = malloc(end - start + 1);
	if (!p)
		return NULL;
	memcpy(p, text + start, end - start);
	p[end - start] = '\0';
	return p;
}

/* Up to SOURCES_PASSAGE_MAX_HITS passages of nq in text, appended to out. */
static int passages_in(const char *text, const char *nq, char **out, size_t *n)
{
	size_t len = strlen(text), qlen = strlen(nq);
	if (!qlen)
		return 0;
	for (const char *p = text; *n < SOURCES_PASSAGE_MAX_HITS && (p = strstr(p, nq)); p++) {
		size_t qs = (size_t)(p - text);
		char *s = sources_passage(text, len, qs, qs + qlen);
		if (!s)
			return ISOTIER_ENOMEM;
		out[(*n)++] = s;
	}
	return 0;
}

int sources_compare(const char *full, const char *main_text, const char *main_sha,
                    const char *quote, const sources_baseline_entry *base, sources_change *change,
                    char **passage_out, char **diff_out)
{
	*change = SOURCES_UNCHANGED;
	if (passage_out)
		*passage_out = NULL;
	if (diff_out)
		*diff_out = NULL;
	char *nq = isotier_text_normalise(quote, strlen(quote));
	if (!nq)
		return ISOTIER_ENOMEM;
	char *hits[SOURCES_PASSAGE_MAX_HITS];
	size_t n_main = 0, n = 0;
	int rc = passages_in(main_text ? main_text : "", nq, hits, &n_main);
	n = n_main;
	/* The full text only when the main text lacks the quote: a quote
	 * inside chrome (a header) is still read, its passage from there. */
	if (rc == 0 && !n_main)
		rc = passages_in(full ? full : "", nq, hits, &n);
	free(nq);
	if (rc < 0)
		goto out;
	if (!n) {
		*change = SOURCES_QUOTE_GONE;
		goto out;
	}
	if (passage_out && !(*passage_out = strdup(hits[0]))) {
		rc = ISOTIER_ENOMEM;
		goto out;
	}
	if (!base)
		goto out;
	bool same = false;
	for (size_t i = 0; i < n && !same; i++)
		same = base->passage && !strcmp(hits[i], base->passage);
	if (same) {
		*change =
		    base->main_text_sha256 && main_sha && strcmp(base->main_text_sha256, main_sha)
		        ? SOURCES_PAGE_CHANGED
		        : SOURCES_UNCHANGED;
		goto out;
	}
	*change = SOURCES_PASSAGE_CHANGED;
	if (diff_out) {
		/* The occurrence closest to the kept passage: fewest changed runs. */
		size_t best = (size_t)-1;
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			char *d = isotier_word_diff(base->passage ? base->passage : "", hits[i],
			                            SOURCES_DIFF_MAX, &k);
			if (!d) {
				rc = ISOTIER_ENOMEM;
				break;
			}
			if (k < best) {
				best = k;
				free(*diff_out);
				*diff_out = d;
			} else {
				free(d);
			}
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		free(hits[i]);
	if (rc < 0 && passage_out) {
		free(*passage_out);
		*passage_out = NULL;
	}
	if (rc < 0 && diff_out) {
		free(*diff_out);
		*diff_out = NULL;
	}
	return rc;
}
