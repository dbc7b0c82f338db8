/*
 * cmd_report.c - `isotier report`: the history database (read-only) and the
 * catalogue rendered for auditors (HTML), machines (JSON), CI (JUnit XML) and
 * pull requests (Markdown). Reproducible: no clock is read; the report's date
 * is the newest stored timestamp unless --today says otherwise.
 */
#include "../reference/isotier_tool.h"
#include "cli.h"
#include "report_model.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: isotier report [--db PATH] --format html|json|junit|md|text [--out FILE]\n"
	    "                      [--since DATE] [--catalogue DIR | --no-catalogue]\n"
	    "                      [--today YYYY-MM-DD] [--max-age DAYS] [--reverify-days DAYS]\n"
	    "                      [--backend NAME]...\n\n"
	    "Renders the stored history (all of it, or since DATE: YYYY-MM-DD or\n"
	    "YYYY-MM-DDTHH:MM:SSZ) with the catalogue's claims and sources: the tier matrix,\n"
	    "sources and their latest checks, the evidence behind observations, refusals, and\n"
	    "what is stale or overdue. The database is opened read-only.\n\n"
	    "  --db PATH            history database (default $ISOTIER_DB, else %s)\n"
	    "  --format FMT         html (auditors), json (runbook/report.schema.json),\n"
	    "                       junit (CI), md (pull requests), text (a terminal, a log\n"
	    "                       or a mail: the banner and what needs attention, each\n"
	    "                       with its remedy and the command that looks closer)\n"
	    "  --out FILE           write FILE atomically (default: standard output); a FIFO\n"
	    "                       or device is written in place; a symbolic link is\n"
	    "                       refused (64), never followed; never the database itself\n"
	    "  --catalogue DIR      provider catalogue (default %s)\n"
	    "  --no-catalogue       report the database alone\n"
	    "  --today DATE         date that ages are measured against (default: the newest\n"
	    "                       stored timestamp, so regenerating gives the same bytes)\n"
	    "  --max-age DAYS       oldest a tier's defending source may be (default %d)\n"
	    "  --reverify-days DAYS longest a local backend may go unverified (default %d);\n"
	    "                       UNAVAILABLE runs, and INCONCLUSIVE runs of a backend with\n"
	    "                       a claim, do not count as verified\n"
	    "  --backend NAME       a backend this job verifies (repeatable): only these can\n"
	    "                       be overdue, and one never observed is (default: every\n"
	    "                       backend the history or catalogue names)\n\n"
	    "Exit status: 0 written (findings are in the report, not the status), 64 usage\n"
	    "(--out names the database, --today before the newest record), 65 bad catalogue,\n"
	    "66 no database, 73/74 cannot write, 75 database unreadable.\n",
	    ISOTIER_DEFAULT_DB, cli_default_catalogue(), ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS,
	    REPORT_REVERIFY_DAYS);
}

typedef int (*writer_fn)(FILE *, const report_model *);

static const struct {
	const char *name;
	writer_fn write;
} formats[] = {
    {"html", report_write_html},
    {"json", report_write_json},
    {"junit", report_write_junit},
    {"md", report_write_md},
    {"text", report_write_text},
};

static int write_stream(FILE *f, writer_fn write, const report_model *m, const char *name)
{
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	write(f, m);
	if (fflush(f) != 0 || ferror(f)) {
		cli_error("write %s: %s", name, strerror(errno ? errno : EIO));
		return EXIT_IOERR;
	}
	return EXIT_OK;
}

struct render {
	writer_fn write;
	const report_model *m;
};

static int render(FILE *f, const void *ctx)
{
	const struct render *r = ctx;
	return r->write(f, r->m);
}

static int report_main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"format", required_argument, NULL, 'f'},
	    {"out", required_argument, NULL, 'o'},
	    {"since", required_argument, NULL, 's'},
	    {"catalogue", required_argument, NULL, 'c'},
	    {"no-catalogue", no_argument, NULL, 'N'},
	    {"today", required_argument, NULL, 't'},
	    {"max-age", required_argument, NULL, 'a'},
	    {"reverify-days", required_argument, NULL, 'r'},
	    {"backend", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	report_options opts = {.db_path = isotier_default_db_path()};
	const char *backends[64];
	size_t n_backends = 0;
	const char *format = NULL, *out = NULL;
	bool no_catalogue = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			opts.db_path = optarg;
			break;
		case 'b':
			/* A misspelt name would be "verified by this job but never
			 * observed": an alert about a backend that does not exist. */
			if (!isotier_backend_lookup(optarg)) {
				const char *hint = cli_suggest_backend(optarg);
				cli_error("--backend: unknown backend '%s'%s%s%s", optarg,
				          hint ? " (did you mean '" : "", hint ? hint : "",
				          hint ? "'?)" : "");
				return EXIT_USAGE;
			}
			if (n_backends == sizeof backends / sizeof *backends) {
				cli_error("--backend: at most %zu", sizeof backends / sizeof *backends);
				return EXIT_USAGE;
			}
			backends[n_backends++] = optarg;
			opts.backends = backends;
			opts.n_backends = n_backends;
			break;
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 's': opts.since = optarg; break;
		case 'c': opts.catalogue_dir = optarg; break;
		case 'N': no_catalogue = true; break;
		case 't': opts.today = optarg; break;
		case 'a':
			if (cli_parse_int("--max-age", optarg, 1, 36500, &opts.max_source_age_days) < 0)
				return EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_int("--reverify-days", optarg, 1, 36500, &opts.reverify_days) < 0)
				return EXIT_USAGE;
			break;
		case 'h': usage(stdout); return EXIT_OK;
		case ':':
			cli_error("report: %s needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			return cli_unknown_option("report", argv[optind - 1], longopts, usage);
		}
	}
	if (optind < argc) {
		cli_error("report: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	writer_fn write = NULL;
	for (size_t i = 0; format && i < sizeof formats / sizeof formats[0]; i++)
		if (!strcmp(format, formats[i].name))
			write = formats[i].write;
	if (!write) {
		cli_error("report: --format must be html, json, junit, md or text");
		return EXIT_USAGE;
	}
	if (no_catalogue && opts.catalogue_dir) {
		cli_error("report: --catalogue and --no-catalogue exclude each other");
		return EXIT_USAGE;
	}
	if (!no_catalogue && !opts.catalogue_dir)
		opts.catalogue_dir = cli_default_catalogue();

	/* Without --backend every backend is expected, but a remote one without
	 * credentials here is not configured, not overdue (verify --all skips it). */
	const char *nc[64], *nc_why[64];
	char why_buf[64][256];
	for (size_t i = 0; !opts.backends && i < isotier_backend_count() && opts.n_not_configured < 64;
	     i++) {
		const isotier_backend *b = isotier_backend_at(i);
		char *why = why_buf[opts.n_not_configured];
		why[0] = '\0';
		if (b->remote && b->available(why, sizeof why_buf[0]) != 1) {
			nc[opts.n_not_configured] = b->name;
			nc_why[opts.n_not_configured++] = why[0] ? why : "no credentials";
		}
	}
	opts.not_configured = nc;
	opts.not_configured_why = nc_why;
	opts.all_durations = write == report_write_json;
	if (access(opts.db_path, F_OK) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
		cli_error("no history database at %s (`isotier verify` creates it)", opts.db_path);
		return 66; /* EX_NOINPUT, as `isotier history` */
	}
	isotier_error err = {0};
	report_model *m = NULL;
	if (report_model_load(&m, &opts, &err) < 0)
		return cli_fail(&err);
	int rc = out ? cli_write_output("--out", out, opts.db_path, render,
	                                &(struct render){write, m})
	             : write_stream(stdout, write, m, "standard output");
	report_model_free(m);
	return rc;
}

const struct cli_command cli_report = {
    .name = "report",
    .summary = "render the history as HTML, JSON, JUnit XML or Markdown",
    .main = report_main,
};
