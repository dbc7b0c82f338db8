/* cmd_sweep.c - `isotier sweep`: releases what runs that died without seeing
 * it (SIGKILL, power loss) left behind, as every `verify` does first. */
#include "cli.h"
#include "leftovers.h"

#include <getopt.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: isotier sweep [--db PATH]\n\n"
	      "Releases what runs whose process is gone left behind: each container, image,\n"
	      "OCI container, QEMU process, remote sandbox and temp dir a run creates is\n"
	      "first leased in the host's state directory ($ISOTIER_STATE_DIR/leases; else\n"
	      "/var/lib/isotier/leases for root, $XDG_RUNTIME_DIR/isotier/leases or\n"
	      "~/.local/state/isotier/leases) and the lease dropped once it is released.\n"
	      "A lease whose owner (pid and start time) is gone is swept: what it names is\n"
	      "removed and reported on stderr (and as a leftover_swept audit event in the\n"
	      "history). Runs in the history left 'running' by a process that is gone are\n"
	      "marked interrupted (a run_interrupted audit event; the report alerts on it).\n"
	      "`isotier verify` does the same before it starts.\n\n"
	      "  --db PATH   history database (default $ISOTIER_DB, else " ISOTIER_DEFAULT_DB
	      ");\n"
	      "              not created when it does not exist\n"
	      "  --help      this text\n\n"
	      "Exit status: 0 swept (or nothing to sweep); 64 usage; 74 the history could\n"
	      "not be written.\n",
	      f);
}

static int sweep_main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = isotier_default_db_path();
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			db = optarg;
			break;
		case 'h': usage(stdout); return EXIT_OK;
		default: return cli_unknown_option("sweep", argv[optind - 1], longopts, usage);
		}
	}
	if (optind < argc) {
		cli_error("sweep: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if (access(db, F_OK) == 0 && isotier_history_open(&h, db, 5000, &err) < 0) {
		cli_error("history database %s: %s (leftovers are swept all the same)", db,
		          err.message);
		h = NULL;
	}
	int swept = 0;
	size_t stale = 0;
	int rc = leftovers_sweep(h, &swept, &stale, &err);
	printf("swept %d leftover%s; %zu run%s marked interrupted\n", swept,
	       swept == 1 ? "" : "s", stale, stale == 1 ? "" : "s");
	if (rc < 0) {
		cli_error("history database %s: %s", db, err.message);
		return EXIT_IOERR;
	}
	return EXIT_OK;
}

const struct cli_command cli_sweep = {
    .name = "sweep",
    .summary = "release what runs that died (SIGKILL, power loss) left behind",
    .main = sweep_main,
};
