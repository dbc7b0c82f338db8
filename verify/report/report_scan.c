/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_scan.c - the report's one pass over a history's observations,
 * however many: each streams past once (oldest first) and is counted into
 * the matrix's rows, the verdict chart, each row's timeline and the fleet's
 * host cells; only the few a reader is shown in full are then read back by
 * id and held (REPORT_LOG_MAX in report_model.h says which). Memory grows
 * with the rows, cells and periods a report shows, never with the history:
 * a million observations cost what a thousand do. The JSON writer, which
 * carries every observation, streams them again from the same snapshot
 * (report_each_observation).
 */
#include "report_model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define COPY(ar, s) report_arena_strndup((ar), (s), REPORT_FIELD_MAX)

int report_observation_fill(const report_model *m, report_arena *ar, report_observation *o,
                            const isotier_report_observation_row *r)
{
	*o = (report_observation){
	    .id = r->id,
	    .run_id = r->run_id,
	    .duration_ms = r->duration_ms,
	    .sandbox_wall_ms = r->sandbox_wall_ms,
	    .sandbox_cpu_ms = r->sandbox_cpu_ms,
	    .jobs = r->jobs,
	    .overlap = r->overlap,
	    .observed_at = COPY(ar, r->observed_at),
	    .backend = COPY(ar, r->backend),
	    .provider_id = COPY(ar, r->provider_id),
	    .claimed_tier = COPY(ar, r->claimed_tier),
	    .claimed_mechanism = COPY(ar, r->claimed_mechanism),
	    .observed_tier = COPY(ar, r->observed_tier),
	    .observed_vendor = COPY(ar, r->observed_vendor),
	    .confidence = COPY(ar, r->confidence),
	    .verdict = COPY(ar, r->verdict),
	    .reason = COPY(ar, r->reason),
	    .evidence_sha256 = report_arena_strndup(ar, r->evidence_sha256, 64),
	    .imported = r->imported,
	    .unsigned_row = r->unsigned_row,
	    .kernel_relation = COPY(ar, r->kernel_relation),
	    .tool_version = COPY(ar, r->tool_version),
	    .catalogue_commit = COPY(ar, r->catalogue_commit),
	    .host = COPY(ar, r->run_host),
	    .host_id = report_arena_strndup(ar, r->host_id, 64),
	    .probe_schema = report_arena_strndup(ar, r->probe_schema, 64),
	};
	if (!o->observed_at || !o->backend || !o->verdict)
		return ISOTIER_ENOMEM;
	o->v = report_verdict_parse(o->verdict);
	o->attested = report_attest_candidate(m, o) && report_layers_attested(r->attest_layers) &&
	              report_statement_attested(r->attest_statement, o->backend, r->host_id);
	return 0;
}

/* A (backend, host) cell of the fleet's matrix: its latest judged id and
 * that one's time (report_time_key). */
typedef struct scan_cell {
	const char *backend, *host;
	int64_t id, key;
} scan_cell;

/* An observation seen now, with time key, is newer than the latest held
 * (have_id, have_key; 0: none): observed later, or at the same time (it
 * comes later in id order, the order they stream in). A time that does
 * not read falls back to that order. */
static bool newer(int64_t key, int64_t have_id, int64_t have_key)
{
	return !have_id || key < 0 || have_key < 0 || key >= have_key;
}

/* An observation among the bad ones shown (id order where a time does not
 * read). */
typedef struct scan_bad {
	int64_t id, key;
} scan_bad;

/* A (provider, backend) report_row_for answered: the row's own strings. */
typedef struct row_hit {
	const char *provider_id, *backend; /* provider_id NULL: the key had none */
	size_t row;
} row_hit;
#define ROW_HITS 16

typedef struct scan_ctx {
	report_model *m;
	row_hit hits[ROW_HITS];
	size_t n_hits, next_hit;
	isotier_error *err;
	int rc;
	size_t cap_rows;
	report_arena scratch; /* one streamed row's strings */
	int64_t log[REPORT_LOG_MAX];
	scan_bad bad[REPORT_EVIDENCE_MAX]; /* the newest that are no row's latest */
	size_t n_bad;
	scan_cell *cells;
	size_t n_cells, cap_cells, last_cell;
	report_count_slot days[REPORT_CHART_BUCKETS], months[REPORT_CHART_BUCKETS];
	long max_day, max_month, first, last;
} scan_ctx;

/* The slot for key in a ring of the newest REPORT_CHART_BUCKETS keys
 * (*max: the newest seen); -1 when older than those. */
static long ring_at(long key, long *max)
{
	if (*max != LONG_MIN && key <= *max - REPORT_CHART_BUCKETS)
		return -1;
	if (*max == LONG_MIN || key > *max)
		*max = key;
	return key % REPORT_CHART_BUCKETS;
}

static void count_in(report_count_slot *ring, long *max, long key, report_verdict v)
{
	long i = ring_at(key, max);
	if (i < 0 || ring[i].key > key)
		return;
	if (ring[i].key != key)
		ring[i] = (report_count_slot){.key = key};
	ring[i].counts[v]++;
	ring[i].total++;
}

static void mark_in(report_tl_slot *ring, long *max, long key, const report_observation *o,
                    bool candidate)
{
	long i = ring_at(key, max);
	if (i < 0 || ring[i].key > key)
		return;
	report_tl_slot *s = &ring[i];
	if (s->key != key)
		*s = (report_tl_slot){.key = key};
	for (unsigned k = 0; k < s->n; k++)
		if (s->order[k] == o->v)
			return;
	s->order[s->n++] = (unsigned char)o->v;
	if (o->v == RV_CONFIRMED)
		s->confirmed_id = candidate ? o->id : 0;
}

static bool older(scan_bad a, scan_bad b)
{
	if (a.key < 0 || b.key < 0 || a.key == b.key)
		return a.id < b.id;
	return a.key < b.key;
}

static void push_bad(scan_ctx *c, int64_t id, int64_t key)
{
	if (c->n_bad < REPORT_EVIDENCE_MAX) {
		c->bad[c->n_bad++] = (scan_bad){id, key};
		return;
	}
	size_t min = 0;
	for (size_t i = 1; i < c->n_bad; i++)
		if (older(c->bad[i], c->bad[min]))
			min = i;
	if (older(c->bad[min], (scan_bad){id, key}))
		c->bad[min] = (scan_bad){id, key};
}

static bool bad(report_verdict v)
{
	return v == RV_CONTRADICTED || v == RV_INCONCLUSIVE || v == RV_OTHER;
}

static int fail(scan_ctx *c, int code, const char *what)
{
	c->rc = isotier__error_set(c->err, code, 0, "report: %s", what);
	return 1;
}

static void cell_see(scan_cell *cell, const report_observation *o, int64_t key)
{
	if (newer(key, cell->id, cell->key))
		cell->id = o->id, cell->key = key;
}

static int add_cell(scan_ctx *c, const report_observation *o, int64_t key)
{
	const char *host = report_host_key(o);
	if (c->last_cell < c->n_cells && !strcmp(c->cells[c->last_cell].backend, o->backend) &&
	    !strcmp(c->cells[c->last_cell].host, host)) {
		cell_see(&c->cells[c->last_cell], o, key);
		return 0;
	}
	for (size_t i = 0; i < c->n_cells; i++)
		if (!strcmp(c->cells[i].backend, o->backend) && !strcmp(c->cells[i].host, host)) {
			cell_see(&c->cells[i], o, key);
			c->last_cell = i;
			return 0;
		}
	if (c->n_cells >= REPORT_HOST_CELLS_MAX)
		return fail(c, ISOTIER_EDB,
		            "the history names more host x backend pairs than a report shows");
	if (c->n_cells == c->cap_cells) {
		size_t ncap = c->cap_cells ? c->cap_cells * 2 : 64;
		scan_cell *n = realloc(c->cells, ncap * sizeof *n);
		if (!n)
			return fail(c, ISOTIER_ENOMEM, "out of memory");
		c->cells = n, c->cap_cells = ncap;
	}
	report_model *m = c->m;
	scan_cell *cell = &c->cells[c->n_cells];
	cell->backend = COPY(&m->arena, o->backend);
	cell->host = COPY(&m->arena, host);
	cell->id = o->id, cell->key = key;
	if (!cell->backend || !cell->host)
		return fail(c, ISOTIER_ENOMEM, "out of memory");
	c->last_cell = c->n_cells++;
	return 0;
}

/* Makes o (time key) the row's latest of kind k when it is newer. */
static void row_see(report_row *r, size_t k, const report_observation *o, int64_t key)
{
	if (newer(key, r->latest_id[k], r->latest_key[k]))
		r->latest_id[k] = o->id, r->latest_key[k] = key;
}

static int count_row(report_row *r, const report_observation *o, scan_ctx *c, long day, int64_t key)
{
	report_model *m = c->m;
	if (!r->tl) {
		r->tl = report_arena_alloc(&m->arena, sizeof *r->tl);
		if (!r->tl)
			return fail(c, ISOTIER_ENOMEM, "out of memory");
		for (size_t i = 0; i < REPORT_CHART_BUCKETS; i++)
			r->tl->days[i].key = r->tl->months[i].key = -1;
		r->tl->max_day = r->tl->max_month = LONG_MIN;
		r->tl->prev = RV_COUNT;
	}
	/* Streamed in id order, the order they were written in; an import
	 * writes old observations after newer ones. A late one (observed
	 * before the row's latest) is counted, but is no row's latest and
	 * no change of its verdict: the neighbours it came between in time
	 * are not held. */
	bool late = !newer(key, r->latest_id[0], r->latest_key[0]);
	row_see(r, 0, o, key);
	if (o->v != RV_UNAVAILABLE)
		row_see(r, 1, o, key);
	if ((unsigned)o->v < VERDICT_COUNT &&
	    isotier__verdict_is((isotier_verdict)o->v, VERDICT_JUDGES))
		row_see(r, 2, o, key);
	/* The cadence counts a remote check that found no contradiction: it is
	 * the most such a check can find (base/verdict.h). */
	if ((unsigned)o->v < VERDICT_COUNT &&
	    isotier__verdict_is((isotier_verdict)o->v, VERDICT_CHECKS))
		row_see(r, 3, o, key);
	r->n_observations++;
	report_row_tl *tl = r->tl;
	if (!late && (int)o->v != tl->prev) {
		tl->prev = (int)o->v;
		tl->total_changes++;
		if (tl->n_changes == REPORT_TL_CHANGES_MAX) { /* the newest only */
			memmove(tl->change_ids, tl->change_ids + 1,
			        (REPORT_TL_CHANGES_MAX - 1) * sizeof *tl->change_ids);
			tl->n_changes--;
		}
		tl->change_ids[tl->n_changes++] = o->id;
	}
	if (day >= 0) {
		/* report_attest_candidate's test, with the row's offering found once */
		bool candidate =
		    o->v == RV_CONFIRMED && o->claimed_tier &&
		    !strcmp(o->claimed_tier, "MICROVM") &&
		    (!r->provider || !r->provider->kind || strcmp(r->provider->kind, "local") != 0);
		mark_in(tl->days, &tl->max_day, day, o, candidate);
		mark_in(tl->months, &tl->max_month, report_bucket_key(day, false), o, candidate);
	}
	return 0;
}

static bool fits(const char *s, size_t max)
{
	return !s || strnlen(s, max + 1) <= max;
}

/* Whether the row's keys are as report_observation_fill would copy them
 * (none cut at its bound): then they are compared in place. */
static bool light(const isotier_report_observation_row *r)
{
	return fits(r->backend, REPORT_FIELD_MAX) && fits(r->provider_id, REPORT_FIELD_MAX) &&
	       fits(r->run_host, REPORT_FIELD_MAX) && fits(r->host_id, 64) &&
	       fits(r->observed_at, REPORT_FIELD_MAX) && fits(r->verdict, REPORT_FIELD_MAX);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* report_row_for, remembering its last answers: it searches every row, and
 * a catalogue's hundred rows for each of a million observations is most of
 * a report's time. Its answer for a key changes only when it gives a
 * catalogue row a backend (a provider first seen through one), which can
 * come before a row a key without provider was answered with: those are
 * then forgotten. A new row comes after every answered one. */
static report_row *row_of(scan_ctx *c, const char *provider_id, const char *backend)
{
	report_model *m = c->m;
	for (size_t i = 0; i < c->n_hits; i++) {
		const row_hit *h = &c->hits[i];
		if (same(h->backend, backend) &&
		    (provider_id ? h->provider_id && !strcmp(h->provider_id, provider_id)
		                 : !h->provider_id))
			return &m->rows[h->row];
	}
	size_t before = m->n_rows;
	report_row *r = report_row_for(m, provider_id, backend, &c->cap_rows);
	if (!r)
		return NULL;
	size_t at = (size_t)(r - m->rows);
	if (provider_id && at < before) { /* perhaps given a backend just now */
		size_t k = 0;
		for (size_t i = 0; i < c->n_hits; i++)
			if (c->hits[i].provider_id)
				c->hits[k++] = c->hits[i];
		c->n_hits = k, c->next_hit = k % ROW_HITS;
	}
	row_hit h = {provider_id ? r->provider_id : NULL, r->backend, at};
	if (c->n_hits < ROW_HITS)
		c->hits[c->n_hits++] = h;
	else
		c->hits[c->next_hit] = h, c->next_hit = (c->next_hit + 1) % ROW_HITS;
	return r;
}

static int scan_one(void *ctx, const isotier_report_observation_row *row)
{
	scan_ctx *c = ctx;
	report_model *m = c->m;
	report_observation o;
	if (light(row)) {
		/* What the counting reads, pointing into the row: copying every
		 * field of a million rows would cost more than reading them. */
		o = (report_observation){.id = row->id,
		                         .run_id = row->run_id,
		                         .observed_at = row->observed_at,
		                         .backend = row->backend,
		                         .provider_id = row->provider_id,
		                         .claimed_tier = row->claimed_tier,
		                         .observed_tier = row->observed_tier,
		                         .verdict = row->verdict,
		                         .host = row->run_host,
		                         .host_id = row->host_id};
		if (!o.observed_at || !o.backend || !o.verdict)
			return fail(c, ISOTIER_EDB,
			            "an observation without time, backend or verdict");
		o.v = report_verdict_parse(o.verdict);
	} else {
		report_arena_free(&c->scratch);
		if (report_observation_fill(m, &c->scratch, &o, row) < 0)
			return fail(c, ISOTIER_ENOMEM, "out of memory");
	}
	report_row *r = row_of(c, o.provider_id, o.backend);
	if (!r)
		return m->n_rows >= REPORT_ROWS_MAX ? fail(c, ISOTIER_EDB,
		                                           "the history names more offering x "
		                                           "backend rows than a report shows")
		                                    : fail(c, ISOTIER_ENOMEM, "out of memory");
	/* A bad observation that is no longer (or never was) its row's
	 * latest: the row's latest verdict is tl->prev (count_row). */
	int64_t key = report_time_key(o.observed_at);
	if (!newer(key, r->latest_id[0], r->latest_key[0])) {
		if (bad(o.v))
			push_bad(c, o.id, key);
	} else if (r->tl && r->tl->prev != RV_COUNT && bad((report_verdict)r->tl->prev) &&
	           r->latest_id[0]) {
		push_bad(c, r->latest_id[0], r->latest_key[0]);
	}
	long day = report_days(o.observed_at);
	if (count_row(r, &o, c, day, key))
		return 1;
	if (day >= 0) {
		if (c->first < 0 || day < c->first)
			c->first = day;
		if (day > c->last)
			c->last = day;
		count_in(c->days, &c->max_day, day, o.v);
		count_in(c->months, &c->max_month, report_bucket_key(day, false), o.v);
	}
	if (report_fleet_judged(&o) && add_cell(c, &o, key))
		return 1;
	c->log[m->n_observations % REPORT_LOG_MAX] = o.id;
	m->n_observations++;
	return 0;
}

static int cmp_id(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

static int hold(void *ctx, const isotier_report_observation_row *row)
{
	scan_ctx *c = ctx;
	report_model *m = c->m;
	if (report_observation_fill(m, &m->arena, &m->observations[m->n_held], row) < 0)
		return fail(c, ISOTIER_ENOMEM, "out of memory");
	m->n_held++;
	return 0;
}

const report_observation *report_held(const report_model *m, int64_t id)
{
	size_t lo = 0, hi = m->n_held;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->observations[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return id && lo < m->n_held && m->observations[lo].id == id ? &m->observations[lo] : NULL;
}

/* Reads back, by id, the observations shown in full; resolves the rows',
 * timelines' and cells' ids to them. */
static int hold_shown(scan_ctx *c)
{
	report_model *m = c->m;
	size_t n_log = m->n_observations < REPORT_LOG_MAX ? m->n_observations : REPORT_LOG_MAX;
	size_t cap = n_log + c->n_bad + c->n_cells + m->n_rows * (4 + REPORT_TL_CHANGES_MAX) + 1;
	int64_t *ids = malloc(cap * sizeof *ids);
	if (!ids)
		return isotier__error_set(c->err, ISOTIER_ENOMEM, 0, "report: out of memory");
	size_t n = 0;
	for (size_t i = 0; i < n_log; i++)
		ids[n++] = c->log[i];
	for (size_t i = 0; i < c->n_bad; i++)
		ids[n++] = c->bad[i].id;
	for (size_t i = 0; i < c->n_cells; i++)
		ids[n++] = c->cells[i].id;
	for (size_t i = 0; i < m->n_rows; i++) {
		for (size_t k = 0; k < 4; k++)
			if (m->rows[i].latest_id[k])
				ids[n++] = m->rows[i].latest_id[k];
		for (size_t k = 0; m->rows[i].tl && k < m->rows[i].tl->n_changes; k++)
			ids[n++] = m->rows[i].tl->change_ids[k];
	}
	qsort(ids, n, sizeof *ids, cmp_id);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || ids[i] != ids[u - 1])
			ids[u++] = ids[i];
	m->observations = report_arena_alloc(&m->arena, (u ? u : 1) * sizeof *m->observations);
	int rc = m->observations
	             ? isotier__history_observations_by_id(m->history, ids, u, hold, c, c->err)
	             : isotier__error_set(c->err, ISOTIER_ENOMEM, 0, "report: out of memory");
	free(ids);
	if (c->rc < 0 || rc < 0)
		return c->rc < 0 ? c->rc : rc;
	for (size_t i = 0; i < m->n_rows; i++) {
		report_row *r = &m->rows[i];
		r->latest = report_held(m, r->latest_id[0]);
		r->latest_run = report_held(m, r->latest_id[1]);
		r->latest_judged = report_held(m, r->latest_id[2]);
		r->latest_checked = report_held(m, r->latest_id[3]);
		for (size_t k = 0; r->tl && k < r->tl->n_changes; k++)
			r->tl->changes[k] = report_held(m, r->tl->change_ids[k]);
	}
	return 0;
}

typedef struct attest_ctx {
	report_tl_slot **slots;
} attest_ctx;

static int attest_one(void *ctx, size_t i, const char *layers, const char *probe)
{
	(void)probe;
	attest_ctx *a = ctx;
	a->slots[i]->attested = report_layers_attested(layers);
	return 0;
}

static int slot_signed(void *ctx, const isotier_statement_listing *row)
{
	report_tl_slot *slot = ctx;
	slot->attested = report_statement_attested(row->statement, row->backend, row->host_id);
	return 0;
}

/* Whether each timeline period's first CONFIRMED that could be attested
 * was: its layers_json read, a bounded few (periods x rows). */
static int attest_slots(report_model *m, isotier_error *err)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_rows; i++)
		for (size_t k = 0; m->rows[i].tl && k < 2 * REPORT_CHART_BUCKETS; k++)
			n += (k < REPORT_CHART_BUCKETS
			          ? m->rows[i].tl->days[k]
			          : m->rows[i].tl->months[k - REPORT_CHART_BUCKETS])
			         .confirmed_id != 0;
	if (!n)
		return 0;
	report_tl_slot **slots = malloc(n * sizeof *slots);
	int64_t *ids = malloc(n * sizeof *ids);
	int rc = 0;
	if (!slots || !ids) {
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	} else {
		n = 0;
		for (size_t i = 0; i < m->n_rows; i++)
			for (size_t k = 0; m->rows[i].tl && k < 2 * REPORT_CHART_BUCKETS; k++) {
				report_tl_slot *s =
				    k < REPORT_CHART_BUCKETS
				        ? &m->rows[i].tl->days[k]
				        : &m->rows[i].tl->months[k - REPORT_CHART_BUCKETS];
				if (s->confirmed_id)
					slots[n] = s, ids[n++] = s->confirmed_id;
			}
		attest_ctx a = {.slots = slots};
		rc = isotier__history_observation_documents(
		    m->history, ids, n, REPORT_LAYERS_JSON_MAX, 0, attest_one, &a, err);
		/* And only with a signed statement that says so. */
		for (size_t i = 0; rc >= 0 && i < n; i++)
			if (slots[i]->attested) {
				slots[i]->attested = false;
				rc = isotier__history_statement_of(m->history, ids[i], slot_signed,
				                                   slots[i], err);
			}
	}
	free(slots);
	free(ids);
	return rc < 0 ? rc : 0;
}

int report_scan(report_model *m, isotier_error *err)
{
	scan_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	c->m = m, c->err = err, c->first = c->last = -1;
	c->max_day = c->max_month = LONG_MIN;
	for (size_t i = 0; i < REPORT_CHART_BUCKETS; i++)
		c->days[i].key = c->months[i].key = -1;
	int rc = report_seed_rows(m, &c->cap_rows);
	if (rc < 0) {
		free(c);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	}
	rc = isotier__history_scan_observations(m->history, m->since, m->host, false, scan_one, c,
	                                        err);
	report_arena_free(&c->scratch);
	if (c->rc < 0 || rc < 0)
		rc = c->rc < 0 ? c->rc : rc;
	else if ((rc = hold_shown(c)) >= 0)
		rc = attest_slots(m, err);
	const report_observation **cells = NULL;
	if (rc >= 0 && c->n_cells && !(cells = malloc(c->n_cells * sizeof *cells)))
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	size_t n_cells = 0;
	for (size_t i = 0; rc >= 0 && i < c->n_cells; i++)
		if ((cells[n_cells] = report_held(m, c->cells[i].id)))
			n_cells++;
	report_sort_rows(m);
	if (rc >= 0 && (report_build_buckets(m, c->first, c->last, c->days, c->months, c->max_day,
	                                     c->max_month) < 0 ||
	                report_fleet_alerts(m, cells, n_cells) < 0))
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	free(cells);
	free(c->cells);
	free(c);
	return rc < 0 ? rc : 0;
}

typedef struct each_ctx {
	const report_model *m;
	int (*cb)(void *ctx, const report_observation *o);
	void *ctx;
	report_arena scratch;
	bool oom;
} each_ctx;

static int each_one(void *ctx, const isotier_report_observation_row *row)
{
	each_ctx *e = ctx;
	const report_observation *held = report_held(e->m, row->id);
	if (held) /* read in full already, with its evidence */
		return e->cb(e->ctx, held);
	report_arena_free(&e->scratch);
	report_observation o;
	if (report_observation_fill(e->m, &e->scratch, &o, row) < 0)
		return e->oom = true, 1;
	return e->cb(e->ctx, &o);
}

int report_each_observation(const report_model *m,
                            int (*cb)(void *ctx, const report_observation *o), void *ctx)
{
	each_ctx e = {.m = m, .cb = cb, .ctx = ctx};
	isotier_error err = {0};
	int rc = m->history ? isotier__history_scan_observations(m->history, m->since, m->host,
	                                                         true, each_one, &e, &err)
	                    : 0;
	report_arena_free(&e.scratch);
	return e.oom ? ISOTIER_ENOMEM : rc < 0 ? rc : 0;
}
