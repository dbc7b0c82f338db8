/*
 * history_check_changes.h - how each stored source check moved against the
 * kept baseline (source_checks.change, .passage_diff: schema 6), for the
 * report's Sources section. A reader of its own so the report can show it
 * beside the rows isotier__history_scan_checks() gives.
 */
#ifndef ISOTIER_HISTORY_CHECK_CHANGES_H
#define ISOTIER_HISTORY_CHECK_CHANGES_H

#include "history.h"

/* Called per source check at or after since (NULL: all), in the order of
 * isotier__history_scan_checks() (checked_at, id). change and passage_diff
 * are NULL when the row has none (no baseline, an older row). A nonzero
 * return stops the scan and is returned. */
typedef int (*isotier_check_change_cb)(void *ctx, int64_t id, const char *change,
                                       const char *passage_diff);
int isotier__history_scan_check_changes(isotier_history *h, const char *since,
                                        isotier_check_change_cb cb, void *ctx, isotier_error *err);

#endif
