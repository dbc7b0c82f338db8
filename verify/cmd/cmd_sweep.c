/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sweep.c - `isotier sweep`: releases what runs that died without seeing
 * it (SIGKILL, power loss) left behind, as every `verify` does first. */
#include "cli.h"
#include "cli_options.h"
#include "../run/leftovers.h"

#include <unistd.h>

static const struct cli_option options[] = {
    {"db", 'd', CLI_TEXT, "PATH", cli_check_db, 0, 0,
     "history database (default {});\nnot created when it does not exist", cli_default_db_text,
     true},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL, NULL, false},
};

static const struct cli_spec spec = {
    .name = "sweep",
    .synopsis = "usage: isotier sweep [--db PATH]",
    .about = "Releases what runs whose process is gone left behind: each container, image,\n"
             "OCI container, QEMU process, remote sandbox and temp dir a run creates is\n"
             "first leased in the host's state directory ($ISOTIER_STATE_DIR/leases; else\n"
             "/var/lib/isotier/leases for root, $XDG_RUNTIME_DIR/isotier/leases or\n"
             "~/.local/state/isotier/leases) and the lease dropped once it is released.\n"
             "A lease whose owner (pid and start time) is gone is swept: what it names is\n"
             "removed and reported on stderr (and as a leftover_swept audit event in the\n"
             "history). Runs in the history left 'running' by a process that is gone are\n"
             "marked interrupted (a run_interrupted audit event; the report alerts on it).\n"
             "`isotier verify` does the same before it starts.",
    .options = options,
    .epilogue = "Exit status: 0 swept (or nothing to sweep); 64 usage; 74 the history could\n"
                "not be written.",
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	(void)number;
	if (key != 'd')
		return EXIT_SOFTWARE;
	*(const char **)ctx = value;
	return 0;
}

static int sweep_main(int argc, char **argv)
{
	const char *db = isotier__default_db_path();
	int prc = cli_parse(&spec, argc, argv, on_option, &db, NULL);
	if (prc)
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if ((isotier__history_is_uri(db) || access(db, F_OK) == 0) &&
	    isotier__history_open(&h, db, 5000, &err) < 0) {
		cli_error("history database %s: %s (leftovers are swept all the same)", db,
		          err.message);
		h = NULL;
	}
	int swept = 0;
	size_t stale = 0;
	int rc = leftovers_sweep(h, &swept, &stale, &err);
	printf("swept %d leftover%s; %zu run%s marked interrupted\n", swept, swept == 1 ? "" : "s",
	       stale, stale == 1 ? "" : "s");
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
