/* SPDX-License-Identifier: Apache-2.0 */
/* history_retry.c - bounded retries of a history transaction on a lock. */
#include "history_retry.h"
#include "../../reference/api/isotier_tool.h"

#include <string.h>
#include <time.h>

bool history_locked(const isotier_error *err)
{
	/* SQLITE_BUSY / SQLITE_LOCKED, told by code (history.c), never by
	 * words that a path or a message could also contain. */
	return err->code == ISOTIER_EBUSY;
}

int history_retry(history_txn_fn fn, void *arg, const history_retry_policy *p, int *attempts_out,
                  isotier_error *err)
{
	int attempts = 0, rc;
	for (;;) {
		int64_t t0 = isotier__now_ms();
		rc = fn(arg, err);
		attempts++;
		if (rc == 0 || !history_locked(err))
			break;
		bool more = attempts < p->min_attempts ||
		            (p->deadline_ms && isotier__now_ms() < p->deadline_ms);
		if (!more || (p->stop && p->stop(p->stop_arg)))
			break;
		/* The busy handler normally waited already; when SQLite gave up at
		 * once, do not spin. */
		if (isotier__now_ms() - t0 < 100) {
			struct timespec pause = {0, 100 * 1000000L};
			nanosleep(&pause, NULL);
		}
	}
	if (attempts_out)
		*attempts_out = attempts;
	return rc;
}
