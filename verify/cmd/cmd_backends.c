/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_backends.c - `isotier backends`: every backend with its claimed and
 * resolved tier, the reason for any downgrade, and availability with what the
 * backend found (the runtime's path; for Docker the daemon's configured
 * runtimes, so a "runsc" that is not gVisor's shows). */
#include "cli.h"
#include "cli_options.h"
#include "../../reference/api/isotier_tool.h"

#include <cJSON.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

enum { OPT_CATALOGUE = 'c', OPT_DB = 'd', OPT_ANY_HOST = 'H', OPT_JSON = 'j', OPT_NAMES = 'n' };

static const struct cli_option options[] = {
    /* A catalogue named on the command line must be a directory: listing
     * every claim UNKNOWN from /dev/zero would be a success that is not. */
    CLI_DEFAULTED_OPTION("catalogue", OPT_CATALOGUE, "DIR", cli_check_dir,
                         "provider catalogue (default {})", cli_default_catalogue_text),
    CLI_DEFAULTED_OPTION("db", OPT_DB, "PATH", cli_check_db,
                         "history database whose latest verdicts downgrade claims\n"
                         "(default {}: the host's history,\n"
                         "the one the runbook's job writes; when that is absent, the\n"
                         "tiers are resolved from the catalogue alone)",
                         cli_default_db_text),
    CLI_FLAG_OPTION("any-host", OPT_ANY_HOST,
                    "count observations made on any host (default: only this\n"
                    "machine's, by /etc/machine-id)"),
    CLI_FLAG_OPTION("json", OPT_JSON,
                    "a JSON array: backend, provider_id, claimed_tier, mechanism,\n"
                    "scope (between whom the boundary holds; null: not stated),\n"
                    "resolved_tier, reason, latest_verdict, available,\n"
                    "unavailable_reason, remote, settings (the environment variables\n"
                    "that configure it: env, meaning, secret, required, set;\n"
                    "never a value)"),
    CLI_FLAG_OPTION("names", OPT_NAMES,
                    "only the registry: each backend's name, local or remote, its\n"
                    "catalogue entry (- for none), tab-separated, one a line; reads\n"
                    "nothing (the tests and docs loop over it)"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "backends",
    .synopsis = "usage: isotier backends [--catalogue DIR] [--db PATH] [--any-host] [--json]\n"
                "       isotier backends --names",
    .about = "Lists every backend this build drives: the tier the catalogue claims for it,\n"
             "the tier isotier resolves (the claim, downgraded when the latest verification\n"
             "contradicted it or could not prove it), why, and whether the backend can run\n"
             "on this host.",
    .options = options,
    .epilogue = "Exit status: 0 listed; 64 usage; 66 a --db PATH that does not exist; 65/78 a\n"
                "catalogue or database that cannot be read.",
};

struct backends_args {
	isotier_resolve_opts ro;
	bool json, names, db_named;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct backends_args *a = ctx;
	(void)number;
	switch (key) {
	case OPT_CATALOGUE: a->ro.catalogue_dir = value; break;
	case OPT_ANY_HOST: a->ro.any_host = true; break;
	case OPT_DB: a->ro.db_path = value, a->db_named = true; break;
	case OPT_JSON: a->json = true; break;
	case OPT_NAMES: a->names = true; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

/* The registry as it is, for scripts: no catalogue, no history, no probe. */
static int list_names(void)
{
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		printf("%s\t%s\t%s\n", b->name, b->remote ? "remote" : "local",
		       b->catalogue_id ? b->catalogue_id : "-");
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_IOERR;
}

/* What configures the backend (backend.h): each variable, what it means and
 * whether it is set here. Never a value: a secret's would be a leak, and the
 * others are the environment's business. */
static void add_settings(cJSON *o, const isotier_backend *b)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "settings");
	for (size_t i = 0; arr && b->settings && b->settings[i].env; i++) {
		const isotier_backend_setting *st = &b->settings[i];
		const char *v = getenv(st->env);
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "env", st->env);
		cJSON_AddStringToObject(e, "meaning", st->meaning);
		cJSON_AddBoolToObject(e, "secret", st->secret);
		cJSON_AddBoolToObject(e, "required", st->required);
		cJSON_AddBoolToObject(e, "set", v && *v);
		cJSON_AddItemToArray(arr, e);
	}
}

static int backends_main(int argc, char **argv)
{
	struct backends_args a = {0}; /* no --db: the host's default (resolve.h) */
	int rc = cli_parse(&spec, argc, argv, on_option, &a, NULL);
	if (rc)
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	if (a.names)
		return list_names();
	isotier_resolve_opts ro = a.ro;
	bool json = a.json;
	/* A history named but absent is a wrong path, not an empty history. */
	if (a.db_named && !isotier__history_is_uri(ro.db_path) && access(ro.db_path, F_OK) != 0 &&
	    (errno == ENOENT || errno == ENOTDIR)) {
		cli_error("--db: history database %s does not exist", ro.db_path);
		return EXIT_NOINPUT;
	}
	/* The catalogue once more, for each claim's scope (resolve reports the
	 * tier, not between whom it holds); one that does not load shows none. */
	isotier_findings findings = {0};
	isotier_catalogue *cat = NULL;
	isotier_error cerr = {0};
	isotier__catalogue_load_effective(
	    &cat, ro.catalogue_dir ? ro.catalogue_dir : cli_default_catalogue(), false, &findings,
	    &cerr);
	isotier__findings_free(&findings);
	cJSON *doc = json ? cJSON_CreateArray() : NULL;
	if (!json)
		printf("%-13s %-10s %-10s %-9s %s\n", "BACKEND", "CLAIMED", "RESOLVED", "AVAILABLE",
		       "REASON");
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		isotier_resolution r;
		isotier_error err = {0};
		if (isotier__resolve(&r, b, &ro, &err) < 0) {
			cJSON_Delete(doc);
			isotier__catalogue_free(cat);
			return cli_fail(&err);
		}
		const isotier_provider *cp =
		    cat && r.provider_id[0] ? isotier__catalogue_find(cat, r.provider_id) : NULL;
		const char *scope = cp ? cp->scope : NULL;
		char why[1024] = "";
		int avail = b->available(why, sizeof why);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "backend", b->name);
			cJSON_AddStringToObject(o, "provider_id", r.provider_id);
			cJSON_AddStringToObject(o, "claimed_tier", isotier_tier_name(r.claimed));
			cJSON_AddStringToObject(o, "mechanism", r.mechanism);
			if (scope)
				cJSON_AddStringToObject(o, "scope", scope);
			else
				cJSON_AddNullToObject(o, "scope");
			cJSON_AddStringToObject(o, "resolved_tier", isotier_tier_name(r.resolved));
			cJSON_AddStringToObject(o, "reason", r.reason);
			cJSON_AddStringToObject(o, "latest_verdict", r.latest_verdict);
			cJSON_AddBoolToObject(o, "available", avail);
			cJSON_AddStringToObject(o, "unavailable_reason", avail ? "" : why);
			cJSON_AddStringToObject(o, "availability", why);
			cJSON_AddBoolToObject(o, "remote", b->remote);
			add_settings(o, b);
			cJSON_AddItemToArray(doc, o);
		} else {
			printf("%-13s %-10s %-10s %-9s ", b->name, isotier_tier_name(r.claimed),
			       isotier_tier_name(r.resolved), avail ? "yes" : "no");
			if (scope) { /* between whom the claimed boundary holds */
				fputs("[scope: ", stdout);
				isotier__fputs_inline(stdout, scope);
				fputs("] ", stdout);
			}
			isotier__fputs_inline(stdout, r.reason);
			fputs(avail ? " [available: " : " [unavailable: ", stdout);
			isotier__fputs_inline(stdout, why);
			fputc(']', stdout);
			fputc('\n', stdout);
		}
	}
	if (json) {
		cli_print_json(doc);
	}
	isotier__catalogue_free(cat);
	return EXIT_OK;
}

const struct cli_command cli_backends = {
    .name = "backends",
    .summary = "list backends: claimed and resolved tier, why, availability",
    .main = backends_main,
};
