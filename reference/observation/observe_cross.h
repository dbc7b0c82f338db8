/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observe_cross.h - a remote backend's cross-sandbox challenge: one of its
 * two sandboxes plays a random task pattern (the probe's --pattern), the
 * other samples its own kernel's task count meanwhile (--challenge).
 *
 * A remote provider has no host of ours beside its sandboxes, so the host's
 * own challenge (host_watch.h) cannot run there. Its two sandboxes can
 * challenge each other instead: the pattern showing in the other's count
 * means one kernel runs both, whatever boot_id either prints (a provider can
 * forge those per sandbox). It only ever lowers the relation to SHARED: not
 * seeing it proves nothing (either sandbox may lie, or be slow to start).
 */
#ifndef ISOTIER_OBSERVE_CROSS_H
#define ISOTIER_OBSERVE_CROSS_H

#include "../evidence/challenge.h"
#include "observe.h"

/* The modulator's pattern: 40 slots of 50 ms (~2 s, with the transitions);
 * the sampler samples 1.5 s of it, started at about the same time, so that
 * either may start a few hundred ms after the other. */
#define ISOTIER_CROSS_BITS      40
#define ISOTIER_CROSS_SAMPLE_MS 1500

/* n random bits ('0'/'1', from getrandom(2)) into out (n + 1 bytes), never
 * three alike in a row: any 300 ms of them hold both states. */
int isotier__cross_bits(char *out, size_t n, isotier_error *err);

/*
 * The modulator's run.pattern as challenge segments (on its own clock: the
 * judge's lag search finds the offset to the sampler's). Its bits must be
 * the ones asked for, one segment a bit, a "0" slot holding no task.
 * *segs is malloc'd (the caller frees it).
 */
int isotier__cross_segments(isotier_challenge_segment **segs, size_t *n, const probe_run_info *mod,
                            const char *bits, isotier_error *err);

/*
 * The step: sampler runs the probe with --challenge while modulator runs it
 * with --pattern, concurrently (one in a helper thread), each with a fresh
 * nonce; every exec bounded by opts (timeout_s, cancel_fd) and skipped when
 * deadline_ms (0: none) leaves too little time. Sets obs->cross and
 * obs->cross_detail; never touches the sandboxes' lifetimes.
 */
void isotier__cross_challenge(isotier_observation *obs, void *sampler, void *modulator,
                              const isotier_observe_opts *opts, int64_t deadline_ms);

#endif
