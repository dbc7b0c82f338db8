/*
 * report_text.c - the report for a terminal, a log or a mail: the banner,
 * the checks that did not happen, and each attention item (ALERT, WARN,
 * note) with its remedy and the command that looks closer. Nothing else: the
 * other formats carry the matrix and the evidence. Every stored string is
 * written terminal-safe (report_put_text).
 */
#include "report_model.h"

#include <string.h>

#define T(s) report_put_text(f, (s))
#define TEXT_SUBJECTS_MAX 20 /* subjects named on a collapsed line */

/* `isotier history ...` for what the item is about, against this history. */
static void closer(FILE *f, const report_model *m, const report_attention *a)
{
	if (a->kind == RA_CATALOGUE)
		return;
	fputs("    look closer: isotier history --db ", f);
	T(m->db_path);
	if (a->backend) {
		fputs(" --backend ", f);
		T(a->backend);
	} else if (a->provider_id) {
		fputs(" --sources --provider ", f);
		T(a->provider_id);
	} else {
		fputs(" --sources", f);
	}
	fputc('\n', f);
}

int report_write_text(FILE *f, const report_model *m)
{
	size_t na = m->n_severity[RSEV_ALERT], nw = m->n_severity[RSEV_WARN];
	fprintf(f, "%s: ", m->status);
	if (na)
		fprintf(f, "%zu alert%s need%s action", na, na == 1 ? "" : "s", na == 1 ? "s" : "");
	if (na && nw)
		fputs("; ", f);
	if (nw)
		fprintf(f, "%zu warning%s", nw, nw == 1 ? "" : "s");
	if (!na && !nw)
		fputs(m->n_missing ? "no alert" : "every required check ran; nothing to act on", f);
	fputs(" (report date ", f);
	T(m->today[0] ? m->today : "unknown");
	fputs(", history ", f);
	T(m->db_path);
	fputs(")\n", f);
	if (m->n_missing) {
		fputs("checks that did not happen:\n", f);
		for (size_t i = 0; i < m->n_missing; i++) {
			fputs("  - ", f);
			T(m->missing[i]);
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < m->n_attention;) {
		const report_attention *a = &m->attention[i];
		size_t n = 1;
		while (i + n < m->n_attention && m->attention[i + n].kind == a->kind &&
		       m->attention[i + n].severity == a->severity)
			n++;
		if (n > 3) { /* many of a kind: one line with a count */
			fprintf(f, "%s %s: %zu items (", report_severity_name(a->severity),
			        report_attention_name(a->kind), n);
			for (size_t k = 0; k < n && k < TEXT_SUBJECTS_MAX; k++) {
				fputs(k ? ", " : "", f);
				T(m->attention[i + k].subject);
			}
			fputs(n > TEXT_SUBJECTS_MAX ? ", ...)\n    " : ")\n    ", f);
			T(a->kind == RA_SOURCE_UNREACHABLE
			      ? "not checked: retry `isotier sources check` when the network is back"
			      : a->remedy);
			fputc('\n', f);
		} else {
			for (size_t k = 0; k < n; k++) {
				const report_attention *b = &m->attention[i + k];
				fprintf(f, "%s %s ", report_severity_name(b->severity),
				        report_attention_name(b->kind));
				T(b->subject);
				fputs(": ", f);
				T(b->detail);
				fputs("\n    ", f);
				T(b->remedy);
				fputc('\n', f);
				closer(f, m, b);
			}
		}
		i += n;
	}
	return 0;
}
