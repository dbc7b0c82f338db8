/* observe.c - one observation of a backend (observe.h). */
#include "observe.h"

#include "artifacts.h"
#include "collect.h"
#include "proc.h"

#include <string.h>

/* Runs the probe once in a provisioned sandbox; pr gets what it printed. */
static void exec_probe(isotier_probe_run *pr, const isotier_backend *b, void *state,
                       const isotier_observe_opts *o)
{
	const char *const with_capture[] = {ISOTIER_GUEST_PROBE, "--json", "--capture",
	                                    ISOTIER_GUEST_CAPTURE, NULL};
	const char *const bare[] = {ISOTIER_GUEST_PROBE, "--json", NULL};
	isotier_exec_request req = {.argv = o->capture_dir ? with_capture : bare,
	                            .timeout_s = o->timeout_s,
	                            .cancel_fd = o->cancel_fd};
	isotier_collected got = {.max_out = PROBE_RESULT_MAX_BYTES};
	pr->rc = isotier_exec_collect(&got, b, state, &req, &pr->exit_status, &pr->err);
	snprintf(pr->errtxt, sizeof pr->errtxt, "%s", got.err);
	pr->out = got.out;
	pr->out_len = got.out_len;
	pr->out_over = got.out_over;
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
		char why[220];
		if (second->rc < 0)
			snprintf(why, sizeof why, "%.200s", second->err.message);
		else
			snprintf(why, sizeof why, "exit status %d", second->exit_status);
		snprintf(detail, len,
		         "the second %s sandbox gave no probe output (%s): its kernel "
		         "was not compared",
		         name, why);
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

/* The explicit artifact step of a backend that shares no directory with the
 * host (backend.h fetch): the capture the probe left inside, into the
 * caller's capture_dir. Evidence is best-effort: a failure is said in
 * obs->capture_problem and changes no fact of the observation. */
static void fetch_capture(isotier_observation *obs, void *state, const isotier_observe_opts *o)
{
	const isotier_backend *b = obs->backend;
	if (!b->fetch || !o->capture_dir || obs->rc < 0)
		return;
	isotier_exec_request how = {.timeout_s = o->timeout_s, .cancel_fd = o->cancel_fd};
	isotier_error e = {0};
	if (b->fetch(b, state, ISOTIER_GUEST_CAPTURE, o->capture_dir, &how, &e) < 0)
		snprintf(obs->capture_problem, sizeof obs->capture_problem, "%.290s", e.message);
}

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
	fetch_capture(obs, state, o);
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
	/* The first sandbox's capture is fetched (its backend's fetch()); the
	 * second's is not: it is run for its kernel identity only. */
	isotier_observe_opts second_opts = *o;
	second_opts.capture_dir = NULL;
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
		run_once(obs, state[0], o);
		fetch_capture(obs, state[0], o);
		/* The second run's failure is not the observation's: the first
		 * sandbox was observed; its kernel stays UNCOMPARED (relate). */
		if (obs->rc == 0)
			exec_probe(&obs->run[obs->n_runs++], b, state[1], &second_opts);
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
