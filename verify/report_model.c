/*
 * report_model.c - loads the history database (read-only) and the catalogue
 * into one report model: the tier matrix, sources with their latest checks,
 * observations and their evidence, refusals, and what needs attention.
 */
#include "report_model.h"

#include "../reference/isotier_tool.h"

#include <stdio.h>
#include <string.h>

#define COPY(s) report_arena_strndup(&m->arena, (s), REPORT_FIELD_MAX)
#define COL(i)  COPY((const char *)sqlite3_column_text(st, (i)))

static int oom(isotier_error *err)
{
	return isotier_error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
}

static int prepare(isotier_history *h, sqlite3_stmt **st, const char *sql, const char *since,
                   isotier_error *err)
{
	if (sqlite3_prepare_v2(isotier_history_db(h), sql, -1, st, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "report: read history");
	if (sqlite3_bind_parameter_count(*st) >= 1)
		sqlite3_bind_text(*st, 1, since, -1, SQLITE_STATIC);
	return 0;
}

static int64_t count(isotier_history *h, const char *sql, const char *since, isotier_error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(h, &st, sql, since, err) < 0)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW)
		return isotier_history_sql_error(h, err, "report: count"), -1;
	return sqlite3_column_int64(st, 0);
}

/* The newest timestamp stored anywhere: the report's default date. */
static const char *newest_record(report_model *m, isotier_history *h)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	const char *sql =
	    "SELECT t FROM ("
	    " SELECT max(observed_at) AS t FROM observations UNION ALL"
	    " SELECT max(checked_at) FROM source_checks UNION ALL"
	    " SELECT max(at) FROM audit_events UNION ALL"
	    " SELECT max(started_at) FROM runs UNION ALL SELECT max(finished_at) FROM runs)"
	    " WHERE t IS NOT NULL AND t GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'"
	    " ORDER BY t DESC LIMIT 1";
	if (sqlite3_prepare_v2(isotier_history_db(h), sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		return NULL;
	return COL(0);
}

static int cmp_observation(const void *x, const void *y)
{
	/* Insertion order (id): a row's observed_at is only its writer's clock,
	 * and one dated ahead must not pass for the latest. */
	const report_observation *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/*
 * duration_ms is stored after probe_json and the evidence blob: reading it
 * walks each row's overflow pages, i.e. the whole database. Only the JSON
 * report (every field of every observation: all_durations) pays that in the
 * scan; the others look it up for the newest REPORT_LOG_MAX they show.
 */
/* The probe's schema: hostile JSON, so only when SQLite finds it valid, and
 * only a string. */
#define PROBE_SCHEMA                                                                               \
	" CASE WHEN json_valid(probe_json) AND json_type(probe_json, '$.schema') = 'text'"        \
	" THEN json_extract(probe_json, '$.schema') END"

static int load_observations(report_model *m, isotier_history *h, bool all_durations,
                             isotier_error *err)
{
	int64_t n =
	    count(h, "SELECT count(*) FROM observations WHERE ?1 IS NULL OR observed_at >= ?1",
	          m->since, err);
	if (n < 0)
		return ISOTIER_EDB;
	m->observations =
	    report_arena_alloc(&m->arena, (size_t)(n ? n : 1) * sizeof *m->observations);
	if (!m->observations)
		return oom(err);
	cleanup_stmt sqlite3_stmt *st = NULL;
	/* Rowid order (no SQL sorter over 100k wide rows); sorted below. */
	if (prepare(h, &st,
	            all_durations
	                ? "SELECT id, run_id, observed_at, backend, provider_id, claimed_tier,"
	                  " claimed_mechanism, observed_tier, observed_vendor, confidence, verdict,"
	                  " reason, duration_ms, kernel_relation," PROBE_SCHEMA " FROM observations"
	                  " WHERE ?1 IS NULL OR observed_at >= ?1 ORDER BY id"
	                : "SELECT id, run_id, observed_at, backend, provider_id, claimed_tier,"
	                  " claimed_mechanism, observed_tier, observed_vendor, confidence, verdict,"
	                  " reason, NULL, kernel_relation, NULL FROM observations"
	                  " WHERE ?1 IS NULL OR observed_at >= ?1 ORDER BY id",
	            m->since, err) < 0)
		return ISOTIER_EDB;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && m->n_observations < (size_t)n) {
		report_observation *o = &m->observations[m->n_observations++];
		o->id = sqlite3_column_int64(st, 0);
		o->run_id = sqlite3_column_int64(st, 1);
		o->observed_at = COL(2);
		o->backend = COL(3);
		o->provider_id = COL(4);
		o->claimed_tier = COL(5);
		o->claimed_mechanism = COL(6);
		o->observed_tier = COL(7);
		o->observed_vendor = COL(8);
		o->confidence = COL(9);
		o->verdict = COL(10);
		o->reason = COL(11);
		o->duration_ms =
		    sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 12);
		o->kernel_relation = sqlite3_column_type(st, 13) == SQLITE_NULL ? NULL : COL(13);
		if (sqlite3_column_type(st, 14) != SQLITE_NULL)
			o->probe_schema = report_arena_strndup(
			    &m->arena, (const char *)sqlite3_column_text(st, 14), 64);
		o->v = report_verdict_parse(o->verdict);
		if (!o->observed_at || !o->backend || !o->verdict)
			return oom(err);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read observations");
	qsort(m->observations, m->n_observations, sizeof *m->observations, cmp_observation);
	if (all_durations || !m->n_observations)
		return 0;
	cleanup_stmt sqlite3_stmt *dur = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
	                       "SELECT duration_ms," PROBE_SCHEMA " FROM observations WHERE id = ?1",
	                       -1, &dur, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "report: read durations");
	size_t first = m->n_observations > REPORT_LOG_MAX ? m->n_observations - REPORT_LOG_MAX : 0;
	for (size_t i = first; i < m->n_observations; i++) {
		report_observation *o = &m->observations[i];
		sqlite3_reset(dur);
		sqlite3_bind_int64(dur, 1, o->id);
		if (sqlite3_step(dur) != SQLITE_ROW)
			continue;
		if (sqlite3_column_type(dur, 0) != SQLITE_NULL)
			o->duration_ms = sqlite3_column_int64(dur, 0);
		if (sqlite3_column_type(dur, 1) != SQLITE_NULL)
			o->probe_schema = report_arena_strndup(
			    &m->arena, (const char *)sqlite3_column_text(dur, 1), 64);
	}
	return 0;
}

/* Provenance of each observation: its run's tool version, catalogue commit
 * and host. Runs are few next to observations: one scan, then a binary
 * search per observation. */
typedef struct run_prov {
	int64_t id;
	const char *tool_version, *catalogue_commit, *host;
} run_prov;

static int load_provenance(report_model *m, isotier_history *h, isotier_error *err)
{
	int64_t n = count(h, "SELECT count(*) FROM runs", NULL, err);
	if (n < 0)
		return ISOTIER_EDB;
	if (!n || !m->n_observations)
		return 0;
	run_prov *runs = report_arena_alloc(&m->arena, (size_t)n * sizeof *runs);
	if (!runs)
		return oom(err);
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(h, &st, "SELECT id, tool_version, catalogue_commit, host FROM runs ORDER BY id",
	            NULL, err) < 0)
		return ISOTIER_EDB;
	size_t k = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < (size_t)n) {
		run_prov *r = &runs[k++];
		r->id = sqlite3_column_int64(st, 0);
		r->tool_version = COL(1);
		r->catalogue_commit = COL(2);
		r->host = COL(3);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read runs");
	for (size_t i = 0; i < m->n_observations; i++) {
		report_observation *o = &m->observations[i];
		size_t lo = 0, hi = k;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (runs[mid].id < o->run_id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < k && runs[lo].id == o->run_id) {
			o->tool_version = runs[lo].tool_version;
			o->catalogue_commit = runs[lo].catalogue_commit;
			o->host = runs[lo].host;
		}
	}
	return 0;
}

static int load_checks(report_model *m, isotier_history *h, isotier_error *err)
{
	int64_t n =
	    count(h, "SELECT count(*) FROM source_checks WHERE ?1 IS NULL OR checked_at >= ?1",
	          m->since, err);
	if (n < 0)
		return ISOTIER_EDB;
	m->checks = report_arena_alloc(&m->arena, (size_t)(n ? n : 1) * sizeof *m->checks);
	if (!m->checks)
		return oom(err);
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(
	        h, &st,
	        "SELECT id, run_id, checked_at, provider_id, url, quote, status, http_status,"
	        " content_sha256, detail FROM source_checks WHERE ?1 IS NULL OR checked_at >= ?1"
	        " ORDER BY checked_at, id",
	        m->since, err) < 0)
		return ISOTIER_EDB;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && m->n_checks < (size_t)n) {
		report_check *c = &m->checks[m->n_checks++];
		c->id = sqlite3_column_int64(st, 0);
		c->run_id = sqlite3_column_int64(st, 1);
		c->checked_at = COL(2);
		c->provider_id = COL(3);
		c->url = COL(4);
		c->quote = COL(5);
		c->status = COL(6);
		c->http_status =
		    sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
		c->content_sha256 = COL(8);
		c->detail = COL(9);
		if (!c->checked_at || !c->provider_id || !c->url || !c->status)
			return oom(err);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read source checks");
	return 0;
}

/* A refusal: create() said no (before provisioning, or failing closed after
 * attestation). */
#define REFUSAL_WHERE                                                                              \
	" WHERE (?1 IS NULL OR at >= ?1) AND (event LIKE '%refus%' OR decision LIKE '%refus%'"     \
	" OR decision LIKE 'den%' OR decision LIKE 'reject%' OR decision LIKE 'fail%closed%'"      \
	" OR (event = 'attest' AND decision LIKE '%fail%'))"

static int load_refusals(report_model *m, isotier_history *h, isotier_error *err)
{
	int64_t n = count(h, "SELECT count(*) FROM audit_events" REFUSAL_WHERE, m->since, err);
	if (n < 0)
		return ISOTIER_EDB;
	m->refusals = report_arena_alloc(&m->arena, (size_t)(n ? n : 1) * sizeof *m->refusals);
	if (!m->refusals)
		return oom(err);
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(h, &st,
	            "SELECT id, at, event, sandbox_id, backend, claimed_tier, resolved_tier,"
	            " required_tier, decision, reason FROM audit_events" REFUSAL_WHERE
	            " ORDER BY at, id",
	            m->since, err) < 0)
		return ISOTIER_EDB;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && m->n_refusals < (size_t)n) {
		report_audit *a = &m->refusals[m->n_refusals++];
		a->id = sqlite3_column_int64(st, 0);
		a->at = COL(1);
		a->event = COL(2);
		a->sandbox_id = COL(3);
		a->backend = COL(4);
		a->claimed_tier = COL(5);
		a->resolved_tier = COL(6);
		a->required_tier = COL(7);
		a->decision = COL(8);
		a->reason = COL(9);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read audit events");
	return 0;
}

/* Runs a later run found left 'running' by a dead process (history_stale.c). */
static int load_interrupted(report_model *m, isotier_history *h, isotier_error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(h, &st,
	            "SELECT reason FROM audit_events WHERE event = 'run_interrupted'"
	            " AND (?1 IS NULL OR at >= ?1) ORDER BY id LIMIT 100",
	            m->since, err) < 0)
		return ISOTIER_EDB;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *reason = COL(0);
		long long id = 0;
		const char *subject =
		    reason && sscanf(reason, "run %lld ", &id) == 1
		        ? report_arena_printf(&m->arena, "run %lld", id)
		        : "a run";
		if (!reason || !subject ||
		    report_attention_add(m, RA_INTERRUPTED, true, subject, reason) < 0)
			return oom(err);
	}
	if (rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read interrupted runs");
	return 0;
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

static int load_providers(report_model *m, const isotier_catalogue *cat)
{
	m->providers = report_arena_alloc(&m->arena, (cat->n_providers + 1) * sizeof *m->providers);
	if (!m->providers)
		return ISOTIER_ENOMEM;
	for (size_t i = 0; i < cat->n_providers; i++) {
		const isotier_provider *cp = &cat->providers[i];
		report_provider *p = &m->providers[m->n_providers++];
		p->id = COPY(cp->id);
		p->name = COPY(cp->name);
		p->offering = COPY(cp->offering);
		p->kind = COPY(cp->kind);
		p->tier = isotier_tier_name(cp->tier);
		p->mechanism = COPY(cp->mechanism);
		p->since = COPY(cp->since);
		/* The local backend that verifies this entry, from its descriptor:
		 * the entry's own "backend" field is ignored (FORMAT.md). */
		const isotier_backend *b = isotier_backend_for_claim(cp->id);
		p->backend = b ? b->name : NULL;
		p->notes = COPY(cp->notes);
		p->file = COPY(basename_of(cp->file));
		p->group = COPY(isotier_provider_group(cp));
		p->status = COPY(isotier_provider_status(cp));
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
			return ISOTIER_ENOMEM;
		p->best_source = -1;
		p->source_age_days = -1;
		int worst = 4; /* UNCHECKED until a check says otherwise */
		const isotier_source *best = isotier_provider_best_source(cp);
		for (size_t j = 0; j < cp->n_sources; j++) {
			const isotier_source *cs = &cp->sources[j];
			report_source *s = &p->sources[p->n_sources++];
			s->url = COPY(cs->url);
			s->quote = COPY(cs->quote);
			s->publisher = COPY(cs->publisher);
			s->retrieved = COPY(cs->retrieved);
			s->title = COPY(cs->title);
			s->age_days = age_days(m, cs->retrieved);
			s->stale = s->age_days > m->max_source_age_days;
			/* The newest check of this quote at this URL (a page may be cited for
			 * several quotes); failing that, of the URL. */
			const report_check *by_url = NULL;
			for (size_t k = m->n_checks; k-- > 0 && cs->url;) {
				const report_check *c = &m->checks[k];
				if (strcmp(c->url, cs->url) || strcmp(c->provider_id, cp->id))
					continue;
				if (!by_url)
					by_url = c;
				if (c->quote && cs->quote && !strcmp(c->quote, cs->quote)) {
					s->latest = c;
					break;
				}
			}
			if (!s->latest)
				s->latest = by_url;
			int r = s->latest ? report_status_rank(s->latest->status) : 4;
			if (r < worst)
				worst = r;
			if (cs == best)
				p->best_source = (int)j, p->source_age_days = s->age_days;
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
static int load_evidence(report_model *m, isotier_history *h, isotier_error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
	                       "SELECT layers_json, probe_json FROM observations WHERE id = ?1", -1,
	                       &st, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "report: read evidence");
	size_t extra = 0;
	for (size_t i = m->n_observations; i-- > 0;) {
		report_observation *o = &m->observations[i];
		bool latest = false;
		for (size_t r = 0; r < m->n_rows && !latest; r++)
			latest = m->rows[r].latest == o;
		bool bad = o->v == RV_CONTRADICTED || o->v == RV_INCONCLUSIVE || o->v == RV_OTHER;
		if (!latest && !(bad && extra < REPORT_EVIDENCE_MAX))
			continue;
		if (!latest)
			extra++;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, o->id);
		if (sqlite3_step(st) != SQLITE_ROW)
			return isotier_history_sql_error(h, err, "report: read evidence");
		o->evidence =
		    report_evidence_parse(&m->arena, (const char *)sqlite3_column_text(st, 0),
		                          (const char *)sqlite3_column_text(st, 1));
		if (!o->evidence)
			return oom(err);
		m->n_evidence++;
	}
	return 0;
}

static int load_catalogue(report_model *m, const report_options *opts, isotier_error *err)
{
	if (!opts->catalogue_dir)
		return 0;
	isotier_catalogue *cat = NULL;
	isotier_findings findings = {0};
	isotier_error cerr = {0};
	if (isotier_catalogue_load(&cat, opts->catalogue_dir, &findings, &cerr) < 0) {
		isotier_findings_free(&findings);
		return isotier_error_set(err, cerr.code ? cerr.code : ISOTIER_EIO, 0,
		                         "report: catalogue: %s", cerr.message);
	}
	for (size_t i = 0; opts->today && i < cat->n_providers; i++)
		for (size_t j = 0; j < cat->providers[i].n_sources; j++) {
			const char *r = cat->providers[i].sources[j].retrieved;
			if (report_valid_date(r) && strcmp(opts->today, r) < 0) {
				isotier_error_set(err, ISOTIER_EINVAL, 0,
				                  "--today %s is earlier than %s's source retrieved %s",
				                  opts->today, cat->providers[i].id, r);
				isotier_findings_free(&findings);
				isotier_catalogue_free(cat);
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
				isotier_findings_free(&findings);
				isotier_catalogue_free(cat);
				return oom(err);
			}
		}
	}
	int rc = load_providers(m, cat);
	for (size_t i = 0; rc == 0 && i < findings.n; i++) {
		const isotier_finding *f = &findings.items[i];
		bool has_field = f->field && *f->field;
		const char *d = report_arena_printf(
		    &m->arena, "%s%s%s%s",
		    f->severity == ISOTIER_FINDING_ERROR ? "error: " : "warning: ",
		    has_field ? f->field : "", has_field ? ": " : "", f->message ? f->message : "");
		rc = d ? report_attention_add(m, RA_CATALOGUE, f->severity == ISOTIER_FINDING_ERROR,
		                              COPY(basename_of(f->file ? f->file : "?")), d)
		       : ISOTIER_ENOMEM;
	}
	isotier_findings_free(&findings);
	isotier_catalogue_free(cat);
	return rc < 0 ? oom(err) : 0;
}

/* Fills a fresh model from an open database; on failure the caller frees it. */
static int model_fill(report_model *m, isotier_history *h, const report_options *opts,
                      isotier_error *err)
{
	int rc;
	m->max_source_age_days = opts->max_source_age_days > 0
	                             ? opts->max_source_age_days
	                             : ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS;
	m->reverify_days = opts->reverify_days > 0 ? opts->reverify_days : REPORT_REVERIFY_DAYS;
	m->db_path = COPY(opts->db_path);
	m->backends = opts->backends;
	m->n_backends = opts->n_backends;
	m->not_configured = opts->not_configured;
	m->not_configured_why = opts->not_configured_why;
	m->n_not_configured = opts->n_not_configured;
	/* One read transaction: every query sees the same snapshot, even while
	 * verify or sources check write. */
	if (sqlite3_exec(isotier_history_db(h), "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "report: begin read");
	m->schema_version = isotier_history_schema_version(h);
	m->since = COPY(opts->since);
	m->newest_record = newest_record(m, h);
	if (opts->today && m->newest_record && strncmp(opts->today, m->newest_record, 10) < 0)
		/* ages would be negative and read as fresh */
		return isotier_error_set(err, ISOTIER_EINVAL, 0,
		                         "--today %s is earlier than the newest stored record (%s)",
		                         opts->today, m->newest_record);
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
	m->n_runs = count(h, "SELECT count(*) FROM runs WHERE ?1 IS NULL OR started_at >= ?1",
	                  m->since, err);
	if (m->n_runs < 0)
		return ISOTIER_EDB;
	if ((rc = load_observations(m, h, opts->all_durations, err)) < 0 ||
	    (rc = load_checks(m, h, err)) < 0 || (rc = load_refusals(m, h, err)) < 0 ||
	    (rc = load_interrupted(m, h, err)) < 0 ||
	    (rc = load_provenance(m, h, err)) < 0 || (rc = load_catalogue(m, opts, err)) < 0)
		return rc;
	if (report_build_rows(m) < 0)
		return oom(err);
	if (report_judge_rows(m) < 0 || report_build_buckets(m) < 0)
		return oom(err);
	if ((rc = load_evidence(m, h, err)) < 0)
		return rc;
	if (report_finish(m) < 0)
		return oom(err);
	report_sort_attention(m);
	sqlite3_exec(isotier_history_db(h), "COMMIT", NULL, NULL, NULL);
	return 0;
}

int report_model_load(report_model **out, const report_options *opts, isotier_error *err)
{
	if (opts->since && !report_valid_timestamp(opts->since))
		return isotier_error_set(err, ISOTIER_EINVAL, 0,
		                         "--since %s: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ",
		                         opts->since);
	if (opts->today && !report_valid_date(opts->today))
		return isotier_error_set(err, ISOTIER_EINVAL, 0, "--today %s: expected YYYY-MM-DD",
		                         opts->today);
	cleanup_history isotier_history *h = NULL;
	int rc = isotier_history_open_readonly(&h, opts->db_path, err);
	if (rc < 0)
		return rc;
	report_model *m = calloc(1, sizeof *m);
	if (!m)
		return oom(err);
	if ((rc = model_fill(m, h, opts, err)) < 0) {
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
	report_arena_free(&m->arena);
	free(m);
}
