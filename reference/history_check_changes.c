/* history_check_changes.c - a source check's change against its baseline and
 * the word diff around its quote (history_check_changes.h). */
#include "history_check_changes.h"

#include "history_driver.h"

int isotier__history_scan_check_changes(isotier_history *h, const char *since,
                                        isotier_check_change_cb cb, void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = hq_prepare(h, &s,
	                    "SELECT id, change, passage_diff FROM source_checks"
	                    " WHERE ?1 IS NULL OR checked_at >= ?1 ORDER BY checked_at, id",
	                    err, "report: read source check changes");
	if (rc < 0)
		return rc;
	hq_text(s, 1, since);
	while ((rc = hq_step(s, err)) > 0) {
		const char *change = hq_null(s, 1) ? NULL : hq_col(s, 1);
		const char *diff = hq_null(s, 2) ? NULL : hq_col(s, 2);
		if ((rc = cb(ctx, hq_col_int(s, 0), change, diff)) != 0)
			return rc;
	}
	return rc;
}
