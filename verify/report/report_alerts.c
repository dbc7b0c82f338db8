/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_alerts.c - what a reader sees first: each attention item's severity
 * (ALERT > WARN > note) and one-line remedy, the matrix's sections (local
 * backends, remote providers observed, offerings only source-checked) and
 * the banner, which is green only when every required check ran and passed.
 * Pure functions of the model: no I/O, no clock.
 */
#include "report_model.h"

#include <stdlib.h>
#include <string.h>

const char *report_severity_name(report_severity s)
{
	static const char *const names[RSEV_COUNT] = {"ALERT", "WARN", "note"};
	return (unsigned)s < RSEV_COUNT ? names[s] : "note";
}

const char *report_section_name(report_section s)
{
	static const char *const names[RS_COUNT] = {"local", "remote", "sources"};
	return (unsigned)s < RS_COUNT ? names[s] : "sources";
}

const char *report_section_title(report_section s)
{
	static const char *const names[RS_COUNT] = {"Local backends", "Remote providers observed",
	                                            "Offerings checked by their sources only"};
	return (unsigned)s < RS_COUNT ? names[s] : names[RS_SOURCES];
}

/* The subject a command can name: the backend, else the provider id. */
static const char *who(const report_attention *a)
{
	return a->backend ? a->backend : a->provider_id ? a->provider_id : a->subject;
}

const char *report_remedy(report_arena *ar, const report_attention *a)
{
	switch (a->kind) {
	case RA_CONTRADICTED:
		return a->backend ? report_arena_printf(
		                        ar,
		                        "re-verify %s: `isotier verify --backend %s`; if it "
		                        "repeats, lower the claimed tier or fix the sandbox "
		                        "(runbook/drift.md#a-contradicted-verdict)",
		                        a->backend, a->backend)
		                  : "lower the claimed tier or fix the sandbox "
		                    "(runbook/drift.md#a-contradicted-verdict)";
	case RA_UNPROVEN:
		return report_arena_printf(
		    ar,
		    "a VM not shown to be the sandbox's own: see "
		    "runbook/drift.md#an-unproven-claim-verify-exit-2-job-exit-2; look closer with "
		    "`isotier history --backend %s --verdict INCONCLUSIVE`",
		    who(a));
	case RA_NOT_PROVEN:
		return report_arena_printf(
		    ar,
		    "nothing to fix: without hardware attestation a remote claim above CONTAINER "
		    "is at best not contradicted; it never satisfies `run`, create() or "
		    "--require-verified "
		    "(runbook/drift.md#a-remote-claim-not-contradicted-not-proven); keep "
		    "verifying %s: a contradiction would alert",
		    who(a));
	case RA_SOURCE_GONE:
		return report_arena_printf(
		    ar,
		    "source gone: find where %s now documents it, update the source or lower the "
		    "tier, add a CHURN.md entry (runbook/drift.md#a-gone-source)",
		    who(a));
	case RA_SOURCE_CHANGED:
		return "source changed: compare with the stored hash (`isotier history "
		       "--sources`), "
		       "update the quote or the tier, add a CHURN.md entry "
		       "(runbook/drift.md#a-changed-source)";
	case RA_SOURCE_UNREACHABLE:
		return report_arena_printf(
		    ar,
		    "not checked: retry `isotier sources check --provider %s` "
		    "when the network is back",
		    who(a));
	case RA_SOURCE_STALE:
		return report_arena_printf(
		    ar,
		    "re-read %s's documentation and refresh `retrieved` (or the tier) in its "
		    "catalogue file (runbook/drift.md#stale-sources-and-overdue-backends)",
		    who(a));
	case RA_OVERDUE:
		return report_arena_printf(ar, "re-verify %s: `isotier verify --backend %s`",
		                           who(a), who(a));
	case RA_CATALOGUE: return "fix the catalogue file: `isotier catalogue check`";
	case RA_NOT_CONFIGURED:
		return report_arena_printf(
		    ar,
		    "nothing to fix: to verify %s here, set its credentials "
		    "(runbook/remote/README.md; `isotier backends --json` "
		    "lists its settings), then `isotier verify --backend %s`",
		    who(a), who(a));
	case RA_INTERRUPTED:
		return "its process died (killed, or the host stopped) before the run ended: the "
		       "next run swept what it left (`leftover_swept` audit events, or `isotier "
		       "sweep`); re-run `isotier verify` for what it did not finish";
	case RA_HOST_DISAGREEMENT:
		return report_arena_printf(
		    ar,
		    "the hosts sharing this history saw %s differently: compare their observations "
		    "(`isotier history --backend %s --by-host`), then the hosts themselves "
		    "(runbook/fleet.md#hosts-that-disagree)",
		    who(a), who(a));
	case RA_COUNT: break;
	}
	return "";
}

/* The offering's provider (its `provider` field, else its id: the same key
 * the catalogue groups by), else the backend of an observation no catalogue
 * entry claims. */
const char *report_row_group(const report_row *r)
{
	if (r->provider && r->provider->group && *r->provider->group)
		return r->provider->group;
	if (r->provider_id)
		return r->provider_id;
	return r->backend ? r->backend : "?";
}

static report_section row_section(const report_row *r)
{
	const report_provider *p = r->provider;
	bool remote = p && p->kind && strcmp(p->kind, "local") != 0;
	if (!remote && r->backend)
		return RS_LOCAL;
	return r->n_observations ? RS_REMOTE : RS_SOURCES;
}

static int cmp_row_index(const void *x, const void *y, void *ctx)
{
	const report_model *m = ctx;
	size_t ia = *(const size_t *)x, ib = *(const size_t *)y;
	const report_row *a = &m->rows[ia], *b = &m->rows[ib];
	if (a->section != b->section)
		return a->section < b->section ? -1 : 1;
	int c = strcmp(a->group, b->group);
	return c ? c : (ia > ib) - (ia < ib); /* then the model's order */
}

size_t *report_matrix_order(const report_model *m)
{
	size_t *idx = malloc((m->n_rows ? m->n_rows : 1) * sizeof *idx);
	if (!idx)
		return NULL;
	for (size_t i = 0; i < m->n_rows; i++)
		idx[i] = i;
	qsort_r(idx, m->n_rows, sizeof *idx, cmp_row_index, (void *)m);
	return idx;
}

static int add_missing(report_model *m, size_t *cap, const char *line)
{
	if (!line)
		return ISOTIER_ENOMEM;
	if (m->n_missing == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		const char **n = report_arena_alloc(&m->arena, ncap * sizeof *n);
		if (!n)
			return ISOTIER_ENOMEM;
		if (m->n_missing)
			memcpy(n, m->missing, m->n_missing * sizeof *n);
		m->missing = n, *cap = ncap;
	}
	m->missing[m->n_missing++] = line;
	return 0;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

const char *report_group_remedy(const report_attention *first)
{
	/* Each item's remedy names its provider; the line for many names none. */
	return first->kind == RA_SOURCE_UNREACHABLE
	           ? "not checked: retry `isotier sources check` when the network is back"
	           : first->remedy;
}

int report_finish(report_model *m)
{
	for (size_t i = 0; i < m->n_rows; i++) {
		m->rows[i].section = row_section(&m->rows[i]);
		m->rows[i].group = report_row_group(&m->rows[i]);
	}
	size_t unreachable = 0, overdue = 0, unchecked = 0;
	for (size_t i = 0; i < m->n_attention; i++) {
		report_attention *a = &m->attention[i];
		a->severity = a->failing                         ? RSEV_ALERT
		              : a->kind == RA_SOURCE_UNREACHABLE ? RSEV_WARN
		                                                 : RSEV_NOTE;
		a->remedy = report_remedy(&m->arena, a);
		if (!a->remedy)
			return ISOTIER_ENOMEM;
		m->n_severity[a->severity]++;
		unreachable += a->kind == RA_SOURCE_UNREACHABLE;
		overdue += a->kind == RA_OVERDUE;
	}
	for (size_t i = 0; i < m->n_providers; i++)
		unchecked += m->providers[i].n_sources &&
		             !strcmp(m->providers[i].source_status, "UNCHECKED");
	/* The checks that were due and did not happen. */
	size_t cap = 0;
	int rc = 0;
	if (!m->today[0])
		rc = add_missing(m, &cap,
		                 "nothing dates this report: source ages and the re-verification "
		                 "cadence were not checked");
	if (!rc && overdue)
		rc = add_missing(
		    m, &cap,
		    report_arena_printf(&m->arena, "%zu %s not verified within %d days", overdue,
		                        plural(overdue, "backend", "backends"), m->reverify_days));
	if (!rc && unreachable)
		rc = add_missing(m, &cap,
		                 report_arena_printf(&m->arena, "%zu %s could not be reached",
		                                     unreachable,
		                                     plural(unreachable, "source", "sources")));
	if (!rc && unchecked)
		rc = add_missing(
		    m, &cap,
		    report_arena_printf(&m->arena, "the sources of %zu %s were never checked",
		                        unchecked, plural(unchecked, "provider", "providers")));
	if (!rc && !m->n_observations && !m->n_checks)
		rc = add_missing(m, &cap, "the history holds no observation and no source check");
	if (rc < 0)
		return rc;
	m->status = m->n_severity[RSEV_ALERT] ? "ALERT" : m->n_missing ? "INCOMPLETE" : "OK";
	m->missing_heading = "Checks that did not happen";
	m->summary = report_summary_sentence(&m->arena, m->n_severity[RSEV_ALERT],
	                                     m->n_severity[RSEV_WARN], m->n_missing);
	return m->summary ? 0 : ISOTIER_ENOMEM;
}

const char *report_summary_sentence(report_arena *ar, size_t alerts, size_t warnings,
                                    size_t missing)
{
	if (!alerts && !warnings)
		return missing ? report_arena_printf(ar,
		                                     "no alert, but %zu %s that %s due did not "
		                                     "happen",
		                                     missing, plural(missing, "check", "checks"),
		                                     plural(missing, "was", "were"))
		               : "every required check ran; nothing contradicted, unproven, "
		                 "drifted, stale or overdue";
	char a[64] = "", w[64] = "";
	if (alerts)
		snprintf(a, sizeof a, "%zu %s %s action", alerts, plural(alerts, "alert", "alerts"),
		         plural(alerts, "needs", "need"));
	if (warnings)
		snprintf(w, sizeof w, "%zu %s", warnings, plural(warnings, "warning", "warnings"));
	return report_arena_printf(ar, "%s%s%s", a, alerts && warnings ? "; " : "", w);
}
