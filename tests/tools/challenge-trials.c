/* SPDX-License-Identifier: Apache-2.0 */
/*
 * challenge-trials - the host's task-count challenge, tried many times on
 * this host (bench/challenge_rates.sh): its error rates, measured.
 *
 *   challenge-trials --probe PATH [--trials N] [--window MS]
 *
 * Each trial is a real one: the host's pattern generator and its lock
 * (host_watch.h), the real probe sampling sysinfo(2) for the short window
 * (--challenge), the host's judge (challenge.h). The probe runs on the
 * host's own kernel, under an argv0 the watch does not look for, so only the
 * challenge can decide:
 *  - shared: the trial's samples against its own pattern. Not seen there is
 *    a false "dedicated" (the error that could raise a verdict);
 *  - dedicated: the same samples against the previous trial's pattern, an
 *    independent draw: a kernel of its own whose count swings by the
 *    pattern's whole amplitude at the pattern's own pace, the busiest an
 *    honest sandbox's own count could be. Seen there is a false "shared"
 *    (the error that could lower one).
 * Unanswered (too few slots or samples, a stalled sampler) is neither: the
 * verdict is INCONCLUSIVE and says why; it is counted apart.
 * Prints one line per outcome and the rates with their 95% upper bounds
 * (exact binomial); exit 0, 1 when a trial could not run at all.
 */
#include "../../reference/evidence/host_watch.h"
#include "../../reference/api/isotier_tool.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOT_THE_PROBE "/isotier-challenge-trials/not-watched"

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs the probe (its stdout into *out, at most PROBE_RESULT_MAX_BYTES), 30 s at most. */
static int run_probe(const char *probe, const char *nonce, int window_ms, char **out, size_t *len)
{
	char win[16];
	snprintf(win, sizeof win, "%d", window_ms);
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(probe, NOT_THE_PROBE, "--json", "--nonce", nonce, "--challenge", win,
		      (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	int64_t deadline = mono_ms() + 30000;
	for (;;) {
		int left = (int)(deadline - mono_ms());
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		if (left <= 0 || poll(&pf, 1, left) <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		if (n + 4096 > cap && cap < PROBE_RESULT_MAX_BYTES) {
			cap *= 2;
			char *b = realloc(buf, cap);
			if (!b)
				break;
			buf = b;
		}
		ssize_t r = read(p[0], buf + n, n + 4096 > cap ? cap - n - 1 : 4096);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The host's challenge lock (host_watch.h), held while the probe samples
 * with no pattern of ours running, so that no other isotier's runs either:
 * what it counts is the host's own churn. -1 when it cannot be had in 60 s. */
static int host_lock(void)
{
	const char *env = getenv("ISOTIER_CHALLENGE_LOCK");
	const char *path = env && *env ? env : "/run/isotier/challenge.lock";
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 3000; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		poll(NULL, 0, 20);
	}
	close(fd);
	return -1;
}

/* The exact (Clopper-Pearson) one-sided 95% upper bound of k failures in n:
 * the p at which k or fewer would happen 5% of the time, by bisection. */
static double upper95(long k, long n)
{
	double lo = (double)k / (double)n, hi = 1;
	for (int it = 0; it < 60; it++) {
		double p = (lo + hi) / 2, cdf = 0, term = pow(1 - p, (double)n);
		for (long i = 0; i <= k; i++) {
			cdf += term;
			term *= (double)(n - i) / (double)(i + 1) * p / (1 - p);
		}
		if (cdf > 0.05)
			lo = p;
		else
			hi = p;
	}
	return hi;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *probe = NULL;
	long trials = 1000;
	int window = ISOTIER_CHALLENGE_MS;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--probe") && i + 1 < argc)
			probe = argv[++i];
		else if (!strcmp(argv[i], "--trials") && i + 1 < argc)
			trials = strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--window") && i + 1 < argc)
			window = (int)strtol(argv[++i], NULL, 10);
		else {
			fprintf(
			    stderr,
			    "usage: challenge-trials --probe PATH [--trials N] [--window MS]\n");
			return 64;
		}
	}
	if (!probe || trials < 1 || trials > 1000000 || window < 1 || window > 5000) {
		fprintf(stderr, "challenge-trials: --probe PATH, 1-1000000 trials, 1-5000 ms\n");
		return 64;
	}
	long shared[3] = {0}, dedicated[3] = {0}, busy[3] = {0}, failed = 0, stalled = 0;
	int64_t *wall = calloc((size_t)trials, sizeof *wall);
	int64_t *gaps = calloc((size_t)trials, sizeof *gaps);
	isotier_host_view prev = {0};
	char why_missed[240] = "";
	for (long t = 0; t < trials; t++) {
		char nonce[33];
		isotier_error err = {0};
		isotier_host_watch *w = NULL;
		if (isotier__nonce_new(nonce, &err) < 0 ||
		    isotier__host_watch_start(&w, "/isotier-challenge-trials/watched", nonce, 30000,
		                              -1, &err) < 0) {
			fprintf(stderr, "challenge-trials: %s\n", err.message);
			failed++;
			continue;
		}
		int64_t t0 = mono_ms();
		char *out = NULL;
		size_t len = 0;
		int rc = run_probe(probe, nonce, window, &out, &len);
		isotier_host_view v;
		isotier__host_watch_stop(w, &v);
		wall[t] = mono_ms() - t0;
		probe_result pr = {0};
		if (rc < 0 || v.pattern_failed ||
		    isotier__probe_result_parse(&pr, out, len, &err) < 0) {
			fprintf(stderr, "challenge-trials: trial %ld: %s\n", t,
			        rc < 0             ? "the probe failed"
			        : v.pattern_failed ? v.pattern_detail
			                           : err.message);
			failed++;
		} else {
			gaps[t] = pr.run.max_gap_us;
			isotier_challenge_result r;
			isotier__challenge_judge(&r, v.segs, v.n_segs, &pr.run);
			shared[r.outcome]++;
			if (getenv("TRIALS_DEBUG") && r.outcome == ISOTIER_CHALLENGE_SEEN)
				fprintf(stderr, "shared seen r %.2f slots %zu amp %lld\n", r.r,
				        r.slots, (long long)r.amplitude);
			if (r.outcome == ISOTIER_CHALLENGE_UNANSWERED &&
			    strstr(r.detail, "slots it read"))
				stalled++;
			if (r.outcome != ISOTIER_CHALLENGE_SEEN)
				snprintf(why_missed, sizeof why_missed, "%s", r.detail);
			if (getenv("TRIALS_DEBUG") && r.outcome != ISOTIER_CHALLENGE_SEEN)
				fprintf(stderr,
				        "miss: gap %lld samples %lld changes %zu window %lld segs "
				        "%zu: %s\n",
				        (long long)pr.run.max_gap_us, (long long)pr.run.samples,
				        pr.run.n_changes,
				        (long long)(pr.run.end_us - pr.run.start_us), v.n_segs,
				        r.detail);
			if (prev.n_segs) {
				isotier__challenge_judge(&r, prev.segs, prev.n_segs, &pr.run);
				busy[r.outcome]++;
			}
			/* The probe once more with no pattern running: this host's
			 * own churn (other programs, builds), as a kernel of the
			 * sandbox's own would count its own, against this pattern. */
			char *quiet = NULL;
			size_t qlen = 0;
			probe_result q = {0};
			int lock = host_lock();
			int qrc = lock < 0 ? -1 : run_probe(probe, nonce, window, &quiet, &qlen);
			if (lock >= 0)
				close(lock);
			if (qrc == 0 && isotier__probe_result_parse(&q, quiet, qlen, &err) == 0) {
				isotier__challenge_judge(&r, v.segs, v.n_segs, &q.run);
				dedicated[r.outcome]++;
				if (getenv("TRIALS_DEBUG") && r.outcome == ISOTIER_CHALLENGE_SEEN)
					fprintf(stderr,
					        "dedicated seen r %.2f slots %zu amp %lld\n", r.r,
					        r.slots, (long long)r.amplitude);
			}
			isotier__probe_result_clear(&q);
			free(quiet);
		}
		isotier__probe_result_clear(&pr);
		free(out);
		isotier__host_view_clear(&prev);
		prev = v;
	}
	isotier__host_view_clear(&prev);
	long ran = trials - failed;
	long judged_s = shared[ISOTIER_CHALLENGE_SEEN] + shared[ISOTIER_CHALLENGE_NOT_SEEN];
	long judged_d = dedicated[ISOTIER_CHALLENGE_SEEN] + dedicated[ISOTIER_CHALLENGE_NOT_SEEN];
	qsort(wall, (size_t)trials, sizeof *wall, cmp_i64);
	qsort(gaps, (size_t)trials, sizeof *gaps, cmp_i64);
	printf(
	    "trials %ld (window %d ms, %d ms slots), %ld could not run; trial wall median %lld ms; "
	    "sampler's longest gap median %lld us, 99th percentile %lld us\n",
	    trials, window, ISOTIER_CHALLENGE_SLOT_MS, failed, (long long)wall[trials / 2],
	    (long long)gaps[trials / 2], (long long)gaps[trials * 99 / 100]);
	printf(
	    "shared kernel:    seen %ld, not seen %ld, unanswered %ld (%ld too few slots read)\n",
	    shared[ISOTIER_CHALLENGE_SEEN], shared[ISOTIER_CHALLENGE_NOT_SEEN],
	    shared[ISOTIER_CHALLENGE_UNANSWERED], stalled);
	printf("dedicated kernel: seen %ld, not seen %ld, unanswered %ld\n",
	       dedicated[ISOTIER_CHALLENGE_SEEN], dedicated[ISOTIER_CHALLENGE_NOT_SEEN],
	       dedicated[ISOTIER_CHALLENGE_UNANSWERED]);
	if (judged_s)
		printf("false-dedicated rate %.4f (%ld of %ld judged; 95%% upper bound %.4f)\n",
		       (double)shared[ISOTIER_CHALLENGE_NOT_SEEN] / (double)judged_s,
		       shared[ISOTIER_CHALLENGE_NOT_SEEN], judged_s,
		       upper95(shared[ISOTIER_CHALLENGE_NOT_SEEN], judged_s));
	if (judged_d)
		printf("false-shared rate %.4f (%ld of %ld judged; 95%% upper bound %.4f)\n",
		       (double)dedicated[ISOTIER_CHALLENGE_SEEN] / (double)judged_d,
		       dedicated[ISOTIER_CHALLENGE_SEEN], judged_d,
		       upper95(dedicated[ISOTIER_CHALLENGE_SEEN], judged_d));
	long judged_b = busy[ISOTIER_CHALLENGE_SEEN] + busy[ISOTIER_CHALLENGE_NOT_SEEN];
	if (judged_b)
		printf("a count that plays a pattern of its own (another trial's, at the "
		       "slots' pace): seen %ld of %ld judged (%ld unanswered)\n",
		       busy[ISOTIER_CHALLENGE_SEEN], judged_b, busy[ISOTIER_CHALLENGE_UNANSWERED]);
	if (ran)
		printf("unanswered rate (shared) %.4f: INCONCLUSIVE after the short window, "
		       "verify then runs the long one\n",
		       (double)shared[ISOTIER_CHALLENGE_UNANSWERED] / (double)ran);
	if (why_missed[0])
		printf("last miss: %s\n", why_missed);
	free(wall);
	free(gaps);
	return failed ? 1 : 0;
}
