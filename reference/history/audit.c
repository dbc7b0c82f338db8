/* SPDX-License-Identifier: Apache-2.0 */
/* audit.c - audit events as JSON Lines (fsync'd) and rows in the history. */
#include "../core/telemetry.h"
#include "history.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>

static cJSON *event_json(const isotier_event *ev, const char *at)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "time", at);
	cJSON_AddStringToObject(o, "event", ev->event);
	if (ev->sandbox_id)
		cJSON_AddStringToObject(o, "sandbox_id", ev->sandbox_id);
	cJSON_AddStringToObject(o, "backend", ev->backend ? ev->backend : "");
	cJSON_AddStringToObject(o, "claimed_tier", isotier_tier_name(ev->claimed));
	cJSON_AddStringToObject(o, "resolved_tier", isotier_tier_name(ev->resolved));
	cJSON_AddStringToObject(o, "required_tier", isotier_tier_name(ev->required));
	/* The record of a decision: requested (required_tier), effective_tier, reason; a
	 * downgrade is effective_tier below claimed_tier. */
	cJSON_AddStringToObject(o, "effective_tier", isotier_tier_name(ev->effective));
	cJSON_AddStringToObject(o, "decision", ev->decision ? ev->decision : "");
	cJSON_AddStringToObject(o, "reason", ev->reason ? ev->reason : "");
	if (ev->exit_status >= 0)
		cJSON_AddNumberToObject(o, "exit_status", ev->exit_status);
	return o;
}

static int append_line(const char *path, const char *line, isotier_error *err)
{
	cleanup_close int fd = isotier__open_append(path, "audit log", err);
	if (fd < 0)
		return fd;
	/* One write of the whole line, so concurrent writers never interleave
	 * within a line (O_APPEND); more only after a short write. */
	if (isotier__write_all(fd, line, strlen(line)) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "write audit log %s", path);
	if (fsync(fd) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "fsync audit log %s", path);
	return 0;
}

static int store_event(isotier_telemetry *t, const isotier_event *ev, const char *at,
                       const char *detail, isotier_error *err)
{
	/* One connection for every event of a sandbox: opening (and checking
	 * the schema) once, not per create, exec and destroy. */
	int rc;
	if (!t->db && (rc = isotier__history_open(&t->db, t->db_path, 0, err)) < 0)
		return rc;
	return isotier__history_add_audit_event(
	    t->db,
	    &(isotier_audit_row){.at = at,
	                         .event = ev->event,
	                         .sandbox_id = ev->sandbox_id,
	                         .backend = ev->backend,
	                         .claimed_tier = isotier_tier_name(ev->claimed),
	                         .resolved_tier = isotier_tier_name(ev->resolved),
	                         .required_tier = isotier_tier_name(ev->required),
	                         .decision = ev->decision,
	                         .reason = ev->reason,
	                         .detail_json = detail},
	    err);
}

void isotier__telemetry_close(isotier_telemetry *t)
{
	isotier__history_close(t->db);
	t->db = NULL;
}

int isotier__audit_emit(isotier_telemetry *t, const isotier_event *ev, isotier_error *err)
{
	if (!t->audit_log && !t->db_path)
		return 0;
	char at[32];
	isotier__utc_now(at, sizeof at);
	cJSON *o = event_json(ev, at);
	char *line = o ? isotier__json_print(o, false) : NULL;
	cJSON_Delete(o);
	if (!line)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "audit event: out of memory");
	int rc = 0;
	if (t->audit_log) {
		size_t n = strlen(line);
		char *nl = malloc(n + 2);
		if (!nl) {
			free(line);
			return isotier__error_set(err, ISOTIER_ENOMEM, 0,
			                          "audit event: out of memory");
		}
		memcpy(nl, line, n);
		nl[n] = '\n';
		nl[n + 1] = '\0';
		rc = append_line(t->audit_log, nl, err);
		free(nl);
	}
	if (rc == 0 && t->db_path)
		rc = store_event(t, ev, at, line, err);
	free(line);
	return rc;
}
