/* history_stale.c - runs left 'running' by a process that is gone (see history.h). */
#include "history.h"
#include "lease.h"

#include <sys/utsname.h>
#include <unistd.h>

int isotier_history_mark_stale(isotier_history *h, int64_t *ids, size_t max, size_t *n,
                               isotier_error *err)
{
	*n = 0;
	sqlite3 *db = isotier_history_db(h);
	struct utsname u;
	if (uname(&u) != 0)
		return 0; /* no host name: no run here can be told from one elsewhere */
	/* Only this host's runs: a pid means nothing on another host sharing the file. */
	cleanup_stmt sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db,
	                       "SELECT id, owner_pid, owner_start FROM runs WHERE status = 'running'"
	                       " AND host = ?1 AND owner_pid IS NOT NULL ORDER BY id",
	                       -1, &q, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "stale runs");
	sqlite3_bind_text(q, 1, u.nodename, -1, SQLITE_TRANSIENT);
	int64_t dead[64];
	size_t n_dead = 0;
	int step;
	while ((step = sqlite3_step(q)) == SQLITE_ROW && n_dead < 64) {
		sqlite3_int64 pid = sqlite3_column_int64(q, 1);
		sqlite3_int64 start = sqlite3_column_int64(q, 2);
		if (pid > 0 && pid < INT32_MAX && pid != getpid() &&
		    !isotier_pid_alive((int)pid, (unsigned long long)start))
			dead[n_dead++] = sqlite3_column_int64(q, 0);
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "stale runs");
	char now[32];
	isotier_utc_now(now, sizeof now);
	for (size_t i = 0; i < n_dead; i++) {
		cleanup_stmt sqlite3_stmt *up = NULL, *ev = NULL;
		/* Still 'running': another run may have marked it meanwhile. */
		if (sqlite3_prepare_v2(db,
		                       "UPDATE runs SET status = 'interrupted', finished_at = ?1"
		                       " WHERE id = ?2 AND status = 'running'",
		                       -1, &up, NULL) != SQLITE_OK)
			return isotier_history_sql_error(h, err, "mark stale run");
		sqlite3_bind_text(up, 1, now, -1, SQLITE_STATIC);
		sqlite3_bind_int64(up, 2, dead[i]);
		if (sqlite3_step(up) != SQLITE_DONE)
			return isotier_history_sql_error(h, err, "mark stale run");
		if (sqlite3_changes(db) != 1)
			continue;
		char reason[160];
		snprintf(reason, sizeof reason,
		         "run %lld was left running by a process that is gone (killed, or the "
		         "host stopped): marked interrupted",
		         (long long)dead[i]);
		if (sqlite3_prepare_v2(db,
		                       "INSERT INTO audit_events(at, event, decision, reason)"
		                       " VALUES (?1, 'run_interrupted', 'interrupted', ?2)",
		                       -1, &ev, NULL) != SQLITE_OK)
			return isotier_history_sql_error(h, err, "mark stale run");
		sqlite3_bind_text(ev, 1, now, -1, SQLITE_STATIC);
		sqlite3_bind_text(ev, 2, reason, -1, SQLITE_STATIC);
		if (sqlite3_step(ev) != SQLITE_DONE)
			return isotier_history_sql_error(h, err, "mark stale run");
		if (*n < max)
			ids[*n] = dead[i];
		(*n)++;
	}
	return 0;
}

int isotier_history_note_swept(isotier_history *h, const char *backend, const char *reason,
                               isotier_error *err)
{
	char now[32];
	isotier_utc_now(now, sizeof now);
	cleanup_stmt sqlite3_stmt *ev = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
	                       "INSERT INTO audit_events(at, event, backend, decision, reason)"
	                       " VALUES (?1, 'leftover_swept', ?2, 'removed', ?3)",
	                       -1, &ev, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "record sweep");
	sqlite3_bind_text(ev, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(ev, 2, backend, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(ev, 3, reason, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(ev) != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "record sweep");
	return 0;
}
