/* observe.c - one observation of a backend (observe.h). */
#include "observe.h"

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>

/* ---- reading the probe's output ---------------------------------------- */

/*
 * A helper thread reads stdout and stderr while the backend's exec() waits
 * for the command, so neither pipe fills and stalls the probe. stdout beyond
 * PROBE_RESULT_MAX_BYTES is drained and dropped (out_over), stderr beyond
 * its first bytes too.
 */
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
		size_t room = ISOTIER_PROBE_STDERR_KEEP - 1 - r->err_len;
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

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

/* Runs the probe once in a provisioned sandbox; pr gets what it printed. */
static void exec_probe(isotier_probe_run *pr, const isotier_backend *b, void *state,
                       const isotier_observe_opts *o)
{
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1};
	if (pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0) {
		pr->rc = isotier_error_set(&pr->err, ISOTIER_EIO, errno, "%s: pipe", b->name);
		close_pair(out_p);
		close_pair(err_p);
		return;
	}
	reader r = {.out_fd = out_p[0], .err_fd = err_p[0], .err = pr->errtxt};
	pthread_t tid;
	bool reading = pthread_create(&tid, NULL, reader_main, &r) == 0;
	if (!reading) {
		close(out_p[0]);
		close(err_p[0]);
	}
	const char *const with_capture[] = {ISOTIER_GUEST_PROBE, "--json", "--capture",
	                                    ISOTIER_GUEST_CAPTURE, NULL};
	const char *const bare[] = {ISOTIER_GUEST_PROBE, "--json", NULL};
	isotier_exec_request req = {.argv = o->capture_dir ? with_capture : bare,
	                            .stdin_fd = -1,
	                            .stdout_fd = out_p[1],
	                            .stderr_fd = err_p[1],
	                            .timeout_s = o->timeout_s,
	                            .cancel_fd = o->cancel_fd};
	if (reading)
		pr->rc = b->exec(state, &req, &pr->exit_status, &pr->err);
	else
		pr->rc = isotier_error_set(&pr->err, ISOTIER_ENOMEM, 0, "%s: reader thread", b->name);
	close(out_p[1]);
	close(err_p[1]);
	if (reading) {
		__atomic_store_n(&r.deadline, isotier_now_ms() + 2000, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
	}
	pr->errtxt[sizeof pr->errtxt - 1] = '\0';
	pr->out = r.out;
	pr->out_len = r.out_len;
	pr->out_over = r.out_over || r.oom;
	if (pr->rc < 0)
		return;
	if (pr->out_over)
		isotier_error_set(&pr->parse_err, ISOTIER_EDATA, 0, "output larger than %d bytes",
		                  PROBE_RESULT_MAX_BYTES);
	else
		pr->parsed = probe_result_parse(&pr->probe, pr->out, pr->out_len, &pr->parse_err) == 0;
}

/* ---- the kernel relation ----------------------------------------------- */

static void kernel_of(isotier_kernel_id *id, const probe_result *p)
{
	*id = (isotier_kernel_id){.btime = p->btime};
	snprintf(id->boot_id, sizeof id->boot_id, "%s", p->boot_id);
}

/*
 * A remote backend: this host's kernel is not the provider's; the two
 * sandboxes' kernels are compared with each other. The same boot (boot_id,
 * or without one the boot time) in both: they share one kernel, whatever VM
 * either shows (SHARED). Both valid and different: DEDICATED. Anything else,
 * the second probe's output missing or rejected included: UNCOMPARED.
 */
static isotier_kernel_relation relate_siblings(const isotier_observation *obs, char *detail,
                                               size_t len)
{
	const char *name = obs->backend->name;
	const isotier_probe_run *second = &obs->run[1];
	if (obs->n_runs < 2) {
		snprintf(detail, len,
		         "one %s sandbox: its kernel is compared with another's only by verify", name);
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	if (second->rc < 0 || !second->out) {
		snprintf(detail, len,
		         "the second %s sandbox gave no probe output (%.200s): its kernel "
		         "was not compared",
		         name, second->err.message);
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	if (!second->parsed) {
		snprintf(detail, len,
		         "the second %s sandbox's probe output was rejected (%.200s): "
		         "kernels not compared",
		         name, second->out_over ? "too large" : second->parse_err.message);
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	isotier_kernel_id a, b;
	kernel_of(&a, &obs->run[0].probe);
	kernel_of(&b, &second->probe);
	char inner[300];
	isotier_kernel_relation r = isotier_kernel_compare(&a, &b, inner, sizeof inner);
	switch (r) {
	case ISOTIER_KERNEL_SHARED:
		/* Clones of one memory snapshot report one boot too: isotier
		 * cannot tell them from a shared kernel, and fails closed. */
		snprintf(detail, len,
		         "two %s sandboxes run on one kernel (boot_id %s, btime %lld in both): "
		         "not a kernel of their own (or clones of one memory snapshot, which "
		         "cannot be told apart from it)",
		         name, a.boot_id[0] ? a.boot_id : "unknown", (long long)a.btime);
		break;
	case ISOTIER_KERNEL_DEDICATED:
		snprintf(detail, len, "two %s sandboxes, two kernels (boot_id %s and %s)", name,
		         a.boot_id, b.boot_id);
		break;
	default:
		snprintf(detail, len,
		         "two %s sandboxes' kernels not comparable: boot_id %s and %s, "
		         "btime %lld and %lld",
		         name, a.boot_id[0] ? a.boot_id : "unknown",
		         b.boot_id[0] ? b.boot_id : "unknown", (long long)a.btime,
		         (long long)b.btime);
		r = ISOTIER_KERNEL_UNCOMPARED;
	}
	return r;
}

/* Sets obs->relation from its parsed first run (see observe.h). */
static void relate(isotier_observation *obs)
{
	char *detail = obs->relation_detail;
	size_t len = sizeof obs->relation_detail;
	obs->relation = ISOTIER_KERNEL_UNCOMPARED;
	if (!obs->run[0].parsed) {
		snprintf(detail, len, "no parsed probe output: kernel not compared");
		return;
	}
	if (obs->backend->observes_host) {
		snprintf(detail, len, "the backend observes the host itself");
		obs->relation = ISOTIER_KERNEL_SELF;
		return;
	}
	if (obs->backend->remote) {
		obs->relation = relate_siblings(obs, detail, len);
		return;
	}
	isotier_kernel_id host, sandbox;
	isotier_kernel_id_self(&host);
	kernel_of(&sandbox, &obs->run[0].probe);
	obs->relation = isotier_kernel_compare(&host, &sandbox, detail, len);
}

/* The observation's return: its first failure, in the order it happened. */
static int finish(isotier_observation *obs, isotier_error *err)
{
	const isotier_probe_run *first = &obs->run[0];
	int rc = 0;
	if (!obs->available)
		rc = isotier_error_set(&obs->err, ISOTIER_EUNAVAILABLE, 0, "%s: %s", obs->backend->name,
		                       obs->why);
	else if (obs->rc < 0)
		rc = obs->rc;
	else if (!first->parsed)
		obs->err = first->parse_err, rc = obs->err.code ? obs->err.code : ISOTIER_EDATA;
	if (rc < 0 && err)
		*err = obs->err;
	return rc;
}

/* ---- the lifecycles ---------------------------------------------------- */

static void observe_start(isotier_observation *obs, const isotier_backend *b)
{
	*obs = (isotier_observation){.backend = b, .available = true};
	for (size_t i = 0; i < 2; i++)
		obs->run[i].probe.duration_us = -1;
}

/* One run into obs->run[obs->n_runs]; obs->rc gets its failure. */
static void run_once(isotier_observation *obs, void *state, const isotier_observe_opts *o)
{
	isotier_probe_run *pr = &obs->run[obs->n_runs++];
	exec_probe(pr, obs->backend, state, o);
	obs->ran = true;
	if (pr->rc < 0 && obs->rc == 0) {
		obs->rc = pr->rc;
		obs->err = pr->err;
	}
}

int isotier_observe_in(isotier_observation *obs, const isotier_backend *b, void *state,
                       const isotier_observe_opts *opts, isotier_error *err)
{
	observe_start(obs, b);
	int64_t t0 = isotier_now_ms();
	run_once(obs, state, opts);
	obs->exec_ms = isotier_now_ms() - t0;
	relate(obs);
	return finish(obs, err);
}

static void observe_local(isotier_observation *obs, const isotier_observe_opts *o)
{
	const isotier_backend *b = obs->backend;
	isotier_backend_spec spec = {.probe_path = o->probe_path,
	                             .capture_dir = o->capture_dir,
	                             .timeout_s = o->timeout_s,
	                             .minimal_root = true,
	                             .cancel_fd = o->cancel_fd};
	void *state = NULL;
	int64_t t0 = isotier_now_ms();
	obs->rc = b->provision(&state, &spec, &obs->err);
	int64_t t1 = isotier_now_ms();
	obs->provision_ms = t1 - t0;
	if (obs->rc < 0)
		return;
	run_once(obs, state, o);
	int64_t t2 = isotier_now_ms();
	obs->exec_ms = t2 - t1;
	b->destroy(state);
	obs->destroy_ms = isotier_now_ms() - t2;
}

/* Releases a remote sandbox; one that may still exist goes to obs->leaks. */
static void release_remote(isotier_observation *obs, void *state)
{
	const isotier_backend *b = obs->backend;
	isotier_error e = {0};
	int rc = b->release ? b->release(state, &e) : (b->destroy(state), 0);
	if (rc < 0) {
		size_t n = strlen(obs->leaks);
		snprintf(obs->leaks + n, sizeof obs->leaks - n, "%s%.400s", n ? "; " : "", e.message);
	}
}

/*
 * Two sandboxes, both alive while the probe runs in each: their kernels are
 * compared with each other. Both are released on every path; a provision
 * that failed may still hand back a state to release (a create whose outcome
 * is unknown). Provision and exec watch the cancel_fd; release's requests
 * are cleanup requests that ignore it, so an interrupted run still deletes
 * both sandboxes.
 */
static void observe_remote(isotier_observation *obs, const isotier_observe_opts *o)
{
	const isotier_backend *b = obs->backend;
	int timeout_s = o->timeout_s > 0 ? o->timeout_s : 60;
	int64_t wall = o->remote_wall_ms > 0 ? o->remote_wall_ms : (3LL * timeout_s + 60) * 1000;
	isotier_backend_spec spec = {.probe_path = o->probe_path,
	                             .timeout_s = o->timeout_s,
	                             .cancel_fd = o->cancel_fd,
	                             .deadline_ms = isotier_now_ms() + wall};
	isotier_observe_opts run_opts = *o;
	run_opts.capture_dir = NULL; /* captures are not copied back from a provider */
	void *state[2] = {NULL, NULL};
	int64_t t0 = isotier_now_ms();
	obs->rc = b->provision(&state[0], &spec, &obs->err);
	if (obs->rc == 0 && isotier_cancelled(o->cancel_fd))
		obs->rc = isotier_error_set(&obs->err, ISOTIER_EINTR, 0, "interrupted");
	else if (obs->rc == 0 && (obs->rc = b->provision(&state[1], &spec, &obs->err)) < 0)
		isotier_error_prefix(&obs->err, "second sandbox");
	int64_t t1 = isotier_now_ms();
	obs->provision_ms = t1 - t0;
	if (obs->rc == 0 && b->describe)
		b->describe(state[0], obs->note, sizeof obs->note);
	if (obs->rc == 0) {
		run_once(obs, state[0], &run_opts);
		/* The second run's failure is not the observation's: the first
		 * sandbox was observed; its kernel stays UNCOMPARED (relate). */
		if (obs->rc == 0)
			exec_probe(&obs->run[obs->n_runs++], b, state[1], &run_opts);
	}
	int64_t t2 = isotier_now_ms();
	obs->exec_ms = t2 - t1;
	for (int i = 1; i >= 0; i--)
		if (state[i])
			release_remote(obs, state[i]);
	obs->destroy_ms = isotier_now_ms() - t2;
}

int isotier_observe(isotier_observation *obs, const isotier_backend *b,
                    const isotier_observe_opts *opts, isotier_error *err)
{
	observe_start(obs, b);
	if (isotier_cancelled(opts->cancel_fd)) {
		obs->rc = isotier_error_set(&obs->err, ISOTIER_EINTR, 0, "interrupted");
		return finish(obs, err);
	}
	int64_t t0 = isotier_now_ms();
	obs->available = b->available(obs->why, sizeof obs->why) == 1;
	obs->available_ms = isotier_now_ms() - t0;
	if (!obs->available)
		return finish(obs, err);
	if (b->remote)
		observe_remote(obs, opts);
	else
		observe_local(obs, opts);
	relate(obs);
	return finish(obs, err);
}

void isotier_observation_clear(isotier_observation *obs)
{
	if (!obs)
		return;
	for (size_t i = 0; i < 2; i++) {
		free(obs->run[i].out);
		obs->run[i].out = NULL;
		probe_result_clear(&obs->run[i].probe);
		obs->run[i].parsed = false;
	}
}
