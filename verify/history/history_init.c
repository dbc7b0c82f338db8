/* SPDX-License-Identifier: Apache-2.0 */
/* history_init.c - `isotier history init --db URI`: the owner's bootstrap of
 * a fleet's PostgreSQL history (runbook/fleet.md): schema, one role per
 * runner host under row-level security, read-only auditors. */
#include "history_table.h"
#include "../cmd/cli_options.h"

#include <string.h>

#define MAX_ROLES 256

struct init_args {
	const char *db;
	const char *runners[MAX_ROLES], *hosts[MAX_ROLES], *auditors[MAX_ROLES];
	char runner_buf[MAX_ROLES][128];
	size_t n, n_auditors;
};

enum { OPT_DB = 'd', OPT_RUNNER = 'r', OPT_AUDITOR = 'a' };

static const struct cli_option options[] = {
    {.name = "db",
     .key = OPT_DB,
     .kind = CLI_TEXT,
     .metavar = "URI",
     .help = "the fleet's PostgreSQL history, as its owner (default {})",
     .dflt = cli_default_db_text,
     .short_too = true},
    CLI_TEXT_OPTION(
        "runner", OPT_RUNNER, "ROLE=MACHINE_ID",
        "a runner host's role and its machine id (/etc/machine-id): the role may insert\n"
        "and update only rows naming that id; repeat for each host"),
    CLI_TEXT_OPTION("auditor", OPT_AUDITOR, "ROLE",
                    "a read-only role (SELECT on every table); repeat for several"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "history init",
    .synopsis = "usage: isotier history init --db postgresql://OWNER@.../DB\n"
                "                            [--runner ROLE=MACHINE_ID]... [--auditor ROLE]...",
    .about = "Sets up a fleet's PostgreSQL history as its owner: creates or migrates the\n"
             "schema, enables row-level security on runs, observations, audit events and\n"
             "source checks so that each runner role inserts and updates only rows naming\n"
             "its own host's machine id (isotier_hosts maps roles to hosts), and grants\n"
             "runners and read-only auditors what they need. The roles must exist (CREATE\n"
             "ROLE ... LOGIN, as a superuser or CREATEROLE). Run it again to add a host or\n"
             "after an upgrade: it is idempotent. runbook/fleet.md has the whole recipe.",
    .options = options,
    .epilogue = "Exit status: 0 set up; 64 usage (a role name or machine id not in form, or\n"
                "an SQLite file); 74 the database refused (not its owner, a role missing).",
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	(void)number;
	struct init_args *a = ctx;
	if (key == OPT_DB) {
		a->db = value;
		return 0;
	}
	if (key == OPT_AUDITOR) {
		if (a->n_auditors == MAX_ROLES)
			return EXIT_USAGE;
		a->auditors[a->n_auditors++] = value;
		return 0;
	}
	if (key != OPT_RUNNER)
		return EXIT_SOFTWARE;
	const char *eq = strchr(value, '=');
	if (!eq || a->n == MAX_ROLES || (size_t)(eq - value) >= sizeof a->runner_buf[0]) {
		cli_error("history init: --runner ROLE=MACHINE_ID, not '%s'", value);
		return EXIT_USAGE;
	}
	snprintf(a->runner_buf[a->n], sizeof a->runner_buf[0], "%.*s", (int)(eq - value), value);
	a->runners[a->n] = a->runner_buf[a->n];
	a->hosts[a->n++] = eq + 1;
	return 0;
}

int history_init_main(int argc, char **argv)
{
	static struct init_args a;
	memset(&a, 0, sizeof a);
	a.db = isotier__default_db_path();
	int first = 0, rc = cli_parse(&spec, argc - 1, argv + 1, on_option, &a, &first);
	if (rc == CLI_HELP_SHOWN)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	if (!isotier__history_is_uri(a.db)) {
		cli_error("history init: --db must be a postgresql:// URI (roles and row-level "
		          "security are PostgreSQL's)");
		return EXIT_USAGE;
	}
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if (isotier__history_open(&h, a.db, 0, &err) < 0)
		return cli_fail(&err);
	if (isotier__history_fleet_init(h, a.runners, a.hosts, a.n, a.auditors, a.n_auditors,
	                                &err) < 0) {
		if (err.code == ISOTIER_EINVAL) {
			cli_error("%s", err.message);
			return EXIT_USAGE;
		}
		return cli_fail(&err);
	}
	char shown[512];
	isotier__history_display(a.db, shown, sizeof shown);
	printf("history init: ");
	isotier__fputs_sanitized(stdout, shown);
	printf(": schema %d, %zu runner%s, %zu auditor%s; row-level security on the host id\n",
	       isotier__history_schema_version(h), a.n, a.n == 1 ? "" : "s", a.n_auditors,
	       a.n_auditors == 1 ? "" : "s");
	return EXIT_OK;
}
