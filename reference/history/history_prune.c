/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_prune.c - retention (history.h): what a policy lets go, in one
 * transaction, and never what a later reader decides by.
 *
 * Every read the gate makes (history_gate.c, resolve.c) is "the newest row of
 * a backend (on this host or naming none) whose verdict and ceiling are in a
 * set, after id X", or the same over this host's own rows, where it tries up
 * to HISTORY_GATE_OWN_SCAN of them (it passes over a row whose signed
 * statement does not verify). Every such set is a union of (verdict,
 * ceiling_tier) kinds, so keeping, for each backend and host, the newest row
 * of each kind and the newest HISTORY_GATE_OWN_SCAN own rows of each kind
 * (per host, and over all hosts for a gate that reads every host's) keeps
 * each answer: the newest of a union is the newest of one of its kinds, and
 * a row among the newest N of a union is among the newest N of its kind.
 * Rows are ordered by id there, so age is never what protects them; a row
 * dated after now, or not in the one form times are written in, is never
 * deleted (the gate refuses on it). Its evidence goes with the last row that
 * holds it.
 *
 * A catalogue source's renewal (history_renewal.c) reads, between the day
 * the source was retrieved and today, the newest unchanged check of this
 * host's own and whether any check found it changed or gone: keeping, for
 * each source and quote, the newest check of each (status, change, own)
 * kind dated up to now keeps both answers for every retrieval day. The
 * report's newest rows are among those kept. Audit events are never pruned:
 * they are the record of decisions, this one's included.
 */
#include "history_driver.h"

#include <stddef.h>
#include <string.h>
#include <time.h>

/* A time in the one form isotier writes (YYYY-MM-DDTHH:MM:SSZ, which sorts
 * as text in time order); SQLite also asks julianday to read it. */
#define SQLITE_DATED(c)                                                                            \
	"(" c                                                                                      \
	" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z'"     \
	" AND julianday(" c ") IS NOT NULL)"
#define PG_DATED(c) "(" c " ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$')"

/* Parameters: ?1 the cutoff (NULL: no age bound), ?2 keep_last (0: none),
 * ?3 HISTORY_IMPORTED_COMMAND, ?4 HISTORY_GATE_OWN_SCAN, ?5 now. A row
 * goes only when it is dated, not after now, older than the cutoff, beyond
 * the newest keep_last of its group and not one the readers need. */
#define OBS_DOOMED(DATED)                                                                          \
	"SELECT w.id FROM (SELECT o.id, o.observed_at, o.own,"                                     \
	" row_number() OVER (PARTITION BY o.backend, o.host_id ORDER BY o.id DESC) AS rn_group,"   \
	" row_number() OVER (PARTITION BY o.backend, o.host_id, o.verdict, o.ceiling_tier"         \
	"  ORDER BY o.id DESC) AS rn_kind,"                                                        \
	" row_number() OVER (PARTITION BY o.backend, o.host_id, o.verdict, o.ceiling_tier, o.own"  \
	"  ORDER BY o.id DESC) AS rn_own,"                                                         \
	" row_number() OVER (PARTITION BY o.backend, o.verdict, o.ceiling_tier, o.own"             \
	"  ORDER BY o.id DESC) AS rn_own_any"                                                      \
	" FROM (SELECT x.id, x.observed_at, x.backend, x.host_id, x.verdict, x.ceiling_tier,"      \
	"  CASE WHEN x.host_id IS NOT NULL AND EXISTS (SELECT 1 FROM runs r"                       \
	"   WHERE r.id = x.run_id AND r.command <> ?3) THEN 1 ELSE 0 END AS own"                   \
	"  FROM observations x) o) w"                                                              \
	" WHERE w.rn_kind > 1 AND (w.own = 0 OR (w.rn_own > ?4 AND w.rn_own_any > ?4))"            \
	" AND (?2 <= 0 OR w.rn_group > ?2) AND " DATED(                                            \
	    "w.observed_at") " AND w.observed_at <= ?5"                                            \
	                     " AND (?1 IS NULL OR w.observed_at < ?1)"
#define CHECKS_DOOMED(DATED)                                                                       \
	"SELECT w.id FROM (SELECT c.id, c.checked_at,"                                             \
	" row_number() OVER (PARTITION BY c.provider_id, c.url, c.quote"                           \
	"  ORDER BY c.checked_at DESC, c.id DESC) AS rn_group,"                                    \
	" row_number() OVER (PARTITION BY c.provider_id, c.url, c.quote, c.status, c.change,"      \
	"  c.own, c.later ORDER BY c.checked_at DESC, c.id DESC) AS rn_kind"                       \
	" FROM (SELECT y.id, y.checked_at, y.provider_id, y.url, y.quote, y.status, y.change,"     \
	"  CASE WHEN EXISTS (SELECT 1 FROM runs r WHERE r.id = y.run_id AND r.command <> ?3)"      \
	"   THEN 1 ELSE 0 END AS own,"                                                             \
	"  CASE WHEN " DATED(                                                                      \
	    "y.checked_at") " AND y.checked_at <= ?5 THEN 0 ELSE 1 END AS later"                   \
	                    "  FROM source_checks y) c) w"                                         \
	                    " WHERE w.rn_kind > 1 AND (?2 <= 0 OR w.rn_group > ?2) AND " DATED(    \
	                        "w.checked_at") " AND w.checked_at <= ?5 AND (?1 IS NULL OR "      \
	                                        "w.checked_at < ?1)"
/* Finished runs nothing refers to any more, never the newest of a command
 * (when `sources check` or `verify` last ran). */
#define RUNS_DOOMED(DATED)                                                                         \
	"SELECT r.id FROM runs r WHERE r.status <> 'running'"                                      \
	" AND r.id NOT IN (SELECT run_id FROM observations)"                                       \
	" AND r.id NOT IN (SELECT run_id FROM source_checks)"                                      \
	" AND r.id NOT IN (SELECT max(id) FROM runs GROUP BY command)"                             \
	" AND " DATED("r.started_at") " AND r.started_at <= ?5"                                    \
	                              " AND (?1 IS NULL OR r.started_at < ?1)"

typedef struct prune_step {
	const char *what;
	const char *sqlite_sql, *pg_sql;
	size_t offset; /* of its count in isotier_prune_counts */
} prune_step;

/* In order: the rows, then the evidence and the runs they leave unreferenced. */
static const prune_step steps[] = {
    {"observations",
     "DELETE FROM observations WHERE id IN (" OBS_DOOMED(SQLITE_DATED) ") RETURNING id",
     "DELETE FROM observations WHERE id IN (" OBS_DOOMED(PG_DATED) ") RETURNING id",
     offsetof(isotier_prune_counts, observations)},
    {"evidence",
     "DELETE FROM evidence_blobs WHERE sha256 NOT IN (SELECT evidence_sha256 FROM observations"
     " WHERE evidence_sha256 IS NOT NULL) RETURNING sha256",
     "DELETE FROM evidence_blobs WHERE sha256 NOT IN (SELECT evidence_sha256 FROM observations"
     " WHERE evidence_sha256 IS NOT NULL) RETURNING sha256",
     offsetof(isotier_prune_counts, evidence_blobs)},
    {"source checks",
     "DELETE FROM source_checks WHERE id IN (" CHECKS_DOOMED(SQLITE_DATED) ") RETURNING id",
     "DELETE FROM source_checks WHERE id IN (" CHECKS_DOOMED(PG_DATED) ") RETURNING id",
     offsetof(isotier_prune_counts, source_checks)},
    {"runs", "DELETE FROM runs WHERE id IN (" RUNS_DOOMED(SQLITE_DATED) ") RETURNING id",
     "DELETE FROM runs WHERE id IN (" RUNS_DOOMED(PG_DATED) ") RETURNING id",
     offsetof(isotier_prune_counts, runs)},
};

static void iso_time(char *buf, size_t len, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int run_step(isotier_history *h, const prune_step *st, const char *cutoff, int keep_last,
                    const char *now, int64_t *count, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, HQ_SQL(h, st->sqlite_sql, st->pg_sql), err, st->what);
	if (rc < 0)
		return rc;
	hq_text(s, 1, cutoff);
	hq_int(s, 2, keep_last);
	hq_text(s, 3, HISTORY_IMPORTED_COMMAND);
	hq_int(s, 4, HISTORY_GATE_OWN_SCAN);
	hq_text(s, 5, now);
	*count = 0;
	while ((rc = hq_step(s, err)) > 0)
		(*count)++;
	return rc < 0 ? isotier__error_prefix(err, "prune %s", st->what) : 0;
}

static int count_kept(isotier_history *h, int64_t *n, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, "SELECT count(*) FROM observations", err,
	                             "count observations");
	if (rc < 0 || (rc = hq_step(s, err)) < 0)
		return rc;
	*n = rc > 0 ? hq_col_int(s, 0) : 0;
	return 0;
}

/* The audit event: what went and by which policy. */
static int note_pruned(isotier_history *h, const isotier_prune_policy *p, const char *cutoff,
                       const char *now, const isotier_prune_counts *n, isotier_error *err)
{
	char reason[512], detail[512];
	snprintf(reason, sizeof reason,
	         "%lld observations, %lld evidence blobs, %lld source checks and %lld runs "
	         "removed (older than %d days, beyond the newest %d of each group; 0: no bound)",
	         (long long)n->observations, (long long)n->evidence_blobs,
	         (long long)n->source_checks, (long long)n->runs, p->older_than_days, p->keep_last);
	snprintf(detail, sizeof detail,
	         "{\"observations\":%lld,\"evidence_blobs\":%lld,\"source_checks\":%lld,"
	         "\"runs\":%lld,\"kept_observations\":%lld,\"older_than_days\":%d,"
	         "\"keep_last\":%d,\"cutoff\":%s%s%s,\"now\":\"%s\"}",
	         (long long)n->observations, (long long)n->evidence_blobs,
	         (long long)n->source_checks, (long long)n->runs, (long long)n->kept_observations,
	         p->older_than_days, p->keep_last, cutoff ? "\"" : "", cutoff ? cutoff : "null",
	         cutoff ? "\"" : "", now);
	return isotier__history_add_audit_event(h,
	                                        &(isotier_audit_row){.at = now,
	                                                             .event = "history_pruned",
	                                                             .decision = "removed",
	                                                             .reason = reason,
	                                                             .detail_json = detail},
	                                        err);
}

int isotier__history_prune(isotier_history *h, const isotier_prune_policy *p,
                           isotier_prune_counts *n, isotier_error *err)
{
	memset(n, 0, sizeof *n);
	if (p->older_than_days < 0 || p->keep_last < 0 ||
	    (p->older_than_days == 0 && p->keep_last == 0))
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "prune: a policy needs an age (days > 0) or a count to "
		                          "keep (> 0)");
	char now[32], cutoff_buf[32];
	time_t t = p->now ? p->now : time(NULL);
	iso_time(now, sizeof now, t);
	const char *cutoff = NULL;
	if (p->older_than_days > 0) {
		iso_time(cutoff_buf, sizeof cutoff_buf, t - (time_t)p->older_than_days * 86400);
		cutoff = cutoff_buf;
	}
	int rc = isotier__history_begin(h, err);
	if (rc < 0)
		return isotier__error_prefix(err, "prune");
	for (size_t i = 0; rc == 0 && i < sizeof steps / sizeof steps[0]; i++)
		rc = run_step(h, &steps[i], cutoff, p->keep_last, now,
		              (int64_t *)((char *)n + steps[i].offset), err);
	if (rc == 0)
		rc = count_kept(h, &n->kept_observations, err);
	if (rc == 0 && !p->dry_run)
		rc = note_pruned(h, p, cutoff, now, n, err);
	if (rc < 0 || p->dry_run) {
		/* All or nothing: a dry run, or a step that failed, leaves the
		 * history as it was. */
		isotier__history_rollback(h);
		return rc < 0 ? isotier__error_prefix(err, "prune") : 0;
	}
	if ((rc = isotier__history_commit(h, err)) < 0) {
		isotier__history_rollback(h);
		return isotier__error_prefix(err, "prune");
	}
	n->committed = true;
	if (h->drv->sync && h->drv->sync(h, err) < 0)
		return isotier__error_prefix(err, "prune");
	return 0;
}

int isotier__history_vacuum(isotier_history *h, isotier_error *err)
{
	if (h->drv->engine != HISTORY_SQLITE)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "vacuum: SQLite histories only (PostgreSQL's autovacuum "
		                          "reclaims the space)");
	/* The write-ahead log copied back and emptied, so the file's size is
	 * what the history holds. */
	return isotier__hq_exec(h, "VACUUM; PRAGMA wal_checkpoint(TRUNCATE)", err, "vacuum");
}
