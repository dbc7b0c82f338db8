/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_vercel.c - Vercel Sandbox (remote, see backend_remote.h).
 *
 * Follows the client in vercel/sandbox at 81d725b74f188ce95dd0969cbd652399d2bbd6ee
 * (2026-08-21): packages/vercel-sandbox/src/api-client/api-client.ts and
 * validators.ts. Base https://vercel.com/api, Authorization: Bearer <token>,
 * ?teamId= on every request:
 * POST /v3/sandboxes (projectId, name, timeout ms, tags -> SandboxAndSessionResponse:
 * sandbox.name, session.id), POST /v2/sandboxes/sessions/{id}/fs/write
 * (application/gzip tarball, x-cwd: /), POST .../sessions/{id}/cmd (command,
 * args, env, sudo -> CommandResponse command.id), GET .../cmd/{cmdId}?wait=true
 * (CommandFinishedResponse command.exitCode), GET .../cmd/{cmdId}/logs
 * (application/x-ndjson LogLine: stream stdout|stderr|error, data), POST
 * .../sessions/{id}/stop (404: gone); GET /v2/sandboxes?project= to find what
 * a create whose outcome is unknown made (by its name, isotier-<nonce>).
 *
 * The tarball holds tmp/isotier/isotier-probe (mode 0755); it is gzip with
 * stored (uncompressed) deflate blocks, which every gzip reader takes.
 *
 * Environment: VERCEL_TOKEN, VERCEL_TEAM_ID, VERCEL_PROJECT_ID (required),
 * ISOTIER_VERCEL_API_URL (default https://vercel.com/api). The sandbox's own
 * timeout is the run's limit plus a minute: a leaked one stops by itself.
 */
#include "backend_remote.h"
#include "core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>

#define VERCEL_TOKEN_ENV "VERCEL_TOKEN"
#define PROBE_MAX        (8u << 20)

typedef struct vercel_state {
	isotier_remote_run r;
	char team[130], project[130];
	char session[130];
	char probe[4096];
} vercel_state;

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting vercel_settings[] = {
    {.env = "VERCEL_TOKEN", .meaning = "the Vercel access token", .secret = true, .required = true},
    {.env = "VERCEL_TEAM_ID", .meaning = "the team that owns the project", .required = true},
    {.env = "VERCEL_PROJECT_ID",
     .meaning = "the project sandboxes are created in",
     .required = true},
    {.env = "ISOTIER_VERCEL_API_URL",
     .meaning = "the API endpoint (default https://vercel.com/api)"},
    {.env = "ISOTIER_REMOTE_MAX_SANDBOXES",
     .meaning = "sandboxes one run may create for this provider, 0..100 (default 2)"},
    {0},
};

static int vercel_available(char *why, size_t why_len)
{
	if (!isotier__remote_configured(vercel_settings, why, why_len))
		return 0;
	if (!isotier__remote_id_valid(getenv("VERCEL_TEAM_ID")) ||
	    !isotier__remote_id_valid(getenv("VERCEL_PROJECT_ID"))) {
		snprintf(why, why_len, "VERCEL_TEAM_ID / VERCEL_PROJECT_ID are not ids");
		return 0;
	}
	snprintf(why, why_len, "Vercel Sandbox in project %.64s", getenv("VERCEL_PROJECT_ID"));
	return 1;
}

/* A cleanup request ignores cancel_fd and the run's deadline. */
static int call(vercel_state *s, const char *method, const char *path, const char *query,
                const char *ctype, const char *extra, const char *body, size_t body_len,
                bool retry_5xx, bool cleanup, int cancel_fd, int64_t timeout_ms,
                isotier_http_response *resp, isotier_error *err)
{
	char url[1200], auth[700], ct[96];
	snprintf(url, sizeof url, "%s%s?teamId=%s%s%s", s->r.api, path, s->team, query ? "&" : "",
	         query ? query : "");
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->r.key);
	snprintf(ct, sizeof ct, "Content-Type: %s", ctype ? ctype : "application/json");
	const char *hdrs[] = {auth, ct, extra, NULL};
	isotier_http_request r = {.method = method,
	                          .url = url,
	                          .headers = hdrs,
	                          .body = body,
	                          .body_len = body_len,
	                          .timeout_ms = timeout_ms,
	                          .retry_5xx = retry_5xx,
	                          .max_body = 4u << 20};
	return isotier__remote_perform(&s->r, &r, cleanup, cancel_fd, resp, err);
}

static int stop_one(void *p, const char *session, isotier_error *err)
{
	vercel_state *s = p;
	char path[300];
	snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/stop", session);
	isotier_http_response resp;
	int rc =
	    call(s, "POST", path, NULL, NULL, NULL, "{}", 2, true, true, -1, 15000, &resp, err);
	if (!rc && resp.status != 200 && resp.status != 404)
		rc = isotier__http_status_error(err, ISOTIER_EIO,
		                                "POST /v2/sandboxes/sessions/{id}/stop", &resp);
	isotier__http_response_clear(&resp);
	if (rc)
		return isotier__error_prefix(err, "vercel sandbox session %s may still run",
		                             session);
	return 0;
}

static int sweep(void *p, isotier_error *err)
{
	vercel_state *s = p;
	char q[200], want[64], bad[128];
	snprintf(q, sizeof q, "project=%s", s->project);
	snprintf(want, sizeof want, "isotier-%s", s->r.nonce);
	snprintf(bad, sizeof bad, "sandbox %s without a valid session", want);
	isotier_http_response resp;
	int rc = call(s, "GET", "/v2/sandboxes", q, NULL, NULL, NULL, 0, true, true, -1, 15000,
	              &resp, err);
	cJSON *doc =
	    isotier__remote_answer(&rc, &resp, 200, "GET /v2/sandboxes", "GET /v2/sandboxes", err);
	cJSON *list = doc ? cJSON_GetObjectItemCaseSensitive(doc, "sandboxes") : NULL;
	if (!rc && !cJSON_IsArray(list))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "GET /v2/sandboxes: no sandboxes array");
	int first = 0;
	const cJSON *it;
	cJSON *arr = rc ? NULL : list;
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
		if (cJSON_IsString(name) && !strcmp(name->valuestring, want))
			isotier__remote_sweep_one(
			    s, cJSON_GetObjectItemCaseSensitive(it, "currentSessionId"), stop_one,
			    bad, &first, err);
	}
	cJSON_Delete(doc);
	if (rc)
		return isotier__error_prefix(err,
		                             "vercel: a create's outcome is unknown and its "
		                             "sandbox (%s) may still run",
		                             want);
	return first;
}

/* A run that died left its sandboxes: found by its nonce, deleted (sweep.h). */
static int vercel_sweep_run(const char *nonce, const char *api, isotier_error *err)
{
	vercel_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "vercel: out of memory");
	snprintf(s->team, sizeof s->team, "%s",
	         getenv("VERCEL_TEAM_ID") ? getenv("VERCEL_TEAM_ID") : "");
	snprintf(s->project, sizeof s->project, "%s",
	         getenv("VERCEL_PROJECT_ID") ? getenv("VERCEL_PROJECT_ID") : "");
	int rc = isotier__remote_sweep_run(&s->r, nonce, api, VERCEL_TOKEN_ENV,
	                                   "ISOTIER_VERCEL_API_URL", "https://vercel.com/api", err);
	if (!rc)
		rc = sweep(s, err);
	free(s);
	return rc;
}

static int vercel_release(void *p, isotier_error *err)
{
	vercel_state *s = p;
	return s ? isotier__remote_release(s, &s->r, s->session, stop_one, sweep, err) : 0;
}

static void vercel_destroy(void *p)
{
	vercel_release(p, NULL);
}

/* ---- the probe as a gzip'd tarball ----------------------------------------- */

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static void tar_header(unsigned char h[512], const char *name, int mode, size_t size, char type)
{
	memset(h, 0, 512);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", mode);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
}

/* tmp/, tmp/isotier/, tmp/isotier/isotier-probe (0755), gzip with stored blocks. */
static int probe_tarball(unsigned char **out, size_t *out_len, const char *probe_path,
                         isotier_error *err)
{
	cleanup_free char *probe = NULL;
	size_t len = 0;
	if (isotier__read_file(&probe, &len, probe_path, PROBE_MAX, err) != 0)
		return err->code;
	size_t tar_len = 512 * 3 + (len + 511) / 512 * 512 + 1024;
	cleanup_free unsigned char *tar = calloc(1, tar_len);
	size_t blocks = tar_len / 65535 + 1;
	unsigned char *gz = malloc(tar_len + blocks * 5 + 18);
	if (!tar || !gz) {
		free(gz);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	tar_header(tar, "tmp/", 0755, 0, '5');
	tar_header(tar + 512, "tmp/isotier/", 0755, 0, '5');
	tar_header(tar + 1024, "tmp/isotier/isotier-probe", 0755, len, '0');
	memcpy(tar + 1536, probe, len);
	static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255};
	size_t o = 0;
	memcpy(gz, head, 10);
	o = 10;
	for (size_t off = 0; off < tar_len || off == 0;) {
		size_t n = tar_len - off > 65535 ? 65535 : tar_len - off;
		bool last = off + n == tar_len;
		gz[o++] = last ? 1 : 0;
		gz[o++] = (unsigned char)(n & 0xff);
		gz[o++] = (unsigned char)(n >> 8);
		gz[o++] = (unsigned char)(~n & 0xff);
		gz[o++] = (unsigned char)(~n >> 8 & 0xff);
		memcpy(gz + o, tar + off, n);
		o += n;
		off += n;
		if (last)
			break;
	}
	uint32_t crc = crc32_of(tar, tar_len);
	for (int i = 0; i < 4; i++)
		gz[o++] = (unsigned char)(crc >> (8 * i));
	for (int i = 0; i < 4; i++)
		gz[o++] = (unsigned char)((uint32_t)tar_len >> (8 * i));
	*out = gz;
	*out_len = o;
	return 0;
}

/* ---- provision, exec ----------------------------------------------------- */

/* The probe into the session's /tmp/isotier: POST .../fs/write. */
static int put_probe(vercel_state *s, isotier_error *err)
{
	cleanup_free unsigned char *tgz = NULL;
	size_t tgz_len = 0;
	int rc = probe_tarball(&tgz, &tgz_len, s->probe, err);
	char path[300];
	snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/fs/write", s->session);
	isotier_http_response resp = {0};
	if (!rc)
		rc = call(s, "POST", path, NULL, "application/gzip", "x-cwd: /", (const char *)tgz,
		          tgz_len, true, false, s->r.cancel_fd,
		          isotier__remote_budget_ms(s->r.deadline_ms, 60000), &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "POST .../fs/write", &resp);
	isotier__http_response_clear(&resp);
	return rc;
}

static int vercel_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	int rc = isotier__remote_provision_check("vercel", vercel_available, spec,
	                                         sizeof((vercel_state *)0)->probe, err);
	if (rc)
		return rc;
	vercel_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "vercel: out of memory");
	snprintf(s->team, sizeof s->team, "%s", getenv("VERCEL_TEAM_ID"));
	snprintf(s->project, sizeof s->project, "%s", getenv("VERCEL_PROJECT_ID"));
	snprintf(s->probe, sizeof s->probe, "%s", spec->probe_path);
	rc = isotier__remote_run_init(&s->r, spec, VERCEL_TOKEN_ENV, "ISOTIER_VERCEL_API_URL",
	                              "https://vercel.com/api", err);
	if (!rc)
		rc = isotier__remote_reserve("vercel", err);
	if (!rc)
		rc = isotier__remote_lease(&s->r, "vercel", err);
	if (rc) {
		free(s);
		return isotier__error_prefix(err, "vercel: provision");
	}
	int64_t ttl = isotier__remote_ttl_s(s->r.deadline_ms, s->r.timeout_s);
	char body[512];
	snprintf(body, sizeof body,
	         "{\"projectId\":\"%s\",\"name\":\"isotier-%s\",\"timeout\":%lld,"
	         "\"tags\":{\"isotier-nonce\":\"%s\"}}",
	         s->project, s->r.nonce, (long long)ttl * 1000, s->r.nonce);
	isotier_http_response resp;
	rc = call(s, "POST", "/v3/sandboxes", NULL, NULL, NULL, body, strlen(body), false, false,
	          s->r.cancel_fd, isotier__remote_budget_ms(s->r.deadline_ms, 60000), &resp, err);
	if (!rc && (resp.status == 200 || resp.status == 201))
		rc = isotier__remote_created_id(&resp, "POST /v3/sandboxes", "session", "id",
		                                s->session, sizeof s->session, &s->r.created,
		                                &s->r.unknown, err);
	else if (!rc)
		rc = isotier__remote_create_error(err, "POST /v3/sandboxes", &resp);
	if (!s->r.created && !s->r.unknown)
		s->r.unknown = isotier__remote_outcome_unknown(rc, &resp);
	isotier__http_response_clear(&resp);
	if (!rc)
		rc = put_probe(s, err);
	return isotier__remote_provision_end(out, s, &s->r, rc, "vercel", "session", s->session,
	                                     err);
}

/* The logs: one LogLine per line. */
static int relay_logs(const isotier_http_response *resp, const isotier_exec_request *req,
                      isotier_error *err)
{
	const char *p = resp->body ? resp->body : "", *end = p + resp->body_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n) {
			cJSON *line = isotier__json_parse_strict(p, n, "log line", err);
			if (!line)
				return err->code;
			const cJSON *st = cJSON_GetObjectItemCaseSensitive(line, "stream");
			const cJSON *data = cJSON_GetObjectItemCaseSensitive(line, "data");
			int rc = 0;
			if (cJSON_IsString(st) && cJSON_IsString(data) &&
			    !strcmp(st->valuestring, "stdout"))
				rc = isotier__remote_relay(req, 1, data->valuestring,
				                           strlen(data->valuestring), err);
			else if (cJSON_IsString(st) && cJSON_IsString(data) &&
			         !strcmp(st->valuestring, "stderr"))
				rc = isotier__remote_relay(req, 2, data->valuestring,
				                           strlen(data->valuestring), err);
			else if (cJSON_IsString(st) && !strcmp(st->valuestring, "error")) {
				const cJSON *m = cJSON_GetObjectItemCaseSensitive(data, "message");
				rc = isotier__error_set(err, ISOTIER_EIO, 0,
				                        "log stream error: %.300s",
				                        cJSON_IsString(m) ? m->valuestring : "");
			} else
				rc = isotier__error_set(err, ISOTIER_EDATA, 0,
				                        "a log line that is no LogLine");
			cJSON_Delete(line);
			if (rc)
				return rc;
		}
		p += n + 1;
	}
	return 0;
}

static int vercel_exec(void *p, const isotier_exec_request *req, int *exit_status,
                       isotier_error *err)
{
	vercel_state *s = p;
	cleanup_free char *script = NULL;
	int cancel_fd;
	int rc = isotier__remote_exec_begin("vercel", s->r.cancel_fd, req, NULL, exit_status,
	                                    &cancel_fd, &script, err);
	if (rc)
		return rc;
	int timeout_s = req->timeout_s > 0 ? req->timeout_s : s->r.timeout_s;
	int64_t budget = isotier__remote_budget_ms(s->r.deadline_ms, (int64_t)timeout_s * 1000);
	cJSON *body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "command", "/bin/sh");
	cJSON *args = cJSON_AddArrayToObject(body, "args");
	cJSON_AddItemToArray(args, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(args, cJSON_CreateString(script));
	cJSON_AddObjectToObject(body, "env");
	cJSON_AddBoolToObject(body, "sudo", true);
	char *json = isotier__json_print(body, false); /* valid UTF-8 */
	cJSON_Delete(body);
	if (!json)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "vercel: out of memory");
	char path[400], cmd_id[130] = "";
	snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/cmd", s->session);
	isotier_http_response resp;
	rc = call(s, "POST", path, NULL, NULL, NULL, json, strlen(json), false, false, cancel_fd,
	          budget, &resp, err);
	cJSON_free(json);
	cJSON *doc =
	    isotier__remote_answer(&rc, &resp, 200, "POST .../cmd", "CommandResponse", err);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(
	    doc ? cJSON_GetObjectItemCaseSensitive(doc, "command") : NULL, "id");
	if (!rc && (!cJSON_IsString(id) || !isotier__remote_id_valid(id->valuestring)))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "CommandResponse: no command.id");
	if (!rc)
		snprintf(cmd_id, sizeof cmd_id, "%s", id->valuestring);
	cJSON_Delete(doc);
	doc = NULL;
	if (!rc) { /* wait for it to finish */
		snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/cmd/%s", s->session, cmd_id);
		rc = call(s, "GET", path, "wait=true", NULL, NULL, NULL, 0, false, false, cancel_fd,
		          isotier__remote_budget_ms(s->r.deadline_ms, budget), &resp, err);
		doc = isotier__remote_answer(&rc, &resp, 200, "GET .../cmd/{id}?wait=true",
		                             "CommandFinishedResponse", err);
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(
		    doc ? cJSON_GetObjectItemCaseSensitive(doc, "command") : NULL, "exitCode");
		if (!rc && !cJSON_IsNumber(code))
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "CommandFinishedResponse: no command.exitCode");
		if (!rc)
			rc = isotier__remote_exit_code("vercel", "command.exitCode", code,
			                               exit_status, err);
		cJSON_Delete(doc);
	}
	if (!rc) { /* its logs */
		snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/cmd/%s/logs", s->session,
		         cmd_id);
		rc = call(s, "GET", path, NULL, NULL, NULL, NULL, 0, true, false, cancel_fd,
		          isotier__remote_budget_ms(s->r.deadline_ms, 30000), &resp, err);
		if (!rc && resp.status != 200)
			rc = isotier__http_status_error(err, ISOTIER_EIO, "GET .../logs", &resp);
		else if (!rc && strcmp(resp.content_type, "application/x-ndjson"))
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "GET .../logs: content type '%s'",
			                        resp.content_type);
		if (!rc)
			rc = relay_logs(&resp, req, err);
		isotier__http_response_clear(&resp);
	}
	if (rc)
		return isotier__error_prefix(err, "vercel: exec in session %s", s->session);
	return 0;
}

/*
 * The caller's sandbox, named by its session id (what the SDK's
 * sandbox.sandboxId reads): GET /v2/sandboxes/sessions/{id} -> {session},
 * a running one only (a stopped session is gone: 410 or its status); then
 * the probe written into it. Nothing to create it like: the create request
 * names no runtime. Never stopped (release() only frees the state).
 */
static int vercel_attach(void **out, const isotier_backend_spec *spec, const char *id, char *like,
                         size_t like_len, isotier_error *err)
{
	(void)like_len;
	*out = NULL;
	like[0] = '\0';
	vercel_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "vercel: out of memory");
	int rc = isotier__remote_attach_begin(
	    &s->r, "vercel", vercel_available, spec, sizeof s->probe, id, VERCEL_TOKEN_ENV,
	    "ISOTIER_VERCEL_API_URL", "https://vercel.com/api", err);
	if (rc) {
		free(s);
		return rc;
	}
	snprintf(s->team, sizeof s->team, "%s", getenv("VERCEL_TEAM_ID"));
	snprintf(s->project, sizeof s->project, "%s", getenv("VERCEL_PROJECT_ID"));
	snprintf(s->probe, sizeof s->probe, "%s", spec->probe_path);
	snprintf(s->session, sizeof s->session, "%s", id);
	char path[300];
	snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s", id);
	isotier_http_response resp = {0};
	rc = call(s, "GET", path, NULL, NULL, NULL, NULL, 0, true, false, s->r.cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, 15000), &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__remote_attach_status(err, "GET /v2/sandboxes/sessions/{id}", id,
		                                   &resp);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, "GET /v2/sandboxes/sessions/{id}",
	                                    "Session", err);
	const cJSON *ses = cJSON_GetObjectItemCaseSensitive(doc, "session");
	const cJSON *sid = cJSON_GetObjectItemCaseSensitive(ses, "id");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(ses, "status");
	if (!rc && (!cJSON_IsString(sid) || strcmp(sid->valuestring, id)))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "Session: not session %s", id);
	else if (!rc && (!cJSON_IsString(st) || strcmp(st->valuestring, "running")))
		rc = isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                        "session %s is %.40s, not running", id,
		                        cJSON_IsString(st) ? st->valuestring : "(no status)");
	cJSON_Delete(doc);
	if (!rc)
		rc = put_probe(s, err);
	return isotier__remote_attach_end(out, s, rc, "vercel", id, err);
}

const isotier_backend isotier__backend_vercel = {
    .version = ISOTIER_BACKEND_VERSION,
    .settings = vercel_settings,
    .name = "vercel",
    .catalogue_id = "vercel-sandbox",
    .description = "Vercel Sandbox (remote; Firecracker microVMs as claimed): VERCEL_TOKEN, "
                   "VERCEL_TEAM_ID, VERCEL_PROJECT_ID",
    .remote = true,
    .delivers_output = true,
    .available = vercel_available,
    .provision = vercel_provision,
    .exec = vercel_exec,
    .destroy = vercel_destroy,
    .release = vercel_release,
    .sweep_run = vercel_sweep_run,
    .fetch = isotier__fetch_by_exec,
    .attach = vercel_attach,
};
