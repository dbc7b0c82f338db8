/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_pg.c - the history's PostgreSQL engine (history_driver.h), through
 * libpq: one database for a fleet. The password comes from the URI, the
 * environment (PGPASSWORD) or ~/.pgpass, as libpq reads them; the URI is
 * only ever shown with its password redacted (h->display), and the password
 * itself is registered for redaction (base/redact.c) so no error carries it.
 *
 * Rows stream (libpq's single-row mode): a listing holds one row at a time.
 * A lost connection is an error of its own (ISOTIER_EDB, db_code
 * SQLITE_IOERR: exit 74), never a silent end of the rows.
 */
#include "history_driver.h"

#include "../../base/redact.h"

#include <libpq-fe.h>
#include <sqlite3.h> /* the db_code numbering the CLI maps (SQLITE_IOERR...) */
#include <stdio.h>
#include <string.h>

#define PG_PARAMS_MAX        64
#define PG_STATEMENT_TIMEOUT "300s"
#define OID_TEXT             25
#define OID_INT8             20
#define OID_BYTEA            17

typedef struct pg_stmt {
	struct hstmt_head head;
	isotier_history *h;
	char *sql;
	int nparams;
	bool used[PG_PARAMS_MAX + 1];
	char *values[PG_PARAMS_MAX];
	int lengths[PG_PARAMS_MAX], formats[PG_PARAMS_MAX];
	Oid types[PG_PARAMS_MAX];
	PGresult *row;
	int state; /* 0 not sent, 1 streaming, 2 done */
	unsigned char *blob;
	/* A parameter could not be copied (out of memory): the statement is
	 * never sent. A NULL in its place would mean something else (to the
	 * gate, "?8 IS NULL": every host's rows). */
	bool bind_failed;
} pg_stmt;

#define P(st) ((pg_stmt *)(st))

/* SQLSTATE classes that mean "try again": serialization failure, deadlock,
 * lock not available. */
static bool busy_state(const char *sqlstate)
{
	return sqlstate && (!strcmp(sqlstate, "40001") || !strcmp(sqlstate, "40P01") ||
	                    !strcmp(sqlstate, "55P03") || !strcmp(sqlstate, "57014"));
}

static int pg_error(isotier_history *h, const PGresult *res, isotier_error *err,
                    const char *context)
{
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	/* No SQLSTATE: libpq's own failure (the server closed the connection,
	 * a send failed), or the server said it is shutting down (57P01..3). */
	if (!h->pg || PQstatus(h->pg) == CONNECTION_BAD || !state || !strncmp(state, "57P0", 4) ||
	    !strncmp(state, "08", 2)) {
		h->run_lost = h->run_lost || h->run_tx;
		h->run_tx = false;
		return isotier__history_db_error(
		    err, SQLITE_IOERR, context,
		    "lost the connection to the PostgreSQL history (server stopped or "
		    "unreachable); nothing of the run in progress was stored");
	}
	char buf[512];
	snprintf(buf, sizeof buf, "%s%s%s%s", msg ? msg : PQerrorMessage(h->pg),
	         state ? " (SQLSTATE " : "", state ? state : "", state ? ")" : "");
	size_t n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* 42501: insufficient privilege; 28xxx: authentication. */
	return isotier__history_db_error(err,
	                                 busy_state(state)                  ? SQLITE_BUSY
	                                 : state && !strcmp(state, "42501") ? SQLITE_PERM
	                                                                    : SQLITE_ERROR,
	                                 context, buf);
}

static int p_exec(isotier_history *h, const char *sql, isotier_error *err, const char *context)
{
	PGresult *res = PQexec(h->pg, sql);
	ExecStatusType s = PQresultStatus(res);
	int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? 0 : pg_error(h, res, err, context);
	/* COMMIT of a transaction that failed (a statement in it was refused)
	 * succeeds as a command, and rolls back: "ROLLBACK". Nothing of it was
	 * stored. */
	if (rc == 0 && !strcmp(sql, "COMMIT") && strcmp(PQcmdStatus(res), "COMMIT"))
		rc = isotier__history_db_error(
		    err, SQLITE_ERROR, context,
		    "the transaction was rolled back (a statement in it failed): "
		    "nothing of it was stored");
	PQclear(res);
	return rc;
}

/* ?N -> $N outside quotes; records the highest N and which are used. */
static char *rewrite(const char *sql, pg_stmt *st)
{
	size_t n = strlen(sql);
	char *out = malloc(n + 1);
	if (!out)
		return NULL;
	char quote = 0;
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = sql[i];
		if (quote) {
			if (c == quote)
				quote = 0;
		} else if (c == '\'' || c == '"') {
			quote = c;
		} else if (c == '?' && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
			int k = 0;
			size_t j = i + 1;
			while (j < n && sql[j] >= '0' && sql[j] <= '9' && k <= PG_PARAMS_MAX)
				k = k * 10 + (sql[j++] - '0');
			if (k < 1 || k > PG_PARAMS_MAX) {
				free(out);
				return NULL;
			}
			st->used[k] = true;
			if (k > st->nparams)
				st->nparams = k;
			c = '$';
		}
		out[o++] = c;
	}
	out[o] = '\0';
	return out;
}

static int p_prepare(isotier_history *h, hstmt **out, const char *sql, isotier_error *err,
                     const char *context)
{
	pg_stmt *st = calloc(1, sizeof *st);
	if (!st || !(st->sql = rewrite(sql, st))) {
		free(st);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", context);
	}
	st->head.drv = &isotier__history_pg_driver;
	st->h = h;
	/* A parameter the text never names still needs a type, or the server
	 * cannot tell what it is. */
	for (int i = 1; i <= st->nparams; i++)
		if (!st->used[i])
			st->types[i - 1] = OID_TEXT;
	*out = (hstmt *)st;
	return 0;
}

/* v NULL with failed: the copy could not be made (bind_failed). */
static void set_param(pg_stmt *st, int i, char *v, int len, int format, Oid type, bool failed)
{
	if (i < 1 || i > st->nparams || i > PG_PARAMS_MAX) {
		free(v);
		return;
	}
	st->bind_failed = st->bind_failed || failed;
	free(st->values[i - 1]);
	st->values[i - 1] = v;
	st->lengths[i - 1] = len;
	st->formats[i - 1] = format;
	if (st->used[i])
		st->types[i - 1] = type;
}

static void p_bind_text(hstmt *s, int i, const char *v)
{
	/* A NULL text is still text: "?1 IS NULL OR col = ?1" needs a type. */
	char *copy = v ? strdup(v) : NULL;
	set_param(P(s), i, copy, 0, 0, OID_TEXT, v && !copy);
}

static void p_bind_int64(hstmt *s, int i, int64_t v)
{
	char *copy = NULL;
	if (asprintf(&copy, "%lld", (long long)v) < 0)
		copy = NULL;
	set_param(P(s), i, copy, 0, 0, OID_INT8, !copy);
}

static void p_bind_blob(hstmt *s, int i, const void *v, size_t len)
{
	char *copy = v && len <= INT32_MAX ? malloc(len ? len : 1) : NULL;
	if (copy)
		memcpy(copy, v, len);
	set_param(P(s), i, copy, (int)len, 1, copy ? OID_BYTEA : 0, v && !copy);
}

static void drain(pg_stmt *st)
{
	PGresult *r;
	while (st->state == 1 && (r = PQgetResult(st->h->pg)) != NULL)
		PQclear(r);
	st->state = 2;
}

static int p_step(hstmt *s, isotier_error *err)
{
	pg_stmt *st = P(s);
	PQclear(st->row);
	st->row = NULL;
	PQfreemem(st->blob);
	st->blob = NULL;
	if (st->state == 2)
		return 0;
	if (st->state == 0 && st->bind_failed) {
		st->state = 2;
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "query history: out of memory for a parameter");
	}
	if (st->state == 0) {
		if (!PQsendQueryParams(st->h->pg, st->sql, st->nparams, st->types,
		                       (const char *const *)st->values, st->lengths, st->formats,
		                       0)) {
			st->state = 2;
			return pg_error(st->h, NULL, err, "query history");
		}
		PQsetSingleRowMode(st->h->pg);
		st->state = 1;
	}
	PGresult *r = PQgetResult(st->h->pg);
	if (!r) {
		st->state = 2;
		return PQstatus(st->h->pg) == CONNECTION_BAD
		           ? pg_error(st->h, NULL, err, "query history")
		           : 0;
	}
	switch (PQresultStatus(r)) {
	case PGRES_SINGLE_TUPLE: st->row = r; return 1;
	case PGRES_TUPLES_OK:
	case PGRES_COMMAND_OK:
		PQclear(r);
		drain(st);
		return 0;
	default: {
		int rc = pg_error(st->h, r, err, "query history");
		PQclear(r);
		drain(st);
		return rc;
	}
	}
}

static const char *p_text(hstmt *s, int i)
{
	pg_stmt *st = P(s);
	if (!st->row || i >= PQnfields(st->row) || PQgetisnull(st->row, 0, i))
		return NULL;
	return PQgetvalue(st->row, 0, i);
}

static size_t p_bytes(hstmt *s, int i)
{
	pg_stmt *st = P(s);
	return st->row && i < PQnfields(st->row) ? (size_t)PQgetlength(st->row, 0, i) : 0;
}

static int64_t p_int64(hstmt *s, int i)
{
	const char *t = p_text(s, i);
	return t ? strtoll(t, NULL, 10) : 0;
}

static bool p_is_null(hstmt *s, int i)
{
	pg_stmt *st = P(s);
	return !st->row || i >= PQnfields(st->row) || PQgetisnull(st->row, 0, i);
}

static const void *p_blob(hstmt *s, int i, size_t *len)
{
	pg_stmt *st = P(s);
	*len = 0;
	const char *t = p_text(s, i);
	if (!t)
		return NULL;
	PQfreemem(st->blob);
	st->blob = PQunescapeBytea((const unsigned char *)t, len);
	return st->blob;
}

static void p_reset(hstmt *s)
{
	pg_stmt *st = P(s);
	PQclear(st->row);
	st->row = NULL;
	drain(st);
	st->state = 0;
}

static void p_finalize(hstmt *s)
{
	pg_stmt *st = P(s);
	PQclear(st->row);
	drain(st);
	for (int i = 0; i < PG_PARAMS_MAX; i++)
		free(st->values[i]);
	PQfreemem(st->blob);
	free(st->sql);
	free(st);
}

static int p_schema_version(isotier_history *h, int *version, isotier_error *err)
{
	PGresult *res = PQexec(h->pg, "SELECT CASE WHEN to_regclass('isotier_schema') IS NULL"
	                              " THEN 0 ELSE -1 END");
	int rc = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
	             ? 0
	             : pg_error(h, res, err, h->display);
	bool have = rc == 0 && atoi(PQgetvalue(res, 0, 0)) < 0;
	PQclear(res);
	if (rc < 0)
		return rc;
	*version = 0;
	if (!have)
		return 0;
	res = PQexec(h->pg, "SELECT max(version) FROM isotier_schema");
	rc = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
	         ? 0
	         : pg_error(h, res, err, h->display);
	if (rc == 0 && !PQgetisnull(res, 0, 0))
		*version = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return rc;
}

static int p_set_schema_version(isotier_history *h, int version, isotier_error *err)
{
	char sql[160];
	snprintf(sql, sizeof sql,
	         "CREATE TABLE IF NOT EXISTS isotier_schema (version INTEGER NOT NULL);"
	         " DELETE FROM isotier_schema; INSERT INTO isotier_schema VALUES (%d)",
	         version);
	return p_exec(h, sql, err, h->display);
}

static int p_lock_migration(isotier_history *h, isotier_error *err)
{
	/* One migrating process at a time (the key: "isotier" in ASCII); the
	 * others wait here, then find the schema current. */
	return p_exec(h, "SELECT pg_advisory_xact_lock(452759660915)", err, h->display);
}

static void quiet(void *arg, const char *message)
{
	(void)arg, (void)message; /* the server's notices are not the user's business */
}

/* The URI's password (user:PASSWORD@ or ?password=), registered for
 * redaction before anything can print it. */
static void register_password(const char *uri)
{
	PQconninfoOption *opts = PQconninfoParse(uri, NULL);
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val && *o->val)
			isotier__secret_add(o->val);
	PQconninfoFree(opts);
}

static int p_open(isotier_history *h, const char *uri, bool readonly, int busy_ms,
                  isotier_error *err)
{
	register_password(uri);
	char *parse_err = NULL;
	PQconninfoOption *opts = PQconninfoParse(uri, &parse_err);
	if (!opts) {
		int rc = isotier__error_set(err, ISOTIER_EINVAL, 0,
		                            "history %s: not a PostgreSQL URI libpq accepts",
		                            h->display);
		PQfreemem(parse_err);
		return rc;
	}
	PQconninfoFree(opts);
	/* Defaults the URI may override (it is expanded after them: the last
	 * value of a keyword wins): a connection that cannot be made in 10 s
	 * fails, and a peer that vanished is noticed by TCP keepalives (idle
	 * 30 s, then 3 probes 10 s apart) and unacknowledged data (60 s)
	 * rather than waited on for ever. */
	const char *timeout = getenv("PGCONNECT_TIMEOUT");
	static const char *const keys[] = {
	    "keepalives",       "keepalives_idle",  "keepalives_interval",
	    "keepalives_count", "tcp_user_timeout", "connect_timeout",
	    "dbname",           "application_name", NULL};
	const char *const vals[] = {"1", "30",      "10",
	                            "3", "60000",   timeout && *timeout ? timeout : "10",
	                            uri, "isotier", NULL};
	h->pg = PQconnectdbParams(keys, vals, 1);
	if (!h->pg || PQstatus(h->pg) != CONNECTION_OK) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s", h->pg ? PQerrorMessage(h->pg) : "out of memory");
		for (char *nl; (nl = strchr(msg, '\n'));)
			*nl = ' ';
		PQfinish(h->pg);
		h->pg = NULL;
		return isotier__history_db_error(err, SQLITE_CANTOPEN, h->display, msg);
	}
	PQsetNoticeProcessor(h->pg, quiet, NULL);
	/* A statement may not run for ever (a lock held, a server stuck): 5
	 * minutes unless the URI's options, PGOPTIONS or the role set a
	 * bound of their own. */
	PGresult *res = PQexec(h->pg, "SHOW statement_timeout");
	bool unbounded = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
	                 !strcmp(PQgetvalue(res, 0, 0), "0");
	int rc = PQresultStatus(res) == PGRES_TUPLES_OK ? 0 : pg_error(h, res, err, h->display);
	PQclear(res);
	if (rc < 0)
		return rc;
	if (unbounded && (rc = p_exec(h, "SET statement_timeout = '" PG_STATEMENT_TIMEOUT "'", err,
	                              h->display)) < 0)
		return rc;
	char set[200];
	snprintf(set, sizeof set, "SET lock_timeout = %d; SET client_min_messages = warning;%s",
	         busy_ms > 0 ? busy_ms : 5000,
	         readonly ? " SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY;" : "");
	return p_exec(h, set, err, h->display);
}

static void p_close(isotier_history *h)
{
	PQfinish(h->pg);
	h->pg = NULL;
}

const history_driver isotier__history_pg_driver = {
    .engine = HISTORY_POSTGRES,
    .name = "postgresql",
    .open = p_open,
    .close = p_close,
    .exec = p_exec,
    .prepare = p_prepare,
    .bind_text = p_bind_text,
    .bind_int64 = p_bind_int64,
    .bind_blob = p_bind_blob,
    .step = p_step,
    .text = p_text,
    .bytes = p_bytes,
    .int64 = p_int64,
    .is_null = p_is_null,
    .blob = p_blob,
    .reset = p_reset,
    .finalize = p_finalize,
    .schema_version = p_schema_version,
    .set_schema_version = p_set_schema_version,
    .begin_write_sql = "BEGIN",
    .lock_migration = p_lock_migration,
};
