/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz.h - what every libFuzzer harness in tests/fuzz/ shares. A harness
 * asserts properties of what the code under test produced, not only that it
 * did not crash: FUZZ_ASSERT prints the property and aborts, which libFuzzer
 * reports as a crash with the input saved.
 */
#ifndef ISOTIER_FUZZ_H
#define ISOTIER_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/base.h"

#define FUZZ_ASSERT(cond, ...)                                                                     \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "property failed: %s (%s:%d): ", #cond, __FILE__,          \
			        __LINE__);                                                         \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (the parsers under test take C
 * strings or lengths; both see the same bytes). Caller frees. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* What a writer put on a stream, NUL-terminated. Caller frees. */
static inline char *fuzz_render(void (*put)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	put(f, s);
	fclose(f);
	return buf;
}

/* Escaped text for a terminal, a table cell, HTML or Markdown: valid UTF-8,
 * no C0/C1 control other than what the writer may keep (allow: "\n\t" or ""),
 * no bidi control, and none of the characters in `markup`. */
static inline void fuzz_assert_inert(const char *out, const char *allow, const char *markup,
                                     const char *writer)
{
	size_t len = strlen(out);
	FUZZ_ASSERT(isotier__utf8_valid(out, len), "%s wrote invalid UTF-8", writer);
	const unsigned char *p = (const unsigned char *)out;
	for (size_t i = 0; i < len;) {
		/* Printable ASCII, most of any output: only markup to check (the
		 * per-character decode was most of a harness's own time). */
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			FUZZ_ASSERT(!strchr(markup, p[i]), "%s let markup '%c' through at byte %zu",
			            writer, (char)p[i], i);
			i++;
			continue;
		}
		uint32_t cp = 0;
		size_t n = isotier__utf8_decode(p + i, len - i, &cp);
		FUZZ_ASSERT(n > 0, "%s: undecodable at %zu", writer, i);
		bool kept = cp < 0x80 && cp && strchr(allow, (int)cp);
		FUZZ_ASSERT(kept || !isotier__unicode_unsafe(cp),
		            "%s let U+%04X through at byte %zu", writer, (unsigned)cp, i);
		FUZZ_ASSERT(cp >= 0x80 || !cp || !strchr(markup, (int)cp),
		            "%s let markup '%c' through at byte %zu", writer, (char)cp, i);
		i += n;
	}
}

#endif
