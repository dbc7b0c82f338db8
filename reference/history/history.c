/* SPDX-License-Identifier: Apache-2.0 */
/* history.c - the history: open (SQLite or PostgreSQL, history_driver.h),
 * migrate, runs, source checks. */
#include "history_driver.h"
#include "../core/lease.h"
#include "../../base/redact.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <ctype.h>
#include <sqlite3.h> /* the db_code numbering (SQLITE_BUSY...) */
#include <sys/utsname.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "history_schema.h"

int isotier__history_schema_version(isotier_history *h)
{
	int version = -1;
	return h->drv->schema_version(h, &version, NULL) == 0 ? version : -1;
}

static int migrate(isotier_history *h, isotier_error *err)
{
	/* One transaction: a crash leaves the previous version intact. */
	int rc = isotier__history_begin(h, err);
	if (rc < 0)
		return isotier__error_prefix(err, "%s", h->display);
	int version = -1;
	if ((rc = h->drv->lock_migration(h, err)) < 0 ||
	    (rc = h->drv->schema_version(h, &version, err)) < 0) {
		isotier__history_rollback(h);
		return rc;
	}
	if (version < 0 || version > HISTORY_SCHEMA_VERSION) {
		isotier__history_rollback(h);
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: schema version %d is not one this isotier knows (max %d)", h->display,
		    version, HISTORY_SCHEMA_VERSION);
	}
	for (int v = version; v < HISTORY_SCHEMA_VERSION; v++) {
		if ((rc = h->drv->exec(h, isotier__history_migration(h->drv->engine, v), err,
		                       h->display)) < 0 ||
		    (rc = h->drv->set_schema_version(h, v + 1, err)) < 0) {
			isotier__history_rollback(h);
			return isotier__error_prefix(err, "migrate to schema %d", v + 1);
		}
	}
	return isotier__history_commit(h, err);
}

static int history_new(isotier_history **out, const char *target, bool readonly, int busy_ms,
                       isotier_error *err)
{
	int rc = isotier__history_target_check(target, err);
	if (rc < 0)
		return rc;
	isotier_history *h = calloc(1, sizeof *h);
	if (!h)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "open history: out of memory");
	h->drv = isotier__history_is_uri(target) ? &isotier__history_pg_driver
	                                         : &isotier__history_sqlite_driver;
	isotier__history_display(target, h->display, sizeof h->display);
	rc = h->drv->open(h, target, readonly, busy_ms, err);
	if (rc < 0) {
		isotier__history_close(h);
		return rc;
	}
	*out = h;
	return 0;
}

int isotier__history_open(isotier_history **out, const char *path, int busy_ms, isotier_error *err)
{
	isotier_history *h = NULL;
	int rc = history_new(&h, path, false, busy_ms, err);
	if (rc < 0)
		return rc;
	if ((rc = migrate(h, err)) < 0) {
		isotier__history_close(h);
		return rc;
	}
	*out = h;
	return 0;
}

static int history_open_readonly(isotier_history **out, const char *path, bool migrated,
                                 isotier_error *err)
{
	isotier_history *h = NULL;
	int rc = history_new(&h, path, true, 5000, err);
	if (rc < 0)
		return rc;
	int version = -1;
	if ((rc = h->drv->schema_version(h, &version, err)) < 0) {
		isotier__history_close(h);
		return rc;
	}
	if (version > HISTORY_SCHEMA_VERSION) {
		rc = isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: schema version %d is not one this isotier knows (max %d)", h->display,
		    version, HISTORY_SCHEMA_VERSION);
		isotier__history_close(h);
		return rc;
	}
	if (version < HISTORY_SCHEMA_VERSION) {
		/* An older history (this isotier was upgraded): migrate it once
		 * where we may write it, then read it as usual. */
		char display[sizeof h->display];
		snprintf(display, sizeof display, "%s", h->display);
		isotier__history_close(h);
		isotier_history *rw = NULL;
		isotier_error ignored = {0};
		if (!migrated && isotier__history_open(&rw, path, 5000, &ignored) == 0) {
			isotier__history_close(rw);
			return history_open_readonly(out, path, true, err);
		}
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: schema version %d is older than %d; open it once read-write to migrate",
		    display, version, HISTORY_SCHEMA_VERSION);
	}
	*out = h;
	return 0;
}

int isotier__history_open_readonly(isotier_history **out, const char *path, isotier_error *err)
{
	return history_open_readonly(out, path, false, err);
}

void isotier__history_close(isotier_history *h)
{
	if (!h)
		return;
	h->drv->close(h);
	free(h);
}

const char *isotier__history_engine(const isotier_history *h)
{
	return h->drv->name;
}

const char *isotier__history_target(const isotier_history *h)
{
	return h->display;
}

static int run_lost(isotier_history *h, isotier_error *err, const char *context)
{
	(void)h;
	return isotier__history_db_error(
	    err, SQLITE_IOERR, context,
	    "this run's transaction failed earlier (connection lost?): none of "
	    "its observations were stored");
}

int isotier__history_begin(isotier_history *h, isotier_error *err)
{
	if (h->run_lost)
		return run_lost(h, err, "begin transaction");
	if (h->run_tx)
		return h->drv->exec(h, "SAVEPOINT isotier_step", err, "begin step");
	return h->drv->exec(h, h->drv->begin_write_sql, err, "begin transaction");
}

int isotier__history_commit(isotier_history *h, isotier_error *err)
{
	if (h->run_lost)
		return run_lost(h, err, "commit");
	if (h->run_tx)
		return h->drv->exec(h, "RELEASE SAVEPOINT isotier_step", err, "commit step");
	return h->drv->exec(h, "COMMIT", err, "commit");
}

void isotier__history_rollback(isotier_history *h)
{
	if (h->run_tx)
		h->drv->exec(h,
		             "ROLLBACK TO SAVEPOINT isotier_step; RELEASE SAVEPOINT isotier_step",
		             NULL, "rollback step");
	else if (!h->run_lost)
		h->drv->exec(h, "ROLLBACK", NULL, "rollback");
}

int isotier__history_uuid(char out[ISOTIER_UUID_LEN + 1])
{
	unsigned char b[16];
	if (isotier__random_bytes(b, sizeof b) < 0)
		return ISOTIER_EIO;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	snprintf(out, ISOTIER_UUID_LEN + 1,
	         "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
	         b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
	         b[15]);
	return 0;
}

int isotier__history_run_begin(isotier_history *h, int64_t *run_id, const char *command,
                               const char *catalogue_commit, isotier_error *err)
{
	cleanup_hstmt hstmt *st = NULL;
	char now[32], uuid[ISOTIER_UUID_LEN + 1], host_id[40];
	isotier__utc_now(now, sizeof now);
	if (isotier__history_uuid(uuid) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno,
		                          "record run: no random bytes for its id");
	isotier__host_id(host_id, sizeof host_id);
	/* PostgreSQL: the run's transaction starts here (struct isotier_history). */
	bool whole_run = h->drv->engine == HISTORY_POSTGRES && !h->run_tx && !h->run_lost;
	int rc;
	if (whole_run && (rc = h->drv->exec(h, "BEGIN", err, "record run")) < 0)
		return rc;
	h->run_tx = whole_run;
	rc = isotier__hq_prepare(
	    h, &st,
	    "INSERT INTO runs(started_at, tool_version, catalogue_commit, command, host,"
	    " owner_pid, owner_start, uuid, host_id, kernel)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id",
	    err, "record run");
	if (rc < 0) {
		if (h->run_tx)
			h->drv->exec(h, "ROLLBACK", NULL, "rollback");
		h->run_tx = false;
		return rc;
	}
	hq_text(st, 1, now);
	hq_text(st, 2, ISOTIER_VERSION);
	hq_text(st, 3, catalogue_commit);
	hq_text(st, 4, command);
	struct utsname u;
	bool named = uname(&u) == 0;
	hq_text(st, 5, named && u.nodename[0] ? u.nodename : NULL);
	hq_int(st, 6, getpid());
	hq_int(st, 7, (int64_t)isotier__pid_start(getpid()));
	hq_text(st, 8, uuid);
	hq_text(st, 9, host_id[0] ? host_id : NULL);
	hq_text(st, 10, named && u.release[0] ? u.release : NULL);
	if ((rc = hq_step(st, err)) <= 0) {
		if (h->run_tx)
			h->drv->exec(h, "ROLLBACK", NULL, "rollback");
		h->run_tx = false;
		return rc < 0
		           ? isotier__error_prefix(err, "record run")
		           : isotier__error_set(err, ISOTIER_EDB, 0, "record run: no id returned");
	}
	*run_id = hq_col_int(st, 0);
	while ((rc = hq_step(st, err)) > 0)
		;
	if (rc < 0 && h->run_tx) {
		h->drv->exec(h, "ROLLBACK", NULL, "rollback");
		h->run_tx = false;
	}
	return rc < 0 ? isotier__error_prefix(err, "record run") : 0;
}

int isotier__history_run_end(isotier_history *h, int64_t run_id, const char *status,
                             isotier_error *err)
{
	cleanup_hstmt hstmt *st = NULL;
	char now[32];
	isotier__utc_now(now, sizeof now);
	if (h->run_lost)
		return run_lost(h, err, "finish run");
	int rc = isotier__hq_prepare(
	    h, &st, "UPDATE runs SET finished_at = ?1, status = ?2 WHERE id = ?3 RETURNING id", err,
	    "finish run");
	if (rc < 0)
		return rc;
	hq_text(st, 1, now);
	hq_text(st, 2, status);
	hq_int(st, 3, run_id);
	int found = hq_step(st, err);
	rc = 0;
	while (found > 0 && (rc = hq_step(st, err)) > 0)
		;
	if (found >= 0 && rc >= 0 && h->run_tx && found == 0)
		rc = isotier__error_set(err, ISOTIER_EDB, 0,
		                        "finish run: run %lld is not in the history",
		                        (long long)run_id);
	if (found < 0)
		rc = found;
	if (!h->run_tx) {
		/* SQLite: the run's one durability point. Every observation it
		 * committed survives a power loss from here on, even when the
		 * run row could not be updated (a lock). */
		int synced = h->drv->sync ? h->drv->sync(h, rc < 0 ? NULL : err) : 0;
		if (rc >= 0)
			rc = synced;
		return rc < 0 ? isotier__error_prefix(err, "finish run") : 0;
	}
	/* The run and every observation in it become visible together, or
	 * not at all. */
	h->run_tx = false;
	if (rc < 0 || (rc = h->drv->exec(h, "COMMIT", err, "commit run")) < 0) {
		h->drv->exec(h, "ROLLBACK", NULL, "rollback");
		h->run_lost = true;
		return isotier__error_prefix(err, "finish run");
	}
	return 0;
}

const char *isotier__default_db_path(void)
{
	const char *env = getenv("ISOTIER_DB");
	return env && *env ? env : ISOTIER_DEFAULT_DB;
}

int isotier__history_present(const char *target, const char *named_by, isotier_error *err)
{
	if (isotier__history_target_check(target, err) < 0)
		return ISOTIER_EINVAL;
	if (isotier__history_is_uri(target))
		return 1; /* the server says, when it is opened */
	struct stat st;
	if (stat(target, &st) != 0) {
		int e = errno;
		/* Absent is ENOENT and nothing else: a directory this user may
		 * not search (EACCES) hides a history, it does not empty it. */
		if (e == ENOENT && !named_by)
			return 0;
		if (e == ENOENT || e == ENOTDIR)
			return isotier__error_set(
			    err, ISOTIER_ENOTFOUND, e,
			    "history %s, named by %s, does not exist: a wrong path, never an empty "
			    "history (%s)",
			    target, named_by ? named_by : "default", strerrorname_np(e));
		return isotier__error_set(err, ISOTIER_EIO, e, "history %s (%s)", target,
		                          strerrorname_np(e) ? strerrorname_np(e) : "?");
	}
	if (S_ISDIR(st.st_mode))
		return isotier__error_set(err, ISOTIER_EIO, EISDIR,
		                          "history %s: a directory, not a database file (EISDIR)",
		                          target);
	if (!S_ISREG(st.st_mode)) {
		isotier__error_set(err, ISOTIER_EIO, 0, "history %s: %s, not a database file",
		                   target, isotier__file_kind(st.st_mode));
		if (err)
			err->sys_errno = ENODEV; /* the class, not a message */
		return ISOTIER_EIO;
	}
	return 1;
}

const char *isotier__default_db_named_by(void)
{
	const char *env = getenv("ISOTIER_DB");
	return env && *env ? "$ISOTIER_DB" : NULL;
}

/* 32 lowercase hex digits (machine-id(5)), from the first file that has
 * them; anything else is no id at all. */
static bool read_machine_id(char *buf, size_t len, const char *path)
{
	char line[64];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	ssize_t n =
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, line, sizeof line - 1) : -1;
	close(fd);
	if (n < 32)
		return false;
	for (int i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)line[i]) || isupper((unsigned char)line[i]))
			return false;
	if (n > 32 && line[32] != '\n')
		return false;
	snprintf(buf, len, "%.32s", line);
	return strlen(buf) == 32;
}

void isotier__host_id(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (len < 33)
		return;
	if (!read_machine_id(buf, len, "/etc/machine-id") &&
	    !read_machine_id(buf, len, "/var/lib/dbus/machine-id"))
		buf[0] = '\0';
}

int isotier__history_add_source_check(isotier_history *h, const isotier_source_check_row *row,
                                      isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote,"
	    " status, http_status, content_sha256, detail, retrieved, published,"
	    " publisher, change, passage_diff)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	    err, "prepare source check insert");
	if (rc < 0)
		return rc;
	hq_int(s, 1, row->run_id);
	hq_text(s, 2, row->checked_at);
	hq_text(s, 3, row->provider_id);
	hq_text(s, 4, row->url);
	hq_text(s, 5, row->quote);
	hq_text(s, 6, row->status);
	if (row->http_status > 0)
		hq_int(s, 7, row->http_status);
	hq_text(s, 8, row->content_sha256 && row->content_sha256[0] ? row->content_sha256 : NULL);
	hq_text(s, 9, row->detail);
	hq_text(s, 10, row->retrieved);
	hq_text(s, 11, row->published);
	hq_text(s, 12, row->publisher);
	hq_text(s, 13, row->change);
	hq_text(s, 14, row->passage_diff);
	return (rc = hq_step(s, err)) < 0 ? isotier__error_prefix(err, "store source check") : 0;
}
