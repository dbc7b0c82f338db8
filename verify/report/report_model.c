/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_model.c - loads the history database (read-only) and the catalogue
 * into one report model: the tier matrix, sources with their latest checks,
 * observations and their evidence, refusals, and what needs attention.
 */
#include "report_model.h"

#include "../../reference/api/isotier_tool.h"

#include <stdio.h>
#include <string.h>

#define COPY(s) report_arena_strndup(&m->arena, (s), REPORT_FIELD_MAX)

static int oom(isotier_error *err)
{
	return isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
}

/* How many rows of what are stored since m->since. */
static int64_t count(report_model *m, isotier_history *h, isotier_history_count_of what,
                     isotier_error *err)
{
	int64_t n = 0;
	return isotier__history_count(h, what, m->since, m->host, &n, err) < 0 ? -1 : n;
}

typedef struct fill_ctx {
	report_model *m;
	bool oom;
	report_observation **evidence_of; /* load_evidence: which observation each id is */
} fill_ctx;

static int add_interrupted(void *ctx, const char *stored)
{
	fill_ctx *fc = ctx;
	report_model *m = fc->m;
	const char *reason = COPY(stored);
	long long id = 0;
	const char *subject = reason && sscanf(reason, "run %lld ", &id) == 1
	                          ? report_arena_printf(&m->arena, "run %lld", id)
	                          : "a run";
	if (!reason || !subject ||
	    report_attention_add(m, RA_INTERRUPTED, true, subject, reason) < 0)
		return fc->oom = true, 1;
	return 0;
}

/* Runs a later run found left 'running' by a dead process (history_stale.c). */
static int load_interrupted(report_model *m, isotier_history *h, isotier_error *err)
{
	fill_ctx fc = {.m = m};
	int rc = isotier__history_scan_interrupted(h, m->since, add_interrupted, &fc, err);
	return fc.oom ? oom(err) : rc < 0 ? rc : 0;
}

static int age_days(const report_model *m, const char *date)
{
	long today = report_days(m->today), then = report_days(date);
	return today < 0 || then < 0 ? -1 : (int)(today - then);
}

static const char *basename_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

static int provider_group_cmp(const void *a, const void *b)
{
	const report_provider *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	return c ? c : strcmp(x->id, y->id);
}

static int load_providers(report_model *m, const isotier_catalogue *cat, isotier_error *err)
{
	m->providers = report_arena_alloc(&m->arena, (cat->n_providers + 1) * sizeof *m->providers);
	if (!m->providers)
		return oom(err);
	for (size_t i = 0; i < cat->n_providers; i++) {
		const isotier_provider *cp = &cat->providers[i];
		report_provider *p = &m->providers[m->n_providers++];
		p->id = COPY(cp->id);
		p->name = COPY(cp->name);
		p->offering = COPY(cp->offering);
		p->kind = COPY(cp->kind);
		p->tier = isotier_tier_name(cp->tier);
		p->mechanism = COPY(cp->mechanism);
		p->scope = COPY(cp->scope);
		p->since = COPY(cp->since);
		/* The local backend that verifies this entry, from its descriptor:
		 * the entry's own "backend" field is ignored (FORMAT.md). */
		const isotier_backend *b = isotier__backend_for_claim(cp->id);
		p->backend = b ? b->name : NULL;
		p->notes = COPY(cp->notes);
		p->file = COPY(basename_of(cp->file));
		p->group = COPY(isotier__provider_group(cp));
		p->status = COPY(isotier__provider_status(cp));
		if (cp->has_status_source) {
			p->status_date = COPY(cp->status_source.date);
			p->status_url = COPY(cp->status_source.url);
			p->status_quote = COPY(cp->status_source.quote);
		}
		p->sources =
		    report_arena_alloc(&m->arena, (cp->n_sources + 1) * sizeof *p->sources);
		p->history =
		    report_arena_alloc(&m->arena, (cp->n_history + 1) * sizeof *p->history);
		if (!p->id || !p->group || !p->status || !p->sources || !p->history)
			return oom(err);
		p->best_source = -1;
		p->source_age_days = -1;
		int worst = 4; /* UNCHECKED until a check says otherwise */
		const isotier_source *best = isotier__provider_best_source(cp);
		for (size_t j = 0; j < cp->n_sources; j++) {
			const isotier_source *cs = &cp->sources[j];
			report_source *s = &p->sources[p->n_sources++];
			s->url = COPY(cs->url);
			s->quote = COPY(cs->quote);
			s->publisher = COPY(cs->publisher);
			s->retrieved = COPY(cs->retrieved);
			s->title = COPY(cs->title);
			const char *as_of = isotier__source_as_of(cs);
			if (as_of && as_of != cs->retrieved)
				s->verified = COPY(as_of);
			char exp[16];
			if (isotier__source_expires(cs, m->max_source_age_days, exp, sizeof exp) ==
			    0)
				s->expires = COPY(exp);
			s->age_days = age_days(m, as_of);
			s->stale = s->age_days > m->max_source_age_days;
			int rc =
			    report_source_latest(m, cp->id, cs->url, cs->quote, &s->latest, err);
			if (rc < 0)
				return rc;
			int r = s->latest ? report_status_rank(s->latest->status) : 4;
			if (r < worst)
				worst = r;
			if (cs == best) {
				p->best_source = (int)j, p->source_age_days = s->age_days;
				p->declared_on = s->verified ? s->verified : s->retrieved;
			}
		}
		static const char *const words[] = {"GONE", "CHANGED", "UNREACHABLE", "PRESENT",
		                                    "UNCHECKED"};
		p->source_status = words[worst];
		p->source_stale =
		    cp->tier != ISOTIER_UNKNOWN &&
		    (p->best_source < 0 || p->source_age_days > m->max_source_age_days);
		for (size_t j = 0; j < cp->n_history; j++) {
			report_prior *r = &p->history[p->n_history++];
			r->tier = isotier_tier_name(cp->history[j].tier);
			r->mechanism = COPY(cp->history[j].mechanism);
			r->until = COPY(cp->history[j].until);
			r->note = COPY(cp->history[j].note);
		}
	}
	if (m->n_providers)
		qsort(m->providers, m->n_providers, sizeof *m->providers, provider_group_cmp);
	return 0;
}

/* Evidence for the latest observation of every row and the most recent
 * observations that did not back their claim. */
static int add_evidence(void *ctx, size_t i, const char *layers, const char *probe)
{
	fill_ctx *fc = ctx;
	report_model *m = fc->m;
	report_observation *o = fc->evidence_of[i];
	o->evidence = report_evidence_parse(&m->arena, layers, probe);
	if (!o->evidence)
		return fc->oom = true, 1;
	m->n_evidence++;
	return 0;
}

static int load_evidence(report_model *m, isotier_history *h, isotier_error *err)
{
	size_t extra = 0, k = 0;
	report_observation **of =
	    report_arena_alloc(&m->arena, (m->n_rows + REPORT_EVIDENCE_MAX + 1) * sizeof *of);
	int64_t *ids =
	    report_arena_alloc(&m->arena, (m->n_rows + REPORT_EVIDENCE_MAX + 1) * sizeof *ids);
	if (!of || !ids)
		return oom(err);
	for (size_t i = m->n_held; i-- > 0;) {
		report_observation *o = &m->observations[i];
		bool latest = false;
		for (size_t r = 0; r < m->n_rows && !latest; r++)
			latest = m->rows[r].latest == o;
		bool bad = o->v == RV_CONTRADICTED || o->v == RV_INCONCLUSIVE || o->v == RV_OTHER;
		if (!latest && !(bad && extra < REPORT_EVIDENCE_MAX))
			continue;
		if (!latest)
			extra++;
		if (k < m->n_rows + REPORT_EVIDENCE_MAX + 1)
			of[k] = o, ids[k++] = o->id;
	}
	fill_ctx fc = {.m = m, .evidence_of = of};
	int rc = isotier__history_observation_documents(
	    h, ids, k, REPORT_LAYERS_JSON_MAX, REPORT_PROBE_JSON_MAX, add_evidence, &fc, err);
	return fc.oom ? oom(err) : rc < 0 ? rc : 0;
}

static int load_catalogue(report_model *m, const report_options *opts, isotier_error *err)
{
	if (!opts->catalogue_dir)
		return 0;
	isotier_catalogue *cat = NULL;
	isotier_findings findings = {0};
	isotier_error cerr = {0};
	if (isotier__catalogue_load_effective(&cat, opts->catalogue_dir, false, &findings, &cerr) <
	    0) {
		isotier__findings_free(&findings);
		return isotier__error_set(err, cerr.code ? cerr.code : ISOTIER_EIO, 0,
		                          "report: catalogue: %s", cerr.message);
	}
	for (size_t i = 0; opts->today && i < cat->n_providers; i++)
		for (size_t j = 0; j < cat->providers[i].n_sources; j++) {
			const char *r = cat->providers[i].sources[j].retrieved;
			if (report_valid_date(r) && strcmp(opts->today, r) < 0) {
				isotier__error_set(
				    err, ISOTIER_EINVAL, 0,
				    "--today %s is earlier than %s's source retrieved %s",
				    opts->today, cat->providers[i].id, r);
				isotier__findings_free(&findings);
				isotier__catalogue_free(cat);
				return ISOTIER_EINVAL;
			}
		}
	if (!m->today[0]) { /* nothing stored yet: the catalogue's newest date dates the report */
		const char *newest = NULL;
		for (size_t i = 0; i < cat->n_providers; i++)
			for (size_t j = 0; j < cat->providers[i].n_sources; j++) {
				const char *r = cat->providers[i].sources[j].retrieved;
				if (report_valid_date(r) && (!newest || strcmp(r, newest) > 0))
					newest = r;
			}
		if (newest) {
			m->today = COPY(newest), m->today_source = "catalogue";
			if (!m->today) {
				isotier__findings_free(&findings);
				isotier__catalogue_free(cat);
				return oom(err);
			}
		}
	}
	/* What the weekly sources check re-verified counts as of that check,
	 * as for the gate (renewal.h). */
	int rc =
	    m->today && m->today[0] ? isotier__catalogue_renew(cat, m->history, m->today, err) : 0;
	if (rc == 0)
		rc = load_providers(m, cat, err); /* err set on failure */
	for (size_t i = 0; rc == 0 && i < findings.n; i++) {
		const isotier_finding *f = &findings.items[i];
		bool has_field = f->field && *f->field;
		const char *d = report_arena_printf(
		    &m->arena, "%s%s%s%s",
		    f->severity == ISOTIER_FINDING_ERROR ? "error: " : "warning: ",
		    has_field ? f->field : "", has_field ? ": " : "", f->message ? f->message : "");
		rc =
		    d && report_attention_add(m, RA_CATALOGUE, f->severity == ISOTIER_FINDING_ERROR,
		                              COPY(basename_of(f->file ? f->file : "?")), d) == 0
		        ? 0
		        : oom(err);
	}
	isotier__findings_free(&findings);
	isotier__catalogue_free(cat);
	return rc < 0 ? rc : 0;
}

/* Fills a fresh model from an open database; on failure the caller frees it. */
static int model_fill(report_model *m, const report_options *opts, isotier_error *err)
{
	int rc;
	isotier_history *h = m->history;
	m->max_source_age_days = opts->max_source_age_days > 0
	                             ? opts->max_source_age_days
	                             : ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS;
	m->reverify_days = opts->reverify_days > 0 ? opts->reverify_days : REPORT_REVERIFY_DAYS;
	char shown[512]; /* a URI's password never reaches a report */
	isotier__history_display(opts->db_path, shown, sizeof shown);
	m->db_path = COPY(shown);
	m->backends = opts->backends;
	m->n_backends = opts->n_backends;
	m->not_configured = opts->not_configured;
	m->not_configured_why = opts->not_configured_why;
	m->n_not_configured = opts->n_not_configured;
	/* One read transaction: every query sees the same snapshot, even while
	 * verify or sources check write. */
	if ((rc = isotier__history_read_begin(h, err)) < 0)
		return rc;
	m->schema_version = isotier__history_schema_version(h);
	m->since = COPY(opts->since);
	m->host = COPY(opts->host);
	char newest[64];
	if ((rc = isotier__history_newest_record(h, newest, sizeof newest, err)) < 0)
		return rc;
	m->newest_record = newest[0] ? COPY(newest) : NULL;
	if (opts->today && m->newest_record && strncmp(opts->today, m->newest_record, 10) < 0)
		/* ages would be negative and read as fresh */
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "--today %s is earlier than the newest stored record (%s)", opts->today,
		    m->newest_record);
	if (opts->today) {
		m->today = COPY(opts->today), m->today_source = "--today";
	} else if (m->newest_record && report_days(m->newest_record) >= 0) {
		m->today = report_arena_printf(&m->arena, "%.10s", m->newest_record);
		m->today_source = "database";
	} else {
		m->today = "", m->today_source = "none";
	}
	if (!m->today)
		return oom(err);
	m->n_runs = count(m, h, ISOTIER_COUNT_RUNS_SINCE, err);
	if (m->n_runs < 0)
		return ISOTIER_EDB;
	/* The catalogue first: the scan files observations under its offerings. */
	if ((rc = report_load_tables(m, err)) < 0 || (rc = load_interrupted(m, h, err)) < 0 ||
	    (rc = load_catalogue(m, opts, err)) < 0 || (rc = report_scan(m, err)) < 0)
		return rc;
	if (report_judge_rows(m) < 0)
		return oom(err);
	if ((rc = load_evidence(m, h, err)) < 0)
		return rc;
	if (report_finish(m) < 0)
		return oom(err);
	report_sort_attention(m);
	/* The snapshot stays open: the JSON writer streams from it. */
	return 0;
}

int report_model_load(report_model **out, const report_options *opts, isotier_error *err)
{
	if (opts->since && !report_valid_timestamp(opts->since))
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "--since %s: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ",
		                          opts->since);
	if (opts->today && !report_valid_date(opts->today))
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "--today %s: expected YYYY-MM-DD",
		                          opts->today);
	report_model *m = calloc(1, sizeof *m);
	if (!m)
		return oom(err);
	int rc = isotier__history_open_readonly(&m->history, opts->db_path, err);
	if (rc < 0) {
		free(m);
		return rc;
	}
	if ((rc = model_fill(m, opts, err)) < 0) {
		report_model_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void report_model_free(report_model *m)
{
	if (!m)
		return;
	if (m->history) {
		isotier__history_read_end(m->history);
		isotier__history_close(m->history);
	}
	report_arena_free(&m->arena);
	free(m);
}
