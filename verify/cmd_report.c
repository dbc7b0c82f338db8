/*
 * cmd_report.c - `isotier report`: the history database (read-only) and the
 * catalogue rendered for auditors (HTML), machines (JSON), CI (JUnit XML) and
 * pull requests (Markdown). Reproducible: no clock is read; the report's date
 * is the newest stored timestamp unless --today says otherwise.
 */
#include "../catalogue/catalogue.h"
#include "cli.h"
#include "history.h"
#include "report_model.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: isotier report [--db PATH] --format html|json|junit|md [--out FILE]\n"
	    "                      [--since DATE] [--catalogue DIR | --no-catalogue]\n"
	    "                      [--today YYYY-MM-DD] [--max-age DAYS] [--reverify-days DAYS]\n\n"
	    "Renders the stored history (all of it, or since DATE: YYYY-MM-DD or\n"
	    "YYYY-MM-DDTHH:MM:SSZ) with the catalogue's claims and sources: the tier matrix,\n"
	    "sources and their latest checks, the evidence behind observations, refusals, and\n"
	    "what is stale or overdue. The database is opened read-only.\n\n"
	    "  --db PATH            history database (default %s)\n"
	    "  --format FMT         html (auditors), json (runbook/report.schema.json),\n"
	    "                       junit (CI), md (pull requests)\n"
	    "  --out FILE           write FILE atomically (default: standard output)\n"
	    "  --catalogue DIR      provider catalogue (default %s)\n"
	    "  --no-catalogue       report the database alone\n"
	    "  --today DATE         date that ages are measured against (default: the newest\n"
	    "                       stored timestamp, so regenerating gives the same bytes)\n"
	    "  --max-age DAYS       oldest a tier's defending source may be (default %d)\n"
	    "  --reverify-days DAYS longest a local backend may go unverified (default %d)\n\n"
	    "Exit status: 0 written (findings are in the report, not the status), 64 usage,\n"
	    "65 bad catalogue, 73/74 cannot write, 75 database unreadable.\n",
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

/* Writes beside the target and renames: a reader never sees half a report. */
static int write_file(const char *path, writer_fn write, const report_model *m)
{
	size_t len = strlen(path);
	if (len == 0 || len > PATH_MAX - 16) {
		cli_error("--out: bad path");
		return EXIT_USAGE;
	}
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("create %s: %s", tmp, strerror(errno));
		return EXIT_CANTCREAT;
	}
	if (fchmod(fd, 0644) != 0) { /* mkstemp's 0600 would hide the report from its readers */
		cli_error("chmod %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_CANTCREAT;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		cli_error("open %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_CANTCREAT;
	}
	int rc = write_stream(f, write, m, tmp);
	if (rc == EXIT_OK && fsync(fileno(f)) != 0) {
		cli_error("fsync %s: %s", tmp, strerror(errno));
		rc = EXIT_IOERR;
	}
	if (fclose(f) != 0 && rc == EXIT_OK) {
		cli_error("close %s: %s", tmp, strerror(errno));
		rc = EXIT_IOERR;
	}
	if (rc == EXIT_OK && rename(tmp, path) != 0) {
		cli_error("rename %s to %s: %s", tmp, path, strerror(errno));
		rc = EXIT_CANTCREAT;
	}
	if (rc != EXIT_OK)
		unlink(tmp);
	return rc;
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
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	report_options opts = {.db_path = ISOTIER_DEFAULT_DB};
	const char *format = NULL, *out = NULL;
	bool no_catalogue = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': opts.db_path = optarg; break;
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
			cli_error("report: unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
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
		cli_error("report: --format must be html, json, junit or md");
		return EXIT_USAGE;
	}
	if (no_catalogue && opts.catalogue_dir) {
		cli_error("report: --catalogue and --no-catalogue exclude each other");
		return EXIT_USAGE;
	}
	if (!no_catalogue && !opts.catalogue_dir)
		opts.catalogue_dir = cli_default_catalogue();

	opts.all_durations = write == report_write_json;
	isotier_error err = {0};
	report_model *m = NULL;
	if (report_model_load(&m, &opts, &err) < 0)
		return cli_fail(&err);
	int rc =
	    out ? write_file(out, write, m) : write_stream(stdout, write, m, "standard output");
	report_model_free(m);
	return rc;
}

const struct cli_command cli_report = {
    .name = "report",
    .summary = "render the history as HTML, JSON, JUnit XML or Markdown",
    .main = report_main,
};
