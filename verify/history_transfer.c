/*
 * history_transfer.c - `isotier history export`, `import` and `migrate`:
 * a history out as JSON Lines, histories in (SQLite files or exports,
 * idempotent by uuid), and a file's history into a fleet's PostgreSQL.
 * The SQL is the history module's (reference/history_transfer.c).
 */
#include "history_table.h"

#include "cli.h"

#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: isotier history export [--db PATH|URI]\n"
	      "       isotier history import [--db PATH|URI] FILE...\n"
	      "       isotier history migrate --from FILE.db --to postgresql://...\n\n"
	      "export writes the whole history to standard output as JSON Lines\n"
	      "(isotier.history.export/1: runs, evidence once by hash, observations with their\n"
	      "stored documents verbatim), streamed. import adds SQLite histories or exports\n"
	      "to --db in one transaction each; a run or observation already there (same\n"
	      "uuid) is skipped, so importing twice adds nothing. migrate is import of one\n"
	      "SQLite file into a PostgreSQL history.\n\n"
	      "Exit status: 0 done, 64 usage, 65 a file that is not a history or an export,\n"
	      "66 no such file, 74 a database that cannot be read or written.\n",
	      f);
}

static int export_main(const char *db)
{
	if (!isotier_history_is_uri(db) && access(db, F_OK) != 0) {
		cli_error("no history database at %s (`isotier verify` creates it)", db);
		return EXIT_NOINPUT;
	}
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if (isotier_history_open_readonly(&h, db, &err) < 0 ||
	    isotier_history_export(h, stdout, &err) < 0)
		return cli_fail(&err);
	return EXIT_OK;
}

static int import_files(const char *db, char **files, int n)
{
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	if (isotier_history_open(&h, db, 0, &err) < 0)
		return cli_fail(&err);
	for (int i = 0; i < n; i++) {
		if (access(files[i], R_OK) != 0) {
			cli_error("import: no readable file %s", files[i]);
			return EXIT_NOINPUT;
		}
		isotier_transfer_counts c = {0};
		if (isotier_history_import(h, files[i], &c, &err) < 0)
			return cli_fail(&err);
		printf("%s: %zu run%s, %zu observation%s added; %zu already present\n", files[i],
		       c.runs, cli_plural(c.runs, "", "s"), c.observations,
		       cli_plural(c.observations, "", "s"), c.skipped);
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
}

int history_transfer_main(int argc, char **argv)
{
	const char *verb = argv[1], *db = isotier_default_db_path(), *from = NULL, *to = NULL;
	char *files[256];
	int n = 0;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		bool has_value = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--db") && has_value) {
			db = argv[++i];
			int c = cli_check_db("--db", db);
			if (c != EXIT_OK)
				return c;
		} else if (!strcmp(a, "--from") && has_value && !strcmp(verb, "migrate")) {
			from = argv[++i];
		} else if (!strcmp(a, "--to") && has_value && !strcmp(verb, "migrate")) {
			to = argv[++i];
		} else if (a[0] == '-') {
			cli_error("history %s: unknown option or missing value '%s'", verb, a);
			usage(stderr);
			return EXIT_USAGE;
		} else if (!strcmp(verb, "import") && n < 256) {
			files[n++] = argv[i];
		} else {
			cli_error("history %s: unexpected argument '%s'", verb, a);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(verb, "export"))
		return export_main(db);
	if (!strcmp(verb, "import")) {
		if (!n) {
			cli_error("history import: which files? (SQLite histories or exports)");
			return EXIT_USAGE;
		}
		return import_files(db, files, n);
	}
	if (!from || !to || !isotier_history_is_uri(to) || isotier_history_is_uri(from)) {
		cli_error("history migrate: --from FILE.db --to postgresql://... (both needed)");
		return EXIT_USAGE;
	}
	files[0] = (char *)from;
	return import_files(to, files, 1);
}
