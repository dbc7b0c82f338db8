/*
 * report_md.c - the report for pull requests: GitHub-flavoured Markdown.
 * Every stored string goes through report_put_md() (markup characters and
 * table pipes escaped, HTML neutralised, newlines folded).
 */
#include "report_model.h"

#include <string.h>

#define MD(s)    report_put_md(f, (s))
#define MD_SHOWN 50 /* rows of long lists in a PR comment */

static void cell(FILE *f, const char *s)
{
	fputs(" ", f);
	if (s && *s)
		MD(s);
	else
		fputs("\xe2\x80\x94", f);
	fputs(" |", f);
}

static void cell_num(FILE *f, long long v)
{
	if (v < 0)
		fputs(" \xe2\x80\x94 |", f);
	else
		fprintf(f, " %lld |", v);
}

static void verdict(FILE *f, const char *word, report_verdict v)
{
	if (!word) {
		fputs(" not observed |", f);
		return;
	}
	fputs(v == RV_CONTRADICTED ? " **" : " ", f);
	MD(word);
	fputs(v == RV_CONTRADICTED ? "** |" : " |", f);
}

int report_write_md(FILE *f, const report_model *m)
{
	fputs("# isotier isolation report\n\n", f);
	fputs("Report date **", f);
	MD(m->today[0] ? m->today : "unknown");
	fputs("** (", f);
	MD(report_date_source_text(m));
	fputs("); covers ", f);
	if (m->since) {
		fputs("history since ", f);
		MD(m->since);
	} else {
		fputs("the whole history", f);
	}
	fprintf(
	    f,
	    ": %lld runs, %zu observations, %zu source checks, %zu refusals. Policy: sources at "
	    "most %d days old, re-verification every %d days.\n\n",
	    (long long)m->n_runs, m->n_observations, m->n_checks, m->n_refusals,
	    m->max_source_age_days, m->reverify_days);
	if (m->n_failing)
		fprintf(f, "**ATTENTION: %zu finding%s need action.**\n\n", m->n_failing,
		        m->n_failing == 1 ? "" : "s");
	else
		fputs("**OK:** nothing contradicted, drifted, stale or overdue.\n\n", f);

	fputs("## Needs attention\n\n", f);
	if (!m->n_attention)
		fputs("Nothing.\n\n", f);
	else
		fputs("| Alert | Kind | Subject | Detail |\n|---|---|---|---|\n", f);
	for (size_t i = 0; i < m->n_attention; i++) {
		const report_attention *a = &m->attention[i];
		fputs(a->failing ? "| **ALERT** |" : "| note |", f);
		cell(f, report_attention_name(a->kind));
		cell(f, a->subject);
		cell(f, a->detail);
		fputs("\n", f);
	}
	if (m->n_attention)
		fputs("\n", f);

	fputs("## Tier matrix\n\n| Provider | Backend | Claimed tier | Mechanism | Source age "
	      "(days) | "
	      "Source check | Observed tier | Verdict | When | State |\n"
	      "|---|---|---|---|---:|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[i];
		const report_observation *o = r->latest;
		fputs("|", f);
		cell(f, r->provider_id ? r->provider_id : "(no claim)");
		cell(f, r->backend);
		cell(f, r->claimed_tier);
		cell(f, r->mechanism);
		cell_num(f, r->provider ? r->provider->source_age_days : -1);
		cell(f, r->provider ? r->provider->source_status : NULL);
		cell(f, o ? o->observed_tier : NULL);
		verdict(f, o ? o->verdict : NULL, o ? o->v : RV_OTHER);
		cell(f, o ? o->observed_at : NULL);
		cell(f, r->state);
		fputs("\n", f);
	}

	fputs("\n## Latest verdicts\n\n| Verdict | Rows |\n|---|---:|\n", f);
	for (int v = 0; v < RV_COUNT; v++)
		fprintf(f, "| %s | %zu |\n", report_verdict_name((report_verdict)v),
		        m->latest_counts[v]);

	fputs("\n## Refusals\n\n", f);
	if (!m->n_refusals) {
		fputs("No refusals recorded.\n", f);
	} else {
		size_t shown = m->n_refusals < MD_SHOWN ? m->n_refusals : MD_SHOWN;
		fprintf(
		    f,
		    "%zu refusal%s; newest %zu shown.\n\n| When | Backend | Resolved | Required | "
		    "Reason |\n|---|---|---|---|---|\n",
		    m->n_refusals, m->n_refusals == 1 ? "" : "s", shown);
		for (size_t k = 0; k < shown; k++) {
			const report_audit *a = &m->refusals[m->n_refusals - 1 - k];
			fputs("|", f);
			cell(f, a->at), cell(f, a->backend), cell(f, a->resolved_tier);
			cell(f, a->required_tier), cell(f, a->reason);
			fputs("\n", f);
		}
	}

	fputs("\n## Sources\n\n", f);
	if (!m->n_providers)
		fputs("No catalogue loaded.\n", f);
	for (size_t i = 0; i < m->n_providers; i++) {
		const report_provider *p = &m->providers[i];
		if (!i || strcmp(m->providers[i - 1].group, p->group)) {
			fputs("\n### Provider ", f);
			MD(p->group);
			fputs("\n\n", f);
		}
		fputs("- **", f);
		MD(p->id);
		fputs("**", f);
		if (p->offering) {
			fputs(" (", f);
			MD(p->offering);
			fputs(")", f);
		}
		fputs(": ", f);
		MD(p->tier);
		fputs(" (", f);
		MD(p->mechanism);
		fputs(")", f);
		if (p->source_stale)
			fputs(", **source stale**", f);
		if (strcmp(p->status, "current")) {
			fputs(", **", f);
			MD(p->status);
			fputs("** ", f);
			MD(p->status_date);
			fputs(": \xe2\x80\x9c", f);
			MD(p->status_quote);
			fputs("\xe2\x80\x9d (", f);
			MD(p->status_url);
			fputs(")", f);
		}
		fputs("\n", f);
		for (size_t j = 0; j < p->n_sources; j++) {
			const report_source *s = &p->sources[j];
			fputs("  - ", f);
			MD(s->url);
			fputs(" (", f);
			MD(s->publisher);
			fputs(", retrieved ", f);
			MD(s->retrieved);
			fputs("; check: ", f);
			MD(s->latest ? s->latest->status : "never");
			fputs("): \xe2\x80\x9c", f);
			MD(s->quote);
			fputs("\xe2\x80\x9d\n", f);
		}
	}
	fputs("\n<sub>Written by isotier " ISOTIER_VERSION
	      " from the history database and the catalogue; reproducible from them.</sub>\n",
	      f);
	return 0;
}
