/* cmd_paths.c - `isotier paths`: which files this isotier uses by default and
 * why (installed prefix, build tree, or an environment variable), so an
 * operator can tell an installed isotier from a checkout's before trusting
 * what it says. */
#include "cli.h"
#include "../reference/isotier_tool.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: isotier paths\n\n"
	      "Prints the files and directories this isotier uses when no option names\n"
	      "them: the catalogue, the probe, the qemu backends' guest init and kernels,\n"
	      "the JSON schemas and the history database, each with where it came from\n"
	      "(an environment variable, the installed prefix, or the build tree it runs\n"
	      "from) and whether it is there. An installed isotier never reads its build\n"
	      "tree nor the current directory.\n\n"
	      "  --help   this text\n\n"
	      "Environment: ISOTIER_CATALOGUE, ISOTIER_PROBE, ISOTIER_GUEST_DIR,\n"
	      "ISOTIER_GUEST_INIT, ISOTIER_GUEST_ARM64_DIR, ISOTIER_GUEST_INIT_AARCH64,\n"
	      "ISOTIER_DB override the defaults.\n\n"
	      "Exit status: 0 printed (a missing file is reported, not an error); 64 usage.\n",
	      f);
}

/* One line: what, the path, where it came from, whether it is there. */
static void line(const char *what, const char *path, const char *env, const char *origin)
{
	const char *e = env ? getenv(env) : NULL;
	bool from_env = e && *e;
	printf("%-18s ", what);
	isotier_fputs_sanitized(stdout, path);
	printf("  (%s%s, %s)\n", from_env ? "$" : "", from_env ? env : origin,
	       access(path, F_OK) == 0 ? "present" : "missing");
}

static int paths_main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		default: return cli_unknown_option("paths", argv[optind - 1], longopts, usage);
		}
	}
	if (optind < argc) {
		cli_error("paths: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	char prefix[PATH_MAX], exe[PATH_MAX], buf[PATH_MAX], init[PATH_MAX];
	bool installed = isotier_install_prefix(prefix, sizeof prefix) == 0;
	const char *origin = installed ? "installed" : "build tree";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	printf("%-18s %s\n", "isotier", ISOTIER_VERSION);
	line("executable", exe, NULL, installed ? "installed" : "not installed");
	if (installed)
		line("prefix", prefix[0] ? prefix : "/", NULL, "installed");
	line("catalogue", isotier_default_catalogue_dir(), "ISOTIER_CATALOGUE", origin);
	isotier_default_probe_path(buf, sizeof buf);
	line("probe", buf, "ISOTIER_PROBE", "beside the executable");
	isotier_qemu_default_paths(false, buf, sizeof buf, init, sizeof init);
	line("guest kernel", buf, "ISOTIER_GUEST_DIR", origin);
	line("guest init", init, "ISOTIER_GUEST_INIT", origin);
	isotier_qemu_default_paths(true, buf, sizeof buf, init, sizeof init);
	line("guest kernel arm64", buf, "ISOTIER_GUEST_ARM64_DIR", origin);
	line("guest init aarch64", init, "ISOTIER_GUEST_INIT_AARCH64", origin);
	isotier_default_data_path(buf, sizeof buf, "share/isotier/schemas", "catalogue");
	line("schemas", buf, NULL, origin);
	line("history", isotier_default_db_path(), "ISOTIER_DB", "default");
	return EXIT_OK;
}

const struct cli_command cli_paths = {
    .name = "paths",
    .summary = "which catalogue, probe, guest kernel and history this isotier uses",
    .main = paths_main,
};
