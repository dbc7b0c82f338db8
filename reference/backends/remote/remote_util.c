/* SPDX-License-Identifier: Apache-2.0 */
/* remote_util.c - the remote engine's helpers: settings, the per-run cap, the
 * script, output relay, ids, answers (see remote.h). */
#include "remote.h"
#include "../../core/lease.h"
#include "../../core/proc.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

int isotier__remote_configured(const isotier_backend_setting *settings, char *why, size_t why_len)
{
	for (size_t i = 0; settings[i].env; i++) {
		if (!settings[i].required)
			continue;
		const char *v = getenv(settings[i].env);
		if (!v || !*v) {
			snprintf(why, why_len, "not configured: set %s", settings[i].env);
			return 0;
		}
		if (settings[i].secret && strlen(v) < 6) {
			snprintf(why, why_len, "%s is too short to be a credential",
			         settings[i].env);
			return 0;
		}
	}
	return 1;
}

int isotier__remote_endpoint(char *out, size_t len, const char *env, const char *dflt,
                             isotier_error *err)
{
	const char *v = getenv(env);
	if (!v || !*v)
		v = dflt;
	size_t n = strlen(v);
	if ((strncmp(v, "https://", 8) && strncmp(v, "http://", 7)) || n >= len || n > 400 ||
	    v[n - 1] == '/' || strpbrk(v, " \t\r\n?#"))
		return isotier__error_set(err, ISOTIER_ECONFIG, 0,
		                          "%s: an http(s) URL without a trailing '/' is needed",
		                          env);
	memcpy(out, v, n + 1);
	return 0;
}

#define SETTING_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/@-"

bool isotier__remote_setting_valid(const char *v)
{
	return v && *v && strlen(v) <= 200 && strspn(v, SETTING_CHARS) == strlen(v);
}

const char *isotier__remote_setting(const char *env, const char *dflt)
{
	const char *v = getenv(env);
	return isotier__remote_setting_valid(v) ? v : dflt;
}

const char *isotier__remote_like(const isotier_backend_spec *spec, const char *env,
                                 const char *dflt)
{
	/* What a provider reported of the caller's sandbox went through
	 * the same charset check before it got here (attach()), and again
	 * here: it ends up in a request body. */
	if (spec && isotier__remote_setting_valid(spec->like))
		return spec->like;
	return isotier__remote_setting(env, dflt);
}

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const char *backend;
	int n;
} created[16];

int isotier__remote_reserve(const char *backend, isotier_error *err)
{
	int cap = ISOTIER_REMOTE_DEFAULT_CAP;
	const char *env = getenv("ISOTIER_REMOTE_MAX_SANDBOXES");
	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);
		if (*end || v < 0 || v > 100)
			return isotier__error_set(err, ISOTIER_ECONFIG, 0,
			                          "ISOTIER_REMOTE_MAX_SANDBOXES: 0..100 expected");
		cap = (int)v;
	}
	int rc = 0;
	pthread_mutex_lock(&cap_lock);
	size_t i = 0;
	while (i < 16 && created[i].backend && strcmp(created[i].backend, backend))
		i++;
	if (i == 16)
		rc = ISOTIER_ENOMEM;
	else if (!created[i].backend)
		created[i].backend = backend;
	if (!rc && created[i].n >= cap)
		rc = isotier__error_set(err, ISOTIER_ECONFIG, 0,
		                        "the cap of %d sandbox%s created per run for %s is reached "
		                        "(ISOTIER_REMOTE_MAX_SANDBOXES)",
		                        cap, cap == 1 ? "" : "es", backend);
	else if (!rc)
		created[i].n++;
	pthread_mutex_unlock(&cap_lock);
	return rc;
}

void isotier__remote_reserve_reset(void)
{
	pthread_mutex_lock(&cap_lock);
	for (size_t i = 0; i < sizeof created / sizeof created[0]; i++)
		created[i].n = 0;
	pthread_mutex_unlock(&cap_lock);
}

void isotier__remote_nonce(char *out, size_t len)
{
	unsigned char r[8] = {0};
	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		int64_t t = isotier__now_ms() ^ (int64_t)getpid() << 20;
		memcpy(r, &t, sizeof r);
	}
	snprintf(out, len, "%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5],
	         r[6], r[7]);
}

int64_t isotier__remote_budget_ms(int64_t deadline_ms, int64_t want_ms)
{
	if (!deadline_ms)
		return want_ms;
	int64_t left = deadline_ms - isotier__now_ms();
	if (left < 1)
		left = 1;
	return want_ms < left ? want_ms : left;
}

int isotier__remote_cancel_fd(int kept, const isotier_exec_request *req)
{
	if (req && req->cancel_fd > 0)
		return req->cancel_fd;
	return kept > 0 ? kept : -1;
}

bool isotier__remote_sleep_ms(int cancel_fd, int64_t ms)
{
	int64_t end = isotier__now_ms() + ms;
	for (;;) {
		if (isotier__cancelled(cancel_fd))
			return false;
		int64_t left = end - isotier__now_ms();
		if (left <= 0)
			return true;
		struct timespec ts = {0, (left > 100 ? 100 : left) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* A guest path under ISOTIER_GUEST_DIR mapped to ISOTIER_REMOTE_GUEST_DIR. */
static void map_path(char *out, size_t len, const char *arg)
{
	size_t g = strlen(ISOTIER_GUEST_DIR);
	if (!strncmp(arg, ISOTIER_GUEST_DIR, g) && (arg[g] == '/' || !arg[g]))
		snprintf(out, len, "%s%s", ISOTIER_REMOTE_GUEST_DIR, arg + g);
	else
		snprintf(out, len, "%s", arg);
}

int isotier__remote_shell_quote(char **buf, const char *s)
{
	size_t have = *buf ? strlen(*buf) : 0, need = 2;
	for (const char *p = s; *p; p++)
		need += *p == '\'' ? 4 : 1;
	char *t = realloc(*buf, have + need + 1);
	if (!t)
		return ISOTIER_ENOMEM;
	char *o = t + have;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	*buf = t;
	return 0;
}

static int append(char **buf, const char *s)
{
	size_t have = *buf ? strlen(*buf) : 0, n = strlen(s);
	char *t = realloc(*buf, have + n + 1);
	if (!t)
		return ISOTIER_ENOMEM;
	memcpy(t + have, s, n + 1);
	*buf = t;
	return 0;
}

int isotier__remote_script(char **out, const isotier_exec_request *req, const char *stderr_to,
                           isotier_error *err)
{
	*out = NULL;
	if (!req->argv || !req->argv[0])
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "empty argv");
	char *s = NULL;
	char path[4096];
	map_path(path, sizeof path, req->argv[0]);
	/* A run that keeps a capture starts from an empty directory: a
	 * sandbox isotier attached to (the caller's, verified before) may hold
	 * an earlier run's, which is no evidence of this one. */
	bool capture = false;
	for (size_t i = 1; req->argv[i]; i++)
		capture |= !strcmp(req->argv[i], "--capture");
	int rc = capture ? append(&s, "rm -rf " ISOTIER_REMOTE_GUEST_DIR "/capture && ") : 0;
	rc = rc ? rc : append(&s, "mkdir -p " ISOTIER_REMOTE_GUEST_DIR "/capture");
	/* The uploaded probe is made executable; a command of the sandbox's own
	 * (the artifact step's /bin/sh) is left alone. */
	if (!strncmp(req->argv[0], ISOTIER_GUEST_DIR "/", strlen(ISOTIER_GUEST_DIR "/"))) {
		rc = rc ? rc : append(&s, " && chmod 0755 ");
		rc = rc ? rc : isotier__remote_shell_quote(&s, path);
	}
	rc = rc ? rc : append(&s, " && exec");
	for (size_t i = 0; !rc && req->argv[i]; i++) {
		map_path(path, sizeof path, req->argv[i]);
		rc = append(&s, " ");
		rc = rc ? rc : isotier__remote_shell_quote(&s, path);
	}
	if (!rc && stderr_to) {
		rc = append(&s, " 2>");
		rc = rc ? rc : isotier__remote_shell_quote(&s, stderr_to);
	}
	if (rc) {
		free(s);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	*out = s;
	return 0;
}

int isotier__remote_relay(const isotier_exec_request *req, int stream, const char *buf, size_t len,
                          isotier_error *err)
{
	int fd = stream == 2 ? req->stderr_fd : req->stdout_fd;
	if ((!req->on_output && fd < 0) || !len)
		return 0;
	char *copy = malloc(len + 64);
	if (!copy)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "%zu bytes of the command's output: out of memory", len);
	memcpy(copy, buf, len);
	isotier__redact_bytes(copy, &len, len + 64);
	if (req->on_output) {
		req->on_output(stream, copy, len, req->output_data);
		free(copy);
		return 0;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, copy + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* the reader is gone: what it missed is lost, not an error here */
		off += (size_t)w;
	}
	free(copy);
	return 0;
}

bool isotier__remote_id_valid(const char *id)
{
	size_t n = id ? strlen(id) : 0;
	/* "." and ".." are no id: in a URL path a client resolves them, so a
	 * DELETE .../sandboxes/.. would reach another resource (and its answer
	 * read as this sandbox gone). */
	return n >= 1 && n <= 128 && strcmp(id, ".") && strcmp(id, "..") &&
	       strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int64_t isotier__remote_ttl_s(int64_t deadline_ms, int timeout_s)
{
	return (deadline_ms ? (deadline_ms - isotier__now_ms()) / 1000 : 3 * timeout_s) + 60;
}

int isotier__remote_create_error(isotier_error *err, const char *what,
                                 const isotier_http_response *resp)
{
	return isotier__http_status_error(
	    err, resp->status == 401 || resp->status == 403 ? ISOTIER_ECONFIG : ISOTIER_EIO, what,
	    resp);
}

bool isotier__remote_outcome_unknown(int rc, const isotier_http_response *resp)
{
	return rc == ISOTIER_ETIMEDOUT || rc == ISOTIER_EINTR ||
	       (rc == ISOTIER_EIO && resp->sent && resp->status != 429 &&
	        (resp->status == 0 || resp->status >= 500));
}

int isotier__remote_created_id(const isotier_http_response *resp, const char *what, const char *obj,
                               const char *key, char *id, size_t id_len, bool *made, bool *unknown,
                               isotier_error *err)
{
	cJSON *doc = isotier__json_parse_strict(resp->body, resp->body_len, what, err);
	const cJSON *in = doc && obj ? cJSON_GetObjectItemCaseSensitive(doc, obj) : doc;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(in, key);
	int rc = 0;
	if (cJSON_IsString(v) && isotier__remote_id_valid(v->valuestring)) {
		snprintf(id, id_len, "%s", v->valuestring);
		*made = true;
	} else {
		rc = doc ? isotier__error_set(err, ISOTIER_EDATA, 0, "%s: no valid %s%s%s", what,
		                              obj ? obj : "", obj ? "." : "", key)
		         : err->code;
		*unknown = true; /* something answered: look for it by nonce */
	}
	cJSON_Delete(doc);
	return rc;
}

int isotier__remote_release(void *state, const isotier_remote_run *r, const char *id,
                            int (*del)(void *, const char *, isotier_error *),
                            int (*sweep)(void *, isotier_error *), isotier_error *err)
{
	if (r->attached) { /* the caller's sandbox: left as it was found */
		free(state);
		return 0;
	}
	int rc = r->created ? del(state, id, err) : r->unknown ? sweep(state, err) : 0;
	if (!rc) /* kept otherwise: the next run's sweep tries again (sweep.h) */
		isotier__lease_drop("remote", r->nonce);
	free(state);
	return rc;
}

int isotier__remote_upload_probe(const char *base, const char *const *hdrs, const char *probe,
                                 int64_t deadline_ms, int cancel_fd, isotier_http_response *resp,
                                 isotier_error *err)
{
	memset(resp, 0, sizeof *resp);
	char *path = isotier__http_escape(ISOTIER_REMOTE_GUEST_DIR "/isotier-probe");
	if (!path)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	char url[1200];
	snprintf(url, sizeof url, "%s?path=%s", base, path);
	free(path);
	isotier_http_request r = {.method = "POST",
	                          .url = url,
	                          .headers = hdrs,
	                          .upload_path = probe,
	                          .upload_name = "isotier-probe",
	                          .timeout_ms = isotier__remote_budget_ms(deadline_ms, 60000),
	                          .deadline_ms = deadline_ms,
	                          .retry_5xx = true,
	                          .cancel_fd = cancel_fd};
	return isotier__http_perform(&r, resp, err);
}

cJSON *isotier__remote_answer(int *rc, isotier_http_response *resp, long status, const char *what,
                              const char *doc_what, isotier_error *err)
{
	if (!*rc && resp->status != status)
		*rc = isotier__http_status_error(err, ISOTIER_EIO, what, resp);
	cJSON *doc =
	    *rc ? NULL : isotier__json_parse_strict(resp->body, resp->body_len, doc_what, err);
	isotier__http_response_clear(resp);
	if (!*rc && !doc)
		*rc = err->code;
	return doc;
}

int isotier__remote_exit_code(const char *provider, const char *field, const cJSON *code,
                              int *exit_status, isotier_error *err)
{
	double v = cJSON_IsNumber(code) ? code->valuedouble : -1;
	if (!cJSON_IsNumber(code) || !(v >= 0 && v <= 255) || v != (double)(int)v)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "%s reported exit code %.17g (%s): not one a process "
		                          "can exit with (0-255); not taken as any status",
		                          provider, cJSON_IsNumber(code) ? code->valuedouble : 0.0,
		                          field);
	*exit_status = (int)v;
	return 0;
}

const cJSON *isotier__remote_field(const cJSON *doc, const char *const *path, int type)
{
	const cJSON *v = doc;
	for (size_t i = 0; v && path[i]; i++)
		v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, path[i]) : NULL;
	return v && (type == cJSON_Invalid || (v->type & 0xff) == type) ? v : NULL;
}

bool isotier__remote_sh_args(cJSON *obj, const char *cmd_key, const char *args_key,
                             const char *script)
{
	/* One array holding the program too (Fly's command), or the program
	 * apart (E2B's cmd, Vercel's command) and its arguments. */
	if (cmd_key && !cJSON_AddStringToObject(obj, cmd_key, "/bin/sh"))
		return false;
	cJSON *args = cJSON_AddArrayToObject(obj, args_key);
	const char *words[] = {cmd_key ? NULL : "/bin/sh", "-c", script};
	for (size_t i = cmd_key ? 1 : 0; args && i < 3; i++) {
		cJSON *w = cJSON_CreateString(words[i]);
		if (!w || !cJSON_AddItemToArray(args, w)) {
			cJSON_Delete(w);
			return false;
		}
	}
	return args != NULL;
}

char *isotier__remote_print(cJSON *obj, isotier_error *err)
{
	char *json = obj ? isotier__json_print(obj, false) : NULL; /* valid UTF-8 */
	cJSON_Delete(obj);
	if (!json)
		isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	return json;
}
