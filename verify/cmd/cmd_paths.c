/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_paths.c - `isotier paths`: which files this isotier uses by default and
 * why (installed prefix, build tree, or an environment variable), so an
 * operator can tell an installed isotier from a checkout's before trusting
 * what it says. */
#include "cli.h"
#include "cli_options.h"
#include "../../reference/api/isotier_tool.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

static const struct cli_option options[] = {
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "paths",
    .synopsis = "usage: isotier paths",
    .about = "Prints the files and directories this isotier uses when no option names\n"
             "them: the catalogue, the probe, the qemu backends' guest init and kernels,\n"
             "the JSON schemas and the history database, each with where it came from\n"
             "(an environment variable, the installed prefix, or the build tree it runs\n"
             "from) and whether it is there. An installed isotier never reads its build\n"
             "tree nor the current directory.",
    .options = options,
    .epilogue = "Environment: ISOTIER_CATALOGUE, ISOTIER_CATALOGUE_OVERLAY, ISOTIER_PROBE,\n"
                "ISOTIER_GUEST_DIR,\n"
                "ISOTIER_GUEST_INIT, ISOTIER_GUEST_ARM64_DIR, ISOTIER_GUEST_INIT_AARCH64,\n"
                "ISOTIER_DB override the defaults.\n\n"
                "Exit status: 0 printed (a missing file is reported, not an error); 64 usage.",
};

static int no_option(void *ctx, int key, const char *value, int number)
{
	(void)ctx, (void)key, (void)value, (void)number;
	return EXIT_SOFTWARE; /* the table has none */
}

/* One line: what, the path, where it came from, whether it is there. */
static void line(const char *what, const char *path, const char *env, const char *origin)
{
	const char *e = env ? getenv(env) : NULL;
	bool from_env = e && *e;
	printf("%-18s ", what);
	isotier__fputs_sanitized(stdout, path);
	printf("  (%s%s, %s)\n", from_env ? "$" : "", from_env ? env : origin,
	       access(path, F_OK) == 0 ? "present" : "missing");
}

static int paths_main(int argc, char **argv)
{
	int rc = cli_parse(&spec, argc, argv, no_option, NULL, NULL);
	if (rc)
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	char prefix[PATH_MAX], exe[PATH_MAX], buf[PATH_MAX], init[PATH_MAX];
	bool installed = isotier__install_prefix(prefix, sizeof prefix) == 0;
	const char *origin = installed ? "installed" : "build tree";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	printf("%-18s %s\n", "isotier", ISOTIER_VERSION);
	line("executable", exe, NULL, installed ? "installed" : "not installed");
	if (installed)
		line("prefix", prefix[0] ? prefix : "/", NULL, "installed");
	line("catalogue", isotier__default_catalogue_dir(), "ISOTIER_CATALOGUE", origin);
	/* The operator's directory over it, and where sources check keeps
	 * what it read (never inside the package's files). */
	const char *overlay = isotier__catalogue_overlay_dir();
	if (overlay)
		line("catalogue overlay", overlay, "ISOTIER_CATALOGUE_OVERLAY", "installed");
	else
		printf("%-18s none  (%s)\n", "catalogue overlay",
		       getenv("ISOTIER_CATALOGUE_OVERLAY") ? "$ISOTIER_CATALOGUE_OVERLAY empty"
		                                           : "build tree: /etc is not read");
	if (isotier__default_baseline_path(buf, sizeof buf, isotier__default_catalogue_dir()) == 0)
		line("sources baseline", buf, NULL,
		     installed ? "the state directory" : "beside the catalogue");
	isotier__default_probe_path(buf, sizeof buf);
	line("probe", buf, "ISOTIER_PROBE", "beside the executable");
	isotier__qemu_default_paths(false, buf, sizeof buf, init, sizeof init);
	line("guest kernel", buf, "ISOTIER_GUEST_DIR", origin);
	line("guest init", init, "ISOTIER_GUEST_INIT", origin);
	isotier__qemu_default_paths(true, buf, sizeof buf, init, sizeof init);
	line("guest kernel arm64", buf, "ISOTIER_GUEST_ARM64_DIR", origin);
	line("guest init aarch64", init, "ISOTIER_GUEST_INIT_AARCH64", origin);
	isotier__default_data_path(buf, sizeof buf, "share/isotier/schemas", "catalogue");
	line("schemas", buf, NULL, origin);
	line("attestation roots", isotier__attest_default_roots_dir(), "ISOTIER_ATTEST_ROOTS",
	     origin);
	const char *db = isotier__default_db_path();
	if (isotier__history_is_uri(db)) {
		/* A server's history: shown with its password redacted, and
		 * not a file to look for. */
		char shown[512];
		isotier__history_display(db, shown, sizeof shown);
		printf("%-18s ", "history");
		isotier__fputs_sanitized(stdout, shown);
		printf("  ($ISOTIER_DB, a PostgreSQL URI)\n");
	} else {
		line("history", db, "ISOTIER_DB", "default");
	}
	return EXIT_OK;
}

const struct cli_command cli_paths = {
    .name = "paths",
    .summary = "which catalogue, probe, guest kernel and history this isotier uses",
    .main = paths_main,
};
