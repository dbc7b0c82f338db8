/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_retry.h - one history transaction tried again while another process
 * holds the database's write lock. SQLite's busy timeout already waits inside
 * each attempt; this bounds how many such waits a caller accepts, so a lock
 * held a little longer than --busy-timeout costs a delay, not a lost row.
 */
#ifndef ISOTIER_HISTORY_RETRY_H
#define ISOTIER_HISTORY_RETRY_H

#include "../../reference/api/isotier_tool.h"

#include <stdbool.h>
#include <stdint.h>

/* True when err says the database was locked or busy past the busy timeout:
 * trying again later may work. Anything else (disk full, not a database, a
 * constraint) will fail the same way again. */
bool history_locked(const isotier_error *err);

/* One transaction: 0 or a negative ISOTIER_E* with err filled. */
typedef int (*history_txn_fn)(void *arg, isotier_error *err);

typedef struct history_retry_policy {
	int min_attempts;    /* at least this many attempts while locked (>= 1) */
	int64_t deadline_ms; /* and more while isotier__now_ms() < this (0: none) */
	/* Called between attempts; true gives up (a signal came). May be NULL. */
	bool (*stop)(void *stop_arg);
	void *stop_arg;
} history_retry_policy;

/* Calls fn(arg, err) until it succeeds or fails for something other than a
 * lock, or the policy's attempts and deadline are both used up, or stop says
 * so. Returns fn's last result; *attempts_out (may be NULL) gets the count. */
int history_retry(history_txn_fn fn, void *arg, const history_retry_policy *p, int *attempts_out,
                  isotier_error *err);

#endif
