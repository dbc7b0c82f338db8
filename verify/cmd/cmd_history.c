/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_history.c - `isotier history`: verify observations, newest first,
 * filtered; `history show ID` (one observation and its evidence);
 * `history --sources` (the source checks). */
#include "cli.h"
#include "cli_options.h"
#include "../history/history_table.h"
#include "../history/observations.h"
#include "../report/report_model.h"
#include "../../reference/api/isotier_tool.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* One observation of the --json listing: streamed, one object at a time,
 * so memory stays bounded whatever --limit lets through. */
typedef struct json_stream {
	size_t n;
	int failed;
} json_stream;

static int print_json_row(void *ctx, const isotier_observation_listing *r)
{
	json_stream *js = ctx;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return js->failed = -1;
	cJSON_AddNumberToObject(o, "id", (double)r->id);
	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	add_str(o, "observed_at", r->observed_at);
	add_str(o, "backend", r->backend);
	add_str(o, "provider_id", r->provider_id);
	add_str(o, "claimed_tier", r->claimed_tier);
	add_str(o, "claimed_mechanism", r->claimed_mechanism);
	add_str(o, "observed_tier", r->observed_tier);
	add_str(o, "observed_vendor", r->observed_vendor);
	add_str(o, "confidence", r->confidence);
	add_str(o, "verdict", r->verdict);
	add_str(o, "reason", r->reason);
	add_str(o, "run_status", r->run_status);
	add_str(o, "catalogue_commit", r->catalogue_commit);
	add_str(o, "tool_version", r->tool_version);
	add_str(o, "host", r->host);
	add_str(o, "host_id", r->host_id);
	add_str(o, "uuid", r->uuid);
	cJSON_AddNumberToObject(o, "duration_ms", (double)r->duration_ms);
	history_json_sandbox_times(o, r);
	cJSON_AddNumberToObject(o, "evidence_bytes", (double)r->evidence_bytes);
	char *text = isotier__json_print(o, true);
	cJSON_Delete(o);
	if (!text)
		return js->failed = -1;
	fputs(js->n++ ? ",\n" : "\n", stdout);
	fputs(text, stdout);
	free(text);
	return ferror(stdout) ? (js->failed = -1) : 0;
}

static int print_json(isotier_history *h, const char *db, const observation_filter *f,
                      isotier_error *err)
{
	cJSON *head = cJSON_CreateString(db);
	char *db_json = head ? isotier__json_print(head, false) : NULL;
	cJSON_Delete(head);
	if (!db_json)
		return ISOTIER_ENOMEM;
	printf("{\n\t\"schema\":\t\"isotier.history/1\",\n\t\"db\":\t%s,\n\t\"observations\":\t[",
	       db_json);
	free(db_json);
	json_stream js = {0};
	int rc = isotier__history_list_observations(h, f, print_json_row, &js, err);
	if (rc < 0)
		return rc;
	if (js.failed)
		return ISOTIER_ENOMEM;
	fputs(js.n ? "]\n}\n" : "]\n}\n", stdout);
	return 0;
}

/* A row as the table shows it; strings owned. */
typedef struct observation_row {
	int64_t id, run_id;
	char *observed_at, *backend, *provider_id, *claimed_tier, *claimed_mechanism;
	char *observed_tier, *observed_vendor, *confidence, *verdict, *reason, *run_status,
	    *catalogue_commit, *tool_version, *host;
	int64_t duration_ms;
	int64_t evidence_bytes;
	char wall[32], cpu[32]; /* the sandbox's own (history_cell_wall, --wide) */
} observation_row;

/* The table's rows, copied (the table sizes its columns from all of them). */
typedef struct table_rows {
	observation_row *rows;
	size_t n, cap;
	bool oom;
} table_rows;

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		*oom = true;
	return d;
}

static int collect_row(void *ctx, const isotier_observation_listing *r)
{
	table_rows *t = ctx;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		observation_row *nr = realloc(t->rows, ncap * sizeof *nr);
		if (!nr)
			return t->oom = true, -1;
		t->rows = nr, t->cap = ncap;
	}
	observation_row *o = &t->rows[t->n++];
	*o = (observation_row){.id = r->id,
	                       .run_id = r->run_id,
	                       .duration_ms = r->duration_ms,
	                       .evidence_bytes = r->evidence_bytes};
	o->observed_at = dup_or_null(r->observed_at, &t->oom);
	o->backend = dup_or_null(r->backend, &t->oom);
	o->provider_id = dup_or_null(r->provider_id, &t->oom);
	o->claimed_tier = dup_or_null(r->claimed_tier, &t->oom);
	o->claimed_mechanism = dup_or_null(r->claimed_mechanism, &t->oom);
	o->observed_tier = dup_or_null(r->observed_tier, &t->oom);
	o->observed_vendor = dup_or_null(r->observed_vendor, &t->oom);
	o->confidence = dup_or_null(r->confidence, &t->oom);
	o->verdict = dup_or_null(r->verdict, &t->oom);
	o->reason = dup_or_null(r->reason, &t->oom);
	o->run_status = dup_or_null(r->run_status, &t->oom);
	o->catalogue_commit = dup_or_null(r->catalogue_commit, &t->oom);
	o->tool_version = dup_or_null(r->tool_version, &t->oom);
	o->host = dup_or_null(r->host, &t->oom);
	history_cell_wall(o->wall, sizeof o->wall, r);
	history_cell_cpu(o->cpu, sizeof o->cpu, r);
	return t->oom ? -1 : 0;
}

static void table_rows_free(table_rows *t)
{
	for (size_t i = 0; i < t->n; i++) {
		observation_row *r = &t->rows[i];
		free(r->observed_at), free(r->backend), free(r->provider_id), free(r->claimed_tier);
		free(r->claimed_mechanism), free(r->observed_tier), free(r->observed_vendor);
		free(r->confidence), free(r->verdict), free(r->reason), free(r->run_status);
		free(r->catalogue_commit), free(r->tool_version), free(r->host);
	}
	free(t->rows);
}

enum { NARROW = 8, WIDE = 14 };

static int print_table(const observation_row *rows, size_t n, bool wide)
{
	static const char *const narrow_hdr[NARROW] = {"ID",      "TIME",     "RUN",     "BACKEND",
	                                               "CLAIMED", "OBSERVED", "VERDICT", "REASON"};
	static const int narrow_caps[NARROW] = {6, 20, 4, 12, 9, 9, 12, 0};
	static const char *const wide_hdr[WIDE] = {
	    "ID",      "TIME", "RUN",     "BACKEND",   "PROVIDER", "CLAIMED", "OBSERVED",
	    "VERDICT", "HOST", "ISOTIER", "CATALOGUE", "WALL",     "CPU",     "REASON"};
	static const int wide_caps[WIDE] = {0};
	size_t ncol = wide ? WIDE : NARROW;
	const char **cells = calloc(n ? n * ncol : 1, sizeof *cells);
	char(*nums)[2][24] = calloc(n ? n : 1, sizeof *nums);
	char(*text)[2][160] = calloc(n ? n : 1, sizeof *text);
	if (!cells || !nums || !text) {
		free(cells), free(nums), free(text);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const observation_row *r = &rows[i];
		const char **c = &cells[i * ncol];
		snprintf(nums[i][0], sizeof nums[i][0], "%lld", (long long)r->id);
		snprintf(nums[i][1], sizeof nums[i][1], "%lld", (long long)r->run_id);
		/* Narrow: the tiers; wide: with the mechanism and the vendor. */
		if (wide && r->claimed_tier)
			snprintf(text[i][0], sizeof text[i][0], "%s (%s)", r->claimed_tier,
			         r->claimed_mechanism ? r->claimed_mechanism : "-");
		else
			snprintf(text[i][0], sizeof text[i][0], "%s",
			         r->claimed_tier ? r->claimed_tier : "-");
		if (wide && r->observed_vendor && *r->observed_vendor)
			snprintf(text[i][1], sizeof text[i][1], "%s (%s)",
			         r->observed_tier ? r->observed_tier : "-", r->observed_vendor);
		else
			snprintf(text[i][1], sizeof text[i][1], "%s",
			         r->observed_tier ? r->observed_tier : "-");
		size_t k = 0;
		c[k++] = nums[i][0], c[k++] = r->observed_at, c[k++] = nums[i][1];
		c[k++] = r->backend;
		if (wide)
			c[k++] = r->provider_id;
		c[k++] = text[i][0], c[k++] = text[i][1], c[k++] = r->verdict;
		if (wide)
			c[k++] = r->host, c[k++] = r->tool_version, c[k++] = r->catalogue_commit,
			c[k++] = r->wall, c[k++] = r->cpu;
		c[k++] = r->reason;
	}
	if (n)
		history_table(stdout, wide ? wide_hdr : narrow_hdr, wide ? wide_caps : narrow_caps,
		              ncol, cells, n, wide);
	free(cells), free(nums), free(text);
	return 0;
}

typedef struct stored_names {
	const char **names;
	char (*stored)[65];
	size_t *n, k;
} stored_names;

static int add_stored_name(void *ctx, const char *name)
{
	stored_names *sn = ctx;
	if (sn->k >= 64)
		return 1;
	snprintf(sn->stored[sn->k], sizeof sn->stored[sn->k], "%s", name);
	sn->names[(*sn->n)++] = sn->stored[sn->k++];
	return 0;
}

/* A backend this build drives or the history has observed; else a usage
 * error with the closest name. */
static int check_backend(isotier_history *h, const char *name)
{
	const char *names[96];
	char stored[64][65];
	size_t n = 0;
	for (size_t i = 0; i < isotier__backend_count() && n < 32; i++)
		names[n++] = isotier__backend_at(i)->name;
	stored_names sn = {names, stored, &n, 0};
	isotier_error err = {0};
	isotier__history_list_backends(h, add_stored_name, &sn, &err);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 0;
	const char *hint = cli_suggest(name, names, n);
	if (hint)
		cli_error("history: no backend '%s' (did you mean '%s'?)", name, hint);
	else
		cli_error("history: no backend '%s' (`isotier backends` lists them)", name);
	return -1;
}

/* "CONFIRMED, CONSISTENT, ... or UNAVAILABLE": the verdict table's words,
 * for --help and for the refusal of a word that is none of them; a line
 * break after about wrap columns when wrap > 0. */
static const char *verdict_list(char *buf, size_t size, size_t wrap)
{
	size_t len = 0, line = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < VERDICT_COUNT && len < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 == VERDICT_COUNT ? " or " : ", ";
		const char *w = isotier__verdicts[i].name;
		bool breaks = wrap && line + strlen(sep) + strlen(w) > wrap;
		if (breaks) /* the separator's words start the next line */
			sep = i + 1 == VERDICT_COUNT ? "\nor " : ",\n";
		int k = snprintf(buf + len, size - len, "%s%s", sep, w);
		if (k < 0)
			break;
		len += (size_t)k;
		/* Past the '\n', only what follows it is on the new line. */
		line = breaks ? strlen(strchr(sep, '\n') + 1) + strlen(w) : line + (size_t)k;
	}
	return buf;
}

static const char *verdicts_help(void)
{
	static char text[256];
	return verdict_list(text, sizeof text, 40);
}

static const char *verdict_word(const char *s)
{
	isotier_verdict v;
	if (isotier__verdict_parse(&v, s) == 0)
		return isotier__verdict_name(v);
	const char *words[VERDICT_COUNT];
	char upper[32] = "";
	for (size_t i = 0; i < VERDICT_COUNT; i++)
		words[i] = isotier__verdicts[i].name;
	for (size_t i = 0; s[i] && i + 1 < sizeof upper; i++)
		upper[i] = (char)toupper((unsigned char)s[i]);
	const char *hint = cli_suggest(upper, words, VERDICT_COUNT);
	if (hint) {
		cli_error("--verdict: no verdict '%s' (did you mean '%s'?)", s, hint);
		return NULL;
	}
	char all[256];
	cli_error("--verdict: no verdict '%s' (%s)", s, verdict_list(all, sizeof all, 0));
	return NULL;
}

static int check_verdict(const char *opt, const char *value)
{
	(void)opt;
	return verdict_word(value) ? 0 : EXIT_USAGE;
}

static int check_date(const char *opt, const char *value)
{
	if (report_valid_timestamp(value))
		return 0;
	cli_error("%s %s: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ", opt, value);
	return EXIT_USAGE;
}

/* A name a filter can hold: bounded, so a hostile argument is refused here
 * rather than carried into the query. */
static int check_backend_name(const char *opt, const char *value)
{
	if (*value && strlen(value) <= 64)
		return 0;
	cli_error("%s: expected a backend name", opt);
	return EXIT_USAGE;
}

static int check_host(const char *opt, const char *value)
{
	if (*value && strlen(value) <= 255)
		return 0;
	cli_error("%s: expected a host name or machine id", opt);
	return EXIT_USAGE;
}

static int check_provider(const char *opt, const char *value)
{
	if (*value && strlen(value) <= 128)
		return 0;
	cli_error("%s: expected a provider id", opt);
	return EXIT_USAGE;
}

/* --until DATE means the whole day: "YYYY-MM-DDT24" sorts after every
 * timestamp of that day and before the next. */
static const char *until_bound(char *buf, size_t size, const char *s)
{
	if (strlen(s) == 10)
		snprintf(buf, size, "%sT24", s);
	else
		snprintf(buf, size, "%s", s);
	return buf;
}

#define STR_(x) #x
#define STR(x)  STR_(x)

enum {
	OPT_DB = 'd',
	OPT_BACKEND = 'b',
	OPT_VERDICT = 'v',
	OPT_RUN = 'r',
	OPT_HOST = 'H',
	OPT_BY_HOST = 'B',
	OPT_SINCE = 's',
	OPT_UNTIL = 'u',
	OPT_LIMIT = 'l',
	OPT_SOURCES = 'S',
	OPT_PROVIDER = 'p',
	OPT_WIDE = 'w',
	OPT_JSON = 'j',
};

static const struct cli_option options[] = {
    CLI_HISTORY_OPTION(OPT_DB),
    CLI_CHECKED_OPTION(
        "backend", OPT_BACKEND, "NAME", check_backend_name,
        "only this backend (a name no backend or observation has is\na usage error)"),
    CLI_DEFAULTED_OPTION("verdict", OPT_VERDICT, "WORD", check_verdict, "only this verdict: {}",
                         verdicts_help),
    CLI_NUMBER_OPTION("run", OPT_RUN, "ID", 1, INT_MAX,
                      "only observations of this run (the RUN column)"),
    CLI_CHECKED_OPTION("host", OPT_HOST, "NAME", check_host,
                       "only observations made on this host (its name or machine id)"),
    CLI_FLAG_OPTION("by-host", OPT_BY_HOST,
                    "what each host last observed of each backend (host x backend)"),
    CLI_CHECKED_OPTION("since", OPT_SINCE, "DATE", check_date,
                       "at or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"),
    CLI_CHECKED_OPTION("until", OPT_UNTIL, "DATE", check_date,
                       "up to DATE (a day: up to its end; a time: before it)"),
    CLI_NUMBER_OPTION("limit", OPT_LIMIT, "N", 0, INT_MAX, "at most N rows (default 50; 0: all)"),
    CLI_FLAG_OPTION("sources", OPT_SOURCES, "the source checks `isotier sources check` recorded"),
    CLI_CHECKED_OPTION("provider", OPT_PROVIDER, "ID", check_provider,
                       "with --sources: only this provider's checks"),
    CLI_FLAG_OPTION("wide", OPT_WIDE, "every column in full (provider, host, tool, catalogue...)"),
    CLI_FLAG_OPTION("json", OPT_JSON, "a JSON document instead of the table"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "history",
    .synopsis =
        "usage: isotier history [--db PATH|URI] [--backend NAME] [--verdict WORD] [--run ID]\n"
        "                       [--host NAME] [--by-host]\n"
        "                       [--since DATE] [--until DATE] [--limit N] [--wide] [--json]\n"
        "       isotier history show ID [--db PATH] [--json]\n"
        "       isotier history export|import|migrate ... (history export --help)\n"
        "       isotier history prune ... (history prune --help)\n"
        "       isotier history --sources [--provider ID] [--since DATE] [--until DATE]\n"
        "                       [--limit N] [--wide] [--json]",
    .about = "Lists the observations `isotier verify` recorded, newest first, in a table that\n"
             "fits " STR(HISTORY_WIDTH) " columns (--wide: every column, nothing cut). `show ID` "
                                        "prints one\n"
                                        "observation with its provenance and the evidence behind "
                                        "it; --sources lists the\n"
                                        "source checks `isotier sources check` recorded.",
    .options = options,
    .epilogue = "Exit status: 0 listed (also when nothing matched), 64 usage, 66 no database\n"
                "or no such observation, 74/75 database unreadable.",
    /* The operand is only ever a misplaced `show`, refused below with a hint. */
    .operands = true,
};

struct history_args {
	const char *db, *provider;
	observation_filter flt;
	char ubuf[48];
	bool json, wide, sources, by_host;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct history_args *a = ctx;
	switch (key) {
	case OPT_DB: a->db = value; break;
	case OPT_BACKEND: a->flt.backend = value; break;
	case OPT_VERDICT: a->flt.verdict = verdict_word(value); break;
	case OPT_RUN: a->flt.run_id = number; break;
	case OPT_HOST: a->flt.host = value; break;
	case OPT_BY_HOST: a->by_host = true; break;
	case OPT_SINCE: a->flt.since = value; break;
	case OPT_UNTIL: a->flt.until = until_bound(a->ubuf, sizeof a->ubuf, value); break;
	case OPT_LIMIT: a->flt.limit = number; break;
	case OPT_SOURCES: a->sources = true; break;
	case OPT_PROVIDER: a->provider = value; break;
	case OPT_WIDE: a->wide = true; break;
	case OPT_JSON: a->json = true; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

static int history_main(int argc, char **argv)
{
	const char *show = NULL;
	struct history_args a = {.db = isotier__default_db_path(), .flt = {.limit = 50}};
	if (argc >= 2 && (!strcmp(argv[1], "export") || !strcmp(argv[1], "import") ||
	                  !strcmp(argv[1], "migrate")))
		return history_transfer_main(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "init"))
		return history_init_main(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "prune"))
		return history_prune_main(argc, argv);
	/* `history show ID`: the subcommand may come before or after options. */
	if (argc >= 2 && !strcmp(argv[1], "show")) {
		if (argc < 3 || argv[2][0] == '-') {
			if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				cli_usage(&spec, stdout);
				return EXIT_OK;
			}
			cli_error("history show: which observation? (`isotier history show ID`)");
			return EXIT_USAGE;
		}
		show = argv[2];
		argv += 2, argc -= 2;
	}
	int first = 0, rc = cli_parse(&spec, argc, argv, on_option, &a, &first);
	if (rc == CLI_HELP_SHOWN)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	if (first < argc) {
		cli_error("history: unexpected argument '%s'%s", argv[first],
		          !strcmp(argv[first], "show") ? " (`isotier history show ID`)" : "");
		cli_usage(&spec, stderr);
		return EXIT_USAGE;
	}
	const char *db = a.db, *provider = a.provider;
	observation_filter flt = a.flt;
	bool json = a.json, wide = a.wide, sources = a.sources, by_host_view = a.by_host;
	if (sources && (flt.backend || flt.verdict || flt.run_id || show)) {
		cli_error("history: --sources lists source checks: --backend, --verdict, --run and "
		          "show do not apply");
		return EXIT_USAGE;
	}
	if (provider && !sources) {
		cli_error("history: --provider goes with --sources");
		return EXIT_USAGE;
	}
	long long show_id = 0;
	if (show) {
		char *end = NULL;
		errno = 0;
		show_id = strtoll(show, &end, 10);
		if (errno || !*show || *end || show_id <= 0) {
			cli_error("history show: expected an observation id (a number), got '%s'",
			          show);
			return EXIT_USAGE;
		}
	}
	char display[512];
	isotier__history_display(db, display, sizeof display);
	if ((rc = cli_history_readable(db)) != EXIT_OK)
		return rc;
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	rc = isotier__history_open_readonly(&h, db, &err);
	if (rc < 0)
		return cli_fail(&err);
	if (show)
		return history_show(h, show_id, json);
	if (sources)
		return history_sources(
		    h, &(source_filter){provider, flt.since, flt.until, flt.limit}, json, wide);
	if (flt.backend && check_backend(h, flt.backend) < 0)
		return EXIT_USAGE;
	if (by_host_view) {
		if ((rc = history_by_host(h, flt, json, wide, &err)) < 0) {
			if (rc == ISOTIER_ENOMEM)
				cli_error("history: out of memory");
			return rc == ISOTIER_ENOMEM ? EXIT_SOFTWARE : cli_fail(&err);
		}
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
	}
	if (json) {
		if ((rc = print_json(h, display, &flt, &err)) < 0) {
			if (rc == ISOTIER_ENOMEM)
				cli_error("history: out of memory");
			return rc == ISOTIER_ENOMEM ? EXIT_SOFTWARE : cli_fail(&err);
		}
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
	}
	table_rows t = {0};
	if ((rc = isotier__history_list_observations(h, &flt, collect_row, &t, &err)) < 0) {
		table_rows_free(&t);
		return cli_fail(&err);
	}
	if (t.oom)
		rc = -1;
	else if (!t.n)
		printf("(no observations%s)\n", flt.backend || flt.since || flt.until ||
		                                        flt.verdict || flt.run_id || flt.host
		                                    ? " match"
		                                    : "; `isotier verify` records them");
	else
		rc = print_table(t.rows, t.n, wide);
	table_rows_free(&t);
	if (rc < 0) {
		cli_error("history: out of memory");
		return EXIT_SOFTWARE;
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
}

const struct cli_command cli_history = {
    .name = "history",
    .summary = "list the observations `verify` recorded (show ID: one with its evidence)",
    .main = history_main,
};
