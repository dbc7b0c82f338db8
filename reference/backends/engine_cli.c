/* SPDX-License-Identifier: Apache-2.0 */
/* engine_cli.c - the engines' command line (see engine.h): how every call
 * to `docker` or `podman` is made (bounded output, a timeout, the caller's
 * cancel descriptor), and what an engine says of itself before any sandbox
 * exists: whether it can run one here, and the Docker daemon's runtimes.
 * Everything the daemon prints is bounded and reduced to safe characters
 * before it reaches a reason. engine.c drives the sandboxes through it. */
#include "engine.h"

#include <cJSON.h>
#include <ctype.h>
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

int isotier__docker_runtimes(char *out, size_t len, bool *has_runsc)
{
	*has_runsc = false;
	out[0] = '\0';
	static const isotier_engine probe_e = {.backend = "docker", .cli = "docker"};
	const char *const info[] = {"info", "--format", "{{json .Runtimes}}", NULL};
	isotier_capture o = {.max = 64 * 1024};
	isotier_error err = {0};
	int rc = isotier__engine_call(&probe_e, "", 0, info, &o, 0, NULL, &err);
	bool truncated = o.truncated;
	cJSON *j = rc || truncated ? NULL : cJSON_ParseWithLength(o.data ? o.data : "", o.len);
	free(o.data);
	if (rc) {
		snprintf(
		    out, len,
		    "the Docker daemon does not answer (scripts/dockerd.sh start starts one): %s",
		    err.message);
		return 0;
	}
	if (truncated) {
		snprintf(out, len, "docker info: the runtimes table is longer than %zu bytes",
		         o.max);
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
