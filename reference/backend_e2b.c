/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_e2b.c - MICROVM as claimed: E2B sandboxes (remote, see
 * backend_remote.h).
 *
 * Follows, in e2b-dev/E2B at b8029973aa7da5f741f7bb1a9f833b38a0885438
 * (2026-08-21):
 * - spec/openapi.yml: POST /sandboxes (NewSandbox -> 201 Sandbox),
 *   GET /v2/sandboxes?metadata=, DELETE /sandboxes/{sandboxID} (204; 404 gone);
 *   header X-API-Key.
 * - spec/envd/envd.yaml: POST /files?path=&username= (multipart/form-data,
 *   field "file"; 200 [EntryInfo]); header X-Access-Token (envdAccessToken).
 * - spec/envd/process/process.proto: process.Process/Start over the Connect
 *   protocol, HTTP/1.1, JSON codec: request and responses are enveloped
 *   (1 flag byte, 4-byte big-endian length); StartResponse.event is one of
 *   start{pid}, data{stdout|stderr|pty: base64}, end{exitCode, exited,
 *   status, error}, keepalive{}; the last envelope (flag 0x02) is the
 *   end-of-stream message {"error"?: {"code","message"}}.
 * envd is reached at https://49983-<sandboxID>.<domain> (domain from the
 * Sandbox, default e2b.app) unless $ISOTIER_E2B_ENVD_URL gives a base URL
 * where "{id}" stands for the sandbox id.
 *
 * Environment: E2B_API_KEY (required), ISOTIER_E2B_API_URL (default
 * https://api.e2b.app), ISOTIER_E2B_TEMPLATE (default "base"),
 * ISOTIER_E2B_ENVD_URL. The sandbox's own timeout (its time to live at E2B) is
 * the run's limit plus a minute, so even a leaked sandbox ends by itself.
 */
#include "backend_remote.h"
#include "core/connect.h"
#include "core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>

#define E2B_KEY_ENV "E2B_API_KEY"
#define ENVD_PORT   "49983"

typedef struct e2b_state {
	isotier_remote_run r;
	char id[130];
	char envd[768];
	char token[256]; /* envdAccessToken; "" when none */
	char tmpl[130];  /* the templateID the provider reported; "" when not valid */
	char probe[4096];
} e2b_state;

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting e2b_settings[] = {
    {.env = "E2B_API_KEY", .meaning = "the E2B API key", .secret = true, .required = true},
    {.env = "ISOTIER_E2B_API_URL", .meaning = "the API endpoint (default https://api.e2b.app)"},
    {.env = "ISOTIER_E2B_ENVD_URL",
     .meaning = "the sandbox daemon URL, {id} for the sandbox id (default from the API)"},
    {.env = "ISOTIER_E2B_TEMPLATE", .meaning = "the template sandboxes start from (default base)"},
    {.env = "ISOTIER_REMOTE_MAX_SANDBOXES",
     .meaning = "sandboxes one run may create for this provider, 0..100 (default 2)"},
    {0},
};

static int e2b_available(char *why, size_t why_len)
{
	if (!isotier__remote_configured(e2b_settings, why, why_len))
		return 0;
	snprintf(why, why_len, "E2B at %s, template %s",
	         getenv("ISOTIER_E2B_API_URL") && *getenv("ISOTIER_E2B_API_URL")
	             ? "ISOTIER_E2B_API_URL"
	             : "https://api.e2b.app",
	         isotier__remote_setting("ISOTIER_E2B_TEMPLATE", "base"));
	return 1;
}

/* Control-plane request with the API key. A cleanup request ignores cancel_fd
 * and the run's deadline. */
static int api(e2b_state *s, const char *method, const char *path, const char *body, bool retry_5xx,
               bool cleanup, int cancel_fd, int64_t timeout_ms, isotier_http_response *resp,
               isotier_error *err)
{
	char url[1024], key[600];
	snprintf(url, sizeof url, "%s%s", s->r.api, path);
	snprintf(key, sizeof key, "X-API-Key: %s", s->r.key);
	const char *hdrs[] = {key, body ? "Content-Type: application/json" : NULL,
	                      body ? "Accept: application/json" : NULL, NULL};
	isotier_http_request r = {
	    .method = method,
	    .url = url,
	    .headers = hdrs,
	    .body = body,
	    .body_len = body ? strlen(body) : 0,
	    .timeout_ms = timeout_ms,
	    .retry_5xx = retry_5xx,
	};
	return isotier__remote_perform(&s->r, &r, cleanup, cancel_fd, resp, err);
}

static int kill_one(void *p, const char *id, isotier_error *err)
{
	e2b_state *s = p;
	char path[256];
	snprintf(path, sizeof path, "/sandboxes/%s", id);
	isotier_http_response resp;
	int rc = api(s, "DELETE", path, NULL, true, true, -1, 15000, &resp, err);
	if (!rc && resp.status != 204 && resp.status != 404)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "DELETE /sandboxes/{id}", &resp);
	isotier__http_response_clear(&resp);
	if (rc)
		return isotier__error_prefix(err, "e2b sandbox %s may still exist", id);
	return 0;
}

/* A create whose outcome is unknown: find what it made by its nonce, kill it. */
static int sweep(void *p, isotier_error *err)
{
	e2b_state *s = p;
	char q[128];
	snprintf(q, sizeof q, "isotier-nonce=%s", s->r.nonce);
	char *esc = isotier__http_escape(q);
	if (!esc)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	char path[300];
	snprintf(path, sizeof path, "/v2/sandboxes?metadata=%s", esc);
	free(esc);
	isotier_http_response resp;
	int rc = api(s, "GET", path, NULL, true, true, -1, 15000, &resp, err);
	cJSON *list =
	    isotier__remote_answer(&rc, &resp, 200, "GET /v2/sandboxes", "GET /v2/sandboxes", err);
	if (!rc && !cJSON_IsArray(list))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "GET /v2/sandboxes: not an array");
	int first = 0;
	const cJSON *it;
	cJSON *arr = rc ? NULL : list;
	cJSON_ArrayForEach(it, arr)
	{
		isotier__remote_sweep_one(s, cJSON_GetObjectItemCaseSensitive(it, "sandboxID"),
		                          kill_one, "a listed sandbox without a valid sandboxID",
		                          &first, err);
	}
	cJSON_Delete(list);
	if (rc)
		return isotier__error_prefix(err,
		                             "e2b: a create's outcome is unknown and its "
		                             "sandbox (metadata isotier-nonce=%s) may still exist",
		                             s->r.nonce);
	return first;
}

/* A run that died left its sandboxes: found by its nonce, deleted (sweep.h). */
static int e2b_sweep_run(const char *nonce, const char *api, isotier_error *err)
{
	e2b_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "e2b: out of memory");
	int rc = isotier__remote_sweep_run(&s->r, nonce, api, E2B_KEY_ENV, "ISOTIER_E2B_API_URL",
	                                   "https://api.e2b.app", err);
	if (!rc)
		rc = sweep(s, err);
	free(s);
	return rc;
}

static int e2b_release(void *p, isotier_error *err)
{
	e2b_state *s = p;
	return s ? isotier__remote_release(s, &s->r, s->id, kill_one, sweep, err) : 0;
}

static void e2b_destroy(void *p)
{
	e2b_release(p, NULL);
}

/* A Sandbox (POST /sandboxes) or SandboxDetail (GET /sandboxes/{id}): what
 * names the request. The template goes to like (when not NULL). */
static int parse_sandbox(e2b_state *s, const isotier_http_response *resp, const char *what,
                         char *like, size_t like_len, isotier_error *err)
{
	cJSON *doc = isotier__json_parse_strict(resp->body, resp->body_len, what, err);
	if (!doc)
		return err->code;
	int rc = 0;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "sandboxID");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(doc, "envdAccessToken");
	const cJSON *dom = cJSON_GetObjectItemCaseSensitive(doc, "domain");
	const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(doc, "templateID");
	if (!cJSON_IsObject(doc) || !cJSON_IsString(id) ||
	    !isotier__remote_id_valid(id->valuestring) || !cJSON_IsString(tmpl))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "%s: no valid sandboxID/templateID in the answer", what);
	else if (s->r.attached && strcmp(id->valuestring, s->id))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s: another sandbox's answer (%s)",
		                        what, id->valuestring);
	else if (tok && !cJSON_IsNull(tok) &&
	         (!cJSON_IsString(tok) || strlen(tok->valuestring) >= sizeof s->token ||
	          strpbrk(tok->valuestring, "\r\n")))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s: bad envdAccessToken", what);
	else if (dom && !cJSON_IsNull(dom) &&
	         (!cJSON_IsString(dom) || !isotier__remote_id_valid(dom->valuestring)))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s: bad domain", what);
	if (!rc && isotier__remote_id_valid(tmpl->valuestring))
		snprintf(s->tmpl, sizeof s->tmpl, "%s", tmpl->valuestring);
	if (like)
		snprintf(like, like_len, "%s", s->tmpl);
	if (!s->r.attached && cJSON_IsString(id) && isotier__remote_id_valid(id->valuestring)) {
		snprintf(s->id, sizeof s->id, "%s", id->valuestring);
		s->r.created = true; /* even when the rest is bad: it exists, kill it */
	}
	/* The token goes with every envd request: kept only once the redactor
	 * knows it (one shorter than it redacts, or past its registry, could
	 * show in an error or the output). */
	if (!rc && cJSON_IsString(tok) && tok->valuestring[0]) {
		if (isotier__secret_add(tok->valuestring) != 0)
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "%s: an envdAccessToken that could not be "
			                        "registered for redaction",
			                        what);
		else
			snprintf(s->token, sizeof s->token, "%s", tok->valuestring);
	}
	const char *domain = cJSON_IsString(dom) ? dom->valuestring : "e2b.app";
	const char *envd = getenv("ISOTIER_E2B_ENVD_URL");
	if (!rc && envd && *envd) {
		const char *at = strstr(envd, "{id}");
		if (strncmp(envd, "http", 4) || strlen(envd) > 400)
			rc = isotier__error_set(err, ISOTIER_ECONFIG, 0,
			                        "ISOTIER_E2B_ENVD_URL: an http(s) URL");
		else if (at)
			snprintf(s->envd, sizeof s->envd, "%.*s%s%s", (int)(at - envd), envd, s->id,
			         at + 4);
		else
			snprintf(s->envd, sizeof s->envd, "%s", envd);
	} else if (!rc) {
		snprintf(s->envd, sizeof s->envd, "https://" ENVD_PORT "-%s.%s", s->id, domain);
	}
	cJSON_Delete(doc);
	return rc;
}

static int upload_probe(e2b_state *s, isotier_error *err)
{
	char base[800], tok[300];
	/* No username: the file belongs to envd's default user, the one the
	 * process runs as, so the probe script may chmod it. */
	snprintf(base, sizeof base, "%s/files", s->envd);
	snprintf(tok, sizeof tok, "X-Access-Token: %s", s->token);
	const char *hdrs[] = {s->token[0] ? tok : NULL, NULL};
	isotier_http_response resp;
	int rc = isotier__remote_upload_probe(base, hdrs, s->probe, s->r.deadline_ms,
	                                      s->r.cancel_fd, &resp, err);
	cJSON *doc =
	    isotier__remote_answer(&rc, &resp, 200, "envd POST /files", "envd POST /files", err);
	if (!rc && !cJSON_IsArray(doc))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "envd POST /files: not an array");
	cJSON_Delete(doc);
	return rc;
}

static int e2b_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	int rc = isotier__remote_provision_check("e2b", e2b_available, spec,
	                                         sizeof((e2b_state *)0)->probe, err);
	if (rc)
		return rc;
	e2b_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "e2b: out of memory");
	snprintf(s->probe, sizeof s->probe, "%s", spec->probe_path);
	rc = isotier__remote_run_init(&s->r, spec, E2B_KEY_ENV, "ISOTIER_E2B_API_URL",
	                              "https://api.e2b.app", err);
	if (!rc)
		rc = isotier__remote_reserve("e2b", err);
	if (!rc)
		rc = isotier__remote_lease(&s->r, "e2b", err);
	if (rc) {
		free(s);
		return isotier__error_prefix(err, "e2b: provision");
	}
	char body[512];
	snprintf(body, sizeof body,
	         "{\"templateID\":\"%s\",\"timeout\":%lld,\"metadata\":{\"isotier-nonce\":\"%s\"}}",
	         isotier__remote_like(spec, "ISOTIER_E2B_TEMPLATE", "base"),
	         (long long)isotier__remote_ttl_s(s->r.deadline_ms, s->r.timeout_s), s->r.nonce);
	isotier_http_response resp;
	/* Never repeated blindly: a 5xx or a timeout leaves the outcome unknown. */
	rc = api(s, "POST", "/sandboxes", body, false, false, s->r.cancel_fd,
	         isotier__remote_budget_ms(s->r.deadline_ms, 60000), &resp, err);
	if (!rc && resp.status == 201)
		rc = parse_sandbox(s, &resp, "POST /sandboxes", NULL, 0, err);
	else if (!rc)
		rc = isotier__remote_create_error(err, "POST /sandboxes", &resp);
	/* A 201 we could not read made a sandbox we cannot name: look for it. */
	s->r.unknown =
	    !s->r.created && (resp.status == 201 || isotier__remote_outcome_unknown(rc, &resp));
	isotier__http_response_clear(&resp);
	if (!rc)
		rc = upload_probe(s, err);
	/* On error, the caller's release() kills or sweeps what may exist. */
	return isotier__remote_provision_end(out, s, &s->r, rc, "e2b", "sandbox", s->id, err);
}

/* The caller's sandbox: GET /sandboxes/{sandboxID} (SandboxDetail: the
 * template, envdAccessToken and domain, as after a create), then the probe
 * uploaded to its envd. Never killed (release() only frees the state). */
static int e2b_attach(void **out, const isotier_backend_spec *spec, const char *id, char *like,
                      size_t like_len, isotier_error *err)
{
	*out = NULL;
	like[0] = '\0';
	e2b_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "e2b: out of memory");
	int rc = isotier__remote_attach_begin(&s->r, "e2b", e2b_available, spec, sizeof s->probe,
	                                      id, E2B_KEY_ENV, "ISOTIER_E2B_API_URL",
	                                      "https://api.e2b.app", err);
	if (rc) {
		free(s);
		return rc;
	}
	snprintf(s->probe, sizeof s->probe, "%s", spec->probe_path);
	snprintf(s->id, sizeof s->id, "%s", id);
	char path[256];
	snprintf(path, sizeof path, "/sandboxes/%s", id);
	isotier_http_response resp;
	rc = api(s, "GET", path, NULL, true, false, s->r.cancel_fd,
	         isotier__remote_budget_ms(s->r.deadline_ms, 15000), &resp, err);
	if (!rc && resp.status == 200)
		rc = parse_sandbox(s, &resp, "GET /sandboxes/{id}", like, like_len, err);
	else if (!rc)
		rc = isotier__remote_attach_status(err, "GET /sandboxes/{id}", id, &resp);
	isotier__http_response_clear(&resp);
	if (!rc)
		rc = upload_probe(s, err);
	return isotier__remote_attach_end(out, s, rc, "e2b", id, err);
}

/* ---- process.Process/Start: the Connect stream --------------------------- */

typedef struct stream {
	const isotier_exec_request *req;
	isotier_connect_decoder dec;
	bool started, ended, eos;
	cJSON *exit_code; /* end.exitCode as sent; NULL: absent (proto3 JSON leaves 0 out) */
	bool exited;
	char status[128];
	char error[256];
} stream;

static int on_event(stream *st, const cJSON *ev, isotier_error *err)
{
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(ev, "data");
	const cJSON *end = cJSON_GetObjectItemCaseSensitive(ev, "end");
	if (cJSON_GetObjectItemCaseSensitive(ev, "start"))
		st->started = true;
	if (cJSON_IsObject(data)) {
		const char *names[] = {"stdout", "stderr", "pty"};
		for (int k = 0; k < 3; k++) {
			const cJSON *b = cJSON_GetObjectItemCaseSensitive(data, names[k]);
			if (!b)
				continue;
			size_t n = cJSON_IsString(b) ? strlen(b->valuestring) : 0;
			unsigned char *raw = cJSON_IsString(b) ? malloc(n / 4 * 3 + 4) : NULL;
			ssize_t got = raw ? isotier__base64_decode(raw, b->valuestring, n) : -1;
			if (got < 0) {
				free(raw);
				return isotier__error_set(err, ISOTIER_EDATA, 0,
				                          "envd: data.%s is not base64", names[k]);
			}
			int rc = isotier__remote_relay(st->req, k == 1 ? 2 : 1, (const char *)raw,
			                               (size_t)got, err);
			free(raw);
			if (rc < 0)
				return rc;
		}
	}
	if (cJSON_IsObject(end)) {
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(end, "exitCode");
		const cJSON *exited = cJSON_GetObjectItemCaseSensitive(end, "exited");
		const cJSON *status = cJSON_GetObjectItemCaseSensitive(end, "status");
		const cJSON *error = cJSON_GetObjectItemCaseSensitive(end, "error");
		/* The code is kept whole and judged once the stream has ended
		 * (exit_status()): never narrowed here. */
		if ((code && !cJSON_IsNumber(code)) || (exited && !cJSON_IsBool(exited)) ||
		    (status && !cJSON_IsString(status)) || (error && !cJSON_IsString(error)))
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "envd: malformed end event");
		if (st->ended)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "envd: a second end event for one process");
		st->ended = true;
		st->exit_code = code ? cJSON_Duplicate(code, false) : NULL;
		if (code && !st->exit_code)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "envd: out of memory");
		st->exited = cJSON_IsTrue(exited);
		snprintf(st->status, sizeof st->status, "%s", status ? status->valuestring : "");
		snprintf(st->error, sizeof st->error, "%s", error ? error->valuestring : "");
	}
	return 0;
}

static int on_message(void *ctx, unsigned flags, const char *msg, size_t len, isotier_error *err)
{
	stream *st = ctx;
	cJSON *doc = isotier__json_parse_strict(msg, len, "envd stream message", err);
	if (!doc)
		return err->code;
	int rc = 0;
	if (!cJSON_IsObject(doc)) {
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "envd: a stream message is not an object");
	} else if (flags & ISOTIER_CONNECT_END_STREAM) {
		st->eos = true;
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
		if (e) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "code");
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
			rc = isotier__error_set(err, ISOTIER_EIO, 0, "envd: %.60s: %.300s",
			                        cJSON_IsString(c) ? c->valuestring : "error",
			                        cJSON_IsString(m) ? m->valuestring : "");
		}
	} else {
		const cJSON *ev = cJSON_GetObjectItemCaseSensitive(doc, "event");
		rc = cJSON_IsObject(ev) ? on_event(st, ev, err)
		                        : isotier__error_set(err, ISOTIER_EDATA, 0,
		                                             "envd: a StartResponse without event");
	}
	cJSON_Delete(doc);
	return rc;
}

static int on_bytes(void *ctx, const char *buf, size_t len, isotier_error *err)
{
	stream *st = ctx;
	return isotier__connect_feed(&st->dec, buf, len, err);
}

/* The end event's exit code, carried whole: a process that exited reports
 * 0-255 (an absent code is 0), anything else is an error, never narrowed to a
 * byte (256 & 0xff would read as success, -1 as 255). One that did not exit
 * was ended by a signal: envd sends the code Go gives such a process (-1) or
 * none, and the status "signal: NAME"; its status is 128 + the signal's
 * number (137, SIGKILL, when the name is not one of these), never 0. */
static int exit_status_of(const stream *st, int *exit_status, isotier_error *err)
{
	if (st->exited) {
		if (!st->exit_code) {
			*exit_status = 0;
			return 0;
		}
		return isotier__remote_exit_code("e2b", "end.exitCode", st->exit_code, exit_status,
		                                 err);
	}
	if (st->exit_code && st->exit_code->valuedouble != -1)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "e2b reported exit code %.17g (end.exitCode) for a process "
		    "that did not exit: not taken as any status",
		    st->exit_code->valuedouble);
	static const struct {
		const char *name;
		int signo;
	} sigs[] = {{"hangup", 1},       {"interrupt", 2},  {"quit", 3},
	            {"aborted", 6},      {"killed", 9},     {"segmentation fault", 11},
	            {"broken pipe", 13}, {"terminated", 15}};
	*exit_status = 128 + 9;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (!strncmp(st->status, "signal: ", 8) && !strcmp(st->status + 8, sigs[i].name))
			*exit_status = 128 + sigs[i].signo;
	return 0;
}

static int e2b_exec(void *p, const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	e2b_state *s = p;
	cleanup_free char *script = NULL;
	int cancel_fd;
	int rc = isotier__remote_exec_begin("e2b", s->r.cancel_fd, req, NULL, exit_status,
	                                    &cancel_fd, &script, err);
	if (rc)
		return rc;
	cJSON *msg = cJSON_CreateObject();
	cJSON *proc = cJSON_AddObjectToObject(msg, "process");
	cJSON_AddStringToObject(proc, "cmd", "/bin/sh");
	cJSON *args = cJSON_AddArrayToObject(proc, "args");
	cJSON_AddItemToArray(args, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(args, cJSON_CreateString(script));
	cJSON_AddStringToObject(proc, "cwd", "/");
	char *json = isotier__json_print(msg, false); /* valid UTF-8 */
	cJSON_Delete(msg);
	cleanup_free char *body = NULL;
	size_t body_len = 0;
	if (!json || isotier__connect_envelope(&body, &body_len, json, strlen(json)) != 0) {
		cJSON_free(json);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "e2b: out of memory");
	}
	cJSON_free(json);
	int timeout_s = req->timeout_s > 0 ? req->timeout_s : s->r.timeout_s;
	int64_t budget = isotier__remote_budget_ms(s->r.deadline_ms, (int64_t)timeout_s * 1000);
	char url[1024], tok[300], ctm[64];
	snprintf(url, sizeof url, "%s/process.Process/Start", s->envd);
	snprintf(tok, sizeof tok, "X-Access-Token: %s", s->token);
	snprintf(ctm, sizeof ctm, "Connect-Timeout-Ms: %lld", (long long)budget);
	const char *hdrs[] = {"Content-Type: application/connect+json",
	                      "Connect-Protocol-Version: 1", ctm, s->token[0] ? tok : NULL, NULL};
	stream st = {.req = req};
	st.dec = (isotier_connect_decoder){.cb = on_message, .ctx = &st};
	isotier_http_request r = {.method = "POST",
	                          .url = url,
	                          .headers = hdrs,
	                          .body = body,
	                          .body_len = body_len,
	                          .timeout_ms = budget,
	                          .deadline_ms = s->r.deadline_ms,
	                          .max_attempts = 1, /* a process start is not repeated */
	                          .sink = on_bytes,
	                          .sink_ctx = &st,
	                          .cancel_fd = cancel_fd};
	isotier_http_response resp;
	rc = isotier__http_perform(&r, &resp, err);
	if (!rc && resp.status != 200)
		rc = isotier__http_status_error(err, ISOTIER_EIO, "envd process.Process/Start",
		                                &resp);
	else if (!rc && strncmp(resp.content_type, "application/connect+json", 24))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "envd process.Process/Start: content type '%s'",
		                        resp.content_type);
	isotier__http_response_clear(&resp);
	int frc = isotier__connect_finish(&st.dec, rc ? NULL : err);
	if (!rc)
		rc = frc;
	if (!rc && (!st.ended || !st.eos))
		rc = isotier__error_set(err, ISOTIER_EIO, 0,
		                        "envd: the stream ended before the process's end event%s",
		                        st.ended ? " and end-of-stream message" : "");
	if (!rc)
		rc = exit_status_of(&st, exit_status, err);
	cJSON_Delete(st.exit_code);
	if (rc) {
		*exit_status = -1; /* no status was taken */
		return isotier__error_prefix(err, "e2b: exec in sandbox %s", s->id);
	}
	if (st.error[0] && !st.exited)
		return isotier__error_set(err, ISOTIER_EIO, 0, "e2b: sandbox %s: process: %s",
		                          s->id, st.error);
	return 0;
}

static void e2b_describe(void *p, char *buf, size_t len)
{
	const e2b_state *s = p;
	snprintf(buf, len, "template %s",
	         s->tmpl[0] ? s->tmpl : isotier__remote_setting("ISOTIER_E2B_TEMPLATE", "base"));
}

const isotier_backend isotier__backend_e2b = {
    .version = ISOTIER_BACKEND_VERSION,
    .settings = e2b_settings,
    .name = "e2b",
    .catalogue_id = "e2b",
    .description = "E2B sandboxes (remote; Firecracker microVMs as claimed): E2B_API_KEY",
    .remote = true,
    .delivers_output = true,
    .available = e2b_available,
    .provision = e2b_provision,
    .exec = e2b_exec,
    .destroy = e2b_destroy,
    .release = e2b_release,
    .sweep_run = e2b_sweep_run,
    .fetch = isotier__fetch_by_exec,
    .describe = e2b_describe,
    .attach = e2b_attach,
};
