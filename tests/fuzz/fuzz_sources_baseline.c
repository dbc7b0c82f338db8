/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_sources_baseline.c - what `sources check` keeps of a page and reads
 * back: the baseline file (hostile JSON) and the passage and word diff
 * around a quote. Properties: a baseline that parses saves and parses again
 * to the same entries; the passage around a quote taken from the input's
 * normalised text contains the quote, is valid UTF-8 and is bounded; the
 * page compared with its own baseline is unchanged, and with an altered
 * passage is "passage changed" with a bounded, valid UTF-8 diff. */
#include "fuzz.h"

#include "../../verify/sources/htmltext.h"
#include "../../verify/sources/sha256.h"
#include "../../verify/sources/sources_baseline.h"
#include "../../verify/sources/worddiff.h"

#include <unistd.h>

static void baseline_round_trip(const uint8_t *data, size_t size)
{
	sources_baseline b = {0}, again = {0};
	isotier_error err = {0};
	if (sources_baseline_parse(&b, (const char *)data, size, "fuzz", &err) < 0) {
		FUZZ_ASSERT(b.n == 0 && err.message[0],
		            "a refused baseline kept entries or no error");
		return;
	}
	char path[] = "/tmp/fuzz-baseline-XXXXXX";
	int fd = mkstemp(path);
	FUZZ_ASSERT(fd >= 0, "mkstemp");
	close(fd);
	FUZZ_ASSERT(sources_baseline_save(&b, path, &err) == 0, "save: %s", err.message);
	FUZZ_ASSERT(sources_baseline_load(&again, path, &err) == 0, "reload: %s", err.message);
	unlink(path);
	FUZZ_ASSERT(again.n == b.n, "round trip: %zu entries became %zu", b.n, again.n);
	for (size_t i = 0; i < b.n; i++) {
		const sources_baseline_entry *e =
		    sources_baseline_find(&again, b.e[i].url, b.e[i].quote);
		FUZZ_ASSERT(e && !strcmp(e->passage, b.e[i].passage) &&
		                !strcmp(e->main_text_sha256, b.e[i].main_text_sha256),
		            "entry %zu changed in the round trip", i);
	}
	sources_baseline_free(&b);
	sources_baseline_free(&again);
}

static void passage_properties(const uint8_t *data, size_t size)
{
	char *norm = isotier_text_normalise((const char *)data, size);
	FUZZ_ASSERT(norm, "normalise");
	size_t len = strlen(norm);
	if (len < 3) {
		free(norm);
		return;
	}
	/* The quote: a slice of the text at character boundaries. */
	size_t qs = len / 3, qe = len - len / 3;
	while (qs < qe && ((unsigned char)norm[qs] & 0xc0) == 0x80)
		qs++;
	while (qe < len && ((unsigned char)norm[qe] & 0xc0) == 0x80)
		qe++;
	char *quote = fuzz_strndup((const uint8_t *)norm + qs, qe - qs);
	char sha[65];
	isotier__sha256_hex(norm, len, sha);
	sources_change c;
	char *passage = NULL, *diff = NULL;
	FUZZ_ASSERT(sources_compare(norm, norm, sha, quote, NULL, &c, &passage, &diff) == 0,
	            "compare");
	char *nq = isotier_text_normalise(quote, strlen(quote));
	if (nq[0]) {
		FUZZ_ASSERT(passage && strstr(passage, nq), "the passage lacks its quote");
		FUZZ_ASSERT(isotier__utf8_valid(passage, strlen(passage)), "passage not UTF-8");
		FUZZ_ASSERT(strlen(passage) <= strlen(nq) + 2 * SOURCES_PASSAGE_SIDE_MAX + 2,
		            "passage of %zu bytes for a quote of %zu", strlen(passage), strlen(nq));
		sources_baseline_entry be = {.main_text_sha256 = sha, .passage = passage};
		FUZZ_ASSERT(sources_compare(norm, norm, sha, quote, &be, &c, NULL, NULL) == 0 &&
		                c == SOURCES_UNCHANGED,
		            "the page against its own baseline: %s", sources_change_name(c));
		size_t pl = strlen(passage);
		char *other = malloc(pl + 16);
		FUZZ_ASSERT(other, "malloc");
		memcpy(other, passage, pl);
		memcpy(other + pl, " zq-altered", 12);
		be.passage = other;
		FUZZ_ASSERT(sources_compare(norm, norm, sha, quote, &be, &c, NULL, &diff) == 0,
		            "compare 3");
		FUZZ_ASSERT(c == SOURCES_PASSAGE_CHANGED || strstr(norm, other),
		            "an altered passage read as %s", sources_change_name(c));
		if (diff)
			FUZZ_ASSERT(strlen(diff) <= SOURCES_DIFF_MAX &&
			                isotier__utf8_valid(diff, strlen(diff)),
			            "diff unbounded or not UTF-8");
		free(other);
	}
	/* The word diff of the raw input's halves, hostile bytes and all. */
	char *a = fuzz_strndup(data, size / 2), *b = fuzz_strndup(data + size / 2, size - size / 2);
	size_t k = 0;
	char *d = isotier_word_diff(a, b, 512, &k);
	FUZZ_ASSERT(d && strlen(d) <= 512 && isotier__utf8_valid(d, strlen(d)), "word diff");
	size_t k2 = 1;
	char *same = isotier_word_diff(a, a, 512, &k2);
	FUZZ_ASSERT(same && k2 == 0, "a text differs from itself in %zu runs", k2);
	free(same);
	free(d);
	free(a);
	free(b);
	free(diff);
	free(nq);
	free(passage);
	free(quote);
	free(norm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	baseline_round_trip(data, size);
	passage_properties(data, size);
	return 0;
}
