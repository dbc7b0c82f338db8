/* isotier-unit: alone (its task-count patterns and their timing want the host to itself) */
/* SPDX-License-Identifier: Apache-2.0 */
/* test_host_watch.c - the host's own view (reference/evidence/host_watch.c) with real
 * processes: a process that runs the watched argv[0] with the run's nonce is
 * seen, one without the nonce or started before the watch is not; the task
 * pattern is recorded with both states; overlapping watches share one
 * pattern and a new one starts cleanly after the last left; two processes'
 * patterns never overlap (the host's challenge lock), and a lock held past
 * the deadline leaves the watch without a challenge, saying why; a local
 * sandbox's start line, read from its stderr on collect.c's thread, plays
 * a deferred pattern (only a line of its own), and the probe's report (stdout's
 * first bytes) parks it for that watch alone. */
#include <check.h>
#include "check_run.h"
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/file.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/backends/collect.h"
#include "../../reference/evidence/host_watch.h"
#include "host_lock.h"

#define ARGV0 "/.isotier-test/isotier-probe"

/* A child whose argv[0] is ARGV0 and whose arguments carry nonce. */
static pid_t spawn_as_probe(const char *nonce)
{
	pid_t pid = fork();
	if (pid == 0) {
		/* sh stays itself ("; :" keeps it from exec'ing sleep), argv intact. */
		char *const argv[] = {ARGV0, "-c", "sleep 1; :", "--nonce", (char *)nonce, NULL};
		execv("/bin/sh", argv);
		_exit(127);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void nap_ms(int ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

START_TEST(sees_the_workload)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	ck_assert_int_eq(strlen(nonce), 32);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	pid_t child = spawn_as_probe(nonce);
	nap_ms(300);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	reap(child);
	ck_assert_msg(v.workload_seen, "the probe-named child with the nonce was not seen");
	ck_assert_int_eq(v.workload_pid, child);
	ck_assert_ptr_nonnull(strstr(v.workload_detail, "host's kernel"));
	isotier__host_view_clear(&v);
}
END_TEST

/* Seen is SHARED whatever the samples show: once the host has told a seen
 * probe (one that catches SIGUSR1) to stop, its pattern stops too (no more
 * slots), while the watch runs on. */
START_TEST(seen_probe_parks_the_pattern)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	pid_t child = fork();
	if (child == 0) {
		char *const argv[] = {
		    ARGV0, "-c", "trap : USR1; sleep 3; :", "--nonce", nonce, NULL};
		execv("/bin/sh", argv);
		_exit(127);
	}
	nap_ms(1500);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	reap(child);
	ck_assert_msg(v.workload_seen, "the probe-named child with the nonce was not seen");
	/* Seen and told within a few of the watch's 5 ms looks (a loaded host:
	 * some hundreds of ms); the pattern stopped then, long before the end
	 * (often before its first slot was recorded). */
	int64_t last = v.n_segs ? v.segs[v.n_segs - 1].end_us : v.started_us;
	ck_assert_msg(v.stopped_us - last > 500000,
	              "the pattern played until %lld ms before the watch stopped",
	              (long long)(v.stopped_us - last) / 1000);
	isotier__host_view_clear(&v);
}
END_TEST

START_TEST(ignores_other_nonces_and_old_processes)
{
	char nonce[33], other[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	ck_assert_int_eq(isotier__nonce_new(other, &err), 0);
	/* 1.2 s for the 8 slots asked below (64 ms of them); the pattern's
	 * thread may start late on a busy host and the slots counted are what it
	 * ran, so a watch that ran fewer is tried again with a longer nap (one
	 * whose pattern failed is not: that fails). */
	static const int naps_ms[] = {1200, 3000, 8000};
	isotier_host_view v;
	for (size_t t = 0; t < sizeof naps_ms / sizeof *naps_ms; t++) {
		if (t)
			isotier__host_view_clear(&v);
		pid_t before = spawn_as_probe(nonce); /* there before the watch: not the run's */
		nap_ms(50);
		isotier_host_watch *w = NULL;
		ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
		pid_t foreign = spawn_as_probe(other);
		nap_ms(naps_ms[t]);
		isotier__host_watch_stop(w, &v);
		reap(before);
		reap(foreign);
		ck_assert_msg(!v.pattern_failed, "ignores_other_nonces: no pattern: %s",
		              v.pattern_detail);
		ck_assert_msg(!v.workload_seen, "seen: %s", v.workload_detail);
		if (v.n_segs >= 8)
			break;
		fprintf(stderr, "ignores_other_nonces: %zu slots in %d ms, a busy host: again\n",
		        v.n_segs, naps_ms[t]);
	}
	/* 8 ms slots: both states, never three alike in a row. */
	ck_assert_uint_ge(v.n_segs, 8);
	size_t on = 0;
	for (size_t i = 0; i < v.n_segs; i++) {
		on += v.segs[i].tasks > 0;
		ck_assert(v.segs[i].end_us > v.segs[i].start_us);
		if (i >= 2)
			ck_assert(!((v.segs[i].tasks > 0) == (v.segs[i - 1].tasks > 0) &&
			            (v.segs[i - 1].tasks > 0) == (v.segs[i - 2].tasks > 0)));
	}
	ck_assert_uint_gt(on, 0);
	ck_assert_uint_lt(on, v.n_segs);
	isotier__host_view_clear(&v);
}
END_TEST

static void *one_watch(void *arg)
{
	(void)arg;
	char nonce[33];
	isotier_error err = {0};
	isotier_host_watch *w = NULL;
	if (isotier__nonce_new(nonce, &err) < 0 ||
	    isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err) < 0)
		return (void *)1;
	nap_ms(200 + rand() % 200);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	bool ok = !v.pattern_failed && v.n_segs > 0;
	isotier__host_view_clear(&v);
	return ok ? NULL : (void *)1;
}

START_TEST(overlapping_watches_share_one_pattern)
{
	for (int round = 0; round < 3; round++) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, one_watch, NULL), 0);
		for (int i = 0; i < 4; i++) {
			void *rc;
			pthread_join(t[i], &rc);
			ck_assert_msg(rc == NULL, "round %d watch %d saw no pattern", round, i);
		}
	}
}
END_TEST

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A backend whose sandbox says when its probe starts (QEMU): nothing is
 * played before the line, the pattern (both states) after it. */
START_TEST(deferred_pattern_waits_for_the_start_line)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	isotier__host_watch_defer_pattern();
	/* The slot playing when the backend defers ends by itself (8 ms; more
	 * on a loaded host): nothing starts after it until the line. */
	int64_t deferred = mono_us();
	nap_ms(300); /* the VM's boot */
	int64_t said = mono_us();
	isotier__host_watch_probe_starting();
	isotier__host_watch_probe_starting(); /* a second line changes nothing */
	nap_ms(600);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	ck_assert_msg(!v.pattern_failed, "no pattern after the start line: %s", v.pattern_detail);
	size_t on = 0, after = 0;
	for (size_t i = 0; i < v.n_segs; i++) {
		ck_assert_msg(v.segs[i].start_us >= said || v.segs[i].start_us <= deferred,
		              "slot %zu played %lld us before the start line, after the defer", i,
		              (long long)(said - v.segs[i].start_us));
		if (v.segs[i].start_us >= said) {
			after++;
			on += v.segs[i].tasks > 0;
		}
	}
	ck_assert_uint_ge(after, 6);
	ck_assert_uint_gt(on, 0);
	ck_assert_uint_lt(on, after);
	isotier__host_view_clear(&v);
}
END_TEST

static long read_last_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "re");
	long v = -1;
	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* While no pid is made (the pattern deferred, as while a VM boots) the watch
 * lists /proc only every tenth look, yet a process made between two looks is
 * seen at the next one. */
START_TEST(quiet_host_is_listed_seldom)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	isotier__host_watch_defer_pattern();
	nap_ms(50); /* the slot playing when deferred ends (its threads are made by then) */
	long before = read_last_pid();
	nap_ms(400);
	long after = read_last_pid();
	pid_t child = spawn_as_probe(nonce);
	nap_ms(100);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	reap(child);
	ck_assert_msg(v.workload_seen, "a process made between listings was not seen");
	ck_assert_uint_ge(v.passes, 20);
	ck_assert_uint_ge(v.listings, v.passes / 10); /* at least every tenth look */
	if (before > 0 && before == after)            /* nothing else on the host made a pid */
		ck_assert_msg(v.listings <= v.passes / 3,
		              "a quiet host was listed %u times in %u looks", v.listings, v.passes);
	else
		fprintf(stderr,
		        "quiet_host_is_listed_seldom: the host made pids meanwhile (%ld -> %ld): "
		        "%u listings in %u looks, not judged\n",
		        before, after, v.listings, v.passes);
	isotier__host_view_clear(&v);
}
END_TEST

/* Fail closed: a sandbox that never says its probe started gets no
 * challenge, while another run's watch beside it keeps its pattern. */
START_TEST(never_said_start_gives_no_challenge)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	isotier__host_watch_defer_pattern();
	pthread_t sibling;
	ck_assert_int_eq(pthread_create(&sibling, NULL, one_watch, NULL), 0);
	void *rc;
	pthread_join(sibling, &rc);
	ck_assert_msg(rc == NULL, "a waiting watch stopped its sibling's pattern");
	nap_ms(100);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	ck_assert(v.pattern_failed);
	ck_assert_uint_eq(v.n_segs, 0);
	ck_assert_ptr_nonnull(strstr(v.pattern_detail, "never said its probe started"));
	isotier__host_view_clear(&v);
	/* The waiting count went back: a new watch plays at once. */
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	nap_ms(200);
	isotier__host_watch_stop(w, &v);
	ck_assert(!v.pattern_failed);
	ck_assert_uint_gt(v.n_segs, 0);
	isotier__host_view_clear(&v);
}
END_TEST

/* A local sandbox's start line (runsc's probe, --say-start) is its stderr,
 * read on collect.c's thread: ISOTIER-START on a line of its own plays the
 * deferred pattern from then on; the word inside another line does not. */
static int stderr_exec(void *state, const isotier_exec_request *req, int *exit_status,
                       isotier_error *err)
{
	(void)err;
	const char *text = state;
	if (write(req->stderr_fd, text, strlen(text)) < 0)
		return -1;
	nap_ms(600); /* the probe samples */
	*exit_status = 0;
	return 0;
}

static void run_saying(const char *text, isotier_host_view *v)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	isotier__host_watch_defer_pattern();
	const isotier_backend b = {
	    .version = ISOTIER_BACKEND_VERSION, .name = "said", .exec = stderr_exec};
	const char *argv[] = {"probe", NULL};
	isotier_exec_request req = {.argv = argv, .timeout_s = 10, .cancel_fd = -1};
	isotier_collected got = {
	    .max_out = 4096, .on_start = isotier__host_watch_start_said, .start_data = w};
	int status = -1;
	ck_assert_int_eq(isotier__exec_collect(&got, &b, (void *)text, &req, &status, &err), 0);
	free(got.out);
	isotier__host_watch_stop(w, v);
}

START_TEST(start_line_on_stderr_plays_the_pattern)
{
	isotier_host_view v;
	run_saying("runsc: a warning\nISOTIER-START\n", &v);
	ck_assert_msg(!v.pattern_failed, "no pattern after the start line: %s", v.pattern_detail);
	ck_assert_uint_gt(v.n_segs, 0); /* a loaded host plays fewer */
	isotier__host_view_clear(&v);
	run_saying("not ISOTIER-START\nISOTIER-STARTED\n", &v);
	ck_assert(v.pattern_failed);
	ck_assert_uint_eq(v.n_segs, 0);
	ck_assert_ptr_nonnull(strstr(v.pattern_detail, "never said its probe started"));
	isotier__host_view_clear(&v);
}
END_TEST

/* The probe's report (its first bytes of stdout) ends its window: the pattern
 * holds still for that watch from then on (nothing left to show a probe that
 * is done sampling; its churn only slows the report, the capture and the
 * teardown), while another run's watch beside it keeps it playing, and the
 * waiting count goes back when the watch ends. */
typedef struct reporter {
	int64_t reported_us;
} reporter;

static int report_exec(void *state, const isotier_exec_request *req, int *exit_status,
                       isotier_error *err)
{
	(void)err;
	reporter *r = state;
	nap_ms(300); /* the probe samples */
	r->reported_us = mono_us();
	if (write(req->stdout_fd, "{\"report\": 1}\n", 14) < 0)
		return -1;
	nap_ms(600); /* the capture, the sandbox's teardown */
	*exit_status = 0;
	return 0;
}

static void *watch_for_ms(void *arg)
{
	char nonce[33];
	isotier_error err = {0};
	isotier_host_watch *w = NULL;
	isotier_host_view *v = arg;
	if (isotier__nonce_new(nonce, &err) < 0 ||
	    isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err) < 0)
		return v;
	nap_ms(1100);
	isotier__host_watch_stop(w, v);
	return NULL;
}

START_TEST(report_parks_the_pattern)
{
	for (int beside = 0; beside < 2; beside++) {
		char nonce[33];
		isotier_error err = {0};
		ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
		isotier_host_watch *w = NULL;
		ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
		pthread_t other;
		isotier_host_view ov = {0};
		if (beside)
			ck_assert_int_eq(pthread_create(&other, NULL, watch_for_ms, &ov), 0);
		reporter r = {0};
		const isotier_backend b = {
		    .version = ISOTIER_BACKEND_VERSION, .name = "reports", .exec = report_exec};
		const char *argv[] = {"probe", NULL};
		isotier_exec_request req = {.argv = argv, .timeout_s = 10, .cancel_fd = -1};
		isotier_collected got = {.max_out = 4096,
		                         .on_report = isotier__host_watch_probe_reported,
		                         .report_data = w};
		int status = -1;
		ck_assert_int_eq(isotier__exec_collect(&got, &b, &r, &req, &status, &err), 0);
		ck_assert_str_eq(got.out, "{\"report\": 1}\n");
		free(got.out);
		isotier_host_view v;
		isotier__host_watch_stop(w, &v);
		ck_assert_msg(!v.pattern_failed, "no pattern: %s", v.pattern_detail);
		size_t before = 0, late = 0;
		for (size_t i = 0; i < v.n_segs; i++) {
			before += v.segs[i].start_us < r.reported_us;
			/* The slot playing at the report ends by itself; a loaded host
			 * reads the pipe late: 150 ms is far more than either. */
			late += v.segs[i].start_us > r.reported_us + 150000;
		}
		ck_assert_uint_gt(before, 3);
		if (!beside) {
			ck_assert_msg(late == 0, "%zu slots played after the report", late);
		} else {
			void *failed;
			pthread_join(other, &failed);
			ck_assert_msg(failed == NULL, "the other watch did not start");
			/* The other run's watch still wanted it: it played on. */
			size_t after = 0;
			for (size_t i = 0; i < ov.n_segs; i++)
				after += ov.segs[i].start_us > r.reported_us + 150000;
			ck_assert_msg(after > 3,
			              "the other watch's pattern stopped with the report");
			isotier__host_view_clear(&ov);
		}
		isotier__host_view_clear(&v);
	}
	/* The waiting count went back: a new watch plays at once. */
	isotier_host_view v;
	ck_assert_ptr_null(watch_for_ms(&v));
	ck_assert(!v.pattern_failed);
	ck_assert_uint_gt(v.n_segs, 0);
	isotier__host_view_clear(&v);
}
END_TEST

/* However many reasons one run has not to want the pattern (waiting for its
 * start line and its report begun, or seen and reported), it counts once
 * among the pattern's waiting users: another run's pattern plays on. */
START_TEST(one_run_counts_once_among_the_waiting)
{
	char nonce[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	isotier_host_view ov = {0};
	pthread_t other;
	ck_assert_int_eq(pthread_create(&other, NULL, watch_for_ms, &ov), 0);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 10000, -1, &err), 0);
	isotier__host_watch_defer_pattern();   /* waits for a start line never said */
	isotier__host_watch_probe_reported(w); /* and reports: two reasons, one run */
	isotier__host_watch_probe_reported(w); /* a second report changes nothing */
	int64_t quiet = mono_us();
	nap_ms(700);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	ck_assert(v.pattern_failed); /* never said its start line: no challenge */
	isotier__host_view_clear(&v);
	void *failed;
	pthread_join(other, &failed);
	ck_assert_msg(failed == NULL, "the other watch did not start");
	/* While this run was quiet and still a user (it stopped at 700 ms). */
	size_t after = 0;
	for (size_t i = 0; i < ov.n_segs; i++)
		after +=
		    ov.segs[i].start_us > quiet + 150000 && ov.segs[i].start_us < quiet + 600000;
	ck_assert_msg(after > 3, "the other run's pattern held still: %zu slots", after);
	isotier__host_view_clear(&ov);
}
END_TEST

/* A lock of the test's own: the host's would be shared with whatever else
 * runs a challenge on this machine meanwhile. */
static char lock_file[64];

static void own_lock(void)
{
	unlink(lock_file);
}

/* A child that watches until told to stop (a byte on go), then writes
 * its pattern's first start and last end (CLOCK_MONOTONIC, shared by every
 * process) to out; ready gets a byte once its watch has started. */
static pid_t spawn_watcher(int go, int ready, int out)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char nonce[33], c;
	isotier_error err = {0};
	isotier_host_watch *w = NULL;
	if (isotier__nonce_new(nonce, &err) < 0 ||
	    isotier__host_watch_start(&w, ARGV0, nonce, 60000, -1, &err) < 0)
		_exit(2);
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	int64_t span[2] = {v.n_segs ? v.segs[0].start_us : 0,
	                   v.n_segs ? v.segs[v.n_segs - 1].end_us : 0};
	int rc = v.pattern_failed                               ? 4
	         : !v.n_segs                                    ? 5
	         : write(out, span, sizeof span) == sizeof span ? 0
	                                                        : 3;
	isotier__host_view_clear(&v);
	_exit(rc);
}

/* read(2) of n bytes within ms, or the test fails naming what it waited for:
 * a watcher that died before writing must end the test, never hang it (this
 * process holds the pipes' write ends too, so no EOF would come). */
static void read_within(int fd, void *buf, size_t n, int ms, const char *what)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r = poll(&p, 1, ms);
	ck_assert_msg(r == 1, "two_processes_patterns_take_turns: no %s within %d ms", what, ms);
	ck_assert_msg(read(fd, buf, n) == (ssize_t)n,
	              "two_processes_patterns_take_turns: no %s: the watcher ended without it "
	              "(exit 2: its watch did not start, 4: its pattern failed, 5: it played "
	              "no slot before it was stopped)",
	              what);
}

START_TEST(two_processes_patterns_take_turns)
{
	own_lock();
	int goa[2], gob[2], ready[2], outa[2], outb[2];
	ck_assert(pipe(goa) == 0 && pipe(gob) == 0 && pipe(ready) == 0 && pipe(outa) == 0 &&
	          pipe(outb) == 0);
	char c;
	pid_t a = spawn_watcher(goa[0], ready[1], outa[1]);
	read_within(ready[0], &c, 1, 20000, "ready from watcher a"); /* a's pattern runs */
	pid_t b = spawn_watcher(gob[0], ready[1], outb[1]);
	/* Only the watchers write these now: one that dies leaves EOF, not a wait. */
	close(ready[1]), close(outa[1]), close(outb[1]);
	/* b asks for the lock while a holds it: without the lock its pattern
	 * would start now, inside a's. The nap only gives b time to ask; the
	 * assertions below are on order, not on time. */
	nap_ms(1000);
	ck_assert_int_eq(write(goa[1], "g", 1), 1);
	read_within(ready[0], &c, 1, 20000,
	            "ready from watcher b"); /* b's pattern runs: a has left */
	/* Long enough for b's pattern thread to play a slot on a busy host
	 * (200 ms was not, under two other CPU hogs): a span is compared. */
	nap_ms(1000);
	ck_assert_int_eq(write(gob[1], "g", 1), 1);
	int64_t sa[2], sb[2];
	read_within(outa[0], sa, sizeof sa, 20000, "pattern span from watcher a");
	read_within(outb[0], sb, sizeof sb, 20000, "pattern span from watcher b");
	int st;
	ck_assert_int_eq(waitpid(a, &st, 0), a);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(waitpid(b, &st, 0), b);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(sb[0] >= sa[1],
	              "b's pattern started %lld us before a's ended: the patterns overlapped",
	              (long long)(sa[1] - sb[0]));
	unlink(lock_file);
}
END_TEST

START_TEST(held_lock_gives_no_challenge)
{
	own_lock();
	/* Another isotier's challenge, as the lock sees it. */
	int held = open(lock_file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	ck_assert_int_ge(held, 0);
	ck_assert_int_eq(flock(held, LOCK_EX), 0);
	pid_t child = fork();
	if (child == 0) {
		/* Another process: a lock of one's own fd is no contention. */
		char nonce[33];
		isotier_error err = {0};
		isotier_host_watch *w = NULL;
		if (isotier__nonce_new(nonce, &err) < 0 ||
		    isotier__host_watch_start(&w, ARGV0, nonce, 150, -1, &err) < 0)
			_exit(2);
		isotier_host_view v;
		isotier__host_watch_stop(w, &v);
		bool ok = v.pattern_failed && v.n_segs == 0 &&
		          strstr(v.pattern_detail, "held the host's lock") &&
		          strstr(v.pattern_detail, lock_file);
		if (!ok)
			fprintf(stderr, "pattern_failed=%d segs=%zu detail=%s\n", v.pattern_failed,
			        v.n_segs, v.pattern_detail);
		isotier__host_view_clear(&v);
		_exit(ok ? 0 : 3);
	}
	int st;
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the watch ran a challenge under a "
	                                                     "held lock, or gave no reason");
	/* Let go, the next watch has its challenge again. */
	close(held);
	char nonce[33];
	isotier_error err = {0};
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 150, -1, &err), 0);
	nap_ms(300);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	ck_assert_msg(!v.pattern_failed && v.n_segs > 0, "%s", v.pattern_detail);
	isotier__host_view_clear(&v);
	unlink(lock_file);
}
END_TEST

START_TEST(symlinked_lock_is_refused)
{
	own_lock();
	ck_assert_int_eq(symlink("/tmp", lock_file), 0);
	char nonce[33];
	isotier_error err = {0};
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier__nonce_new(nonce, &err), 0);
	ck_assert_int_eq(isotier__host_watch_start(&w, ARGV0, nonce, 1000, -1, &err), 0);
	isotier_host_view v;
	isotier__host_watch_stop(w, &v);
	ck_assert(v.pattern_failed);
	ck_assert_uint_eq(v.n_segs, 0);
	ck_assert_ptr_nonnull(strstr(v.pattern_detail, "challenge lock"));
	isotier__host_view_clear(&v);
	unlink(lock_file);
}
END_TEST

int main(void)
{
	/* Every test's watches take a lock of their own, which the lock tests
	 * hold and plant; the suite holds the host's meanwhile (host_lock.h), so
	 * its patterns blur no verification running on this host, nor theirs
	 * these. */
	int host = test_host_lock("test_host_watch", 120);
	if (host == -1)
		return 1;
	snprintf(lock_file, sizeof lock_file, "/tmp/isotier-test-challenge-%d.lock", (int)getpid());
	if (setenv("ISOTIER_CHALLENGE_LOCK", lock_file, 1) != 0)
		return 1;
	Suite *s = suite_create("host_watch");
	TCase *tc = tcase_create("host_watch");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, sees_the_workload);
	tcase_add_test(tc, quiet_host_is_listed_seldom);
	tcase_add_test(tc, seen_probe_parks_the_pattern);
	tcase_add_test(tc, ignores_other_nonces_and_old_processes);
	tcase_add_test(tc, overlapping_watches_share_one_pattern);
	tcase_add_test(tc, deferred_pattern_waits_for_the_start_line);
	tcase_add_test(tc, never_said_start_gives_no_challenge);
	tcase_add_test(tc, start_line_on_stderr_plays_the_pattern);
	tcase_add_test(tc, report_parks_the_pattern);
	tcase_add_test(tc, one_run_counts_once_among_the_waiting);
	tcase_add_test(tc, two_processes_patterns_take_turns);
	tcase_add_test(tc, held_lock_gives_no_challenge);
	tcase_add_test(tc, symlinked_lock_is_refused);
	suite_add_tcase(s, tc);
	int rc = run_suite(s);
	unlink(lock_file);
	if (host >= 0)
		close(host);
	return rc;
}
