/* SPDX-License-Identifier: Apache-2.0 */
/*
 * worddiff.h - a word-level diff of two short texts (passages around a
 * quote), in the form `git diff --word-diff=plain` prints: words only in the
 * old text as [-...-], words only in the new one as {+...+}, common words as
 * they are. Readable in a terminal, a Markdown report and a database cell.
 */
#ifndef ISOTIER_WORDDIFF_H
#define ISOTIER_WORDDIFF_H

#include <stddef.h>

/* Words compared by the longest common subsequence; past this many words on
 * either side (after the common head and tail are set aside) the middle is
 * shown as one removal and one addition: bounded time and memory. */
#define ISOTIER_WORDDIFF_MAX_WORDS 1024

/*
 * The diff of old_text and new_text (words split at ASCII whitespace),
 * valid UTF-8 (invalid bytes become U+FFFD) and at most max_out bytes
 * (>= 64; cut at a character boundary with " [...]" when longer). *changes
 * (may be NULL) counts the removed and added runs: 0 when the words are the
 * same. Returns a malloc'd string, or NULL when out of memory.
 */
char *isotier_word_diff(const char *old_text, const char *new_text, size_t max_out,
                        size_t *changes);

#endif
