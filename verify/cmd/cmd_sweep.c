/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_sweep.c - `isotier sweep`: releases what runs that died without seeing
 * it (SIGKILL, power loss) left behind, as every `verify` does first. */
#include "cli.h"
#include "cli_options.h"
#include "../run/leftovers.h"

#include <unistd.h>

static const struct cli_option options[] = {
    {.name = "db",
     .key = 'd',
     .kind = CLI_TEXT,
     .metavar = "PATH",
     .check = cli_check_db,
     .help =
         "history database (default {});\nnot created: one named that does not exist is an error",
     .dflt = cli_default_db_text,
     .short_too = true},
    CLI_OPTIONS_END,
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
    .epilogue = "Exit status: 0 swept (or nothing to sweep); 64 usage; and, when it could not\n"
                "do all of its work (what could be swept still is): 66 the history named\n"
                "(--db, $ISOTIER_DB) does not exist or is a directory; 77 it cannot be read\n"
                "(EACCES); 65 not a database, or its schema is newer than this isotier; 75 it\n"
                "stayed locked past 5 s; 74 it could not be opened or written (a read-only\n"
                "file system), or the lease directory could not be read.",
};

struct sweep_args {
	const char *db, *named_by; /* named_by NULL: the built-in default, which may be absent */
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	(void)number;
	if (key != 'd')
		return EXIT_SOFTWARE;
	struct sweep_args *a = ctx;
	a->db = value, a->named_by = "--db";
	return 0;
}

static int sweep_main(int argc, char **argv)
{
	struct sweep_args a = {isotier__default_db_path(), isotier__default_db_named_by()};
	int prc = cli_parse(&spec, argc, argv, on_option, &a, NULL);
	if (prc)
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	/* Every failure is an exit status (the job must not read "ok" where
	 * runs stay 'running'), but the leases are swept all the same. */
	int status = EXIT_OK;
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	char display[512];
	isotier__history_display(a.db, display, sizeof display);
	int present = isotier__history_present(a.db, a.named_by, &err);
	if (present > 0 && isotier__history_open(&h, a.db, 5000, &err) < 0) {
		h = NULL;
		present = -1;
	}
	if (present < 0) {
		cli_error("history database %s: %s%s (leftovers are swept all the same)", display,
		          err.message, cli_db_why(a.db));
		status = cli_exit_code(&err);
	}
	int swept = 0;
	size_t stale = 0;
	int rc = leftovers_sweep(h, &swept, &stale, &err);
	printf("swept %d leftover%s; %zu run%s marked interrupted\n", swept, swept == 1 ? "" : "s",
	       stale, stale == 1 ? "" : "s");
	if (rc < 0) {
		cli_error("sweep: %s%s", err.message, h ? cli_db_why(a.db) : "");
		if (status == EXIT_OK)
			status = err.code == ISOTIER_EBUSY ? EXIT_TEMPFAIL : EXIT_IOERR;
	}
	return status;
}

const struct cli_command cli_sweep = {
    .name = "sweep",
    .summary = "release what runs that died (SIGKILL, power loss) left behind",
    .main = sweep_main,
};
