/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_retention.c - `isotier history prune`: a retention policy applied
 * to the history in one transaction (reference/history/history_prune.c says what is
 * always kept), --dry-run counting what would go, --vacuum giving SQLite's
 * file back its space.
 */
#include "history_table.h"

#include "../cmd/cli.h"
#include "../cmd/cli_options.h"

#include <string.h>
#include <sys/stat.h>

enum {
	OPT_DB = 'd',
	OPT_OLDER = 'o',
	OPT_KEEP = 'k',
	OPT_DRY = 'n',
	OPT_VACUUM = 'v',
	OPT_BUSY = 'b'
};

static const struct cli_option options[] = {
    CLI_HISTORY_OPTION(OPT_DB),
    CLI_NUMBER_OPTION("older-than", OPT_OLDER, "DAYS", 1, 36500,
                      "remove rows older than DAYS days (by their own time)"),
    CLI_NUMBER_OPTION("keep-last", OPT_KEEP, "N", 1, 1000000,
                      "keep the newest N observations of each backend and\n"
                      "host (and N checks of each source); with --older-than,\n"
                      "a row goes only when both let it"),
    CLI_FLAG_OPTION("dry-run", OPT_DRY, "print what would go and change nothing"),
    CLI_FLAG_OPTION("vacuum", OPT_VACUUM,
                    "then VACUUM an SQLite history (the file shrinks;\nPostgreSQL: refused)"),
    CLI_NUMBER_OPTION("busy-timeout", OPT_BUSY, "MS", 1, 3600000,
                      "wait this long for another writer's lock (default 5000)"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "history prune",
    .synopsis = "usage: isotier history prune [--db PATH|URI] [--older-than DAYS] [--keep-last N]\n"
                "                             [--dry-run] [--vacuum] [--busy-timeout MS]",
    .about = "Removes observations, their evidence, source checks and the finished runs left\n"
             "empty that a retention policy lets go, in one transaction, and records a\n"
             "history_pruned audit event with the counts. Whatever the policy, it keeps what\n"
             "the gate, a source's renewal and the report decide by: each backend's newest\n"
             "row of every verdict and ceiling (so the latest verdicts and the CONTRADICTED\n"
             "or INCONCLUSIVE rows that refuse), this host's newest 64 signed rows of each,\n"
             "each source's newest check of each status, rows dated after now or not\n"
             "readably dated, and every audit event: `isotier run` and create() decide the\n"
             "same before and after. On PostgreSQL, run it as the history's owner.\n"
             "runbook/jobs.md#retention.",
    .options = options,
    .epilogue = "Exit status: 0 pruned (or, with --dry-run, counted); 64 usage (no policy,\n"
                "--vacuum on PostgreSQL); 66 no history there; 74 the history cannot be\n"
                "written (a read-only file, a role without DELETE); 75 locked by another\n"
                "writer; 77 not readable by this user. Nothing changes unless it exits 0.",
};

struct prune_args {
	const char *db;
	isotier_prune_policy p;
	bool vacuum;
	int busy_ms;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct prune_args *a = ctx;
	switch (key) {
	case OPT_DB: a->db = value; break;
	case OPT_OLDER: a->p.older_than_days = number; break;
	case OPT_KEEP: a->p.keep_last = number; break;
	case OPT_DRY: a->p.dry_run = true; break;
	case OPT_VACUUM: a->vacuum = true; break;
	case OPT_BUSY: a->busy_ms = number; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

/* The file's bytes with its log (-1: not a file). */
static long long file_bytes(const char *db)
{
	if (isotier__history_is_uri(db))
		return -1;
	struct stat st;
	long long n = 0;
	char wal[4200];
	if (stat(db, &st) != 0)
		return -1;
	n = (long long)st.st_size;
	snprintf(wal, sizeof wal, "%s-wal", db);
	if (stat(wal, &st) == 0)
		n += (long long)st.st_size;
	return n;
}

int history_prune_main(int argc, char **argv)
{
	struct prune_args a = {.db = isotier__default_db_path()};
	int first = 0, rc = cli_parse(&spec, argc - 1, argv + 1, on_option, &a, &first);
	if (rc == CLI_HELP_SHOWN)
		return EXIT_OK;
	if (rc != 0)
		return rc;
	if (!a.p.older_than_days && !a.p.keep_last) {
		cli_error("history prune: which rows? --older-than DAYS, --keep-last N or both");
		return EXIT_USAGE;
	}
	if (a.vacuum && isotier__history_is_uri(a.db)) {
		cli_error("history prune: --vacuum is SQLite's (PostgreSQL's autovacuum reclaims "
		          "the space)");
		return EXIT_USAGE;
	}
	/* A history that is not there is not created to be pruned. */
	if ((rc = cli_history_readable(a.db)) != EXIT_OK)
		return rc;
	char display[512];
	isotier__history_display(a.db, display, sizeof display);
	long long before = file_bytes(a.db);
	isotier_error err = {0};
	cleanup_history isotier_history *h = NULL;
	isotier_prune_counts n = {0};
	if (isotier__history_open(&h, a.db, a.busy_ms, &err) < 0 ||
	    isotier__history_prune(h, &a.p, &n, &err) < 0) {
		int code = cli_fail(&err);
		fprintf(stderr, "isotier: history prune: %s %s%s\n", display,
		        n.committed ? "was pruned, but its log could not be synced"
		                    : "is unchanged",
		        cli_db_why(a.db));
		return code;
	}
	printf("%s: %s %lld observation%s, %lld evidence blob%s, %lld source check%s, %lld "
	       "run%s; %lld observation%s kept\n",
	       display, a.p.dry_run ? "would remove" : "removed", (long long)n.observations,
	       cli_plural((size_t)n.observations, "", "s"), (long long)n.evidence_blobs,
	       cli_plural((size_t)n.evidence_blobs, "", "s"), (long long)n.source_checks,
	       cli_plural((size_t)n.source_checks, "", "s"), (long long)n.runs,
	       cli_plural((size_t)n.runs, "", "s"), (long long)n.kept_observations,
	       cli_plural((size_t)n.kept_observations, "", "s"));
	if (a.vacuum && !a.p.dry_run) {
		if (isotier__history_vacuum(h, &err) < 0)
			return cli_fail(&err);
		long long after = file_bytes(a.db);
		if (before >= 0 && after >= 0)
			printf("%s: vacuumed, %lld bytes before, %lld after\n", display, before,
			       after);
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_IOERR;
}
