/* SPDX-License-Identifier: Apache-2.0 */
/* history_util.c - what the history's engines and its queries share
 * (history_driver.h): errors, the statement helpers, and how a target is
 * told and shown (a file, or a postgresql:// URI with its password
 * redacted). Below history.c and both engines, so none calls back up. */
#include "history_driver.h"
#include "../../base/redact.h"

#include <sqlite3.h> /* the db_code numbering (SQLITE_BUSY...) */
#include <ctype.h>
#include <string.h>

int isotier__history_db_error(isotier_error *err, int db_code, const char *context, const char *msg)
{
	int primary = db_code & 0xff;
	int code = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? ISOTIER_EBUSY : ISOTIER_EDB;
	isotier__error_set(err, code, 0, "%s: %s", context, msg ? msg : "?");
	if (err)
		err->db_code = db_code ? db_code : SQLITE_ERROR;
	return code;
}

int isotier__hq_prepare(isotier_history *h, hstmt **st, const char *sql, isotier_error *err,
                        const char *context)
{
	*st = NULL;
	return h->drv->prepare(h, st, sql, err, context);
}

void isotier__hq_text(hstmt *st, int i, const char *v)
{
	if (!v || isotier__utf8_valid(v, strlen(v))) {
		HDRV(st)->bind_text(st, i, v);
		return;
	}
	/* Out of memory: the raw bytes, which PostgreSQL refuses loudly
	 * (the row is then reported NOT stored, never stored differently). */
	cleanup_free char *valid = isotier__utf8_scrub(v, NULL);
	HDRV(st)->bind_text(st, i, valid ? valid : v);
}

int isotier__hq_exec(isotier_history *h, const char *sql, isotier_error *err, const char *context)
{
	return h->drv->exec(h, sql, err, context);
}

bool isotier__history_is_uri(const char *target)
{
	return target &&
	       (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11));
}

/* libpq's connection keywords (libpq's conninfo options): a word of a
 * target ending in one of these and '=' is a key=value connection string. */
static const char *const conninfo_keys[] = {
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "channel_binding",
    "connect_timeout",
    "client_encoding",
    "options",
    "application_name",
    "fallback_application_name",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_count",
    "tcp_user_timeout",
    "sslmode",
    "requiressl",
    "sslcompression",
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslrootcert",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "requirepeer",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
    "gssencmode",
    "krbsrvname",
    "gsslib",
    "service",
    "target_session_attrs",
    "load_balance_hosts",
};

int isotier__history_target_check(const char *target, isotier_error *err)
{
	if (!target || isotier__history_is_uri(target))
		return 0;
	const char *why = NULL;
	const char *scheme = strstr(target, "://");
	if (scheme) {
		bool word = scheme > target;
		for (const char *p = target; p < scheme; p++)
			word = word &&
			       (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.');
		if (word)
			why = "a URI of a scheme isotier does not open (a history is a file or a "
			      "postgresql:// URI)";
	}
	for (const char *p = target; !why && *p;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		const char *w = p;
		while (*p && !isspace((unsigned char)*p) && *p != '=')
			p++;
		size_t n = (size_t)(p - w);
		const char *q = p;
		while (*q && isspace((unsigned char)*q))
			q++;
		if (*q == '=' && n > 0)
			for (size_t i = 0; i < sizeof conninfo_keys / sizeof conninfo_keys[0]; i++)
				if (strlen(conninfo_keys[i]) == n &&
				    !strncmp(w, conninfo_keys[i], n))
					why = "a libpq key=value connection string";
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	if (!why)
		return 0;
	/* The value is never shown: it may hold a password. */
	return isotier__error_set(
	    err, ISOTIER_EINVAL, 0,
	    "history target is %s (not shown: it may hold a password); name a database file "
	    "or a postgresql:// URI, its password in ~/.pgpass, $PGPASSFILE or a service file "
	    "(runbook/fleet.md), never on the command line",
	    why);
}

void isotier__history_display(const char *target, char *buf, size_t len)
{
	if (!len)
		return;
	snprintf(buf, len, "%s", target ? target : "");
	if (!isotier__history_is_uri(buf))
		return;
	/* scheme://user:PASSWORD@host...: the password out. */
	char *auth = strstr(buf, "://") + 3;
	char *at = strchr(auth, '@'), *slash = strchr(auth, '/');
	char *colon = strchr(auth, ':');
	if (at && (!slash || at < slash) && colon && colon < at) {
		char rest[512];
		snprintf(rest, sizeof rest, "%s", at);
		snprintf(colon, len - (size_t)(colon - buf), ":" ISOTIER_REDACTED "%s", rest);
	}
	/* ...?password=PASSWORD&...: likewise. */
	for (char *p = strstr(buf, "password="); p; p = strstr(p + 1, "password=")) {
		if (p > buf && p[-1] != '?' && p[-1] != '&')
			continue;
		char *end = p + 9 + strcspn(p + 9, "&#");
		char rest[512];
		snprintf(rest, sizeof rest, "%s", end);
		snprintf(p + 9, len - (size_t)(p + 9 - buf), ISOTIER_REDACTED "%s", rest);
	}
}
