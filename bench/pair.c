/*
 * pair.c - an isotier operation against its floor, measured in interleaved pairs.
 *
 *   pair [-n PAIRS] [-w WARMUP] [-t TARGET] [-p PREPARE] [-T TIMEOUT_S] [-l LABEL]
 *        [-a CODES] NAME_A CMD_A NAME_B CMD_B
 *
 * Runs A and B one after the other, PAIRS times, alternating which goes first
 * (A B, B A, ...), so load that drifts over the run weighs on both alike; a
 * tool that runs all of A and then all of B lets the drift decide. Each command
 * is a program and its arguments split on spaces (no shell); PREPARE, when
 * given, runs through /bin/sh before every command, untimed. A command that
 * fails, or outlives TIMEOUT_S (default 120), stops the figure: a failed run
 * times nothing worth comparing. CODES (e.g. "0,1,2") are the exit statuses of
 * A that count as a completed run (default 0): `isotier verify` exits 2 when it
 * ran and could not prove a claim, which is still a whole run.
 *
 * Prints each side's median wall time (min, max) and CPU time, the median of
 * the per-pair ratios A/B with min, max and its 95% confidence interval
 * (order statistics: no assumption about the distribution), and a verdict
 * against TARGET (the ratio A may reach): "met" when the whole interval is at
 * or under it, "MISSED" with the reason when the whole interval is over it,
 * "UNSTABLE" when the interval straddles it (noise decides, so no verdict is
 * claimed; more pairs or a quieter machine do). With BENCH_SUMMARY set, one
 * line per figure is appended to that file. Exit 0 unless a command failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS  128
#define MAX_PAIRS 10000

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

int main(int argc, char **argv)
{
	int pairs = 20, warmup = 1, timeout_s = 120, opt;
	double target = 0;
	const char *prep = NULL, *label = NULL;
	char codes_a[256] = ",0,";
	while ((opt = getopt(argc, argv, "n:w:t:p:T:l:a:")) != -1) {
		switch (opt) {
		case 'n': pairs = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 't': target = atof(optarg); break;
		case 'p': prep = optarg; break;
		case 'T': timeout_s = atoi(optarg); break;
		case 'l': label = optarg; break;
		case 'a': snprintf(codes_a, sizeof codes_a, ",%s,", optarg); break;
		default: return 2;
		}
	}
	if (argc - optind != 4 || pairs < 1 || pairs > MAX_PAIRS || warmup < 0 || timeout_s < 1) {
		fprintf(stderr, "usage: pair [-n PAIRS] [-w WARMUP] [-t TARGET] [-p PREPARE] "
		                "[-T TIMEOUT_S] [-l LABEL] [-a CODES] NAME_A CMD_A NAME_B CMD_B\n");
		return 2;
	}
	side s[2] = {{.name = argv[optind]}, {.name = argv[optind + 2]}};
	for (int i = 0; i < 2; i++) {
		if (split(argv[optind + 1 + 2 * i], s[i].argv) < 1) {
			fprintf(stderr, "pair: %s: empty or too long a command\n", s[i].name);
			return 2;
		}
		s[i].wall = calloc((size_t)pairs, sizeof(double));
		s[i].cpu = calloc((size_t)pairs, sizeof(double));
		if (!s[i].wall || !s[i].cpu)
			return 1;
	}
	double *ratio = calloc((size_t)pairs, sizeof(double));
	if (!ratio)
		return 1;
	double w, c;
	for (int k = 0; k < warmup; k++)
		for (int i = 0; i < 2; i++)
			if (prepare(prep) || run(s[i].argv, i ? ",0," : codes_a, timeout_s, &w, &c))
				return 1;
	for (int k = 0; k < pairs; k++) {
		for (int j = 0; j < 2; j++) {
			int i = (k + j) % 2; /* A B, then B A: neither always runs first */
			if (prepare(prep) || run(s[i].argv, i ? ",0," : codes_a, timeout_s,
			                         &s[i].wall[k], &s[i].cpu[k]))
				return 1;
		}
		ratio[k] = s[0].wall[k] / (s[1].wall[k] > 0 ? s[1].wall[k] : 1e-6);
	}
	printf("%s vs %s (%d interleaved pairs)\n", s[0].name, s[1].name, pairs);
	double med[2];
	for (int i = 0; i < 2; i++) {
		double mc = median(s[i].cpu, pairs);
		med[i] = median(s[i].wall, pairs);
		printf("  %-12s median %9.2f ms (min %.2f, max %.2f), CPU %.2f ms\n", s[i].name,
		       med[i], s[i].wall[0], s[i].wall[pairs - 1], mc);
	}
	double r = median(ratio, pairs);
	/* 95% interval of the median: the order statistics n/2 -+ 0.98 sqrt(n). */
	int lo = (int)floor(pairs / 2.0 - 0.98 * sqrt(pairs)),
	    hi = (int)ceil(pairs / 2.0 + 0.98 * sqrt(pairs));
	lo = lo < 0 ? 0 : lo;
	hi = hi > pairs - 1 ? pairs - 1 : hi;
	char verdict[256];
	if (target <= 0)
		snprintf(verdict, sizeof verdict, "no target");
	else if (pairs < 5)
		snprintf(verdict, sizeof verdict, "no verdict (%d pairs: quick mode)", pairs);
	else if (ratio[hi] <= target)
		snprintf(verdict, sizeof verdict, "met");
	else if (ratio[lo] > target)
		snprintf(
		    verdict, sizeof verdict,
		    "MISSED (%s is %.2fx %s: %+.1f ms per run over the floor, target %.2fx allows "
		    "%+.1f ms)",
		    s[0].name, r, s[1].name, med[0] - med[1], target, med[1] * (target - 1));
	else
		snprintf(
		    verdict, sizeof verdict,
		    "UNSTABLE (the 95%% interval %.2f-%.2fx straddles the target: noise decides; "
		    "more pairs or a quieter machine would)",
		    ratio[lo], ratio[hi]);
	printf("  ratio        median %9.2fx (min %.2f, max %.2f; 95%% CI %.2f-%.2f)", r, ratio[0],
	       ratio[pairs - 1], ratio[lo], ratio[hi]);
	if (target > 0)
		printf("  target <= %.2fx: %s", target, verdict);
	printf("\n");
	const char *sum = getenv("BENCH_SUMMARY");
	FILE *f = sum && *sum ? fopen(sum, "a") : NULL;
	if (f) {
		fprintf(f, "%-44s %7.2fx  %s\n", label ? label : s[0].name, r,
		        target > 0 ? verdict : "(figure only)");
		fclose(f);
	}
	return 0;
}
