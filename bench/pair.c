/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pair.c - an isotier operation against its floor, measured in interleaved pairs.
 *
 *   pair [-n MIN] [-N MAX] [-w WARMUP] [-t TARGET] [-p PREPARE] [-T TIMEOUT_S] [-l LABEL]
 *        [-a CODES] [-L LOCK] [-c] NAME_A CMD_A NAME_B CMD_B
 *
 * Runs A and B one after the other, alternating which goes first (A B, B A, ...),
 * so load that drifts over the run weighs on both alike; a tool that runs all of
 * A and then all of B lets the drift decide. Each pair gives one ratio A/B of
 * wall times. Each command is a program and its arguments split on spaces (no
 * shell); PREPARE, when given, runs through /bin/sh before every command,
 * untimed. WARMUP pairs (default 1) run first and count for nothing. A command
 * that fails, or outlives TIMEOUT_S (default 120), stops the figure: a failed
 * run times nothing worth comparing. CODES (e.g. "0,1,2") are the exit statuses
 * of A that count as a completed run (default 0): `isotier verify` exits 2 when
 * it ran and could not prove a claim, which is still a whole run.
 *
 * With -c, both sides are self-contained programs whose CPU time (rusage) is
 * all their work (no daemon works for them, nothing sleeps): their wall time is
 * that work plus the time a loaded CPU keeps them waiting, and those waits,
 * added to both sides alike, pull a wall ratio toward 1 as load grows, so a
 * wall "met" can be the neighbours' doing. Then "met" needs the per-pair CPU
 * ratios' 99% interval at or under TARGET as well, and either interval wholly
 * over it is a MISSED. Wall stays the verdict's basis; -c only adds a way to
 * fail.
 *
 * LOCK, when given, is the host's challenge lock (reference/evidence/host_watch.c): each
 * pair (and each warmup) runs holding it, and it is let go for a moment between
 * pairs so other verifications take their turn. No other verification's
 * task-count pattern then runs during a pair (it would load the CPU under both
 * sides and blur A's challenge), and A, given a lock of its own through
 * ISOTIER_CHALLENGE_LOCK, never waits behind another verification: a queue on
 * a shared host is not what A costs, and B has none.
 *
 * The verdict against TARGET (the ratio A may reach) fails closed: "met" only
 * when the 99% confidence interval of the median ratio (order statistics: no
 * assumption about the distribution) lies at or under TARGET; otherwise
 * "MISSED" with the reason: the whole interval is over TARGET, or it reaches
 * over it, so the target is not shown. A measurement that cannot prove the
 * target does not meet it: no third verdict that noise can flip with "met".
 *
 * Sequential sampling: after MIN pairs (default 20) it looks at the interval
 * and stops as soon as it is decisive (wholly under or wholly over TARGET);
 * else it adds pairs and looks again, at most LOOKS times in all, the looks
 * spread geometrically from MIN to MAX (default MIN: one look) and rounded up
 * to an even count so A and B went first equally often. Every look that could
 * end the run raises the chance of a lucky "met"; each look's 99% interval
 * errs on the low side at most 0.5% of the time, so five looks err at most
 * 2.5% (Bonferroni): what a single look at a 95% interval risks. The last
 * look's interval is the verdict's.
 *
 * Prints each side's median wall time (min, max) and CPU time (its own
 * rusage: user + system of the command and the children it waited for), the
 * median ratio with its min, max and 99% interval, the median per-pair CPU
 * ratio and its interval beside it (a figure unless -c: wall is the verdict's
 * basis, since what a daemon spends for a client is not the client's rusage),
 * the verdict, the median of what A adds to B pair by pair (ms) with its 99%
 * interval, and the host's CPU pressure over the pairs (see one_pair()).
 * With BENCH_SUMMARY set, one line per figure is appended to that file, in a
 * fixed format (see summary()). Exit 0 unless a command failed or the usage
 * is wrong.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS  128
#define MAX_PAIRS 10000
#define LOOKS     5
#define ALPHA     0.01 /* two-sided, per look: a 99% interval */

typedef struct side {
	const char *name;
	char *argv[MAX_ARGS];
	double *wall, *cpu; /* ms */
} side;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int split(char *cmd, char **argv)
{
	int n = 0;
	for (char *tok = strtok(cmd, " "); tok; tok = strtok(NULL, " ")) {
		if (n == MAX_ARGS - 1)
			return -1;
		argv[n++] = tok;
	}
	argv[n] = NULL;
	return n;
}

/* Runs argv with stdio on /dev/null; wall and CPU (user + system) in ms.
 * 0, or -1 when it failed or outlived timeout_s (then killed). */
static int run(char *const *argv, const char *codes, int timeout_s, double *wall, double *cpu)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(126);
		alarm((unsigned)timeout_s); /* the child's own bound, inherited by exec */
		execvp(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			return -1;
	}
	*wall = now_ms() - t0;
	*cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		fprintf(stderr, "pair: %s: timed out after %d s\n", argv[0], timeout_s);
		return -1;
	}
	char code[16];
	snprintf(code, sizeof code, ",%d,", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (!WIFEXITED(status) || !strstr(codes, code)) {
		fprintf(stderr, "pair: %s: exit %d\n", argv[0],
		        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return -1;
	}
	return 0;
}

static int prepare(const char *cmd)
{
	if (!cmd)
		return 0;
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "pair: prepare '%s': status %d\n", cmd, rc);
	return rc == 0 ? 0 : -1;
}

/* Holds (take) or lets go of the host's challenge lock; no lock: nothing to do.
 * The wait is the kernel's (a blocking flock): untimed, before the pair. */
static int host_lock(int fd, int take)
{
	if (fd < 0)
		return 0;
	if (!take) {
		flock(fd, LOCK_UN);
		/* Others poll the lock every 20 ms: a pause lets one in before the
		 * next pair takes it again. */
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
		return 0;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			perror("pair: the challenge lock");
			return -1;
		}
	}
	return 0;
}

/* The host's CPU pressure (PSI): microseconds during which some runnable task
 * waited for a CPU, since boot; -1 without PSI. */
static double psi_some_us(void)
{
	FILE *f = fopen("/proc/pressure/cpu", "re");
	double us = -1;
	if (f) {
		if (fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%lf", &us) != 1)
			us = -1;
		fclose(f);
	}
	return us;
}

/* One timed pair k: A B when k is even, B A when odd, so neither always goes
 * first; *pressure is the share of its time some task on the host waited for a
 * CPU (-1 unknown): the load a verdict was measured under, printed beside it,
 * since a wall ratio moves with it and no number of pairs averages that away.
 * 0, or -1 when a command failed. */
static int one_pair(side *s, int k, const char *prep, const char *codes_a, int timeout_s,
                    int lock_fd, double *pressure)
{
	if (host_lock(lock_fd, 1))
		return -1;
	double t0 = now_ms(), p0 = psi_some_us();
	int rc = 0;
	for (int j = 0; j < 2 && rc == 0; j++) {
		int i = (k + j) % 2;
		rc = prepare(prep) || run(s[i].argv, i ? ",0," : codes_a, timeout_s, &s[i].wall[k],
		                          &s[i].cpu[k])
		         ? -1
		         : 0;
	}
	double p1 = psi_some_us(), t1 = now_ms();
	*pressure = p0 >= 0 && p1 >= p0 && t1 > t0 ? (p1 - p0) / ((t1 - t0) * 1e3) : -1;
	host_lock(lock_fd, 0);
	return rc;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v; its median. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The distribution-free interval of the median of n values: sorted, the r-th
 * smallest to the r-th largest covers the true median unless at most r - 1 of
 * the n fall on one side, which Binomial(n, 1/2) puts at P(B <= r - 1) per
 * side. r is the largest with 2 P(B <= r - 1) <= ALPHA (exact, not the normal
 * approximation: the counts here are small). Returns r (0 when even the whole
 * range is too short a sample: under 8 values at 99%). */
static int interval_rank(int n)
{
	double cdf = 0, lf = lgamma(n + 1.0);
	int r = 0;
	for (int j = 0; j < n / 2; j++) {
		cdf += exp(lf - lgamma(j + 1.0) - lgamma(n - j + 1.0) - n * log(2.0));
		if (2 * cdf > ALPHA)
			break;
		r = j + 1;
	}
	return r;
}

/* The pair counts at which the run may stop: min, then geometric steps to max,
 * each even (A first as often as B) and never above max; at most LOOKS. */
static int looks(int min, int max, int *at)
{
	int n = 0;
	for (int i = 0; i < LOOKS; i++) {
		double x = LOOKS > 1 ? min * pow((double)max / min, i / (LOOKS - 1.0)) : max;
		int k = (int)ceil(x - 1e-9);
		k += k % 2;
		k = k > max ? max : k;
		if (n == 0 || k > at[n - 1])
			at[n++] = k;
	}
	return n;
}

/* One pair's ratio a/b; a zero b (a run too short to register) as a tiny one. */
static double per_run(double a, double b)
{
	return a / (b > 0 ? b : 1e-6);
}

/* Sorts v (only the ratios' order matters from here: the per-side times,
 * stored by pair index, are left as they were) and bounds its median at 99%:
 * the rank r (0: unbounded, then lo = hi = 0). */
static int bound(double *v, int n, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	int r = interval_rank(n);
	*lo = r ? v[r - 1] : 0;
	*hi = r ? v[n - r] : 0;
	return r;
}

/* One line per figure in BENCH_SUMMARY, columns in a fixed order so reruns
 * compare with diff or awk: LABEL, median ratio, the 99% interval, pairs,
 * target, the host's median CPU pressure over the pairs, verdict (met /
 * MISSED (reason) / "(figure only)"). */
static void summary(const char *label, double r, double lo, double hi, int pairs, double target,
                    double pressure, const char *verdict)
{
	const char *sum = getenv("BENCH_SUMMARY");
	FILE *f = sum && *sum ? fopen(sum, "a") : NULL;
	if (!f)
		return;
	char ci[64] = "99% CI   -";
	if (hi > 0) /* bounded: its upper end, rounded up, is never 0 */
		snprintf(ci, sizeof ci, "99%% CI %.2f-%.2fx", lo, hi);
	char tg[32] = "no target";
	if (target > 0)
		snprintf(tg, sizeof tg, "target <= %.2fx", target);
	char pr[32] = "pressure   -";
	if (pressure >= 0)
		snprintf(pr, sizeof pr, "pressure %3.0f%%", pressure * 100);
	fprintf(f, "%-44s %6.2fx  %-19s %4d pairs  %-16s %-13s %s\n", label, r, ci, pairs, tg, pr,
	        verdict);
	fclose(f);
}

int main(int argc, char **argv)
{
	int min = 20, max = 0, warmup = 1, timeout_s = 120, opt;
	double target = 0;
	const char *prep = NULL, *label = NULL, *lock = NULL;
	int cpu_too = 0;
	char codes_a[256] = ",0,";
	while ((opt = getopt(argc, argv, "n:N:w:t:p:T:l:a:L:c")) != -1) {
		switch (opt) {
		case 'n': min = atoi(optarg); break;
		case 'N': max = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 't': target = atof(optarg); break;
		case 'p': prep = optarg; break;
		case 'T': timeout_s = atoi(optarg); break;
		case 'l': label = optarg; break;
		case 'a': snprintf(codes_a, sizeof codes_a, ",%s,", optarg); break;
		case 'L': lock = optarg; break;
		case 'c': cpu_too = 1; break;
		default: return 2;
		}
	}
	max = max ? max : min;
	if (argc - optind != 4 || min < 1 || max < min || max > MAX_PAIRS || warmup < 0 ||
	    timeout_s < 1) {
		fprintf(stderr,
		        "usage: pair [-n MIN] [-N MAX] [-w WARMUP] [-t TARGET] [-p PREPARE] "
		        "[-T TIMEOUT_S] [-l LABEL] [-a CODES] [-L LOCK] [-c] NAME_A CMD_A "
		        "NAME_B CMD_B\n");
		return 2;
	}
	side s[2] = {{.name = argv[optind]}, {.name = argv[optind + 2]}};
	double *ratio = calloc((size_t)max, sizeof(double)),
	       *cratio = calloc((size_t)max, sizeof(double)),
	       *pressure = calloc((size_t)max, sizeof(double)),
	       *added = calloc((size_t)max, sizeof(double));
	int rc = 1, lock_fd = -1;
	for (int i = 0; i < 2; i++) {
		if (split(argv[optind + 1 + 2 * i], s[i].argv) < 1) {
			fprintf(stderr, "pair: %s: empty or too long a command\n", s[i].name);
			rc = 2;
			goto out;
		}
		s[i].wall = calloc((size_t)max, sizeof(double));
		s[i].cpu = calloc((size_t)max, sizeof(double));
		if (!s[i].wall || !s[i].cpu)
			goto out;
	}
	if (!ratio || !cratio || !pressure || !added)
		goto out;
	if (lock && (lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		perror(lock);
		goto out;
	}
	/* Warmups time into slot 0, which the first timed pair overwrites. */
	for (int k = 0; k < warmup; k++)
		if (one_pair(s, 0, prep, codes_a, timeout_s, lock_fd, &pressure[0]))
			goto out;
	int at[LOOKS] = {0}, nlooks = looks(min, max, at), pairs = 0, r = 0;
	double lo = 0, hi = 0, clo = 0, chi = 0;
	for (int l = 0; l < nlooks; l++) {
		for (; pairs < at[l]; pairs++) {
			if (one_pair(s, pairs, prep, codes_a, timeout_s, lock_fd, &pressure[pairs]))
				goto out;
			ratio[pairs] = per_run(s[0].wall[pairs], s[1].wall[pairs]);
			cratio[pairs] = per_run(s[0].cpu[pairs], s[1].cpu[pairs]);
			added[pairs] = s[0].wall[pairs] - s[1].wall[pairs];
		}
		r = bound(ratio, pairs, &lo, &hi);
		bound(cratio, pairs, &clo, &chi);
		int met = r && hi <= target && (!cpu_too || chi <= target),
		    over = r && (lo > target || (cpu_too && clo > target));
		if (target <= 0 || met || over)
			break;
	}
	double cpu[2], med[2];
	for (int i = 0; i < 2; i++) {
		cpu[i] = median(s[i].cpu, pairs);
		med[i] = median(s[i].wall, pairs);
	}
	double rm = median(ratio, pairs), cm = median(cratio, pairs),
	       pm = median(pressure, pairs); /* -1 (unknown) only when every pair's is */
	char how[96] = "";
	if (max > min)
		snprintf(how, sizeof how, ": %d to %d, stopped when decisive", min, max);
	printf("%s vs %s (%d interleaved pair%s%s)\n", s[0].name, s[1].name, pairs,
	       pairs == 1 ? "" : "s", how);
	for (int i = 0; i < 2; i++)
		printf("  %-12s median %9.2f ms (min %.2f, max %.2f), CPU %.2f ms\n", s[i].name,
		       med[i], s[i].wall[0], s[i].wall[pairs - 1], cpu[i]);
	/* Bounds as printed, rounded outward: an interval that reaches over the
	 * target by less than 0.005 must not read as one at it. */
	double dlo = floor(lo * 100 + 1e-9) / 100, dhi = ceil(hi * 100 - 1e-9) / 100,
	       dclo = floor(clo * 100 + 1e-9) / 100, dchi = ceil(chi * 100 - 1e-9) / 100;
	char verdict[320] = "(figure only)";
	if (target <= 0)
		; /* a figure: nothing to judge */
	else if (!r)
		snprintf(verdict, sizeof verdict,
		         "MISSED (not shown within the target: %d pair%s cannot bound the median "
		         "at 99%%, 8 can)",
		         pairs, pairs == 1 ? "" : "s");
	else if (lo > target)
		snprintf(verdict, sizeof verdict,
		         "MISSED (the whole interval %.2f-%.2fx is over the target after %d pairs: "
		         "%s adds %+.1f ms per run to %s, the target allows %+.1f ms)",
		         dlo, dhi, pairs, s[0].name, med[0] - med[1], s[1].name,
		         med[1] * (target - 1));
	else if (cpu_too && clo > target)
		snprintf(
		    verdict, sizeof verdict,
		    "MISSED (the whole CPU interval %.2f-%.2fx is over the target after %d "
		    "pairs: %s's own work is over it; the wall interval %.2f-%.2fx also counts "
		    "waiting for a loaded CPU)",
		    dclo, dchi, pairs, s[0].name, dlo, dhi);
	else if (hi > target)
		snprintf(verdict, sizeof verdict,
		         "MISSED (not shown within the target: interval %.2f-%.2fx reaches over it "
		         "after %d pairs)",
		         dlo, dhi, pairs);
	else if (cpu_too && chi > target)
		snprintf(
		    verdict, sizeof verdict,
		    "MISSED (not shown within the target: CPU interval %.2f-%.2fx reaches over "
		    "it after %d pairs)",
		    dclo, dchi, pairs);
	else if (cpu_too)
		snprintf(verdict, sizeof verdict, "met (CPU %.2f-%.2fx too)", dclo, dchi);
	else
		snprintf(verdict, sizeof verdict, "met");
	printf("  ratio        median %9.2fx (min %.2f, max %.2f; ", rm, ratio[0],
	       ratio[pairs - 1]);
	if (r)
		printf("99%% CI %.2f-%.2f), CPU %.2fx (99%% CI %.2f-%.2f)", dlo, dhi, cm, dclo,
		       dchi);
	else
		printf("99%% CI unbounded), CPU %.2fx", cm);
	if (target > 0)
		printf("  target <= %.2fx%s: %s", target, cpu_too ? " (wall and CPU)" : "",
		       verdict);
	printf("\n");
	/* What A adds to B, pair by pair: where both sides' times spread far more
	 * than their difference (a TCG guest's boot), the difference of the two
	 * medians moves with the spread; the median of the pairs' differences
	 * does not. */
	double am = median(added, pairs), alo, ahi;
	int ar = bound(added, pairs, &alo, &ahi);
	printf("  added        median %+9.2f ms per pair (min %+.2f, max %+.2f; ", am, added[0],
	       added[pairs - 1]);
	if (ar)
		printf("99%% CI %+.2f to %+.2f)\n", alo, ahi);
	else
		printf("99%% CI unbounded)\n");
	if (pm >= 0)
		printf("  host         CPU pressure median %.0f%% (the share of a pair's time some "
		       "task on the host waited for a CPU: the load this was measured under)\n",
		       pm * 100);
	summary(label ? label : s[0].name, rm, dlo, dhi, pairs, target, pm, verdict);
	rc = 0;
out:
	if (lock_fd >= 0)
		close(lock_fd);
	for (int i = 0; i < 2; i++) {
		free(s[i].wall);
		free(s[i].cpu);
	}
	free(ratio);
	free(cratio);
	free(pressure);
	free(added);
	return rc;
}
