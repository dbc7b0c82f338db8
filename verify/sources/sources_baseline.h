/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sources_baseline.h - what was read when a source was retrieved, kept so a
 * later `sources check` can say how the page moved, not only whether the
 * quote's words are still somewhere on it. Per (url, quote): the SHA-256 of
 * the page's normalised main text (chrome left out: htmltext.h) and the
 * passage around the quote (the quote's sentence and one sentence either
 * side, normalised). The file (FORMAT.md, "Source baselines") is
 * catalogue/sources.lock.json beside the provider directory:
 *   {"format": "isotier.sources-baseline/1",
 *    "sources": [{"url", "quote", "taken_at", "main_text_sha256", "passage"}...]}
 * Hostile input: bounded size and counts, every field type-checked, an
 * unknown key or a duplicate (url, quote) refused with the file and field.
 */
#ifndef ISOTIER_SOURCES_BASELINE_H
#define ISOTIER_SOURCES_BASELINE_H

#include "../../reference/api/isotier_tool.h"

#define SOURCES_BASELINE_FORMAT    "isotier.sources-baseline/1"
#define SOURCES_BASELINE_MAX_BYTES (32 * 1024 * 1024)
#define SOURCES_BASELINE_MAX       65536 /* entries */
/* Context kept either side of the quote, in bytes of normalised text. */
#define SOURCES_PASSAGE_SIDE_MAX 400
/* Occurrences of one quote looked at (a quote repeated in a page). */
#define SOURCES_PASSAGE_MAX_HITS 16
/* A stored passage diff, bytes (the history row keeps it). */
#define SOURCES_DIFF_MAX 4096

typedef struct sources_baseline_entry {
	char *url, *quote, *taken_at, *main_text_sha256, *passage;
} sources_baseline_entry;

typedef struct sources_baseline {
	sources_baseline_entry *e;
	size_t n, cap;
} sources_baseline;

/* Reads path into b (empty when the file does not exist). Returns 0, or
 * ISOTIER_EDATA / ISOTIER_EIO / ISOTIER_ENOMEM with err naming the file and
 * field. */
int sources_baseline_load(sources_baseline *b, const char *path, isotier_error *err);
/* The same from text already read (path names it in errors). */
int sources_baseline_parse(sources_baseline *b, const char *text, size_t len, const char *path,
                           isotier_error *err);
/* The entry for (url, quote), or NULL. */
const sources_baseline_entry *sources_baseline_find(const sources_baseline *b, const char *url,
                                                    const char *quote);
/* Adds or replaces (url, quote). 0 or ISOTIER_ENOMEM. */
int sources_baseline_put(sources_baseline *b, const char *url, const char *quote,
                         const char *taken_at, const char *main_text_sha256, const char *passage);
/* Drops every entry for which keep() says no. */
void sources_baseline_filter(sources_baseline *b,
                             bool (*keep)(const sources_baseline_entry *e, void *arg), void *arg);
/* Writes b to path atomically (a temporary file in the same directory,
 * renamed over it), entries sorted by url then quote so the file diffs
 * well. A symbolic link or non-regular file at path is refused. */
int sources_baseline_save(const sources_baseline *b, const char *path, isotier_error *err);
void sources_baseline_free(sources_baseline *b);

/*
 * The passage around the quote occurrence text[qs..qe) of normalised text:
 * from the start of the sentence before the quote's to the end of the
 * sentence after it (sentences end at ". ", "! ", "? "), at most
 * SOURCES_PASSAGE_SIDE_MAX bytes either side, cut at a space (or a character
 * boundary when there is none). Malloc'd; NULL when out of memory.
 */
char *sources_passage(const char *text, size_t len, size_t qs, size_t qe);

/* How a page moved against its baseline. */
typedef enum {
	SOURCES_UNCHANGED = 0,   /* "none": passage and main text as kept */
	SOURCES_QUOTE_GONE,      /* the quote is not on the page */
	SOURCES_PASSAGE_CHANGED, /* the quote is there; the sentences around it differ */
	SOURCES_PAGE_CHANGED,    /* the passage is the same; the main text differs elsewhere */
} sources_change;
/* "none", "quote_gone", "passage_changed", "page_changed". */
const char *sources_change_name(sources_change c);
/* The same for a terminal: "unchanged", "passage changed"... */
const char *sources_change_words(sources_change c);

/*
 * What to keep for a quote, and how the page moved against base (NULL: no
 * baseline; *change is then left UNCHANGED and means nothing). full and
 * main_text are normalised (isotier_text_normalise); main_sha the hex
 * SHA-256 of main_text. The passage is taken from the main text when the
 * quote is there, else from the full text; a repeated quote matches when any
 * occurrence's passage is the kept one. *passage_out (may be NULL): the
 * passage to keep, NULL when the quote is not on the page; *diff_out (may be
 * NULL): for PASSAGE_CHANGED, a word diff of the kept passage against
 * today's, bounded by SOURCES_DIFF_MAX; else NULL. Returns 0 or
 * ISOTIER_ENOMEM.
 */
int sources_compare(const char *full, const char *main_text, const char *main_sha,
                    const char *quote, const sources_baseline_entry *base, sources_change *change,
                    char **passage_out, char **diff_out);

#endif
