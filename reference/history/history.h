/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history.h - the history every part of isotier shares: verify
 * observations, source checks, audit events. Two engines behind one storage
 * interface (history_driver.h): SQLite, a local file (the default), and
 * PostgreSQL, one database for a fleet (a postgresql:// URI). The schema
 * lives in one place (history_schema.c) and migrates forward by version, the
 * same versions for both; add a migration, never edit a released one. Every
 * SQL statement of isotier is in the history module (history*.c): callers
 * see typed rows and callbacks, never a connection.
 */
#ifndef ISOTIER_HISTORY_H
#define ISOTIER_HISTORY_H

#include "../../base/base.h"

/* The host's history: the one the runbook's scheduled job writes
 * (runbook/jobs/isotier-reverify.sh) and every command and create() reads
 * when none is named. $ISOTIER_DB overrides it (isotier__default_db_path). */
#define ISOTIER_DEFAULT_DB "/var/lib/isotier/isotier.db"

typedef struct isotier_history isotier_history;

/* A postgresql:// or postgres:// URI (libpq's), rather than a file path. */
bool isotier__history_is_uri(const char *target);
/* Refuses (ISOTIER_EINVAL, the value never in the message) a target that is
 * neither a file path nor a postgresql:// URI but looks like a connection
 * string: libpq's key=value form ("host=db password=..."), or a URI of
 * another scheme ("mysql://..."). Taken as a file name it would become an
 * SQLite file named after the credential. Every open and the gate check it
 * first. */
int isotier__history_target_check(const char *target, isotier_error *err);
/* target as it may be shown: a URI's password (user:PASSWORD@, password=)
 * replaced by [redacted]; a path as is. */
void isotier__history_display(const char *target, char *buf, size_t len);

/* Whether path may be opened as a history: absent (0: the caller decides), or
 * a regular file that is empty or starts with SQLite's 16-byte header. A FIFO,
 * device or directory is refused without being opened for reading (it could
 * block), ISOTIER_EINVAL; a file that is not a database, ISOTIER_EDATA (it is
 * never turned into one); a path that cannot be looked up, ISOTIER_EIO with
 * sys_errno (ENAMETOOLONG...). Both opens below check it first. */
int isotier__history_check_file(const char *path, isotier_error *err);
/* Opens (creating if needed) and migrates the history at path (a file, or
 * a postgresql:// URI: the database must exist). SQLite: WAL mode, foreign
 * keys on, busy timeout busy_ms (0: 5000); PostgreSQL: lock_timeout. */
int isotier__history_open(isotier_history **out, const char *path, int busy_ms, isotier_error *err);
/* Opens read-only without creating or migrating; fails if the schema is newer
 * than this build knows. */
int isotier__history_open_readonly(isotier_history **out, const char *path, isotier_error *err);
void isotier__history_close(isotier_history *h);
int isotier__history_schema_version(isotier_history *h);
/* "sqlite" or "postgresql". */
const char *isotier__history_engine(const isotier_history *h);
/* What the history was opened from, as it may be shown (isotier__history_display). */
const char *isotier__history_target(const isotier_history *h);

/* The db_code (isotier_error) of a file that is not a database and of a
 * database that could not be opened (SQLite's numbering, both engines). */
#define ISOTIER_DB_IOERR    10 /* an I/O error: a failed sync among them */
#define ISOTIER_DB_CANTOPEN 14
#define ISOTIER_DB_NOTADB   26

#define ISOTIER_UUID_LEN 36
/* A random (version 4) UUID, lowercase; ISOTIER_EIO without randomness. */
int isotier__history_uuid(char out[ISOTIER_UUID_LEN + 1]);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK with errors reported through err. */
int isotier__history_begin(isotier_history *h, isotier_error *err);
int isotier__history_commit(isotier_history *h, isotier_error *err);
void isotier__history_rollback(isotier_history *h);

/* Starts a run row (command: "verify", "sources check"...); *run_id set. */
int isotier__history_run_begin(isotier_history *h, int64_t *run_id, const char *command,
                               const char *catalogue_commit, isotier_error *err);
/* Marks a run finished with a status word ("ok", "failed", "interrupted"). */
int isotier__history_run_end(isotier_history *h, int64_t run_id, const char *status,
                             isotier_error *err);
/* history_stale.c: marks this host's runs left 'running' by a process that is
 * gone (its pid and start time, lease.h) as 'interrupted', with a
 * 'run_interrupted' audit event each; *n of them, the first max ids in ids. */
int isotier__history_mark_stale(isotier_history *h, int64_t *ids, size_t max, size_t *n,
                                isotier_error *err);
/* A 'leftover_swept' audit event (sweep.h): what a dead run left, now removed. */
int isotier__history_note_swept(isotier_history *h, const char *backend, const char *reason,
                                isotier_error *err);

/* history_prune.c: a retention policy. Rows older than older_than_days
 * (0: no age bound) that are not among the newest keep_last of their backend
 * and host (0: no count bound) go, with the evidence only they held, the
 * source checks past the same bounds and the finished runs left empty;
 * never what the gate, the renewal of a catalogue source or the report's
 * latest rows read (history_prune.c says which), never a row dated after now
 * or not readably dated, never an audit event. At least one bound. */
typedef struct isotier_prune_policy {
	int older_than_days, keep_last;
	bool dry_run; /* count, change nothing */
	time_t now;   /* 0: the clock */
} isotier_prune_policy;
typedef struct isotier_prune_counts {
	int64_t observations, evidence_blobs, source_checks, runs;
	int64_t kept_observations; /* what stays */
	bool committed;            /* the removal was committed (an error after it: the sync) */
} isotier_prune_counts;
/* One transaction: all of it or none; with dry_run rolled back. A pruning
 * leaves a 'history_pruned' audit event with its counts and policy. */
int isotier__history_prune(isotier_history *h, const isotier_prune_policy *p,
                           isotier_prune_counts *n, isotier_error *err);
/* SQLite: VACUUM (the file shrinks to what is left); ISOTIER_EINVAL for
 * PostgreSQL (its autovacuum reclaims). */
int isotier__history_vacuum(isotier_history *h, isotier_error *err);

/* One `sources check` row (verify/cmd/cmd_sources.c). NULL strings are stored as
 * NULL; http_status <= 0 is none. The caller holds the transaction. */
typedef struct isotier_source_check_row {
	int64_t run_id;
	const char *checked_at, *provider_id, *url, *quote;
	const char *status; /* PRESENT, CHANGED, GONE, UNREACHABLE */
	int http_status;
	const char *content_sha256; /* hex; "" or NULL: none */
	const char *detail;
	/* The catalogue source's own fields when it was checked. */
	const char *retrieved, *published, *publisher;
	/* Against the kept baseline: none, quote_gone, passage_changed,
	 * page_changed; NULL: no baseline to compare with. */
	const char *change;
	const char *passage_diff; /* word-level diff around the quote, bounded */
} isotier_source_check_row;
int isotier__history_add_source_check(isotier_history *h, const isotier_source_check_row *row,
                                      isotier_error *err);
/* history_renewal.c: the newest day (YYYY-MM-DD into out) from retrieved to
 * today on which this host's own `sources check` found provider_id's quote on
 * url with its passage unchanged against the baseline, provided no check in
 * that span found it CHANGED, GONE or its passage moved: 1 when there is one,
 * 0 when not (out ""), <0 on a database error. */
int isotier__history_source_renewed(isotier_history *h, const char *provider_id, const char *url,
                                    const char *quote, const char *retrieved, const char *today,
                                    char *out, size_t len, isotier_error *err);

/* $ISOTIER_DB when set and not empty, else ISOTIER_DEFAULT_DB. An explicit
 * path (--db, db_path) always wins over both. */
const char *isotier__default_db_path(void);
/* What named the default history: "$ISOTIER_DB" when it is set and not
 * empty, NULL for the built-in ISOTIER_DEFAULT_DB. */
const char *isotier__default_db_named_by(void);
/* Whether the history at target is there to be read (the gate's first
 * question). 1: a file (or a URI: the server answers when it is opened). 0:
 * it does not exist (ENOENT, nothing else) and named_by is NULL (the
 * host's built-in default: no history yet). Otherwise an error naming the
 * path and the errno: one that named_by ("db_path", "--db", "$ISOTIER_DB")
 * names but is not there, ISOTIER_ENOTFOUND (sys_errno ENOENT); a path that
 * cannot be looked up (EACCES, EIO, ELOOP...), ISOTIER_EIO with that errno;
 * a directory, ISOTIER_EIO/EISDIR; a FIFO, device or socket, ISOTIER_EIO/
 * ENODEV. Never "no history" for anything but ENOENT. */
int isotier__history_present(const char *target, const char *named_by, isotier_error *err);
/* This host's machine id (/etc/machine-id, else /var/lib/dbus/machine-id:
 * 32 hex digits) into buf (>= 33 bytes); "" when neither has one. Every
 * observation records it; resolve counts only this host's rows. */
void isotier__host_id(char *buf, size_t len);

static inline void cleanup_historyp(isotier_history **h)
{
	isotier__history_close(*h);
}
#define cleanup_history __attribute__((cleanup(cleanup_historyp)))

#include "history_rows.h"

#endif
