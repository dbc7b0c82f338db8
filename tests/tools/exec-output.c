/* SPDX-License-Identifier: Apache-2.0 */
/* exec-output.c - a command's output through isotier_exec_opts.on_output
 * (version 2), and a program built against version 1 of the struct still
 * accepted; public API only (include/isotier.h).
 * usage: exec-output BACKEND
 * Runs a command that writes 300000 bytes to stdout and a line to stderr:
 * the callback counts both; then stops taking output after the first chunk
 * (nothing more arrives, stderr included; the command still finishes); then
 * takes 2.5 s over the first chunk of a command that has long ended by then
 * (what is left in the pipes is still read to its end); then runs with a version 1 struct and with
 * version 99 (refused). Prints one line per check; exits 0 when all hold. */
#include <isotier.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

struct seen {
	size_t out, err, calls;
	int stop_after; /* >0: return non-zero after this many stdout calls */
	int slow_ms;    /* >0: the first call takes this long (a caller's slow sink) */
	char err_text[64];
};

static int on_output(int stream, const char *buf, size_t len, void *data)
{
	struct seen *s = data;
	if (s->slow_ms > 0 && s->calls == 0) {
		struct timespec ts = {s->slow_ms / 1000, (s->slow_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	s->calls++;
	if (stream == 2) {
		size_t have = strlen(s->err_text), room = sizeof s->err_text - 1 - have;
		memcpy(s->err_text + have, buf, len < room ? len : room);
		s->err += len;
		return 0;
	}
	s->out += len;
	return s->stop_after > 0 && (int)s->calls >= s->stop_after;
}

/* isotier_exec_opts as version 1 of isotier.h declared it. */
struct exec_opts_v1 {
	unsigned int version;
	int stdin_fd, stdout_fd, stderr_fd, timeout_s, cancel_fd;
};

int main(int argc, char **argv)
{
	if (argc != 2)
		return 64;
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.backend = argv[1];
	isotier_sandbox *sb = NULL;
	isotier_error err = {0};
	if (isotier_create(&sb, &opts, &err) < 0) {
		printf("create: %s\n", err.message);
		return 1;
	}
	int failures = 0;
	const char *cmd[] = {"/bin/sh", "-c", "yes x | head -c 300000; echo to-stderr >&2; exit 7",
	                     NULL};
	struct seen all = {0};
	isotier_exec_opts eo = ISOTIER_EXEC_OPTS_INIT;
	eo.on_output = on_output;
	eo.output_data = &all;
	int status = -1;
	int rc = isotier_sandbox_exec(&status, sb, cmd, &eo, &err);
	printf("callback: rc %d status %d stdout %zu stderr '%s'\n", rc, status, all.out,
	       all.err_text);
	failures +=
	    rc != 0 || status != 7 || all.out != 300000 || strcmp(all.err_text, "to-stderr\n");

	struct seen first = {.stop_after = 1};
	eo.output_data = &first;
	status = -1;
	rc = isotier_sandbox_exec(&status, sb, cmd, &eo, &err);
	printf("stop: rc %d status %d calls %zu stdout %zu\n", rc, status, first.calls, first.out);
	failures += rc != 0 || status != 7 || first.calls != 1 || first.out == 0;

	/* A callback slower than the command: what is still in the pipes after
	 * the command ended is read to its end, not cut. */
	const char *small[] = {"/bin/sh", "-c", "yes x | head -c 60000; echo to-stderr >&2; exit 7",
	                       NULL};
	struct seen slow = {.slow_ms = 2500};
	eo.output_data = &slow;
	status = -1;
	rc = isotier_sandbox_exec(&status, sb, small, &eo, &err);
	printf("slow callback: rc %d status %d stdout %zu stderr '%s'\n", rc, status, slow.out,
	       slow.err_text);
	failures +=
	    rc != 0 || status != 7 || slow.out != 60000 || strcmp(slow.err_text, "to-stderr\n");

	struct exec_opts_v1 v1 = {.version = 1, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
	const char *quiet[] = {"/bin/sh", "-c", "exit 3", NULL};
	status = -1;
	rc = isotier_sandbox_exec(&status, sb, quiet, (const isotier_exec_opts *)(const void *)&v1,
	                          &err);
	printf("version 1: rc %d status %d\n", rc, status);
	failures += rc != 0 || status != 3;

	isotier_exec_opts bad = ISOTIER_EXEC_OPTS_INIT;
	bad.version = 99;
	rc = isotier_sandbox_exec(&status, sb, quiet, &bad, &err);
	printf("version 99: rc %s\n", isotier_strerror(rc));
	failures += rc != ISOTIER_EINVAL;

	isotier_sandbox_destroy(sb);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
