/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_daytona.c - Daytona sandboxes (remote, see backend_remote.h).
 * Daytona's catalogue entry stays UNKNOWN until its own documentation
 * settles the mechanism; the verdict still says what was observed.
 *
 * Follows, in daytonaio/daytona at b5a5d9e78d76c8bcf351f2049620250e0f34eea4
 * (2026-06-23; the repository's later snapshot holds only a README):
 * - libs/api-client-go/api/openapi.yaml (the API): POST /sandbox (CreateSandbox
 *   -> 200 Sandbox: id, state, sandboxClass, toolboxProxyUrl), GET
 *   /sandbox/{sandboxIdOrName} (state until "started"), GET /sandbox?labels=
 *   (ListSandboxesResponse: items), DELETE /sandbox/{sandboxIdOrName} (200;
 *   404 gone); security "bearer" (Authorization: Bearer <key>).
 * - apps/daemon/pkg/toolbox/docs/swagger.json (the toolbox, at
 *   {toolboxProxyUrl}/{sandboxId}/...): POST /files/upload?path= (multipart,
 *   field "file"), POST /process/execute (ExecuteRequest command, timeout ->
 *   ExecuteResponse exitCode, result). The command is split into words by the
 *   daemon (no shell): it is `/bin/sh -c '<script>'`; result is stdout and
 *   stderr together, so the probe's stderr goes to a file in the sandbox.
 *
 * Environment: DAYTONA_API_KEY (required), ISOTIER_DAYTONA_API_URL (default
 * https://app.daytona.io/api), ISOTIER_DAYTONA_SNAPSHOT (default: the
 * organisation's default), ISOTIER_DAYTONA_TARGET (region). Every sandbox is
 * created with autoStopInterval 15 (minutes) and autoDeleteInterval 0 (deleted
 * when stopped), so even a leaked one ends by itself.
 */
#include "backend_remote.h"
#include "core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <time.h>

#define DAYTONA_KEY_ENV "DAYTONA_API_KEY"

typedef struct daytona_state {
	isotier_remote_run r;
	char id[130];
	char toolbox[700];
	char sandbox_class[32];
	char snapshot[130]; /* as reported; "" when not */
	char probe[4096];
} daytona_state;

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting daytona_settings[] = {
    {.env = "DAYTONA_API_KEY", .meaning = "the Daytona API key", .secret = true, .required = true},
    {.env = "ISOTIER_DAYTONA_API_URL",
     .meaning = "the API endpoint (default https://app.daytona.io/api)"},
    {.env = "ISOTIER_DAYTONA_SNAPSHOT",
     .meaning = "the snapshot sandboxes start from (default: the account's)"},
    {.env = "ISOTIER_DAYTONA_TARGET",
     .meaning = "the region (target) to create in (default: the account's)"},
    {.env = "ISOTIER_REMOTE_MAX_SANDBOXES",
     .meaning = "sandboxes one run may create for this provider, 0..100 (default 2)"},
    {0},
};

static int daytona_available(char *why, size_t why_len)
{
	if (!isotier__remote_configured(daytona_settings, why, why_len))
		return 0;
	snprintf(why, why_len, "Daytona, snapshot %s",
	         isotier__remote_setting("ISOTIER_DAYTONA_SNAPSHOT", "(default)"));
	return 1;
}

/* A cleanup request ignores cancel_fd and the run's deadline. */
static int call(daytona_state *s, const char *method, const char *url, const char *body,
                bool retry_5xx, bool cleanup, int cancel_fd, int64_t timeout_ms,
                isotier_http_response *resp, isotier_error *err)
{
	char auth[600];
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->r.key);
	const char *hdrs[] = {auth, body ? "Content-Type: application/json" : NULL, NULL};
	isotier_http_request r = {.method = method,
	                          .url = url,
	                          .headers = hdrs,
	                          .body = body,
	                          .body_len = body ? strlen(body) : 0,
	                          .timeout_ms = timeout_ms,
	                          .retry_5xx = retry_5xx};
	return isotier__remote_perform(&s->r, &r, cleanup, cancel_fd, resp, err);
}

static int delete_one(void *p, const char *id, isotier_error *err)
{
	daytona_state *s = p;
	char url[800];
	snprintf(url, sizeof url, "%s/sandbox/%s", s->r.api, id);
	isotier_http_response resp;
	int rc = call(s, "DELETE", url, NULL, true, true, -1, 15000, &resp, err);
	if (!rc && resp.status != 200 && resp.status != 204 && resp.status != 404)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "DELETE /sandbox/{id}", &resp);
	isotier__http_response_clear(&resp);
	if (rc)
		return isotier__error_prefix(err, "daytona sandbox %s may still exist", id);
	return 0;
}

/* A create whose outcome is unknown: list by the nonce label, delete. */
static int sweep(void *p, isotier_error *err)
{
	daytona_state *s = p;
	char labels[128], url[900];
	snprintf(labels, sizeof labels, "{\"isotier-nonce\":\"%s\"}", s->r.nonce);
	char *esc = isotier__http_escape(labels);
	if (!esc)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	snprintf(url, sizeof url, "%s/sandbox?labels=%s", s->r.api, esc);
	free(esc);
	isotier_http_response resp;
	int rc = call(s, "GET", url, NULL, true, true, -1, 15000, &resp, err);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, "GET /sandbox", "GET /sandbox", err);
	cJSON *items = doc ? cJSON_GetObjectItemCaseSensitive(doc, "items") : NULL;
	if (!rc && !cJSON_IsArray(items))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "GET /sandbox: no items array");
	int first = 0;
	const cJSON *it;
	cJSON *arr = rc ? NULL : items;
	cJSON_ArrayForEach(it, arr)
	{
		isotier__remote_sweep_one(s, cJSON_GetObjectItemCaseSensitive(it, "id"), delete_one,
		                          "a listed sandbox without a valid id", &first, err);
	}
	cJSON_Delete(doc);
	if (rc)
		return isotier__error_prefix(err,
		                             "daytona: a create's outcome is unknown and its "
		                             "sandbox (label isotier-nonce=%s) may still exist",
		                             s->r.nonce);
	return first;
}

/* A run that died left its sandboxes: found by its nonce, deleted (sweep.h). */
static int daytona_sweep_run(const char *nonce, const char *api, isotier_error *err)
{
	daytona_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "daytona: out of memory");
	int rc =
	    isotier__remote_sweep_run(&s->r, nonce, api, DAYTONA_KEY_ENV, "ISOTIER_DAYTONA_API_URL",
	                              "https://app.daytona.io/api", err);
	if (!rc)
		rc = sweep(s, err);
	free(s);
	return rc;
}

static int daytona_release(void *p, isotier_error *err)
{
	daytona_state *s = p;
	return s ? isotier__remote_release(s, &s->r, s->id, delete_one, sweep, err) : 0;
}

static void daytona_destroy(void *p)
{
	daytona_release(p, NULL);
}

/* Reads a Sandbox: id, state, toolboxProxyUrl, sandboxClass. */
static int read_sandbox(daytona_state *s, const isotier_http_response *resp, char *state,
                        size_t state_len, isotier_error *err)
{
	cJSON *doc = isotier__json_parse_strict(resp->body, resp->body_len, "Sandbox", err);
	if (!doc)
		return err->code;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "id");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state");
	const cJSON *tb = cJSON_GetObjectItemCaseSensitive(doc, "toolboxProxyUrl");
	const cJSON *cls = cJSON_GetObjectItemCaseSensitive(doc, "sandboxClass");
	const cJSON *snap = cJSON_GetObjectItemCaseSensitive(doc, "snapshot");
	/* Attached: the id is the caller's, known before the answer. */
	bool known = s->r.created || s->r.attached;
	int rc = 0;
	if (!cJSON_IsObject(doc) || !cJSON_IsString(id) ||
	    !isotier__remote_id_valid(id->valuestring))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "Sandbox: no valid id");
	else if (known && strcmp(s->id, id->valuestring))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "Sandbox: another sandbox's id");
	if (!rc && !known) {
		snprintf(s->id, sizeof s->id, "%s", id->valuestring);
		s->r.created = true;
	}
	if (!rc && (!cJSON_IsString(tb) || strncmp(tb->valuestring, "http", 4) ||
	            strlen(tb->valuestring) > 500 || strpbrk(tb->valuestring, " \r\n?#")))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "Sandbox: bad toolboxProxyUrl");
	if (!rc) {
		snprintf(s->toolbox, sizeof s->toolbox, "%s/%s", tb->valuestring, s->id);
		snprintf(state, state_len, "%s",
		         cJSON_IsString(st) && strlen(st->valuestring) < 40 ? st->valuestring : "");
		if (cJSON_IsString(cls) && isotier__remote_id_valid(cls->valuestring))
			snprintf(s->sandbox_class, sizeof s->sandbox_class, "%s", cls->valuestring);
		if (cJSON_IsString(snap) && isotier__remote_id_valid(snap->valuestring))
			snprintf(s->snapshot, sizeof s->snapshot, "%s", snap->valuestring);
	}
	cJSON_Delete(doc);
	return rc;
}

/* Polls GET /sandbox/{id} until started (bounded by the deadline). */
static int wait_started(daytona_state *s, const char *state, isotier_error *err)
{
	char st[48];
	snprintf(st, sizeof st, "%s", state);
	char url[800];
	snprintf(url, sizeof url, "%s/sandbox/%s", s->r.api, s->id);
	for (int n = 0; strcmp(st, "started"); n++) {
		if (!strcmp(st, "error") || !strcmp(st, "build_failed") ||
		    !strcmp(st, "destroyed") || !strcmp(st, "destroying"))
			return isotier__error_set(err, ISOTIER_EIO, 0, "daytona sandbox %s is %s",
			                          s->id, st);
		if (s->r.deadline_ms && isotier__now_ms() > s->r.deadline_ms)
			return isotier__error_set(err, ISOTIER_ETIMEDOUT, 0,
			                          "daytona sandbox %s not started in time (%s)",
			                          s->id, st);
		if (!isotier__remote_sleep_ms(s->r.cancel_fd, n < 5 ? 200 : 1000))
			return isotier__error_set(err, ISOTIER_EINTR, 0,
			                          "daytona sandbox %s: cancelled while starting",
			                          s->id);
		isotier_http_response resp;
		int rc = call(s, "GET", url, NULL, true, false, s->r.cancel_fd,
		              isotier__remote_budget_ms(s->r.deadline_ms, 15000), &resp, err);
		if (!rc && resp.status != 200)
			rc = isotier__http_status_error(err, ISOTIER_EIO, "GET /sandbox/{id}",
			                                &resp);
		if (!rc)
			rc = read_sandbox(s, &resp, st, sizeof st, err);
		isotier__http_response_clear(&resp);
		if (rc)
			return rc;
	}
	return 0;
}

static int upload_probe(daytona_state *s, isotier_error *err)
{
	char base[800], auth[600];
	snprintf(base, sizeof base, "%s/files/upload", s->toolbox);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->r.key);
	const char *hdrs[] = {auth, NULL};
	isotier_http_response resp;
	int rc = isotier__remote_upload_probe(base, hdrs, s->probe, s->r.deadline_ms,
	                                      s->r.cancel_fd, &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "toolbox POST /files/upload",
		                                &resp);
	isotier__http_response_clear(&resp);
	return rc;
}

static int daytona_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	int rc = isotier__remote_provision_check("daytona", daytona_available, spec,
	                                         sizeof((daytona_state *)0)->probe, err);
	if (rc)
		return rc;
	daytona_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "daytona: out of memory");
	snprintf(s->probe, sizeof s->probe, "%s", spec->probe_path);
	rc = isotier__remote_run_init(&s->r, spec, DAYTONA_KEY_ENV, "ISOTIER_DAYTONA_API_URL",
	                              "https://app.daytona.io/api", err);
	if (!rc)
		rc = isotier__remote_reserve("daytona", err);
	if (!rc)
		rc = isotier__remote_lease(&s->r, "daytona", err);
	if (rc) {
		free(s);
		return isotier__error_prefix(err, "daytona: provision");
	}
	cJSON *body = cJSON_CreateObject();
	cJSON *labels = cJSON_AddObjectToObject(body, "labels");
	cJSON_AddStringToObject(labels, "isotier-nonce", s->r.nonce);
	const char *snap = isotier__remote_like(spec, "ISOTIER_DAYTONA_SNAPSHOT", NULL);
	const char *target = isotier__remote_setting("ISOTIER_DAYTONA_TARGET", NULL);
	if (snap)
		cJSON_AddStringToObject(body, "snapshot", snap);
	if (target)
		cJSON_AddStringToObject(body, "target", target);
	cJSON_AddNumberToObject(body, "autoStopInterval", 15);
	cJSON_AddNumberToObject(body, "autoDeleteInterval", 0);
	char *json = isotier__json_print(body, false); /* valid UTF-8 */
	cJSON_Delete(body);
	if (!json) {
		free(s);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "daytona: out of memory");
	}
	char url[700];
	snprintf(url, sizeof url, "%s/sandbox", s->r.api);
	isotier_http_response resp;
	char state[48] = "";
	rc = call(s, "POST", url, json, false, false, s->r.cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, 60000), &resp, err);
	cJSON_free(json);
	if (!rc && resp.status == 200)
		rc = read_sandbox(s, &resp, state, sizeof state, err);
	else if (!rc)
		rc = isotier__remote_create_error(err, "POST /sandbox", &resp);
	/* A 200 we could not read made a sandbox we cannot name: look for it. */
	s->r.unknown =
	    !s->r.created && (resp.status == 200 || isotier__remote_outcome_unknown(rc, &resp));
	isotier__http_response_clear(&resp);
	if (!rc)
		rc = wait_started(s, state, err);
	if (!rc)
		rc = upload_probe(s, err);
	return isotier__remote_provision_end(out, s, &s->r, rc, "daytona", "sandbox", s->id, err);
}

/* The caller's sandbox: GET /sandbox/{id} (its toolbox, class and
 * snapshot), a started one only (isotier starts nothing of the caller's:
 * one stopped or archived is refused), then the probe uploaded through its
 * toolbox. Never deleted (release() only frees the state). */
static int daytona_attach(void **out, const isotier_backend_spec *spec, const char *id, char *like,
                          size_t like_len, isotier_error *err)
{
	*out = NULL;
	like[0] = '\0';
	daytona_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "daytona: out of memory");
	int rc = isotier__remote_attach_begin(
	    &s->r, "daytona", daytona_available, spec, sizeof s->probe, id, DAYTONA_KEY_ENV,
	    "ISOTIER_DAYTONA_API_URL", "https://app.daytona.io/api", err);
	if (rc) {
		free(s);
		return rc;
	}
	snprintf(s->probe, sizeof s->probe, "%s", spec->probe_path);
	snprintf(s->id, sizeof s->id, "%s", id);
	char url[800], state[48] = "";
	snprintf(url, sizeof url, "%s/sandbox/%s", s->r.api, id);
	isotier_http_response resp;
	rc = call(s, "GET", url, NULL, true, false, s->r.cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, 15000), &resp, err);
	if (!rc && resp.status == 200)
		rc = read_sandbox(s, &resp, state, sizeof state, err);
	else if (!rc)
		rc = isotier__remote_attach_status(err, "GET /sandbox/{id}", id, &resp);
	isotier__http_response_clear(&resp);
	if (!rc && (!strcmp(state, "stopped") || !strcmp(state, "archived")))
		rc = isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                        "sandbox %s is %s: isotier starts nothing of the caller's",
		                        id, state);
	if (!rc)
		rc = wait_started(s, state, err);
	if (!rc)
		rc = upload_probe(s, err);
	if (!rc)
		snprintf(like, like_len, "%s", s->snapshot);
	return isotier__remote_attach_end(out, s, rc, "daytona", id, err);
}

static int daytona_exec(void *p, const isotier_exec_request *req, int *exit_status,
                        isotier_error *err)
{
	daytona_state *s = p;
	cleanup_free char *script = NULL;
	cleanup_free char *command = NULL;
	int cancel_fd;
	int rc = isotier__remote_exec_begin("daytona", s->r.cancel_fd, req,
	                                    ISOTIER_REMOTE_GUEST_DIR "/stderr", exit_status,
	                                    &cancel_fd, &script, err);
	if (rc)
		return rc;
	command = strdup("/bin/sh -c ");
	if (!command || isotier__remote_shell_quote(&command, script) != 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "daytona: out of memory");
	int timeout_s = req->timeout_s > 0 ? req->timeout_s : s->r.timeout_s;
	cJSON *body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "command", command);
	cJSON_AddNumberToObject(body, "timeout", timeout_s);
	char *json = isotier__json_print(body, false); /* valid UTF-8 */
	cJSON_Delete(body);
	if (!json)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "daytona: out of memory");
	char url[800];
	snprintf(url, sizeof url, "%s/process/execute", s->toolbox);
	isotier_http_response resp;
	rc = call(s, "POST", url, json, false, false, cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, (int64_t)timeout_s * 1000 + 5000),
	          &resp, err);
	cJSON_free(json);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, "toolbox POST /process/execute",
	                                    "ExecuteResponse", err);
	const cJSON *code = doc ? cJSON_GetObjectItemCaseSensitive(doc, "exitCode") : NULL;
	const cJSON *result = doc ? cJSON_GetObjectItemCaseSensitive(doc, "result") : NULL;
	if (!rc && (!cJSON_IsString(result) || (code && !cJSON_IsNumber(code))))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "ExecuteResponse: result/exitCode");
	if (!rc)
		rc = isotier__remote_relay(req, 1, result->valuestring, strlen(result->valuestring),
		                           err);
	if (!rc && code)
		rc = isotier__remote_exit_code("daytona", "ExecuteResponse.exitCode", code,
		                               exit_status, err);
	else if (!rc)
		*exit_status = 0;
	cJSON_Delete(doc);
	if (rc)
		return isotier__error_prefix(err, "daytona: exec in sandbox %s", s->id);
	return 0;
}

static void daytona_describe(void *p, char *buf, size_t len)
{
	const daytona_state *s = p;
	snprintf(buf, len,
	         "sandbox class %s (none asked for: the organisation's default), snapshot %s",
	         s->sandbox_class[0] ? s->sandbox_class : "not reported",
	         s->snapshot[0] ? s->snapshot
	                        : isotier__remote_setting("ISOTIER_DAYTONA_SNAPSHOT", "default"));
}

const isotier_backend isotier__backend_daytona = {
    .version = ISOTIER_BACKEND_VERSION,
    .settings = daytona_settings,
    .name = "daytona",
    .catalogue_id = "daytona",
    .description = "Daytona sandboxes (remote; mechanism not settled): DAYTONA_API_KEY",
    .remote = true,
    .delivers_output = true,
    .available = daytona_available,
    .provision = daytona_provision,
    .exec = daytona_exec,
    .destroy = daytona_destroy,
    .release = daytona_release,
    .sweep_run = daytona_sweep_run,
    .fetch = isotier__fetch_by_exec,
    .describe = daytona_describe,
    .attach = daytona_attach,
};
