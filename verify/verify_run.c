/* verify_run.c - `isotier verify` workers: run the probe in one backend. */
#include "verify_run.h"

#include "../reference/proc.h"

#include <stdlib.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <time.h>

/* ---- reading the probe's output ---------------------------------------- */

typedef struct reader {
	int out_fd, err_fd;
	char *out;
	size_t out_len;
	bool out_over, oom;
	char *err;
	size_t err_len;
	int64_t deadline; /* 0: none yet; set once the writers are closed (atomic) */
} reader;

static void reader_take(reader *r, int *fd, bool is_out)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (!is_out) {
		size_t room = STDERR_KEEP - 1 - r->err_len;
		size_t k = (size_t)n < room ? (size_t)n : room;
		memcpy(r->err + r->err_len, buf, k);
		r->err_len += k;
		return;
	}
	if (r->out_over || r->oom)
		return; /* drained and dropped: the child never blocks */
	if (r->out_len + (size_t)n > PROBE_RESULT_MAX_BYTES) {
		r->out_over = true;
		return;
	}
	char *o = realloc(r->out, r->out_len + (size_t)n + 1);
	if (!o) {
		r->oom = true;
		return;
	}
	memcpy(o + r->out_len, buf, (size_t)n);
	r->out = o;
	r->out_len += (size_t)n;
	r->out[r->out_len] = '\0';
}

static void *reader_main(void *arg)
{
	reader *r = arg;
	while (r->out_fd >= 0 || r->err_fd >= 0) {
		struct pollfd pf[2] = {{.fd = r->out_fd, .events = POLLIN},
		                       {.fd = r->err_fd, .events = POLLIN}};
		int pr = poll(pf, 2, 100);
		if (pr > 0 && pf[0].revents && r->out_fd >= 0)
			reader_take(r, &r->out_fd, true);
		if (pr > 0 && pf[1].revents && r->err_fd >= 0)
			reader_take(r, &r->err_fd, false);
		int64_t d = __atomic_load_n(&r->deadline, __ATOMIC_ACQUIRE);
		if (d && isotier_now_ms() > d)
			break; /* a straggler outside the sandbox's group holds the pipe */
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	return NULL;
}

/* ---- one backend, in a worker ------------------------------------------ */

/* The probe's output from one exec. */
typedef struct probe_run {
	int rc;
	int exit_status;
	char *out;
	size_t out_len;
	bool out_over;
	char errtxt[STDERR_KEEP];
} probe_run;

static void exec_probe(const isotier_backend *b, void *state, const verify_ctx *ctx,
                       probe_run *pr, isotier_error *err)
{
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1};
	if (pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0) {
		pr->rc = isotier_error_set(err, ISOTIER_EIO, errno, "%s: pipe", b->name);
		for (int i = 0; i < 2; i++) {
			if (out_p[i] >= 0)
				close(out_p[i]);
			if (err_p[i] >= 0)
				close(err_p[i]);
		}
		return;
	}
	char errbuf[STDERR_KEEP] = {0};
	reader r = {.out_fd = out_p[0], .err_fd = err_p[0], .err = errbuf};
	pthread_t tid;
	bool reading = pthread_create(&tid, NULL, reader_main, &r) == 0;
	if (!reading) {
		close(out_p[0]);
		close(err_p[0]);
	}
	const char *const argv[] = {ISOTIER_GUEST_PROBE, "--json", "--capture",
	                            ISOTIER_GUEST_CAPTURE, NULL};
	isotier_exec_request req = {.argv = argv,
	                            .stdin_fd = -1,
	                            .stdout_fd = reading ? out_p[1] : -1,
	                            .stderr_fd = reading ? err_p[1] : -1,
	                            .timeout_s = ctx->timeout_s,
	                            .cancel_fd = ctx->cancel_fd};
	if (reading)
		pr->rc = b->exec(state, &req, &pr->exit_status, err);
	else
		pr->rc = isotier_error_set(err, ISOTIER_ENOMEM, 0, "%s: reader thread", b->name);
	close(out_p[1]);
	close(err_p[1]);
	if (reading) {
		__atomic_store_n(&r.deadline, isotier_now_ms() + 2000, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
	}
	pr->out = r.out;
	pr->out_len = r.out_len;
	pr->out_over = r.out_over || r.oom;
	memcpy(pr->errtxt, errbuf, sizeof pr->errtxt);
	pr->errtxt[sizeof pr->errtxt - 1] = '\0';
}

static void run_probe(job *j, const verify_ctx *ctx, const char *capture)
{
	const isotier_backend *b = j->backend;
	isotier_backend_spec spec = {.probe_path = ctx->probe_path,
	                             .capture_dir = capture,
	                             .timeout_s = ctx->timeout_s,
	                             .minimal_root = true,
	                             .cancel_fd = ctx->cancel_fd};
	void *state = NULL;
	int64_t t0 = isotier_now_ms();
	j->rc = b->provision(&state, &spec, &j->err);
	int64_t t1 = isotier_now_ms();
	j->provision_ms = t1 - t0;
	if (j->rc < 0)
		return;
	probe_run pr = {0};
	exec_probe(b, state, ctx, &pr, &j->err);
	j->ran = true;
	j->rc = pr.rc;
	int64_t t2 = isotier_now_ms();
	j->exec_ms = t2 - t1;
	b->destroy(state);
	j->destroy_ms = isotier_now_ms() - t2;
	j->exit_status = pr.exit_status;
	j->out = pr.out;
	j->out_len = pr.out_len;
	j->out_over = pr.out_over;
	memcpy(j->errtxt, pr.errtxt, sizeof j->errtxt);
}

/* Releases a remote sandbox; one that may still exist goes to j->leaks. */
static void release_remote(job *j, void *state)
{
	const isotier_backend *b = j->backend;
	isotier_error e = {0};
	int rc = b->release ? b->release(state, &e) : (b->destroy(state), 0);
	if (rc < 0) {
		size_t n = strlen(j->leaks);
		snprintf(j->leaks + n, sizeof j->leaks - n, "%s%.400s", n ? "; " : "", e.message);
	}
}

static int64_t remote_wall_ms(const verify_ctx *ctx)
{
	const char *env = getenv("ISOTIER_REMOTE_WALL_S");
	long v = env && *env ? strtol(env, NULL, 10) : 0;
	if (v <= 0 || v > 86400)
		v = 3L * ctx->timeout_s + 60;
	return (int64_t)v * 1000;
}

/*
 * Two sandboxes, both alive while the probe runs in each: their kernels are
 * compared with each other. Both are released on every path; a provision
 * that failed may still hand back a state to release (a create whose outcome
 * is unknown). Provision and exec watch ctx->cancel_fd; release's requests
 * are cleanup requests that ignore it, so an interrupted run still deletes
 * both sandboxes.
 */
static void run_remote(job *j, const verify_ctx *ctx)
{
	const isotier_backend *b = j->backend;
	isotier_backend_spec spec = {.probe_path = ctx->probe_path,
	                             .timeout_s = ctx->timeout_s,
	                             .cancel_fd = ctx->cancel_fd,
	                             .deadline_ms = isotier_now_ms() + remote_wall_ms(ctx)};
	void *state[2] = {NULL, NULL};
	int64_t t0 = isotier_now_ms();
	j->rc = b->provision(&state[0], &spec, &j->err);
	if (j->rc == 0 && isotier_cancelled(ctx->cancel_fd))
		j->rc = isotier_error_set(&j->err, ISOTIER_EINTR, 0, "interrupted");
	else if (j->rc == 0) {
		j->rc2 = b->provision(&state[1], &spec, &j->err2);
		if (j->rc2 < 0) {
			j->rc = j->rc2;
			j->err = j->err2;
			isotier_error_prefix(&j->err, "second sandbox");
		}
	}
	int64_t t1 = isotier_now_ms();
	j->provision_ms = t1 - t0;
	if (j->rc == 0 && b->describe)
		b->describe(state[0], j->note, sizeof j->note);
	if (j->rc == 0) {
		probe_run pr[2] = {{0}, {0}};
		exec_probe(b, state[0], ctx, &pr[0], &j->err);
		j->ran = true;
		if (pr[0].rc == 0)
			exec_probe(b, state[1], ctx, &pr[1], &j->err2);
		else
			pr[1].rc = isotier_error_set(&j->err2, pr[0].rc, 0, "not run: the first failed");
		j->rc = pr[0].rc;
		j->rc2 = pr[1].rc;
		j->exit_status = pr[0].exit_status;
		j->out = pr[0].out;
		j->out_len = pr[0].out_len;
		j->out_over = pr[0].out_over;
		memcpy(j->errtxt, pr[0].errtxt, sizeof j->errtxt);
		j->exit_status2 = pr[1].exit_status;
		j->out2 = pr[1].out;
		j->out2_len = pr[1].out_len;
		j->out2_over = pr[1].out_over;
		memcpy(j->errtxt2, pr[1].errtxt, sizeof j->errtxt2);
	}
	int64_t t2 = isotier_now_ms();
	j->exec_ms = t2 - t1;
	for (int i = 1; i >= 0; i--)
		if (state[i])
			release_remote(j, state[i]);
	j->destroy_ms = isotier_now_ms() - t2;
}

static void run_job(job *j, const verify_ctx *ctx)
{
	int64_t t0 = isotier_now_ms();
	j->available = j->backend->available(j->why, sizeof j->why) == 1;
	j->available_ms = isotier_now_ms() - t0;
	if (!j->available)
		return;
	if (j->backend->remote) {
		run_remote(j, ctx);
		j->total_ms = isotier_now_ms() - t0;
		return;
	}
	char *capture = NULL;
	j->rc = isotier_mkdtemp(&capture, "isotier-capture-", &j->err);
	if (j->rc == 0) {
		run_probe(j, ctx, capture);
		int64_t t1 = isotier_now_ms();
		isotier_error perr = {0};
		if (evidence_pack_dir(&j->evidence, capture, &perr) < 0)
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
		if (!isotier_cancelled(ctx->cancel_fd))
			run_job(j, ctx);
		else
			j->rc = isotier_error_set(&j->err, ISOTIER_EINTR, 0, "interrupted");
		pthread_mutex_lock(&ctx->lock);
		j->done = true;
		pthread_cond_broadcast(&ctx->cond);
		pthread_mutex_unlock(&ctx->lock);
	}
}
