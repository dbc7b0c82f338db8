/* SPDX-License-Identifier: Apache-2.0 */
/*
 * htmltext.h - the readable text of a web page (libxml2's HTML parser, which
 * recovers from malformed markup) and the normalisation quotes are matched
 * under: whitespace collapsed, case folded, typographic quotes and dashes,
 * non-breaking and zero-width spaces made ASCII.
 */
#ifndef ISOTIER_HTMLTEXT_H
#define ISOTIER_HTMLTEXT_H

#include "../../reference/api/isotier_tool.h"

#define ISOTIER_HTML_MAX_BYTES (64 * 1024 * 1024)

/*
 * Readable text of an HTML document: text nodes in document order, a space
 * at every block boundary, nothing from script, style, noscript, template or
 * comments. encoding: the HTTP charset, or NULL to let libxml2 detect it.
 * *out is UTF-8, NUL-terminated, caller frees. Returns 0, ISOTIER_EDATA (not
 * parseable at all, or the parser stopped before the end: the text would be
 * partial, so "quote not found" could not be trusted), ISOTIER_ENOMEM, or
 * ISOTIER_EUNAVAILABLE when libxml2 cannot be loaded (dl_xml.h says why).
 * Nesting depth is not limited (XML_PARSE_HUGE; the input is bounded).
 */
int isotier_html_text(char **out, const char *html, size_t len, const char *encoding);

/* 0 when libxml2 can be loaded, else ISOTIER_EUNAVAILABLE with why in err
 * (the library and its Debian package): a command that reads HTML asks
 * before it fetches anything, so a missing library is never read as pages
 * that could not be reached. */
int isotier_html_available(isotier_error *err);

/*
 * The same, and (main_out not NULL) the page's main text in one parse: what
 * the page says, without its chrome (nav, header, footer, aside, menus,
 * forms, dialogs, elements with a navigation/banner/contentinfo/complementary
 * role or hidden), and only inside <main> (or role=main) when the page marks
 * one with text. A site's navigation changing leaves the main text as it
 * was, so its hash tells a page that says something else. Both are UTF-8 as
 * libxml2 gives them (not normalised); caller frees both.
 */
int isotier_html_texts(char **out, char **main_out, const char *html, size_t len,
                       const char *encoding);

/* The normalised form of UTF-8 text (invalid bytes dropped); caller frees;
 * NULL only when out of memory. */
char *isotier_text_normalise(const char *text, size_t len);

/* Whether quote (raw, as written in the catalogue) occurs in normalised page
 * text. Returns 1, 0, or ISOTIER_ENOMEM. */
int isotier_text_has_quote(const char *normalised_page, const char *quote);

#endif
