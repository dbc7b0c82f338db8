/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c - one probe run: collect every signal family, then classify.
 */
#include "probe.h"

#include <string.h>
#include <time.h>

static uint64_t probe_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void probe_run(struct probe_input *in, struct probe_result *res)
{
	uint64_t t0 = probe_now_us();
	memset(res, 0, sizeof(*res));
	/* Report order: hardware and behaviour first, files last. */
	probe_sig_virt(in, &res->sigs);
	probe_sig_virt_arm64(in, &res->sigs);
	probe_sig_kernel(in, &res->sigs, &res->kernel);
	/* Before the system calls: their seccomp guard asks whether /proc is real. */
	probe_sig_identity(in, &res->sigs, &res->kernel);
	probe_sig_syscall(in, &res->sigs);
	probe_sig_container(in, &res->sigs);
	/* The pid is part of a capture even when no signal needs it. */
	(void)probe_read(in, "/.probe/pid", NULL);
	probe_classify(&res->sigs, &res->verdict);
	res->duration_us = probe_now_us() - t0;
}
