/* history.c - the SQLite history: open, migrate, runs. */
#include "history.h"
#include "lease.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <ctype.h>
#include <sys/utsname.h>
#include <sys/stat.h>

struct isotier_history {
	sqlite3 *db;
};

/*
 * Migrations, in order; migrations[i] brings the schema from version i to
 * i+1. Released entries are never edited. Times are ISO-8601 UTC text.
 */
static const char *const migrations[] = {
	/* 0 -> 1 */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  started_at TEXT NOT NULL,"
	"  finished_at TEXT,"
	"  tool_version TEXT NOT NULL,"
	"  catalogue_commit TEXT,"
	"  command TEXT NOT NULL,"
	"  status TEXT NOT NULL DEFAULT 'running');"
	"CREATE TABLE observations ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  observed_at TEXT NOT NULL,"
	"  backend TEXT NOT NULL,"
	"  provider_id TEXT,"
	"  claimed_tier TEXT,"
	"  claimed_mechanism TEXT,"
	"  observed_tier TEXT NOT NULL,"
	"  observed_vendor TEXT,"
	"  confidence TEXT,"
	"  layers_json TEXT,"
	"  verdict TEXT NOT NULL,"
	"  reason TEXT,"
	"  probe_json TEXT,"
	"  evidence BLOB,"
	"  evidence_format TEXT,"
	"  duration_ms INTEGER);"
	"CREATE INDEX observations_by_backend ON observations(backend, observed_at);"
	"CREATE TABLE source_checks ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  checked_at TEXT NOT NULL,"
	"  provider_id TEXT NOT NULL,"
	"  url TEXT NOT NULL,"
	"  quote TEXT NOT NULL,"
	"  status TEXT NOT NULL,"
	"  http_status INTEGER,"
	"  content_sha256 TEXT,"
	"  detail TEXT);"
	"CREATE INDEX source_checks_by_url ON source_checks(url, checked_at);"
	"CREATE TABLE audit_events ("
	"  id INTEGER PRIMARY KEY,"
	"  at TEXT NOT NULL,"
	"  event TEXT NOT NULL,"
	"  sandbox_id TEXT,"
	"  backend TEXT,"
	"  claimed_tier TEXT,"
	"  resolved_tier TEXT,"
	"  required_tier TEXT,"
	"  decision TEXT,"
	"  reason TEXT,"
	"  detail_json TEXT);"
	"CREATE INDEX audit_events_by_time ON audit_events(at);",
	/* 1 -> 2: what an observation proves about the sandbox's own boundary.
	 * kernel_relation: how its kernel relates to the host's (kernel_id.h);
	 * ceiling_tier: the most it lets anyone defend (NULL: nothing
	 * trustworthy was shown; NONE: no boundary of its own). Rows older than
	 * this have NULL in both and prove nothing. */
	"ALTER TABLE observations ADD COLUMN kernel_relation TEXT; "
	"ALTER TABLE observations ADD COLUMN ceiling_tier TEXT;"
	"", /* (three literals: clang's -Wstring-concatenation reads two as a missing comma) */
	/* 2 -> 3: provenance: the host a run ran on (its node name), so a
	 * report can say where each observation was made. NULL: older runs. */
	"ALTER TABLE runs ADD COLUMN host TEXT;",
	/* 3 -> 4: the history gate (resolve.c). host_id: the machine id of the
	 * host that made the observation (/etc/machine-id; NULL: unknown, or a
	 * row older than this); claim_digest: the claim it judged, canonical
	 * (isotier_claim_digest; NULL: no claim, or an older row). A row without
	 * both proves nothing to resolve; the listings still show it. Rows are
	 * ordered by id (insertion), never by their timestamp. */
	"ALTER TABLE observations ADD COLUMN host_id TEXT; "
	"ALTER TABLE observations ADD COLUMN claim_digest TEXT; "
	"CREATE INDEX observations_by_backend_id ON observations(backend, id);",
	/* 4 -> 5: the process that owns a run (its pid and start time, lease.h),
	 * so a later run can tell a run still in progress from one whose process
	 * died without ending it (history_stale.c). NULL: older rows. */
	("ALTER TABLE runs ADD COLUMN owner_pid INTEGER; "
	 "ALTER TABLE runs ADD COLUMN owner_start INTEGER;"), /* (): one statement list, not a missing comma */
	/* 5 -> 6: what a source check read, beside what it found: the source's
	 * own retrieved/published/publisher (as the catalogue had them when
	 * checked), how the page moved against the kept baseline (change: none,
	 * quote_gone, passage_changed, page_changed; NULL: no baseline) and the
	 * word-level diff around the quote. NULL: older rows. */
	("ALTER TABLE source_checks ADD COLUMN retrieved TEXT; "
	 "ALTER TABLE source_checks ADD COLUMN published TEXT; "
	 "ALTER TABLE source_checks ADD COLUMN publisher TEXT; "
	 "ALTER TABLE source_checks ADD COLUMN change TEXT; "
	 "ALTER TABLE source_checks ADD COLUMN passage_diff TEXT;"),
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

/* ISOTIER_EBUSY for a lock (SQLITE_BUSY, SQLITE_LOCKED and their extended
 * codes), ISOTIER_EDB otherwise; SQLite's code travels in err->db_code. */
static int db_error(isotier_error *err, int sqlite_code, const char *context, const char *msg)
{
	int primary = sqlite_code & 0xff;
	int code = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? ISOTIER_EBUSY : ISOTIER_EDB;
	isotier_error_set(err, code, 0, "%s: %s", context, msg ? msg : "?");
	if (err)
		err->db_code = sqlite_code ? sqlite_code : SQLITE_ERROR;
	return code;
}

int isotier_history_sql_error(isotier_history *h, isotier_error *err, const char *context)
{
	if (!h || !h->db)
		return db_error(err, SQLITE_CANTOPEN, context, "no database");
	return db_error(err, sqlite3_extended_errcode(h->db), context, sqlite3_errmsg(h->db));
}

static int exec_sql(isotier_history *h, const char *sql, isotier_error *err, const char *context)
{
	char *msg = NULL;
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		rc = db_error(err, sqlite3_extended_errcode(h->db), context, msg);
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

/* PRAGMA user_version, or <0 with the connection's own error in err: a
 * corrupt file or an unopenable WAL says so instead of "schema -1". */
static int read_schema_version(isotier_history *h, int *version, const char *path,
			       isotier_error *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc = sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*version = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : isotier_history_sql_error(h, err, path);
}

int isotier_history_schema_version(isotier_history *h)
{
	int version = -1;
	return read_schema_version(h, &version, "", NULL) == 0 ? version : -1;
}

static int migrate(isotier_history *h, const char *path, isotier_error *err)
{
	/* One transaction per step: a crash leaves the previous version intact. */
	int rc = isotier_history_begin(h, err);
	if (rc < 0)
		return isotier_error_prefix(err, "%s", path);
	int version = -1;
	if ((rc = read_schema_version(h, &version, path, err)) < 0) {
		isotier_history_rollback(h);
		return rc;
	}
	if (version < 0 || version > SCHEMA_VERSION) {
		isotier_history_rollback(h);
		return isotier_error_set(err, ISOTIER_EDATA, 0,
					 "%s: schema version %d is not one this isotier knows (max %d)",
					 path, version, SCHEMA_VERSION);
	}
	for (int v = version; v < SCHEMA_VERSION; v++) {
		char pragma[64];
		snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
		if ((rc = exec_sql(h, migrations[v], err, path)) < 0 ||
		    (rc = exec_sql(h, pragma, err, path)) < 0) {
			isotier_history_rollback(h);
			return isotier_error_prefix(err, "migrate to schema %d", v + 1);
		}
	}
	return isotier_history_commit(h, err);
}

int isotier_history_check_file(const char *path, isotier_error *err)
{
	static const char magic[16] = "SQLite format 3"; /* and its NUL */
	struct stat st;
	if (!*path || !strcmp(path, ":memory:"))
		return 0;
	if (stat(path, &st) != 0)
		return errno == ENOENT ? 0 : isotier_error_set(err, ISOTIER_EIO, errno, "history %s", path);
	if (!S_ISREG(st.st_mode))
		return isotier_error_set(err, ISOTIER_EINVAL, 0, "history %s: %s, not a database file",
					 path, isotier_file_kind(st.st_mode));
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
		return isotier_error_set(err, ISOTIER_EIO, errno ? errno : EIO, "history %s", path);
	if (n != (ssize_t)sizeof head || memcmp(head, magic, sizeof magic))
		return isotier_error_set(err, ISOTIER_EDATA, 0,
					 "history %s: not an SQLite database; not turning it into one",
					 path);
	return 0;
}

static int history_open(isotier_history **out, const char *path, int flags, int busy_ms,
			isotier_error *err)
{
	int rc;
	if (!(flags & SQLITE_OPEN_URI) && (rc = isotier_history_check_file(path, err)) < 0)
		return rc;
	isotier_history *h = calloc(1, sizeof *h);
	if (!h)
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "open history: out of memory");
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		rc = isotier_history_sql_error(h, err, path);
		isotier_history_close(h);
		return rc;
	}
	sqlite3_busy_timeout(h->db, busy_ms > 0 ? busy_ms : 5000);
	sqlite3_extended_result_codes(h->db, 1);
	*out = h;
	return 0;
}

int isotier_history_open(isotier_history **out, const char *path, int busy_ms, isotier_error *err)
{
	isotier_history *h = NULL;
	int rc = history_open(&h, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, busy_ms, err);
	if (rc < 0)
		return rc;
	if ((rc = exec_sql(h, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
			      "PRAGMA synchronous=NORMAL;", err, path)) < 0 ||
	    (rc = migrate(h, path, err)) < 0) {
		isotier_history_close(h);
		return rc;
	}
	*out = h;
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

static int history_open_readonly(isotier_history **out, const char *path, bool migrated,
				 isotier_error *err)
{
	if (access(path, R_OK) != 0)
		return isotier_error_set(err, ISOTIER_EDB, errno, "open history %s", path);
	isotier_history *h = NULL;
	int rc = history_open(&h, path, SQLITE_OPEN_READONLY, 5000, err);
	if (rc < 0)
		return rc;
	int version = -1;
	if (read_schema_version(h, &version, path, err) < 0) {
		/* A WAL database needs its -shm file; in a directory we cannot
		 * write (an archive, a read-only mount) open it as immutable: no
		 * one is writing it there. */
		int sqlite_rc = sqlite3_extended_errcode(h->db);
		isotier_history_close(h);
		h = NULL;
		char uri[8192];
		if (((sqlite_rc & 0xff) != SQLITE_CANTOPEN && (sqlite_rc & 0xff) != SQLITE_READONLY) ||
		    immutable_uri(uri, sizeof uri, path) < 0)
			return ISOTIER_EDB;
		if ((rc = history_open(&h, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, 5000, err)) < 0)
			return rc;
		if ((rc = read_schema_version(h, &version, path, err)) < 0) {
			isotier_history_close(h);
			return rc;
		}
	}
	if (version > SCHEMA_VERSION) {
		isotier_history_close(h);
		return isotier_error_set(err, ISOTIER_EDATA, 0,
					 "%s: schema version %d is not one this isotier knows (max %d)",
					 path, version, SCHEMA_VERSION);
	}
	if (version < SCHEMA_VERSION) {
		/* An older history (this isotier was upgraded): migrate it once
		 * where we may write it, then read it as usual. */
		isotier_history_close(h);
		isotier_history *rw = NULL;
		isotier_error ignored = {0};
		if (!migrated && isotier_history_open(&rw, path, 5000, &ignored) == 0) {
			isotier_history_close(rw);
			return history_open_readonly(out, path, true, err);
		}
		return isotier_error_set(err, ISOTIER_EDATA, 0,
					 "%s: schema version %d is older than %d; open it once read-write to migrate",
					 path, version, SCHEMA_VERSION);
	}
	*out = h;
	return 0;
}

int isotier_history_open_readonly(isotier_history **out, const char *path, isotier_error *err)
{
	return history_open_readonly(out, path, false, err);
}

void isotier_history_close(isotier_history *h)
{
	if (!h)
		return;
	sqlite3_close_v2(h->db);
	free(h);
}

sqlite3 *isotier_history_db(isotier_history *h)
{
	return h->db;
}

int isotier_history_begin(isotier_history *h, isotier_error *err)
{
	return exec_sql(h, "BEGIN IMMEDIATE", err, "begin transaction");
}

int isotier_history_commit(isotier_history *h, isotier_error *err)
{
	return exec_sql(h, "COMMIT", err, "commit");
}

void isotier_history_rollback(isotier_history *h)
{
	sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
}

int isotier_history_run_begin(isotier_history *h, int64_t *run_id, const char *command,
			      const char *catalogue_commit, isotier_error *err)
{
	cleanup_stmt sqlite3_stmt *stmt = NULL;
	char now[32];
	isotier_utc_now(now, sizeof now);
	if (sqlite3_prepare_v2(h->db,
			       "INSERT INTO runs(started_at, tool_version, catalogue_commit, command, host,"
			       " owner_pid, owner_start) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
			       -1, &stmt, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "record run");
	sqlite3_bind_text(stmt, 1, now, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, ISOTIER_VERSION, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, catalogue_commit, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 4, command, -1, SQLITE_TRANSIENT);
	struct utsname u;
	if (uname(&u) == 0 && u.nodename[0])
		sqlite3_bind_text(stmt, 5, u.nodename, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(stmt, 6, getpid());
	sqlite3_bind_int64(stmt, 7, (sqlite3_int64)isotier_pid_start(getpid()));
	if (sqlite3_step(stmt) != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "record run");
	*run_id = sqlite3_last_insert_rowid(h->db);
	return 0;
}

int isotier_history_run_end(isotier_history *h, int64_t run_id, const char *status, isotier_error *err)
{
	cleanup_stmt sqlite3_stmt *stmt = NULL;
	char now[32];
	isotier_utc_now(now, sizeof now);
	if (sqlite3_prepare_v2(h->db, "UPDATE runs SET finished_at = ?1, status = ?2 WHERE id = ?3", -1,
			       &stmt, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "finish run");
	sqlite3_bind_text(stmt, 1, now, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(stmt, 3, run_id);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "finish run");
	return 0;
}

const char *isotier_default_db_path(void)
{
	const char *env = getenv("ISOTIER_DB");
	return env && *env ? env : ISOTIER_DEFAULT_DB;
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
	ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, line, sizeof line - 1) : -1;
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

void isotier_host_id(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	if (len < 33)
		return;
	if (!read_machine_id(buf, len, "/etc/machine-id") &&
	    !read_machine_id(buf, len, "/var/lib/dbus/machine-id"))
		buf[0] = '\0';
}

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

int isotier_history_add_source_check(isotier_history *h, const isotier_source_check_row *row,
				     isotier_error *err)
{
	sqlite3_stmt *s cleanup_stmt = NULL;
	if (sqlite3_prepare_v2(h->db,
			       "INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote,"
			       " status, http_status, content_sha256, detail, retrieved, published,"
			       " publisher, change, passage_diff)"
			       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
			       -1, &s, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "prepare source check insert");
	sqlite3_bind_int64(s, 1, row->run_id);
	bind_text_or_null(s, 2, row->checked_at);
	bind_text_or_null(s, 3, row->provider_id);
	bind_text_or_null(s, 4, row->url);
	bind_text_or_null(s, 5, row->quote);
	bind_text_or_null(s, 6, row->status);
	if (row->http_status > 0)
		sqlite3_bind_int64(s, 7, row->http_status);
	if (row->content_sha256 && row->content_sha256[0])
		sqlite3_bind_text(s, 8, row->content_sha256, -1, SQLITE_STATIC);
	bind_text_or_null(s, 9, row->detail);
	bind_text_or_null(s, 10, row->retrieved);
	bind_text_or_null(s, 11, row->published);
	bind_text_or_null(s, 12, row->publisher);
	bind_text_or_null(s, 13, row->change);
	bind_text_or_null(s, 14, row->passage_diff);
	if (sqlite3_step(s) != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "store source check");
	return 0;
}
