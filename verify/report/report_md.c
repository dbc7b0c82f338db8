/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_md.c - the report for pull requests: GitHub-flavoured Markdown.
 * Every stored string goes through report_put_md() (markup characters and
 * table pipes escaped, HTML neutralised, newlines folded).
 */
#include "report_format.h"
#include "report_model.h"

#include <stdlib.h>
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

/* The mechanism, and between whom the tier holds when the entry says: a
 * boundary between accounts only is not one between a user's sandboxes. */
static void scope_cell(FILE *f, const char *mechanism, const char *scope)
{
	if (!scope) {
		cell(f, mechanism);
		return;
	}
	fputs(" ", f);
	MD(mechanism ? mechanism : "\xe2\x80\x94");
	fputs(", scope ", f);
	MD(scope);
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
	fputs(v == RV_CONTRADICTED ? " **" : v == RV_NOT_CONTRADICTED ? " _" : " ", f);
	MD(word);
	/* Spelled out where it is shown: the word alone could read as a pass. */
	fputs(v == RV_CONTRADICTED       ? "** |"
	      : v == RV_NOT_CONTRADICTED ? "_ (not proven: no hardware attestation) |"
	                                 : " |",
	      f);
}

/* The title, what the report covers, and the banner (the model's words). */
static void md_header(FILE *f, const report_model *m)
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
	fprintf(f, ": %lld run%s, %zu observation%s, %zu source check%s, %zu refusal%s; history `",
	        (long long)m->n_runs, m->n_runs == 1 ? "" : "s", m->n_observations,
	        m->n_observations == 1 ? "" : "s", m->n_checks, m->n_checks == 1 ? "" : "s",
	        m->n_refusals, m->n_refusals == 1 ? "" : "s");
	MD(m->db_path);
	fprintf(f,
	        "` (schema %d). Policy: sources at most %d days old, re-verification every %d "
	        "days.\n\n",
	        m->schema_version, m->max_source_age_days, m->reverify_days);
	fprintf(f, "**%s:** ", m->status);
	MD(m->summary);
	fputs(".\n\n", f);
	if (m->n_missing) {
		MD(m->missing_heading);
		fputs(":\n\n", f);
		for (size_t i = 0; i < m->n_missing; i++) {
			fputs("- ", f);
			MD(m->missing[i]);
			fputs("\n", f);
		}
		fputs("\n", f);
	}
}

static void md_attention(FILE *f, const report_model *m)
{
	fputs("## Needs attention\n\n", f);
	if (!m->n_attention)
		fputs("Nothing.\n\n", f);
	else
		fputs(
		    "| Severity | Kind | Subject | Detail | What to do |\n|---|---|---|---|---|\n",
		    f);
	for (size_t i = 0; i < m->n_attention;) {
		const report_attention *a = &m->attention[i];
		size_t n = 1;
		while (i + n < m->n_attention && m->attention[i + n].kind == a->kind &&
		       m->attention[i + n].severity == a->severity)
			n++;
		size_t shown = n > REPORT_COLLAPSE_OVER ? 0 : n; /* else one line with a count */
		for (size_t k = 0; k < shown; k++) {
			const report_attention *b = &m->attention[i + k];
			fprintf(f, b->severity == RSEV_ALERT ? "| **%s** |" : "| %s |",
			        report_severity_name(b->severity));
			cell(f, report_attention_name(b->kind));
			cell(f, b->subject);
			cell(f, b->detail);
			cell(f, b->remedy);
			fputs("\n", f);
		}
		if (!shown) {
			fprintf(f, a->severity == RSEV_ALERT ? "| **%s** |" : "| %s |",
			        report_severity_name(a->severity));
			cell(f, report_attention_name(a->kind));
			fprintf(f, " %zu items |", n);
			fputs(" ", f);
			for (size_t k = 0; k < n && k < MD_SHOWN; k++) {
				fputs(k ? ", " : "", f);
				MD(m->attention[i + k].subject);
			}
			fputs(n > MD_SHOWN ? ", ... |" : " |", f);
			cell(f, report_group_remedy(a));
			fputs("\n", f);
		}
		i += n;
	}
	if (m->n_attention)
		fputs("\n", f);
}

/* < 0 when out of memory: the report then fails. */
static int md_matrix(FILE *f, const report_model *m)
{
	fputs("## Tier matrix\n\n| Section | Group | Provider | Backend | Declared tier | Declared "
	      "on "
	      "| Mechanism "
	      "| Source age "
	      "(days) | "
	      "Source check | Observed tier | Verdict | Observed on | State |\n"
	      "|---|---|---|---|---|---|---|---:|---|---|---|---|---|\n",
	      f);
	size_t *idx = report_matrix_order(m);
	if (!idx)
		return ISOTIER_ENOMEM; /* the command fails: never a report missing its matrix */
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[idx[i]];
		const report_observation *o = r->latest;
		fputs("|", f);
		cell(f, report_section_title((report_section)r->section));
		cell(f, r->group);
		cell(f, r->provider_id ? r->provider_id : "(no claim)");
		cell(f, r->backend);
		cell(f, r->claimed_tier);
		cell(f, r->provider ? r->provider->declared_on : NULL);
		scope_cell(f, r->mechanism, r->provider ? r->provider->scope : NULL);
		cell_num(f, r->provider ? r->provider->source_age_days : -1);
		cell(f, r->provider ? r->provider->source_status : NULL);
		cell(f, o ? o->observed_tier : NULL);
		verdict(f, report_verdict_shown(o), o ? o->v : RV_OTHER);
		cell(f, o ? o->observed_at : NULL);
		cell(f, r->state);
		fputs("\n", f);
	}
	free(idx);
	return 0;
}

/* The fleet's host x backend matrix, only when more than one host shares
 * the history (one host's would repeat the tier matrix). */
static void md_hosts(FILE *f, const report_model *m)
{
	if (m->n_host_names < 2)
		return;
	fputs("\n## ", f);
	MD(m->hosts_heading);
	fputs("\n\n", f);
	MD(m->hosts_note);
	fputs("\n\n| Backend | Host | Machine id | Observed tier | Verdict | Observation | When | "
	      "State |\n|---|---|---|---|---|---:|---|---|\n",
	      f);
	for (size_t i = 0; i < m->n_hosts; i++) {
		const report_host_cell *c = &m->hosts[i];
		const report_observation *o = c->latest;
		fputs("|", f);
		cell(f, o->backend);
		cell(f, c->host);
		cell(f, c->host_id);
		cell(f, o->observed_tier);
		verdict(f, report_verdict_shown(o), o->v);
		fprintf(f, " #%lld |", (long long)o->id);
		cell(f, o->observed_at);
		fputs(c->disagrees ? " **DISAGREES** |\n" : " agrees |\n", f);
	}
}

static void md_verdicts(FILE *f, const report_model *m)
{
	fputs("\n## Latest verdicts\n\n| Verdict | Rows |\n|---|---:|\n", f);
	for (int v = 0; v < RV_COUNT; v++)
		fprintf(f, "| %s | %zu |\n", report_verdict_name((report_verdict)v),
		        m->latest_counts[v]);
}

static void md_refusals(FILE *f, const report_model *m)
{
	fputs("\n## Refusals\n\n", f);
	if (!m->n_refusals) {
		fputs("No refusals recorded.\n", f);
	} else {
		size_t shown = m->n_refusals_held < MD_SHOWN ? m->n_refusals_held : MD_SHOWN;
		fprintf(
		    f,
		    "%zu refusal%s; newest %zu shown.\n\n| When | Backend | Resolved | Required | "
		    "Reason |\n|---|---|---|---|---|\n",
		    m->n_refusals, m->n_refusals == 1 ? "" : "s", shown);
		for (size_t k = 0; k < shown; k++) {
			const report_audit *a = &m->refusals[m->n_refusals_held - 1 - k];
			fputs("|", f);
			cell(f, a->at), cell(f, a->backend), cell(f, a->resolved_tier);
			cell(f, a->required_tier), cell(f, a->reason);
			fputs("\n", f);
		}
	}
}

static void md_sources(FILE *f, const report_model *m)
{
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
		if (p->scope) {
			fputs(", scope ", f);
			MD(p->scope);
		}
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
			if (s->verified) {
				fputs(", passage re-verified ", f);
				MD(s->verified);
			}
			if (s->expires) {
				fputs(", expires ", f);
				MD(s->expires);
			}
			fputs("; check: ", f);
			MD(s->latest ? s->latest->status : "never");
			if (s->latest && s->latest->change) { /* against the kept baseline */
				fputs(", ", f);
				MD(report_change_words(s->latest->change));
			}
			fputs("): \xe2\x80\x9c", f);
			MD(s->quote);
			fputs("\xe2\x80\x9d\n", f);
			if (s->latest && s->latest->passage_diff && s->latest->passage_diff[0]) {
				fputs("    - passage diff: ", f);
				MD(s->latest->passage_diff);
				fputs("\n", f);
			}
		}
	}
}

int report_write_md(FILE *f, const report_model *m)
{
	md_header(f, m);
	md_attention(f, m);
	int rc = md_matrix(f, m);
	if (rc < 0)
		return rc;
	md_hosts(f, m);
	md_verdicts(f, m);
	md_refusals(f, m);
	md_sources(f, m);
	fputs("\n<sub>Written by isotier " ISOTIER_VERSION
	      " from the history database and the catalogue; reproducible from them.</sub>\n",
	      f);
	return 0;
}

const report_format report_format_md = {"md", "md", "text/markdown; charset=utf-8",
                                        "pull requests: banner, attention, matrix",
                                        report_write_md};
