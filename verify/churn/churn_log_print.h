/* SPDX-License-Identifier: Apache-2.0 */
/*
 * churn_log_print.h - `isotier churn log` written as the timeline is walked,
 * in memory that does not grow with the history (issue #24).
 *
 * JSON: {"events": [...], "skipped": [...]}, each event written when found;
 * the skipped revisions wait in an unlinked temporary file until the events
 * are closed. Text: grouped by provider (sorted by id, oldest first within),
 * which needs the last commit before the first line: each line waits in an
 * unlinked temporary file, chained to the next line of its provider, and
 * memory holds one record per provider id. Both print exactly what the whole
 * timeline held in memory printed.
 */
#ifndef ISOTIER_CHURN_LOG_PRINT_H
#define ISOTIER_CHURN_LOG_PRINT_H

#include "churn.h"

#include <stdio.h>

typedef struct churn_log_out churn_log_out;

/* Temporary files go to $TMPDIR (default /tmp), made when first needed and
 * unlinked at once. */
int churn_log_out_open(churn_log_out **out, FILE *f, bool json, isotier_error *err);
int churn_log_out_change(churn_log_out *o, const churn_change *c, isotier_error *err);
int churn_log_out_skip(churn_log_out *o, const churn_skip *s, isotier_error *err);
/* Writes what waits and closes the document. */
int churn_log_out_finish(churn_log_out *o, isotier_error *err);
void churn_log_out_free(churn_log_out *o);

#endif
