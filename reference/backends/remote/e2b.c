/* SPDX-License-Identifier: Apache-2.0 */
/*
 * e2b.c - MICROVM as claimed: E2B sandboxes (a row and its protocol over
 * the remote engine, remote.h).
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
#include "remote.h"
#include "../../core/connect.h"
#include "../../core/proc.h"

#include <cjson/cJSON.h>
#include <string.h>

#define ENVD_PORT "49983"

typedef struct e2b_state {
	isotier_remote_run r;
	char envd[768];
	char token[256]; /* envdAccessToken; "" when none */
	char tmpl[130];  /* the templateID the provider reported; "" when not valid */
} e2b_state;

/* What configures it (backend.h); the required ones make it available. */
static const isotier_backend_setting e2b_settings[] = {
    {.env = "E2B_API_KEY", .meaning = "the E2B API key", .secret = true, .required = true},
    {.env = "ISOTIER_E2B_API_URL", .meaning = "the API endpoint (default https://api.e2b.app)"},
    {.env = "ISOTIER_E2B_ENVD_URL",
     .meaning = "the sandbox daemon URL, {id} for the sandbox id (default from the API)"},
    {.env = "ISOTIER_E2B_TEMPLATE", .meaning = "the template sandboxes start from (default base)"},
    ISOTIER_REMOTE_SETTING_CAP,
    {0},
};

static void e2b_about(char *why, size_t why_len)
{
	snprintf(why, why_len, "E2B at %s, template %s",
	         getenv("ISOTIER_E2B_API_URL") && *getenv("ISOTIER_E2B_API_URL")
	             ? "ISOTIER_E2B_API_URL"
	             : "https://api.e2b.app",
	         isotier__remote_setting("ISOTIER_E2B_TEMPLATE", "base"));
}

/* The envd base URL of the sandbox: $ISOTIER_E2B_ENVD_URL ({id} the id), else
 * the port's host under the Sandbox's domain. */
static int envd_url(e2b_state *s, const char *domain, isotier_error *err)
{
	const char *envd = getenv("ISOTIER_E2B_ENVD_URL");
	if (!envd || !*envd) {
		snprintf(s->envd, sizeof s->envd, "https://" ENVD_PORT "-%s.%s", s->r.id, domain);
		return 0;
	}
	const char *at = strstr(envd, "{id}");
	if (strncmp(envd, "http", 4) || strlen(envd) > 400)
		return isotier__error_set(err, ISOTIER_ECONFIG, 0,
		                          "ISOTIER_E2B_ENVD_URL: an http(s) URL");
	if (at)
		snprintf(s->envd, sizeof s->envd, "%.*s%s%s", (int)(at - envd), envd, s->r.id,
		         at + 4);
	else
		snprintf(s->envd, sizeof s->envd, "%s", envd);
	return 0;
}

/* A Sandbox (POST /sandboxes) or SandboxDetail (GET /sandboxes/{id}). */
static int read_sandbox(e2b_state *s, const cJSON *doc, isotier_error *err)
{
	const char *what = s->r.attached ? "GET /sandboxes/{id}" : "POST /sandboxes";
	int rc = 0;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(doc, "sandboxID");
	const cJSON *tok = cJSON_GetObjectItemCaseSensitive(doc, "envdAccessToken");
	const cJSON *dom = cJSON_GetObjectItemCaseSensitive(doc, "domain");
	const cJSON *tmpl = cJSON_GetObjectItemCaseSensitive(doc, "templateID");
	bool id_ok = cJSON_IsString(id) && isotier__remote_id_valid(id->valuestring);
	if (!cJSON_IsObject(doc) || !id_ok || !cJSON_IsString(tmpl))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "%s: no valid sandboxID/templateID in the answer", what);
	else if (s->r.attached && strcmp(id->valuestring, s->r.id))
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
	if (!s->r.attached && id_ok) {
		snprintf(s->r.id, sizeof s->r.id, "%s", id->valuestring);
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
	if (!rc)
		rc = envd_url(s, cJSON_IsString(dom) ? dom->valuestring : "e2b.app", err);
	return rc;
}

static int e2b_created(isotier_remote_run *r, const cJSON *doc, isotier_error *err)
{
	return read_sandbox((e2b_state *)r, doc, err);
}

/* The caller's sandbox (SandboxDetail: the template, envdAccessToken and
 * domain, as after a create); its template is what the second is made from. */
static int e2b_attached(isotier_remote_run *r, const cJSON *doc, char *like, size_t like_len,
                        isotier_error *err)
{
	e2b_state *s = (e2b_state *)r;
	int rc = read_sandbox(s, doc, err);
	snprintf(like, like_len, "%s", s->tmpl);
	return rc;
}

static char *e2b_create_body(isotier_remote_run *r, const isotier_backend_spec *spec,
                             isotier_error *err)
{
	char *body = NULL;
	if (asprintf(
	        &body,
	        "{\"templateID\":\"%s\",\"timeout\":%lld,\"metadata\":{\"isotier-nonce\":\"%s\"}}",
	        isotier__remote_like(spec, "ISOTIER_E2B_TEMPLATE", "base"),
	        (long long)isotier__remote_ttl_s(r->deadline_ms, r->timeout_s), r->nonce) < 0) {
		isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		return NULL;
	}
	return body;
}

static int e2b_upload(isotier_remote_run *r, isotier_error *err)
{
	e2b_state *s = (e2b_state *)r;
	char base[800], tok[300];
	/* No username: the file belongs to envd's default user, the one the
	 * process runs as, so the probe script may chmod it. */
	snprintf(base, sizeof base, "%s/files", s->envd);
	snprintf(tok, sizeof tok, "X-Access-Token: %s", s->token);
	const char *hdrs[] = {s->token[0] ? tok : NULL, NULL};
	isotier_http_response resp;
	int rc = isotier__remote_upload_probe(base, hdrs, r->probe, r->deadline_ms, r->cancel_fd,
	                                      &resp, err);
	cJSON *doc =
	    isotier__remote_answer(&rc, &resp, 200, "envd POST /files", "envd POST /files", err);
	if (!rc && !cJSON_IsArray(doc))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "envd POST /files: not an array");
	cJSON_Delete(doc);
	return rc;
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

static int e2b_exec(isotier_remote_run *r, const isotier_exec_request *req, const char *script,
                    int cancel_fd, int timeout_s, int *exit_status, isotier_error *err)
{
	e2b_state *s = (e2b_state *)r;
	cJSON *msg = cJSON_CreateObject();
	cJSON *proc = cJSON_AddObjectToObject(msg, "process");
	if (!proc || !isotier__remote_sh_args(proc, "cmd", "args", script) ||
	    !cJSON_AddStringToObject(proc, "cwd", "/")) {
		cJSON_Delete(msg);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	char *json = isotier__remote_print(msg, err);
	cleanup_free char *body = NULL;
	size_t body_len = 0;
	if (!json || isotier__connect_envelope(&body, &body_len, json, strlen(json)) != 0) {
		cJSON_free(json);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	cJSON_free(json);
	int64_t budget = isotier__remote_budget_ms(r->deadline_ms, (int64_t)timeout_s * 1000);
	char url[1024], tok[300], ctm[64];
	snprintf(url, sizeof url, "%s/process.Process/Start", s->envd);
	snprintf(tok, sizeof tok, "X-Access-Token: %s", s->token);
	snprintf(ctm, sizeof ctm, "Connect-Timeout-Ms: %lld", (long long)budget);
	const char *hdrs[] = {"Content-Type: application/connect+json",
	                      "Connect-Protocol-Version: 1", ctm, s->token[0] ? tok : NULL, NULL};
	stream st = {.req = req};
	st.dec = (isotier_connect_decoder){.cb = on_message, .ctx = &st};
	isotier_http_request hr = {.method = "POST",
	                           .url = url,
	                           .headers = hdrs,
	                           .body = body,
	                           .body_len = body_len,
	                           .timeout_ms = budget,
	                           .deadline_ms = r->deadline_ms,
	                           .max_attempts = 1, /* a process start is not repeated */
	                           .sink = on_bytes,
	                           .sink_ctx = &st,
	                           .cancel_fd = cancel_fd};
	isotier_http_response resp;
	int rc = isotier__http_perform(&hr, &resp, err);
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
	if (!rc && st.error[0] && !st.exited)
		rc = isotier__error_set(err, ISOTIER_EIO, 0, "process: %s", st.error);
	return rc;
}

static void e2b_describe(void *p, char *buf, size_t len)
{
	const e2b_state *s = p;
	snprintf(buf, len, "template %s",
	         s->tmpl[0] ? s->tmpl : isotier__remote_setting("ISOTIER_E2B_TEMPLATE", "base"));
}

static const isotier_remote_provider e2b_provider = {
    .name = "e2b",
    .kind = "sandbox",
    .settings = e2b_settings,
    .key_env = "E2B_API_KEY",
    .url_env = "ISOTIER_E2B_API_URL",
    .url_default = "https://api.e2b.app",
    .auth = "X-API-Key: ",
    .json_header = "Accept: application/json",
    .state_size = sizeof(e2b_state),
    .create = {.path = "/sandboxes", .status = {201}},
    .lookup = "/sandboxes/%s",
    .del = {.method = "DELETE", .path = "/sandboxes/%s", .ok = {204, 404}},
    .list = {.path = "/v2/sandboxes", .filter = "metadata=isotier-nonce=%s", .id = "sandboxID"},
    .ops = {.about = e2b_about,
            .create_body = e2b_create_body,
            .created = e2b_created,
            .attached = e2b_attached,
            .upload = e2b_upload,
            .exec = e2b_exec},
};

ISOTIER_REMOTE_BACKEND(
    e2b, .catalogue_id = "e2b",
    .description = "E2B sandboxes (remote; Firecracker microVMs as claimed): E2B_API_KEY",
    .describe = e2b_describe);
