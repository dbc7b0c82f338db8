/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_tables.c - the report's source checks and refusals, bounded like its
 * observations (report_scan.c): a fleet that runs `sources check` daily for
 * years, or whose create() refuses often, holds many rows there. Both are
 * counted in one pass over an index (schema 10); the model holds only what
 * the HTML and Markdown show (each catalogue source's newest check, the
 * newest REPORT_REFUSALS_MAX refusals), and the JSON writer streams every
 * row from the history's snapshot as it writes.
 */
#include "report_model.h"

#include <string.h>

#define COPY(ar, s) report_arena_strndup((ar), (s), REPORT_FIELD_MAX)

static int oom(isotier_error *err)
{
	return isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
}

/* Copies a row into c, strings into ar, cut as every other field is. */
static int check_fill(report_arena *ar, report_check *c, const isotier_report_check_row *r)
{
	*c = (report_check){
	    .id = r->l.id,
	    .run_id = r->l.run_id,
	    .http_status = r->l.http_status,
	    .checked_at = COPY(ar, r->l.checked_at),
	    .provider_id = COPY(ar, r->l.provider_id),
	    .url = COPY(ar, r->l.url),
	    .quote = COPY(ar, r->l.quote),
	    .status = COPY(ar, r->l.status),
	    .content_sha256 = COPY(ar, r->l.content_sha256),
	    .detail = COPY(ar, r->l.detail),
	    .change = COPY(ar, r->change),
	    .passage_diff = COPY(ar, r->passage_diff),
	};
	/* NULL where the row holds a string: the copy ran out of memory. */
	if (!c->checked_at || !c->provider_id || !c->url || !c->status ||
	    (r->l.quote && !c->quote) || (r->l.content_sha256 && !c->content_sha256) ||
	    (r->l.detail && !c->detail) || (r->change && !c->change) ||
	    (r->passage_diff && !c->passage_diff))
		return ISOTIER_ENOMEM;
	return 0;
}

static int audit_fill(report_arena *ar, report_audit *a, const isotier_audit_row *r)
{
	*a = (report_audit){
	    .id = r->id,
	    .at = COPY(ar, r->at),
	    .event = COPY(ar, r->event),
	    .sandbox_id = COPY(ar, r->sandbox_id),
	    .backend = COPY(ar, r->backend),
	    .claimed_tier = COPY(ar, r->claimed_tier),
	    .resolved_tier = COPY(ar, r->resolved_tier),
	    .required_tier = COPY(ar, r->required_tier),
	    .decision = COPY(ar, r->decision),
	    .reason = COPY(ar, r->reason),
	};
	if ((r->at && !a->at) || (r->event && !a->event) || (r->sandbox_id && !a->sandbox_id) ||
	    (r->backend && !a->backend) || (r->claimed_tier && !a->claimed_tier) ||
	    (r->resolved_tier && !a->resolved_tier) || (r->required_tier && !a->required_tier) ||
	    (r->decision && !a->decision) || (r->reason && !a->reason))
		return ISOTIER_ENOMEM;
	return 0;
}

typedef struct held_ctx {
	report_model *m;
	report_check *check; /* report_source_latest's */
	bool oom;
} held_ctx;

static int hold_check(void *ctx, const isotier_report_check_row *r)
{
	held_ctx *c = ctx;
	report_check *k = report_arena_alloc(&c->m->arena, sizeof *k);
	if (!k || check_fill(&c->m->arena, k, r) < 0)
		return c->oom = true, -1;
	c->check = k;
	return 0;
}

int report_source_latest(report_model *m, const char *provider_id, const char *url,
                         const char *quote, const report_check **out, isotier_error *err)
{
	*out = NULL;
	if (!m->history || !provider_id || !url)
		return 0;
	/* The newest check of this quote at this URL (a page may be cited for
	 * several quotes); failing that, of the URL. */
	held_ctx c = {.m = m};
	int rc = quote ? isotier__history_latest_check(m->history, provider_id, url, quote,
	                                               m->since, hold_check, &c, err)
	               : 0;
	if (rc == 0 && !c.oom)
		rc = isotier__history_latest_check(m->history, provider_id, url, NULL, m->since,
		                                   hold_check, &c, err);
	if (c.oom)
		return oom(err);
	*out = c.check;
	return rc < 0 ? rc : 0;
}

static int hold_refusal(void *ctx, const isotier_audit_row *r)
{
	held_ctx *c = ctx;
	report_model *m = c->m;
	if (m->n_refusals_held >= REPORT_REFUSALS_MAX)
		return 1; /* never past the array, whatever the driver returns */
	/* Newest first from the history, kept oldest first as every writer
	 * reads them: filled from the back. */
	report_audit *a = &m->refusals[REPORT_REFUSALS_MAX - 1 - m->n_refusals_held];
	if (audit_fill(&m->arena, a, r) < 0)
		return c->oom = true, -1;
	m->n_refusals_held++;
	return 0;
}

int report_load_tables(report_model *m, isotier_error *err)
{
	int64_t checks = 0, refusals = 0;
	int rc;
	if ((rc = isotier__history_count(m->history, ISOTIER_COUNT_CHECKS_SINCE, m->since, NULL,
	                                 &checks, err)) < 0 ||
	    (rc = isotier__history_count(m->history, ISOTIER_COUNT_REFUSALS_SINCE, m->since, NULL,
	                                 &refusals, err)) < 0)
		return rc;
	m->n_checks = (size_t)checks;
	m->n_refusals = (size_t)refusals;
	report_audit *all = report_arena_alloc(&m->arena, REPORT_REFUSALS_MAX * sizeof *all);
	if (!all)
		return oom(err);
	held_ctx c = {.m = m};
	m->refusals = all;
	rc = isotier__history_scan_refusals(m->history, m->since, REPORT_REFUSALS_MAX, hold_refusal,
	                                    &c, err);
	if (c.oom)
		return oom(err);
	m->refusals = all + (REPORT_REFUSALS_MAX - m->n_refusals_held);
	return rc < 0 ? rc : 0;
}

typedef struct each_ctx {
	report_arena scratch; /* one row's strings at a time */
	int (*check_cb)(void *ctx, const report_check *c);
	int (*audit_cb)(void *ctx, const report_audit *a);
	void *ctx;
	bool oom;
} each_ctx;

static int each_check(void *ctx, const isotier_report_check_row *r)
{
	each_ctx *e = ctx;
	report_check c;
	report_arena_free(&e->scratch);
	if (check_fill(&e->scratch, &c, r) < 0)
		return e->oom = true, -1;
	return e->check_cb(e->ctx, &c);
}

static int each_refusal(void *ctx, const isotier_audit_row *r)
{
	each_ctx *e = ctx;
	report_audit a;
	report_arena_free(&e->scratch);
	if (audit_fill(&e->scratch, &a, r) < 0)
		return e->oom = true, -1;
	return e->audit_cb(e->ctx, &a);
}

int report_each_check(const report_model *m, int (*cb)(void *ctx, const report_check *c), void *ctx)
{
	each_ctx e = {.check_cb = cb, .ctx = ctx};
	isotier_error err = {0};
	int rc = m->history
	             ? isotier__history_scan_checks(m->history, m->since, each_check, &e, &err)
	             : 0;
	report_arena_free(&e.scratch);
	return e.oom ? ISOTIER_ENOMEM : rc < 0 ? rc : 0;
}

int report_each_refusal(const report_model *m, int (*cb)(void *ctx, const report_audit *a),
                        void *ctx)
{
	each_ctx e = {.audit_cb = cb, .ctx = ctx};
	isotier_error err = {0};
	int rc = m->history ? isotier__history_scan_refusals(m->history, m->since, 0, each_refusal,
	                                                     &e, &err)
	                    : 0;
	report_arena_free(&e.scratch);
	return e.oom ? ISOTIER_ENOMEM : rc < 0 ? rc : 0;
}
