/* test_host_watch.c - the host's own view (reference/host_watch.c) with real
 * processes: a process that runs the watched argv[0] with the run's nonce is
 * seen, one without the nonce or started before the watch is not; the task
 * pattern is recorded with both states; overlapping watches share one
 * pattern and a new one starts cleanly after the last left. */
#include <check.h>
#include "check_run.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/host_watch.h"

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
	ck_assert_int_eq(isotier_nonce_new(nonce, &err), 0);
	ck_assert_int_eq(strlen(nonce), 32);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier_host_watch_start(&w, ARGV0, nonce, &err), 0);
	pid_t child = spawn_as_probe(nonce);
	nap_ms(300);
	isotier_host_view v;
	isotier_host_watch_stop(w, &v);
	reap(child);
	ck_assert_msg(v.workload_seen, "the probe-named child with the nonce was not seen");
	ck_assert_int_eq(v.workload_pid, child);
	ck_assert_ptr_nonnull(strstr(v.workload_detail, "host's kernel"));
	isotier_host_view_clear(&v);
}
END_TEST

START_TEST(ignores_other_nonces_and_old_processes)
{
	char nonce[33], other[33];
	isotier_error err = {0};
	ck_assert_int_eq(isotier_nonce_new(nonce, &err), 0);
	ck_assert_int_eq(isotier_nonce_new(other, &err), 0);
	pid_t before = spawn_as_probe(nonce); /* there before the watch: not the run's */
	nap_ms(50);
	isotier_host_watch *w = NULL;
	ck_assert_int_eq(isotier_host_watch_start(&w, ARGV0, nonce, &err), 0);
	pid_t foreign = spawn_as_probe(other);
	nap_ms(700);
	isotier_host_view v;
	isotier_host_watch_stop(w, &v);
	reap(before);
	reap(foreign);
	ck_assert_msg(!v.workload_seen, "seen: %s", v.workload_detail);
	/* ~700 ms of 50 ms slots: both states, never three alike in a row. */
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
	isotier_host_view_clear(&v);
}
END_TEST

static void *one_watch(void *arg)
{
	(void)arg;
	char nonce[33];
	isotier_error err = {0};
	isotier_host_watch *w = NULL;
	if (isotier_nonce_new(nonce, &err) < 0 ||
	    isotier_host_watch_start(&w, ARGV0, nonce, &err) < 0)
		return (void *)1;
	nap_ms(200 + rand() % 200);
	isotier_host_view v;
	isotier_host_watch_stop(w, &v);
	bool ok = !v.pattern_failed && v.n_segs > 0;
	isotier_host_view_clear(&v);
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

int main(void)
{
	Suite *s = suite_create("host_watch");
	TCase *tc = tcase_create("host_watch");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, sees_the_workload);
	tcase_add_test(tc, ignores_other_nonces_and_old_processes);
	tcase_add_test(tc, overlapping_watches_share_one_pattern);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
