/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_sqlite.h - the SQLite connection under a history, for test
 * fixtures that write rows no isotier command would (old schemas, hostile
 * values). No tool includes it: the CLI reads and writes the history only
 * through history.h.
 */
#ifndef ISOTIER_HISTORY_SQLITE_H
#define ISOTIER_HISTORY_SQLITE_H

#include "history.h"

#include <sqlite3.h>

/* NULL when h is not an SQLite history. */
sqlite3 *isotier__history_db(isotier_history *h);

static inline void cleanup_stmtp(sqlite3_stmt **s)
{
	sqlite3_finalize(*s);
}
#define cleanup_stmt __attribute__((cleanup(cleanup_stmtp)))

#endif
