/* SPDX-License-Identifier: Apache-2.0 */
/*
 * challenge.h - the host's active challenge, read back: does the on/off
 * pattern the verifier's host made in the kernel's task count (host_watch.h)
 * show in the counts the probe sampled inside the sandbox (probe_run.h)?
 *
 * Only a kernel the sandbox shares with this host can show the pattern: it
 * is drawn at random per run and lives in sysinfo(2)'s procs, which no
 * namespace, LXCFS or bind mount virtualises. Seeing it proves sharing.
 * Not seeing it proves nothing by itself (a seccomp filter can answer
 * sysinfo with anything): it only keeps a kernel of the sandbox's own
 * possible. The clocks need not agree (a time namespace shifts the sandbox's
 * CLOCK_MONOTONIC): every lag that puts the sampling window inside the
 * host's pattern is tried.
 */
#ifndef ISOTIER_CHALLENGE_H
#define ISOTIER_CHALLENGE_H

#include "probe_run.h"

/* One stretch of the host's pattern during which `tasks` extra threads were
 * alive (0: off), on the host's CLOCK_MONOTONIC; the transitions between
 * stretches are left out. */
typedef struct isotier_challenge_segment {
	int64_t start_us, end_us;
	int tasks;
} isotier_challenge_segment;

typedef enum isotier_challenge_outcome {
	ISOTIER_CHALLENGE_UNANSWERED = 0, /* no usable samples, or too few slots covered */
	ISOTIER_CHALLENGE_NOT_SEEN,       /* answered; the pattern is not in the samples */
	ISOTIER_CHALLENGE_SEEN,           /* the host's pattern is in the sandbox's count */
} isotier_challenge_outcome;

typedef struct isotier_challenge_result {
	isotier_challenge_outcome outcome;
	size_t slots;      /* slots compared at the best lag */
	double r;          /* correlation of count and pattern there */
	int64_t amplitude; /* mean count on minus off there */
	int64_t lag_us;    /* host clock minus sandbox clock there */
	char detail[240];  /* one sentence */
} isotier_challenge_result;

/* Reads run's samples against the host's segments (ascending, n of them). */
void isotier__challenge_judge(isotier_challenge_result *out, const isotier_challenge_segment *segs,
                              size_t n, const probe_run_info *run);

#endif
