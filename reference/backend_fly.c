/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_fly.c - Fly Machines (remote, see backend_remote.h).
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
#include "backend_remote.h"
#include "core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>

#define FLY_TOKEN_ENV "FLY_API_TOKEN"
#define FLY_APP_ENV   "FLY_APP"
#define PROBE_MAX     (8u << 20)

typedef struct fly_state {
	isotier_remote_run r;
	char app[80];
	char id[130];
} fly_state;

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting fly_settings[] = {
    {.env = "FLY_API_TOKEN", .meaning = "the Fly.io API token", .secret = true, .required = true},
    {.env = "FLY_APP", .meaning = "the Fly app the Machines are created in", .required = true},
    {.env = "ISOTIER_FLY_API_URL",
     .meaning = "the Machines API endpoint (default https://api.machines.dev/v1)"},
    {.env = "ISOTIER_FLY_IMAGE",
     .meaning = "the image Machines run (default docker.io/library/alpine:3)"},
    {.env = "ISOTIER_FLY_REGION", .meaning = "the region to create in (default: the app's)"},
    {.env = "ISOTIER_REMOTE_MAX_SANDBOXES",
     .meaning = "sandboxes one run may create for this provider, 0..100 (default 2)"},
    {0},
};

static int fly_available(char *why, size_t why_len)
{
	if (!isotier__remote_configured(fly_settings, why, why_len))
		return 0;
	if (!isotier__remote_id_valid(getenv(FLY_APP_ENV))) {
		snprintf(why, why_len, "FLY_APP is not an app name");
		return 0;
	}
	snprintf(why, why_len, "Fly Machines in app %.64s, image %s", getenv(FLY_APP_ENV),
	         isotier__remote_setting("ISOTIER_FLY_IMAGE", "docker.io/library/alpine:3"));
	return 1;
}

/* A cleanup request ignores cancel_fd and the run's deadline. */
static int call(fly_state *s, const char *method, const char *path, const char *body,
                bool retry_5xx, bool cleanup, int cancel_fd, int64_t timeout_ms,
                isotier_http_response *resp, isotier_error *err)
{
	char url[1024], auth[700];
	snprintf(url, sizeof url, "%s/apps/%s%s", s->r.api, s->app, path);
	snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->r.key);
	const char *hdrs[] = {auth, body ? "Content-Type: application/json" : NULL, NULL};
	isotier_http_request r = {.method = method,
	                          .url = url,
	                          .headers = hdrs,
	                          .body = body,
	                          .body_len = body ? strlen(body) : 0,
	                          .timeout_ms = timeout_ms,
	                          .retry_5xx = retry_5xx,
	                          .max_body = 4u << 20};
	return isotier__remote_perform(&s->r, &r, cleanup, cancel_fd, resp, err);
}

static int destroy_one(void *p, const char *id, isotier_error *err)
{
	fly_state *s = p;
	char path[256];
	snprintf(path, sizeof path, "/machines/%s?force=true", id);
	isotier_http_response resp;
	int rc = call(s, "DELETE", path, NULL, true, true, -1, 15000, &resp, err);
	if (!rc && resp.status != 200 && resp.status != 404)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "DELETE /machines/{id}", &resp);
	isotier__http_response_clear(&resp);
	if (rc)
		return isotier__error_prefix(err, "fly machine %s may still exist", id);
	return 0;
}

static int sweep(void *p, isotier_error *err)
{
	fly_state *s = p;
	isotier_http_response resp;
	int rc = call(s, "GET", "/machines", NULL, true, true, -1, 15000, &resp, err);
	cJSON *list =
	    isotier__remote_answer(&rc, &resp, 200, "GET /machines", "GET /machines", err);
	if (!rc && !cJSON_IsArray(list))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "GET /machines: not an array");
	int first = 0;
	const cJSON *it;
	cJSON *arr = rc ? NULL : list;
	cJSON_ArrayForEach(it, arr)
	{
		const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(it, "config");
		const cJSON *md = cJSON_GetObjectItemCaseSensitive(cfg, "metadata");
		const cJSON *nonce = cJSON_GetObjectItemCaseSensitive(md, "isotier-nonce");
		if (cJSON_IsString(nonce) && !strcmp(nonce->valuestring, s->r.nonce))
			isotier__remote_sweep_one(
			    s, cJSON_GetObjectItemCaseSensitive(it, "id"), destroy_one,
			    "a listed machine without a valid id", &first, err);
	}
	cJSON_Delete(list);
	if (rc)
		return isotier__error_prefix(err,
		                             "fly: a create's outcome is unknown and its machine "
		                             "(metadata isotier-nonce=%s) may still exist",
		                             s->r.nonce);
	return first;
}

/* A run that died left its sandboxes: found by its nonce, deleted (sweep.h). */
static int fly_sweep_run(const char *nonce, const char *api, isotier_error *err)
{
	fly_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "fly: out of memory");
	snprintf(s->app, sizeof s->app, "%s", getenv(FLY_APP_ENV) ? getenv(FLY_APP_ENV) : "");
	int rc = isotier__remote_sweep_run(&s->r, nonce, api, FLY_TOKEN_ENV, "ISOTIER_FLY_API_URL",
	                                   "https://api.machines.dev/v1", err);
	if (!rc)
		rc = sweep(s, err);
	free(s);
	return rc;
}

static int fly_release(void *p, isotier_error *err)
{
	fly_state *s = p;
	return s ? isotier__remote_release(s, &s->r, s->id, destroy_one, sweep, err) : 0;
}

static void fly_destroy(void *p)
{
	fly_release(p, NULL);
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
static char *create_body(const fly_state *s, const isotier_backend_spec *spec, isotier_error *err)
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
	         (long long)isotier__remote_ttl_s(s->r.deadline_ms, s->r.timeout_s));
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
	cJSON_AddStringToObject(md, "isotier-nonce", s->r.nonce);
	cJSON *files = cJSON_AddArrayToObject(cfg, "files");
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "guest_path", ISOTIER_REMOTE_GUEST_DIR "/isotier-probe");
	cJSON_AddStringToObject(f, "raw_value", b64);
	cJSON_AddItemToArray(files, f);
	free(b64);
	const char *region = isotier__remote_setting("ISOTIER_FLY_REGION", NULL);
	if (region)
		cJSON_AddStringToObject(body, "region", region);
	char *json = isotier__json_print(body, false); /* valid UTF-8 */
	cJSON_Delete(body);
	if (!json)
		isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	return json;
}

static int fly_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	int rc = isotier__remote_provision_check("fly", fly_available, spec, SIZE_MAX, err);
	if (rc)
		return rc;
	fly_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "fly: out of memory");
	snprintf(s->app, sizeof s->app, "%s", getenv(FLY_APP_ENV));
	rc = isotier__remote_run_init(&s->r, spec, FLY_TOKEN_ENV, "ISOTIER_FLY_API_URL",
	                              "https://api.machines.dev/v1", err);
	char *body = rc ? NULL : create_body(s, spec, err);
	if (!rc && !body)
		rc = err->code;
	if (!rc)
		rc = isotier__remote_reserve("fly", err);
	if (!rc)
		rc = isotier__remote_lease(&s->r, "fly", err);
	if (rc) {
		cJSON_free(body);
		free(s);
		return isotier__error_prefix(err, "fly: provision");
	}
	isotier_http_response resp;
	rc = call(s, "POST", "/machines", body, false, false, s->r.cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, 60000), &resp, err);
	cJSON_free(body);
	if (!rc && resp.status == 200)
		rc = isotier__remote_created_id(&resp, "POST /machines", NULL, "id", s->id,
		                                sizeof s->id, &s->r.created, &s->r.unknown, err);
	else if (!rc)
		rc = isotier__remote_create_error(err, "POST /machines", &resp);
	if (!s->r.created && !s->r.unknown)
		s->r.unknown = isotier__remote_outcome_unknown(rc, &resp);
	isotier__http_response_clear(&resp);
	if (!rc) {
		char path[300];
		int64_t budget = isotier__remote_budget_ms(s->r.deadline_ms, 60000);
		snprintf(path, sizeof path, "/machines/%s/wait?state=started&timeout=%lld", s->id,
		         (long long)(budget / 1000 > 0 ? budget / 1000 : 1));
		rc = call(s, "GET", path, NULL, true, false, s->r.cancel_fd, budget + 5000, &resp,
		          err);
		if (!rc && resp.status != 200)
			rc = isotier__http_status_error(err, ISOTIER_EIO, "GET /machines/{id}/wait",
			                                &resp);
		isotier__http_response_clear(&resp);
	}
	return isotier__remote_provision_end(out, s, &s->r, rc, "fly", "machine", s->id, err);
}

static int fly_exec(void *p, const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	fly_state *s = p;
	cleanup_free char *script = NULL;
	int cancel_fd;
	int rc = isotier__remote_exec_begin("fly", s->r.cancel_fd, req, NULL, exit_status,
	                                    &cancel_fd, &script, err);
	if (rc)
		return rc;
	int timeout_s = req->timeout_s > 0 ? req->timeout_s : s->r.timeout_s;
	cJSON *body = cJSON_CreateObject();
	cJSON *cmd = cJSON_AddArrayToObject(body, "command");
	cJSON_AddItemToArray(cmd, cJSON_CreateString("/bin/sh"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString(script));
	cJSON_AddNumberToObject(body, "timeout", timeout_s);
	char *json = isotier__json_print(body, false); /* valid UTF-8 */
	cJSON_Delete(body);
	if (!json)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "fly: out of memory");
	char path[300];
	snprintf(path, sizeof path, "/machines/%s/exec", s->id);
	isotier_http_response resp;
	rc = call(s, "POST", path, json, false, false, cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, (int64_t)timeout_s * 1000 + 5000),
	          &resp, err);
	cJSON_free(json);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, "POST /machines/{id}/exec",
	                                    "exec response", err);
	if (!rc && !cJSON_IsObject(doc))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "exec response: not an object");
	const cJSON *code = doc ? cJSON_GetObjectItemCaseSensitive(doc, "exit_code") : NULL;
	const cJSON *so = doc ? cJSON_GetObjectItemCaseSensitive(doc, "stdout") : NULL;
	const cJSON *se = doc ? cJSON_GetObjectItemCaseSensitive(doc, "stderr") : NULL;
	if (!rc && ((code && !cJSON_IsNumber(code)) || (so && !cJSON_IsString(so)) ||
	            (se && !cJSON_IsString(se))))
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
	if (rc)
		return isotier__error_prefix(err, "fly: exec in machine %s", s->id);
	return 0;
}

/* One sh -c script run in the machine through exec; an exit status other
 * than 0 is an error. */
static int run_sh(fly_state *s, const char *script, isotier_error *err)
{
	cJSON *body = cJSON_CreateObject();
	cJSON *cmd = cJSON_AddArrayToObject(body, "command");
	cJSON_AddItemToArray(cmd, cJSON_CreateString("/bin/sh"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString(script));
	cJSON_AddNumberToObject(body, "timeout", 30);
	char *json = isotier__json_print(body, false);
	cJSON_Delete(body);
	if (!json)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	char path[300];
	snprintf(path, sizeof path, "/machines/%s/exec", s->id);
	isotier_http_response resp;
	int rc = call(s, "POST", path, json, false, false, s->r.cancel_fd,
	              isotier__remote_budget_ms(s->r.deadline_ms, 35000), &resp, err);
	cJSON_free(json);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, "POST /machines/{id}/exec",
	                                    "exec response", err);
	const cJSON *code = doc ? cJSON_GetObjectItemCaseSensitive(doc, "exit_code") : NULL;
	if (!rc && (!cJSON_IsObject(doc) || (code && !cJSON_IsNumber(code))))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "exec response: not an object");
	else if (!rc && code && code->valuedouble != 0)
		rc = isotier__error_set(err, ISOTIER_EIO, 0,
		                        "the probe's upload exited with %.17g (the machine needs "
		                        "/bin/sh, base64 and a writable /tmp)",
		                        code->valuedouble);
	cJSON_Delete(doc);
	return rc;
}

/*
 * The caller's machine: GET /machines/{id} (a started one only: isotier
 * starts nothing of the caller's; its config.image is what the second
 * machine is created from). The Machines API has no file upload: the probe
 * goes in through exec, in base64 pieces of 60 KiB (an argument stays under
 * the kernel's 128 KiB per argument), into a .part renamed once whole.
 * Never destroyed (release() only frees the state).
 */
static int fly_attach(void **out, const isotier_backend_spec *spec, const char *id, char *like,
                      size_t like_len, isotier_error *err)
{
	*out = NULL;
	like[0] = '\0';
	fly_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "fly: out of memory");
	int rc = isotier__remote_attach_begin(&s->r, "fly", fly_available, spec, SIZE_MAX, id,
	                                      FLY_TOKEN_ENV, "ISOTIER_FLY_API_URL",
	                                      "https://api.machines.dev/v1", err);
	if (rc) {
		free(s);
		return rc;
	}
	snprintf(s->app, sizeof s->app, "%s", getenv(FLY_APP_ENV));
	snprintf(s->id, sizeof s->id, "%s", id);
	char path[300];
	snprintf(path, sizeof path, "/machines/%s", id);
	isotier_http_response resp;
	rc = call(s, "GET", path, NULL, true, false, s->r.cancel_fd,
	          isotier__remote_budget_ms(s->r.deadline_ms, 15000), &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__remote_attach_status(err, "GET /machines/{id}", id, &resp);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, "GET /machines/{id}", "Machine", err);
	const cJSON *mid = cJSON_GetObjectItemCaseSensitive(doc, "id");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "state");
	const cJSON *img = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(doc, "config"), "image");
	if (!rc && (!cJSON_IsString(mid) || strcmp(mid->valuestring, id)))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "Machine: not machine %s", id);
	else if (!rc && (!cJSON_IsString(st) || strcmp(st->valuestring, "started")))
		rc = isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                        "machine %s is %.40s, not started: isotier starts nothing "
		                        "of the caller's",
		                        id, cJSON_IsString(st) ? st->valuestring : "(no state)");
	else if (!rc && cJSON_IsString(img) && isotier__remote_setting_valid(img->valuestring))
		snprintf(like, like_len, "%s", img->valuestring);
	cJSON_Delete(doc);
	cleanup_free char *probe = NULL;
	size_t len = 0;
	if (!rc)
		rc = isotier__read_file(&probe, &len, spec->probe_path, PROBE_MAX, err);
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
		rc = run_sh(s, script, err);
	}
	if (!rc)
		rc = run_sh(s,
		            "mv " ISOTIER_REMOTE_GUEST_DIR
		            "/isotier-probe.part " ISOTIER_REMOTE_GUEST_DIR "/isotier-probe",
		            err);
	return isotier__remote_attach_end(out, s, rc, "fly", id, err);
}

const isotier_backend isotier__backend_fly = {
    .version = ISOTIER_BACKEND_VERSION,
    .settings = fly_settings,
    .name = "fly",
    .catalogue_id = "flyio-machines",
    .description = "Fly Machines (remote; Firecracker microVMs as claimed): FLY_API_TOKEN, FLY_APP",
    .remote = true,
    .delivers_output = true,
    .available = fly_available,
    .provision = fly_provision,
    .exec = fly_exec,
    .destroy = fly_destroy,
    .release = fly_release,
    .sweep_run = fly_sweep_run,
    .fetch = isotier__fetch_by_exec,
    .attach = fly_attach,
};
