/* SPDX-License-Identifier: Apache-2.0 */
/* history_transfer_audit.c - audit events in `history export`, `import` and
 * `migrate` (isotier.history.export/1 "audit_event" records): the trail of
 * what create() and the gate decided travels with the rows, each event with
 * the host that decided (schema 11) and its uuid (import is idempotent by
 * it, as for runs and observations). */
#include "history_driver.h"
#include "../core/paths.h"

#include <cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const audit_keys[] = {
    "uuid",     "at",           "event",         "sandbox_id",
    "backend",  "claimed_tier", "resolved_tier", "required_tier",
    "decision", "reason",       "detail_json",   "host_id"};
#define N_AUDIT_KEYS 12

int isotier__history_export_audit(isotier_history *h, FILE *out, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "SELECT uuid, at, event, sandbox_id, backend, claimed_tier,"
	    " resolved_tier, required_tier, decision, reason, detail_json, host_id"
	    " FROM audit_events ORDER BY id",
	    err, "export audit events");
	while (rc == 0 && (rc = hq_step(s, err)) > 0) {
		cJSON *o = cJSON_CreateObject();
		char *text = NULL;
		if (o) {
			cJSON_AddStringToObject(o, "type", "audit_event");
			for (int i = 0; i < N_AUDIT_KEYS; i++)
				if (hq_col(s, i))
					cJSON_AddStringToObject(o, audit_keys[i], hq_col(s, i));
				else
					cJSON_AddNullToObject(o, audit_keys[i]);
			text = isotier__json_print(o, false);
		}
		cJSON_Delete(o);
		if (!text)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "export: out of memory");
		bool ok = fputs(text, out) >= 0 && fputc('\n', out) != EOF;
		free(text);
		rc = ok ? 0 : isotier__error_set(err, ISOTIER_EIO, errno, "export: write");
	}
	return rc;
}

static const char *text_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An event stored without a uuid (written by hand, or by a tool that did
 * not set it): one derived from its fields, so importing it twice still
 * adds it once. */
static void derived_uuid(const cJSON *o, char out[ISOTIER_UUID_LEN + 1])
{
	char hex[65] = "";
	cJSON *copy = cJSON_Duplicate(o, true);
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "uuid");
	char *text = copy ? isotier__json_print(copy, false) : NULL;
	cJSON_Delete(copy);
	if (!text || isotier__sha256_hex(text, strlen(text), hex) < 0)
		snprintf(hex, sizeof hex, "%064d", 0);
	free(text);
	snprintf(out, ISOTIER_UUID_LEN + 1, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12,
	         hex + 16, hex + 20);
}

int isotier__history_import_audit(isotier_history *h, const cJSON *o, const char *file, size_t line,
                                  isotier_transfer_counts *n, isotier_error *err)
{
	char derived[ISOTIER_UUID_LEN + 1];
	const char *uuid = text_of(o, "uuid"), *at = text_of(o, "at"), *event = text_of(o, "event");
	if (!uuid && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "uuid"))) {
		derived_uuid(o, derived);
		uuid = derived;
	}
	struct tm tm = {0};
	const char *end = at ? strptime(at, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	if (!uuid || strlen(uuid) != ISOTIER_UUID_LEN || !event || !at || !end || *end)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "import %s:%zu: audit_event without a uuid, an event or a "
		    "time in isotier's UTC form",
		    file, line);
	/* An event from the future would stand as the newest refusal in every
	 * report (the same allowance as observations'). */
	if (timegm(&tm) > time(NULL) + 300)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "import %s:%zu: field 'at': %.40s is after this host's clock", file, line, at);
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO audit_events(uuid, at, event, sandbox_id, backend, claimed_tier,"
	    " resolved_tier, required_tier, decision, reason, detail_json, host_id)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
	    " ON CONFLICT (uuid) DO NOTHING RETURNING id",
	    err, "import audit event");
	if (rc < 0)
		return rc;
	for (int i = 0; i < N_AUDIT_KEYS; i++)
		hq_text(s, i + 1, text_of(o, audit_keys[i]));
	hq_text(s, 1, uuid);
	if ((rc = hq_step(s, err)) > 0) {
		n->audit_events++;
		while ((rc = hq_step(s, err)) > 0)
			;
	} else if (rc == 0) {
		n->audit_skipped++;
	}
	return rc < 0 ? isotier__error_prefix(err, "import %s:%zu", file, line) : 0;
}
