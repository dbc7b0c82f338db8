/* SPDX-License-Identifier: Apache-2.0 */
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
#include "cli_options.h"
#include "../../reference/isotier_tool.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <string.h>

static const char *max_age_default(void)
{
	static char text[16];
	snprintf(text, sizeof text, "%d", ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS);
	return text;
}

static const struct cli_option options[] = {
    {"catalogue", 'c', CLI_TEXT, "DIR", NULL, 0, 0, "provider directory (default: {})",
     cli_default_catalogue_text, false},
    {"max-age", 'm', CLI_NUMBER, "DAYS", NULL, 1, 36500,
     "maximum source age (default: {}, the runbook's cadence)", max_age_default, false},
    {"json", 'j', CLI_FLAG, NULL, NULL, 0, 0,
     "machine-readable report on stdout: {catalogue, today,\n"
     "max_age_days, providers, errors, warnings, ok,\n"
     "findings[{severity, file, field, message}]}",
     NULL, false},
    {"today", 't', CLI_TEXT, "DATE", NULL, 0, 0, "the date to judge against (default: today, UTC)",
     NULL, false},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL, NULL, false},
};

static const struct cli_spec spec = {
    .name = "catalogue check",
    .synopsis = "usage: isotier catalogue check [--catalogue DIR] [--max-age DAYS] [--json]\n"
                "                               [--today YYYY-MM-DD]",
    .about = "Validates every provider file against catalogue/FORMAT.md. Exit 0 when valid\n"
             "(warnings are printed), 65 listing every problem with file and field.",
    .options = options,
};

static void usage(FILE *f)
{
	cli_usage(&spec, f);
}

struct check_args {
	const char *dir, *today;
	int max_age;
	bool json;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct check_args *a = ctx;
	switch (key) {
	case 'c': a->dir = value; break;
	case 'm': a->max_age = number; break;
	case 'j': a->json = true; break;
	case 't': a->today = value; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
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
	char *s = isotier__json_print(o, true);
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
			isotier__fputs_sanitized(stdout, line);
		}
	printf("catalogue %s: %zu %s, %zu %s, %zu %s\n", dir, n_providers,
	       cli_plural(n_providers, "provider", "providers"), f->n_errors,
	       cli_plural(f->n_errors, "error", "errors"), f->n_warnings,
	       cli_plural(f->n_warnings, "warning", "warnings"));
}

static int catalogue_check(int argc, char **argv)
{
	struct check_args a = {.dir = cli_default_catalogue(),
	                       .max_age = ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS};
	int prc = cli_parse(&spec, argc, argv, on_option, &a, NULL);
	if (prc)
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	const char *dir = a.dir, *today = a.today;
	int max_age = a.max_age;
	bool json = a.json;
	char now[16];
	long days;
	if (today && isotier__date_days(&days, today) < 0) {
		cli_error("--today: '%s' is not a calendar date (YYYY-MM-DD)", today);
		return EXIT_USAGE;
	}
	if (!today) {
		isotier__today(now, sizeof now);
		today = now;
	}
	isotier_findings findings = {0};
	isotier_catalogue *cat = NULL;
	isotier_error err = {0};
	if (isotier__catalogue_load_partial(&cat, dir, &findings, &err) < 0) {
		isotier__findings_free(&findings);
		return cli_fail(&err);
	}
	isotier__catalogue_validate(cat, today, max_age, &findings);
	/* The backends this build drives link entries one way: two linking one
	 * entry without saying they share it would have the second's claim
	 * silently resolved as the first's (test_backends holds the registry to
	 * it; this says so to whoever checks a catalogue with this build). */
	char why[512];
	if (isotier__backend_registry_check(why, sizeof why) < 0)
		isotier__findings_add(&findings, ISOTIER_FINDING_ERROR, "reference/backends.c", "",
		                      "%s", why);
	size_t n = cat->n_providers;
	/* A wrong --catalogue (or an emptied one) must not pass as "valid". */
	if (n == 0 && findings.n_errors == 0)
		isotier__findings_add(&findings, ISOTIER_FINDING_ERROR, dir, "",
		                      "no provider files (*.json) in this directory");
	isotier__catalogue_free(cat);
	int rc = findings.n_errors ? EXIT_DATAERR : EXIT_OK;
	if (json) {
		if (print_json(dir, today, max_age, n, &findings) < 0) {
			cli_error("catalogue check: out of memory");
			rc = EXIT_SOFTWARE;
		}
	} else {
		print_text(dir, n, &findings);
	}
	isotier__findings_free(&findings);
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
