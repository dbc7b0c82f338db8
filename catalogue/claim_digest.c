/* SPDX-License-Identifier: Apache-2.0 */
/*
 * claim_digest.c - the canonical form of a catalogue claim (catalogue.h).
 *
 * Why the text and not a hash of it: libisotier links libcurl, cJSON and
 * SQLite only; none gives the library a cryptographic hash (SQLite's sha3()
 * is an extension of its shell, not of the library). A small well-known
 * hash (FNV-1a, CRC) is no digest against a party that writes claims: a
 * changed claim with the old hash is easy to construct for either. So the
 * "digest" is the canonical string itself, compared byte for byte: nothing
 * to collide. It is a few hundred bytes per observation (an entry's file is
 * bounded at 256 KiB, its sources at a handful).
 *
 * Format (version 1): "isotier-claim/1" then, for each field, "\n" LEN ":"
 * BYTES, LEN the field's length in decimal: provider id, tier name,
 * mechanism, the number of sources, then each source's url, retrieved and
 * quote in the entry's order, then "scope" and the scope when the entry has
 * one. Length-prefixed, so no field's content can
 * move bytes into another. A missing string is the empty one.
 */
#include "catalogue.h"

#include <string.h>

static void field(isotier_strbuf *c, const char *s)
{
	char head[32];
	size_t n = s ? strlen(s) : 0;
	int h = snprintf(head, sizeof head, "\n%zu:", n);
	isotier__strbuf_add(c, head, (size_t)h);
	isotier__strbuf_add(c, s ? s : "", n);
}

char *isotier__claim_digest(const isotier_provider *p)
{
	if (!p)
		return NULL;
	isotier_strbuf c = {0};
	char count[24];
	isotier__strbuf_add(&c, "isotier-claim/1", strlen("isotier-claim/1"));
	field(&c, p->id);
	field(&c, isotier_tier_name(p->tier));
	field(&c, p->mechanism);
	snprintf(count, sizeof count, "%zu", p->n_sources);
	field(&c, count);
	for (size_t i = 0; i < p->n_sources; i++) {
		field(&c, p->sources[i].url);
		field(&c, p->sources[i].retrieved);
		field(&c, p->sources[i].quote);
	}
	/* The scope narrows the claim (between accounts only): a proof judged
	 * without it stops counting once it is set. Absent, the form is
	 * unchanged, so older digests still match. */
	if (p->scope) {
		field(&c, "scope");
		field(&c, p->scope);
	}
	if (c.oom) {
		free(c.buf);
		return NULL;
	}
	return c.buf;
}
