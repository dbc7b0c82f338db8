/* cmd_backends.c - `isotier backends`: every backend with its claimed and
 * resolved tier, the reason for any downgrade, and availability. */
#include "cli.h"
#include "../reference/history.h"
#include "../reference/resolve.h"

#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

static int backends_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"catalogue", required_argument, NULL, 'c'}, {"db", required_argument, NULL, 'd'},
		{"json", no_argument, NULL, 'j'},            {"help", no_argument, NULL, 'h'},
		{0},
	};
	isotier_resolve_opts ro = {.db_path = ISOTIER_DEFAULT_DB};
	int json = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': ro.catalogue_dir = optarg; break;
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			ro.db_path = optarg;
			break;
		case 'j': json = 1; break;
		case 'h':
			printf("usage: isotier backends [--catalogue DIR] [--db PATH] [--json]\n");
			return EXIT_OK;
		default: return EXIT_USAGE;
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
		char why[512] = "";
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
			cJSON_AddItemToArray(doc, o);
		} else {
			printf("%-13s %-10s %-10s %-9s ", b->name, isotier_tier_name(r.claimed),
			       isotier_tier_name(r.resolved), avail ? "yes" : "no");
			isotier_fputs_inline(stdout, r.reason);
			if (!avail) {
				fputs(" [unavailable: ", stdout);
				isotier_fputs_inline(stdout, why);
				fputc(']', stdout);
			}
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
