/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cancel-exec - an application of the public API (isotier.h only) with its
 * own SIGTERM handler, for tests/integration/cancel_exec.sh:
 *
 *   cancel-exec BACKEND MARKER
 *
 * 1. A SIGTERM that lands while isotier_sandbox_exec() waits reaches the
 *    application's handler, which cancels the exec through its cancel_fd:
 *    ISOTIER_EINTR, the command (`sleep 3000.MARKER` and its shell) killed.
 * 2. The next exec on the same sandbox works (exit 0).
 * 3. A handler that only records the signal: the exec runs to its end.
 * 4. The create opts' cancel_fd serves an exec whose opts name none, and a
 *    readable one refuses the next exec; destroy still works.
 * The SIGTERM comes from a helper thread (SIGTERM blocked there) once the
 * command printed "ready", so it is delivered to the thread inside the
 * library. Exit 0 pass, 77 backend unavailable, 1 fail (why on stderr).
 */
#include <isotier.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got_term;
static volatile sig_atomic_t cancel_w = -1; /* the handler's cancel pipe; -1: record only */

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
	if (cancel_w >= 0) {
		int saved = errno;
		ssize_t w = write(cancel_w, "x", 1);
		(void)w;
		errno = saved;
	}
}

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			fputc('\n', stderr);                                                       \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* Reads the command's stdout; sends SIGTERM to the process at "ready". */
static void *signaller(void *arg)
{
	int fd = *(int *)arg;
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL); /* it must land in the library's thread */
	char buf[256];
	size_t len = 0;
	bool sent = false;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		if (!sent && strstr(buf, "ready\n")) {
			kill(getpid(), SIGTERM);
			sent = true;
		}
		if (len > sizeof buf / 2)
			len = 0;
	}
	close(fd);
	return NULL;
}

/* Runs argv in sb, SIGTERM sent when it prints "ready". */
static int exec_signalled(isotier_sandbox *sb, const char *const *argv, int cancel_fd, int *status,
                          isotier_error *err)
{
	int out[2];
	CHECK(pipe2(out, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
	pthread_t tid;
	CHECK(pthread_create(&tid, NULL, signaller, &out[0]) == 0, "pthread_create");
	isotier_exec_opts eo = {.version = ISOTIER_EXEC_OPTS_VERSION,
	                        .stdin_fd = -1,
	                        .stdout_fd = out[1],
	                        .stderr_fd = -1,
	                        .timeout_s = 60,
	                        .cancel_fd = cancel_fd};
	int rc = isotier_sandbox_exec(status, sb, argv, &eo, err);
	close(out[1]);
	pthread_join(tid, NULL);
	return rc;
}

static isotier_sandbox *create(const char *backend, int cancel_fd)
{
	isotier_create_opts opts = {.version = ISOTIER_CREATE_OPTS_VERSION,
	                            .backend = backend,
	                            .timeout_s = 60,
	                            .cancel_fd = cancel_fd};
	isotier_sandbox *sb = NULL;
	isotier_error err = {0};
	int rc = isotier_create(&sb, &opts, &err);
	if (rc == ISOTIER_EUNAVAILABLE) {
		printf("%s unavailable: %s\n", backend, err.message);
		exit(77);
	}
	CHECK(rc == 0, "create %s: %s: %s", backend, isotier_strerror(rc), err.message);
	return sb;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cancel-exec BACKEND MARKER\n");
		return 64;
	}
	const char *backend = argv[1];
	char hang[256];
	snprintf(hang, sizeof hang, "sleep 3000.%s & echo ready; wait", argv[2]);
	const char *const hang_argv[] = {"/bin/sh", "-c", hang, NULL};
	struct sigaction sa = {.sa_handler = on_term, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGTERM, &sa, NULL) == 0, "sigaction");

	/* 1. The handler runs and cancels the exec. */
	int cancel[2];
	CHECK(pipe2(cancel, O_CLOEXEC | O_NONBLOCK) == 0, "pipe: %s", strerror(errno));
	isotier_sandbox *sb = create(backend, -1);
	isotier_error err = {0};
	int status = -1;
	cancel_w = cancel[1];
	int rc = exec_signalled(sb, hang_argv, cancel[0], &status, &err);
	CHECK(got_term,
	      "%s: SIGTERM during exec never reached the application's handler "
	      "(exec: %s %s)",
	      backend, isotier_strerror(rc), err.message);
	CHECK(rc == ISOTIER_EINTR,
	      "%s: exec cancelled by the handler: expected EINTR, got %s "
	      "(status %d) %s",
	      backend, isotier_strerror(rc), status, err.message);
	printf("ok: %s: SIGTERM reached the handler, which cancelled the exec: %s\n", backend,
	       err.message);

	/* 2. The next exec works, with the same cancel pipe drained. */
	char drain[16];
	while (read(cancel[0], drain, sizeof drain) > 0)
		;
	const char *const ok_argv[] = {"/bin/sh", "-c", "exit 0", NULL};
	isotier_exec_opts eo = {.version = ISOTIER_EXEC_OPTS_VERSION,
	                        .stdin_fd = -1,
	                        .stdout_fd = -1,
	                        .stderr_fd = -1,
	                        .timeout_s = 60,
	                        .cancel_fd = cancel[0]};
	status = -1;
	rc = isotier_sandbox_exec(&status, sb, ok_argv, &eo, &err);
	CHECK(rc == 0 && status == 0, "%s: the exec after the SIGTERM: %s, status %d: %s", backend,
	      isotier_strerror(rc), status, err.message);
	printf("ok: %s: the next exec works (exit 0)\n", backend);

	/* 3. A handler that only records: the library leaves the signal alone. */
	got_term = 0;
	cancel_w = -1;
	const char *const short_argv[] = {"/bin/sh", "-c", "echo ready; sleep 1; exit 0", NULL};
	status = -1;
	rc = exec_signalled(sb, short_argv, cancel[0], &status, &err);
	CHECK(got_term, "%s: recording handler never ran", backend);
	CHECK(rc == 0 && status == 0, "%s: exec under a recording handler: %s, status %d: %s",
	      backend, isotier_strerror(rc), status, err.message);
	printf("ok: %s: a handler that only records leaves the exec running to exit 0\n", backend);
	isotier_sandbox_destroy(sb);

	/* 4. The create-time cancel_fd serves an exec that names none. */
	int cancel2[2];
	CHECK(pipe2(cancel2, O_CLOEXEC | O_NONBLOCK) == 0, "pipe: %s", strerror(errno));
	sb = create(backend, cancel2[0]);
	got_term = 0;
	cancel_w = cancel2[1];
	rc = exec_signalled(sb, hang_argv, 0, &status, &err);
	CHECK(got_term && rc == ISOTIER_EINTR,
	      "%s: exec cancelled through the create opts' cancel_fd: got %s %s", backend,
	      isotier_strerror(rc), err.message);
	eo.cancel_fd = 0;
	rc = isotier_sandbox_exec(&status, sb, ok_argv, &eo, &err);
	CHECK(rc == ISOTIER_EINTR && strstr(err.message, "not started"),
	      "%s: exec with the create opts' cancel_fd readable: got %s %s", backend,
	      isotier_strerror(rc), err.message);
	isotier_sandbox_destroy(sb);
	printf("ok: %s: the create opts' cancel_fd cancels and refuses execs; destroy works\n",
	       backend);
	close(cancel[0]);
	close(cancel[1]);
	close(cancel2[0]);
	close(cancel2[1]);
	return 0;
}
