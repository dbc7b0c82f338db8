/*
 * verify_run.h - the worker side of `isotier verify`: one backend per job,
 * available -> provision -> exec the probe (stdout/stderr read by a helper
 * thread, stdout capped at PROBE_RESULT_MAX_BYTES and drained beyond it) ->
 * destroy -> pack the capture directory. Workers share a verify_ctx; the
 * main thread (cmd_verify.c) judges, records and prints.
 */
#ifndef ISOTIER_VERIFY_RUN_H
#define ISOTIER_VERIFY_RUN_H

#include "evidence.h"
#include "judge.h"

#include "../catalogue/catalogue.h"
#include "../reference/backend.h"

#include <pthread.h>
#include <stdint.h>

#define STDERR_KEEP 2048

typedef struct job {
	const isotier_backend *backend;
	bool explicit_;
	/* filled by the worker */
	bool done, available, ran;
	char why[256];
	int rc; /* provision/exec result */
	isotier_error err;
	int exit_status;
	char *out;
	size_t out_len;
	bool out_over;
	char errtxt[STDERR_KEEP];
	evidence_tar evidence;
	int64_t available_ms, provision_ms, exec_ms, destroy_ms, evidence_ms, total_ms;
	/* filled by the main thread */
	bool handled, skipped, recorded, rejected;
	const isotier_provider *claim;
	char claim_invalid[768]; /* why the backend's catalogue entry does not validate; "" */
	probe_result probe;
	judge_verdict verdict;
	probe_tier ceiling;
	bool unproven;
	isotier_kernel_relation relation;
	char reason[JUDGE_REASON_MAX + 512];
} job;

typedef struct verify_ctx {
	job *jobs;
	size_t n_jobs, next;
	const char *probe_path;
	int timeout_s;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int cancel_fd; /* cancel.c's: every backend call watches it */
	bool stop;     /* read and written with __atomic builtins */
	int signal;    /* the SIGINT/SIGTERM that stopped the run (main thread only) */
} verify_ctx;

/* A worker thread: takes jobs from ctx until none is left or ctx->stop. */
void *verify_worker_main(void *ctx);

#endif
