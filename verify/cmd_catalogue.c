/*
 * cmd_catalogue.c - `isotier catalogue check`: load and validate the provider
 * catalogue; exit 65 listing every problem with file and field.
 *
 * --json prints one object:
 *   {"catalogue": DIR, "today": "YYYY-MM-DD", "max_age_days": N,
 *    "providers": N, "errors": N, "warnings": N, "ok": BOOL,
 *    "findings": [{"severity": "error"|"warning", "file": PATH,
 *                  "field": "sources[1].retrieved" (or ""), "message": TEXT}...]}
 */
#include "cli.h"
#include "../reference/isotier_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: isotier catalogue check [--catalogue DIR] [--max-age DAYS] [--json]\n"
	        "                               [--today YYYY-MM-DD]\n\n"
	        "Validates every provider file against catalogue/FORMAT.md. Exit 0 when valid\n"
	        "(warnings are printed), 65 listing every problem with file and field.\n"
	        "  --catalogue DIR  provider directory (default: %s)\n"
	        "  --max-age DAYS   maximum source age (default: %d, the runbook's cadence)\n"
	        "  --json           machine-readable report on stdout: {catalogue, today,\n"
	        "                   max_age_days, providers, errors, warnings, ok,\n"
	        "                   findings[{severity, file, field, message}]}\n"
	        "  --today DATE     the date to judge against (default: today, UTC)\n",
	        cli_default_catalogue(), ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS);
}

static int print_json(const char *dir, const char *today, int max_age, size_t n_providers,
                      const isotier_findings *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *list = cJSON_CreateArray();
	if (!o || !list) {
		cJSON_Delete(o);
		cJSON_Delete(list);
		return -1;
	}
	cJSON_AddStringToObject(o, "catalogue", dir);
	cJSON_AddStringToObject(o, "today", today);
	cJSON_AddNumberToObject(o, "max_age_days", max_age);
	cJSON_AddNumberToObject(o, "providers", (double)n_providers);
	cJSON_AddNumberToObject(o, "errors", (double)f->n_errors);
	cJSON_AddNumberToObject(o, "warnings", (double)f->n_warnings);
	cJSON_AddBoolToObject(o, "ok", f->n_errors == 0);
	for (size_t i = 0; i < f->n; i++) {
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		cJSON_AddStringToObject(e, "severity",
		                        f->items[i].severity == ISOTIER_FINDING_ERROR ? "error"
		                                                                      : "warning");
		cJSON_AddStringToObject(e, "file", f->items[i].file);
		cJSON_AddStringToObject(e, "field", f->items[i].field);
		cJSON_AddStringToObject(e, "message", f->items[i].message);
		cJSON_AddItemToArray(list, e);
	}
	cJSON_AddItemToObject(o, "findings", list);
	char *s = isotier_json_print(o, true);
	cJSON_Delete(o);
	if (!s)
		return -1;
	puts(s);
	free(s);
	return 0;
}

static void print_text(const char *dir, size_t n_providers, const isotier_findings *f)
{
	/* Errors first, then warnings; each "FILE: FIELD: severity: message". */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < f->n; i++) {
			const isotier_finding *it = &f->items[i];
			if ((pass == 0) != (it->severity == ISOTIER_FINDING_ERROR))
				continue;
			char line[4096];
			snprintf(line, sizeof line, "%s: %s%s%s: %s\n", it->file, it->field,
			         it->field[0] ? ": " : "",
			         it->severity == ISOTIER_FINDING_ERROR ? "error" : "warning",
			         it->message);
			isotier_fputs_sanitized(stdout, line);
		}
	printf("catalogue %s: %zu %s, %zu %s, %zu %s\n", dir, n_providers,
	       cli_plural(n_providers, "provider", "providers"), f->n_errors,
	       cli_plural(f->n_errors, "error", "errors"), f->n_warnings,
	       cli_plural(f->n_warnings, "warning", "warnings"));
}

static int catalogue_check(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"catalogue", required_argument, NULL, 'c'},
	    {"max-age", required_argument, NULL, 'm'},
	    {"json", no_argument, NULL, 'j'},
	    {"today", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = cli_default_catalogue(), *today = NULL;
	int max_age = ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS;
	bool json = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': dir = optarg; break;
		case 'm':
			if (cli_parse_int("--max-age", optarg, 1, 36500, &max_age) < 0)
				return EXIT_USAGE;
			break;
		case 'j': json = true; break;
		case 't': today = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		case ':': cli_error("catalogue check: %s needs a value", argv[optind - 1]); return EXIT_USAGE;
		default: return cli_unknown_option("catalogue check", argv[optind - 1], opts, usage);
		}
	}
	if (optind != argc) {
		cli_error("catalogue check: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	char now[16];
	long days;
	if (today && isotier_date_days(&days, today) < 0) {
		cli_error("--today: '%s' is not a calendar date (YYYY-MM-DD)", today);
		return EXIT_USAGE;
	}
	if (!today) {
		isotier_today(now, sizeof now);
		today = now;
	}
	isotier_findings findings = {0};
	isotier_catalogue *cat = NULL;
	isotier_error err = {0};
	if (isotier_catalogue_load_partial(&cat, dir, &findings, &err) < 0) {
		isotier_findings_free(&findings);
		return cli_fail(&err);
	}
	isotier_catalogue_validate(cat, today, max_age, &findings);
	size_t n = cat->n_providers;
	/* A wrong --catalogue (or an emptied one) must not pass as "valid". */
	if (n == 0 && findings.n_errors == 0)
		isotier_findings_add(&findings, ISOTIER_FINDING_ERROR, dir, "",
		                     "no provider files (*.json) in this directory");
	isotier_catalogue_free(cat);
	int rc = findings.n_errors ? EXIT_DATAERR : EXIT_OK;
	if (json) {
		if (print_json(dir, today, max_age, n, &findings) < 0) {
			cli_error("catalogue check: out of memory");
			rc = EXIT_SOFTWARE;
		}
	} else {
		print_text(dir, n, &findings);
	}
	isotier_findings_free(&findings);
	return rc;
}

static int catalogue_main(int argc, char **argv)
{
	return cli_subcommand(argc, argv, "check", catalogue_check, usage);
}

const struct cli_command cli_catalogue = {
    .name = "catalogue",
    .summary = "validate the provider catalogue (catalogue check)",
    .main = catalogue_main,
};
