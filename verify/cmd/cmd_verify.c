/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_verify.c - `isotier verify`: run the probe in each backend, judge the
 * catalogue's claim for it, record one observation per backend.
 *
 * Threads: up to --jobs workers each run one backend at a time (available ->
 * provision -> exec probe -> destroy -> pack the capture); the main thread
 * parses, judges, writes SQLite (one connection, one transaction per
 * observation) and prints. SIGINT/SIGTERM are blocked in every thread and
 * stay pending: cancel.c's signalfd, readable then, is every job's backend
 * calls' cancel_fd (their children's process groups are killed, cleanup
 * still runs), and the main thread asks cancel.c which signal it was.
 *
 * Exit status, most severe first: 130 interrupted (143: SIGTERM); 1 a
 * CONTRADICTED verdict (a contradiction alerts even when another backend
 * failed); 2 a claim that could not be proven (INCONCLUSIVE against a real
 * claim although the probe ran: a VM not shown to be the sandbox's own, a
 * probe that could not tell or was not confident); 75 history database locked (74 unusable: no such
 * directory, disk full; 65 not a database or a newer schema); 70 a probe run failed (timeout, exec
 * error); 69 a backend named with --backend unavailable (with --all: every backend unavailable,
 * or none with a claim verified), or a runtime that did not start its sandbox; 65
 * bad data (probe output rejected, catalogue file invalid); 0 otherwise (INCONCLUSIVE for lack of a
 * claim is 0).
 *
 * A lock another process holds past --busy-timeout while an observation is
 * being stored is waited out again (history_retry.h: at least three attempts,
 * more until the run's deadline); an observation still not stored is named
 * with its verdict, the summary never says "stored in" for it, the ones after
 * it are still tried, and the run row is marked finished if the lock allows.
 */
#include "../run/cancel.h"
#include "../sources/catalogue_commit.h"
#include "cli.h"
#include "cli_options.h"
#include "../run/leftovers.h"
#include "../history/history_retry.h"
#include "../history/observations.h"
#include "../run/verify_run.h"
#include "../run/verify_steps.h"
#include "../../reference/api/isotier_tool.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* ---- the command ------------------------------------------------------- */

enum {
	OPT_BACKEND = 'b',
	OPT_ALL = 'a',
	OPT_DB = 'd',
	OPT_CATALOGUE = 'c',
	OPT_JOBS = 'j',
	OPT_TIMEOUT = 't',
	OPT_HOST_PROVIDER = 'p',
	OPT_BUSY_TIMEOUT = 'B',
	OPT_JSON = 'J',
	OPT_ATTEST = 'A',
	OPT_NO_EVIDENCE = 'E',
	OPT_PROVIDER = 'P',
	OPT_SANDBOX_ID = 'S',
};

static const struct cli_option options[] = {
    CLI_CHECKED_OPTION("backend", OPT_BACKEND, "NAME", cli_check_backend,
                       "verify this backend (repeatable); default: --all"),
    CLI_FLAG_OPTION(
        "all", OPT_ALL,
        "every backend this build knows (remote ones only when\ntheir credentials are set)"),
    /* Spelled out rather than "{}": the default's text with the path is
     * wider than one help line. */
    CLI_CHECKED_OPTION("db", OPT_DB, "PATH", cli_check_db,
                       "history database (default $ISOTIER_DB, else\n" ISOTIER_DEFAULT_DB
                       ": the host's history, which\ncreate() and `isotier run` read)"),
    CLI_TEXT_OPTION("catalogue", OPT_CATALOGUE, "DIR",
                    "provider catalogue (default: the source tree's)"),
    CLI_NUMBER_OPTION("jobs", OPT_JOBS, "N", 1, 64,
                      "backends run concurrently (default 4); a verdict left\n"
                      "INCONCLUSIVE by their load is verified again alone\n"
                      "at the end"),
    CLI_NUMBER_OPTION("timeout", OPT_TIMEOUT, "S", 1, 86400, "per probe run (default 60)"),
    CLI_TEXT_OPTION("host-provider", OPT_HOST_PROVIDER, "ID",
                    "catalogue entry whose claim the `host` backend is\njudged by"),
    CLI_NUMBER_OPTION("busy-timeout", OPT_BUSY_TIMEOUT, "MS", 1, 3600000,
                      "wait this long for a locked database (default 5000;\n"
                      "env ISOTIER_BUSY_TIMEOUT_MS); storing an observation\n"
                      "tries again (at least 3 times, up to the run's\n"
                      "deadline) before it reports it NOT stored"),
    CLI_FLAG_OPTION("json", OPT_JSON, "print a JSON document instead of the table"),
    CLI_FLAG_OPTION("attest", OPT_ATTEST,
                    "also ask this host's hardware for attestation (SEV-SNP,\n"
                    "TDX via configfs-tsm) and say what it proves; no TSM:\n"
                    "\"no attestation available\"; no verdict changes (a\n"
                    "remote backend's sandboxes are always asked)"),
    CLI_FLAG_OPTION("no-evidence", OPT_NO_EVIDENCE,
                    "keep no capture: no capture directory, the probe not\n"
                    "asked for its raw inputs; verdicts unchanged (each\n"
                    "observation says \"no evidence kept (not asked)\")"),
    CLI_CHECKED_OPTION(
        "provider", OPT_PROVIDER, "NAME", cli_check_provider,
        "with --sandbox-id: the remote provider (e2b, daytona,\nfly, vercel) whose sandbox it is"),
    CLI_CHECKED_OPTION("sandbox-id", OPT_SANDBOX_ID, "ID", cli_check_sandbox_id,
                       "verify this existing sandbox, created with the\n"
                       "provider's SDK (never deleted; a second one is\n"
                       "created like it for the cross challenge, then\n"
                       "deleted); never CONFIRMED"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "verify",
    .synopsis = "usage: isotier verify [--backend NAME]... | --all [--db PATH] [--catalogue DIR]\n"
                "                      [--jobs N] [--timeout S] [--host-provider ID]\n"
                "                      [--busy-timeout MS] [--json] [--attest] [--no-evidence]\n"
                "       isotier verify --provider NAME --sandbox-id ID [--db PATH] [--json] ...",
    .about = "Runs isotier-probe inside each backend, judges the catalogue's claim for it\n"
             "(CONFIRMED, CONSISTENT, EXCEEDS, NOT_CONTRADICTED, CONTRADICTED, INCONCLUSIVE,\n"
             "UNAVAILABLE) and records one observation per backend in the history database.",
    .options = options,
    .epilogue = "Probe: $ISOTIER_PROBE, else isotier-probe beside this executable. Every probe\n"
                "run carries a fresh nonce its report must echo. For a local backend this host\n"
                "decides kernel sharing itself: the probe seen in its own process table, or its\n"
                "random task-count pattern seen in the probe's samples (--challenge, ~0.6 s),\n"
                "puts the sandbox on the host's kernel. A vm layer counts toward a MICROVM claim\n"
                "only when the host saw a VMM start for the run and neither showed sharing (its\n"
                "boot_id and btime then differ from this host's); a gvisor layer only when it\n"
                "saw runsc and no sharing; a sandbox on the host's kernel is judged by its own\n"
                "innermost boundary. A remote backend (e2b) starts two sandboxes and compares\n"
                "their kernels with each other instead; what they show is the provider's\n"
                "testimony, so a remote claim above CONTAINER they do not contradict is\n"
                "NOT_CONTRADICTED (not proven: no hardware attestation; exit 0, and never what\n"
                "--require-verified needs).\n\n"
                "--provider NAME --sandbox-id ID verifies a sandbox the caller created with the\n"
                "provider's SDK: the same probe, nonce and cross challenge, its second sandbox\n"
                "created by isotier like the caller's (same template, snapshot or image when the\n"
                "provider reports it) and deleted; the caller's is left running (the probe stays\n"
                "in its /tmp/isotier). The verdict is NOT_CONTRADICTED at best, never CONFIRMED,\n"
                "attested or not; the row is marked an existing sandbox. 64 a bad id; 66 no such\n"
                "sandbox at the provider (nothing stored).\n\n"
                "Exit: 0 nothing contradicted or unproven; 1 a CONTRADICTED verdict (even when\n"
                "something else failed too); 2 a claim that could not be proven (INCONCLUSIVE\n"
                "against a claim although the probe ran: an alert, see runbook/drift.md); 64\n"
                "usage; 65 bad data (probe output rejected, catalogue invalid); 69 a requested\n"
                "backend unavailable (--all: every one, or no sandbox backend verified), or a\n"
                "runtime that did not start its sandbox (the runtime's own cause named); 70 a\n"
                "probe run failed or timed out; 74\n"
                "database unusable; 75 database locked (any observation not stored is named,\n"
                "with its verdict); 130 interrupted (143 by SIGTERM). A remote sandbox that\n"
                "could not be deleted is named (LEAK) and the exit status is 70 unless\n"
                "interrupted.",
};

typedef struct verify_opts {
	const char *names[32];
	size_t n_names;
	bool all, json, attest, no_evidence;
	const char *db, *catalogue, *host_provider;
	const char *provider, *sandbox_id; /* --provider, --sandbox-id */
	int jobs, timeout_s, busy_ms;
} verify_opts;

/* One option the table checked already (a known backend, a usable --db, a
 * number in range). */
static int on_option(void *ctx, int key, const char *value, int number)
{
	verify_opts *o = ctx;
	switch (key) {
	case OPT_BACKEND:
		if (o->n_names == sizeof o->names / sizeof *o->names) {
			cli_error("--backend: too many");
			return EXIT_USAGE;
		}
		o->names[o->n_names++] = value;
		break;
	case OPT_ALL: o->all = true; break;
	case OPT_DB: o->db = value; break;
	case OPT_CATALOGUE: o->catalogue = value; break;
	case OPT_HOST_PROVIDER: o->host_provider = value; break;
	case OPT_JOBS: o->jobs = number; break;
	case OPT_TIMEOUT: o->timeout_s = number; break;
	case OPT_BUSY_TIMEOUT: o->busy_ms = number; break;
	case OPT_JSON: o->json = true; break;
	case OPT_ATTEST: o->attest = true; break;
	case OPT_NO_EVIDENCE: o->no_evidence = true; break;
	case OPT_PROVIDER: o->provider = value; break;
	case OPT_SANDBOX_ID: o->sandbox_id = value; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

/* -1 when the run goes ahead, else the exit status (0 after --help). */
static int parse_args(verify_opts *o, int argc, char **argv)
{
	*o = (verify_opts){
	    .db = isotier__default_db_path(), .jobs = 4, .timeout_s = 60, .busy_ms = 5000};
	/* The environment first: --busy-timeout given overrides it. */
	const char *env = getenv("ISOTIER_BUSY_TIMEOUT_MS");
	if (env && *env &&
	    cli_parse_int("ISOTIER_BUSY_TIMEOUT_MS", env, 1, 3600000, &o->busy_ms) < 0)
		return EXIT_USAGE;
	int rc = cli_parse(&spec, argc, argv, on_option, o, NULL);
	if (rc)
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	if (o->all && o->n_names) {
		cli_error("verify: --all and --backend exclude each other");
		return EXIT_USAGE;
	}
	/* An existing sandbox: one provider, named once; the job is that
	 * provider's backend with the id (plan_jobs). */
	if (!o->provider != !o->sandbox_id) {
		cli_error("verify: --provider and --sandbox-id go together");
		return EXIT_USAGE;
	}
	if (o->provider && (o->all || o->n_names)) {
		cli_error(
		    "verify: --sandbox-id verifies one existing sandbox: no --all or --backend");
		return EXIT_USAGE;
	}
	if (o->provider)
		o->names[o->n_names++] = o->provider;
	if (!o->n_names)
		o->all = true;
	if (!o->catalogue)
		o->catalogue = cli_default_catalogue();
	return -1;
}

/* --attest: this host's own hardware evidence, verified like a remote
 * sandbox's (attest_host); it changes no verdict (ADR-0020). On stderr with
 * --json, so the document stays one. */
static void print_host_attestation(const char *probe, int timeout_s, bool json)
{
	attest_verdict v;
	isotier_error err = {0};
	int rc = isotier__attest_host(&v, probe, timeout_s, cli_cancel_fd(), &err);
	FILE *f = json ? stderr : stdout;
	fputs("attestation (this host): ", f);
	if (rc == 1)
		fprintf(f, "%s: %s; measurement %s, %s\n", isotier__attest_judged_phrase(&v, 1),
		        v.detail, v.measurement, v.measurement_judged);
	else if (rc == 0)
		fprintf(f, "%s; verdicts unchanged\n", v.detail);
	else
		fprintf(f, "refused: %s; verdicts unchanged\n",
		        v.detail[0] ? v.detail : err.message);
}

/* A remote backend's whole observation (two sandboxes) may take
 * $ISOTIER_REMOTE_WALL_S seconds; 0 (unset or out of range): the library's
 * default, 3 x --timeout + 60 s. */
static int64_t remote_wall_ms(void)
{
	const char *env = getenv("ISOTIER_REMOTE_WALL_S");
	long v = env && *env ? strtol(env, NULL, 10) : 0;
	return v > 0 && v <= 86400 ? (int64_t)v * 1000 : 0;
}

/* The signal that stopped the run, 0 when none came. The workers' backend
 * calls saw it already, through the cancel descriptor; no new job starts. */
static int poll_signal(verify_ctx *ctx)
{
	if (!ctx->signal)
		ctx->signal = cli_cancel_signal();
	if (ctx->signal)
		__atomic_store_n(&ctx->stop, true, __ATOMIC_RELEASE);
	return ctx->signal;
}

/* Between two attempts at a locked database: a signal ends the waiting. */
static bool stop_retrying(void *arg)
{
	return poll_signal(arg) != 0;
}

/* The claims: the catalogue, its errors printed (*bad_data set) and kept in
 * *findings (plan_jobs matches them to backends), and the entry
 * --host-provider names. -1 when loaded, else the exit status (*findings
 * freed). */
static int load_claims(isotier_catalogue **cat, const isotier_provider **host_claim,
                       isotier_findings *findings, const verify_opts *o, bool *bad_data)
{
	isotier_error err = {0};
	*findings = (isotier_findings){0};
	*cat = NULL;
	*host_claim = NULL;
	if (isotier__catalogue_load_effective(cat, o->catalogue, false, findings, &err) < 0) {
		isotier__findings_free(findings);
		cli_error("catalogue %s: %s", o->catalogue, err.message);
		return EXIT_DATAERR;
	}
	*bad_data = findings->n_errors > 0;
	for (size_t i = 0; i < findings->n; i++)
		if (findings->items[i].severity == ISOTIER_FINDING_ERROR)
			cli_error("catalogue: %s: %s: %s", findings->items[i].file,
			          findings->items[i].field, findings->items[i].message);
	if (o->host_provider && !(*host_claim = isotier__catalogue_find(*cat, o->host_provider))) {
		const char *ids[512];
		size_t n_ids = 0;
		for (size_t i = 0; i < (*cat)->n_providers && n_ids < 512; i++)
			ids[n_ids++] = (*cat)->providers[i].id;
		const char *hint = cli_suggest(o->host_provider, ids, n_ids);
		cli_error("--host-provider: no catalogue entry '%s' in %s%s%s%s", o->host_provider,
		          o->catalogue, hint ? " (did you mean '" : "", hint ? hint : "",
		          hint ? "'?)" : "");
		isotier__findings_free(findings);
		isotier__catalogue_free(*cat);
		*cat = NULL;
		return EXIT_USAGE;
	}
	return -1;
}

/* The jobs, in registry order (or the order named), each with its claim;
 * a claim that did not load (in findings) or validate is printed and sets
 * *bad_data. NULL when out of memory. */
static job *plan_jobs(size_t *n_out, const verify_opts *o, const isotier_catalogue *cat,
                      const isotier_provider *host_claim, isotier_findings *findings,
                      bool *bad_data)
{
	size_t n_jobs = o->all ? isotier__backend_count() : o->n_names;
	job *jobs = calloc(n_jobs ? n_jobs : 1, sizeof *jobs);
	if (!jobs)
		return NULL;
	size_t nj = 0;
	for (size_t i = 0; i < n_jobs; i++) {
		const isotier_backend *b =
		    o->all ? isotier__backend_at(i) : isotier__backend_lookup(o->names[i]);
		bool dup = false;
		for (size_t k = 0; k < nj; k++)
			dup |= jobs[k].backend == b;
		char why[256];
		/* --all includes a remote backend only when it is configured: a
		 * provider one has no account with is no failure of this run. */
		if (dup || (o->all && b->remote && b->available(why, sizeof why) != 1))
			continue;
		job *j = &jobs[nj++];
		j->backend = b;
		j->explicit_ = !o->all;
		j->attach_id = o->sandbox_id;
		if (b->observes_host)
			j->claim = host_claim;
		else if (b->catalogue_id)
			j->claim = isotier__catalogue_find(cat, b->catalogue_id);
	}
	flag_invalid_claims(jobs, nj, cat, findings);
	for (size_t i = 0; i < nj; i++)
		if (jobs[i].claim_invalid[0]) {
			*bad_data = true;
			cli_error("%s: %s", jobs[i].backend->name, jobs[i].claim_invalid);
		}
	*n_out = nj;
	return jobs;
}

/* What the backend reported besides the probe's output, in the reason the
 * observation keeps. */
static void add_backend_notes(job *j)
{
	size_t n = strlen(j->reason);
	if (j->obs.note[0]) {
		snprintf(j->reason + n, sizeof j->reason - n, "; %s reported: %.250s",
		         j->backend->name, j->obs.note);
		n = strlen(j->reason);
	}
	if (j->obs.capture_problem[0]) {
		snprintf(j->reason + n, sizeof j->reason - n, "; capture not kept: %.300s",
		         j->obs.capture_problem);
		n = strlen(j->reason);
	}
	if (j->obs.leaks[0])
		snprintf(j->reason + n, sizeof j->reason - n, "; LEAKED: %.400s", j->obs.leaks);
}

/* The next job a worker finished, waiting at most 100 ms. NULL with *over
 * set when the run was stopped and no job is still running. */
static job *next_finished(verify_ctx *ctx, bool *over)
{
	*over = false;
	pthread_mutex_lock(&ctx->lock);
	job *ready = NULL;
	for (size_t i = 0; i < ctx->n_jobs && !ready; i++)
		if (ctx->jobs[i].done && !ctx->jobs[i].handled)
			ready = &ctx->jobs[i];
	bool all_taken = ctx->next >= ctx->n_jobs || __atomic_load_n(&ctx->stop, __ATOMIC_ACQUIRE);
	if (!ready) {
		struct timespec until = isotier__time_after_ms(CLOCK_REALTIME, 100);
		pthread_cond_timedwait(&ctx->cond, &ctx->lock, &until);
	}
	pthread_mutex_unlock(&ctx->lock);
	if (ready)
		return ready;
	/* Stopped: the jobs no worker took will not run. */
	bool busy = false;
	pthread_mutex_lock(&ctx->lock);
	for (size_t i = 0; i < ctx->n_jobs; i++)
		busy |= (&ctx->jobs[i] < ctx->jobs + ctx->next) && !ctx->jobs[i].done;
	pthread_mutex_unlock(&ctx->lock);
	*over = __atomic_load_n(&ctx->stop, __ATOMIC_ACQUIRE) && all_taken && !busy;
	return NULL;
}

static bool quiet_retry_due(const job *j, const verify_opts *o);

/* The job's observation row, retried on a busy history; a row not stored is
 * said at once and fails the run (out->db_error). */
static void store_job(job *j, const verify_opts *o, isotier_history *h, int64_t run_id,
                      const history_retry_policy *policy, verify_outcome *out)
{
	struct record_arg ra = {.h = h, .run_id = run_id, .j = j, .jobs = o->jobs};
	isotier_error rec_err = {0};
	int64_t t0 = isotier__now_ms();
	if (history_retry(record_job, &ra, policy, NULL, &rec_err) < 0) {
		out->db_error = true;
		out->db_err = rec_err;
		out->db_waited = isotier__now_ms() - t0;
		cli_error("observation of %s NOT stored in %s: verdict %s", j->backend->name, o->db,
		          isotier__verdict_name(j->verdict));
	} else {
		j->recorded = true;
	}
}

/* In the main thread, as the workers finish: judge each job, store its
 * observation (its own attempts: a lock that outlasted one backend's may be
 * gone by the next one's), show progress. */
static void judge_and_store(verify_ctx *ctx, const verify_opts *o, isotier_history *h,
                            int64_t run_id, int64_t run_deadline, verify_outcome *out)
{
	bool tty = isatty(STDERR_FILENO);
	history_retry_policy policy = {
	    .min_attempts = 3, .deadline_ms = run_deadline, .stop = stop_retrying, .stop_arg = ctx};
	for (size_t handled = 0; handled < ctx->n_jobs;) {
		bool over;
		job *ready = next_finished(ctx, &over);
		if (poll_signal(ctx))
			out->interrupted = true;
		if (!ready) {
			if (over)
				break;
			continue;
		}
		ready->handled = true;
		handled++;
		/* No such sandbox at the provider: nothing of it was observed,
		 * no row (a mistyped id is no finding about the provider). */
		if (ready->obs.attached && ready->obs.rc == ISOTIER_ENOTFOUND) {
			ready->skipped = out->not_found = true;
			cli_error("%s: %s", ready->backend->name, ready->obs.err.message);
			continue;
		}
		if (out->interrupted && ready->obs.rc == ISOTIER_EINTR) {
			ready->skipped = true; /* cut short: no row for it */
			if (ready->obs.leaks[0])
				cli_error("LEAK: %s: %s", ready->backend->name, ready->obs.leaks);
			continue;
		}
		judge_job(ready, o->host_provider);
		add_backend_notes(ready);
		pthread_mutex_lock(&ctx->lock);
		verify_job_overlap(ready, ctx);
		pthread_mutex_unlock(&ctx->lock);
		store_job(ready, o, h, run_id, &policy, out);
		ready->retry_alone = quiet_retry_due(ready, o);
		if (tty && !o->json)
			print_progress(ready, handled, ctx->n_jobs);
	}
}

/*
 * Whether a verdict was left INCONCLUSIVE by this run's own load: the host's
 * checks of the sandbox could not complete (its challenge unanswered: the
 * slots stretched, the samples thinned) while other sandboxes of this run
 * shared the CPUs. Such a job runs once more at the end, alone (quiet_retries):
 * the scheduled job on a small host would otherwise alert on what its own
 * --jobs did. A retry is a whole new verification (new sandbox, nonce,
 * challenge); the first observation stays in the history; a job alone, or
 * one already retried, is not run again: load from outside this run is not
 * waited out, it is reported.
 */
static bool quiet_retry_due(const job *j, const verify_opts *o)
{
	return o->jobs > 1 && !j->retried_alone && j->overlap > 1 && j->obs.available &&
	       j->obs.rc == 0 && j->verdict == VERDICT_INCONCLUSIVE &&
	       j->obs.host == ISOTIER_HOST_INCOMPLETE;
}

/* After the workers: each job quiet_retry_due marked, alone on this thread,
 * judged and stored as a second observation of the run. */
static void quiet_retries(verify_ctx *ctx, const verify_opts *o, isotier_history *h, int64_t run_id,
                          verify_outcome *out)
{
	for (size_t i = 0; i < ctx->n_jobs; i++) {
		job *j = &ctx->jobs[i];
		if (!j->retry_alone || out->interrupted || poll_signal(ctx))
			continue;
		cli_error("%s: INCONCLUSIVE beside %d sandboxes of this run (the host's checks "
		          "could not complete): verifying it again alone",
		          j->backend->name, j->overlap - 1);
		j->first_overlap = j->overlap;
		j->retry_alone = false;
		j->retried_alone = true;
		isotier__observation_clear(&j->obs);
		evidence_tar_free(&j->evidence);
		memset(&j->evidence, 0, sizeof j->evidence);
		j->recorded = j->rejected = j->start_failed = j->unproven = j->attested = false;
		j->reason[0] = '\0';
		verify_job_run_alone(j, ctx);
		if (poll_signal(ctx) && j->obs.rc == ISOTIER_EINTR) {
			out->interrupted = true;
			j->skipped = true;
			continue;
		}
		judge_job(j, o->host_provider);
		add_backend_notes(j);
		size_t n = strlen(j->reason);
		snprintf(j->reason + n, sizeof j->reason - n,
		         "; verified again alone: the first attempt, beside %d other sandboxes of "
		         "this run, was INCONCLUSIVE",
		         j->first_overlap - 1);
		history_retry_policy policy = {.min_attempts = 3,
		                               .deadline_ms = isotier__now_ms() +
		                                              ((int64_t)o->timeout_s + 5) * 1000,
		                               .stop = stop_retrying,
		                               .stop_arg = ctx};
		store_job(j, o, h, run_id, &policy, out);
	}
}

static int verify_main(int argc, char **argv)
{
	verify_opts o;
	int arc = parse_args(&o, argc, argv);
	if (arc >= 0)
		return arc;
	signal(SIGPIPE, SIG_IGN);
	/* Before any thread exists: SIGINT/SIGTERM become the cancel descriptor. */
	if (cli_cancel_start() < 0) {
		cli_error("cannot watch SIGINT/SIGTERM");
		return EXIT_SOFTWARE;
	}
	int64_t wall0 = isotier__now_ms();
	/* verify runs on the host: its own kernel is the one every sandbox that
	 * shares the host's kernel reports. */
	char probe[PATH_MAX];
	if (isotier__default_probe_path(probe, sizeof probe) != 0 || access(probe, X_OK) != 0) {
		cli_error("no isotier-probe (set ISOTIER_PROBE, or build it beside isotier): %s",
		          probe);
		return EXIT_UNAVAIL;
	}
	verify_outcome out = {0};
	isotier_catalogue *cat = NULL;
	const isotier_provider *host_claim = NULL;
	isotier_findings findings;
	int lrc = load_claims(&cat, &host_claim, &findings, &o, &out.bad_data);
	if (lrc >= 0)
		return lrc;
	size_t n_jobs = 0;
	job *jobs = plan_jobs(&n_jobs, &o, cat, host_claim, &findings, &out.bad_data);
	isotier__findings_free(&findings);
	if (!jobs) {
		isotier__catalogue_free(cat);
		cli_error("out of memory");
		return EXIT_SOFTWARE;
	}
	/* The sandboxes first: the catalogue's commit (libgit2), the history's
	 * opening and the sweep of leftovers are the main thread's, done while
	 * the workers provision and run the probe, off the proof's critical
	 * path. The workers need neither (they observe; judging and storing
	 * stay here). A history that cannot be opened stops the run before
	 * anything is judged or stored. */
	size_t n_threads = (size_t)o.jobs < n_jobs ? (size_t)o.jobs : n_jobs;
	verify_ctx ctx = {.jobs = jobs,
	                  .n_jobs = n_jobs,
	                  .probe_path = probe,
	                  .timeout_s = o.timeout_s,
	                  .remote_wall_ms = remote_wall_ms(),
	                  .no_evidence = o.no_evidence,
	                  .cancel_fd = cli_cancel_fd()};
	pthread_mutex_init(&ctx.lock, NULL);
	pthread_cond_init(&ctx.cond, NULL);
	pthread_t tids[64];
	size_t started = 0;
	for (; started < n_threads; started++)
		if (pthread_create(&tids[started], NULL, verify_worker_main, &ctx) != 0)
			break;
	char commit[64];
	isotier_catalogue_commit(commit, sizeof commit, o.catalogue);
	if (!commit[0]) /* not in git: say so rather than leave it blank */
		snprintf(commit, sizeof commit, "unknown");
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	int64_t run_id = 0;
	if (isotier__history_open(&h, o.db, o.busy_ms, &err) < 0 ||
	    isotier__history_run_begin(h, &run_id, "verify", commit, &err) < 0) {
		/* Nothing will be stored: no job more, the running ones end
		 * (each within its timeout, its sandbox destroyed) unjudged. */
		__atomic_store_n(&ctx.stop, true, __ATOMIC_RELEASE);
		for (size_t i = 0; i < started; i++)
			pthread_join(tids[i], NULL);
		for (size_t i = 0; i < n_jobs; i++) {
			isotier__observation_clear(&jobs[i].obs);
			evidence_tar_free(&jobs[i].evidence);
		}
		pthread_mutex_destroy(&ctx.lock);
		pthread_cond_destroy(&ctx.cond);
		free(jobs);
		isotier__catalogue_free(cat);
		return verify_db_fail(&err, o.db, o.busy_ms);
	}
	/* What runs killed unseen left behind goes first (leftovers.h); best
	 * effort. This run's own leases name a live owner: never swept. */
	isotier_error sweep_err = {0};
	if (leftovers_sweep(h, NULL, NULL, &sweep_err) < 0)
		cli_error("sweep: %s", sweep_err.message);
	/* A lock held past --busy-timeout while observations are being stored
	 * is waited out, attempt after attempt, until the run's deadline: every
	 * probe round's timeout plus some slack for provisioning (at least
	 * three attempts each). */
	int64_t rounds = n_threads ? (int64_t)((n_jobs + n_threads - 1) / n_threads) : 1;
	int64_t run_deadline = wall0 + rounds * ((int64_t)o.timeout_s + 5) * 1000;
	if (!started && n_jobs)
		verify_worker_main(&ctx); /* no thread could start: run them here */
	judge_and_store(&ctx, &o, h, run_id, run_deadline, &out);
	__atomic_store_n(&ctx.stop, true, __ATOMIC_RELEASE);
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (poll_signal(&ctx))
		out.interrupted = true;
	quiet_retries(&ctx, &o, h, run_id, &out);

	int failure;
	bool alerted;
	int rc = verify_exit_status(&failure, &alerted, jobs, n_jobs, o.all, ctx.signal, &out);
	if (out.not_found && rc == EXIT_OK)
		rc = failure = EXIT_NOINPUT;
	/* "ok": every backend was run and judged (a CONTRADICTED verdict is a
	 * finding of a run that worked); "failed": something kept it from that. */
	const char *status = out.interrupted ? "interrupted" : failure == EXIT_OK ? "ok" : "failed";
	/* Best effort, waited for like the observations: a run left 'running'
	 * reads as one still in progress. A signal already came, so the waiting
	 * is bounded by the attempts and deadline alone. */
	struct record_arg ra = {.h = h, .run_id = run_id, .status = status};
	history_retry_policy end_policy = {.min_attempts = 3, .deadline_ms = run_deadline};
	isotier_error end_err = {0};
	int64_t t_end = isotier__now_ms();
	bool run_ended = history_retry(end_run, &ra, &end_policy, NULL, &end_err) == 0;
	if (!run_ended) {
		if ((end_err.db_code & 0xff) == ISOTIER_DB_IOERR) {
			/* The run's one sync (its durability point) may have
			 * failed: nothing it stored is known to survive a power
			 * loss. */
			cli_error("run %lld: its observations are NOT known to be stored: the "
			          "history could not be synced",
			          (long long)run_id);
			for (size_t i = 0; i < n_jobs; i++)
				jobs[i].recorded = false;
		} else {
			cli_error("run %lld could not be marked %s; it still reads 'running'",
			          (long long)run_id, status);
		}
		if (!out.db_error) {
			out.db_error = true;
			out.db_err = end_err;
			out.db_waited = isotier__now_ms() - t_end;
		}
	}
	if (out.db_error) {
		int db_rc = verify_db_fail(&out.db_err, o.db, out.db_waited); /* prints why */
		if (!alerted)
			rc = db_rc;
	}
	int64_t wall = isotier__now_ms() - wall0;
	char db_shown[512]; /* a history URI without its password */
	isotier__history_display(o.db, db_shown, sizeof db_shown);
	if (o.json)
		print_json(jobs, n_jobs, o.jobs, run_id, db_shown, commit, wall, out.interrupted,
		           rc, run_ended);
	else
		print_summary(jobs, n_jobs, o.jobs, run_id, db_shown, commit, wall, run_ended);
	if (o.attest && !out.interrupted)
		print_host_attestation(probe, o.timeout_s, o.json);
	if (out.interrupted)
		cli_error(
		    "interrupted: run %lld marked interrupted; finished observations are kept",
		    (long long)run_id);
	for (size_t i = 0; i < n_jobs; i++) {
		isotier__observation_clear(&jobs[i].obs);
		evidence_tar_free(&jobs[i].evidence);
	}
	free(jobs);
	pthread_mutex_destroy(&ctx.lock);
	pthread_cond_destroy(&ctx.cond);
	isotier__catalogue_free(cat);
	cli_cancel_stop();
	fflush(stdout);
	return rc;
}

const struct cli_command cli_verify = {
    .name = "verify",
    .summary = "run the probe in each backend and judge the catalogue's claims",
    .main = verify_main,
};
