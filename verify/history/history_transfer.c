/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_transfer.c - `isotier history export`, `import` and `migrate`:
 * a history out as JSON Lines, histories in (SQLite files or exports,
 * idempotent by uuid), and a file's history into a fleet's PostgreSQL.
 * The SQL is the history module's (reference/history/history_transfer.c).
 */
#include "history_table.h"

#include "../cmd/cli.h"
#include "../cmd/cli_options.h"

#include <string.h>
#include <unistd.h>

enum { OPT_DB = 'd', OPT_FROM = 'f', OPT_TO = 't' };

static const struct cli_option db_option[] = {
    CLI_HISTORY_OPTION(OPT_DB),
    CLI_OPTIONS_END,
};

static const struct cli_option migrate_options[] = {
    CLI_TEXT_OPTION("from", OPT_FROM, "FILE.db", "the SQLite history to read"),
    CLI_TEXT_OPTION("to", OPT_TO, "URI", "the PostgreSQL history to add it to"),
    CLI_OPTIONS_END,
};

#define TRANSFER_SYNOPSIS                                                                          \
	"usage: isotier history export [--db PATH|URI]\n"                                          \
	"       isotier history import [--db PATH|URI] FILE...\n"                                  \
	"       isotier history migrate --from FILE.db --to postgresql://..."
#define TRANSFER_ABOUT                                                                             \
	"export writes the whole history to standard output as JSON Lines\n"                       \
	"(isotier.history.export/1: runs, evidence once by hash, observations with their\n"        \
	"stored documents verbatim), streamed. import adds SQLite histories or exports\n"          \
	"to --db in one transaction each; a run or observation already there (same\n"              \
	"uuid) is skipped, so importing twice adds nothing. migrate is import of one\n"            \
	"SQLite file into a PostgreSQL history."
#define TRANSFER_EXIT                                                                              \
	"Exit status: 0 done, 64 usage, 65 a file that is not a history or an export (or\n"        \
	"holds a time from the future: refused whole), 66 no such file, 74 a database that\n"      \
	"cannot be read or written."

static const struct cli_spec specs[] = {
    {.name = "history export",
     .synopsis = TRANSFER_SYNOPSIS,
     .about = TRANSFER_ABOUT,
     .options = db_option,
     .epilogue = TRANSFER_EXIT},
    {.name = "history import",
     .synopsis = TRANSFER_SYNOPSIS,
     .about = TRANSFER_ABOUT,
     .options = db_option,
     .epilogue = TRANSFER_EXIT,
     .operands = true,
     .operands_anywhere = true},
    {.name = "history migrate",
     .synopsis = TRANSFER_SYNOPSIS,
     .about = TRANSFER_ABOUT,
     .options = migrate_options,
     .epilogue = TRANSFER_EXIT},
};

struct transfer_args {
	const char *db, *from, *to;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct transfer_args *a = ctx;
	(void)number;
	switch (key) {
	case OPT_DB: a->db = value; break;
	case OPT_FROM: a->from = value; break;
	case OPT_TO: a->to = value; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

static int export_main(const char *db)
{
	int rc = cli_history_readable(db);
	if (rc != EXIT_OK)
		return rc;
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if (isotier__history_open_readonly(&h, db, &err) < 0 ||
	    isotier__history_export(h, stdout, &err) < 0)
		return cli_fail(&err);
	return EXIT_OK;
}

static int import_files(const char *db, char **files, int n)
{
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if (isotier__history_open(&h, db, 0, &err) < 0)
		return cli_fail(&err);
	for (int i = 0; i < n; i++) {
		if (access(files[i], R_OK) != 0) {
			cli_error("import: no readable file %s", files[i]);
			return EXIT_NOINPUT;
		}
		isotier_transfer_counts c = {0};
		if (isotier__history_import(h, files[i], &c, &err) < 0)
			return cli_fail(&err);
		printf("%s: %zu run%s, %zu observation%s added; %zu already present\n", files[i],
		       c.runs, cli_plural(c.runs, "", "s"), c.observations,
		       cli_plural(c.observations, "", "s"), c.skipped);
		if (c.audit_events || c.audit_skipped)
			printf("%s: %zu audit event%s added; %zu already present\n", files[i],
			       c.audit_events, cli_plural(c.audit_events, "", "s"),
			       c.audit_skipped);
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
}

int history_transfer_main(int argc, char **argv)
{
	/* argv[1] is the verb (the caller checked it is one of ours); it is
	 * the parse's argv[0], as a command's name is. */
	const char *verb = argv[1];
	const struct cli_spec *spec = !strcmp(verb, "export")   ? &specs[0]
	                              : !strcmp(verb, "import") ? &specs[1]
	                                                        : &specs[2];
	struct transfer_args a = {.db = isotier__default_db_path()};
	int first = 0, rc = cli_parse(spec, argc - 1, argv + 1, on_option, &a, &first);
	if (rc == CLI_HELP_SHOWN)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	char **files = argv + 1 + first;
	int n = argc - 1 - first;
	if (!strcmp(verb, "export"))
		return export_main(a.db);
	if (!strcmp(verb, "import")) {
		if (!n) {
			cli_error("history import: which files? (SQLite histories or exports)");
			return EXIT_USAGE;
		}
		return import_files(a.db, files, n);
	}
	if (!a.from || !a.to || !isotier__history_is_uri(a.to) || isotier__history_is_uri(a.from)) {
		cli_error("history migrate: --from FILE.db --to postgresql://... (both needed)");
		return EXIT_USAGE;
	}
	char *from = (char *)a.from;
	return import_files(a.to, &from, 1);
}
