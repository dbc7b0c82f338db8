/* SPDX-License-Identifier: Apache-2.0 */
/* test_host_release.c - the host's "enough" to a probe it sees
 * (reference/evidence/host_release.c), with real processes: a process running the
 * probe's argv[0] with the run's nonce that catches SIGUSR1 gets it; one that
 * does not catch it yet is left alone (asked again later, never killed); one
 * with another nonce, or gone, is done with and never signalled. */
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/evidence/host_release.h"

#define ARGV0 "/.isotier-test/isotier-probe"
#define NONCE "0123456789abcdef0123456789abcdef"

/* A shell whose argv[0] is ARGV0 and whose arguments carry nonce; with
 * trap, it catches SIGUSR1 and writes "got" to out before it exits. */
static pid_t spawn(const char *nonce, bool trap, int out)
{
	pid_t pid = fork();
	if (pid == 0) {
		dup2(out, 1);
		char *script = trap ? "trap 'echo got; exit 0' USR1; while :; do sleep 0.02; done"
		                    : "while :; do sleep 0.02; done";
		char *const argv[] = {ARGV0, "-c", script, "--nonce", (char *)nonce, NULL};
		execv("/bin/sh", argv);
		_exit(127);
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Asks until done, up to 5 s: true when done. */
static bool release_within(pid_t pid, const char *nonce)
{
	for (int i = 0; i < 500; i++) {
		if (isotier__host_release_probe(pid, ARGV0, nonce))
			return true;
		poll(NULL, 0, 10);
	}
	return false;
}

static bool got_within(int fd, int ms)
{
	char buf[16] = "";
	struct pollfd p = {.fd = fd, .events = POLLIN};
	if (poll(&p, 1, ms) <= 0)
		return false;
	return read(fd, buf, sizeof buf - 1) > 0 && strstr(buf, "got");
}

START_TEST(catching_probe_is_told)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = spawn(NONCE, true, p[1]);
	ck_assert_int_gt(pid, 0);
	ck_assert(release_within(pid, NONCE));
	ck_assert_msg(got_within(p[0], 5000), "the probe never got the signal");
	stop(pid);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(not_catching_is_left_alone)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = spawn(NONCE, false, p[1]);
	ck_assert_int_gt(pid, 0);
	poll(NULL, 0, 100); /* running, no handler */
	for (int i = 0; i < 5; i++)
		ck_assert_msg(!isotier__host_release_probe(pid, ARGV0, NONCE),
		              "done with a process that cannot catch the signal");
	ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), 0); /* still alive: never signalled */
	stop(pid);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(other_nonce_or_gone_is_done)
{
	int p[2];
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = spawn("fedcba9876543210fedcba9876543210", true, p[1]);
	ck_assert_int_gt(pid, 0);
	poll(NULL, 0, 300); /* its trap is set */
	ck_assert(isotier__host_release_probe(pid, ARGV0, NONCE));
	ck_assert_msg(!got_within(p[0], 300), "another run's probe was signalled");
	stop(pid);
	/* Gone (reaped): nothing to shorten. */
	ck_assert(isotier__host_release_probe(pid, ARGV0, NONCE));
	close(p[0]);
	close(p[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("host_release");
	TCase *tc = tcase_create("host_release");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, catching_probe_is_told);
	tcase_add_test(tc, not_catching_is_left_alone);
	tcase_add_test(tc, other_nonce_or_gone_is_done);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
