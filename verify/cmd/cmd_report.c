/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_report.c - `isotier report`: the history database (read-only) and the
 * catalogue rendered in every format of report_format.c's table.
 * Reproducible: no clock is read; the report's date is the newest stored
 * timestamp unless --today says otherwise.
 */
#include "../../reference/api/isotier_tool.h"
#include "cli.h"
#include "cli_options.h"
#include "../report/report_format.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static const char *max_age_default(void)
{
	static char text[16];
	snprintf(text, sizeof text, "%d", ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS);
	return text;
}

static const char *reverify_default(void)
{
	static char text[16];
	snprintf(text, sizeof text, "%d", REPORT_REVERIFY_DAYS);
	return text;
}

/* --format's help: one line per row of the format table. */
static const char *format_help(void)
{
	static char text[2048];
	size_t used = 0;
	for (size_t i = 0; i < report_format_count && used < sizeof text; i++) {
		int n = snprintf(text + used, sizeof text - used, "%s%-5s %s", i ? "\n" : "",
		                 report_formats[i]->name, report_formats[i]->audience);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return text;
}

static int check_format(const char *opt, const char *value)
{
	if (report_format_lookup(value))
		return 0;
	cli_error("report: %s must be %s", opt, report_format_names());
	return EXIT_USAGE;
}

enum {
	OPT_DB = 'd',
	OPT_FORMAT = 'f',
	OPT_OUT = 'o',
	OPT_SINCE = 's',
	OPT_CATALOGUE = 'c',
	OPT_NO_CATALOGUE = 'N',
	OPT_TODAY = 't',
	OPT_MAX_AGE = 'a',
	OPT_REVERIFY = 'r',
	OPT_BACKEND = 'b',
	OPT_LIST_FORMATS = 'L',
	OPT_HOST = 'H'
};

static const struct cli_option options[] = {
    CLI_DEFAULTED_OPTION("db", OPT_DB, "PATH", cli_check_db, "history database (default {})",
                         cli_default_db_text),
    CLI_DEFAULTED_OPTION("format", OPT_FORMAT, "FMT", check_format, "{}", format_help),
    CLI_FLAG_OPTION(
        "list-formats", OPT_LIST_FORMATS,
        "print the formats, one a line: name, file extension and\nmedia type, tab-separated"),
    CLI_TEXT_OPTION("out", OPT_OUT, "FILE",
                    "write FILE atomically (default: standard output); a FIFO\n"
                    "or device is written in place; a symbolic link is\n"
                    "refused (64), never followed; never the database itself"),
    CLI_TEXT_OPTION("since", OPT_SINCE, "DATE",
                    "only the history since DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"),
    CLI_DEFAULTED_OPTION("catalogue", OPT_CATALOGUE, "DIR", NULL, "provider catalogue (default {})",
                         cli_default_catalogue_text),
    CLI_FLAG_OPTION("no-catalogue", OPT_NO_CATALOGUE, "report the database alone"),
    CLI_TEXT_OPTION("today", OPT_TODAY, "DATE",
                    "date that ages are measured against (default: the newest\n"
                    "stored timestamp, so regenerating gives the same bytes)"),
    CLI_DEFAULTED_NUMBER_OPTION("max-age", OPT_MAX_AGE, "DAYS", 1, 36500,
                                "oldest a tier's defending source may be (default {})",
                                max_age_default),
    CLI_DEFAULTED_NUMBER_OPTION("reverify-days", OPT_REVERIFY, "DAYS", 1, 36500,
                                "longest a local backend may go unverified (default {});\n"
                                "UNAVAILABLE runs, and INCONCLUSIVE runs of a backend with\n"
                                "a claim, do not count as verified",
                                reverify_default),
    /* A misspelt name would be "verified by this job but never observed": an
     * alert about a backend that does not exist. */
    CLI_TEXT_OPTION(
        "host", OPT_HOST, "NAME",
        "only observations made on this host (its name or machine\nid; a fleet's shared history: "
        "runbook/fleet.md)"),
    CLI_CHECKED_OPTION("backend", OPT_BACKEND, "NAME", cli_check_backend,
                       "a backend this job verifies (repeatable): only these can\n"
                       "be overdue, and one never observed is (default: every\n"
                       "backend the history or catalogue names)"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "report",
    .synopsis =
        "usage: isotier report [--db PATH] --format FMT [--out FILE]\n"
        "                      [--since DATE] [--catalogue DIR | --no-catalogue]\n"
        "                      [--today YYYY-MM-DD] [--max-age DAYS] [--reverify-days DAYS]\n"
        "                      [--backend NAME]...\n"
        "       isotier report --list-formats",
    .about = "Renders the stored history (all of it, or since DATE) with the catalogue's\n"
             "claims and sources: the tier matrix, sources and their latest checks, the\n"
             "evidence behind observations, refusals, and what is stale or overdue. The\n"
             "database is opened read-only.",
    .options = options,
    .epilogue = "Exit status: 0 written (findings are in the report, not the status), 64 usage\n"
                "(--out names the database, --today before the newest record), 65 bad catalogue,\n"
                "66 no database, 70 the writer failed, 73/74 cannot write, 75 database locked,\n"
                "77 database not readable by this user (EACCES).",
};

struct report_args {
	report_options opts;
	const char *backends[64];
	const report_format *format;
	const char *out;
	bool no_catalogue, list_formats;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct report_args *a = ctx;
	switch (key) {
	case OPT_DB: a->opts.db_path = value; break;
	case OPT_BACKEND:
		if (a->opts.n_backends == sizeof a->backends / sizeof *a->backends) {
			cli_error("--backend: at most %zu",
			          sizeof a->backends / sizeof *a->backends);
			return EXIT_USAGE;
		}
		a->backends[a->opts.n_backends++] = value;
		a->opts.backends = a->backends;
		break;
	case OPT_FORMAT: a->format = report_format_lookup(value); break;
	case OPT_LIST_FORMATS: a->list_formats = true; break;
	case OPT_HOST: a->opts.host = value; break;
	case OPT_OUT: a->out = value; break;
	case OPT_SINCE: a->opts.since = value; break;
	case OPT_CATALOGUE: a->opts.catalogue_dir = value; break;
	case OPT_NO_CATALOGUE: a->no_catalogue = true; break;
	case OPT_TODAY: a->opts.today = value; break;
	case OPT_MAX_AGE: a->opts.max_source_age_days = number; break;
	case OPT_REVERIFY: a->opts.reverify_days = number; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

struct render {
	report_writer_fn write;
	const report_model *m;
};

static int render(FILE *f, const void *ctx)
{
	const struct render *r = ctx;
	return r->write(f, r->m);
}

static int list_formats(void)
{
	for (size_t i = 0; i < report_format_count; i++)
		printf("%s\t%s\t%s\n", report_formats[i]->name, report_formats[i]->extension,
		       report_formats[i]->media_type);
	return fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_IOERR;
}

static int report_main(int argc, char **argv)
{
	struct report_args a = {.opts = {.db_path = isotier__default_db_path()}};
	int rc = cli_parse(&spec, argc, argv, on_option, &a, NULL);
	if (rc)
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	if (a.list_formats)
		return list_formats();
	report_options opts = a.opts;
	if (!a.format) {
		cli_error("report: --format must be %s", report_format_names());
		return EXIT_USAGE;
	}
	if (a.no_catalogue && opts.catalogue_dir) {
		cli_error("report: --catalogue and --no-catalogue exclude each other");
		return EXIT_USAGE;
	}
	if (!a.no_catalogue && !opts.catalogue_dir)
		opts.catalogue_dir = cli_default_catalogue();

	/* Without --backend every backend is expected, but a remote one without
	 * credentials here is not configured, not overdue (verify --all skips it). */
	const char *nc[64], *nc_why[64];
	char why_buf[64][256];
	for (size_t i = 0;
	     !opts.backends && i < isotier__backend_count() && opts.n_not_configured < 64; i++) {
		const isotier_backend *b = isotier__backend_at(i);
		char *why = why_buf[opts.n_not_configured];
		why[0] = '\0';
		if (b->remote && b->available(why, sizeof why_buf[0]) != 1) {
			nc[opts.n_not_configured] = b->name;
			nc_why[opts.n_not_configured++] = why[0] ? why : "no credentials";
		}
	}
	opts.not_configured = nc;
	opts.not_configured_why = nc_why;
	if ((rc = cli_history_readable(opts.db_path)) != EXIT_OK)
		return rc; /* absent 66, as `isotier history`; unreadable 77 */
	isotier_error err = {0};
	report_model *m = NULL;
	if (report_model_load(&m, &opts, &err) < 0)
		return cli_fail(&err);
	rc = a.out ? cli_write_output("--out", a.out, opts.db_path, render,
	                              &(struct render){a.format->write, m})
	           : cli_write_stream(stdout, "standard output", render,
	                              &(struct render){a.format->write, m});
	report_model_free(m);
	return rc;
}

const struct cli_command cli_report = {
    .name = "report",
    .summary = "render the history as HTML, JSON, JUnit XML, Markdown or text",
    .main = report_main,
};
