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
 * probe that could not tell or was not confident); 75 history database locked (74 unusable: no such directory, disk
 * full; 65 not a database or a newer schema); 70 a probe run failed (timeout,
 * exec error); 69 a backend named with --backend unavailable (with --all: every
 * backend unavailable); 65 bad data (probe output rejected, catalogue file
 * invalid); 0 otherwise (INCONCLUSIVE for lack of a claim is 0).
 *
 * A lock another process holds past --busy-timeout while an observation is
 * being stored is waited out again (history_retry.h: at least three attempts,
 * more until the run's deadline); an observation still not stored is named
 * with its verdict, the summary never says "stored in" for it, the ones after
 * it are still tried, and the run row is marked finished if the lock allows.
 */
#include "cancel.h"
#include "cli.h"
#include "history_retry.h"
#include "observations.h"
#include "verify_run.h"

#include "../reference/proc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <sqlite3.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

/* ---- judging and recording, on the main thread ------------------------- */

/* How the sandbox's kernel relates to this host's; a backend that observes
 * the host itself is the host. */
static isotier_kernel_relation relate_kernel(job *j, const isotier_kernel_id *host,
                                             char *detail, size_t len)
{
	if (j->backend->remote)
		return relate_remote(j, detail, len);
	if (j->backend->observes_host) {
		snprintf(detail, len, "the backend observes the host itself");
		return ISOTIER_KERNEL_SELF;
	}
	isotier_kernel_id sandbox = {.btime = j->probe.btime};
	snprintf(sandbox.boot_id, sizeof sandbox.boot_id, "%s", j->probe.boot_id);
	return isotier_kernel_compare(host, &sandbox, detail, len);
}

/* Does finding f concern the entry that claims job j's backend? */
static bool finding_is_for(const isotier_finding *f, const job *j)
{
	if (j->claim && j->claim->file && f->file && !strcmp(f->file, j->claim->file))
		return true;
	const char *id = j->claim ? j->claim->id : j->backend->catalogue_id;
	const char *base = f->file ? strrchr(f->file, '/') : NULL;
	base = base ? base + 1 : f->file;
	size_t n = id ? strlen(id) : 0;
	return base && n && !strncmp(base, id, n) && !strcmp(base + n, ".json");
}

/*
 * An entry that does not load or validate must not be judged as if it made
 * no claim, nor as a claim that stands: the backend's verdict says which file
 * and field, and verify exits 65. Source age is not checked here (how old a
 * source may be is resolve's and the report's business).
 */
static void flag_invalid_claims(job *jobs, size_t n, const isotier_catalogue *cat,
                                isotier_findings *load)
{
	char today[16];
	isotier_today(today, sizeof today);
	isotier_catalogue_validate(cat, today, 36500, load);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < load->n && !jobs[i].claim_invalid[0]; k++) {
			const isotier_finding *f = &load->items[k];
			if (f->severity == ISOTIER_FINDING_ERROR && finding_is_for(f, &jobs[i]))
				snprintf(jobs[i].claim_invalid, sizeof jobs[i].claim_invalid,
				         "catalogue entry %.200s does not validate: %.80s%s%.200s",
				         f->file, f->field, f->field[0] ? ": " : "", f->message);
		}
}

static void judge_job(job *j, const char *host_provider, const isotier_kernel_id *host)
{
	j->ceiling = PROBE_TIER_UNKNOWN;
	j->unproven = false;
	j->relation = ISOTIER_KERNEL_UNCOMPARED;
	judge_claim claim = {.present = j->claim != NULL};
	if (j->claim) {
		claim.tier = j->claim->tier;
		claim.mechanism = j->claim->mechanism;
	}
	if (!j->available) {
		j->verdict = VERDICT_UNAVAILABLE;
		snprintf(j->reason, sizeof j->reason, "backend unavailable: %s", j->why);
		return;
	}
	if (j->rc < 0) {
		j->verdict = VERDICT_INCONCLUSIVE;
		snprintf(j->reason, sizeof j->reason, "probe run failed: %.600s", j->err.message);
		return;
	}
	isotier_error perr = {0};
	if (j->out_over)
		isotier_error_set(&perr, ISOTIER_EDATA, 0, "output larger than %d bytes",
		                  PROBE_RESULT_MAX_BYTES);
	else if (probe_result_parse(&j->probe, j->out, j->out_len, &perr) == 0)
		perr.code = 0;
	if (perr.code) {
		j->rejected = true;
		j->verdict = VERDICT_INCONCLUSIVE;
		/* The last line the sandbox printed on stderr says why, usually. */
		char tail[160] = "";
		size_t n = strlen(j->errtxt);
		while (n && (j->errtxt[n - 1] == '\n' || j->errtxt[n - 1] == '\r'))
			j->errtxt[--n] = '\0';
		const char *nl = strrchr(j->errtxt, '\n');
		if (n)
			snprintf(tail, sizeof tail, "; stderr: %.140s", nl ? nl + 1 : j->errtxt);
		snprintf(j->reason, sizeof j->reason,
		         "probe output rejected: %.600s (probe exit status %d%.159s)", perr.message,
		         j->exit_status, tail);
		return;
	}
	char kdetail[300];
	j->relation = relate_kernel(j, host, kdetail, sizeof kdetail);
	judge_kernel kernel = {.relation = j->relation, .detail = kdetail};
	judge_result jr;
	judge(&jr, &claim, &j->probe, &kernel);
	j->verdict = jr.verdict;
	j->ceiling = jr.ceiling;
	j->unproven = jr.unproven;
	if (j->claim_invalid[0]) {
		/* A claim that does not validate is not judged (bad data, 65); what
		 * was observed is still recorded, ceiling included. */
		j->verdict = VERDICT_INCONCLUSIVE;
		j->unproven = false;
		snprintf(j->reason, sizeof j->reason, "%s", j->claim_invalid);
		return;
	}
	const char *reason = jr.reason;
	/* judge() says "no claim to judge; observed ...": say which claim is missing. */
	const char *observed = strstr(reason, "observed ");
	if (!j->claim && j->backend->observes_host && !host_provider)
		snprintf(j->reason, sizeof j->reason, "no claim (pass --host-provider); %s",
		         observed ? observed : reason);
	else if (!j->claim)
		snprintf(j->reason, sizeof j->reason, "no catalogue entry claims backend %s; %s",
		         j->backend->name, observed ? observed : reason);
	else
		snprintf(j->reason, sizeof j->reason, "%s", reason);
}

struct record_arg {
	isotier_history *h;
	int64_t run_id;
	job *j;
	const char *status; /* run_end's */
};

static int record_job(void *arg, isotier_error *err)
{
	struct record_arg *a = arg;
	isotier_history *h = a->h;
	int64_t run_id = a->run_id;
	job *j = a->j;
	bool parsed = !j->rejected && j->available && j->rc == 0;
	observation o = {
	    .run_id = run_id,
	    .backend = j->backend->name,
	    .provider_id = j->claim ? j->claim->id : NULL,
	    .claimed_tier = j->claim ? isotier_tier_name(j->claim->tier) : NULL,
	    .claimed_mechanism = j->claim ? j->claim->mechanism : NULL,
	    .observed_tier = parsed ? probe_tier_name(j->probe.observed) : "UNKNOWN",
	    .observed_vendor = parsed ? probe_result_vendor(&j->probe) : NULL,
	    .confidence = parsed ? j->probe.confidence_text : NULL,
	    .layers_json = parsed ? j->probe.layers_json : NULL,
	    .verdict = judge_verdict_name(j->verdict),
	    .reason = j->reason,
	    .probe_json = parsed ? j->probe.doc_json : j->out,
	    .probe_json_len = parsed ? strlen(j->probe.doc_json) : j->out_len,
	    .evidence = j->evidence.data,
	    .evidence_len = j->evidence.len,
	    .evidence_format = EVIDENCE_FORMAT,
	    .duration_ms = j->total_ms,
	    .kernel_relation = parsed ? isotier_kernel_relation_name(j->relation) : NULL,
	    .ceiling_tier = parsed && j->ceiling != PROBE_TIER_UNKNOWN ? probe_tier_name(j->ceiling)
	                                                                : NULL,
	};
	if (o.observed_vendor && !*o.observed_vendor)
		o.observed_vendor = NULL;
	return observations_insert(h, &o, NULL, err);
}

static int end_run(void *arg, isotier_error *err)
{
	struct record_arg *a = arg;
	return isotier_history_run_end(a->h, a->run_id, a->status, err);
}

/* ---- output -------------------------------------------------------------- */

static void claim_text(char *buf, size_t len, const job *j)
{
	if (j->claim)
		snprintf(buf, len, "%s (%s)", isotier_tier_name(j->claim->tier),
		         j->claim->mechanism ? j->claim->mechanism : "-");
	else
		snprintf(buf, len, "-");
}

static void observed_text(char *buf, size_t len, const job *j)
{
	bool parsed = !j->rejected && j->available && j->rc == 0;
	const char *vendor = parsed ? probe_result_vendor(&j->probe) : "";
	if (!parsed)
		snprintf(buf, len, "-");
	else if (*vendor)
		snprintf(buf, len, "%s (%s)", probe_tier_name(j->probe.observed), vendor);
	else
		snprintf(buf, len, "%s", probe_tier_name(j->probe.observed));
}

static void print_cell(FILE *f, const char *s, int width)
{
	isotier_fputs_inline(f, s);
	for (int k = (int)strlen(s); k < width; k++)
		fputc(' ', f);
}

static void print_progress(const job *j, size_t index, size_t total)
{
	char observed[160];
	observed_text(observed, sizeof observed, j);
	char line[512];
	snprintf(line, sizeof line, "[%zu/%zu] %s: %s, observed %s (%lld ms)", index, total,
	         j->backend->name, judge_verdict_name(j->verdict), observed,
	         (long long)j->total_ms);
	fputs("isotier: ", stderr);
	isotier_fputs_sanitized(stderr, line);
	fputc('\n', stderr);
}

static void print_summary(const job *jobs, size_t n, int64_t run_id, const char *db,
                          const char *commit, int64_t wall_ms, bool run_ended)
{
	printf("%-14s%-26s%-28s%-14s%s\n", "BACKEND", "CLAIMED", "OBSERVED", "VERDICT", "TIME");
	for (size_t i = 0; i < n; i++) {
		const job *j = &jobs[i];
		if (!j->handled || j->skipped)
			continue;
		char claim[160], observed[160], t[32];
		claim_text(claim, sizeof claim, j);
		observed_text(observed, sizeof observed, j);
		snprintf(t, sizeof t, "%lld ms", (long long)j->total_ms);
		print_cell(stdout, j->backend->name, 14);
		print_cell(stdout, claim, 26);
		print_cell(stdout, observed, 28);
		print_cell(stdout, judge_verdict_name(j->verdict), 14);
		print_cell(stdout, t, 0);
		fputc('\n', stdout);
	}
	printf("\n");
	for (size_t i = 0; i < n; i++)
		if (jobs[i].handled && !jobs[i].skipped) {
			printf("%s: ", jobs[i].backend->name);
			isotier_fputs_inline(stdout, jobs[i].reason);
			fputc('\n', stdout);
		}
	size_t lost = 0;
	for (size_t i = 0; i < n; i++)
		lost += jobs[i].handled && !jobs[i].skipped && !jobs[i].recorded;
	printf("\nrun %lld: %lld ms, catalogue %s, ", (long long)run_id, (long long)wall_ms,
	       commit);
	if (!lost) {
		fputs("stored in ", stdout);
		isotier_fputs_sanitized(stdout, db);
	} else {
		printf("%zu observation%s NOT stored (database ", lost, lost == 1 ? "" : "s");
		isotier_fputs_sanitized(stdout, db);
		fputs("):", stdout);
		for (size_t i = 0; i < n; i++)
			if (jobs[i].handled && !jobs[i].skipped && !jobs[i].recorded)
				printf(" %s", jobs[i].backend->name);
	}
	if (!run_ended)
		printf("; the run could not be marked finished");
	fputc('\n', stdout);
}

static void print_json(const job *jobs, size_t n, int64_t run_id, const char *db,
                       const char *commit, int64_t wall_ms, bool interrupted, int exit_code,
                       bool run_ended)
{
	cJSON *doc = cJSON_CreateObject();
	if (!doc)
		return;
	cJSON_AddStringToObject(doc, "schema", "isotier.verify/1");
	cJSON_AddNumberToObject(doc, "run_id", (double)run_id);
	cJSON_AddStringToObject(doc, "db", db);
	cJSON_AddStringToObject(doc, "catalogue_commit", commit);
	cJSON_AddStringToObject(doc, "tool_version", ISOTIER_VERSION);
	cJSON_AddBoolToObject(doc, "interrupted", interrupted);
	cJSON_AddNumberToObject(doc, "exit_code", exit_code);
	cJSON_AddNumberToObject(doc, "wall_ms", (double)wall_ms);
	bool all_recorded = true;
	for (size_t i = 0; i < n; i++)
		all_recorded &= !jobs[i].handled || jobs[i].skipped || jobs[i].recorded;
	cJSON_AddBoolToObject(doc, "stored", all_recorded);
	cJSON_AddBoolToObject(doc, "run_finished", run_ended);
	cJSON *arr = cJSON_AddArrayToObject(doc, "results");
	for (size_t i = 0; arr && i < n; i++) {
		const job *j = &jobs[i];
		if (!j->handled || j->skipped)
			continue;
		bool parsed = !j->rejected && j->available && j->rc == 0;
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "backend", j->backend->name);
		cJSON_AddBoolToObject(o, "available", j->available);
		if (j->claim) {
			cJSON_AddStringToObject(o, "provider_id", j->claim->id);
			cJSON_AddStringToObject(o, "claimed_tier",
			                        isotier_tier_name(j->claim->tier));
			cJSON_AddStringToObject(o, "claimed_mechanism",
			                        j->claim->mechanism ? j->claim->mechanism : "");
		} else {
			cJSON_AddNullToObject(o, "provider_id");
			cJSON_AddNullToObject(o, "claimed_tier");
			cJSON_AddNullToObject(o, "claimed_mechanism");
		}
		cJSON_AddStringToObject(o, "observed_tier",
		                        parsed ? probe_tier_name(j->probe.observed) : "UNKNOWN");
		const char *vendor = parsed ? probe_result_vendor(&j->probe) : "";
		if (*vendor)
			cJSON_AddStringToObject(o, "observed_vendor", vendor);
		else
			cJSON_AddNullToObject(o, "observed_vendor");
		if (parsed) {
			cJSON_AddStringToObject(o, "confidence", j->probe.confidence_text);
			cJSON *layers = cJSON_Parse(j->probe.layers_json);
			if (layers)
				cJSON_AddItemToObject(o, "layers", layers);
		}
		cJSON_AddStringToObject(o, "verdict", judge_verdict_name(j->verdict));
		cJSON_AddBoolToObject(o, "unproven", j->unproven);
		if (parsed) {
			cJSON_AddStringToObject(o, "kernel_relation",
			                        isotier_kernel_relation_name(j->relation));
			if (j->ceiling != PROBE_TIER_UNKNOWN)
				cJSON_AddStringToObject(o, "ceiling_tier", probe_tier_name(j->ceiling));
			else
				cJSON_AddNullToObject(o, "ceiling_tier");
		}
		cJSON_AddStringToObject(o, "reason", j->reason);
		cJSON_AddBoolToObject(o, "remote", j->backend->remote);
		if (j->leaks[0])
			cJSON_AddStringToObject(o, "leaked", j->leaks);
		else
			cJSON_AddNullToObject(o, "leaked");
		cJSON_AddBoolToObject(o, "recorded", j->recorded);
		cJSON_AddNumberToObject(o, "duration_ms", (double)j->total_ms);
		cJSON *t = cJSON_AddObjectToObject(o, "timings_ms");
		if (t) {
			cJSON_AddNumberToObject(t, "available", (double)j->available_ms);
			cJSON_AddNumberToObject(t, "provision", (double)j->provision_ms);
			cJSON_AddNumberToObject(t, "exec", (double)j->exec_ms);
			cJSON_AddNumberToObject(t, "destroy", (double)j->destroy_ms);
			cJSON_AddNumberToObject(t, "evidence", (double)j->evidence_ms);
		}
		if (parsed && j->probe.duration_us >= 0)
			cJSON_AddNumberToObject(o, "probe_duration_us",
			                        (double)j->probe.duration_us);
		cJSON_AddNumberToObject(o, "evidence_bytes", (double)j->evidence.len);
	}
	char *text = isotier_json_print(doc, true);
	cJSON_Delete(doc);
	if (text) {
		puts(text);
		cJSON_free(text);
	}
}

/* ---- the command ------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: isotier verify [--backend NAME]... | --all [--db PATH] [--catalogue DIR]\n"
	       "                      [--jobs N] [--timeout S] [--host-provider ID]\n"
	       "                      [--busy-timeout MS] [--json]\n\n"
	       "Runs isotier-probe inside each backend, judges the catalogue's claim for it\n"
	       "(CONFIRMED, CONSISTENT, EXCEEDS, CONTRADICTED, INCONCLUSIVE, UNAVAILABLE) and\n"
	       "records one observation per backend in the history database.\n"
	       "  --backend NAME     verify this backend (repeatable); default: --all\n"
	       "  --all              every backend this build knows (remote ones only when\n"
	       "                     their credentials are set)\n"
	       "  --db PATH          history database (default ./" ISOTIER_DEFAULT_DB ")\n"
	       "  --catalogue DIR    provider catalogue (default: the source tree's)\n"
	       "  --jobs N           backends run concurrently (default 4)\n"
	       "  --timeout S        per probe run (default 60)\n"
	       "  --host-provider ID catalogue entry whose claim the `host` backend is judged by\n"
	       "  --busy-timeout MS  wait this long for a locked database (default 5000;\n"
	       "                     env ISOTIER_BUSY_TIMEOUT_MS); storing an observation\n"
	       "                     tries again (at least 3 times, up to the run's\n"
	       "                     deadline) before it reports it NOT stored\n"
	       "  --json             print a JSON document instead of the table\n"
	       "Probe: $ISOTIER_PROBE, else isotier-probe beside this executable.\n"
	       "A vm layer counts toward a MICROVM claim only when the sandbox's kernel is\n"
	       "shown to be its own (its boot_id differs from this host's); a sandbox on the\n"
	       "host's kernel is judged by its own innermost boundary. A remote backend (e2b)\n"
	       "starts two sandboxes and compares their kernels with each other instead.\n"
	       "Exit: 0 nothing contradicted or unproven; 1 a CONTRADICTED verdict (even when\n"
	       "something else failed too); 2 a claim that could not be proven (INCONCLUSIVE\n"
	       "against a claim although the probe ran: an alert, see runbook/drift.md); 64 usage; 65 bad data (probe output rejected, catalogue\n"
	       "invalid); 69 a requested backend unavailable (--all: every one); 70 a probe\n"
	       "run failed or timed out; 74 database unusable; 75 database locked (any\n"
	       "observation not stored is named, with its verdict);\n"
	       "130 interrupted (143 by SIGTERM). A remote sandbox that could not be\n"
	       "deleted is named (LEAK) and the exit status is 70 unless interrupted.\n");
}

typedef struct verify_opts {
	const char *names[32];
	size_t n_names;
	bool all, json;
	const char *db, *catalogue, *host_provider;
	int jobs, timeout_s, busy_ms;
} verify_opts;

static int parse_args(verify_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"backend", required_argument, NULL, 'b'},
	    {"all", no_argument, NULL, 'a'},
	    {"db", required_argument, NULL, 'd'},
	    {"catalogue", required_argument, NULL, 'c'},
	    {"jobs", required_argument, NULL, 'j'},
	    {"timeout", required_argument, NULL, 't'},
	    {"host-provider", required_argument, NULL, 'p'},
	    {"busy-timeout", required_argument, NULL, 'B'},
	    {"json", no_argument, NULL, 'J'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	*o = (verify_opts){.db = ISOTIER_DEFAULT_DB, .jobs = 4, .timeout_s = 60, .busy_ms = 5000};
	const char *env = getenv("ISOTIER_BUSY_TIMEOUT_MS");
	if (env && *env && cli_parse_int("ISOTIER_BUSY_TIMEOUT_MS", env, 1, 3600000, &o->busy_ms) < 0)
		return EXIT_USAGE;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (!isotier_backend_lookup(optarg)) {
				{
			const char *hint = cli_suggest_backend(optarg);
			cli_error("--backend: unknown backend '%s'%s%s%s", optarg, hint ? " (did you mean '" : "",
			          hint ? hint : "", hint ? "'?)" : "");
		}
				fprintf(stderr, "known backends:");
				for (size_t i = 0; i < isotier_backend_count(); i++)
					fprintf(stderr, " %s", isotier_backend_at(i)->name);
				fputc('\n', stderr);
				return EXIT_USAGE;
			}
			if (o->n_names == sizeof o->names / sizeof *o->names) {
				cli_error("--backend: too many");
				return EXIT_USAGE;
			}
			o->names[o->n_names++] = optarg;
			break;
		case 'a': o->all = true; break;
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			o->db = optarg;
			break;
		case 'c': o->catalogue = optarg; break;
		case 'p': o->host_provider = optarg; break;
		case 'j':
			if (cli_parse_int("--jobs", optarg, 1, 64, &o->jobs) < 0)
				return EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_int("--timeout", optarg, 1, 86400, &o->timeout_s) < 0)
				return EXIT_USAGE;
			break;
		case 'B':
			if (cli_parse_int("--busy-timeout", optarg, 1, 3600000, &o->busy_ms) < 0)
				return EXIT_USAGE;
			break;
		case 'J': o->json = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case ':': cli_error("verify: %s needs a value", argv[optind - 1]); return EXIT_USAGE;
		default: return cli_unknown_option("verify", argv[optind - 1], opts, usage);
		}
	}
	if (optind < argc) {
		cli_error("verify: unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (o->all && o->n_names) {
		cli_error("verify: --all and --backend exclude each other");
		return EXIT_USAGE;
	}
	if (!o->n_names)
		o->all = true;
	if (!o->catalogue)
		o->catalogue = cli_default_catalogue();
	return -1;
}

static int db_fail(const isotier_error *err, const char *db, int64_t waited_ms)
{
	if (history_locked(err)) {
		char msg[ISOTIER_ERROR_MESSAGE_MAX + 256];
		snprintf(msg, sizeof msg,
		         "history database %s is locked by another process (waited %lld ms; "
		         "--busy-timeout MS waits longer): %s",
		         db, (long long)waited_ms, err->message);
		cli_error("%s", msg);
		return EXIT_TEMPFAIL;
	}
	/* Not a lock: retrying will not help. A schema this build does not know
	 * is bad data; anything else (no such directory, not a database, disk
	 * full) an I/O error. */
	cli_error("history database %s: %s", db, err->message);
	return err->code == ISOTIER_EDATA || (err->db_code & 0xff) == SQLITE_NOTADB ? EXIT_DATAERR
	                                                                          : EXIT_IOERR;
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
	int64_t wall0 = isotier_now_ms();
	/* verify runs on the host: its own kernel is the one every sandbox that
	 * shares the host's kernel reports. */
	isotier_kernel_id host_kernel;
	isotier_kernel_id_self(&host_kernel);

	char probe[PATH_MAX];
	if (isotier_default_probe_path(probe, sizeof probe) != 0 || access(probe, X_OK) != 0) {
		cli_error("no isotier-probe (set ISOTIER_PROBE, or build it beside isotier): %s",
		          probe);
		return EXIT_UNAVAIL;
	}

	isotier_error err = {0};
	isotier_findings findings = {0};
	isotier_catalogue *cat = NULL;
	if (isotier_catalogue_load(&cat, o.catalogue, &findings, &err) < 0) {
		isotier_findings_free(&findings);
		cli_error("catalogue %s: %s", o.catalogue, err.message);
		return EXIT_DATAERR;
	}
	bool bad_data = findings.n_errors > 0;
	for (size_t i = 0; i < findings.n; i++)
		if (findings.items[i].severity == ISOTIER_FINDING_ERROR)
			cli_error("catalogue: %s: %s: %s", findings.items[i].file,
			          findings.items[i].field, findings.items[i].message);
	const isotier_provider *host_claim = NULL;
	if (o.host_provider && !(host_claim = isotier_catalogue_find(cat, o.host_provider))) {
		const char *ids[512];
		size_t n_ids = 0;
		for (size_t i = 0; i < cat->n_providers && n_ids < 512; i++)
			ids[n_ids++] = cat->providers[i].id;
		const char *hint = cli_suggest(o.host_provider, ids, n_ids);
		cli_error("--host-provider: no catalogue entry '%s' in %s%s%s%s", o.host_provider,
		          o.catalogue, hint ? " (did you mean '" : "", hint ? hint : "",
		          hint ? "'?)" : "");
		isotier_findings_free(&findings);
		isotier_catalogue_free(cat);
		return EXIT_USAGE;
	}

	/* The jobs, in registry order (or the order named). */
	size_t n_jobs = o.all ? isotier_backend_count() : o.n_names;
	job *jobs = calloc(n_jobs ? n_jobs : 1, sizeof *jobs);
	if (!jobs) {
		isotier_findings_free(&findings);
		isotier_catalogue_free(cat);
		cli_error("out of memory");
		return EXIT_SOFTWARE;
	}
	size_t nj = 0;
	for (size_t i = 0; i < n_jobs; i++) {
		const isotier_backend *b =
		    o.all ? isotier_backend_at(i) : isotier_backend_lookup(o.names[i]);
		bool dup = false;
		for (size_t k = 0; k < nj; k++)
			dup |= jobs[k].backend == b;
		char why[256];
		/* --all includes a remote backend only when it is configured: a
		 * provider one has no account with is no failure of this run. */
		if (dup || (o.all && b->remote && b->available(why, sizeof why) != 1))
			continue;
		job *j = &jobs[nj++];
		j->backend = b;
		j->explicit_ = !o.all;
		if (b->observes_host)
			j->claim = host_claim;
		else if (!(j->claim = isotier_catalogue_find_backend(cat, b->name)) &&
		         b->catalogue_id)
			j->claim = isotier_catalogue_find(cat, b->catalogue_id);
	}
	n_jobs = nj;
	flag_invalid_claims(jobs, n_jobs, cat, &findings);

	isotier_findings_free(&findings);
	for (size_t i = 0; i < n_jobs; i++)
		if (jobs[i].claim_invalid[0]) {
			bad_data = true;
			cli_error("%s: %s", jobs[i].backend->name, jobs[i].claim_invalid);
		}
	char commit[64];
	isotier_catalogue_commit(commit, sizeof commit, o.catalogue);
	if (!commit[0]) /* not in git: say so rather than leave it blank */
		snprintf(commit, sizeof commit, "unknown");
	cleanup_history isotier_history *h = NULL;
	int64_t run_id = 0;
	if (isotier_history_open(&h, o.db, o.busy_ms, &err) < 0 ||
	    isotier_history_run_begin(h, &run_id, "verify", commit, &err) < 0) {
		free(jobs);
		isotier_catalogue_free(cat);
		return db_fail(&err, o.db, o.busy_ms);
	}
	/* A lock held past --busy-timeout while observations are being stored
	 * is waited out, attempt after attempt, until the run's deadline: every
	 * probe round's timeout plus some slack for provisioning (at least
	 * three attempts each). */
	size_t threads_wanted = (size_t)o.jobs < n_jobs ? (size_t)o.jobs : n_jobs;
	int64_t rounds =
	    threads_wanted ? (int64_t)((n_jobs + threads_wanted - 1) / threads_wanted) : 1;
	int64_t run_deadline = wall0 + rounds * ((int64_t)o.timeout_s + 5) * 1000;

	verify_ctx ctx = {.jobs = jobs,
	                  .n_jobs = n_jobs,
	                  .probe_path = probe,
	                  .timeout_s = o.timeout_s,
	                  .cancel_fd = cli_cancel_fd()};
	pthread_mutex_init(&ctx.lock, NULL);
	pthread_cond_init(&ctx.cond, NULL);
	size_t n_threads = threads_wanted;
	pthread_t tids[64];
	size_t started = 0;
	for (; started < n_threads; started++)
		if (pthread_create(&tids[started], NULL, verify_worker_main, &ctx) != 0)
			break;
	if (!started && n_jobs)
		verify_worker_main(&ctx); /* no thread could start: run them here */

	bool tty = isatty(STDERR_FILENO), interrupted = false, db_error = false;
	isotier_error db_err = {0};
	int64_t db_waited = 0;
	history_retry_policy policy = {
	    .min_attempts = 3, .deadline_ms = run_deadline, .stop = stop_retrying, .stop_arg = &ctx};
	size_t handled = 0;
	while (handled < n_jobs) {
		pthread_mutex_lock(&ctx.lock);
		job *ready = NULL;
		for (size_t i = 0; i < n_jobs && !ready; i++)
			if (jobs[i].done && !jobs[i].handled)
				ready = &jobs[i];
		bool all_taken = ctx.next >= n_jobs || __atomic_load_n(&ctx.stop, __ATOMIC_ACQUIRE);
		if (!ready) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&ctx.cond, &ctx.lock, &ts);
		}
		pthread_mutex_unlock(&ctx.lock);
		if (poll_signal(&ctx))
			interrupted = true;
		if (!ready) {
			/* Stopped: the jobs no worker took will not run. */
			bool busy = false;
			pthread_mutex_lock(&ctx.lock);
			for (size_t i = 0; i < n_jobs; i++)
				busy |= (&jobs[i] < jobs + ctx.next) && !jobs[i].done;
			pthread_mutex_unlock(&ctx.lock);
			if (__atomic_load_n(&ctx.stop, __ATOMIC_ACQUIRE) && all_taken && !busy)
				break;
			continue;
		}
		ready->handled = true;
		handled++;
		if (interrupted && ready->rc == ISOTIER_EINTR) {
			ready->skipped = true; /* cut short: no row for it */
			if (ready->leaks[0])
				cli_error("LEAK: %s: %s", ready->backend->name, ready->leaks);
			continue;
		}
		judge_job(ready, o.host_provider, &host_kernel);
		if (ready->note[0]) {
			size_t n = strlen(ready->reason);
			snprintf(ready->reason + n, sizeof ready->reason - n, "; %s reported: %.250s",
			         ready->backend->name, ready->note);
		}
		if (ready->leaks[0]) {
			size_t n = strlen(ready->reason);
			snprintf(ready->reason + n, sizeof ready->reason - n, "; LEAKED: %.400s",
			         ready->leaks);
		}
		/* Every observation gets its own attempts: a lock that outlasted
		 * one backend's may be gone by the next one's. */
		struct record_arg ra = {.h = h, .run_id = run_id, .j = ready};
		isotier_error rec_err = {0};
		int64_t t0 = isotier_now_ms();
		if (history_retry(record_job, &ra, &policy, NULL, &rec_err) < 0) {
			db_error = true;
			db_err = rec_err;
			db_waited = isotier_now_ms() - t0;
			cli_error("observation of %s NOT stored in %s: verdict %s",
			          ready->backend->name, o.db, judge_verdict_name(ready->verdict));
		} else {
			ready->recorded = true;
		}
		if (tty && !o.json)
			print_progress(ready, handled, n_jobs);
	}
	__atomic_store_n(&ctx.stop, true, __ATOMIC_RELEASE);
	for (size_t i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (poll_signal(&ctx))
		interrupted = true;

	/* The exit status, most severe first (see the top of this file). */
	bool contradicted = false, unproven = false, failed = false, unavailable_req = false,
	     leaked = false;
	size_t n_unavailable = 0, n_handled = 0;
	for (size_t i = 0; i < n_jobs; i++) {
		job *j = &jobs[i];
		if (!j->handled || j->skipped)
			continue;
		n_handled++;
		contradicted |= j->verdict == VERDICT_CONTRADICTED;
		unproven |= j->unproven;
		bad_data |= j->rejected;
		failed |= j->available && j->rc < 0;
		if (j->leaks[0]) {
			leaked = true;
			cli_error("LEAK: %s: %s (delete it by hand)", j->backend->name, j->leaks);
		}
		if (!j->available) {
			n_unavailable++;
			unavailable_req |= j->explicit_;
		}
	}
	if (o.all && n_handled && n_unavailable == n_handled)
		unavailable_req = true;
	/* An operational failure, most severe first; a contradiction outranks
	 * every one of them (it must alert even when another backend failed),
	 * a signal outranks everything (130 SIGINT, 143 SIGTERM). */
	int failure = db_error          ? EXIT_TEMPFAIL
	              : failed          ? EXIT_SOFTWARE
	              : unavailable_req ? EXIT_UNAVAIL
	              : bad_data        ? EXIT_DATAERR
	                                : EXIT_OK;
	/* A sandbox left running at a provider outranks a contradiction: it costs
	 * money until a person deletes it, and both are printed. */
	int rc = interrupted    ? (ctx.signal > 0 ? 128 + ctx.signal : EXIT_INTERRUPTED)
	         : leaked       ? EXIT_SOFTWARE
	         : contradicted ? EXIT_FINDING
	         : unproven     ? EXIT_UNPROVEN
	                        : failure;
	/* "ok": every backend was run and judged (a CONTRADICTED verdict is a
	 * finding of a run that worked); "failed": something kept it from that. */
	const char *status = interrupted ? "interrupted" : failure == EXIT_OK ? "ok" : "failed";
	/* Best effort, waited for like the observations: a run left 'running'
	 * reads as one still in progress. A signal already came, so the waiting
	 * is bounded by the attempts and deadline alone. */
	struct record_arg ra = {.h = h, .run_id = run_id, .status = status};
	history_retry_policy end_policy = {.min_attempts = 3, .deadline_ms = run_deadline};
	isotier_error end_err = {0};
	int64_t t_end = isotier_now_ms();
	bool run_ended = history_retry(end_run, &ra, &end_policy, NULL, &end_err) == 0;
	if (!run_ended) {
		cli_error("run %lld could not be marked %s; it still reads 'running'",
		          (long long)run_id, status);
		if (!db_error) {
			db_error = true;
			db_err = end_err;
			db_waited = isotier_now_ms() - t_end;
		}
	}
	if (db_error) {
		int db_rc = db_fail(&db_err, o.db, db_waited); /* prints why */
		if (!interrupted && !contradicted && !unproven)
			rc = db_rc;
	}
	int64_t wall = isotier_now_ms() - wall0;
	if (o.json)
		print_json(jobs, n_jobs, run_id, o.db, commit, wall, interrupted, rc, run_ended);
	else
		print_summary(jobs, n_jobs, run_id, o.db, commit, wall, run_ended);
	if (interrupted)
		cli_error(
		    "interrupted: run %lld marked interrupted; finished observations are kept",
		    (long long)run_id);
	for (size_t i = 0; i < n_jobs; i++) {
		free(jobs[i].out);
		free(jobs[i].out2);
		probe_result_clear(&jobs[i].probe2);
		evidence_tar_free(&jobs[i].evidence);
		probe_result_clear(&jobs[i].probe);
	}
	free(jobs);
	pthread_mutex_destroy(&ctx.lock);
	pthread_cond_destroy(&ctx.cond);
	isotier_catalogue_free(cat);
	cli_cancel_stop();
	fflush(stdout);
	return rc;
}

const struct cli_command cli_verify = {
    .name = "verify",
    .summary = "run the probe in each backend and judge the catalogue's claims",
    .main = verify_main,
};
