/* cmd_history.c - `isotier history`: verify observations, newest first,
 * filtered; `history show ID` (one observation and its evidence);
 * `history --sources` (the source checks). */
#include "cli.h"
#include "history_table.h"
#include "observations.h"
#include "report_model.h"
#include "../reference/isotier_tool.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: isotier history [--db PATH] [--backend NAME] [--verdict WORD] [--run ID]\n"
	        "                       [--since DATE] [--until DATE] [--limit N] [--wide] [--json]\n"
	        "       isotier history show ID [--db PATH] [--json]\n"
	        "       isotier history --sources [--provider ID] [--since DATE] [--until DATE]\n"
	        "                       [--limit N] [--wide] [--json]\n\n"
	        "Lists the observations `isotier verify` recorded, newest first, in a table that\n"
	        "fits %d columns (--wide: every column, nothing cut). `show ID` prints one\n"
	        "observation with its provenance and the evidence behind it; --sources lists the\n"
	        "source checks `isotier sources check` recorded.\n\n"
	        "  --db PATH       history database (default $ISOTIER_DB, else " ISOTIER_DEFAULT_DB ")\n"
	        "  --backend NAME  only this backend (a name no backend or observation has is\n"
	        "                  a usage error)\n"
	        "  --verdict WORD  only this verdict: CONFIRMED, CONSISTENT, EXCEEDS,\n"
	        "                  NOT_CONTRADICTED, CONTRADICTED, INCONCLUSIVE or UNAVAILABLE\n"
	        "  --run ID        only observations of this run (the RUN column)\n"
	        "  --since DATE    at or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)\n"
	        "  --until DATE    up to DATE (a day: up to its end; a time: before it)\n"
	        "  --limit N       at most N rows (default 50; 0: all)\n"
	        "  --provider ID   with --sources: only this provider's checks\n"
	        "  --wide          every column in full (provider, host, tool, catalogue...)\n"
	        "  --json          a JSON document instead of the table\n\n"
	        "Exit status: 0 listed (also when nothing matched), 64 usage, 66 no database\n"
	        "or no such observation, 74/75 database unreadable.\n",
	        HISTORY_WIDTH);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static int print_json(const char *db, const observation_row *rows, size_t n)
{
	cJSON *doc = cJSON_CreateObject();
	if (!doc)
		return -1;
	cJSON_AddStringToObject(doc, "schema", "isotier.history/1");
	cJSON_AddStringToObject(doc, "db", db);
	cJSON *arr = cJSON_AddArrayToObject(doc, "observations");
	for (size_t i = 0; arr && i < n; i++) {
		const observation_row *r = &rows[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
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
		cJSON_AddNumberToObject(o, "duration_ms", (double)r->duration_ms);
		cJSON_AddNumberToObject(o, "evidence_bytes", (double)r->evidence_bytes);
		cJSON_AddItemToArray(arr, o);
	}
	char *text = isotier_json_print(doc, true);
	cJSON_Delete(doc);
	if (!text)
		return -1;
	puts(text);
	cJSON_free(text);
	return 0;
}

enum { NARROW = 8, WIDE = 12 };

static int print_table(const observation_row *rows, size_t n, bool wide)
{
	static const char *const narrow_hdr[NARROW] = {"ID",      "TIME",     "RUN",     "BACKEND",
	                                               "CLAIMED", "OBSERVED", "VERDICT", "REASON"};
	static const int narrow_caps[NARROW] = {6, 20, 4, 12, 9, 9, 12, 0};
	static const char *const wide_hdr[WIDE] = {
	    "ID",       "TIME",    "RUN",  "BACKEND", "PROVIDER",  "CLAIMED",
	    "OBSERVED", "VERDICT", "HOST", "ISOTIER", "CATALOGUE", "REASON"};
	static const int wide_caps[WIDE] = {0};
	size_t ncol = wide ? WIDE : NARROW;
	const char **cells = calloc(n ? n * ncol : 1, sizeof *cells);
	char (*nums)[2][24] = calloc(n ? n : 1, sizeof *nums);
	char (*text)[2][160] = calloc(n ? n : 1, sizeof *text);
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
			snprintf(text[i][0], sizeof text[i][0], "%s", r->claimed_tier ? r->claimed_tier : "-");
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
			c[k++] = r->host, c[k++] = r->tool_version, c[k++] = r->catalogue_commit;
		c[k++] = r->reason;
	}
	if (n)
		history_table(stdout, wide ? wide_hdr : narrow_hdr, wide ? wide_caps : narrow_caps,
		              ncol, cells, n, wide);
	free(cells), free(nums), free(text);
	return 0;
}

/* A backend this build drives or the history has observed; else a usage
 * error with the closest name. */
static int check_backend(isotier_history *h, const char *name)
{
	const char *names[96];
	char stored[64][65];
	size_t n = 0;
	for (size_t i = 0; i < isotier_backend_count() && n < 32; i++)
		names[n++] = isotier_backend_at(i)->name;
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
	                       "SELECT DISTINCT backend FROM observations ORDER BY backend LIMIT 64",
	                       -1, &st, NULL) == SQLITE_OK)
		for (size_t k = 0; sqlite3_step(st) == SQLITE_ROW && k < 64; k++) {
			snprintf(stored[k], sizeof stored[k], "%s",
			         (const char *)sqlite3_column_text(st, 0));
			names[n++] = stored[k];
		}
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

static const char *verdict_word(const char *s)
{
	isotier_verdict v;
	if (isotier_verdict_parse(&v, s) == 0)
		return isotier_verdict_name(v);
	const char *words[VERDICT_COUNT];
	char upper[32] = "";
	for (size_t i = 0; i < VERDICT_COUNT; i++)
		words[i] = isotier_verdicts[i].name;
	for (size_t i = 0; s[i] && i + 1 < sizeof upper; i++)
		upper[i] = (char)toupper((unsigned char)s[i]);
	const char *hint = cli_suggest(upper, words, VERDICT_COUNT);
	if (hint) {
		cli_error("--verdict: no verdict '%s' (did you mean '%s'?)", s, hint);
		return NULL;
	}
	char all[160] = "";
	for (size_t i = 0; i < VERDICT_COUNT; i++)
		snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s",
		         i == 0 ? "" : i + 1 == VERDICT_COUNT ? " or " : ", ", words[i]);
	cli_error("--verdict: no verdict '%s' (%s)", s, all);
	return NULL;
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

static int history_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},      {"backend", required_argument, NULL, 'b'},
	    {"limit", required_argument, NULL, 'l'},   {"json", no_argument, NULL, 'j'},
	    {"since", required_argument, NULL, 's'},   {"until", required_argument, NULL, 'u'},
	    {"verdict", required_argument, NULL, 'v'}, {"run", required_argument, NULL, 'r'},
	    {"wide", no_argument, NULL, 'w'},          {"sources", no_argument, NULL, 'S'},
	    {"provider", required_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = isotier_default_db_path(), *show = NULL, *provider = NULL;
	observation_filter flt = {.limit = 50};
	bool json = false, wide = false, sources = false;
	char ubuf[48];
	int c, run = 0;
	/* `history show ID`: the subcommand may come before or after options. */
	if (argc >= 2 && !strcmp(argv[1], "show")) {
		if (argc < 3 || argv[2][0] == '-') {
			if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				usage(stdout);
				return EXIT_OK;
			}
			cli_error("history show: which observation? (`isotier history show ID`)");
			return EXIT_USAGE;
		}
		show = argv[2];
		argv += 2, argc -= 2;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			db = optarg;
			break;
		case 'b':
			if (!*optarg || strlen(optarg) > 64) {
				cli_error("--backend: expected a backend name");
				return EXIT_USAGE;
			}
			flt.backend = optarg;
			break;
		case 'l':
			if (cli_parse_int("--limit", optarg, 0, INT_MAX, &flt.limit) < 0)
				return EXIT_USAGE;
			break;
		case 's':
		case 'u':
			if (!report_valid_timestamp(optarg)) {
				cli_error("--%s %s: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ",
				          c == 's' ? "since" : "until", optarg);
				return EXIT_USAGE;
			}
			if (c == 's')
				flt.since = optarg;
			else
				flt.until = until_bound(ubuf, sizeof ubuf, optarg);
			break;
		case 'v':
			if (!(flt.verdict = verdict_word(optarg)))
				return EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_int("--run", optarg, 1, INT_MAX, &run) < 0)
				return EXIT_USAGE;
			flt.run_id = run;
			break;
		case 'w': wide = true; break;
		case 'S': sources = true; break;
		case 'p': provider = optarg; break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case ':': cli_error("history: %s needs a value", argv[optind - 1]); return EXIT_USAGE;
		default: return cli_unknown_option("history", argv[optind - 1], opts, usage);
		}
	}
	if (optind < argc) {
		cli_error("history: unexpected argument '%s'%s", argv[optind],
		          !strcmp(argv[optind], "show") ? " (`isotier history show ID`)" : "");
		usage(stderr);
		return EXIT_USAGE;
	}
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
			cli_error("history show: expected an observation id (a number), got '%s'", show);
			return EXIT_USAGE;
		}
	}
	if (access(db, F_OK) != 0) {
		cli_error("no history database at %s (`isotier verify` creates it)", db);
		return EXIT_NOINPUT;
	}
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	int rc = isotier_history_open_readonly(&h, db, &err);
	if (rc < 0)
		return cli_fail(&err);
	if (show)
		return history_show(h, show_id, json);
	if (sources)
		return history_sources(
		    h, &(source_filter){provider, flt.since, flt.until, flt.limit}, json, wide);
	if (flt.backend && check_backend(h, flt.backend) < 0)
		return EXIT_USAGE;
	observation_row *rows = NULL;
	size_t n = 0;
	if ((rc = observations_list(h, &flt, &rows, &n, &err)) < 0)
		return cli_fail(&err);
	if (json)
		rc = print_json(db, rows, n);
	else if (!n)
		printf("(no observations%s)\n", flt.backend || flt.since || flt.until || flt.verdict ||
		                                        flt.run_id
		                                    ? " match"
		                                    : "; `isotier verify` records them");
	else
		rc = print_table(rows, n, wide);
	observation_rows_free(rows, n);
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
