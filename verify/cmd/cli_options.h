/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli_options.h - declarative command options. A command declares its
 * options once, in a table (name, argument kind, validator, help line);
 * parsing (getopt_long built from the table), --help, the usage printed on a
 * mistake, "did you mean" and the man pages (scripts/manpages.sh reads
 * --help) all come from it.
 */
#ifndef ISOTIER_CLI_OPTIONS_H
#define ISOTIER_CLI_OPTIONS_H

#include "cli.h"

enum cli_arg_kind {
	CLI_FLAG,   /* no value */
	CLI_TEXT,   /* a value, checked by check() when given */
	CLI_NUMBER, /* a whole decimal number in [lo, hi] */
};

/* Checks value given to option opt ("--db"); 0, or the exit code to return
 * having printed why. */
typedef int (*cli_check_fn)(const char *opt, const char *value);

struct cli_option {
	const char *name; /* long name without "--" ("db"); NULL ends the table */
	/* What the handler is called with, and -KEY when short_too; 'h', '?' and
	 * ':' are getopt's and --help's, never an option's. */
	int key;
	enum cli_arg_kind kind;
	const char *metavar; /* "PATH" (CLI_TEXT, CLI_NUMBER) */
	cli_check_fn check;  /* CLI_TEXT: optional */
	int lo, hi;          /* CLI_NUMBER */
	/* Help lines, '\n' between them; "{}" is replaced by dflt()'s text. */
	const char *help;
	const char *(*dflt)(void);
	bool short_too; /* also spelled -KEY */
};

/* A table's rows say only what they set; every other field is zero (a row
 * that is also spelled -KEY is written with designators). */
#define CLI_FLAG_OPTION(name_, key_, help_)                                                        \
	{                                                                                          \
		.name = (name_), .key = (key_), .kind = CLI_FLAG, .help = (help_)                  \
	}
#define CLI_TEXT_OPTION(name_, key_, metavar_, help_)                                              \
	{                                                                                          \
		.name = (name_), .key = (key_), .kind = CLI_TEXT, .metavar = (metavar_),           \
		.help = (help_)                                                                    \
	}
#define CLI_CHECKED_OPTION(name_, key_, metavar_, check_, help_)                                   \
	{                                                                                          \
		.name = (name_), .key = (key_), .kind = CLI_TEXT, .metavar = (metavar_),           \
		.check = (check_), .help = (help_)                                                 \
	}
#define CLI_NUMBER_OPTION(name_, key_, metavar_, lo_, hi_, help_)                                  \
	{                                                                                          \
		.name = (name_), .key = (key_), .kind = CLI_NUMBER, .metavar = (metavar_),         \
		.lo = (lo_), .hi = (hi_), .help = (help_)                                          \
	}
/* A value with a default whose text dflt_() gives ("{}" in help_). */
#define CLI_DEFAULTED_OPTION(name_, key_, metavar_, check_, help_, dflt_)                          \
	{                                                                                          \
		.name = (name_), .key = (key_), .kind = CLI_TEXT, .metavar = (metavar_),           \
		.check = (check_), .help = (help_), .dflt = (dflt_)                                \
	}
/* A number with a default whose text dflt_() gives ("{}" in help_). */
#define CLI_DEFAULTED_NUMBER_OPTION(name_, key_, metavar_, lo_, hi_, help_, dflt_)                 \
	{                                                                                          \
		.name = (name_), .key = (key_), .kind = CLI_NUMBER, .metavar = (metavar_),         \
		.lo = (lo_), .hi = (hi_), .help = (help_), .dflt = (dflt_)                         \
	}
/* --db of the commands that read or write any history, the file or the fleet's server. */
#define CLI_HISTORY_OPTION(key_)                                                                   \
	CLI_DEFAULTED_OPTION("db", key_, "PATH|URI", cli_check_db,                                 \
	                     "history database: a file or a postgresql:// URI\n(default {})",      \
	                     cli_default_db_text)
#define CLI_OPTIONS_END                                                                            \
	{                                                                                          \
		.name = NULL                                                                       \
	}

struct cli_spec {
	const char *name;                 /* "report": the prefix of its errors */
	const char *synopsis;             /* "usage: isotier report ..." lines, verbatim */
	const char *about;                /* what it does: a paragraph, or NULL */
	const struct cli_option *options; /* --help is added */
	const char *epilogue;             /* "Exit status: ...", or NULL */
	bool operands;                    /* takes arguments after the options */
	/* Operands and options in any order (`import FILE --db X`); else the
	 * first operand ends the options, so a wrapped command's own arguments
	 * are never taken for ours. */
	bool operands_anywhere;
};

/* Called for each option given, in order: key, the value (NULL for a flag)
 * and, for CLI_NUMBER, the number. 0, or an exit code to stop with. */
typedef int (*cli_handler_fn)(void *ctx, int key, const char *value, int number);

/* Parses argv (argv[0] the command) against spec. Returns 0 with *first set
 * to the first operand's index (without spec->operands an operand is a
 * usage error); CLI_HELP_SHOWN when --help printed the usage (the command
 * exits 0); else the exit code, having printed why (an unknown option with
 * the closest one and the usage, a missing value, a check that failed). */
#define CLI_HELP_SHOWN (-1)
int cli_parse(const struct cli_spec *spec, int argc, char **argv, cli_handler_fn on, void *ctx,
              int *first);
/* The usage: synopsis, about, one entry per option, epilogue. */
void cli_usage(const struct cli_spec *spec, FILE *f);

/* Common checks. */
int cli_check_backend(const char *opt, const char *name); /* a backend this build drives */
/* a remote backend with attach() (verify --provider) */
int cli_check_provider(const char *opt, const char *name);
/* a provider's sandbox id (isotier__remote_id_valid): else 64, the id shown bounded */
int cli_check_sandbox_id(const char *opt, const char *id);
int cli_check_dir(const char *opt, const char *path); /* an existing directory */
const char *cli_default_db_text(void);                /* "$ISOTIER_DB, else PATH" */
const char *cli_default_catalogue_text(void);

#endif
