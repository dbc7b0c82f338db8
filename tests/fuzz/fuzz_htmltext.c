/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_htmltext.c - a web page, as `sources check` reads it: text
 * extraction (libxml2 push parser, SAX), normalisation, quote search.
 * Properties: normalisation is idempotent and yields valid UTF-8 with
 * whitespace collapsed (no tab or newline, no double or edge space); the normalised text contains
 * every part of itself. */
#include "fuzz.h"

#include "../../verify/sources/htmltext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *raw = NULL;
	int rc = isotier_html_text(&raw, (const char *)data, size,
	                           size && data[0] & 1 ? "ISO-8859-1" : NULL);
	if (rc != 0) {
		FUZZ_ASSERT(rc == ISOTIER_EDATA || rc == ISOTIER_ENOMEM, "rc %d", rc);
		return 0;
	}
	size_t len = strlen(raw);
	char *n = isotier_text_normalise(raw, len);
	FUZZ_ASSERT(n, "normalise: NULL");
	size_t nl = strlen(n);
	FUZZ_ASSERT(isotier__utf8_valid(n, nl), "normalised text is not UTF-8");
	for (size_t i = 0; i < nl; i++)
		FUZZ_ASSERT(n[i] != '\t' && n[i] != '\n' && n[i] != '\r' &&
		                !(n[i] == ' ' && n[i + 1] == ' '),
		            "whitespace not collapsed at %zu", i);
	FUZZ_ASSERT(!nl || (n[0] != ' ' && n[nl - 1] != ' '), "leading or trailing space");
	char *twice = isotier_text_normalise(n, nl);
	FUZZ_ASSERT(twice && !strcmp(twice, n), "normalise is not idempotent");
	if (nl) {
		FUZZ_ASSERT(isotier_text_has_quote(n, n) == 1, "text does not contain itself");
		/* Any whole word of it is found as a quote. */
		const char *sp = strchr(n, ' ');
		if (sp) {
			char *word = fuzz_strndup((const uint8_t *)n, (size_t)(sp - n));
			FUZZ_ASSERT(isotier_text_has_quote(n, word) == 1,
			            "first word '%s' not found", word);
			free(word);
		}
	}
	free(twice);
	free(n);
	free(raw);
	return 0;
}
