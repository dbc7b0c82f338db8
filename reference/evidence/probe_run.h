/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe_run.h - the probe report's "run" object: the verifier's nonce as the
 * probe echoed it, the samples it took for a task-count challenge and the
 * pattern it played for a cross-sandbox one (probes/challenge.c). Hostile input like the rest of
 * the document: bounded, type-checked, errors name the field ("run.nonce: ..."). What it says is
 * testimony: only the host's own reading of it (challenge.h) may lower what isotier claims.
 */
#ifndef ISOTIER_PROBE_RUN_H
#define ISOTIER_PROBE_RUN_H

#include "../../base/base.h"

#include <stdint.h>

#define PROBE_RUN_NONCE_MAX        64 /* hex digits */
#define PROBE_RUN_MAX_CHANGES      4096
#define PROBE_RUN_MAX_WINDOW_US    (10LL * 1000 * 1000)
#define PROBE_RUN_PATTERN_MAX_BITS 128
#define PROBE_RUN_PATTERN_MIN_BITS 8
#define PROBE_RUN_PATTERN_TASKS    256 /* what the probe holds in a "1" slot, at most */
#define PROBE_RUN_PATTERN_SLOT_MS  50
#define PROBE_RUN_MAX_SLOT_US      (1000LL * 1000) /* one slot, however late its end */

struct cJSON;

typedef struct probe_run_sample {
	int64_t t_us;  /* the sandbox's CLOCK_MONOTONIC */
	int64_t procs; /* sysinfo(2) procs from then on */
} probe_run_sample;

/* A stretch of the sampling window without a read, the sandbox's clock. */
typedef struct probe_run_gap {
	int64_t from_us, to_us;
} probe_run_gap;
#define PROBE_RUN_MAX_GAPS 512

/* One slot of a played pattern (run.pattern.segments), the sandbox's clock. */
typedef struct probe_run_segment {
	int64_t start_us, end_us;
	int64_t tasks; /* extra threads held through it */
} probe_run_segment;

typedef struct probe_run_info {
	char nonce[PROBE_RUN_NONCE_MAX + 1]; /* "" when the document carries none */
	bool challenge;                      /* a run.challenge object was there */
	char challenge_error[96];            /* the probe's own error ("" when none) */
	int64_t start_us, end_us;            /* the sampling window, sandbox clock */
	int64_t samples;                     /* how many reads the probe says it made */
	bool truncated;
	bool stopped;       /* it says the host's "enough" ended it early */
	int64_t max_gap_us; /* the longest time between two reads it says; -1: not said */
	/* Stretches without a read (run.challenge.gaps), ascending; a slot that
	 * meets one is not read. gaps_unknown: the list was cut short or is
	 * missing, so no stretch can be shown to have been read. */
	probe_run_gap *gaps; /* owned */
	size_t n_gaps;
	bool gaps_unknown;
	probe_run_sample *changes; /* owned; ascending t_us, within the window */
	size_t n_changes;
	bool pattern;                                      /* a run.pattern object was there */
	char pattern_bits[PROBE_RUN_PATTERN_MAX_BITS + 1]; /* the bits it says it played */
	char pattern_error[96];      /* the probe's own error ("" when none) */
	probe_run_segment *segments; /* owned; ascending, not overlapping, at most one a bit */
	size_t n_segments;
} probe_run_info;

/* Reads doc's optional "run" member into out (cleared first). A missing
 * member leaves out empty: the caller decides what an absent nonce means. */
int isotier__probe_run_parse(probe_run_info *out, const struct cJSON *doc, isotier_error *err);
void isotier__probe_run_clear(probe_run_info *r);

#endif
