/* SPDX-License-Identifier: Apache-2.0 */
/* report_escape.c - escaping for the report writers: HTML/XML, JSON,
 * Markdown. Everything that reaches a report passes through here, under the
 * terminal printer's policy (isotier__unicode_unsafe): controls, bidi
 * overrides and isolates are shown as escapes, never obeyed. */
#include "report_model.h"

#include <string.h>

size_t report_utf8_next(const unsigned char *s, uint32_t *cp)
{
	/* Invalid bytes become U+FFFD one at a time, so output stays valid UTF-8. */
	size_t n = isotier__utf8_decode(s, SIZE_MAX, cp);
	if (n == 0) {
		*cp = 0xfffd;
		return 1;
	}
	return n;
}

static void put_cp(FILE *f, uint32_t cp)
{
	char buf[4];
	size_t n;
	if (cp < 0x80) {
		buf[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		buf[0] = (char)(0xc0 | (cp >> 6)), buf[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	} else if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | (cp >> 12)), buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	} else {
		buf[0] = (char)(0xf0 | (cp >> 18)), buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), buf[3] = (char)(0x80 | (cp & 0x3f)),
		n = 4;
	}
	fwrite(buf, 1, n, f);
}

/* Control characters an auditor should see, not have interpreted. */
static bool is_control(uint32_t cp)
{
	return (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp <= 0x9f);
}

static bool is_plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'';
}

static bool is_plain_json(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

/*
 * Writes the run of bytes from p that plain() lets through as they are (in
 * one write: the common case, and fast), then decodes the code point after
 * it into *cp. The byte after that code point, or NULL at the end of s.
 */
static const unsigned char *put_plain_run(FILE *f, const unsigned char *p,
                                          bool (*plain)(unsigned char), uint32_t *cp)
{
	const unsigned char *run = p;
	while (plain(*p))
		p++;
	if (p > run)
		fwrite(run, 1, (size_t)(p - run), f);
	return *p ? p + report_utf8_next(p, cp) : NULL;
}

void report_put_xml(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	while (p && (p = put_plain_run(f, p, is_plain_ascii, &cp))) {
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\n':
		case '\t': fputc((int)cp, f); break;
		default:
			if (is_control(cp))
				fprintf(f, "\\x%02x", (unsigned)cp);
			else if (isotier__unicode_unsafe(cp)) /* bidi: shown, never obeyed */
				fprintf(f, "\\u%04x", (unsigned)cp);
			else if (cp == 0xfffe || cp == 0xffff)
				put_cp(f, 0xfffd); /* not allowed in XML 1.0 */
			else
				put_cp(f, cp);
		}
	}
}

void report_put_json(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	while ((p = put_plain_run(f, p, is_plain_json, &cp))) {
		switch (cp) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (isotier__unicode_unsafe(cp))
				fprintf(f, "\\u%04x", (unsigned)cp);
			else
				put_cp(f, cp);
		}
	}
	fputc('"', f);
}

void report_put_md(FILE *f, const char *s)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp;
		p += report_utf8_next(p, &cp);
		switch (cp) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '\n':
		case '\t': fputc(' ', f); break;
		case '\\':
		case '`':
		case '*':
		case '_':
		case '[':
		case ']':
		case '!':
		case '|':
		case '~':
		case '#':
			fputc('\\', f);
			fputc((int)cp, f);
			break;
		default:
			if (is_control(cp))
				fprintf(f, "\\\\x%02x", (unsigned)cp); /* renders as \xNN */
			else if (isotier__unicode_unsafe(cp))
				fprintf(f, "\\\\u%04x", (unsigned)cp); /* renders as \uNNNN */
			else
				put_cp(f, cp);
		}
	}
}

/* Terminal, log and mail text (report --format text): controls and escape
 * sequences made visible, newlines folded; the CLI's own policy. */
void report_put_text(FILE *f, const char *s)
{
	isotier__fputs_inline(f, s ? s : "-");
}
