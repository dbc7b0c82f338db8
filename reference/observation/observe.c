/* SPDX-License-Identifier: Apache-2.0 */
/* observe.c - one observation of a backend (observe.h). */
#include "observe.h"

#include "../backends/artifacts.h"
#include "../backends/collect.h"
#include "../evidence/host_watch.h"
#include "observe_bound.h"
#include "observe_cross.h"
#include "../core/proc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Does this observation get the host's own view (host_watch.h)? A local
 * sandbox only: the host backend is the host, a remote one is not on it. */
static bool host_watched(const isotier_backend *b)
{
	return !b->remote && !b->observes_host;
}

/* A parsed output must echo this run's nonce: one that does not is a
 * recorded or foreign document and proves nothing about this sandbox. */
static void check_nonce(isotier_probe_run *pr, const char *nonce)
{
	if (!pr->parsed || !strcmp(pr->probe.run.nonce, nonce))
		return;
	pr->parsed = false;
	isotier__error_set(&pr->parse_err, ISOTIER_EDATA, 0,
	                   "run.nonce: %s, not this run's nonce: a recorded or foreign output "
	                   "proves nothing about this sandbox",
	                   pr->probe.run.nonce[0] ? "a different nonce" : "missing");
	isotier__probe_result_clear(&pr->probe);
}

static void read_host_view(isotier_observation *obs, const isotier_probe_run *pr,
                           const isotier_host_view *v, int window_ms);
static void relate(isotier_observation *obs);

/* Parses what the probe printed into pr (bounded), checks its nonce. */
static void parse_output(isotier_probe_run *pr, const char *nonce)
{
	if (pr->out_over)
		isotier__error_set(&pr->parse_err, ISOTIER_EDATA, 0, "output larger than %d bytes",
		                   PROBE_RESULT_MAX_BYTES);
	else if (!pr->out)
		isotier__error_set(&pr->parse_err, ISOTIER_EDATA, 0,
		                   "no report between the probe's markers");
	else
		pr->parsed = isotier__probe_result_parse(&pr->probe, pr->out, pr->out_len,
		                                         &pr->parse_err) == 0;
	check_nonce(pr, nonce);
}

/* A report from a sandbox whose runtime was not given what isotier wrote
 * (backend.h inputs_intact) proves nothing: rejected, as a foreign one. */
static void check_inputs(isotier_probe_run *pr, const isotier_backend *b, void *state)
{
	char why[300] = "";
	if (!pr->parsed || !b->inputs_intact || b->inputs_intact(state, why, sizeof why))
		return;
	pr->parsed = false;
	isotier__error_set(&pr->parse_err, ISOTIER_EDATA, 0, "%s: %s", b->name, why);
	isotier__probe_result_clear(&pr->probe);
}

/* A bound exec's report, judged while the probe waits (observe_bound.h). */
typedef struct bound_ctx {
	isotier_observation *obs;
	void *state;
	int window_ms;
	isotier_probe_run *pr;
	const isotier_observe_opts *o;
	bool watched;
} bound_ctx;

static bool on_bound_report(void *p, const char *report, size_t len, isotier_host_view *view)
{
	bound_ctx *c = p;
	isotier_probe_run *pr = c->pr;
	if (report && (pr->out = malloc(len + 1))) {
		memcpy(pr->out, report, len);
		pr->out[len] = '\0';
		pr->out_len = len;
	}
	parse_output(pr, c->obs->nonce);
	check_inputs(pr, c->obs->backend, c->state);
	if (c->watched)
		read_host_view(c->obs, pr, view, c->window_ms);
	isotier__host_view_clear(view);
	c->obs->ran = true;
	relate(c->obs);
	return pr->parsed && c->o->bound->decide(c->o->bound->ctx, c->obs);
}

/* Runs the probe once in a provisioned sandbox; pr gets what it printed.
 * view (NULL: none) gets what the host saw meanwhile; with o->bound the
 * command runs after it in its process, and *viewed says the view was read
 * into obs already. */
static void exec_probe(isotier_observation *obs, isotier_probe_run *pr, const isotier_backend *b,
                       void *state, const isotier_observe_opts *o, const char *nonce, int window_ms,
                       isotier_host_view *view, bool *viewed)
{
	char window[16];
	snprintf(window, sizeof window, "%d", window_ms);
	size_t n_cmd = 0;
	while (o->bound && o->bound->argv[n_cmd])
		n_cmd++;
	const char **argv = calloc(15 + n_cmd, sizeof *argv);
	if (!argv) {
		pr->rc =
		    isotier__error_set(&pr->err, ISOTIER_ENOMEM, 0, "%s: out of memory", b->name);
		return;
	}
	size_t n = 0;
	argv[n++] = ISOTIER_GUEST_PROBE;
	argv[n++] = "--json";
	argv[n++] = "--nonce";
	argv[n++] = nonce;
	if (view) {
		argv[n++] = "--challenge";
		argv[n++] = window;
	}
	/* Its pattern waits for the probe's start line (backend.h): a bound
	 * exec's stderr is its caller's, so only an unbound run asks for it. */
	bool after_start = view && !o->bound && b->challenge_after_start;
	if (after_start)
		argv[n++] = "--say-start";
	if (o->capture_dir && window_ms != ISOTIER_CHALLENGE_LONG_MS) {
		argv[n++] = "--capture";
		argv[n++] = ISOTIER_GUEST_CAPTURE;
	}
	if (o->bound) {
		argv[n++] = "--exec";
		argv[n++] = "--";
		for (size_t i = 0; i < n_cmd; i++)
			argv[n++] = o->bound->argv[i];
	}
	argv[n] = NULL;
	isotier_exec_request req = {
	    .argv = argv, .timeout_s = o->timeout_s, .cancel_fd = o->cancel_fd};
	isotier_collected got = {.max_out = PROBE_RESULT_MAX_BYTES};
	isotier_host_watch *watch = NULL;
	isotier_error werr = {0};
	/* The host's challenge lock is waited for up to the exec's own timeout:
	 * another isotier's challenge ends within its exec's. */
	int wait_ms = (o->timeout_s > 0 ? o->timeout_s : 60) * 1000;
	if (view && isotier__host_watch_start(&watch, ISOTIER_GUEST_PROBE, nonce, wait_ms,
	                                      o->cancel_fd, &werr) < 0)
		snprintf(view->workload_detail, sizeof view->workload_detail, "%.190s",
		         werr.message);
	if (o->bound) {
		bound_ctx c = {.obs = obs,
		               .state = state,
		               .window_ms = window_ms,
		               .pr = pr,
		               .o = o,
		               .watched = view != NULL};
		bool reported = false;
		req.stderr_fd = o->bound->stderr_fd;
		pr->rc =
		    isotier__exec_bound(b, state, &req, o->bound->stdin_fd, o->bound->stdout_fd,
		                        watch, nonce, on_bound_report, &c, &reported,
		                        &o->bound->released, &o->bound->exit_status, &pr->err);
		pr->exit_status = o->bound->exit_status;
		if (reported) {
			*viewed = true;
		} else if (watch) {
			isotier__host_watch_end(watch, view);
		} else if (view) {
			view->pattern_failed = true;
		}
		isotier__host_watch_free(watch);
		free(argv);
		if (!reported && pr->rc == 0)
			parse_output(pr, nonce);
		return;
	}
	if (after_start && watch) {
		isotier__host_watch_defer_pattern(); /* this thread's watch: watch */
		got.on_start = isotier__host_watch_start_said;
		got.start_data = watch;
	}
	if (watch) { /* the report ends the window: the pattern holds still from then on */
		got.on_report = isotier__host_watch_probe_reported;
		got.report_data = watch;
	}
	pr->rc = isotier__exec_collect(&got, b, state, &req, &pr->exit_status, &pr->err);
	free(argv);
	if (watch)
		isotier__host_watch_stop(watch, view);
	else if (view)
		view->pattern_failed = true;
	snprintf(pr->errtxt, sizeof pr->errtxt, "%s", got.err);
	pr->out = got.out;
	pr->out_len = got.out_len;
	pr->out_over = got.out_over;
	if (pr->rc < 0)
		return;
	parse_output(pr, nonce);
	check_inputs(pr, b, state);
}

/* ---- the kernel relation ----------------------------------------------- */

static void kernel_of(isotier_kernel_id *id, const probe_result *p)
{
	*id = (isotier_kernel_id){.btime = p->btime};
	snprintf(id->boot_id, sizeof id->boot_id, "%s", p->boot_id);
}

/*
 * A remote backend: this host's kernel is not the provider's; the two
 * sandboxes' kernels are compared with each other. One's random task pattern
 * seen in the other's task count (observe_cross.h): SHARED, whatever boot_id
 * either prints. Else the same boot (boot_id, or without one the boot time)
 * in both: they share one kernel, whatever VM either shows (SHARED). Both
 * valid and different: DEDICATED. Anything else, the second probe's output
 * missing or rejected included: UNCOMPARED.
 */
static isotier_kernel_relation relate_siblings(const isotier_observation *obs, char *detail,
                                               size_t len)
{
	const char *name = obs->backend->name;
	const isotier_probe_run *second = &obs->run[1];
	if (obs->n_runs < 2) {
		snprintf(detail, len,
		         "one %s sandbox: its kernel is compared with another's only by verify",
		         name);
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
	isotier_kernel_relation r = isotier__kernel_compare(&a, &b, inner, sizeof inner);
	if (obs->cross == ISOTIER_CHALLENGE_SEEN) {
		/* Behaviour outvotes the identity files a provider can forge, and
		 * tells one kernel from clones of one snapshot (each of which
		 * counts only its own tasks). */
		if (r == ISOTIER_KERNEL_SHARED)
			snprintf(detail, len,
			         "two %s sandboxes run on one kernel: %.250s (one boot_id, %s)",
			         name, obs->cross_detail, a.boot_id[0] ? a.boot_id : "unknown");
		else
			snprintf(detail, len,
			         "two %s sandboxes share one kernel: %.250s, whatever boot_id each "
			         "shows",
			         name, obs->cross_detail);
		return ISOTIER_KERNEL_SHARED;
	}
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
	/* What the cross-sandbox challenge said, when there is room: it did
	 * not change the relation (not seen proves nothing). */
	size_t used = strlen(detail);
	if (obs->cross_detail[0] && used + 3 < len)
		snprintf(detail + used, len - used, "; %s", obs->cross_detail);
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
	isotier__kernel_id_self(&host);
	kernel_of(&sandbox, &obs->run[0].probe);
	char ident[300];
	isotier_kernel_relation said =
	    isotier__kernel_compare(&host, &sandbox, ident, sizeof ident);
	/* The host's own view first: what the sandbox prints can lower the
	 * relation to SHARED, never raise it to DEDICATED on its own. */
	if (obs->host == ISOTIER_HOST_SHARED) {
		obs->relation = ISOTIER_KERNEL_SHARED;
		snprintf(detail, len, "%.240s; %.150s", obs->host_detail, ident);
	} else if (said != ISOTIER_KERNEL_DEDICATED) {
		obs->relation = said;
		snprintf(detail, len, "%.150s; %.240s", ident, obs->host_detail);
	} else if (obs->host != ISOTIER_HOST_CLEAR) {
		snprintf(detail, len, "%.150s, but %.200s: kernel sharing is not excluded", ident,
		         obs->host_detail);
	} else if (!obs->run[0].probe.identity_trusted) {
		/* The identity the sandbox printed may be a bind mount: only
		 * the host's view stands, and it proves no kernel of its own. */
		int n =
		    snprintf(detail, len,
		             "%.150s, but the sandbox's identity inputs are not genuine (%.120s)",
		             ident, obs->run[0].probe.identity_problem);
		if (n > 0 && (size_t)n < len)
			snprintf(detail + n, len - (size_t)n, "; %s", obs->host_detail);
	} else {
		obs->relation = ISOTIER_KERNEL_DEDICATED;
		snprintf(detail, len, "%.150s; %.340s", ident, obs->host_detail);
	}
}

/* The observation's return: its first failure, in the order it happened. */
static int finish(isotier_observation *obs, isotier_error *err)
{
	const isotier_probe_run *first = &obs->run[0];
	int rc = 0;
	if (!obs->available)
		rc = isotier__error_set(&obs->err, ISOTIER_EUNAVAILABLE, 0, "%s: %s",
		                        obs->backend->name, obs->why);
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

/* What the host saw of the first run (see observe.h): obs->host and
 * obs->host_detail. Every path that cannot show a kernel of its own is
 * INCOMPLETE, never CLEAR. */
static void read_host_view(isotier_observation *obs, const isotier_probe_run *pr,
                           const isotier_host_view *v, int window_ms)
{
	char *d = obs->host_detail;
	size_t len = sizeof obs->host_detail;
	int64_t watched_ms = (v->stopped_us - v->started_us) / 1000;
	obs->host = ISOTIER_HOST_INCOMPLETE;
	obs->host_saw = v->saw;
	if (v->workload_seen) {
		obs->host = ISOTIER_HOST_SHARED;
		snprintf(d, len, "%s", v->workload_detail);
		return;
	}
	isotier_challenge_result cr = {.outcome = ISOTIER_CHALLENGE_UNANSWERED};
	if (v->pattern_failed || !v->n_segs) {
		const char *why = v->pattern_detail[0] ? v->pattern_detail : v->workload_detail;
		snprintf(d, len, "the host could not run its task-count challenge%s%.200s",
		         why[0] ? ": " : "", why);
	} else if (!pr->parsed)
		snprintf(d, len, "no usable probe output: the host's challenge was not answered");
	else
		isotier__challenge_judge(&cr, v->segs, v->n_segs, &pr->probe.run);
	if (cr.outcome == ISOTIER_CHALLENGE_SEEN) {
		obs->host = ISOTIER_HOST_SHARED;
		snprintf(d, len, "%s: the workload runs on the host's kernel", cr.detail);
		return;
	}
	if (!d[0] && watched_ms < window_ms) {
		/* The sandbox cannot have sampled for the whole window in less
		 * host time than that: its answer was not made while watched. */
		snprintf(
		    d, len,
		    "the sandbox answered in %lld ms, less than the %d ms its challenge takes: "
		    "the host could not watch it",
		    (long long)watched_ms, window_ms);
	} else if (!d[0] && cr.outcome == ISOTIER_CHALLENGE_UNANSWERED) {
		snprintf(d, len, "%.200s", cr.detail);
	} else if (!d[0]) {
		obs->host = ISOTIER_HOST_CLEAR;
		snprintf(d, len, "the host sees no workload process and %.200s", cr.detail);
	}
	/* What the host saw run the sandbox, in every case: a reader (and a
	 * test) can tell a VMM or runsc from a process of the same name. */
	size_t n = strlen(d);
	if (n + 1 < len) {
		/* Built whole, then cut to the detail's room. */
		char tail[400];
		snprintf(tail, sizeof tail, "; %s%.120s%s%s%.160s", v->saw ? "it saw " : "",
		         v->saw ? v->saw_detail : "it saw no VMM or runsc of this run start",
		         v->saw ? " start for this run" : "",
		         !v->saw && v->saw_refused[0] ? "; did not count: " : "",
		         !v->saw ? v->saw_refused : "");
		size_t t = strlen(tail);
		if (t > len - n - 1)
			t = len - n - 1;
		memcpy(d + n, tail, t);
		d[n + t] = '\0';
	}
}

/* Whether the short challenge left the host undecided where a longer one
 * may not: the probe ran and answered, the host's pattern ran, the host did
 * not see the workload, and the samples neither show the pattern nor cover
 * enough of it (a busy host stretches the slots and thins the samples). A
 * sandbox that could not read its count, or gave nothing usable, is not
 * asked again: more time would not change that. */
static bool challenge_unclear(const isotier_probe_run *pr, const isotier_host_view *v)
{
	if (pr->rc < 0 || !pr->parsed || v->workload_seen || v->pattern_failed || !v->n_segs ||
	    !pr->probe.run.challenge || pr->probe.run.challenge_error[0])
		return false;
	isotier_challenge_result cr;
	isotier__challenge_judge(&cr, v->segs, v->n_segs, &pr->probe.run);
	return cr.outcome == ISOTIER_CHALLENGE_UNANSWERED;
}

/* One run into obs->run[obs->n_runs]; obs->rc gets its failure. */
static void run_once(isotier_observation *obs, void *state, const isotier_observe_opts *o)
{
	isotier_probe_run *pr = &obs->run[obs->n_runs++];
	bool watched = obs->n_runs == 1 && host_watched(obs->backend);
	isotier_host_view view = {0};
	isotier_error nerr = {0};
	int window_ms = ISOTIER_CHALLENGE_MS;
	if (isotier__nonce_new(obs->nonce, &nerr) < 0) {
		pr->rc = obs->rc = nerr.code;
		pr->err = obs->err = nerr;
		return;
	}
	bool viewed = false;
	/* A bound exec runs its command after the first report: no second run
	 * can follow, so it samples the long window at once. */
	window_ms = o->bound ? ISOTIER_CHALLENGE_LONG_MS : ISOTIER_CHALLENGE_MS;
	exec_probe(obs, pr, obs->backend, state, o, obs->nonce, window_ms, watched ? &view : NULL,
	           &viewed);
	/* The short window could not tell (a busy host): again, with a fresh
	 * nonce, for the long one, twice at most; what the last shows decides.
	 * The first run's capture stays (the probe writes one only once). */
	for (int retry = 0; watched && !o->bound && retry < 2 && challenge_unclear(pr, &view);
	     retry++) {
		isotier__host_view_clear(&view);
		free(pr->out);
		isotier__probe_result_clear(&pr->probe);
		*pr = (isotier_probe_run){0};
		if (isotier__nonce_new(obs->nonce, &nerr) < 0) {
			pr->rc = obs->rc = nerr.code;
			pr->err = obs->err = nerr;
			return;
		}
		exec_probe(obs, pr, obs->backend, state, o, obs->nonce, ISOTIER_CHALLENGE_LONG_MS,
		           &view, &viewed);
		window_ms = ISOTIER_CHALLENGE_LONG_MS;
	}
	if (watched && !viewed)
		read_host_view(obs, pr, &view, window_ms);
	isotier__host_view_clear(&view);
	obs->ran = true;
	if (pr->rc < 0 && obs->rc == 0) {
		obs->rc = pr->rc;
		obs->err = pr->err;
	}
}

int isotier__observe_in(isotier_observation *obs, const isotier_backend *b, void *state,
                        const isotier_observe_opts *opts, isotier_error *err)
{
	observe_start(obs, b);
	int64_t t0 = isotier__now_ms();
	run_once(obs, state, opts);
	obs->exec_ms = isotier__now_ms() - t0;
	relate(obs);
	return finish(obs, err);
}

/* The observation's backend's available() into obs (a thread's body, or
 * called in place). */
static void *ask_available(void *arg)
{
	isotier_observation *obs = arg;
	int64_t t0 = isotier__now_ms();
	obs->available = obs->backend->available(obs->why, sizeof obs->why) == 1;
	obs->available_ms = isotier__now_ms() - t0;
	return NULL;
}

/*
 * Whether the backend can run here is asked beside its provision, not
 * before it: an engine's answer is its daemon's (`docker info`, about
 * 100 ms), as long as the provision itself, and neither needs the other.
 * Nothing runs in a sandbox before the answer is in: an unavailable
 * backend's provisioned state is destroyed unrun, and the observation is
 * the unavailable one it would have been (its provision's error, a
 * consequence of the same cause, is dropped).
 */
static void observe_local(isotier_observation *obs, const isotier_observe_opts *o)
{
	const isotier_backend *b = obs->backend;
	isotier_backend_spec spec = {.probe_path = o->probe_path,
	                             .capture_dir = o->capture_dir,
	                             .timeout_s = o->timeout_s,
	                             .minimal_root = true,
	                             .cancel_fd = o->cancel_fd};
	pthread_t asker;
	bool asking = pthread_create(&asker, NULL, ask_available, obs) == 0;
	if (!asking)
		ask_available(obs);
	void *state = NULL;
	int64_t t0 = isotier__now_ms();
	obs->rc = b->provision(&state, &spec, &obs->err);
	int64_t t1 = isotier__now_ms();
	obs->provision_ms = t1 - t0;
	if (asking)
		pthread_join(asker, NULL);
	if (!obs->available) {
		if (obs->rc == 0 && state)
			b->destroy(state);
		obs->rc = 0;
		obs->err = (isotier_error){0};
		return;
	}
	if (obs->rc < 0)
		return;
	run_once(obs, state, o);
	fetch_capture(obs, state, o);
	int64_t t2 = isotier__now_ms();
	obs->exec_ms = t2 - t1;
	b->destroy(state);
	obs->destroy_ms = isotier__now_ms() - t2;
}

/* Releases a remote sandbox; one that may still exist goes to obs->leaks. */
static void release_remote(isotier_observation *obs, void *state)
{
	const isotier_backend *b = obs->backend;
	isotier_error e = {0};
	int rc = b->release ? b->release(state, &e) : (b->destroy(state), 0);
	if (rc < 0) {
		size_t n = strlen(obs->leaks);
		snprintf(obs->leaks + n, sizeof obs->leaks - n, "%s%.400s", n ? "; " : "",
		         e.message);
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
	/* The cross-sandbox challenge's runs fit in it too, or are skipped
	 * (observe_cross.h): the sandboxes' lifetimes follow this deadline. */
	int64_t wall = o->remote_wall_ms > 0 ? o->remote_wall_ms : (3LL * timeout_s + 60) * 1000;
	isotier_backend_spec spec = {.probe_path = o->probe_path,
	                             .timeout_s = o->timeout_s,
	                             .cancel_fd = o->cancel_fd,
	                             .deadline_ms = isotier__now_ms() + wall};
	/* The first sandbox's capture is fetched (its backend's fetch()); the
	 * second's is not: it is run for its kernel identity only. */
	isotier_observe_opts second_opts = *o;
	second_opts.capture_dir = NULL;
	void *state[2] = {NULL, NULL};
	int64_t t0 = isotier__now_ms();
	/* An existing sandbox (the caller's) is attached, never created; the
	 * second, isotier's own, is created like it. */
	isotier_backend_spec second_spec = spec;
	if (o->attach_id) {
		obs->attached = true;
		obs->rc = b->attach
		              ? b->attach(&state[0], &spec, o->attach_id, obs->attached_like,
		                          sizeof obs->attached_like, &obs->err)
		              : isotier__error_set(&obs->err, ISOTIER_EINVAL, 0,
		                                   "%s cannot verify an existing sandbox", b->name);
		second_spec.like = obs->attached_like;
	} else {
		obs->rc = b->provision(&state[0], &spec, &obs->err);
	}
	if (obs->rc == 0 && isotier__cancelled(o->cancel_fd))
		obs->rc = isotier__error_set(&obs->err, ISOTIER_EINTR, 0, "interrupted");
	else if (obs->rc == 0 && (obs->rc = b->provision(&state[1], &second_spec, &obs->err)) < 0)
		isotier__error_prefix(&obs->err, "second sandbox");
	int64_t t1 = isotier__now_ms();
	obs->provision_ms = t1 - t0;
	if (obs->rc == 0 && b->describe)
		b->describe(state[0], obs->note, sizeof obs->note);
	if (obs->rc == 0) {
		run_once(obs, state[0], o);
		fetch_capture(obs, state[0], o);
		/* The second run's failure is not the observation's: the first
		 * sandbox was observed; its kernel stays UNCOMPARED (relate). */
		if (obs->rc == 0) {
			char nonce[33];
			isotier_probe_run *second = &obs->run[obs->n_runs++];
			if (isotier__nonce_new(nonce, &second->err) < 0)
				second->rc = second->err.code;
			else {
				bool viewed = false;
				exec_probe(obs, second, b, state[1], &second_opts, nonce, 0, NULL,
				           &viewed);
			}
			/* Only two sandboxes that both answered are challenged: the
			 * step can only lower their relation (relate_siblings). */
			if (obs->run[0].parsed && second->parsed)
				isotier__cross_challenge(obs, state[0], state[1], o,
				                         spec.deadline_ms);
			else
				snprintf(obs->cross_detail, sizeof obs->cross_detail,
				         "cross-sandbox challenge not run: a sandbox gave no "
				         "usable output");
		}
	}
	int64_t t2 = isotier__now_ms();
	obs->exec_ms = t2 - t1;
	for (int i = 1; i >= 0; i--)
		if (state[i])
			release_remote(obs, state[i]);
	obs->destroy_ms = isotier__now_ms() - t2;
}

int isotier__observe(isotier_observation *obs, const isotier_backend *b,
                     const isotier_observe_opts *opts, isotier_error *err)
{
	observe_start(obs, b);
	if (isotier__cancelled(opts->cancel_fd)) {
		obs->rc = isotier__error_set(&obs->err, ISOTIER_EINTR, 0, "interrupted");
		return finish(obs, err);
	}
	if (b->remote || opts->attach_id) { /* a local sandbox asks beside its provision */
		ask_available(obs);
		if (!obs->available)
			return finish(obs, err);
	}
	if (b->remote)
		observe_remote(obs, opts);
	else if (opts->attach_id) /* only a provider's sandbox exists beforehand */
		obs->rc = isotier__error_set(
		    &obs->err, ISOTIER_EINVAL, 0,
		    "%s: a local backend has no existing sandbox to verify", b->name);
	else
		observe_local(obs, opts);
	if (!obs->available)
		return finish(obs, err);
	relate(obs);
	return finish(obs, err);
}

void isotier__observation_clear(isotier_observation *obs)
{
	if (!obs)
		return;
	for (size_t i = 0; i < 2; i++) {
		free(obs->run[i].out);
		obs->run[i].out = NULL;
		isotier__probe_result_clear(&obs->run[i].probe);
		obs->run[i].parsed = false;
		isotier__probe_result_clear(&obs->attest_out[i]);
		obs->attest_out_parsed[i] = false;
	}
}
