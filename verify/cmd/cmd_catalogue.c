/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_catalogue.c - `isotier catalogue check`: load and validate the provider
 * catalogue; exit 65 listing every problem with file and field.
 *
 * --json prints one object:
 *   {"catalogue": DIR, "today": "YYYY-MM-DD", "max_age_days": N, "db": PATH|null,
 *    "providers": N, "errors": N, "warnings": N, "ok": BOOL,
 *    "findings": [{"severity": "error"|"warning", "file": PATH,
 *                  "field": "sources[1].retrieved" (or ""), "message": TEXT}...],
 *    "expiries": [{"id": ID, "tier": TIER, "expires": "YYYY-MM-DD", "retrieved": DATE,
 *                  "verified": DATE|null, "url": URL}...]}
 * ("expiries": each offering above UNKNOWN, the day its freshest provider
 * source stops defending the tier, soonest first.)
 *
 * --db reads the history's `sources check` rows: a source whose passage a
 * check found unchanged counts as re-verified that day (renewal.h). Without
 * it every source's age counts from `retrieved`.
 */
#include "cli.h"
#include "cli_options.h"
#include "../../reference/api/isotier_tool.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *max_age_default(void)
{
	static char text[16];
	snprintf(text, sizeof text, "%d", ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS);
	return text;
}

static const struct cli_option options[] = {
    CLI_DEFAULTED_OPTION("catalogue", 'c', "DIR", NULL, "provider directory (default: {})",
                         cli_default_catalogue_text),
    CLI_DEFAULTED_NUMBER_OPTION("max-age", 'm', "DAYS", 1, 36500,
                                "maximum source age (default: {}, the runbook's cadence)",
                                max_age_default),
    CLI_CHECKED_OPTION("db", 'd', "PATH", cli_check_db,
                       "history whose sources checks renew the sources whose\n"
                       "passage they found unchanged (default: none)"),
    CLI_FLAG_OPTION("expiries", 'e',
                    "also list, soonest first, the day each claim above\n"
                    "UNKNOWN stops being defended"),
    CLI_FLAG_OPTION("json", 'j',
                    "machine-readable report on stdout: {catalogue, today,\n"
                    "max_age_days, db, providers, errors, warnings, ok,\n"
                    "findings[{severity, file, field, message}],\n"
                    "expiries[{id, tier, expires, retrieved, verified, url}]}"),
    CLI_TEXT_OPTION("today", 't', "DATE", "the date to judge against (default: today, UTC)"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "catalogue check",
    .synopsis = "usage: isotier catalogue check [--catalogue DIR] [--max-age DAYS] [--json]\n"
                "                               [--today YYYY-MM-DD] [--db PATH] [--expiries]",
    .about = "Validates every provider file against catalogue/FORMAT.md. Exit 0 when valid\n"
             "(warnings are printed), 65 listing every problem with file and field.\n"
             "A source expires DAYS after it was retrieved or, with --db, after the last\n"
             "sources check that found its passage unchanged; a warning comes 30 days\n"
             "before.",
    .options = options,
};

static void usage(FILE *f)
{
	cli_usage(&spec, f);
}

struct check_args {
	const char *dir, *today, *db;
	int max_age;
	bool json, expiries;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct check_args *a = ctx;
	switch (key) {
	case 'c': a->dir = value; break;
	case 'm': a->max_age = number; break;
	case 'j': a->json = true; break;
	case 'd': a->db = value; break;
	case 'e': a->expiries = true; break;
	case 't': a->today = value; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

/* When an offering's claim stops being defended: its freshest provider
 * source's as-of date plus the max age. */
struct expiry {
	const isotier_provider *p;
	const isotier_source *s;
	char expires[16];
};

static int expiry_cmp(const void *a, const void *b)
{
	const struct expiry *x = a, *y = b;
	int c = strcmp(x->expires, y->expires);
	return c ? c : strcmp(x->p->id, y->p->id);
}

/* The claims above UNKNOWN, soonest expiry first; *n of them (malloc'd). */
static struct expiry *expiries_of(const isotier_catalogue *cat, int max_age, size_t *n)
{
	*n = 0;
	struct expiry *e = calloc(cat->n_providers + 1, sizeof *e);
	if (!e)
		return NULL;
	for (size_t i = 0; i < cat->n_providers; i++) {
		const isotier_provider *p = &cat->providers[i];
		const isotier_source *s = isotier__provider_best_source(p);
		if (!p->id || p->tier == ISOTIER_UNKNOWN || !s ||
		    !strcmp(isotier__provider_status(p), "retired"))
			continue;
		if (isotier__source_expires(s, max_age, e[*n].expires, sizeof e[*n].expires) < 0)
			continue;
		e[*n].p = p, e[*n].s = s;
		(*n)++;
	}
	qsort(e, *n, sizeof *e, expiry_cmp);
	return e;
}

static cJSON *expiries_json(const struct expiry *e, size_t n)
{
	cJSON *list = cJSON_CreateArray();
	for (size_t i = 0; list && i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "id", e[i].p->id);
		cJSON_AddStringToObject(o, "tier", isotier_tier_name(e[i].p->tier));
		cJSON_AddStringToObject(o, "expires", e[i].expires);
		cJSON_AddStringToObject(o, "retrieved", e[i].s->retrieved ? e[i].s->retrieved : "");
		const char *as_of = isotier__source_as_of(e[i].s);
		if (as_of && as_of != e[i].s->retrieved)
			cJSON_AddStringToObject(o, "verified", as_of);
		else
			cJSON_AddNullToObject(o, "verified");
		cJSON_AddStringToObject(o, "url", e[i].s->url ? e[i].s->url : "");
		cJSON_AddItemToArray(list, o);
	}
	return list;
}

static void print_expiries(const struct expiry *e, size_t n)
{
	printf("claims by expiry (%zu):\n", n);
	for (size_t i = 0; i < n; i++) {
		const char *as_of = isotier__source_as_of(e[i].s);
		bool renewed = as_of && as_of != e[i].s->retrieved;
		char line[1024];
		snprintf(line, sizeof line, "  %s  %-40s %-9s %s %s\n", e[i].expires, e[i].p->id,
		         isotier_tier_name(e[i].p->tier), renewed ? "re-verified" : "retrieved",
		         as_of ? as_of : "?");
		isotier__fputs_sanitized(stdout, line);
	}
}

static int print_json(const char *dir, const char *today, int max_age, const char *db,
                      size_t n_providers, const isotier_findings *f, const struct expiry *exp,
                      size_t n_e)
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
	if (db) {
		char shown[512]; /* a URI's password never reaches the output */
		isotier__history_display(db, shown, sizeof shown);
		cJSON_AddStringToObject(o, "db", shown);
	} else {
		cJSON_AddNullToObject(o, "db");
	}
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
	cJSON *ex = expiries_json(exp, n_e);
	if (!ex) {
		cJSON_Delete(o);
		return -1;
	}
	cJSON_AddItemToObject(o, "expiries", ex);
	return cli_print_json(o);
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
	if (isotier__catalogue_load_effective(&cat, dir, true, &findings, &err) < 0) {
		isotier__findings_free(&findings);
		return cli_fail(&err);
	}
	if (a.db) {
		/* The renewals are read, never written: a missing file is an
		 * error, not an empty history. */
		cleanup_history isotier_history *h = NULL;
		if (!isotier__history_is_uri(a.db) && access(a.db, F_OK) != 0) {
			cli_error("--db: %s: no such history", a.db);
			isotier__findings_free(&findings);
			isotier__catalogue_free(cat);
			return EXIT_NOINPUT;
		}
		if (isotier__history_open_readonly(&h, a.db, &err) < 0 ||
		    isotier__catalogue_renew(cat, h, today, &err) < 0) {
			isotier__findings_free(&findings);
			isotier__catalogue_free(cat);
			return cli_fail(&err);
		}
	}
	isotier__catalogue_validate(cat, today, max_age, &findings);
	/* The backends this build drives link entries one way: two linking one
	 * entry without saying they share it would have the second's claim
	 * silently resolved as the first's (test_backends holds the registry to
	 * it; this says so to whoever checks a catalogue with this build). */
	char why[512];
	if (isotier__backend_registry_check(why, sizeof why) < 0)
		isotier__findings_add(&findings, ISOTIER_FINDING_ERROR,
		                      "reference/backends/backends.c", "", "%s", why);
	size_t n = cat->n_providers;
	/* A wrong --catalogue (or an emptied one) must not pass as "valid". */
	if (n == 0 && findings.n_errors == 0)
		isotier__findings_add(&findings, ISOTIER_FINDING_ERROR, dir, "",
		                      "no provider files (*.json) in this directory");
	size_t n_e = 0;
	struct expiry *e = expiries_of(cat, max_age, &n_e);
	int rc = findings.n_errors ? EXIT_DATAERR : EXIT_OK;
	if (!e) {
		cli_error("catalogue check: out of memory");
		rc = EXIT_SOFTWARE;
	} else if (json) {
		if (print_json(dir, today, max_age, a.db, n, &findings, e, n_e) < 0) {
			cli_error("catalogue check: out of memory");
			rc = EXIT_SOFTWARE;
		}
	} else {
		if (a.expiries)
			print_expiries(e, n_e);
		print_text(dir, n, &findings);
	}
	free(e);
	isotier__catalogue_free(cat);
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
