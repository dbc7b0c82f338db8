/* SPDX-License-Identifier: Apache-2.0 */
/* sources_page.c - the readable and main text of a fetched page
 * (sources_page.h). */
#include "sources_page.h"

#include "dl_xml.h"
#include "htmltext.h"
#include "sha256.h"

#include <string.h>
#include <strings.h>

void sources_page_free(sources_page *p)
{
	free(p->full);
	free(p->main_text);
	memset(p, 0, sizeof *p);
}

int sources_page_read(sources_page *p, const isotier_fetch_result *f, char *detail, size_t dlen)
{
	memset(p, 0, sizeof *p);
	const char *ct = f->content_type ? f->content_type : "";
	char charset[64] = "";
	const char *cs = strcasestr(ct, "charset=");
	if (cs) {
		cs += 8;
		size_t i = 0;
		while (cs[i] && cs[i] != ';' && cs[i] != ' ' && cs[i] != '"' &&
		       i + 1 < sizeof charset) {
			charset[i] = cs[i];
			i++;
		}
		charset[i] = '\0';
	}
	bool html = !ct[0] || strcasestr(ct, "html") || strcasestr(ct, "xml");
	bool text = !strncasecmp(ct, "text/", 5) || strcasestr(ct, "json");
	if (html) {
		char *raw = NULL, *raw_main = NULL;
		int rc = isotier_html_texts(&raw, &raw_main, f->body, f->body_len,
		                            charset[0] ? charset : NULL);
		if (rc == ISOTIER_EUNAVAILABLE) {
			isotier_error err = ISOTIER_ERROR_INIT;
			isotier__dl_xml_open(&err);
			snprintf(detail, dlen, "%s", err.message);
			return rc;
		}
		if (rc < 0) {
			snprintf(detail, dlen,
			         rc == ISOTIER_ENOMEM ? "out of memory"
			                              : "page could not be parsed as HTML");
			return rc == ISOTIER_ENOMEM ? rc : ISOTIER_EDATA;
		}
		p->full = isotier_text_normalise(raw, strlen(raw));
		p->main_text = isotier_text_normalise(raw_main, strlen(raw_main));
		free(raw);
		free(raw_main);
	} else if (text) {
		/* A text page (markdown, llms.txt, a raw README) has no chrome to
		 * tell apart: its main text is all of it. */
		p->full = isotier_text_normalise(f->body, f->body_len);
		p->main_text = p->full ? strdup(p->full) : NULL;
	} else {
		snprintf(detail, dlen, "content type '%.60s' is not text; quote not checkable", ct);
		return ISOTIER_EDATA;
	}
	if (!p->full || !p->main_text) {
		sources_page_free(p);
		snprintf(detail, dlen, "out of memory");
		return ISOTIER_ENOMEM;
	}
	isotier__sha256_hex(p->main_text, strlen(p->main_text), p->main_sha);
	return 0;
}
