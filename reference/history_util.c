/* SPDX-License-Identifier: Apache-2.0 */
/* history_util.c - what the history's engines and its queries share
 * (history_driver.h): errors, the statement helpers, and how a target is
 * told and shown (a file, or a postgresql:// URI with its password
 * redacted). Below history.c and both engines, so none calls back up. */
#include "history_driver.h"
#include "../base/redact.h"

#include <sqlite3.h> /* the db_code numbering (SQLITE_BUSY...) */
#include <string.h>

int history_db_error(isotier_error *err, int db_code, const char *context, const char *msg)
{
	int primary = db_code & 0xff;
	int code = primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? ISOTIER_EBUSY : ISOTIER_EDB;
	isotier__error_set(err, code, 0, "%s: %s", context, msg ? msg : "?");
	if (err)
		err->db_code = db_code ? db_code : SQLITE_ERROR;
	return code;
}

int hq_prepare(isotier_history *h, hstmt **st, const char *sql, isotier_error *err,
               const char *context)
{
	*st = NULL;
	return h->drv->prepare(h, st, sql, err, context);
}

int hq_exec(isotier_history *h, const char *sql, isotier_error *err, const char *context)
{
	return h->drv->exec(h, sql, err, context);
}

bool isotier__history_is_uri(const char *target)
{
	return target &&
	       (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11));
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
