/* SPDX-License-Identifier: Apache-2.0 */
/*
 * emit.c - stream a capture directory as text, for consoles that are the
 * only way out (a microVM's serial line). Per regular file:
 *
 *   ISOTIER-CAPTURE-FILE <relative-path> <size-in-bytes>
 *   <base64 of the content, lines of at most 76 characters>
 *   ISOTIER-CAPTURE-END          (after every file, not once per stream)
 *
 * Relative paths never start with '/' and never contain ".."; names with
 * blanks or control characters are skipped, so a line splits on spaces.
 * Files appear in path order.
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

static void probe_base64(FILE *f, const unsigned char *d, size_t n)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t col = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		char q[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63],
		             i + 1 < n ? tab[(v >> 6) & 63] : '=', i + 2 < n ? tab[v & 63] : '='};
		fwrite(q, 1, 4, f);
		col += 4;
		if (col >= 76) {
			fputc('\n', f);
			col = 0;
		}
	}
	if (col)
		fputc('\n', f);
}

static bool probe_name_ok(const char *rel)
{
	if (!rel[0] || rel[0] == '/' || strstr(rel, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int probe_cmp_cached(const void *a, const void *b)
{
	const struct probe_cached *x = *(const struct probe_cached *const *)a;
	const struct probe_cached *y = *(const struct probe_cached *const *)b;
	return strcmp(x->path, y->path);
}

/*
 * Streams what the run read: the very bytes the capture directory holds, but
 * taken from memory, so it also works where no directory can be written (a
 * read-only container root without /tmp).
 */
int probe_emit_capture(FILE *f, const struct probe_input *in)
{
	const struct probe_cached *sorted[PROBE_MAX_INPUTS] = {0};
	size_t n = 0;
	for (size_t i = 0; i < in->ncache; i++)
		if (in->cache[i].data && probe_name_ok(in->cache[i].path + 1))
			sorted[n++] = &in->cache[i];
	qsort(sorted, n, sizeof(*sorted), probe_cmp_cached);
	for (size_t i = 0; i < n; i++) {
		size_t len = (size_t)sorted[i]->len;
		fprintf(f, "ISOTIER-CAPTURE-FILE %s %zu\n", sorted[i]->path + 1, len);
		probe_base64(f, (const unsigned char *)sorted[i]->data, len);
		fputs("ISOTIER-CAPTURE-END\n", f);
	}
	fflush(f);
	return 0;
}
