/* SPDX-License-Identifier: Apache-2.0 */
/* main.c - `isotier`: dispatch to one subcommand. */
#include "cli.h"

#include <errno.h>
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
extern const struct cli_command cli_paths __attribute__((weak));
extern const struct cli_command cli_sweep __attribute__((weak));
extern const struct cli_command cli_identity __attribute__((weak));
extern const struct cli_command cli_statement __attribute__((weak));
extern const struct cli_command cli_attest __attribute__((weak));

static const struct cli_command *const commands[] = {
    &cli_verify,   &cli_history,   &cli_catalogue, &cli_sources, &cli_backends,
    &cli_run,      &cli_churn,     &cli_report,    &cli_paths,   &cli_sweep,
    &cli_identity, &cli_statement, &cli_attest,
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* A report cut short by a full disk or a closed pipe must not look like
 * success to a CI job: a command that would exit 0 exits 74 instead. */
static int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		int saved = errno;
		cli_error("writing standard output: %s", strerror(saved ? saved : EIO));
		return rc == EXIT_OK ? EXIT_IOERR : rc;
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: isotier COMMAND [OPTIONS]\n\n"
	           "Makes a sandbox's isolation tier (UNKNOWN < CONTAINER < GVISOR < MICROVM) a\n"
	           "claim that can be checked.\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i])
			fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f,
	        "\noptions:\n  --help     this summary\n  --version  the version of isotier\n\n"
	        "`isotier help COMMAND` (or `isotier COMMAND --help`) describes each command.\n");
}

static const struct cli_command *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i] && !strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

/* An unknown command: say so, with the closest one. */
static int unknown(const char *name)
{
	const char *names[N_COMMANDS + 1];
	size_t n = 0;
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i])
			names[n++] = commands[i]->name;
	names[n++] = "help";
	const char *hint = cli_suggest(name, names, n);
	if (hint)
		cli_error("unknown command '%s' (did you mean '%s'?)", name, hint);
	else
		cli_error("unknown command '%s'", name);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* Before anything prints or opens the default history: a $ISOTIER_DB
	 * that is a connection string (it may hold a password) is refused
	 * without being echoed, never taken as a file name. */
	isotier_error derr = {0};
	if (isotier__history_target_check(getenv("ISOTIER_DB"), &derr) < 0) {
		cli_error("$ISOTIER_DB: %s", derr.message);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && (argc == 2 || !strcmp(argv[2], "help")))) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("isotier %s\n", ISOTIER_VERSION);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "help")) { /* isotier help COMMAND [SUB]: COMMAND [SUB] --help */
		const struct cli_command *c = find(argv[2]);
		if (!c)
			return unknown(argv[2]);
		char *args[4] = {argv[2], NULL, NULL, NULL};
		int n = 1;
		if (argc > 3 && argv[3][0] != '-')
			args[n++] = argv[3];
		args[n++] = "--help";
		return finish_stdout(c->main(n, args));
	}
	const struct cli_command *c = find(argv[1]);
	if (c)
		return finish_stdout(c->main(argc - 1, argv + 1));
	return unknown(argv[1]);
}
