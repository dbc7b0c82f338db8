/* SPDX-License-Identifier: Apache-2.0 */
/* history_sqlite.c - the history's SQLite engine (history_driver.h): a local
 * file, WAL mode; the default. */
#include "history_driver.h"
#include "history_sqlite.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>

typedef struct sqlite_stmt {
	struct hstmt_head head;
	sqlite3_stmt *s;
	isotier_history *h;
	/* A parameter could not be bound (out of memory, too big): the
	 * statement never runs with NULL in its place (history_pg.c). */
	bool bind_failed;
} sqlite_stmt;

static int sqlite_error(isotier_history *h, isotier_error *err, const char *context)
{
	if (!h || !h->db)
		return isotier__history_db_error(err, SQLITE_CANTOPEN, context, "no database");
	return isotier__history_db_error(err, sqlite3_extended_errcode(h->db), context,
	                                 sqlite3_errmsg(h->db));
}

static int s_exec(isotier_history *h, const char *sql, isotier_error *err, const char *context)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		rc = isotier__history_db_error(err, sqlite3_extended_errcode(h->db), context, msg);
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int s_prepare(isotier_history *h, hstmt **out, const char *sql, isotier_error *err,
                     const char *context)
{
	sqlite_stmt *st = calloc(1, sizeof *st);
	if (!st)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", context);
	st->head.drv = &isotier__history_sqlite_driver;
	st->h = h;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st->s, NULL) != SQLITE_OK) {
		free(st);
		return sqlite_error(h, err, context);
	}
	*out = (hstmt *)st;
	return 0;
}

#define S(st) (((sqlite_stmt *)(st))->s)

/* A parameter the statement does not name (SQLITE_RANGE) is no failure. */
static void bound(hstmt *st, int rc)
{
	if (rc != SQLITE_OK && rc != SQLITE_RANGE)
		((sqlite_stmt *)st)->bind_failed = true;
}

static void s_bind_text(hstmt *st, int i, const char *v)
{
	bound(st, v ? sqlite3_bind_text(S(st), i, v, -1, SQLITE_TRANSIENT)
	            : sqlite3_bind_null(S(st), i));
}

static void s_bind_int64(hstmt *st, int i, int64_t v)
{
	bound(st, sqlite3_bind_int64(S(st), i, v));
}

static void s_bind_blob(hstmt *st, int i, const void *v, size_t len)
{
	if (v && len <= INT32_MAX)
		bound(st, sqlite3_bind_blob(S(st), i, v, (int)len, SQLITE_TRANSIENT));
	else
		bound(st, v ? SQLITE_TOOBIG : sqlite3_bind_null(S(st), i));
}

static int s_step(hstmt *st, isotier_error *err)
{
	if (((sqlite_stmt *)st)->bind_failed)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "query history: a parameter could not be bound");
	int rc = sqlite3_step(S(st));
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sqlite_error(((sqlite_stmt *)st)->h, err, "read history");
}

static const char *s_text(hstmt *st, int i)
{
	return (const char *)sqlite3_column_text(S(st), i);
}

static size_t s_bytes(hstmt *st, int i)
{
	return (size_t)sqlite3_column_bytes(S(st), i);
}

static int64_t s_int64(hstmt *st, int i)
{
	return sqlite3_column_int64(S(st), i);
}

static bool s_is_null(hstmt *st, int i)
{
	return sqlite3_column_type(S(st), i) == SQLITE_NULL;
}

static const void *s_blob(hstmt *st, int i, size_t *len)
{
	const void *p = sqlite3_column_blob(S(st), i);
	*len = (size_t)sqlite3_column_bytes(S(st), i);
	return p;
}

static void s_reset(hstmt *st)
{
	sqlite3_reset(S(st));
}

static void s_finalize(hstmt *st)
{
	sqlite3_finalize(S(st));
	free(st);
}

static int s_schema_version(isotier_history *h, int *version, isotier_error *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc = sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : sqlite_error(h, err, h->display);
}

static int s_set_schema_version(isotier_history *h, int version, isotier_error *err)
{
	char pragma[64];
	snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", version);
	return s_exec(h, pragma, err, h->display);
}

static int s_lock_migration(isotier_history *h, isotier_error *err)
{
	(void)h, (void)err;
	return 0; /* BEGIN IMMEDIATE holds the file's write lock */
}

int isotier__history_check_file(const char *path, isotier_error *err)
{
	static const char magic[16] = "SQLite format 3"; /* and its NUL */
	struct stat st;
	if (!*path || !strcmp(path, ":memory:") || isotier__history_is_uri(path))
		return 0;
	if (stat(path, &st) != 0)
		return errno == ENOENT
		           ? 0
		           : isotier__error_set(err, ISOTIER_EIO, errno, "history %s", path);
	if (!S_ISREG(st.st_mode))
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "history %s: %s, not a database file", path,
		                          isotier__file_kind(st.st_mode));
	if (st.st_size == 0)
		return 0;
	char head[sizeof magic];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		struct stat fst;
		if (fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode))
			n = read(fd, head, sizeof head);
		close(fd);
	}
	if (n < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno ? errno : EIO, "history %s",
		                          path);
	if (n != (ssize_t)sizeof head || memcmp(head, magic, sizeof magic))
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "history %s: not an SQLite database; not turning it into one", path);
	return 0;
}

static int raw_open(isotier_history *h, const char *path, int flags, int busy_ms,
                    isotier_error *err)
{
	int rc;
	if (!(flags & SQLITE_OPEN_URI) && (rc = isotier__history_check_file(path, err)) < 0)
		return rc;
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		rc = sqlite_error(h, err, h->display);
		sqlite3_close_v2(h->db);
		h->db = NULL;
		return rc;
	}
	sqlite3_busy_timeout(h->db, busy_ms > 0 ? busy_ms : 5000);
	sqlite3_extended_result_codes(h->db, 1);
	return 0;
}

/* "file:PATH?immutable=1" with PATH percent-encoded where URIs need it. */
static int immutable_uri(char *buf, size_t len, const char *path)
{
	size_t o = 0;
	o += (size_t)snprintf(buf, len, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < len; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x21 || *p >= 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "%%%02X", *p);
		else
			buf[o++] = (char)*p;
	}
	if (o + sizeof "?immutable=1" > len)
		return ISOTIER_EINVAL;
	memcpy(buf + o, "?immutable=1", sizeof "?immutable=1");
	return 0;
}

/* The log's size (pages) at which a commit checkpoints it: SQLite's own
 * auto-checkpoint threshold, which wal_hook takes over. */
#define WAL_CHECKPOINT_PAGES 1000

/* After every commit that wrote the write-ahead log. With
 * synchronous=NORMAL a commit does not sync the log: s_sync does, once, at
 * the end of a run. This hook replaces SQLite's auto-checkpoint, so it does
 * that job too: a passive checkpoint once the log is long (it syncs the log
 * and the database: now and then, never per run). */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	isotier_history *h = arg;
	h->unsynced = true;
	int logged = -1, copied = -2;
	if (pages >= WAL_CHECKPOINT_PAGES &&
	    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied) ==
	        SQLITE_OK &&
	    logged == copied)
		h->unsynced = false; /* every frame copied into the database, synced */
	return SQLITE_OK;
}

/* The log synced, so what was committed survives a power loss. Through a
 * descriptor of our own: SQLite's sync of the log also syncs its directory,
 * once per connection, though the log was there before (SQLite syncs both
 * itself when it starts a new log). fdatasync(2) flushes the file whoever
 * wrote it; closing our descriptor drops no lock (SQLite's are on the
 * database and -shm files). */
static int s_sync(isotier_history *h, isotier_error *err)
{
	if (h->sync_errno)
		return isotier__history_db_error(err, SQLITE_IOERR_FSYNC, h->display,
		                                 strerror(h->sync_errno));
	if (!h->db || !h->unsynced)
		return 0;
	const char *wal = sqlite3_filename_wal(sqlite3_db_filename(h->db, "main"));
	int fd = wal ? open(wal, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC) : -1;
	int rc = fd >= 0 ? fdatasync(fd) : -1, e = fd >= 0 || wal ? errno : ENOENT;
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		return h->sync_errno = e ? e : EIO,
		       isotier__history_db_error(err, SQLITE_IOERR_FSYNC, h->display, strerror(e));
	h->unsynced = false;
	return 0;
}

static int s_open(isotier_history *h, const char *path, bool readonly, int busy_ms,
                  isotier_error *err)
{
	int rc;
	if (!readonly) {
		if ((rc = raw_open(h, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, busy_ms,
		                   err)) < 0 ||
		    (rc = s_exec(h,
		                 "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
		                 "PRAGMA synchronous=NORMAL;",
		                 err, path)) < 0)
			return rc;
		/* SQLite opens a file it cannot write read-only without a word: a
		 * writer (verify, sweep, import) would find out at its first
		 * write, or never, when it had nothing to write that time. */
		if (sqlite3_db_readonly(h->db, "main") == 1)
			return isotier__history_db_error(
			    err, SQLITE_READONLY, path,
			    "opened read-only (a read-only file system, or a "
			    "file this user may not write): it cannot be written");
		/* One sync per run (s_sync), none at close: a checkpoint on close
		 * syncs the log and the database, and deleting the log makes the
		 * next writer create it and sync it and its directory again. So
		 * the log stays beside the database, holding the latest commits
		 * until a long log is checkpointed (wal_hook): a copy of the
		 * database file alone is not the history (runbook/history.md). */
		int persist = 1;
		sqlite3_db_config(h->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		sqlite3_file_control(h->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
		sqlite3_wal_hook(h->db, wal_hook, h);
		return 0;
	}
	if (access(path, R_OK) != 0) {
		int e = errno;
		return isotier__error_set(
		    err, e == ENOENT || e == ENOTDIR ? ISOTIER_ENOTFOUND : ISOTIER_EIO, e,
		    "open history %s (%s)", path, strerrorname_np(e) ? strerrorname_np(e) : "?");
	}
	if ((rc = raw_open(h, path, SQLITE_OPEN_READONLY, 5000, err)) < 0)
		return rc;
	int version = -1;
	if (s_schema_version(h, &version, err) == 0)
		return 0;
	/* A WAL database needs its -shm file; in a directory we cannot write
	 * (an archive, a read-only mount) open it as immutable: no one is
	 * writing it there. Immutable reads the database file alone, so a log
	 * beside it (commits not yet copied into the file) refuses instead of
	 * showing an older history. */
	int sqlite_rc = sqlite3_extended_errcode(h->db);
	sqlite3_close_v2(h->db);
	h->db = NULL;
	char uri[8192];
	if (((sqlite_rc & 0xff) != SQLITE_CANTOPEN && (sqlite_rc & 0xff) != SQLITE_READONLY) ||
	    immutable_uri(uri, sizeof uri, path) < 0)
		return ISOTIER_EDB;
	if ((rc = raw_open(h, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, 5000, err)) < 0)
		return rc;
	/* The log SQLite names: beside the file a symlink points to, not
	 * beside the link. */
	struct stat wal;
	const char *wal_path = sqlite3_filename_wal(sqlite3_db_filename(h->db, "main"));
	if (!wal_path || (stat(wal_path, &wal) == 0 && wal.st_size > 0))
		return isotier__error_set(
		    err, ISOTIER_EDB, 0,
		    "open history %s: its write-ahead log %s holds commits this reader cannot "
		    "apply here (no -shm file, a directory it cannot write); checkpoint it where "
		    "it can be written (sqlite3 DB 'PRAGMA wal_checkpoint(TRUNCATE)') or copy "
		    "the history with sqlite3 DB '.backup COPY'",
		    path, wal_path ? wal_path : "?");
	return s_schema_version(h, &version, err);
}

static void s_close(isotier_history *h)
{
	/* What a command committed outside a run (an import, a migration)
	 * survives a power loss as it did when closing checkpointed. */
	s_sync(h, NULL);
	sqlite3_close_v2(h->db);
	h->db = NULL;
}

struct sqlite3 *isotier__history_db(isotier_history *h)
{
	return h->db;
}

const history_driver isotier__history_sqlite_driver = {
    .engine = HISTORY_SQLITE,
    .name = "sqlite",
    .open = s_open,
    .close = s_close,
    .exec = s_exec,
    .prepare = s_prepare,
    .bind_text = s_bind_text,
    .bind_int64 = s_bind_int64,
    .bind_blob = s_bind_blob,
    .step = s_step,
    .text = s_text,
    .bytes = s_bytes,
    .int64 = s_int64,
    .is_null = s_is_null,
    .blob = s_blob,
    .reset = s_reset,
    .finalize = s_finalize,
    .schema_version = s_schema_version,
    .set_schema_version = s_set_schema_version,
    .begin_write_sql = "BEGIN IMMEDIATE",
    .lock_migration = s_lock_migration,
    .sync = s_sync,
};
