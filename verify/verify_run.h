/*
 * verify_run.h - the worker side of `isotier verify`: one backend per job,
 * available -> provision -> exec the probe (stdout/stderr read by a helper
 * thread, stdout capped at PROBE_RESULT_MAX_BYTES and drained beyond it) ->
 * destroy -> pack the capture directory. Workers share a verify_ctx; the
 * main thread (cmd_verify.c) judges, records and prints.
 *
 * A remote backend (backend.h: remote) gets two sandboxes, provisioned one
 * after the other and both alive while the probe runs in each, under one
 * wall-clock limit (3 x --timeout + 60 s, or $ISOTIER_REMOTE_WALL_S); both are
 * released on every path, interrupt included, and one that could not be is
 * named in leaks.
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
	/* remote backends: the second sandbox's probe run (its kernel is
	 * compared with the first's, never with this host's) */
	int rc2;
	isotier_error err2;
	int exit_status2;
	char *out2;
	size_t out2_len;
	bool out2_over;
	char errtxt2[STDERR_KEEP];
	char leaks[1024]; /* sandboxes that could not be destroyed, with ids; "" */
	char note[256];   /* what the provider reported of the sandbox (describe()); "" */
	evidence_tar evidence;
	int64_t available_ms, provision_ms, exec_ms, destroy_ms, evidence_ms, total_ms;
	/* filled by the main thread */
	bool handled, skipped, recorded, rejected;
	const isotier_provider *claim;
	char claim_invalid[768]; /* why the backend's catalogue entry does not validate; "" */
	probe_result probe;
	probe_result probe2; /* remote: the second sandbox's */
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

/*
 * A remote backend's kernel relation: its two sandboxes compared with each
 * other (never with this host). Parses the second probe output into
 * j->probe2; detail gets the comparison in words.
 */
isotier_kernel_relation relate_remote(job *j, char *detail, size_t len);

/* A worker thread: takes jobs from ctx until none is left or ctx->stop. */
void *verify_worker_main(void *ctx);

#endif
