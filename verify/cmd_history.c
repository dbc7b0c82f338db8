/* cmd_history.c - `isotier history`: verify observations, newest first. */
#include "cli.h"
#include "observations.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: isotier history [--db PATH] [--backend NAME] [--limit N] [--json]\n\n"
	           "Lists the observations `isotier verify` recorded, newest first.\n"
	           "  --db PATH       history database (default ./" ISOTIER_DEFAULT_DB ")\n"
	           "  --backend NAME  only this backend\n"
	           "  --limit N       at most N rows (default 50; 0: all)\n"
	           "  --json          a JSON document instead of the table\n");
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

/* A column cell: sanitized, cut to width (0: no limit), padded. */
static void cell(const char *s, int width)
{
	const char *v = s && *s ? s : "-";
	if (width <= 0) {
		isotier_fputs_inline(stdout, v);
		return;
	}
	char buf[128];
	if (strlen(v) > (size_t)width)
		snprintf(buf, sizeof buf, "%.*s~", width - 1, v);
	else
		snprintf(buf, sizeof buf, "%s", v);
	isotier_fputs_inline(stdout, buf);
	for (size_t k = strlen(buf); k < (size_t)width + 2; k++)
		fputc(' ', stdout);
}

static void print_table(const observation_row *rows, size_t n)
{
	printf("%-22s%-14s%-24s%-30s%-14s%s\n", "TIME", "BACKEND", "CLAIM", "OBSERVED", "VERDICT",
	       "REASON");
	for (size_t i = 0; i < n; i++) {
		const observation_row *r = &rows[i];
		char claim[160], observed[160];
		if (r->claimed_tier)
			snprintf(claim, sizeof claim, "%s (%s)", r->claimed_tier,
			         r->claimed_mechanism ? r->claimed_mechanism : "-");
		else
			snprintf(claim, sizeof claim, "-");
		if (r->observed_vendor && *r->observed_vendor)
			snprintf(observed, sizeof observed, "%s (%s)", r->observed_tier,
			         r->observed_vendor);
		else
			snprintf(observed, sizeof observed, "%s",
			         r->observed_tier ? r->observed_tier : "-");
		cell(r->observed_at, 20);
		cell(r->backend, 12);
		cell(claim, 22);
		cell(observed, 28);
		cell(r->verdict, 12);
		cell(r->reason, 0);
		fputc('\n', stdout);
	}
	if (!n)
		printf("(no observations)\n");
}

static int history_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},    {"backend", required_argument, NULL, 'b'},
	    {"limit", required_argument, NULL, 'l'}, {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	const char *db = ISOTIER_DEFAULT_DB, *backend = NULL;
	int limit = 50;
	bool json = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
			backend = optarg;
			break;
		case 'l':
			if (cli_parse_int("--limit", optarg, 0, INT_MAX, &limit) < 0)
				return EXIT_USAGE;
			break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("history: unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (access(db, F_OK) != 0) {
		cli_error("no history database at %s (`isotier verify` creates it)", db);
		return 66; /* EX_NOINPUT */
	}
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	int rc = isotier_history_open_readonly(&h, db, &err);
	if (rc < 0)
		return cli_fail(&err);
	observation_row *rows = NULL;
	size_t n = 0;
	if ((rc = observations_list(h, backend, limit, &rows, &n, &err)) < 0)
		return cli_fail(&err);
	if (json)
		rc = print_json(db, rows, n);
	else
		print_table(rows, n);
	observation_rows_free(rows, n);
	if (rc < 0) {
		cli_error("history: out of memory");
		return EXIT_SOFTWARE;
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
}

const struct cli_command cli_history = {
    .name = "history",
    .summary = "list the observations `verify` recorded, newest first",
    .main = history_main,
};
