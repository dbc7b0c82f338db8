/* SPDX-License-Identifier: Apache-2.0 */
/* verify_run.c - `isotier verify` workers: observe one backend each. */
#include "verify_run.h"

#include "../../reference/api/isotier_tool.h"

#include <stdlib.h>
#include <string.h>

/* The descriptor says whether the sandbox's CPU time is its reaped
 * children's (backend.h: cpu_in_tree); never for a remote one. */
static bool cpu_measurable(const isotier_backend *b)
{
	return !b->remote && b->cpu_in_tree;
}

void verify_job_overlap(job *j, const verify_ctx *ctx)
{
	/* The count of spans holding a point only rises at a start: the peak
	 * within j's span is at j's start or at one of the starts inside it. */
	int64_t end = j->ended_ms ? j->ended_ms : INT64_MAX;
	int peak = 1;
	for (size_t p = 0; p < ctx->next; p++) {
		int64_t at = ctx->jobs[p].started_ms;
		if (at < j->started_ms || at >= end)
			continue;
		int n = 0;
		for (size_t k = 0; k < ctx->next; k++) {
			const job *o = &ctx->jobs[k];
			int64_t o_end = o->ended_ms ? o->ended_ms : INT64_MAX;
			n += o->started_ms <= at && at < o_end;
		}
		if (n > peak)
			peak = n;
	}
	j->overlap = peak;
}

/* Runs j; returns its capture directory, packed, for the caller to remove
 * (isotier__rmtree, free) once the job is handed over: removing a few dozen
 * files costs tens of milliseconds on a disk mounted with discard, which
 * need not hold up the judging. NULL when there is none. */
static char *run_job(job *j, const verify_ctx *ctx)
{
	int64_t t0 = isotier__now_ms();
	isotier_observe_opts opts = {.probe_path = ctx->probe_path,
	                             .timeout_s = ctx->timeout_s,
	                             .cancel_fd = ctx->cancel_fd,
	                             .remote_wall_ms = ctx->remote_wall_ms,
	                             .attach_id = j->attach_id};
	char *capture = NULL;
	/* --no-evidence: no directory, lease, bind mount or --capture at all.
	 * Only the history keeps the capture: no verdict reads it (observe.c
	 * passes it through, the judge sees the probe's report alone). */
	j->evidence_not_asked = ctx->no_evidence;
	if (!ctx->no_evidence) { /* shared with a local sandbox; a remote one's fetched into it */
		isotier_error cerr = {0};
		if (isotier__mkdtemp(&capture, "isotier-capture-", &cerr) < 0) {
			j->obs = (isotier_observation){
			    .backend = j->backend, .available = true, .rc = cerr.code, .err = cerr};
			j->total_ms = isotier__now_ms() - t0;
			return NULL;
		}
		opts.capture_dir = capture;
	}
	/* The sandbox's own span: availability check to teardown, without the
	 * capture directory's packing here or the queueing before (and the
	 * CPU over the same span, this thread's children only). */
	int64_t s0 = isotier__now_ms(), c0 = isotier__proc_thread_cpu_us();
	isotier__observe(&j->obs, j->backend, &opts, NULL);
	j->sandbox_wall_ms = isotier__now_ms() - s0;
	j->timed = true;
	j->sandbox_cpu_ms = (isotier__proc_thread_cpu_us() - c0) / 1000;
	j->cpu_known = cpu_measurable(j->backend) && j->obs.available;
	if (capture) {
		int64_t t1 = isotier__now_ms();
		isotier_error perr = {0};
		/* An unavailable backend left nothing to keep. A capture that
		 * could not be packed is said in the observation (cmd_verify.c
		 * adds capture_problem to its reason), so that history tells it
		 * from one not asked for (--no-evidence). */
		if (!j->obs.available) {
			memset(&j->evidence, 0, sizeof j->evidence);
		} else if (evidence_pack_dir(&j->evidence, capture, &perr) < 0) {
			memset(&j->evidence, 0, sizeof j->evidence);
			if (!j->obs.capture_problem[0])
				snprintf(j->obs.capture_problem, sizeof j->obs.capture_problem,
				         "%.290s", perr.message);
		}
		j->evidence_ms = isotier__now_ms() - t1;
	}
	j->total_ms = isotier__now_ms() - t0;
	return capture;
}

static void remove_capture(char *capture)
{
	if (capture) {
		isotier__rmtree(capture);
		free(capture);
	}
}

void *verify_worker_main(void *arg)
{
	verify_ctx *ctx = arg;
	for (;;) {
		pthread_mutex_lock(&ctx->lock);
		if (__atomic_load_n(&ctx->stop, __ATOMIC_ACQUIRE) || ctx->next >= ctx->n_jobs) {
			pthread_mutex_unlock(&ctx->lock);
			return NULL;
		}
		job *j = &ctx->jobs[ctx->next++];
		j->started_ms = isotier__now_ms();
		pthread_mutex_unlock(&ctx->lock);
		char *capture = run_job(j, ctx);
		pthread_mutex_lock(&ctx->lock);
		j->ended_ms = isotier__now_ms();
		j->done = true;
		pthread_cond_broadcast(&ctx->cond);
		pthread_mutex_unlock(&ctx->lock);
		/* While the main thread judges and stores; it joins this thread
		 * before the run ends. */
		remove_capture(capture);
	}
}

void verify_job_run_alone(job *j, verify_ctx *ctx)
{
	pthread_mutex_lock(&ctx->lock);
	j->started_ms = isotier__now_ms();
	j->ended_ms = 0;
	pthread_mutex_unlock(&ctx->lock);
	remove_capture(run_job(j, ctx));
	pthread_mutex_lock(&ctx->lock);
	j->ended_ms = isotier__now_ms();
	j->overlap = 1;
	pthread_mutex_unlock(&ctx->lock);
}
