/* main.c - `isotier`: dispatch to one subcommand. */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

/* Each subcommand lives in its own file; weak references keep the table
 * honest while a command is absent from a build (it is simply not listed). */
extern const struct cli_command cli_catalogue __attribute__((weak));
extern const struct cli_command cli_sources __attribute__((weak));
extern const struct cli_command cli_verify __attribute__((weak));
extern const struct cli_command cli_history __attribute__((weak));
extern const struct cli_command cli_backends __attribute__((weak));
extern const struct cli_command cli_run __attribute__((weak));
extern const struct cli_command cli_churn __attribute__((weak));
extern const struct cli_command cli_report __attribute__((weak));

static const struct cli_command *const commands[] = {
	&cli_verify, &cli_history, &cli_catalogue, &cli_sources, &cli_backends,
	&cli_run,    &cli_churn,   &cli_report,
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

const char *cli_default_catalogue(void)
{
	return isotier_default_catalogue_dir();
}

void cli_error(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fputs("isotier: ", stderr);
	isotier_fputs_sanitized(stderr, buf);
	fputc('\n', stderr);
}

int cli_fail(const isotier_error *err)
{
	cli_error("%s", err->message[0] ? err->message : isotier_strerror(err->code));
	switch (err->code) {
	case ISOTIER_EINVAL: return EXIT_USAGE;
	case ISOTIER_EDATA: return EXIT_DATAERR;
	case ISOTIER_EUNAVAILABLE: return EXIT_UNAVAIL;
	case ISOTIER_ECONFIG: return EXIT_CONFIG;
	case ISOTIER_EDB: return EXIT_TEMPFAIL;
	case ISOTIER_EIO: return EXIT_IOERR;
	case ISOTIER_EINTR: return EXIT_INTERRUPTED;
	case ISOTIER_ENOTFOUND: return EXIT_DATAERR;
	default: return EXIT_SOFTWARE;
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: isotier COMMAND [OPTIONS]\n\n"
		   "Makes a sandbox's isolation tier (UNKNOWN < CONTAINER < GVISOR < MICROVM) a\n"
		   "claim that can be checked.\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i])
			fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n`isotier COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("isotier %s\n", ISOTIER_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i] && !strcmp(argv[1], commands[i]->name))
			return commands[i]->main(argc - 1, argv + 1);
	cli_error("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
