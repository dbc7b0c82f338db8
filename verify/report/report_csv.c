/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_csv.c - the tier matrix as CSV (RFC 4180) for a spreadsheet: one
 * record per matrix row, a header first, CRLF line ends. A field holding a
 * comma, a quote, CR or LF is quoted, its quotes doubled. A stored string
 * is hostile: a field that a spreadsheet would take for a formula (its first
 * character = + - @, or a tab or CR that some read past) is prefixed with '
 * so it stays text; a control character is written visible as \xNN. The
 * writer is reached through this file's row only (report_format.c).
 */
#include "report_format.h"

#include <string.h>

static const char *latest(const report_row *r, size_t field)
{
	const report_observation *o = r->latest;
	if (!o)
		return NULL;
	const char *const v[] = {o->observed_at, o->verdict, o->observed_tier, o->observed_vendor};
	return v[field];
}

/* One field: quoted when it must be, defused when a spreadsheet would
 * evaluate it. NULL and "" write an empty field. */
static void put_field(FILE *f, const char *s)
{
	if (!s || !*s)
		return;
	bool formula = strchr("=+-@\t\r", s[0]) != NULL;
	bool quote = formula || strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"')
			fputs("\"\"", f);
		else if ((*p < 0x20 && *p != '\n' && *p != '\r') || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	if (quote)
		fputc('"', f);
}

static void put_record(FILE *f, const char *const *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		put_field(f, fields[i]);
	}
	fputs("\r\n", f);
}

#define CSV_COLUMNS 10

static int write_csv(FILE *f, const report_model *m)
{
	static const char *const header[CSV_COLUMNS] = {
	    "section", "provider",    "backend", "claimed_tier",  "mechanism",
	    "state",   "observed_at", "verdict", "observed_tier", "observed_vendor"};
	put_record(f, header, CSV_COLUMNS);
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[i];
		const char *row[CSV_COLUMNS] = {report_section_name((report_section)r->section),
		                                r->provider_id,
		                                r->backend,
		                                r->claimed_tier,
		                                r->mechanism,
		                                r->state,
		                                latest(r, 0),
		                                latest(r, 1),
		                                latest(r, 2),
		                                latest(r, 3)};
		put_record(f, row, CSV_COLUMNS);
	}
	return 0; /* a failed write is the caller's to see (74) */
}

const report_format report_format_csv = {
    "csv", "csv", "text/csv; charset=utf-8; header=present",
    "spreadsheets: the tier matrix, a record per row (RFC 4180)", write_csv};
