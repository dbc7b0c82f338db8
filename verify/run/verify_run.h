/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify_run.h - the worker side of `isotier verify`: one backend per job,
 * observed by the library's one lifecycle (observe.h: available ->
 * provision -> the probe -> destroy; a remote backend's two sandboxes), its
 * capture directory packed as evidence. Workers share a verify_ctx; the main
 * thread (cmd_verify.c) judges, records and prints.
 */
#ifndef ISOTIER_VERIFY_RUN_H
#define ISOTIER_VERIFY_RUN_H

#include "evidence.h"
#include "../../reference/api/isotier_tool.h"

#include <pthread.h>
#include <stdint.h>

typedef struct job {
	const isotier_backend *backend;
	bool explicit_;
	/* filled by the worker */
	bool done;
	isotier_observation obs;
	evidence_tar evidence;
	bool evidence_not_asked; /* --no-evidence: no capture was made */
	int64_t evidence_ms, total_ms;
	/* The sandbox's own share of total_ms (verify_run.c says what each
	 * covers): isotier__observe's span and the CPU its children used;
	 * cpu_known false where the sandbox runs outside them. started_ms and
	 * ended_ms (the job's span, ended_ms 0 while it runs) are written under
	 * the ctx lock, for the overlap. */
	int64_t sandbox_wall_ms, sandbox_cpu_ms, started_ms, ended_ms;
	bool timed, cpu_known; /* timed: isotier__observe ran (else both unknown) */
	int overlap;           /* most jobs running at once during this one, itself included */
	/* filled by the main thread */
	bool handled, skipped, recorded, rejected;
	bool start_failed; /* its runtime did not start the sandbox: 69 (verify_judge.c) */
	const isotier_provider *claim;
	char claim_invalid[768]; /* why the backend's catalogue entry does not validate; "" */
	judge_verdict verdict;
	probe_tier ceiling;
	bool unproven;
	bool attested; /* judge_result's: stored in the observation's layers_json */
	char reason[JUDGE_REASON_MAX + 512];
	/* A quiet retry (cmd_verify.c): retry_alone when the verdict was left
	 * INCONCLUSIVE by checks the host could not complete while other
	 * sandboxes of this run shared it; retried_alone once it ran again with
	 * none beside it, first_overlap what the first attempt shared. */
	bool retry_alone, retried_alone;
	int first_overlap;
	/* verify --sandbox-id: the caller's existing sandbox (observe.h
	 * attach_id); NULL: isotier creates both. */
	const char *attach_id;
} job;

typedef struct verify_ctx {
	job *jobs;
	size_t n_jobs, next;
	const char *probe_path;
	int timeout_s;
	int64_t remote_wall_ms; /* $ISOTIER_REMOTE_WALL_S; 0: observe.h's default */
	bool no_evidence;       /* --no-evidence: no capture directory, no --capture */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int cancel_fd; /* cancel.c's: every backend call watches it */
	bool stop;     /* read and written with __atomic builtins */
	int signal;    /* the SIGINT/SIGTERM that stopped the run (main thread only) */
} verify_ctx;

/* Sets j->overlap from the spans of the jobs started so far (ctx->lock
 * held): the most running at once while j ran, j included. Every job that
 * could overlap a finished one has started by then. */
void verify_job_overlap(job *j, const verify_ctx *ctx);

/* Runs j once more, on the calling thread, with nothing else of this run
 * beside it: j's observation and evidence must have been cleared. */
void verify_job_run_alone(job *j, verify_ctx *ctx);

/* A worker thread: takes jobs from ctx until none is left or ctx->stop. */
void *verify_worker_main(void *ctx);

#endif
