/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observe.h - one observation of a backend: the probe run inside its
 * sandbox, its output read (bounded) and parsed, and the sandbox's kernel
 * related to another. The one lifecycle under `isotier verify`, `run
 * --attest` and isotier_create()'s attestation; what is judged against a
 * claim (judge.h) is only ever what this returns.
 *
 *   isotier__observe()     available && provision (side by side) -> probe -> destroy
 *                         (a remote backend: two sandboxes, see below)
 *   isotier__observe_in()  the probe in a sandbox the caller provisioned
 *
 * Facts only: no claim, no verdict. Failing closed starts here: output that
 * is too large, not valid, or missing leaves a run unparsed, and a kernel
 * that cannot be compared is UNCOMPARED, never DEDICATED.
 *
 * Every probe run carries a fresh nonce (--nonce); an output that does not
 * echo it is a recorded or foreign one and is rejected.
 *
 * The kernel relation:
 *   - a backend that observes the host itself (backend.h: observes_host): SELF;
 *   - a remote backend: its two sandboxes compared with each other, never
 *     with this host (a single sandbox: UNCOMPARED, it proves nothing): one
 *     sandbox's random task pattern seen in the other's task count
 *     (observe_cross.h) is SHARED, else their boot_ids decide;
 *   - any other (a local sandbox): this host watches while the probe runs
 *     (host_watch.h). The workload seen in the host's process table, or the
 *     host's random task pattern seen in the sandbox's task count: SHARED,
 *     whatever the sandbox prints. DEDICATED only when the host looked and
 *     saw neither (host CLEAR), the probe found its identity inputs genuine
 *     and the sandbox's boot_id and btime both differ from the host's.
 */
#ifndef ISOTIER_OBSERVE_H
#define ISOTIER_OBSERVE_H

#include "../attestation/attest.h"
#include "../backends/backend.h"
#include "../evidence/challenge.h"
#include "../evidence/probe_result.h"

#define ISOTIER_PROBE_STDERR_KEEP 2048

/* One run of the probe in one sandbox. */
typedef struct isotier_probe_run {
	int rc; /* the exec: 0, or an ISOTIER_E* (err) */
	isotier_error err;
	int exit_status;
	char *out; /* stdout, NUL-terminated, at most PROBE_RESULT_MAX_BYTES; owned */
	size_t out_len;
	bool out_over; /* stdout was larger (drained, dropped): never parsed */
	char errtxt[ISOTIER_PROBE_STDERR_KEEP]; /* stderr's first bytes */
	bool parsed;                            /* probe holds the parsed document */
	isotier_error parse_err;                /* rc == 0 and !parsed: why */
	probe_result probe;
} isotier_probe_run;

typedef struct isotier_observe_opts {
	const char *probe_path; /* host path of the static probe */
	/* Host dir for the probe's capture (--capture): shared with a local
	 * sandbox, fetched from a remote one's first sandbox; NULL: none. */
	const char *capture_dir;
	int timeout_s; /* per exec; 0: 60 */
	int cancel_fd; /* readable: cancel; <= 0: none (proc.h) */
	/* Remote backends: the wall-clock limit of the whole observation, two
	 * provisions, two runs and the cross-sandbox challenge's concurrent
	 * pair (skipped when too little is left); 0: 3 x timeout + 60 s.
	 * Release is never skipped for it. */
	int64_t remote_wall_ms;
	/* Remote backends with attach(): the caller's existing sandbox, by its
	 * provider id, is the first sandbox (never deleted); the second is
	 * created like it (backend.h: spec.like) and deleted. NULL: both are
	 * created. */
	const char *attach_id;
	/* Set: the probe runs with --exec -- bound->argv and the command runs in
	 * its process only if bound->decide() says so (observe_bound.h): one
	 * sandbox, probed then run. Local backends whose exec streams stdin. */
	struct isotier_bound_exec *bound;
} isotier_observe_opts;

struct isotier_observation;
typedef struct isotier_bound_exec {
	const char *const *argv; /* the command */
	int stdin_fd;            /* the command's; -1: none */
	int stdout_fd;           /* -1: this process's standard output */
	int stderr_fd;           /* the probe's and the command's; -1: inherit */
	/* The observation (one run, its host view and kernel relation) while
	 * the probe waits: true lets the command run. Another thread's call. */
	bool (*decide)(void *ctx, const struct isotier_observation *obs);
	void *ctx;
	bool released;   /* out: the command was let run */
	int exit_status; /* out: the command's, or the probe's when refused (77) */
} isotier_bound_exec;

typedef struct isotier_observation {
	const isotier_backend *backend;
	bool available;
	char why[256]; /* !available: why (backend.h available()) */
	int rc;        /* the first failure of provision or exec, 0 when the probe ran */
	isotier_error err;
	bool ran;                 /* the probe was started at least once */
	isotier_probe_run run[2]; /* [1]: a remote backend's second sandbox */
	size_t n_runs;
	isotier_kernel_relation relation;
	char relation_detail[512];
	/* A remote backend's cross-sandbox challenge (observe_cross.h): seen,
	 * the relation is SHARED whatever the boot_ids say. */
	isotier_challenge_outcome cross;
	char cross_detail[300];
	/* The cross-challenge runs' hardware attestation (attest.h,
	 * ADR-0020): each sandbox's evidence bound to its own run, as a pair. */
	attest_pair attest;
	/* The outputs those reports are bound to (attest_out[i]: sandbox i's,
	 * the sampler's and the modulator's, run[i]'s sandboxes), kept when
	 * the pair is ATTESTED so the verdict rests on them (testimony.h);
	 * owned, freed by isotier__observation_clear(). */
	probe_result attest_out[2];
	bool attest_out_parsed[2];
	/* The run's nonce (every probe run carries it; an output without it
	 * is rejected) and what this host itself saw of a local sandbox
	 * (host_watch.h), which decides before the sandbox's own identity. */
	char nonce[33];
	isotier_host_evidence host;
	unsigned host_saw; /* ISOTIER_HOST_SAW_*: the VMM or runsc the host saw run it */
	char host_detail[300];
	char leaks[1024]; /* sandboxes that could not be destroyed, with ids; "" */
	/* opts.attach_id: the first sandbox was the caller's, attached (never
	 * created or deleted here), and what the second was created like. */
	bool attached;
	char attached_like[210];
	char note[256];            /* what the provider reported of the sandbox (describe()); "" */
	char capture_problem[300]; /* why the capture could not be fetched (backend.h fetch); "" */
	int64_t available_ms, provision_ms, exec_ms, destroy_ms;
} isotier_observation;

/*
 * Observes backend b: returns 0 when the probe ran in every sandbox and its
 * first output parsed; ISOTIER_EUNAVAILABLE (obs->why), the provision or exec
 * failure (obs->err), or ISOTIER_EDATA (the output rejected: run[0].parse_err)
 * otherwise; err (may be NULL) gets the same. obs is filled on every path and
 * must be cleared with isotier__observation_clear().
 */
int isotier__observe(isotier_observation *obs, const isotier_backend *b,
                     const isotier_observe_opts *opts, isotier_error *err);

/*
 * The probe run (with "--json", and "--capture" when opts->capture_dir) in
 * the sandbox `state` of backend b, provisioned by the caller; obs gets one
 * run and its kernel relation. Same returns as isotier__observe.
 */
int isotier__observe_in(isotier_observation *obs, const isotier_backend *b, void *state,
                        const isotier_observe_opts *opts, isotier_error *err);

void isotier__observation_clear(isotier_observation *obs);

#endif
