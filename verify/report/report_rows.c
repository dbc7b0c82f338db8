/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_rows.c - the judgement half of the report model: the tier matrix
 * (one row per provider and backend, with its latest observation), what needs
 * attention (contradicted, drifted, stale, overdue), and the verdict timeline.
 * Pure functions of what report_model.c loaded: no I/O, no clock.
 */
#include "report_model.h"

#include <string.h>

/* Worst first: the order a provider's source status is summarised in. */
int report_status_rank(const char *s)
{
	static const char *const order[] = {"GONE", "CHANGED", "UNREACHABLE", "PRESENT"};
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, order[i]))
			return i;
	return s ? 1 : 5; /* an unknown word reads as drift: look at it */
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

report_row *report_row_for(report_model *m, const char *provider_id, const char *backend,
                           size_t *cap)
{
	for (size_t i = 0; i < m->n_rows; i++) {
		report_row *r = &m->rows[i];
		if (provider_id ? same(r->provider_id, provider_id) && same(r->backend, backend)
		                : same(r->backend, backend) && (!r->provider_id || r->provider))
			return r;
	}
	/* A catalogue provider not driven locally, first seen through a backend
	 * (the host of a job running on it). */
	for (size_t i = 0; provider_id && i < m->n_rows; i++) {
		report_row *r = &m->rows[i];
		if (same(r->provider_id, provider_id) && !r->backend && !r->n_observations) {
			r->backend = report_arena_strndup(&m->arena, backend, REPORT_FIELD_MAX);
			return backend && !r->backend ? NULL : r;
		}
	}
	if (m->n_rows >= REPORT_ROWS_MAX)
		return NULL;
	if (m->n_rows == *cap) { /* rows are few: grow by copying within the arena */
		size_t ncap = *cap * 2;
		report_row *n = report_arena_alloc(&m->arena, ncap * sizeof *n);
		if (!n)
			return NULL;
		memcpy(n, m->rows, m->n_rows * sizeof *n);
		m->rows = n, *cap = ncap;
	}
	report_row *r = &m->rows[m->n_rows];
	r->provider_id = report_arena_strndup(&m->arena, provider_id, REPORT_FIELD_MAX);
	r->backend = report_arena_strndup(&m->arena, backend, REPORT_FIELD_MAX);
	if ((provider_id && !r->provider_id) || (backend && !r->backend))
		return NULL;
	r->provider = find_provider(m, provider_id);
	m->n_rows++;
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

int report_seed_rows(report_model *m, size_t *cap)
{
	*cap = m->n_providers + 16;
	m->rows = report_arena_alloc(&m->arena, *cap * sizeof *m->rows);
	if (!m->rows)
		return ISOTIER_ENOMEM;
	for (size_t i = 0; i < m->n_providers; i++) {
		report_row *r = &m->rows[m->n_rows++];
		r->provider = &m->providers[i];
		r->provider_id = r->provider->id;
		r->backend = r->provider->backend;
	}
	/* Every registered backend that links a claim has a row, verified or
	 * not: one that shares another's claim (bwrap-nonet on bubblewrap)
	 * is not the entry's first backend, and was invisible, never overdue. */
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		const report_provider *p =
		    b->catalogue_id ? find_provider(m, b->catalogue_id) : NULL;
		bool asked = !m->backends; /* --backend: only those */
		for (size_t k = 0; !asked && k < m->n_backends; k++)
			asked = !strcmp(m->backends[k], b->name);
		if (!p || same(p->backend, b->name) || !asked)
			continue;
		if (!report_row_for(m, p->id, b->name, cap))
			return ISOTIER_ENOMEM;
	}
	return 0;
}

void report_sort_rows(report_model *m)
{
	qsort(m->rows, m->n_rows, sizeof *m->rows, cmp_row);
}

int report_attention_add(report_model *m, report_attention_kind kind, bool failing,
                         const char *subject, const char *detail)
{
	if (m->n_attention == m->attention_cap) {
		size_t ncap = m->attention_cap ? m->attention_cap * 2 : 32;
		report_attention *n = report_arena_alloc(&m->arena, ncap * sizeof *n);
		if (!n)
			return ISOTIER_ENOMEM;
		if (m->n_attention)
			memcpy(n, m->attention, m->n_attention * sizeof *n);
		m->attention = n, m->attention_cap = ncap;
	}
	m->attention[m->n_attention++] = (report_attention){
	    .kind = kind, .failing = failing, .subject = subject, .detail = detail};
	if (failing)
		m->n_failing++;
	return 0;
}

static int cmp_attention(const void *x, const void *y)
{
	const report_attention *a = x, *b = y;
	if (a->severity != b->severity)
		return a->severity < b->severity ? -1 : 1;
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

/* Can this backend be overdue here? Every one, unless the job named the
 * ones it verifies. */
/* A remote backend without credentials here (cmd_report asks the backend). */
static const char *not_configured(const report_model *m, const char *backend)
{
	for (size_t i = 0; i < m->n_not_configured; i++)
		if (!strcmp(m->not_configured[i], backend))
			return m->not_configured_why[i];
	return NULL;
}

static bool backend_expected(const report_model *m, const char *backend)
{
	if (not_configured(m, backend))
		return false;
	if (!m->backends)
		return true;
	for (size_t i = 0; i < m->n_backends; i++)
		if (!strcmp(m->backends[i], backend))
			return true;
	return false;
}

/* What the newest attention item is about (for its remedy's command). */
static void about(report_model *m, const char *backend, const char *provider_id)
{
	m->attention[m->n_attention - 1].backend = backend;
	m->attention[m->n_attention - 1].provider_id = provider_id;
}

int report_judge_rows(report_model *m)
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
			r->not_proven = o->v == RV_NOT_CONTRADICTED;
			/* As in resolve: NOT_CONTRADICTED judges nothing, so a
			 * contradiction before it still stands (and is shown). */
			if (r->not_proven && r->latest_judged &&
			    r->latest_judged->v == RV_CONTRADICTED)
				o = r->latest_judged;
			r->contradicted = o->v == RV_CONTRADICTED;
		}
		if (r->contradicted) {
			STATE("CONTRADICTED");
			if (report_attention_add(
			        m, RA_CONTRADICTED, true, label,
			        report_arena_printf(
			            &m->arena,
			            "observation %lld at %s: claimed %s, observed %s: %s",
			            (long long)o->id, o->observed_at,
			            o->claimed_tier ? o->claimed_tier : "-",
			            o->observed_tier ? o->observed_tier : "-",
			            o->reason ? o->reason : "no reason stored")) < 0)
				return ISOTIER_ENOMEM;
			about(m, r->backend, r->provider_id);
		}
		if (p &&
		    (!strcmp(p->source_status, "GONE") || !strcmp(p->source_status, "CHANGED"))) {
			r->drifted = true;
			STATE(!strcmp(p->source_status, "GONE") ? "SOURCE GONE" : "SOURCE CHANGED");
		}
		if (p && p->source_stale)
			STATE("SOURCE STALE");
		if (p && strcmp(p->status, "current"))
			STATE(!strcmp(p->status, "retired") ? "RETIRED" : "DEPRECATED");
		o = r->latest;
		/* Not contradicted, not proven (a remote claim above CONTAINER):
		 * shown, as a note; the honest steady state, not drift. */
		if (r->not_proven) {
			STATE("NOT PROVEN");
			/* The stored reason says it already, unless it is an odd row. */
			bool said = o->reason && strstr(o->reason, "no hardware attestation");
			const char *pre = "not contradicted, not proven: no hardware attestation (";
			if (report_attention_add(
			        m, RA_NOT_PROVEN, false, label,
			        report_arena_printf(
			            &m->arena, "observation %lld at %s: claimed %s: %s%s%s",
			            (long long)o->id, o->observed_at,
			            o->claimed_tier ? o->claimed_tier : "-", said ? "" : pre,
			            o->reason ? o->reason : "no reason stored", said ? "" : ")")) <
			    0)
				return ISOTIER_ENOMEM;
			about(m, r->backend, r->provider_id);
		}
		/* The latest run could not prove a real claim (verify exit 2). */
		const report_observation *run = r->latest_run;
		if (run && run->v == RV_INCONCLUSIVE && run->kernel_relation && run->claimed_tier &&
		    strcmp(run->claimed_tier, "UNKNOWN") != 0) {
			r->unproven = true;
			STATE("UNPROVEN");
			if (report_attention_add(
			        m, RA_UNPROVEN, true, label,
			        report_arena_printf(
			            &m->arena,
			            "observation %lld at %s: claimed %s could not be "
			            "proven: %s",
			            (long long)run->id, run->observed_at, run->claimed_tier,
			            run->reason ? run->reason : "no reason stored")) < 0)
				return ISOTIER_ENOMEM;
			about(m, r->backend, r->provider_id);
		}
		if (r->backend && today >= 0 && backend_expected(m, r->backend)) {
			/* Only a run that verified resets the clock: an UNAVAILABLE
			 * one never does, an INCONCLUSIVE one only where there is no
			 * claim to judge. */
			const report_observation *v =
			    r->claimed_tier ? r->latest_checked : r->latest_run;
			long seen = v ? report_days(v->observed_at) : -1;
			r->overdue = seen < 0 || today - seen > m->reverify_days;
			if (r->overdue) {
				STATE("OVERDUE");
				const char *d =
				    v ? report_arena_printf(
				            &m->arena,
				            "last verified %s, more than %d days before %s%s",
				            v->observed_at, m->reverify_days, m->today,
				            v != o
				                ? " (later runs were UNAVAILABLE or INCONCLUSIVE)"
				                : "")
				      : report_arena_printf(&m->arena, "no %s%s%s",
				                            o ? "verification (only runs that were "
				                                "UNAVAILABLE or INCONCLUSIVE)"
				                              : "observation",
				                            m->since ? " since " : " stored",
				                            m->since ? m->since : "");
				if (report_attention_add(m, RA_OVERDUE, true, label, d) < 0)
					return ISOTIER_ENOMEM;
				about(m, r->backend, r->provider_id);
			}
		}
		/* Not configured here: said once per backend, never overdue. */
		const char *why = r->backend ? not_configured(m, r->backend) : NULL;
		if (why) {
			STATE("not configured");
			bool said = false;
			for (size_t k = 0; k < m->n_attention && !said; k++)
				said = m->attention[k].kind == RA_NOT_CONFIGURED &&
				       m->attention[k].backend &&
				       !strcmp(m->attention[k].backend, r->backend);
			if (!said) {
				if (report_attention_add(
				        m, RA_NOT_CONFIGURED, false, r->backend,
				        report_arena_printf(&m->arena, "not configured here: %s",
				                            why)) < 0)
					return ISOTIER_ENOMEM;
				about(m, r->backend, NULL);
			}
		}
		/* No observation is no evidence: never "ok". A backend row could
		 * have been observed here; an offering without one cannot be. */
		if (!o)
			STATE(r->backend ? "never observed" : "not observed");
		/* A claim whose latest observation neither backs nor contradicts it. */
		if (o && r->claimed_tier &&
		    (o->v == RV_INCONCLUSIVE || o->v == RV_UNAVAILABLE || o->v == RV_OTHER))
			STATE("UNCONFIRMED");
		r->state = report_arena_strndup(&m->arena, state[0] ? state : "ok", sizeof state);
#undef STATE
	}
	/* A backend the job verifies that nothing in the history or the
	 * catalogue names at all is the most overdue of all. */
	for (size_t b = 0; m->backends && today >= 0 && b < m->n_backends; b++) {
		bool found = false;
		for (size_t i = 0; i < m->n_rows && !found; i++)
			found = m->rows[i].backend && !strcmp(m->rows[i].backend, m->backends[b]);
		if (!found &&
		    report_attention_add(m, RA_OVERDUE, true, m->backends[b],
		                         report_arena_printf(&m->arena,
		                                             "verified by this job but never "
		                                             "observed%s%s",
		                                             m->since ? " since " : "",
		                                             m->since ? m->since : "")) < 0)
			return ISOTIER_ENOMEM;
		if (!found)
			about(m, m->backends[b], NULL);
	}
	/* Per provider, once: sources. */
	for (size_t i = 0; i < m->n_providers; i++) {
		const report_provider *p = &m->providers[i];
		for (size_t j = 0; j < p->n_sources; j++) {
			const report_source *s = &p->sources[j];
			if (!s->latest)
				continue;
			int r = report_status_rank(s->latest->status);
			report_attention_kind k = r == 0   ? RA_SOURCE_GONE
			                          : r == 1 ? RA_SOURCE_CHANGED
			                          : r == 2 ? RA_SOURCE_UNREACHABLE
			                                   : RA_COUNT;
			if (k != RA_COUNT &&
			    report_attention_add(
			        m, k, k != RA_SOURCE_UNREACHABLE, p->id,
			        report_arena_printf(
			            &m->arena, "%s: %s at %s%s%s", s->url, s->latest->status,
			            s->latest->checked_at, s->latest->detail ? ": " : "",
			            s->latest->detail ? s->latest->detail : "")) < 0)
				return ISOTIER_ENOMEM;
			if (k != RA_COUNT)
				about(m, NULL, p->id);
		}
		/* A deprecated offering still resolves; the report flags it. */
		if (strcmp(p->status, "current") &&
		    report_attention_add(
		        m, RA_CATALOGUE, false, p->id,
		        report_arena_printf(&m->arena, "%s offering (%s, %s): %s", p->status,
		                            p->status_date ? p->status_date : "?",
		                            p->status_url ? p->status_url : "?",
		                            p->status_quote ? p->status_quote : "")) < 0)
			return ISOTIER_ENOMEM;
		if (p->source_stale &&
		    report_attention_add(
		        m, RA_SOURCE_STALE, true, p->id,
		        p->best_source < 0
		            ? report_arena_printf(&m->arena,
		                                  "tier %s has no provider-published quoted source",
		                                  p->tier)
		            : report_arena_printf(&m->arena,
		                                  "tier %s rests on a source retrieved %s, %d days "
		                                  "before %s (max %d)",
		                                  p->tier, p->sources[p->best_source].retrieved,
		                                  p->source_age_days, m->today,
		                                  m->max_source_age_days)) < 0)
			return ISOTIER_ENOMEM;
		if (p->source_stale)
			about(m, NULL, p->id);
	}
	return 0;
}

long report_bucket_key(long day, bool by_day)
{
	if (by_day)
		return day;
	long y;
	unsigned mo, d;
	isotier__civil_from_days(day, &y, &mo, &d);
	return y * 12 + (long)mo - 1;
}

/* Verdict counts per day (per month beyond REPORT_CHART_BUCKETS days), every
 * period from the first to the last, empty ones included: a week without
 * verification must show as a gap. The newest REPORT_CHART_BUCKETS periods:
 * days and months hold the counts of the newest REPORT_CHART_BUCKETS of
 * each (slot key % REPORT_CHART_BUCKETS, report_scan.c). */
int report_build_buckets(report_model *m, long first, long last, const report_count_slot *days,
                         const report_count_slot *months, long max_day, long max_month)
{
	if (first < 0)
		return 0;
	bool by_day = last - first < REPORT_CHART_BUCKETS;
	m->bucket_unit = by_day ? "day" : "month";
	long lo = report_bucket_key(first, by_day), hi = by_day ? max_day : max_month;
	if (hi - lo + 1 > REPORT_CHART_BUCKETS)
		lo = hi - REPORT_CHART_BUCKETS + 1;
	const report_count_slot *ring = by_day ? days : months;
	m->bucket_lo = lo;
	m->n_buckets = (size_t)(hi - lo + 1);
	m->buckets = report_arena_alloc(&m->arena, m->n_buckets * sizeof *m->buckets);
	if (!m->buckets)
		return ISOTIER_ENOMEM;
	for (size_t k = 0; k < m->n_buckets; k++) {
		long key = lo + (long)k, y;
		unsigned mo, d;
		if (by_day) {
			isotier__civil_from_days(key, &y, &mo, &d);
			m->buckets[k].period =
			    report_arena_printf(&m->arena, "%04ld-%02u-%02u", y, mo, d);
		} else {
			m->buckets[k].period =
			    report_arena_printf(&m->arena, "%04ld-%02ld", key / 12, key % 12 + 1);
		}
		if (!m->buckets[k].period)
			return ISOTIER_ENOMEM;
		const report_count_slot *slot = &ring[key % REPORT_CHART_BUCKETS];
		if (slot->key == key) {
			memcpy(m->buckets[k].counts, slot->counts, sizeof slot->counts);
			m->buckets[k].total = slot->total;
		}
	}
	return 0;
}

void report_sort_attention(report_model *m)
{
	if (m->n_attention)
		qsort(m->attention, m->n_attention, sizeof *m->attention, cmp_attention);
}

const char *report_date_source_text(const report_model *m)
{
	if (!strcmp(m->today_source, "database"))
		return "the newest stored record";
	if (!strcmp(m->today_source, "catalogue"))
		return "nothing is stored yet: the catalogue's newest source date";
	if (!strcmp(m->today_source, "--today"))
		return "given with --today";
	return "nothing dates this report: ages are not computed";
}
