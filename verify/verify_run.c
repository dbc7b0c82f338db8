/* verify_run.c - `isotier verify` workers: observe one backend each. */
#include "verify_run.h"

#include "../reference/isotier_tool.h"

#include <stdlib.h>
#include <string.h>

static void run_job(job *j, const verify_ctx *ctx)
{
	int64_t t0 = isotier_now_ms();
	isotier_observe_opts opts = {.probe_path = ctx->probe_path,
	                             .timeout_s = ctx->timeout_s,
	                             .cancel_fd = ctx->cancel_fd,
	                             .remote_wall_ms = ctx->remote_wall_ms};
	char *capture = NULL;
	{ /* shared with a local sandbox; a remote backend's fetched into it */
		isotier_error cerr = {0};
		if (isotier_mkdtemp(&capture, "isotier-capture-", &cerr) < 0) {
			j->obs = (isotier_observation){.backend = j->backend, .available = true,
			                               .rc = cerr.code, .err = cerr};
			j->total_ms = isotier_now_ms() - t0;
			return;
		}
		opts.capture_dir = capture;
	}
	isotier_observe(&j->obs, j->backend, &opts, NULL);
	if (capture) {
		int64_t t1 = isotier_now_ms();
		isotier_error perr = {0};
		/* An unavailable backend left nothing to keep. */
		if (!j->obs.available || evidence_pack_dir(&j->evidence, capture, &perr) < 0)
			memset(&j->evidence, 0, sizeof j->evidence);
		isotier_rmtree(capture);
		free(capture);
		j->evidence_ms = isotier_now_ms() - t1;
	}
	j->total_ms = isotier_now_ms() - t0;
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
		pthread_mutex_unlock(&ctx->lock);
		run_job(j, ctx);
		pthread_mutex_lock(&ctx->lock);
		j->done = true;
		pthread_cond_broadcast(&ctx->cond);
		pthread_mutex_unlock(&ctx->lock);
	}
}
