/* SPDX-License-Identifier: Apache-2.0 */
/* history_gate.c - the history gate's reads (resolve.c): the latest of a
 * backend's rows made on this host (or naming no host), by id. */
#include "history_driver.h"
#include "../../base/verdict.h"

#include <string.h>

/* The rows the gate reads: the backend's, made on this host (?8), plus rows
 * that name no host: older than host ids, they may be this host's, so they
 * still deny (a contradiction, a ceiling) but never grant. ?8 NULL: every
 * host's. */
#define GATE_ROWS                                                                                  \
	" FROM observations WHERE backend = ?1 AND (?8 IS NULL OR host_id = ?8 OR host_id IS "     \
	"NULL)"
/* Of those, the rows this host's own isotier wrote: naming a host (this
 * one, or any with ?8 NULL) in a run that history import or migrate did not
 * record (?12: HISTORY_IMPORTED_COMMAND, which an import stores whatever its
 * file says). A row whose run is missing is not one. Only these grant or
 * clear; an imported row, whatever host it names, can only lower. */
#define GATE_OWN                                                                                   \
	"(host_id IS NOT NULL AND (?8 IS NULL OR host_id = ?8) AND EXISTS (SELECT 1 FROM runs r"   \
	" WHERE r.id = observations.run_id AND r.command <> ?12))"

/* A verdict set in SQL: one parameter per verdict from ?VERDICT_PARAM on,
 * so the set comes from the verdict table, never from a literal list kept
 * here. Numbered apart from the statements' own parameters. */
#define VERDICT_PARAM 20
#define VERDICT_SET   "(?20, ?21, ?22, ?23, ?24, ?25, ?26)"
_Static_assert(VERDICT_COUNT == 7, "VERDICT_SET holds one parameter per verdict");
/* The tiers that satisfy one (isotier_tier_satisfies), likewise; compared
 * upper-cased as isotier_tier_parse reads them. */
#define TIER_PARAM 30
#define TIER_SET   "(?30, ?31, ?32, ?33)"
_Static_assert(ISOTIER_MICROVM == 3, "TIER_SET holds one parameter per tier");

#define GATE_COLUMNS                                                                               \
	"SELECT id, verdict, observed_at, COALESCE(reason, ''), ceiling_tier, host_id, "           \
	"claim_digest,"                                                                            \
	" CASE WHEN " GATE_OWN " THEN 1 ELSE 0 END, uuid, statement"

/* A row the runs table calls this host's own counts as own only when the
 * caller's check passes its signed statement (schema 11). */
static int gate_read(hstmt *s, const isotier_gate_query *q, isotier_gate_row *row,
                     isotier_gate_buf *b, isotier_error *err)
{
	int rc = hq_step(s, err);
	if (rc <= 0)
		return rc;
	snprintf(b->verdict, sizeof b->verdict, "%s", hq_col(s, 1) ? hq_col(s, 1) : "");
	snprintf(b->observed_at, sizeof b->observed_at, "%s", hq_col(s, 2) ? hq_col(s, 2) : "");
	snprintf(b->reason, sizeof b->reason, "%s", hq_col(s, 3) ? hq_col(s, 3) : "");
	snprintf(b->ceiling_tier, sizeof b->ceiling_tier, "%s", hq_col(s, 4) ? hq_col(s, 4) : "");
	snprintf(b->host_id, sizeof b->host_id, "%s", hq_col(s, 5) ? hq_col(s, 5) : "");
	snprintf(b->claim_digest, sizeof b->claim_digest, "%s", hq_col(s, 6) ? hq_col(s, 6) : "");
	b->has_ceiling = !hq_null(s, 4);
	b->has_host = !hq_null(s, 5);
	b->has_digest = !hq_null(s, 6);
	*row = (isotier_gate_row){
	    .id = hq_col_int(s, 0),
	    .verdict = b->verdict,
	    .observed_at = b->observed_at,
	    .reason = b->reason,
	    .ceiling_tier = b->has_ceiling ? b->ceiling_tier : NULL,
	    .host_id = b->has_host ? b->host_id : NULL,
	    .claim_digest = b->has_digest ? b->claim_digest : NULL,
	    .own = hq_col_int(s, 7) == 1,
	    .unsigned_why = b->unsigned_why,
	};
	snprintf(b->uuid, sizeof b->uuid, "%s", hq_col(s, 8) ? hq_col(s, 8) : "");
	b->unsigned_why[0] = '\0';
	if (row->own) {
		if (!q || !q->check)
			snprintf(b->unsigned_why, sizeof b->unsigned_why,
			         "signature check: no trusted key to check it against");
		else
			q->check(q->check_ctx, row, hq_null(s, 8) ? NULL : b->uuid, hq_col(s, 9),
			         b->unsigned_why, sizeof b->unsigned_why);
		row->own = b->unsigned_why[0] == '\0';
	}
	return 1;
}

/* The parameters every gate statement shares. */
static void gate_bind(hstmt *s, const char *backend, const char *host_id)
{
	hq_text(s, 1, backend);
	hq_text(s, 8, host_id);
	hq_text(s, 12, HISTORY_IMPORTED_COMMAND);
}

int isotier__history_gate_latest(isotier_history *h, const isotier_gate_query *q,
                                 isotier_gate_row *row, isotier_gate_buf *buf, isotier_error *err)
{
	/* Composed from fixed pieces; every value is a parameter. */
	char sql[2048];
	isotier_tier tiers = q->ceiling_in != ISOTIER_UNKNOWN ? q->ceiling_in : q->ceiling_out;
	int n = snprintf(
	    sql, sizeof sql, "%s%s%s%s%s%s%s%s ORDER BY id DESC LIMIT ?14", GATE_COLUMNS GATE_ROWS,
	    q->own_only ? " AND " GATE_OWN : "",
	    q->verdict_flags ? " AND verdict IN " VERDICT_SET : "",
	    q->with_ceiling || tiers != ISOTIER_UNKNOWN ? " AND ceiling_tier IS NOT NULL" : "",
	    q->ceiling_in != ISOTIER_UNKNOWN ? " AND upper(ceiling_tier) IN " TIER_SET : "",
	    q->ceiling_in == ISOTIER_UNKNOWN && q->ceiling_out != ISOTIER_UNKNOWN
	        ? " AND CASE WHEN upper(ceiling_tier) IN " TIER_SET " THEN 0 ELSE 1 END = 1"
	        : "",
	    q->after > 0 ? " AND id > ?13" : "", "");
	if (n < 0 || (size_t)n >= sizeof sql)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "read latest observation: query too long");
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, sql, err, "read latest observation");
	if (rc < 0)
		return rc;
	gate_bind(s, q->backend, q->host_id);
	if (q->after > 0)
		hq_int(s, 13, q->after);
	hq_int(s, 14, q->own_only ? HISTORY_GATE_OWN_SCAN : 1);
	for (int i = 0; q->verdict_flags && i < VERDICT_COUNT; i++) {
		isotier_verdict v = (isotier_verdict)i;
		bool in = isotier__verdict_is(v, q->verdict_flags) &&
		          !(q->verdict_not && isotier__verdict_is(v, q->verdict_not));
		hq_text(s, VERDICT_PARAM + i, in ? isotier__verdicts[i].name : NULL);
	}
	for (int t = 0; tiers != ISOTIER_UNKNOWN && t <= ISOTIER_MICROVM; t++)
		hq_text(s, TIER_PARAM + t,
		        t != ISOTIER_UNKNOWN && isotier_tier_satisfies((isotier_tier)t, tiers)
		            ? isotier_tier_name((isotier_tier)t)
		            : NULL);
	buf->skipped = 0;
	if (!q->own_only)
		return gate_read(s, q, row, buf, err);
	/* The first own row whose statement passes; why the newest one that
	 * did not was passed over stays in the buffer for the reason. */
	char first_why[sizeof buf->unsigned_why] = "";
	while ((rc = gate_read(s, q, row, buf, err)) > 0 && !row->own) {
		if (!buf->skipped++)
			snprintf(first_why, sizeof first_why, "%s", buf->unsigned_why);
	}
	if (rc >= 0 && buf->skipped)
		snprintf(buf->unsigned_why, sizeof buf->unsigned_why, "%s", first_why);
	return rc;
}

int isotier__history_gate_future(isotier_history *h, const char *backend, const char *host_id,
                                 const char *now, int skew_s, isotier_gate_row *row,
                                 isotier_gate_buf *buf, isotier_error *err)
{
	/* SQLite reads the time with julianday (NULL: unreadable); PostgreSQL
	 * compares the text with now + skew (?11, both ISO-8601 UTC) and calls
	 * a time unreadable unless it starts with a date and a time. */
	char later[32] = "";
	time_t t = 0;
	struct tm tm = {0};
	if (strptime(now, "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		t = timegm(&tm) + skew_s;
		gmtime_r(&t, &tm);
		strftime(later, sizeof later, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    HQ_SQL(h,
	           GATE_COLUMNS GATE_ROWS
	           " AND (julianday(observed_at) IS NULL"
	           "  OR julianday(observed_at) > julianday(?9) + ?10 / 86400.0)"
	           " ORDER BY id DESC LIMIT 1",
	           GATE_COLUMNS GATE_ROWS " AND (observed_at !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}([T "
	                                  "][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?Z?)?$'"
	                                  "  OR observed_at > ?11)"
	                                  " ORDER BY id DESC LIMIT 1"),
	    err, "read future-dated observations");
	if (rc < 0)
		return rc;
	gate_bind(s, backend, host_id);
	hq_text(s, 9, now);
	hq_int(s, 10, skew_s);
	hq_text(s, 11, later[0] ? later : "0000");
	return gate_read(s, NULL, row, buf, err);
}
