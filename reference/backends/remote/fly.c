/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fly.c - Fly Machines (a row and its protocol over the remote engine,
 * remote.h).
 *
 * Follows the Machines API OpenAPI in superfly/fly-openapi-sdk
 * go/api/openapi.yaml at f0c59fb585f616492629684c3cd11456a49efb97
 * (server https://api.machines.dev/v1, Authorization: Bearer <token>):
 * POST /apps/{app_name}/machines (CreateMachineRequest: config api.MachineConfig
 * with image, files [api.File guest_path + raw_value base64], init.cmd,
 * metadata, restart, auto_destroy; region -> 200 Machine), GET
 * /apps/{app_name}/machines/{machine_id}/wait?state=started&timeout=, POST
 * .../{machine_id}/exec (MachineExecRequest command[], timeout), GET
 * /apps/{app_name}/machines (a create whose outcome is unknown: found by
 * config.metadata), DELETE .../{machine_id}?force=true (200; 404 gone).
 * That spec gives exec's 200 body only as "raw command output"; it is read
 * as the JSON object fly-go's MachineExecResponse decodes (exit_code,
 * stdout, stderr; zero values omitted).
 *
 * The probe travels inside the create request (config.files), so no second
 * upload is needed. The Machine runs `sleep` for the run's limit plus a
 * minute with auto_destroy and restart "no": a leaked Machine ends itself.
 *
 * Environment: FLY_API_TOKEN and FLY_APP (required), ISOTIER_FLY_API_URL
 * (default https://api.machines.dev/v1), ISOTIER_FLY_IMAGE (default
 * docker.io/library/alpine:3), ISOTIER_FLY_REGION.
 */
#include "remote.h"
#include "../../core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>

#define PROBE_MAX (8u << 20)

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting fly_settings[] = {
    {.env = "FLY_API_TOKEN", .meaning = "the Fly.io API token", .secret = true, .required = true},
    {.env = "FLY_APP", .meaning = "the Fly app the Machines are created in", .required = true},
    {.env = "ISOTIER_FLY_API_URL",
     .meaning = "the Machines API endpoint (default https://api.machines.dev/v1)"},
    {.env = "ISOTIER_FLY_IMAGE",
     .meaning = "the image Machines run (default docker.io/library/alpine:3)"},
    {.env = "ISOTIER_FLY_REGION", .meaning = "the region to create in (default: the app's)"},
    ISOTIER_REMOTE_SETTING_CAP,
    {0},
};

static void fly_about(char *why, size_t why_len)
{
	snprintf(why, why_len, "Fly Machines in app %.64s, image %s", getenv("FLY_APP"),
	         isotier__remote_setting("ISOTIER_FLY_IMAGE", "docker.io/library/alpine:3"));
}

/* base64 of n bytes (malloc'd); NULL when out of memory. */
static char *b64_of(const unsigned char *p, size_t len)
{
	char *b64 = malloc((len + 2) / 3 * 4 + 1);
	if (!b64)
		return NULL;
	static const char tbl[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) |
		             (i + 2 < len ? p[i + 2] : 0);
		b64[o++] = tbl[v >> 18 & 63];
		b64[o++] = tbl[v >> 12 & 63];
		b64[o++] = i + 1 < len ? tbl[v >> 6 & 63] : '=';
		b64[o++] = i + 2 < len ? tbl[v & 63] : '=';
	}
	b64[o] = '\0';
	return b64;
}

/* The create request: the probe inside as config.files[0]; the image the
 * spec's like (an attached machine's) or the configured one. */
static char *fly_create_body(isotier_remote_run *r, const isotier_backend_spec *spec,
                             isotier_error *err)
{
	cleanup_free char *probe = NULL;
	size_t len = 0;
	if (isotier__read_file(&probe, &len, spec->probe_path, PROBE_MAX, err) != 0)
		return NULL;
	char *b64 = b64_of((const unsigned char *)probe, len);
	if (!b64) {
		isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		return NULL;
	}
	char sleep_s[32];
	snprintf(sleep_s, sizeof sleep_s, "%lld",
	         (long long)isotier__remote_ttl_s(r->deadline_ms, r->timeout_s));
	cJSON *body = cJSON_CreateObject();
	cJSON *cfg = cJSON_AddObjectToObject(body, "config");
	cJSON_AddStringToObject(
	    cfg, "image",
	    isotier__remote_like(spec, "ISOTIER_FLY_IMAGE", "docker.io/library/alpine:3"));
	cJSON_AddBoolToObject(cfg, "auto_destroy", true);
	cJSON *restart = cJSON_AddObjectToObject(cfg, "restart");
	cJSON_AddStringToObject(restart, "policy", "no");
	cJSON *init = cJSON_AddObjectToObject(cfg, "init");
	cJSON *cmd = cJSON_AddArrayToObject(init, "cmd");
	cJSON_AddItemToArray(cmd, cJSON_CreateString("sleep"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString(sleep_s));
	cJSON *md = cJSON_AddObjectToObject(cfg, "metadata");
	cJSON_AddStringToObject(md, "isotier-nonce", r->nonce);
	cJSON *files = cJSON_AddArrayToObject(cfg, "files");
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "guest_path", ISOTIER_REMOTE_GUEST_DIR "/isotier-probe");
	cJSON_AddStringToObject(f, "raw_value", b64);
	cJSON_AddItemToArray(files, f);
	free(b64);
	const char *region = isotier__remote_setting("ISOTIER_FLY_REGION", NULL);
	if (region)
		cJSON_AddStringToObject(body, "region", region);
	return isotier__remote_print(body, err);
}

/* After the create: GET .../wait until the machine has started. */
static int fly_ready(isotier_remote_run *r, isotier_error *err)
{
	char path[300];
	int64_t budget = isotier__remote_budget_ms(r->deadline_ms, 60000);
	snprintf(path, sizeof path, "/machines/%s/wait?state=started&timeout=%lld", r->id,
	         (long long)(budget / 1000 > 0 ? budget / 1000 : 1));
	isotier_remote_call c = {.method = "GET",
	                         .path = path,
	                         .retry_5xx = true,
	                         .cancel_fd = r->cancel_fd,
	                         .timeout_ms = budget + 5000};
	isotier_http_response resp;
	int rc = isotier__remote_call(r, &c, &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "GET /machines/{id}/wait", &resp);
	isotier__http_response_clear(&resp);
	return rc;
}

/* POST .../exec (MachineExecRequest): sh -c script; the answer (an object),
 * its exit_code (absent when 0) checked a number. NULL and err on error. */
static cJSON *run(isotier_remote_run *r, const char *script, int timeout_s, int cancel_fd,
                  const cJSON **code, isotier_error *err)
{
	cJSON *body = cJSON_CreateObject();
	if (!body || !isotier__remote_sh_args(body, NULL, "command", script) ||
	    !cJSON_AddNumberToObject(body, "timeout", timeout_s)) {
		cJSON_Delete(body);
		isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		return NULL;
	}
	char path[300];
	snprintf(path, sizeof path, "/machines/%s/exec", r->id);
	isotier_remote_call c = {.method = "POST",
	                         .path = path,
	                         .cancel_fd = cancel_fd,
	                         .timeout_ms = isotier__remote_budget_ms(
	                             r->deadline_ms, (int64_t)timeout_s * 1000 + 5000)};
	int rc;
	cJSON *doc = isotier__remote_json(r, &c, body, "POST /machines/{id}/exec", "exec response",
	                                  &rc, err);
	*code = cJSON_GetObjectItemCaseSensitive(doc, "exit_code");
	if (!rc && (!cJSON_IsObject(doc) || (*code && !cJSON_IsNumber(*code)))) {
		isotier__error_set(err, ISOTIER_EDATA, 0, "exec response: not an object");
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* That spec gives exec's 200 body only as "raw command output": read as the
 * object fly-go's MachineExecResponse decodes (zero values omitted). */
static int fly_exec(isotier_remote_run *r, const isotier_exec_request *req, const char *script,
                    int cancel_fd, int timeout_s, int *exit_status, isotier_error *err)
{
	const cJSON *code = NULL;
	cJSON *doc = run(r, script, timeout_s, cancel_fd, &code, err);
	if (!doc)
		return err->code;
	const cJSON *so = cJSON_GetObjectItemCaseSensitive(doc, "stdout");
	const cJSON *se = cJSON_GetObjectItemCaseSensitive(doc, "stderr");
	int rc = 0;
	if ((so && !cJSON_IsString(so)) || (se && !cJSON_IsString(se)))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "exec response: exit_code/stdout/stderr");
	if (!rc && so)
		rc = isotier__remote_relay(req, 1, so->valuestring, strlen(so->valuestring), err);
	if (!rc && se)
		rc = isotier__remote_relay(req, 2, se->valuestring, strlen(se->valuestring), err);
	if (!rc && code) /* absent when 0 */
		rc = isotier__remote_exit_code("fly", "exec response exit_code", code, exit_status,
		                               err);
	else if (!rc)
		*exit_status = 0;
	cJSON_Delete(doc);
	return rc;
}

/* One sh -c script run in the machine through exec; an exit status other
 * than 0 is an error. */
static int run_sh(isotier_remote_run *r, const char *script, isotier_error *err)
{
	const cJSON *code = NULL;
	cJSON *doc = run(r, script, 30, r->cancel_fd, &code, err);
	if (!doc)
		return err->code;
	int rc = 0;
	if (code && code->valuedouble != 0)
		rc = isotier__error_set(err, ISOTIER_EIO, 0,
		                        "the probe's upload exited with %.17g (the machine needs "
		                        "/bin/sh, base64 and a writable /tmp)",
		                        code->valuedouble);
	cJSON_Delete(doc);
	return rc;
}

/* The caller's machine (GET /machines/{id}): a started one only (isotier
 * starts nothing of the caller's); its config.image is what the second
 * machine is created from. */
static int fly_attached(isotier_remote_run *r, const cJSON *doc, char *like, size_t like_len,
                        isotier_error *err)
{
	const cJSON *mid = cJSON_GetObjectItemCaseSensitive(doc, "id");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state");
	const cJSON *img =
	    isotier__remote_field(doc, (const char *[]){"config", "image", NULL}, cJSON_String);
	if (!cJSON_IsString(mid) || strcmp(mid->valuestring, r->id))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "Machine: not machine %s", r->id);
	if (!cJSON_IsString(st) || strcmp(st->valuestring, "started"))
		return isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                          "machine %s is %.40s, not started: isotier starts "
		                          "nothing of the caller's",
		                          r->id,
		                          cJSON_IsString(st) ? st->valuestring : "(no state)");
	if (img && isotier__remote_setting_valid(img->valuestring))
		snprintf(like, like_len, "%s", img->valuestring);
	return 0;
}

/* An attached machine's probe (a created one carries it in config.files):
 * the Machines API has no file upload, so it goes in through exec, in
 * base64 pieces of 60 KiB (an argument stays under the kernel's 128 KiB per
 * argument), into a .part renamed once whole. */
static int fly_upload(isotier_remote_run *r, isotier_error *err)
{
	cleanup_free char *probe = NULL;
	size_t len = 0;
	int rc = isotier__read_file(&probe, &len, r->probe, PROBE_MAX, err);
	const size_t piece = 45 << 10; /* 60 KiB of base64 */
	for (size_t off = 0; !rc && off < len; off += piece) {
		size_t n = len - off < piece ? len - off : piece;
		cleanup_free char *b64 = b64_of((const unsigned char *)probe + off, n);
		cleanup_free char *script = NULL;
		if (!b64 || asprintf(&script,
		                     "mkdir -p " ISOTIER_REMOTE_GUEST_DIR " && printf %%s '%s' | "
		                     "base64 -d %s " ISOTIER_REMOTE_GUEST_DIR "/isotier-probe.part",
		                     b64, off ? ">>" : ">") < 0) {
			script = NULL;
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
			break;
		}
		rc = run_sh(r, script, err);
	}
	if (!rc)
		rc = run_sh(r,
		            "mv " ISOTIER_REMOTE_GUEST_DIR
		            "/isotier-probe.part " ISOTIER_REMOTE_GUEST_DIR "/isotier-probe",
		            err);
	return rc;
}

static const isotier_remote_provider fly_provider = {
    .name = "fly",
    .kind = "machine",
    .settings = fly_settings,
    .key_env = "FLY_API_TOKEN",
    .url_env = "ISOTIER_FLY_API_URL",
    .url_default = "https://api.machines.dev/v1",
    .id_envs = {"FLY_APP"},
    .scope = {.env = "FLY_APP", .before = "/apps/"},
    .auth = "Authorization: Bearer ",
    .max_body = 4u << 20,
    .create = {.path = "/machines", .status = {200}, .id = "id", .probe_inside = true},
    .lookup = "/machines/%s",
    .del = {.method = "DELETE", .path = "/machines/%s?force=true", .ok = {200, 404}},
    .list = {.path = "/machines", .id = "id", .mine = {"config", "metadata", "isotier-nonce"}},
    .ops = {.about = fly_about,
            .create_body = fly_create_body,
            .ready = fly_ready,
            .attached = fly_attached,
            .upload = fly_upload,
            .exec = fly_exec},
};

ISOTIER_REMOTE_BACKEND(fly, .catalogue_id = "flyio-machines",
                       .description = "Fly Machines (remote; Firecracker microVMs as claimed): "
                                      "FLY_API_TOKEN, FLY_APP");
