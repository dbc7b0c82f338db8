/* cmd_backends.c - `isotier backends`: every backend with its claimed and
 * resolved tier, the reason for any downgrade, and availability with what the
 * backend found (the runtime's path; for Docker the daemon's configured
 * runtimes, so a "runsc" that is not gVisor's shows). */
#include "cli.h"
#include "../reference/isotier_tool.h"

#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: isotier backends [--catalogue DIR] [--db PATH] [--any-host] [--json]\n\n"
	        "Lists every backend this build drives: the tier the catalogue claims for it,\n"
	        "the tier isotier resolves (the claim, downgraded when the latest verification\n"
	        "contradicted it or could not prove it), why, and whether the backend can run\n"
	        "on this host.\n\n"
	        "  --catalogue DIR  provider catalogue (default %s)\n"
	        "  --db PATH        history database whose latest verdicts downgrade claims\n"
	        "                   (default $ISOTIER_DB, else %s: the host's history,\n"
	        "                   the one the runbook's job writes; when that is absent, the\n"
	        "                   tiers are resolved from the catalogue alone)\n"
	        "  --any-host       count observations made on any host (default: only this\n"
	        "                   machine's, by /etc/machine-id)\n"
	        "  --json           a JSON array: backend, provider_id, claimed_tier, mechanism,\n"
	        "                   resolved_tier, reason, latest_verdict, available,\n"
	        "                   unavailable_reason, remote, settings (the environment variables\n"
	        "                   that configure it: env, meaning, secret, required, set;\n"
	        "                   never a value)\n\n"
	        "Exit status: 0 listed; 64 usage; 66 a --db PATH that does not exist; 65/78 a\n"
	        "catalogue or database that cannot be read.\n",
	        cli_default_catalogue(), ISOTIER_DEFAULT_DB);
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
	static const struct option longopts[] = {
		{"catalogue", required_argument, NULL, 'c'}, {"db", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},            {"help", no_argument, NULL, 'h'},
		{"any-host", no_argument, NULL, 'H'},        {0},
	};
	isotier_resolve_opts ro = {.db_path = isotier_default_db_path()};
	int json = 0, c;
	bool db_named = false;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': ro.catalogue_dir = optarg; break;
		case 'H': ro.any_host = true; break;
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			ro.db_path = optarg;
			db_named = true;
			break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		case ':': cli_error("backends: %s needs a value", argv[optind - 1]); return EXIT_USAGE;
		default: return cli_unknown_option("backends", argv[optind - 1], longopts, usage);
		}
	}
	/* A catalogue named on the command line must be a directory: listing
	 * every claim UNKNOWN from /dev/zero would be a success that is not. */
	if (ro.catalogue_dir) {
		struct stat st;
		int e = stat(ro.catalogue_dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
		if (e) {
			cli_error("--catalogue %s: %s", ro.catalogue_dir, strerror(e));
			return EXIT_NOINPUT;
		}
	}
	/* A history named but absent is a wrong path, not an empty history. */
	if (db_named && access(ro.db_path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
		cli_error("--db: history database %s does not exist", ro.db_path);
		return EXIT_NOINPUT;
	}
	if (optind < argc) {
		cli_error("backends: unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	cJSON *doc = json ? cJSON_CreateArray() : NULL;
	if (!json)
		printf("%-13s %-10s %-10s %-9s %s\n", "BACKEND", "CLAIMED", "RESOLVED", "AVAILABLE", "REASON");
	for (size_t i = 0; i < isotier_backend_count(); i++) {
		const isotier_backend *b = isotier_backend_at(i);
		isotier_resolution r;
		isotier_error err = {0};
		if (isotier_resolve(&r, b, &ro, &err) < 0) {
			cJSON_Delete(doc);
			return cli_fail(&err);
		}
		char why[1024] = "";
		int avail = b->available(why, sizeof why);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "backend", b->name);
			cJSON_AddStringToObject(o, "provider_id", r.provider_id);
			cJSON_AddStringToObject(o, "claimed_tier", isotier_tier_name(r.claimed));
			cJSON_AddStringToObject(o, "mechanism", r.mechanism);
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
			isotier_fputs_inline(stdout, r.reason);
			fputs(avail ? " [available: " : " [unavailable: ", stdout);
			isotier_fputs_inline(stdout, why);
			fputc(']', stdout);
			fputc('\n', stdout);
		}
	}
	if (json) {
		char *s = isotier_json_print(doc, true);
		if (s)
			puts(s);
		free(s);
		cJSON_Delete(doc);
	}
	return EXIT_OK;
}

const struct cli_command cli_backends = {
	.name = "backends",
	.summary = "list backends: claimed and resolved tier, why, availability",
	.main = backends_main,
};
