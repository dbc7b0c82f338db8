/* SPDX-License-Identifier: Apache-2.0 */
/* sources_page.h - the text of a fetched page that `sources check` reads: the
 * whole readable text (quotes are looked for in it) and the main text (chrome
 * left out) with its SHA-256, both normalised (htmltext.h). */
#ifndef ISOTIER_SOURCES_PAGE_H
#define ISOTIER_SOURCES_PAGE_H

#include "fetch.h"

typedef struct sources_page {
	char *full;      /* normalised readable text */
	char *main_text; /* normalised main text: HTML without its chrome; text as is */
	char main_sha[65];
} sources_page;

/* Reads f's body (HTML by libxml2, text/JSON as is; the HTTP charset
 * honoured). Returns 0, or <0 with detail saying why the page cannot be read
 * (not text, not parseable, out of memory: ISOTIER_ENOMEM, libxml2 not
 * loadable: ISOTIER_EUNAVAILABLE). */
int sources_page_read(sources_page *p, const isotier_fetch_result *f, char *detail, size_t dlen);
void sources_page_free(sources_page *p);

#endif
