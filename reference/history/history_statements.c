/* SPDX-License-Identifier: Apache-2.0 */
/* history_statements.c - the signed statements kept beside observations
 * (schema 11, statement.h), read back for `isotier attest export`. */
#include "history_driver.h"

#define STATEMENT_COLUMNS                                                                          \
	"SELECT o.id, o.uuid, o.backend, o.verdict, o.observed_at, o.ceiling_tier, o.host_id,"     \
	" o.claim_digest, o.statement,"                                                            \
	" CASE WHEN r.command IS NOT NULL AND r.command <> ?2 THEN 1 ELSE 0 END, o.claimed_tier"   \
	" FROM observations o LEFT JOIN runs r ON r.id = o.run_id"

static int each_statement(hstmt *s, int (*cb)(void *ctx, const isotier_statement_listing *row),
                          void *ctx, isotier_error *err);

int isotier__history_statement_of(isotier_history *h, int64_t id,
                                  int (*cb)(void *ctx, const isotier_statement_listing *row),
                                  void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, STATEMENT_COLUMNS " WHERE o.id = ?1", err,
	                             "read a signed statement");
	if (rc < 0)
		return rc;
	hq_int(s, 1, id);
	hq_text(s, 2, HISTORY_IMPORTED_COMMAND);
	return each_statement(s, cb, ctx, err);
}

int isotier__history_scan_statements(isotier_history *h, const char *host_id,
                                     int (*cb)(void *ctx, const isotier_statement_listing *row),
                                     void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s, STATEMENT_COLUMNS " WHERE (?1 IS NULL OR o.host_id = ?1) ORDER BY o.id", err,
	    "read signed statements");
	if (rc < 0)
		return rc;
	hq_text(s, 1, host_id);
	hq_text(s, 2, HISTORY_IMPORTED_COMMAND);
	return each_statement(s, cb, ctx, err);
}

static int each_statement(hstmt *s, int (*cb)(void *ctx, const isotier_statement_listing *row),
                          void *ctx, isotier_error *err)
{
	int rc;
	while ((rc = hq_step(s, err)) > 0) {
		isotier_statement_listing row = {
		    .id = hq_col_int(s, 0),
		    .uuid = hq_col(s, 1),
		    .backend = hq_col(s, 2),
		    .verdict = hq_col(s, 3),
		    .observed_at = hq_col(s, 4),
		    .ceiling_tier = hq_col(s, 5),
		    .host_id = hq_col(s, 6),
		    .claim_digest = hq_col(s, 7),
		    .statement = hq_col(s, 8),
		    .own_run = hq_col_int(s, 9) == 1,
		    .claimed_tier = hq_col(s, 10),
		};
		if ((rc = cb(ctx, &row)) != 0)
			return rc;
	}
	return rc < 0 ? isotier__error_prefix(err, "read signed statements") : 0;
}
