/* SPDX-License-Identifier: Apache-2.0 */
/* cli_options.c - options from a table (see cli_options.h). */
#include "cli_options.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

#define CLI_OPTIONS_MAX 64
#define KEY_HELP        0x10000 /* outside every printable key */

static size_t option_count(const struct cli_spec *spec)
{
	size_t n = 0;
	while (spec->options && spec->options[n].name && n < CLI_OPTIONS_MAX - 1)
		n++;
	return n;
}

/* "--name VALUE" as the usage spells it. */
static int spelled(char *buf, size_t len, const struct cli_option *o)
{
	return snprintf(buf, len, "--%s%s%s", o->name, o->kind == CLI_FLAG ? "" : " ",
	                o->kind == CLI_FLAG ? "" : (o->metavar ? o->metavar : "VALUE"));
}

/* The option's help, "{}" replaced by its default (which may span lines). */
static void expand_help(char *buf, size_t len, const struct cli_option *o)
{
	const char *h = o->help ? o->help : "";
	const char *mark = o->dflt ? strstr(h, "{}") : NULL;
	if (!mark)
		snprintf(buf, len, "%s", h);
	else
		snprintf(buf, len, "%.*s%s%s", (int)(mark - h), h, o->dflt(), mark + 2);
}

void cli_usage(const struct cli_spec *spec, FILE *f)
{
	fprintf(f, "%s\n\n", spec->synopsis);
	if (spec->about)
		fprintf(f, "%s\n\n", spec->about);
	size_t n = option_count(spec), width = 6; /* --help */
	char name[96];
	for (size_t i = 0; i < n; i++) {
		size_t w = (size_t)spelled(name, sizeof name, &spec->options[i]);
		if (w > width)
			width = w;
	}
	if (width > 22)
		width = 22; /* a longer one puts its help on the next line */
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &spec->options[i];
		int w = spelled(name, sizeof name, o);
		fprintf(f, "  %-*s  ", (int)width, name);
		if ((size_t)w > width)
			fprintf(f, "\n  %-*s  ", (int)width, "");
		char text[4096];
		expand_help(text, sizeof text, o);
		const char *h = text;
		for (bool first = true;; first = false) {
			const char *nl = strchr(h, '\n');
			size_t len = nl ? (size_t)(nl - h) : strlen(h);
			if (!first)
				fprintf(f, "  %-*s  ", (int)width, "");
			fwrite(h, 1, len, f);
			fputc('\n', f);
			if (!nl)
				break;
			h = nl + 1;
		}
	}
	fprintf(f, "  %-*s  this text\n", (int)width, "--help");
	if (spec->epilogue)
		fprintf(f, "\n%s\n", spec->epilogue);
}

static void usage_to_stderr(const struct cli_spec *spec)
{
	cli_usage(spec, stderr);
}

int cli_parse(const struct cli_spec *spec, int argc, char **argv, cli_handler_fn on, void *ctx,
              int *first)
{
	struct option longopts[CLI_OPTIONS_MAX + 1];
	/* With operands, options end at the first one ("+"): a command's own
	 * arguments after it are never taken for ours. */
	char shortopts[2 * CLI_OPTIONS_MAX + 4];
	snprintf(shortopts, sizeof shortopts, "%s:h",
	         spec->operands && !spec->operands_anywhere ? "+" : "");
	size_t n = option_count(spec), ns = strlen(shortopts);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = &spec->options[i];
		longopts[i] = (struct option){
		    o->name, o->kind == CLI_FLAG ? no_argument : required_argument, NULL, o->key};
		if (o->short_too && o->key > ' ' && o->key < 0x7f) {
			shortopts[ns++] = (char)o->key;
			if (o->kind != CLI_FLAG)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
	longopts[n] = (struct option){"help", no_argument, NULL, KEY_HELP};
	longopts[n + 1] = (struct option){0};
	/* 0, not 1: glibc then reads the ordering ('+' or permute) of this spec anew; with 1 it
	 * keeps the one of the first parse in the process (a second command, a test suite). */
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h' || c == KEY_HELP) {
			cli_usage(spec, stdout);
			return CLI_HELP_SHOWN;
		}
		if (c == ':') {
			cli_error("%s: %s needs a value", spec->name, argv[optind - 1]);
			return EXIT_USAGE;
		}
		const struct cli_option *o = NULL;
		for (size_t i = 0; i < n && !o; i++)
			if (spec->options[i].key == c)
				o = &spec->options[i];
		if (!o) {
			/* cli_unknown_option prints a usage(FILE *): ours goes to stderr. */
			int rc = cli_unknown_option(spec->name, argv[optind - 1], longopts, NULL);
			usage_to_stderr(spec);
			return rc;
		}
		char opt[80];
		snprintf(opt, sizeof opt, "--%s", o->name);
		int number = 0, rc = 0;
		if (o->kind == CLI_NUMBER && cli_parse_int(opt, optarg, o->lo, o->hi, &number) < 0)
			return EXIT_USAGE;
		if (o->kind == CLI_TEXT && o->check && (rc = o->check(opt, optarg)) != 0)
			return rc;
		if ((rc = on(ctx, c, o->kind == CLI_FLAG ? NULL : optarg, number)) != 0)
			return rc;
	}
	if (!spec->operands && optind < argc) {
		cli_error("%s: unexpected argument '%s'", spec->name, argv[optind]);
		usage_to_stderr(spec);
		return EXIT_USAGE;
	}
	if (first)
		*first = optind;
	return 0;
}

int cli_check_backend(const char *opt, const char *name)
{
	if (isotier__backend_lookup(name))
		return 0;
	const char *hint = cli_suggest_backend(name);
	cli_error("%s: unknown backend '%s'%s%s%s", opt, name, hint ? " (did you mean '" : "",
	          hint ? hint : "", hint ? "'?)" : "");
	fputs("known backends:", stderr);
	for (size_t i = 0; i < isotier__backend_count(); i++)
		fprintf(stderr, " %s", isotier__backend_at(i)->name);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int cli_check_provider(const char *opt, const char *name)
{
	const isotier_backend *b = isotier__backend_lookup(name);
	if (b && b->remote && b->attach)
		return 0;
	const char *names[32];
	size_t n = 0;
	for (size_t i = 0; i < isotier__backend_count() && n < 32; i++)
		if (isotier__backend_at(i)->remote && isotier__backend_at(i)->attach)
			names[n++] = isotier__backend_at(i)->name;
	const char *hint = b ? NULL : cli_suggest(name, names, n);
	cli_error("%s: '%s' is %s%s%s%s", opt, name,
	          b ? "not a remote provider isotier can attach to"
	            : "no remote provider this build knows",
	          hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
	fputs("providers:", stderr);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %s", names[i]);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int cli_check_sandbox_id(const char *opt, const char *id)
{
	if (isotier__remote_id_valid(id))
		return 0;
	/* Hostile input bound for a URL path: said back bounded, never whole. */
	char shown[44];
	size_t k = 0;
	for (const char *p = id; *p && k < 40; p++)
		shown[k++] = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f ? *p : '?';
	shown[k] = '\0';
	cli_error("%s '%s%s': a provider's sandbox id is 1 to 128 of A-Z a-z 0-9 . _ - "
	          "(not . or ..)",
	          opt, shown, strlen(id) > 40 ? "..." : "");
	return EXIT_USAGE;
}

int cli_check_dir(const char *opt, const char *path)
{
	struct stat st;
	int e = stat(path, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (!e)
		return 0;
	cli_error("%s %s: %s", opt, path, strerror(e));
	return EXIT_NOINPUT;
}

const char *cli_default_db_text(void)
{
	static char text[4200];
	snprintf(text, sizeof text, "$ISOTIER_DB, else %s", ISOTIER_DEFAULT_DB);
	return text;
}

const char *cli_default_catalogue_text(void)
{
	return cli_default_catalogue();
}
