/* SPDX-License-Identifier: Apache-2.0 */
/* engine_cli.c - the engines' command line (see engine.h): how every call
 * to `docker` or `podman` is made (bounded output, a timeout, the caller's
 * cancel descriptor), and what an engine says of itself before any sandbox
 * exists: whether it can run one here, and the Docker daemon's runtimes
 * (from its API over its socket when the CLI would talk to this host's
 * default daemon, else from `docker info`). Everything the daemon says is
 * bounded and reduced to safe characters before it reaches a reason.
 * engine.c drives the sandboxes through it. */
#include "engine.h"
#include "../core/http.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

void isotier__engine_argv(isotier_argv *a, const isotier_engine *e, const char *unmount)
{
	if (unmount && unmount[0])
		isotier__argv_unmounted(a, unmount);
	isotier__argv_push(a, e->cli);
	if (e->podman && e->runtime) { /* a global option of podman's, a run option of docker's */
		isotier__argv_push(a, "--runtime");
		isotier__argv_push(a, e->runtime);
	}
	for (size_t i = 0; e->global && e->global[i]; i++)
		isotier__argv_push(a, e->global[i]);
}

int isotier__engine_call(const isotier_engine *e, const char *unmount, int cancel_fd,
                         const char *const *args, isotier_capture *out, int flags, int *status,
                         isotier_error *err)
{
	cleanup_argv isotier_argv a = {0};
	isotier__engine_argv(&a, e, unmount);
	for (size_t i = 0; args[i]; i++)
		isotier__argv_push(&a, args[i]);
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	isotier_capture errc = {.max = 4096}, junk = {.max = 1}; /* stdout never reaches ours */
	isotier_proc_opts o = {.argv = (const char *const *)a.v,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .out_capture = out ? out : &junk,
	                       .err_capture = (flags & ISOTIER_PROC_QUIET) ? NULL : &errc,
	                       .timeout_s = ISOTIER_ENGINE_CALL_TIMEOUT_S,
	                       .cancel_fd = cancel_fd,
	                       .flags = flags | ISOTIER_PROC_QUIET};
	int st = -1;
	int rc = isotier__proc_run(&o, &st, err);
	if (status)
		*status = st;
	if (!rc && st != 0 && !status) {
		char line[300];
		snprintf(line, sizeof line, "%s", errc.data ? errc.data : "");
		line[strcspn(line, "\n")] = '\0';
		rc = isotier__error_set(err, ISOTIER_ERROR, 0, "%s %s: exit %d: %s", e->cli,
		                        args[0], st, line);
	}
	free(errc.data);
	free(junk.data);
	return rc;
}

/* Appends s to out keeping only [A-Za-z0-9._/=:+-] (daemon output reaches terminals). */
static void append_safe(char *out, size_t len, const char *s, size_t max)
{
	size_t o = strlen(out);
	for (size_t i = 0; s && s[i] && i < max && o + 1 < len; i++) {
		char c = s[i];
		out[o++] = (isalnum((unsigned char)c) || strchr("._/=:+-", c)) ? c : '?';
	}
	out[o] = '\0';
}

static void append(char *out, size_t len, const char *s)
{
	size_t o = strlen(out);
	if (o + 1 < len)
		snprintf(out + o, len - o, "%s", s);
}

/*
 * The socket of the daemon the docker CLI talks to, when it is this host's
 * default one: DOCKER_HOST unset or unix://PATH, no DOCKER_CONTEXT, and no
 * current context other than "default" in the CLI's config ($DOCKER_CONFIG or
 * ~/.docker). A context, tcp:// or ssh:// is asked through the CLI itself,
 * which knows where it points (-1), and so is an unreadable config.
 */
static int docker_default_socket(char *path, size_t len)
{
	const char *host = getenv("DOCKER_HOST");
	if (getenv("DOCKER_CONTEXT"))
		return -1;
	int n = host && *host ? (strncmp(host, "unix://", 7) || !host[7]
	                             ? -1
	                             : snprintf(path, len, "%s", host + 7))
	                      : snprintf(path, len, "/var/run/docker.sock");
	if (n < 0 || (size_t)n >= len)
		return -1;
	char cfg[4096];
	const char *dir = getenv("DOCKER_CONFIG"), *home = getenv("HOME");
	if (dir && *dir)
		n = snprintf(cfg, sizeof cfg, "%s/config.json", dir);
	else if (home && *home)
		n = snprintf(cfg, sizeof cfg, "%s/.docker/config.json", home);
	else
		return -1;
	if (n < 0 || (size_t)n >= sizeof cfg)
		return -1;
	if (access(cfg, F_OK) != 0)
		return errno == ENOENT ? 0 : -1;
	cleanup_free char *text = NULL;
	size_t text_len = 0;
	isotier_error err = {0};
	if (isotier__read_file(&text, &text_len, cfg, 1 << 20, &err) != 0)
		return -1;
	cJSON *j = cJSON_ParseWithLength(text, text_len);
	const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(j, "currentContext");
	bool other = !cJSON_IsObject(j) ||
	             (ctx && (!cJSON_IsString(ctx) ||
	                      (ctx->valuestring[0] && strcmp(ctx->valuestring, "default"))));
	cJSON_Delete(j);
	return other ? -1 : 0;
}

/* A daemon that has not said what it runs within this is not available. */
#define DOCKER_INFO_TIMEOUT_MS 10000

/* The daemon's runtimes table from its API: GET /info over its socket (no
 * CLI process beside the sandbox's provision: about 40 ms less on Docker's
 * way to its sandbox). NULL with out saying why. */
static cJSON *runtimes_from_api(const char *sock, char *out, size_t len)
{
	isotier_http_request req = {.method = "GET",
	                            .url = "http://localhost/info",
	                            .unix_socket = sock,
	                            .timeout_ms = DOCKER_INFO_TIMEOUT_MS,
	                            .max_body = 256 * 1024,
	                            .max_attempts = 1};
	isotier_http_response resp = {0};
	isotier_error err = {0};
	cJSON *j = NULL;
	if (isotier__http_perform(&req, &resp, &err) != 0)
		snprintf(
		    out, len,
		    "the Docker daemon does not answer (scripts/dockerd.sh start starts one): %s",
		    err.message);
	else if (resp.status != 200)
		snprintf(out, len, "the Docker daemon does not answer: HTTP %ld from GET /info",
		         resp.status);
	else if (!(j = isotier__json_parse_strict(resp.body ? resp.body : "", resp.body_len,
	                                          "docker info", &err)))
		snprintf(out, len, "%s", err.message);
	isotier__http_response_clear(&resp);
	cJSON *table = cJSON_DetachItemFromObjectCaseSensitive(j, "Runtimes");
	cJSON_Delete(j);
	return table;
}

/* The same table from `docker info` (a context, a remote daemon). */
static cJSON *runtimes_from_cli(char *out, size_t len)
{
	static const isotier_engine probe_e = {.backend = "docker", .cli = "docker"};
	const char *const info[] = {"info", "--format", "{{json .Runtimes}}", NULL};
	isotier_capture o = {.max = 64 * 1024};
	isotier_error err = {0};
	int rc = isotier__engine_call(&probe_e, "", 0, info, &o, 0, NULL, &err);
	cJSON *j = rc || o.truncated ? NULL : cJSON_ParseWithLength(o.data ? o.data : "", o.len);
	if (rc)
		snprintf(
		    out, len,
		    "the Docker daemon does not answer (scripts/dockerd.sh start starts one): %s",
		    err.message);
	else if (o.truncated)
		snprintf(out, len, "docker info: the runtimes table is longer than %zu bytes",
		         o.max);
	free(o.data);
	return j;
}

int isotier__docker_runtimes(char *out, size_t len, bool *has_runsc)
{
	*has_runsc = false;
	out[0] = '\0';
	char sock[4096];
	cJSON *j = docker_default_socket(sock, sizeof sock) == 0 ? runtimes_from_api(sock, out, len)
	                                                         : runtimes_from_cli(out, len);
	if (out[0]) {
		cJSON_Delete(j);
		return 0;
	}
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		snprintf(out, len, "docker info: the runtimes table is not a JSON object");
		return 0;
	}
	append(out, len, "daemon runtimes: ");
	int n = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, j)
	{
		/* At most 32 runtimes, and room left for the marker that says the list is cut. */
		if (n++ >= 32 || strlen(out) + 80 > len) {
			append(out, len, ", ...");
			break;
		}
		if (n > 1)
			append(out, len, ", ");
		append_safe(out, len, r->string, 64);
		if (r->string && !strcmp(r->string, "runsc"))
			*has_runsc = true;
		const cJSON *path = cJSON_GetObjectItemCaseSensitive(r, "path");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(r, "runtimeArgs");
		if (!cJSON_IsString(path) || !strcmp(path->valuestring, "runc"))
			continue; /* the stock runc entries: their name says it all */
		append(out, len, " (");
		append_safe(out, len, path->valuestring, 128);
		const cJSON *arg;
		int k = 0;
		const cJSON *list = cJSON_IsArray(args) ? args : NULL;
		cJSON_ArrayForEach(arg, list)
		{
			if (!cJSON_IsString(arg) || k++ >= 16 || strlen(out) + 80 > len)
				continue;
			append(out, len, " ");
			append_safe(out, len, arg->valuestring, 128);
		}
		append(out, len, ")");
	}
	cJSON_Delete(j);
	return 1;
}

int isotier__engine_available(const isotier_engine *e, char *why, size_t why_len)
{
	char path[4096], hybrid[64];
	if (isotier__find_program(path, sizeof path, e->cli) != 0) {
		snprintf(why, why_len, "%s not found in PATH", e->cli);
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, why_len, "%s needs root here (rootless mode is not configured)",
		         e->backend);
		return 0;
	}
	if (e->podman) {
		char rt[4096];
		if (e->runtime && isotier__find_program(rt, sizeof rt, e->runtime) != 0) {
			snprintf(why, why_len, "%s not found in PATH", e->runtime);
			return 0;
		}
		bool hide = isotier__cgroup_hybrid(hybrid, sizeof hybrid);
		if (hide && isotier__find_program(rt, sizeof rt, "unshare") != 0) {
			snprintf(why, why_len, "hybrid cgroups (%s) and no unshare(1) to hide them",
			         hybrid);
			return 0;
		}
		snprintf(why, why_len, "%s, runtime %s, rootful, --rootfs%s%s", path,
		         e->runtime ? e->runtime : "default (crun)",
		         hide ? ", hybrid cgroups: without " : "", hide ? hybrid : "");
		return 1;
	}
	char rts[768]; /* fits the callers' 1024 with the prefix */
	bool has_runsc;
	if (!isotier__docker_runtimes(rts, sizeof rts, &has_runsc)) {
		snprintf(why, why_len, "%s", rts);
		return 0;
	}
	if (e->runtime && strcmp(e->runtime, "runsc") == 0 && !has_runsc) {
		snprintf(why, why_len,
		         "the Docker daemon has no runsc runtime (%s); register it in "
		         "/etc/docker/daemon.json (scripts/deps.sh does) and restart dockerd",
		         rts);
		return 0;
	}
	snprintf(why, why_len, "%s, runtime %s; %s", path, e->runtime ? e->runtime : "default",
	         rts);
	return 1;
}
