/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vercel.c - Vercel Sandbox (a row and its protocol over the remote engine,
 * remote.h).
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
#include "remote.h"
#include "../../core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>

#define PROBE_MAX (8u << 20)

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting vercel_settings[] = {
    {.env = "VERCEL_TOKEN", .meaning = "the Vercel access token", .secret = true, .required = true},
    {.env = "VERCEL_TEAM_ID", .meaning = "the team that owns the project", .required = true},
    {.env = "VERCEL_PROJECT_ID",
     .meaning = "the project sandboxes are created in",
     .required = true},
    {.env = "ISOTIER_VERCEL_API_URL",
     .meaning = "the API endpoint (default https://vercel.com/api)"},
    ISOTIER_REMOTE_SETTING_CAP,
    {0},
};

static void vercel_about(char *why, size_t why_len)
{
	snprintf(why, why_len, "Vercel Sandbox in project %.64s", getenv("VERCEL_PROJECT_ID"));
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
static int vercel_upload(isotier_remote_run *r, isotier_error *err)
{
	cleanup_free unsigned char *tgz = NULL;
	size_t tgz_len = 0;
	int rc = probe_tarball(&tgz, &tgz_len, r->probe, err);
	char path[300];
	snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/fs/write", r->id);
	isotier_remote_call c = {.method = "POST",
	                         .path = path,
	                         .body = (const char *)tgz,
	                         .body_len = tgz_len,
	                         .ctype = "application/gzip",
	                         .extra = "x-cwd: /",
	                         .retry_5xx = true,
	                         .cancel_fd = r->cancel_fd,
	                         .timeout_ms = isotier__remote_budget_ms(r->deadline_ms, 60000)};
	isotier_http_response resp = {0};
	if (!rc)
		rc = isotier__remote_call(r, &c, &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "POST .../fs/write", &resp);
	isotier__http_response_clear(&resp);
	return rc;
}

static char *vercel_create_body(isotier_remote_run *r, const isotier_backend_spec *spec,
                                isotier_error *err)
{
	(void)spec; /* nothing to create it like: the create request names no runtime */
	char *body = NULL;
	if (asprintf(&body,
	             "{\"projectId\":\"%s\",\"name\":\"isotier-%s\",\"timeout\":%lld,"
	             "\"tags\":{\"isotier-nonce\":\"%s\"}}",
	             getenv("VERCEL_PROJECT_ID"), r->nonce,
	             (long long)isotier__remote_ttl_s(r->deadline_ms, r->timeout_s) * 1000,
	             r->nonce) < 0) {
		isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		return NULL;
	}
	return body;
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

static int vercel_exec(isotier_remote_run *r, const isotier_exec_request *req, const char *script,
                       int cancel_fd, int timeout_s, int *exit_status, isotier_error *err)
{
	int64_t budget = isotier__remote_budget_ms(r->deadline_ms, (int64_t)timeout_s * 1000);
	cJSON *body = cJSON_CreateObject();
	if (!body || !isotier__remote_sh_args(body, "command", "args", script) ||
	    !cJSON_AddObjectToObject(body, "env") || !cJSON_AddBoolToObject(body, "sudo", true)) {
		cJSON_Delete(body);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	char path[400], cmd_id[130] = "";
	snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/cmd", r->id);
	isotier_remote_call c = {
	    .method = "POST", .path = path, .cancel_fd = cancel_fd, .timeout_ms = budget};
	int rc;
	cJSON *doc = isotier__remote_json(r, &c, body, "POST .../cmd", "CommandResponse", &rc, err);
	const cJSON *id =
	    isotier__remote_field(doc, (const char *[]){"command", "id", NULL}, cJSON_String);
	if (!rc && (!id || !isotier__remote_id_valid(id->valuestring)))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "CommandResponse: no command.id");
	if (!rc)
		snprintf(cmd_id, sizeof cmd_id, "%s", id->valuestring);
	cJSON_Delete(doc);
	if (!rc) { /* wait for it to finish */
		snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/cmd/%s", r->id, cmd_id);
		c = (isotier_remote_call){.method = "GET",
		                          .path = path,
		                          .query = "wait=true",
		                          .cancel_fd = cancel_fd,
		                          .timeout_ms =
		                              isotier__remote_budget_ms(r->deadline_ms, budget)};
		doc = isotier__remote_json(r, &c, NULL, "GET .../cmd/{id}?wait=true",
		                           "CommandFinishedResponse", &rc, err);
		const cJSON *code = isotier__remote_field(
		    doc, (const char *[]){"command", "exitCode", NULL}, cJSON_Number);
		if (!rc && !code)
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "CommandFinishedResponse: no command.exitCode");
		if (!rc)
			rc = isotier__remote_exit_code("vercel", "command.exitCode", code,
			                               exit_status, err);
		cJSON_Delete(doc);
	}
	if (!rc) { /* its logs */
		snprintf(path, sizeof path, "/v2/sandboxes/sessions/%s/cmd/%s/logs", r->id, cmd_id);
		c = (isotier_remote_call){.method = "GET",
		                          .path = path,
		                          .retry_5xx = true,
		                          .cancel_fd = cancel_fd,
		                          .timeout_ms =
		                              isotier__remote_budget_ms(r->deadline_ms, 30000)};
		isotier_http_response resp;
		rc = isotier__remote_call(r, &c, &resp, err);
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
	return rc;
}

/* The caller's sandbox, named by its session id (what the SDK's
 * sandbox.sandboxId reads): GET /v2/sandboxes/sessions/{id} -> {session},
 * a running one only (a stopped session is gone: 410 or its status).
 * Nothing to create it like: the create request names no runtime. */
static int vercel_attached(isotier_remote_run *r, const cJSON *doc, char *like, size_t like_len,
                           isotier_error *err)
{
	(void)like, (void)like_len;
	const cJSON *sid =
	    isotier__remote_field(doc, (const char *[]){"session", "id", NULL}, cJSON_String);
	const cJSON *st =
	    isotier__remote_field(doc, (const char *[]){"session", "status", NULL}, cJSON_String);
	if (!sid || strcmp(sid->valuestring, r->id))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "Session: not session %s", r->id);
	if (!st || strcmp(st->valuestring, "running"))
		return isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                          "session %s is %.40s, not running", r->id,
		                          st ? st->valuestring : "(no status)");
	return 0;
}

static const isotier_remote_provider vercel_provider = {
    .name = "vercel",
    .kind = "session",
    .settings = vercel_settings,
    .key_env = "VERCEL_TOKEN",
    .url_env = "ISOTIER_VERCEL_API_URL",
    .url_default = "https://vercel.com/api",
    .id_envs = {"VERCEL_TEAM_ID", "VERCEL_PROJECT_ID"},
    .query = {.env = "VERCEL_TEAM_ID", .before = "teamId="},
    .auth = "Authorization: Bearer ",
    .max_body = 4u << 20,
    .create = {.path = "/v3/sandboxes", .status = {200, 201}, .obj = "session", .id = "id"},
    .lookup = "/v2/sandboxes/sessions/%s",
    .del = {.method = "POST",
            .path = "/v2/sandboxes/sessions/%s/stop",
            .body = "{}",
            .ok = {200, 404}},
    /* Listed by project: the run's is the one named isotier-<nonce>. */
    .list = {.path = "/v2/sandboxes",
             .filter = "project=%s",
             .env = "VERCEL_PROJECT_ID",
             .key = "sandboxes",
             .id = "currentSessionId",
             .mine = {"name"},
             .prefix = "isotier-"},
    .ops = {.about = vercel_about,
            .create_body = vercel_create_body,
            .attached = vercel_attached,
            .upload = vercel_upload,
            .exec = vercel_exec},
};

ISOTIER_REMOTE_BACKEND(vercel, .catalogue_id = "vercel-sandbox",
                       .description = "Vercel Sandbox (remote; Firecracker microVMs as claimed): "
                                      "VERCEL_TOKEN, VERCEL_TEAM_ID, VERCEL_PROJECT_ID");
