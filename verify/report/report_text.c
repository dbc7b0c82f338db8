/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_text.c - the report for a terminal, a log or a mail: the banner,
 * the checks that did not happen, and each attention item (ALERT, WARN,
 * note) with its remedy and the command that looks closer, and when hosts
 * share the history what each last observed. Nothing else: the other formats
 * carry the matrix and the evidence. Every stored string is
 * written terminal-safe (report_put_text).
 */
#include "report_format.h"
#include "report_model.h"

#include <string.h>

#define T(s)              report_put_text(f, (s))
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
	fprintf(f, "%s: ", m->status);
	T(m->summary);
	fputs(" (report date ", f);
	T(m->today[0] ? m->today : "unknown");
	fputs(", history ", f);
	T(m->db_path);
	fputs(")\n", f);
	if (m->n_missing) {
		T(m->missing_heading);
		fputs(":\n", f);
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
		if (n > REPORT_COLLAPSE_OVER) { /* many of a kind: one line with a count */
			fprintf(f, "%s %s: %zu items (", report_severity_name(a->severity),
			        report_attention_name(a->kind), n);
			for (size_t k = 0; k < n && k < TEXT_SUBJECTS_MAX; k++) {
				fputs(k ? ", " : "", f);
				T(m->attention[i + k].subject);
			}
			fputs(n > TEXT_SUBJECTS_MAX ? ", ...)\n    " : ")\n    ", f);
			T(report_group_remedy(a));
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
	/* The fleet's host x backend matrix, only when hosts share the history:
	 * a disagreement alert above names two of them, this shows them all. */
	if (m->n_host_names > 1) {
		T(m->hosts_heading);
		fputs(":\n    ", f);
		T(m->hosts_note);
		fputc('\n', f);
		for (size_t i = 0; i < m->n_hosts; i++) {
			const report_host_cell *c = &m->hosts[i];
			const report_observation *o = c->latest;
			fputs("  ", f);
			T(o->backend);
			fputs(" on ", f);
			T(c->host);
			fputs(" (", f);
			T(c->host_id);
			fputs("): ", f);
			T(o->observed_tier);
			fputc(' ', f);
			T(report_verdict_shown(o));
			fprintf(f, " #%lld ", (long long)o->id);
			T(o->observed_at);
			fputs(c->disagrees ? " DISAGREES\n" : "\n", f);
		}
	}
	return 0;
}

const report_format report_format_text = {
    "text", "txt", "text/plain; charset=utf-8",
    "a terminal, a log, a mail: what needs attention,\n"
    "      each with its remedy and the command to look closer",
    report_write_text};
