/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host_watch.h - what the verifier's host sees of a local sandbox while the
 * probe runs in it: the evidence the sandbox cannot write.
 *
 * For a local backend the host is the trusted side. Two readings decide
 * kernel sharing there, whatever the sandbox prints:
 *  - visibility: a process whose argv starts with the probe's guest path and
 *    carries this run's nonce, in the host's own process table, is the
 *    workload running on the host's kernel (a VM's or gVisor's workload
 *    never appears there: only the VMM or runsc does);
 *  - the active challenge: while the watch runs, a thread of this process
 *    switches a few hundred threads on and off in a random pattern of
 *    ~50 ms slots (shared by every watch in the process, so concurrent
 *    verifications see one pattern, not a sum); the probe samples the
 *    kernel's task count meanwhile (challenge.h reads it back).
 * The pattern generator is the one piece of process-wide state the watch
 * keeps: started by the first watch, stopped with the last. Another
 * process's pattern would blur it, so it runs only while this process holds
 * the host's challenge lock (an exclusive flock on /run/isotier/challenge.lock
 * for root, else STATE/challenge.lock; $ISOTIER_CHALLENGE_LOCK for tests),
 * waited for up to the caller's bound: not had in time, the watch runs
 * without a challenge (pattern_failed, pattern_detail says why).
 */
#ifndef ISOTIER_HOST_WATCH_H
#define ISOTIER_HOST_WATCH_H

#include "challenge.h"

/* How long the probe samples for the challenge (its --challenge): about ten
 * slots of the host's pattern, even beside gVisor's Sentry, of which absence
 * needs eight read and presence three of each state (ADR-0019: the error
 * rates, bench/challenge_rates.sh). A probe the host sees in its own process
 * table is stopped sooner (host_release.h). When that window leaves the
 * challenge unanswered (a busy host: slots stretched or samples sparse), the
 * probe runs once more for the long window. */
#define ISOTIER_CHALLENGE_MS      100
#define ISOTIER_CHALLENGE_LONG_MS 600
#define ISOTIER_CHALLENGE_SLOT_MS 8 /* one slot of the host's pattern */

typedef struct isotier_host_watch isotier_host_watch;

/* What runs a sandbox, as the host sees it among the processes that started
 * during the run (their executables' names): the positive half of a MICROVM
 * or GVISOR claim on a local backend. */
enum {
	ISOTIER_HOST_SAW_VMM = 1u << 0, /* qemu-system-*, firecracker, cloud-hypervisor, crosvm */
	ISOTIER_HOST_SAW_GVISOR = 1u << 1, /* runsc (its sandbox and gofer re-exec runsc) */
	/* Which VMM (with ISOTIER_HOST_SAW_VMM): the judge credits a vm layer
	 * only to the one the probe names (host_sighting.h). */
	ISOTIER_HOST_SAW_QEMU = 1u << 2,
	ISOTIER_HOST_SAW_FIRECRACKER = 1u << 3,
	ISOTIER_HOST_SAW_CLOUD_HYPERVISOR = 1u << 4,
	ISOTIER_HOST_SAW_CROSVM = 1u << 5,
};

typedef struct isotier_host_view {
	int64_t started_us, stopped_us; /* host CLOCK_MONOTONIC */
	bool workload_seen;
	int workload_pid;
	char workload_detail[200];
	unsigned saw;             /* ISOTIER_HOST_SAW_* */
	char saw_detail[120];     /* "qemu-system-x86_64 (pid 123)" */
	char saw_refused[200];    /* a VMM- or runsc-named process that did not count, and why */
	bool pattern_failed;      /* the generator could not run: no challenge */
	char pattern_detail[200]; /* why not, when known ("" else) */
	isotier_challenge_segment *segs; /* owned; the pattern while the watch ran */
	size_t n_segs;
	unsigned passes, listings; /* the watch's looks, and those that listed all of /proc */
} isotier_host_view;

/* Starts watching for a process that runs argv0 (the probe's path inside
 * the sandbox) with nonce among its arguments, and joins the pattern: when
 * it returns the pattern runs (or never will for this watch). Waits up to
 * wait_ms for the host's challenge lock, less when cancel_fd (> 0) becomes
 * readable; either way it returns 0 with a watch when it can watch. */
int isotier__host_watch_start(isotier_host_watch **out, const char *argv0, const char *nonce,
                              int wait_ms, int cancel_fd, isotier_error *err);
/* Stops the watch (NULL: nothing) and hands what it saw to view. */
void isotier__host_watch_stop(isotier_host_watch *w, isotier_host_view *view);
/* The two halves of stop, for a bound exec (observe_bound.c) whose report is
 * judged on another thread while the command may still run: end() stops
 * looking and hands over what was seen (any thread, once); free() releases
 * the watch, on the thread that started it, after its exec returned. */
void isotier__host_watch_end(isotier_host_watch *w, isotier_host_view *view);
void isotier__host_watch_free(isotier_host_watch *w);
void isotier__host_view_clear(isotier_host_view *v);

/* Binds what this thread spawns, while its watch runs, to that watch's run:
 * a VMM or runsc counts only as a descendant of one of them (or of a
 * container whose id an engine wrote to a cidfile noted here). */
void isotier__host_watch_note_cidfile(const char *path);

/* For a backend whose sandbox says on its console when its probe starts
 * (QEMU's guest init: ISOTIER-START), called on the thread whose watch runs,
 * before the sandbox is spawned: the pattern waits for that line instead of
 * playing through the VM's boot. A sandbox that never says it gets no
 * pattern (pattern_failed: no challenge, never a clear verdict); one that
 * says it late only shortens what overlaps its window (unanswered). No
 * watch on this thread: nothing. */
void isotier__host_watch_defer_pattern(void);
/* The line: the pattern plays from now on for this thread's watch. */
void isotier__host_watch_probe_starting(void);
/* The same for watch w, from any thread (the reader of a local sandbox's
 * stderr, collect.h's on_start: the probe's --say-start). */
void isotier__host_watch_start_said(void *w);

/* The probe has begun its report (its first bytes of standard output: it
 * writes nothing before its window ends), from any thread: the pattern has
 * nothing left to show it and holds still for watch w, as once the probe is
 * seen, so that its threads' churn does not compete with the report, the
 * capture and the sandbox's teardown for the CPUs. A sandbox that reports
 * early only shortens what its samples overlap: the slots not played are
 * unanswered, never absent. Once; NULL: nothing. */
void isotier__host_watch_probe_reported(void *w);

/* A fresh nonce: 32 lowercase hex digits from getrandom(2). */
int isotier__nonce_new(char out[33], isotier_error *err);

#endif
