/*
 * report_model.c - loads the history database (read-only) and the catalogue
 * into one report model: the tier matrix, sources with their latest checks,
 * observations and their evidence, refusals, and what needs attention.
 */
#include "report_model.h"

#include "../catalogue/catalogue.h"
#include "history.h"

#include <string.h>

#define COPY(s) report_arena_strndup(&m->arena, (s), REPORT_FIELD_MAX)
#define COL(i) COPY((const char *)sqlite3_column_text(st, (i)))

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

static int load_observations(report_model *m, isotier_history *h, isotier_error *err)
{
	int64_t n = count(h, "SELECT count(*) FROM observations WHERE ?1 IS NULL OR observed_at >= ?1",
			  m->since, err);
	if (n < 0)
		return ISOTIER_EDB;
	m->observations = report_arena_alloc(&m->arena, (size_t)(n ? n : 1) * sizeof *m->observations);
	if (!m->observations)
		return oom(err);
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(h, &st,
		    "SELECT id, run_id, observed_at, backend, provider_id, claimed_tier,"
		    " claimed_mechanism, observed_tier, observed_vendor, confidence, verdict, reason"
		    " FROM observations WHERE ?1 IS NULL OR observed_at >= ?1"
		    " ORDER BY observed_at, id",
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
		o->duration_ms = -1; /* load_durations() */
		o->v = report_verdict_parse(o->verdict);
		if (!o->observed_at || !o->backend || !o->verdict)
			return oom(err);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read observations");
	return 0;
}

/*
 * duration_ms is stored after probe_json and the evidence blob: reading it
 * walks each row's overflow pages, i.e. the whole database. Only the JSON
 * report (every field of every observation) pays that; the others read it for
 * the newest REPORT_LOG_MAX observations they show.
 */
static int load_durations(report_model *m, isotier_history *h, bool all, isotier_error *err)
{
	size_t first = all || m->n_observations <= REPORT_LOG_MAX ? 0 : m->n_observations - REPORT_LOG_MAX;
	if (first == m->n_observations)
		return 0;
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
			       "SELECT id, duration_ms FROM observations WHERE (?1 IS NULL OR observed_at >= ?1)"
			       " AND observed_at >= ?2 AND duration_ms IS NOT NULL ORDER BY observed_at, id",
			       -1, &st, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "report: read durations");
	sqlite3_bind_text(st, 1, m->since, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->observations[first].observed_at, -1, SQLITE_STATIC);
	/* Same snapshot (one read transaction), same order: a merge. */
	size_t i = first;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		while (i < m->n_observations && m->observations[i].id != id)
			i++;
		if (i == m->n_observations)
			break;
		m->observations[i++].duration_ms = sqlite3_column_int64(st, 1);
	}
	if (rc == SQLITE_ROW)
		rc = SQLITE_DONE;
	if (rc != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "report: read durations");
	return 0;
}

static int load_checks(report_model *m, isotier_history *h, isotier_error *err)
{
	int64_t n = count(h, "SELECT count(*) FROM source_checks WHERE ?1 IS NULL OR checked_at >= ?1",
			  m->since, err);
	if (n < 0)
		return ISOTIER_EDB;
	m->checks = report_arena_alloc(&m->arena, (size_t)(n ? n : 1) * sizeof *m->checks);
	if (!m->checks)
		return oom(err);
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (prepare(h, &st,
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
		c->http_status = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
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
	" WHERE (?1 IS NULL OR at >= ?1) AND (event LIKE '%refus%' OR decision LIKE '%refus%'"   \
	" OR decision LIKE 'den%' OR decision LIKE 'reject%' OR decision LIKE 'fail%closed%')"

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

/* Worst first: the order a provider's source status is summarised in. */
static int status_rank(const char *s)
{
	static const char *const order[] = {"GONE", "CHANGED", "UNREACHABLE", "PRESENT"};
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, order[i]))
			return i;
	return s ? 1 : 5; /* an unknown word reads as drift: look at it */
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
		p->backend = COPY(cp->backend);
		p->notes = COPY(cp->notes);
		p->file = COPY(basename_of(cp->file));
		p->sources = report_arena_alloc(&m->arena, (cp->n_sources + 1) * sizeof *p->sources);
		p->history = report_arena_alloc(&m->arena, (cp->n_history + 1) * sizeof *p->history);
		if (!p->id || !p->sources || !p->history)
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
			int r = s->latest ? status_rank(s->latest->status) : 4;
			if (r < worst)
				worst = r;
			if (cs == best)
				p->best_source = (int)j, p->source_age_days = s->age_days;
		}
		static const char *const words[] = {"GONE", "CHANGED", "UNREACHABLE", "PRESENT", "UNCHECKED"};
		p->source_status = words[worst];
		p->source_stale = cp->tier != ISOTIER_UNKNOWN &&
				  (p->best_source < 0 || p->source_age_days > m->max_source_age_days);
		for (size_t j = 0; j < cp->n_history; j++) {
			report_prior *r = &p->history[p->n_history++];
			r->tier = isotier_tier_name(cp->history[j].tier);
			r->mechanism = COPY(cp->history[j].mechanism);
			r->until = COPY(cp->history[j].until);
			r->note = COPY(cp->history[j].note);
		}
	}
	return 0;
}

static const report_provider *find_provider(const report_model *m, const char *id)
{
	for (size_t i = 0; id && i < m->n_providers; i++)
		if (!strcmp(m->providers[i].id, id))
			return &m->providers[i];
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static report_row *row_for(report_model *m, const report_observation *o, size_t cap)
{
	for (size_t i = 0; i < m->n_rows; i++) {
		report_row *r = &m->rows[i];
		if (o->provider_id ? same(r->provider_id, o->provider_id) && same(r->backend, o->backend)
				   : same(r->backend, o->backend) && (!r->provider_id || r->provider))
			return r;
	}
	/* A catalogue provider not driven locally, first seen through a backend
	 * (the host of a job running on it). */
	for (size_t i = 0; o->provider_id && i < m->n_rows; i++) {
		report_row *r = &m->rows[i];
		if (same(r->provider_id, o->provider_id) && !r->backend && !r->n_observations) {
			r->backend = o->backend;
			return r;
		}
	}
	if (m->n_rows >= cap)
		return NULL;
	report_row *r = &m->rows[m->n_rows++];
	r->provider_id = o->provider_id;
	r->backend = o->backend;
	r->provider = find_provider(m, o->provider_id);
	return r;
}

static int cmp_str_null_last(const char *a, const char *b)
{
	if (!a || !b)
		return (a == NULL) - (b == NULL);
	return strcmp(a, b);
}

static int cmp_row(const void *x, const void *y)
{
	const report_row *a = x, *b = y;
	int c = cmp_str_null_last(a->provider_id, b->provider_id);
	return c ? c : cmp_str_null_last(a->backend, b->backend);
}

static int build_rows(report_model *m, isotier_history *h, isotier_error *err)
{
	int64_t distinct = count(h,
				 "SELECT count(*) FROM (SELECT DISTINCT provider_id, backend FROM"
				 " observations WHERE ?1 IS NULL OR observed_at >= ?1)",
				 m->since, err);
	if (distinct < 0)
		return ISOTIER_EDB;
	size_t cap = m->n_providers + (size_t)distinct + 1;
	m->rows = report_arena_alloc(&m->arena, cap * sizeof *m->rows);
	if (!m->rows)
		return oom(err);
	for (size_t i = 0; i < m->n_providers; i++) {
		report_row *r = &m->rows[m->n_rows++];
		r->provider = &m->providers[i];
		r->provider_id = r->provider->id;
		r->backend = r->provider->backend;
	}
	report_row *last = NULL;
	for (size_t i = 0; i < m->n_observations; i++) {
		const report_observation *o = &m->observations[i];
		if (!last || !same(last->backend, o->backend) ||
		    !same(last->latest ? last->latest->provider_id : NULL, o->provider_id))
			last = row_for(m, o, cap);
		if (!last)
			return isotier_error_set(err, ISOTIER_ERROR, 0, "report: too many matrix rows");
		last->latest = o; /* observations are oldest first */
		last->n_observations++;
	}
	qsort(m->rows, m->n_rows, sizeof *m->rows, cmp_row);
	return 0;
}

static int add_attention(report_model *m, size_t *cap, report_attention_kind kind, bool failing,
			 const char *subject, const char *detail)
{
	if (m->n_attention == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		report_attention *n = report_arena_alloc(&m->arena, ncap * sizeof *n);
		if (!n)
			return ISOTIER_ENOMEM;
		if (m->n_attention)
			memcpy(n, m->attention, m->n_attention * sizeof *n);
		m->attention = n, *cap = ncap;
	}
	m->attention[m->n_attention++] =
		(report_attention){.kind = kind, .failing = failing, .subject = subject, .detail = detail};
	if (failing)
		m->n_failing++;
	return 0;
}

static int cmp_attention(const void *x, const void *y)
{
	const report_attention *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	int c = cmp_str_null_last(a->subject, b->subject);
	return c ? c : cmp_str_null_last(a->detail, b->detail);
}

static const char *row_label(report_model *m, const report_row *r)
{
	if (r->provider_id && r->backend)
		return report_arena_printf(&m->arena, "%s (%s)", r->provider_id, r->backend);
	return r->provider_id ? r->provider_id : r->backend ? r->backend : "?";
}

static int judge_rows(report_model *m, size_t *cap)
{
	long today = report_days(m->today);
	for (size_t i = 0; i < m->n_rows; i++) {
		report_row *r = &m->rows[i];
		const report_provider *p = r->provider;
		const report_observation *o = r->latest;
		r->claimed_tier = p ? p->tier : o && o->claimed_tier ? o->claimed_tier : NULL;
		r->mechanism = p ? p->mechanism : o ? o->claimed_mechanism : NULL;
		const char *label = row_label(m, r);
		char state[160] = "";
#define STATE(w) (strcat(strcat(state, state[0] ? ", " : ""), (w)))
		if (o) {
			m->latest_counts[o->v]++;
			r->contradicted = o->v == RV_CONTRADICTED;
		}
		if (r->contradicted) {
			STATE("CONTRADICTED");
			if (add_attention(m, cap, RA_CONTRADICTED, true, label,
					  report_arena_printf(&m->arena,
							      "observation %lld at %s: claimed %s, observed %s: %s",
							      (long long)o->id, o->observed_at,
							      o->claimed_tier ? o->claimed_tier : "-",
							      o->observed_tier ? o->observed_tier : "-",
							      o->reason ? o->reason : "no reason stored")) < 0)
				return ISOTIER_ENOMEM;
		}
		if (p && (!strcmp(p->source_status, "GONE") || !strcmp(p->source_status, "CHANGED"))) {
			r->drifted = true;
			STATE(!strcmp(p->source_status, "GONE") ? "SOURCE GONE" : "SOURCE CHANGED");
		}
		if (p && p->source_stale)
			STATE("SOURCE STALE");
		if (r->backend && today >= 0) {
			long seen = o ? report_days(o->observed_at) : -1;
			r->overdue = seen < 0 || today - seen > m->reverify_days;
			if (r->overdue) {
				STATE("OVERDUE");
				const char *d = o ? report_arena_printf(&m->arena,
									"last observed %s, more than %d days before %s",
									o->observed_at, m->reverify_days, m->today)
						  : report_arena_printf(&m->arena, "no observation%s%s",
									m->since ? " since " : " stored",
									m->since ? m->since : "");
				if (add_attention(m, cap, RA_OVERDUE, true, label, d) < 0)
					return ISOTIER_ENOMEM;
			}
		}
		if (!o && !r->backend)
			STATE("not observed");
		r->state = report_arena_strndup(&m->arena, state[0] ? state : "ok", sizeof state);
#undef STATE
	}
	/* Per provider, once: sources. */
	for (size_t i = 0; i < m->n_providers; i++) {
		const report_provider *p = &m->providers[i];
		for (size_t j = 0; j < p->n_sources; j++) {
			const report_source *s = &p->sources[j];
			if (!s->latest)
				continue;
			int r = status_rank(s->latest->status);
			report_attention_kind k = r == 0 ? RA_SOURCE_GONE : r == 1 ? RA_SOURCE_CHANGED
							: r == 2 ? RA_SOURCE_UNREACHABLE : RA_COUNT;
			if (k != RA_COUNT &&
			    add_attention(m, cap, k, k != RA_SOURCE_UNREACHABLE, p->id,
					  report_arena_printf(&m->arena, "%s: %s at %s%s%s", s->url,
							      s->latest->status, s->latest->checked_at,
							      s->latest->detail ? ": " : "",
							      s->latest->detail ? s->latest->detail : "")) < 0)
				return ISOTIER_ENOMEM;
		}
		if (p->source_stale &&
		    add_attention(m, cap, RA_SOURCE_STALE, true, p->id,
				  p->best_source < 0
					  ? report_arena_printf(&m->arena, "tier %s has no provider-published quoted source", p->tier)
					  : report_arena_printf(&m->arena, "tier %s rests on a source retrieved %s, %d days before %s (max %d)",
								p->tier, p->sources[p->best_source].retrieved,
								p->source_age_days, m->today, m->max_source_age_days)) < 0)
			return ISOTIER_ENOMEM;
	}
	return 0;
}

static int build_buckets(report_model *m)
{
	long first = -1, last = -1;
	for (size_t i = 0; i < m->n_observations; i++) {
		long d = report_days(m->observations[i].observed_at);
		if (d < 0)
			continue;
		if (first < 0 || d < first)
			first = d;
		if (d > last)
			last = d;
	}
	if (first < 0)
		return 0;
	bool by_day = last - first < REPORT_CHART_BUCKETS;
	m->bucket_unit = by_day ? "day" : "month";
	m->buckets = report_arena_alloc(&m->arena, REPORT_CHART_BUCKETS * sizeof *m->buckets);
	if (!m->buckets)
		return ISOTIER_ENOMEM;
	size_t plen = by_day ? 10 : 7;
	/* Observations are in time order, so buckets fill oldest first; keep the newest. */
	for (size_t i = 0; i < m->n_observations; i++) {
		const report_observation *o = &m->observations[i];
		if (report_days(o->observed_at) < 0)
			continue;
		report_bucket *b = m->n_buckets ? &m->buckets[m->n_buckets - 1] : NULL;
		if (!b || strncmp(b->period, o->observed_at, plen)) {
			if (m->n_buckets == REPORT_CHART_BUCKETS) {
				memmove(m->buckets, m->buckets + 1, (REPORT_CHART_BUCKETS - 1) * sizeof *b);
				m->n_buckets--;
			}
			b = &m->buckets[m->n_buckets++];
			memset(b, 0, sizeof *b);
			b->period = report_arena_printf(&m->arena, "%.*s", (int)plen, o->observed_at);
			if (!b->period)
				return ISOTIER_ENOMEM;
		}
		b->counts[o->v]++;
		b->total++;
	}
	return 0;
}

/* Evidence for the latest observation of every row and the most recent
 * observations that did not back their claim. */
static int load_evidence(report_model *m, isotier_history *h, isotier_error *err)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
			       "SELECT layers_json, probe_json FROM observations WHERE id = ?1", -1, &st,
			       NULL) != SQLITE_OK)
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
		o->evidence = report_evidence_parse(&m->arena, (const char *)sqlite3_column_text(st, 0),
						    (const char *)sqlite3_column_text(st, 1));
		if (!o->evidence)
			return oom(err);
		m->n_evidence++;
	}
	return 0;
}

static int load_catalogue(report_model *m, const report_options *opts, size_t *cap, isotier_error *err)
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
	int rc = load_providers(m, cat);
	for (size_t i = 0; rc == 0 && i < findings.n; i++) {
		const isotier_finding *f = &findings.items[i];
		bool has_field = f->field && *f->field;
		const char *d = report_arena_printf(&m->arena, "%s%s%s%s",
						    f->severity == ISOTIER_FINDING_ERROR ? "error: " : "warning: ",
						    has_field ? f->field : "", has_field ? ": " : "",
						    f->message ? f->message : "");
		rc = d ? add_attention(m, cap, RA_CATALOGUE, f->severity == ISOTIER_FINDING_ERROR,
				       COPY(basename_of(f->file ? f->file : "?")), d)
		       : ISOTIER_ENOMEM;
	}
	isotier_findings_free(&findings);
	isotier_catalogue_free(cat);
	return rc < 0 ? oom(err) : 0;
}

static void cleanup_modelp(report_model **m)
{
	report_model_free(*m);
}
#define cleanup_model __attribute__((cleanup(cleanup_modelp)))

int report_model_load(report_model **out, const report_options *opts, isotier_error *err)
{
	if (opts->since && !report_valid_timestamp(opts->since))
		return isotier_error_set(err, ISOTIER_EINVAL, 0,
					 "--since %s: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ", opts->since);
	if (opts->today && !report_valid_date(opts->today))
		return isotier_error_set(err, ISOTIER_EINVAL, 0, "--today %s: expected YYYY-MM-DD", opts->today);
	cleanup_history isotier_history *h = NULL;
	int rc = isotier_history_open_readonly(&h, opts->db_path, err);
	if (rc < 0)
		return rc;
	cleanup_model report_model *m = calloc(1, sizeof *m);
	if (!m)
		return oom(err);
	m->max_source_age_days = opts->max_source_age_days > 0 ? opts->max_source_age_days
							       : ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS;
	m->reverify_days = opts->reverify_days > 0 ? opts->reverify_days : REPORT_REVERIFY_DAYS;
	/* One read transaction: every query sees the same snapshot, even while
	 * verify or sources check write. */
	if (sqlite3_exec(isotier_history_db(h), "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "report: begin read");
	m->schema_version = isotier_history_schema_version(h);
	m->since = COPY(opts->since);
	m->newest_record = newest_record(m, h);
	size_t cap = 0;
	if (opts->today) {
		m->today = COPY(opts->today), m->today_source = "--today";
	} else if (m->newest_record && report_days(m->newest_record) >= 0) {
		m->today = report_arena_printf(&m->arena, "%.10s", m->newest_record);
		m->today_source = "database";
	} else {
		m->today = "", m->today_source = "none";
	}
	m->n_runs = count(h, "SELECT count(*) FROM runs WHERE ?1 IS NULL OR started_at >= ?1", m->since, err);
	if (m->n_runs < 0)
		return ISOTIER_EDB;
	if ((rc = load_observations(m, h, err)) < 0 ||
	    (rc = load_durations(m, h, opts->all_durations, err)) < 0 || (rc = load_checks(m, h, err)) < 0 ||
	    (rc = load_refusals(m, h, err)) < 0 || (rc = load_catalogue(m, opts, &cap, err)) < 0 ||
	    (rc = build_rows(m, h, err)) < 0)
		return rc;
	if (judge_rows(m, &cap) < 0 || build_buckets(m) < 0)
		return oom(err);
	if ((rc = load_evidence(m, h, err)) < 0)
		return rc;
	qsort(m->attention, m->n_attention, sizeof *m->attention, cmp_attention);
	sqlite3_exec(isotier_history_db(h), "COMMIT", NULL, NULL, NULL);
	*out = steal_pointer(&m);
	return 0;
}

void report_model_free(report_model *m)
{
	if (!m)
		return;
	report_arena_free(&m->arena);
	free(m);
}
