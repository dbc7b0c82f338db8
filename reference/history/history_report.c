/* SPDX-License-Identifier: Apache-2.0 */
/* history_report.c - the report's reads of the history (history_rows.h):
 * one snapshot, streamed scans, lookups by id for the few rows shown in
 * full. */
#include "history_driver.h"
#include "../../base/verdict.h"

#include <string.h>

int isotier__history_read_begin(isotier_history *h, isotier_error *err)
{
	/* One snapshot: every query sees the same state while verify or
	 * sources check write. */
	return isotier__hq_exec(
	    h, HQ_SQL(h, "BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"), err,
	    "report: begin read");
}

void isotier__history_read_end(isotier_history *h)
{
	isotier__hq_exec(h, "COMMIT", NULL, "report: end read");
}

int isotier__history_newest_record(isotier_history *h, char *buf, size_t len, isotier_error *err)
{
	static const char *const sqlite_text =
	    "SELECT t FROM ("
	    " SELECT max(observed_at) AS t FROM observations UNION ALL"
	    " SELECT max(checked_at) FROM source_checks UNION ALL"
	    " SELECT max(at) FROM audit_events UNION ALL"
	    " SELECT max(started_at) FROM runs UNION ALL SELECT max(finished_at) FROM runs)"
	    " WHERE t IS NOT NULL AND t GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'"
	    " ORDER BY t DESC LIMIT 1";
	static const char *const pg_text =
	    "SELECT t FROM ("
	    " SELECT max(observed_at) AS t FROM observations UNION ALL"
	    " SELECT max(checked_at) FROM source_checks UNION ALL"
	    " SELECT max(at) FROM audit_events UNION ALL"
	    " SELECT max(started_at) FROM runs UNION ALL SELECT max(finished_at) FROM runs) AS m"
	    " WHERE t IS NOT NULL AND t ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}'"
	    " ORDER BY t DESC LIMIT 1";
	buf[0] = '\0';
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, HQ_SQL(h, sqlite_text, pg_text), err,
	                             "report: newest record");
	if (rc < 0)
		return rc;
	if ((rc = hq_step(s, err)) > 0 && hq_col(s, 0))
		snprintf(buf, len, "%s", hq_col(s, 0));
	return rc < 0 ? rc : 0;
}

/* A refusal: create() said no (before provisioning, or failing closed after
 * attestation). */
#define REFUSAL_WHERE                                                                              \
	" WHERE (?1 IS NULL OR at >= ?1) AND (event LIKE '%refus%' OR decision LIKE '%refus%'"     \
	" OR decision LIKE 'den%' OR decision LIKE 'reject%' OR decision LIKE 'fail%closed%'"      \
	" OR (event = 'attest' AND decision LIKE '%fail%'))"

/* Without durations: what the report counts, the columns it shows NULL:
 * all in one index (observations_for_report, history_schema.c), so a scan
 * of a large history reads none of the table's pages. */
#define OBS_LIGHT                                                                                  \
	"SELECT o.id, o.run_id, o.observed_at, o.backend, o.provider_id, o.claimed_tier, NULL,"    \
	" o.observed_tier, NULL, NULL, o.verdict, NULL, NULL, NULL, NULL, o.host_id, NULL, NULL,"  \
	" NULL, NULL, NULL, NULL, r.host, NULL, NULL, NULL, NULL, NULL"                            \
	" FROM observations AS o LEFT JOIN runs AS r ON r.id = o.run_id"
/* A host (?2): the run's host name or the observation's machine id. */
#define ON_HOST                                                                                    \
	" AND (?2 IS NULL OR host_id = ?2 OR run_id IN (SELECT id FROM runs WHERE host = ?2))"

int isotier__history_count(isotier_history *h, isotier_history_count_of what, const char *since,
                           const char *host, int64_t *n, isotier_error *err)
{
	static const char *const sql[] = {
	    [ISOTIER_COUNT_RUNS] = "SELECT count(*) FROM runs",
	    [ISOTIER_COUNT_RUNS_SINCE] =
	        "SELECT count(*) FROM runs WHERE ?1 IS NULL OR started_at >= ?1",
	    [ISOTIER_COUNT_OBSERVATIONS_SINCE] =
	        "SELECT count(*) FROM observations WHERE (?1 IS NULL OR observed_at >= ?1)" ON_HOST,
	    [ISOTIER_COUNT_CHECKS_SINCE] =
	        "SELECT count(*) FROM source_checks WHERE ?1 IS NULL OR checked_at >= ?1",
	    [ISOTIER_COUNT_REFUSALS_SINCE] = "SELECT count(*) FROM audit_events" REFUSAL_WHERE,
	};
	if ((unsigned)what >= sizeof sql / sizeof sql[0])
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "report: count what?");
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, sql[what], err, "report: count");
	if (rc < 0)
		return rc;
	hq_text(s, 1, since);
	if (what == ISOTIER_COUNT_OBSERVATIONS_SINCE)
		hq_text(s, 2, host);
	if ((rc = hq_step(s, err)) <= 0)
		return rc < 0 ? rc
		              : isotier__error_set(err, ISOTIER_EDB, 0, "report: count: no row");
	*n = hq_col_int(s, 0);
	return 0;
}

/* The probe's schema: the stored column, else (a row written without it:
 * by a fixture, by hand) what SQLite finds in probe_json, only when valid
 * JSON and a string. */
#define SQLITE_PROBE_SCHEMA                                                                        \
	"COALESCE(o.probe_schema, CASE WHEN json_valid(o.probe_json) AND"                          \
	" json_type(o.probe_json, '$.schema') = 'text'"                                            \
	" THEN substr(json_extract(o.probe_json, '$.schema'), 1, 64) END)"
/* Where hardware attestation may be recorded (report_attested.c): only those
 * rows read layers_json, bounded. */
#define ATTEST_LAYERS                                                                              \
	", CASE WHEN o.verdict = 'CONFIRMED' AND o.claimed_tier = 'MICROVM'"                       \
	" THEN substr(o.layers_json, 1, 65537) END"                                                \
	", CASE WHEN o.verdict = 'CONFIRMED' AND o.claimed_tier = 'MICROVM'"                       \
	" THEN substr(o.statement, 1, 262145) END"                                                 \
	", o.evidence_sha256, CASE WHEN r.command = '" HISTORY_IMPORTED_COMMAND                    \
	"' THEN 1 ELSE 0 END"                                                                      \
	", CASE WHEN o.statement IS NULL THEN 1 ELSE 0 END"
#define OBS_COLUMNS(duration, schema, extra)                                                       \
	"SELECT o.id, o.run_id, o.observed_at, o.backend, o.provider_id, o.claimed_tier,"          \
	" o.claimed_mechanism, o.observed_tier, o.observed_vendor, o.confidence, o.verdict,"       \
	" o.reason, " duration ", o.kernel_relation, " schema ", o.host_id, " extra ","            \
	" r.tool_version, r.catalogue_commit, r.host" ATTEST_LAYERS                                \
	" FROM observations AS o LEFT JOIN runs AS r ON r.id = o.run_id"
#define OBS_FULL(schema)                                                                           \
	OBS_COLUMNS("o.duration_ms", schema,                                                       \
	            "o.sandbox_wall_ms, o.sandbox_cpu_ms, o.jobs, o.overlap")
/* A host (?2): the run's host name or the observation's machine id. */
#define OBS_RANGE                                                                                  \
	" WHERE (?1 IS NULL OR o.observed_at >= ?1) AND (?2 IS NULL OR o.host_id = ?2 OR"          \
	" o.run_id IN (SELECT id FROM runs WHERE host = ?2)) ORDER BY o.id"

static int each_observation(hstmt *s,
                            int (*cb)(void *ctx, const isotier_report_observation_row *row),
                            void *ctx, isotier_error *err)
{
	int rc;
	isotier_report_observation_row r;
	while ((rc = hq_step(s, err)) > 0) {
		r = (isotier_report_observation_row){
		    .id = hq_col_int(s, 0),
		    .run_id = hq_col_int(s, 1),
		    .observed_at = hq_col(s, 2),
		    .backend = hq_col(s, 3),
		    .provider_id = hq_col(s, 4),
		    .claimed_tier = hq_col(s, 5),
		    .claimed_mechanism = hq_col(s, 6),
		    .observed_tier = hq_col(s, 7),
		    .observed_vendor = hq_col(s, 8),
		    .confidence = hq_col(s, 9),
		    .verdict = hq_col(s, 10),
		    .reason = hq_col(s, 11),
		    .duration_ms = hq_null(s, 12) ? -1 : hq_col_int(s, 12),
		    .kernel_relation = hq_col(s, 13),
		    .probe_schema = hq_col(s, 14),
		    .host_id = hq_col(s, 15),
		    .sandbox_wall_ms = hq_null(s, 16) ? -1 : hq_col_int(s, 16),
		    .sandbox_cpu_ms = hq_null(s, 17) ? -1 : hq_col_int(s, 17),
		    .jobs = hq_null(s, 18) ? -1 : hq_col_int(s, 18),
		    .overlap = hq_null(s, 19) ? -1 : hq_col_int(s, 19),
		    .tool_version = hq_col(s, 20),
		    .catalogue_commit = hq_col(s, 21),
		    .run_host = hq_col(s, 22),
		    .attest_layers = hq_col(s, 23),
		    .attest_statement = hq_col(s, 24),
		    .evidence_sha256 = hq_col(s, 25),
		    .imported = !hq_null(s, 26) && hq_col_int(s, 26) == 1,
		    .unsigned_row = !hq_null(s, 27) && hq_col_int(s, 27) == 1,
		};
		if ((rc = cb(ctx, &r)) != 0)
			return rc;
	}
	return rc;
}

int isotier__history_scan_observations(
    isotier_history *h, const char *since, const char *host, bool durations,
    int (*cb)(void *ctx, const isotier_report_observation_row *row), void *ctx, isotier_error *err)
{
	/* duration_ms is stored after probe_json: in SQLite reading it walks
	 * each row's overflow pages, i.e. the whole database. Only the JSON
	 * report (every field of every observation) pays that in the scan. */
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s,
	                             durations ? (h->drv->engine == HISTORY_POSTGRES
	                                              ? OBS_FULL("o.probe_schema") OBS_RANGE
	                                              : OBS_FULL(SQLITE_PROBE_SCHEMA) OBS_RANGE)
	                                       : OBS_LIGHT OBS_RANGE,
	                             err, "report: read observations");
	if (rc < 0)
		return rc;
	hq_text(s, 1, since);
	hq_text(s, 2, host);
	return each_observation(s, cb, ctx, err);
}

int isotier__history_observations_by_id(isotier_history *h, const int64_t *ids, size_t n,
                                        int (*cb)(void *ctx,
                                                  const isotier_report_observation_row *row),
                                        void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s,
	                             HQ_SQL(h, OBS_FULL(SQLITE_PROBE_SCHEMA) " WHERE o.id = ?1",
	                                    OBS_FULL("o.probe_schema") " WHERE o.id = ?1"),
	                             err, "report: read observations shown");
	for (size_t i = 0; rc >= 0 && i < n; i++) {
		hq_reset(s);
		hq_int(s, 1, ids[i]);
		rc = each_observation(s, cb, ctx, err);
	}
	return rc < 0 ? rc : 0;
}

int isotier__history_observation_documents(isotier_history *h, const int64_t *ids, size_t n,
                                           size_t layers_max, size_t probe_max,
                                           int (*cb)(void *ctx, size_t i, const char *layers,
                                                     const char *probe),
                                           void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "SELECT substr(layers_json, 1, CAST(?2 AS INTEGER)),"
	    " substr(probe_json, 1, CAST(?3 AS INTEGER)) FROM observations WHERE id = ?1",
	    err, "report: read evidence");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		hq_reset(s);
		hq_int(s, 1, ids[i]);
		hq_int(s, 2, (int64_t)layers_max);
		hq_int(s, 3, (int64_t)probe_max);
		if ((rc = hq_step(s, err)) == 0)
			rc = isotier__error_set(err, ISOTIER_EDB, 0,
			                        "report: read evidence: observation %lld is gone",
			                        (long long)ids[i]);
		else if (rc > 0)
			rc = cb(ctx, i, hq_col(s, 0), hq_col(s, 1));
	}
	return rc;
}

/* The newest refusals first (the report shows those), or every one oldest
 * first (the JSON report streams them): both walk audit_events_for_report
 * (at, id, event, decision: schema 10), reading the table only for the rows
 * that match. */
#define AUDIT_COLUMNS                                                                              \
	"SELECT id, at, event, sandbox_id, backend, claimed_tier, resolved_tier,"                  \
	" required_tier, decision, reason FROM audit_events"

int isotier__history_scan_refusals(isotier_history *h, const char *since, int64_t newest,
                                   int (*cb)(void *ctx, const isotier_audit_row *row), void *ctx,
                                   isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s,
	                             newest > 0 ? AUDIT_COLUMNS REFUSAL_WHERE
	                                 " ORDER BY at DESC, id DESC LIMIT ?2"
	                                        : AUDIT_COLUMNS REFUSAL_WHERE " ORDER BY at, id",
	                             err, "report: read audit events");
	if (rc < 0)
		return rc;
	hq_text(s, 1, since);
	if (newest > 0)
		hq_int(s, 2, newest);
	isotier_audit_row a = {0};
	while ((rc = hq_step(s, err)) > 0) {
		a = (isotier_audit_row){.id = hq_col_int(s, 0),
		                        .at = hq_col(s, 1),
		                        .event = hq_col(s, 2),
		                        .sandbox_id = hq_col(s, 3),
		                        .backend = hq_col(s, 4),
		                        .claimed_tier = hq_col(s, 5),
		                        .resolved_tier = hq_col(s, 6),
		                        .required_tier = hq_col(s, 7),
		                        .decision = hq_col(s, 8),
		                        .reason = hq_col(s, 9)};
		if ((rc = cb(ctx, &a)) != 0)
			return rc;
	}
	return rc;
}

#define CHECK_COLUMNS                                                                              \
	"SELECT id, run_id, checked_at, provider_id, url, quote, status, http_status,"             \
	" content_sha256, detail, change, passage_diff FROM source_checks"

static int each_check(hstmt *s, isotier_report_check_cb cb, void *ctx, isotier_error *err)
{
	int rc;
	isotier_report_check_row c;
	while ((rc = hq_step(s, err)) > 0) {
		c = (isotier_report_check_row){
		    .l = {.id = hq_col_int(s, 0),
		          .run_id = hq_col_int(s, 1),
		          .checked_at = hq_col(s, 2),
		          .provider_id = hq_col(s, 3),
		          .url = hq_col(s, 4),
		          .quote = hq_col(s, 5),
		          .status = hq_col(s, 6),
		          .http_status = hq_null(s, 7) ? -1 : hq_col_int(s, 7),
		          .content_sha256 = hq_col(s, 8),
		          .detail = hq_col(s, 9)},
		    .change = hq_null(s, 10) ? NULL : hq_col(s, 10),
		    .passage_diff = hq_null(s, 11) ? NULL : hq_col(s, 11),
		};
		if ((rc = cb(ctx, &c)) != 0)
			return rc;
	}
	return rc;
}

int isotier__history_scan_checks(isotier_history *h, const char *since, isotier_report_check_cb cb,
                                 void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s,
	                             CHECK_COLUMNS " WHERE ?1 IS NULL OR checked_at >= ?1"
	                                           " ORDER BY checked_at, id",
	                             err, "report: read source checks");
	if (rc < 0)
		return rc;
	hq_text(s, 1, since);
	return each_check(s, cb, ctx, err);
}

struct latest {
	isotier_report_check_cb cb;
	void *ctx;
	int found;
};

static int latest_one(void *ctx, const isotier_report_check_row *row)
{
	struct latest *l = ctx;
	l->found = 1;
	return l->cb(l->ctx, row);
}

int isotier__history_latest_check(isotier_history *h, const char *provider_id, const char *url,
                                  const char *quote, const char *since, isotier_report_check_cb cb,
                                  void *ctx, isotier_error *err)
{
	/* source_checks_for_report (provider_id, url, checked_at, id: schema
	 * 10) walked newest first: a source checked daily for years costs its
	 * newest entry, not its years. */
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s,
	                             CHECK_COLUMNS " WHERE provider_id = ?1 AND url = ?2"
	                                           " AND (?3 IS NULL OR checked_at >= ?3)"
	                                           " AND (?4 IS NULL OR quote = ?4)"
	                                           " ORDER BY checked_at DESC, id DESC LIMIT 1",
	                             err, "report: read a source's latest check");
	if (rc < 0)
		return rc;
	hq_text(s, 1, provider_id);
	hq_text(s, 2, url);
	hq_text(s, 3, since);
	hq_text(s, 4, quote);
	struct latest l = {.cb = cb, .ctx = ctx};
	rc = each_check(s, latest_one, &l, err);
	return rc != 0 ? rc : l.found;
}

int isotier__history_scan_interrupted(isotier_history *h, const char *since,
                                      int (*cb)(void *ctx, const char *reason), void *ctx,
                                      isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc =
	    isotier__hq_prepare(h, &s,
	                        "SELECT reason FROM audit_events WHERE event = 'run_interrupted'"
	                        " AND (?1 IS NULL OR at >= ?1) ORDER BY id LIMIT 100",
	                        err, "report: read interrupted runs");
	if (rc < 0)
		return rc;
	hq_text(s, 1, since);
	while ((rc = hq_step(s, err)) > 0)
		if ((rc = cb(ctx, hq_col(s, 0))) != 0)
			return rc;
	return rc;
}
