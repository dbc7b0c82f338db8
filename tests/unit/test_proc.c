/* SPDX-License-Identifier: Apache-2.0 */
/* test_proc.c - child processes cancelled per call through a descriptor:
 * the whole process group killed, ISOTIER_EINTR, nothing left; refused when
 * already cancelled except cleanup children; the caller's signal handlers
 * and mask untouched; a relay to a stuck reader cancelled too. */
#include <check.h>
#include "check_run.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/backends/backend_util.h"
#include "../../reference/core/proc.h"

/* Processes in group pgid that are not zombies. */
static int live_in_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		char path[300], buf[1024];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = '\0';
		char *rp = strrchr(buf, ')');
		char state;
		int ppid, pgrp;
		if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
		    state != 'Z')
			n++;
	}
	closedir(d);
	return n;
}

/* Waits (bounded, 5 s) for group pgid to be empty; returns what is left. */
static int wait_group_gone(pid_t pgid)
{
	int left = live_in_group(pgid);
	for (int i = 0; i < 250 && left; i++) {
		struct timespec ts = {0, 20 * 1000000L};
		nanosleep(&ts, NULL);
		left = live_in_group(pgid);
	}
	return left;
}

static void cancel_pipe(int p[2], bool readable)
{
	ck_assert_int_eq(pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
	if (readable)
		ck_assert_int_eq(write(p[1], "x", 1), 1);
}

/* The sink of a child that prints its pid ($$, the group id): once it did,
 * the cancel pipe is written, as a signal handler would. */
struct cancel_on_pid {
	int cancel_w;
	pid_t pgid;
	int live_before;
	char buf[64];
	size_t len;
};

static int cancel_on_pid_sink(void *ctx, const char *buf, size_t len)
{
	struct cancel_on_pid *c = ctx;
	size_t k = len < sizeof c->buf - 1 - c->len ? len : sizeof c->buf - 1 - c->len;
	memcpy(c->buf + c->len, buf, k);
	c->len += k;
	c->buf[c->len] = '\0';
	if (!c->pgid && strchr(c->buf, '\n')) {
		c->pgid = (pid_t)atoi(c->buf);
		c->live_before = live_in_group(c->pgid);
		ck_assert_int_eq(write(c->cancel_w, "x", 1), 1);
	}
	return 0;
}

START_TEST(cancel_fd_kills_the_whole_group)
{
	int p[2];
	cancel_pipe(p, false);
	struct cancel_on_pid c = {.cancel_w = p[1]};
	/* Two background sleeps in the group; the leader waits for them. */
	const char *argv[] = {"/bin/sh", "-c", "sleep 300 & sleep 300 & echo $$; wait", NULL};
	isotier_proc_opts o = {.argv = argv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .out_sink = cancel_on_pid_sink,
	                       .out_sink_ctx = &c,
	                       .timeout_s = 60,
	                       .cancel_fd = p[0]};
	isotier_error err = {0};
	int status = 0;
	int rc = isotier__proc_run(&o, &status, &err);
	ck_assert_msg(rc == ISOTIER_EINTR, "expected EINTR, got %d: %s", rc, err.message);
	ck_assert_str_eq(err.message, "/bin/sh: cancelled");
	ck_assert_int_eq(status, -1);
	ck_assert_int_gt(c.pgid, 1);
	ck_assert_int_ge(c.live_before, 3); /* the shell and its two sleeps, when cancelled */
	ck_assert_int_eq(wait_group_gone(c.pgid), 0);
	/* The descriptor is polled, never read: it still says "cancelled". */
	ck_assert(isotier__cancelled(p[0]));
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(readable_cancel_fd_refuses_all_but_cleanup)
{
	char dir[] = "/tmp/isotier-test-proc.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char file[sizeof dir + 16], cmd[sizeof file + 16];
	snprintf(file, sizeof file, "%s/ran", dir);
	snprintf(cmd, sizeof cmd, "touch %s", file);
	int p[2];
	cancel_pipe(p, true);
	const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	isotier_proc_opts o = {.argv = argv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .timeout_s = 30,
	                       .cancel_fd = p[0]};
	isotier_error err = {0};
	int status = 0;
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), ISOTIER_EINTR);
	ck_assert_str_eq(err.message, "/bin/sh: not started: cancelled");
	ck_assert_int_ne(access(file, F_OK), 0); /* nothing was started */
	/* A cleanup child (runc delete) runs regardless. */
	o.flags = ISOTIER_PROC_CLEANUP;
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), 0);
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(access(file, F_OK), 0);
	/* A hung-up descriptor (the writer gone) cancels too. */
	int h[2];
	cancel_pipe(h, false);
	close(h[1]);
	o.flags = 0;
	o.cancel_fd = h[0];
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), ISOTIER_EINTR);
	close(h[0]);
	unlink(file);
	rmdir(dir);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(cancel_fd_zero_means_none_and_a_closed_one_is_refused)
{
	const char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
	/* Zero-initialised: no cancellation (fd 0 is stdin, never a cancel_fd). */
	isotier_proc_opts o = {.argv = argv, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
	isotier_error err = {0};
	int status = 0;
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), 0);
	ck_assert_int_eq(status, 3);
	ck_assert(!isotier__cancelled(0));
	ck_assert(!isotier__cancelled(-1));
	int p[2];
	cancel_pipe(p, false);
	close(p[0]);
	close(p[1]);
	o.cancel_fd = p[0]; /* closed now */
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), ISOTIER_EINVAL);
	ck_assert(strstr(err.message, "not an open descriptor"));
	ck_assert(isotier__cancelled(p[0])); /* fails closed */
}
END_TEST

static volatile sig_atomic_t got_term;
static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

START_TEST(the_callers_signals_are_left_alone)
{
	struct sigaction sa = {.sa_handler = on_term}, old;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGTERM, &sa, &old), 0);
	sigset_t before, after;
	ck_assert_int_eq(sigprocmask(SIG_SETMASK, NULL, &before), 0);
	/* The child signals us while we wait in the library: our handler runs, the
	 * wait goes on to the child's own exit status. */
	const char *argv[] = {"/bin/sh", "-c", "kill -TERM $PPID; sleep 0.2; exit 5", NULL};
	int p[2];
	cancel_pipe(p, false);
	isotier_proc_opts o = {.argv = argv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .timeout_s = 30,
	                       .cancel_fd = p[0]};
	isotier_error err = {0};
	int status = 0;
	int rc = isotier__proc_run(&o, &status, &err);
	ck_assert_msg(rc == 0, "rc %d: %s", rc, err.message);
	ck_assert_int_eq(status, 5);
	ck_assert_msg(got_term, "the caller's SIGTERM handler never ran");
	ck_assert_int_eq(sigprocmask(SIG_SETMASK, NULL, &after), 0);
	ck_assert(sigismember(&after, SIGTERM) == sigismember(&before, SIGTERM));
	ck_assert(sigismember(&after, SIGINT) == sigismember(&before, SIGINT));
	/* The next run is not refused: no "interrupted" state survives. */
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), 0);
	ck_assert_int_eq(status, 5);
	/* The child starts with nothing blocked, even when the caller blocks SIGTERM. */
	sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	const char *mask_argv[] = {"/bin/sh", "-c",
	                           "grep -q '^SigBlk:[[:space:]]*0*$' /proc/self/status", NULL};
	o.argv = mask_argv;
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), 0);
	ck_assert_int_eq(status, 0);
	sigprocmask(SIG_SETMASK, &before, NULL);
	sigaction(SIGTERM, &old, NULL);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(relay_to_a_stuck_reader_is_cancelled)
{
	int out[2], p[2];
	ck_assert_int_eq(pipe2(out, O_CLOEXEC | O_NONBLOCK), 0);
	char fill[4096];
	memset(fill, 'a', sizeof fill);
	while (write(out[1], fill, sizeof fill) > 0) /* nobody reads: full */
		;
	cancel_pipe(p, true);
	/* Without the cancel descriptor this would wait out the minute. */
	isotier_relay r = {
	    .fd = out[1], .deadline_ms = isotier__now_ms() + 60000, .cancel_fd = p[0]};
	ck_assert_int_eq(isotier__relay_sink(&r, "more", 4), ISOTIER_EINTR);
	close(out[0]);
	close(out[1]);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* A child whose CPU is all in a grandchild it reaps (a subshell): wait4's
 * rusage of the child covers it. */
static void *burn_thread(void *arg)
{
	int64_t *delta = arg;
	const char *argv[] = {"/bin/sh", "-c",
	                      "(i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done); exit 0", NULL};
	isotier_proc_opts o = {.argv = argv, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
	int status = -1;
	isotier_error err = {0};
	int64_t before = isotier__proc_thread_cpu_us();
	if (isotier__proc_run(&o, &status, &err) != 0 || status != 0)
		*delta = -1;
	else
		*delta = isotier__proc_thread_cpu_us() - before;
	return NULL;
}

/* verify stores a sandbox's CPU time from this count: another worker's
 * children must not show in it (RUSAGE_CHILDREN would have them). */
START_TEST(reaped_cpu_is_counted_per_thread)
{
	int64_t mine = isotier__proc_thread_cpu_us(), theirs = -2;
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, burn_thread, &theirs), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_gt(theirs, 0);
	ck_assert_int_eq(isotier__proc_thread_cpu_us(), mine);
	/* And this thread's own child counts here. */
	int64_t again = -2;
	burn_thread(&again);
	ck_assert_int_gt(again, 0);
	ck_assert_int_eq(isotier__proc_thread_cpu_us(), mine + again);
}
END_TEST

/* A console written a few bytes at a time (out_batch_ms): read in batches,
 * every byte kept and in order, and the deadline still kills a writer that
 * never stops. */
struct gather {
	char buf[4096];
	size_t len;
	int calls;
};

static int gather_sink(void *ctx, const char *buf, size_t len)
{
	struct gather *g = ctx;
	ck_assert_uint_le(g->len + len, sizeof g->buf - 1);
	memcpy(g->buf + g->len, buf, len);
	g->len += len;
	g->buf[g->len] = '\0';
	g->calls++;
	return 0;
}

START_TEST(a_byte_at_a_time_writer_is_read_in_batches)
{
	static struct gather g;
	const char *argv[] = {"/bin/sh", "-c",
	                      "i=100; while [ $i -lt 700 ]; do printf %d $i; i=$((i+1)); done",
	                      NULL};
	isotier_proc_opts o = {.argv = argv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .out_sink = gather_sink,
	                       .out_sink_ctx = &g,
	                       .timeout_s = 20,
	                       .out_batch_ms = 2};
	int status = -1;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__proc_run(&o, &status, &err), 0);
	ck_assert_int_eq(status, 0);
	char want[sizeof g.buf];
	size_t n = 0;
	for (int i = 100; i < 700; i++)
		n += (size_t)snprintf(want + n, sizeof want - n, "%d", i);
	ck_assert_uint_eq(g.len, n);
	ck_assert_str_eq(g.buf, want);
	ck_assert_int_le(g.calls, 600);

	/* A writer that never ends: the batching waits never outlast the deadline. */
	const char *forever[] = {"/bin/sh", "-c", "while :; do printf x; done", NULL};
	isotier_capture cap = {.max = 1024};
	isotier_proc_opts f = {.argv = forever,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .out_capture = &cap,
	                       .timeout_s = 1,
	                       .out_batch_ms = 2};
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(isotier__proc_run(&f, &status, &err), ISOTIER_ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 15);
	ck_assert(cap.truncated);
	free(cap.data);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("cancel");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, cancel_fd_kills_the_whole_group);
	tcase_add_test(tc, readable_cancel_fd_refuses_all_but_cleanup);
	tcase_add_test(tc, cancel_fd_zero_means_none_and_a_closed_one_is_refused);
	tcase_add_test(tc, the_callers_signals_are_left_alone);
	tcase_add_test(tc, relay_to_a_stuck_reader_is_cancelled);
	tcase_add_test(tc, reaped_cpu_is_counted_per_thread);
	tcase_add_test(tc, a_byte_at_a_time_writer_is_read_in_batches);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
