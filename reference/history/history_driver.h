/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_driver.h - the history's storage interface (internal to the
 * history module): one table of operations per engine, like libgit2's
 * git_odb_backend. history_sqlite.c (the default: a local file) and
 * history_pg.c (a fleet's PostgreSQL, through libpq) implement it; every
 * query lives in the history module (history*.c) and runs through it, so
 * both engines answer the same questions from the same schema.
 *
 * SQL is written once with numbered parameters (?1, ?2...); the PostgreSQL
 * driver renames them $1, $2... Where the dialects differ the caller picks
 * the engine's text (h->drv->engine).
 */
#ifndef ISOTIER_HISTORY_DRIVER_H
#define ISOTIER_HISTORY_DRIVER_H

#include "history.h"

typedef struct hstmt hstmt;

typedef enum history_engine { HISTORY_SQLITE, HISTORY_POSTGRES } history_engine;

/* runs.command of every run history import and migrate add, whatever the
 * file says the run was: the gate (history_gate.c) lets only rows this
 * host's own isotier wrote grant, and imported ones only lower. No command
 * of isotier's own is spelled so. */
#define HISTORY_IMPORTED_COMMAND "import"

/* How many of the newest own rows an own_only gate read tries
 * (history_gate.c): the gate passes over a row whose signed statement does
 * not verify, so history prune (history_prune.c) keeps that many of each
 * kind, whatever its age. */
#define HISTORY_GATE_OWN_SCAN 64

typedef struct history_driver {
	history_engine engine;
	const char *name;
	/* Opens target (a path, or a postgresql:// URI) with the connection's
	 * state in h; readonly: never create or write. */
	int (*open)(isotier_history *h, const char *target, bool readonly, int busy_ms,
	            isotier_error *err);
	void (*close)(isotier_history *h);
	/* Runs one or more statements without parameters or rows. */
	int (*exec)(isotier_history *h, const char *sql, isotier_error *err, const char *context);
	int (*prepare)(isotier_history *h, hstmt **st, const char *sql, isotier_error *err,
	               const char *context);
	/* Parameters: i from 1; a NULL text binds NULL. Unbound ones are NULL. */
	void (*bind_text)(hstmt *st, int i, const char *v);
	void (*bind_int64)(hstmt *st, int i, int64_t v);
	void (*bind_blob)(hstmt *st, int i, const void *v, size_t len);
	/* 1: a row, 0: done, < 0: an error in err. Rows stream: the driver
	 * holds one at a time. */
	int (*step)(hstmt *st, isotier_error *err);
	/* Column i (from 0) of the current row: NULL when SQL NULL. */
	const char *(*text)(hstmt *st, int i);
	size_t (*bytes)(hstmt *st, int i);
	int64_t (*int64)(hstmt *st, int i);
	bool (*is_null)(hstmt *st, int i);
	/* The stored bytes of a blob column (owned by st until the next step). */
	const void *(*blob)(hstmt *st, int i, size_t *len);
	/* Back to before the first step, parameters kept for rebinding. */
	void (*reset)(hstmt *st);
	void (*finalize)(hstmt *st);
	/* The schema version stored, or < 0 with err; 0 for an empty database. */
	int (*schema_version)(isotier_history *h, int *version, isotier_error *err);
	/* Records version inside the migration's transaction. */
	int (*set_schema_version)(isotier_history *h, int version, isotier_error *err);
	/* BEGIN for a writer (SQLite: IMMEDIATE, taking the write lock now). */
	const char *begin_write_sql;
	/* Serialises migrations between processes (PostgreSQL: an advisory
	 * lock inside the transaction; SQLite: the write lock already does). */
	int (*lock_migration)(isotier_history *h, isotier_error *err);
	/* Makes every transaction committed so far survive a power loss (a
	 * run's end: history_sqlite.c); NULL where a commit already does
	 * (PostgreSQL: the server's business). */
	int (*sync)(isotier_history *h, isotier_error *err);
} history_driver;

extern const history_driver isotier__history_sqlite_driver;
extern const history_driver isotier__history_pg_driver;

struct sqlite3;
struct pg_conn;

struct isotier_history {
	const history_driver *drv;
	struct sqlite3 *db; /* SQLite */
	struct pg_conn *pg; /* PostgreSQL */
	char display[512];  /* the target as it may be shown: a URI's password redacted */
	/* PostgreSQL: a run is one transaction, from run_begin to run_end, so
	 * other readers see all of it or none of it (a killed writer's
	 * connection ends and the server drops the run); the steps in it are
	 * savepoints. run_lost: that transaction failed, the run is gone. */
	bool run_tx, run_lost;
	/* SQLite: a commit wrote the write-ahead log since its last sync. */
	bool unsynced;
	/* SQLite: errno of a sync of the log that failed. Every later sync
	 * fails too: the kernel reports a lost write-back once, so a retry's
	 * success proves nothing. */
	int sync_errno;
};

/* Sets err for a database failure: ISOTIER_EBUSY when busy (a lock),
 * ISOTIER_EDB otherwise, db_code (SQLite's numbering: the CLI maps it to an
 * exit status) in err->db_code. */
int isotier__history_db_error(isotier_error *err, int db_code, const char *context,
                              const char *msg);

/* Convenience over h->drv. */
static inline void hstmt_finalizep(hstmt **st);
int isotier__hq_prepare(isotier_history *h, hstmt **st, const char *sql, isotier_error *err,
                        const char *context);
int isotier__hq_exec(isotier_history *h, const char *sql, isotier_error *err, const char *context);

/* Which driver a statement belongs to: every hstmt starts with it. */
struct hstmt_head {
	const history_driver *drv;
};
#define HDRV(st) (((const struct hstmt_head *)(st))->drv)

/* Binds text as valid UTF-8, whatever the bytes: a reason quoting a
 * sandbox's stderr, or its rejected output, may hold anything, and
 * PostgreSQL refuses a text that is not UTF-8 (the whole row with it: a
 * hostile sandbox could keep its observation out of the history). Invalid
 * bytes become U+FFFD in both engines, so the stored rows read the same. */
void isotier__hq_text(hstmt *st, int i, const char *v);
static inline void hq_text(hstmt *st, int i, const char *v)
{
	isotier__hq_text(st, i, v);
}
static inline void hq_int(hstmt *st, int i, int64_t v)
{
	HDRV(st)->bind_int64(st, i, v);
}
static inline void hq_blob(hstmt *st, int i, const void *v, size_t n)
{
	HDRV(st)->bind_blob(st, i, v, n);
}
static inline int hq_step(hstmt *st, isotier_error *err)
{
	return HDRV(st)->step(st, err);
}
static inline const char *hq_col(hstmt *st, int i)
{
	return HDRV(st)->text(st, i);
}
static inline size_t hq_bytes(hstmt *st, int i)
{
	return HDRV(st)->bytes(st, i);
}
static inline int64_t hq_col_int(hstmt *st, int i)
{
	return HDRV(st)->int64(st, i);
}
static inline bool hq_null(hstmt *st, int i)
{
	return HDRV(st)->is_null(st, i);
}
static inline void hq_reset(hstmt *st)
{
	HDRV(st)->reset(st);
}

static inline void hstmt_finalizep(hstmt **st)
{
	if (*st)
		HDRV(*st)->finalize(*st);
}
#define cleanup_hstmt __attribute__((cleanup(hstmt_finalizep)))

/* The engine's text: SQLite's or PostgreSQL's spelling of one query. */
#define HQ_SQL(h, sqlite_text, pg_text)                                                            \
	((h)->drv->engine == HISTORY_POSTGRES ? (pg_text) : (sqlite_text))

#endif
