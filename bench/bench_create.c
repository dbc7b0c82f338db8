/* SPDX-License-Identifier: Apache-2.0 */
/* bench_create.c - isotier_create() refusal latency: resolve + refuse, nothing
 * provisioned. Prints the median and p99 over N refusals. */
#include "isotier.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const char *backend = argc > 1 ? argv[1] : "runc";
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	if (n < 1)
		n = 1;
	double *t = calloc((size_t)n, sizeof *t);
	if (!t)
		return 1;
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.backend = backend;
	opts.require_isolation = ISOTIER_MICROVM;
	for (int i = 0; i < n; i++) {
		isotier_sandbox *sb = NULL;
		isotier_error err = {0};
		double start = now_us();
		int rc = isotier_create(&sb, &opts, &err);
		t[i] = now_us() - start;
		if (rc != ISOTIER_ECONFIG) {
			fprintf(stderr, "expected a refusal, got %s: %s\n", isotier_strerror(rc),
			        err.message);
			isotier_sandbox_destroy(sb);
			free(t);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof *t, cmp);
	printf("isotier_create refusal (%s requiring MICROVM), %d runs: median %.1f us, p99 %.1f "
	       "us (target <= 1000 us)\n",
	       backend, n, t[n / 2], t[(n * 99) / 100]);
	free(t);
	return 0;
}
