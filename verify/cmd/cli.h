/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h - the isotier command line: one file per subcommand, each exporting
 * one `const struct cli_command cli_<name>`; main.c dispatches.
 */
#ifndef ISOTIER_CLI_H
#define ISOTIER_CLI_H

#include "../../reference/api/isotier_tool.h"

/* sysexits.h, spelled out so every command uses the same words. */
enum {
	EXIT_OK = 0,
	EXIT_FINDING = 1,    /* the check ran and found a problem (drift, contradiction) */
	EXIT_UNPROVEN = 2,   /* verify: a claim above what was shown could not be proven */
	EXIT_USAGE = 64,     /* EX_USAGE */
	EXIT_DATAERR = 65,   /* EX_DATAERR */
	EXIT_NOINPUT = 66,   /* EX_NOINPUT */
	EXIT_UNAVAIL = 69,   /* EX_UNAVAILABLE */
	EXIT_SOFTWARE = 70,  /* EX_SOFTWARE */
	EXIT_CANTCREAT = 73, /* EX_CANTCREAT */
	EXIT_IOERR = 74,     /* EX_IOERR */
	EXIT_TEMPFAIL = 75,  /* EX_TEMPFAIL (database locked...) */
	EXIT_NOPERM = 77,    /* EX_NOPERM: a file (the history) this user may not read */
	EXIT_CONFIG = 78,    /* EX_CONFIG */
	EXIT_INTERRUPTED = 130,
};

struct cli_command {
	const char *name;                   /* "verify", "catalogue", ... */
	const char *summary;                /* one line for `isotier --help` */
	int (*main)(int argc, char **argv); /* argv[0] is the command name */
};

/* Prints "isotier: <message>" to stderr, terminal-safe. */
void cli_error(const char *fmt, ...) ISOTIER_PRINTF(1, 2);
/* Reports err with the exit code chosen for its code. */
int cli_fail(const isotier_error *err);
/* That exit code, without printing: EINVAL 64, EDATA 65 (and a file that is
 * not a database), ENOTFOUND 66 (ENOENT) else 65, EIO by errno (66 a
 * directory or device, 77 EACCES/EPERM, else 74), EDB 74, EBUSY 75, ECONFIG
 * 78, EUNAVAILABLE 69, EINTR 130, anything else 70. */
int cli_exit_code(const isotier_error *err);

/* For a command whose one subcommand is `sub` ("catalogue check"): help,
 * dispatch, or a usage error naming the unknown subcommand. */
int cli_subcommand(int argc, char **argv, const char *sub, int (*run)(int, char **),
                   void (*usage)(FILE *));

/* Parses a whole decimal number in [lo, hi] given to option opt; on error
 * prints "OPT: expected a number from LO to HI, got 'S'" and returns -1. */
int cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out);

/* Checks the history database named by option opt (--db) before anything
 * opens it: 0 when it is absent (the command decides), an empty file or an
 * SQLite database; else prints why and returns 64 (a connection string, not
 * echoed), 66 (a FIFO, device or directory, a path that cannot be looked up
 * or is too long), 77 (EACCES, EPERM: not this user's to read) or 65 (an
 * existing file that is not an SQLite database). */
int cli_check_db(const char *opt, const char *path);
/* A history a reading command needs (history, export, report): 0 when it
 * is there (or a URI); else prints why and returns 66 (absent: "no history
 * database at PATH"; a directory, FIFO or device), 77 (EACCES, EPERM: not
 * this user's to read) or 74 (any other errno), never "empty". */
int cli_history_readable(const char *db);
/* " (PATH is not writable: read-only file system)" when the history or its
 * directory cannot be written, else "": appended to a database error. */
const char *cli_db_why(const char *path);

/* The repository's catalogue directory: $ISOTIER_CATALOGUE, else the
 * compiled-in source tree path, else ./catalogue/providers. */
const char *cli_default_catalogue(void);

/* Writes a generated file (a report, JUnit XML) for option `opt` ("--out").
 * write() renders into the stream; its negative return is a failure.
 *  - refused (64) when path is db_path (if given: the same inode, or the
 *    same name, also its -wal/-shm/-journal) or any existing SQLite
 *    database; refused (73) for a directory or block device;
 *  - path absent or a regular file: a temporary file beside it, fsync,
 *    rename: readers never see half a file;
 *  - a symbolic link (to anything, or dangling) is refused (64), never
 *    followed: name the file itself;
 *  - /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: that open
 *    descriptor is written (its offset and O_APPEND kept);
 *  - anything else (character device, FIFO, other paths under /dev/std,
 *    /dev/fd or /proc): opened O_WRONLY without creating or renaming, and
 *    every write and the close checked; a FIFO gets 5 s for a reader to
 *    open it, then is refused (73) instead of waited on forever.
 * Returns an exit code: 0, 64, 70 (write() failed), 73 or 74 (I/O error),
 * having printed the reason. */
typedef int (*cli_output_fn)(FILE *f, const void *ctx);
int cli_write_output(const char *opt, const char *path, const char *db_path, cli_output_fn write,
                     const void *ctx);
/* The same into an open stream (standard output), named name in errors:
 * 70 when write() failed (nothing claims success over half a document), 74
 * when a write or the flush did, else 0. The stream stays open. */
int cli_write_stream(FILE *f, const char *name, cli_output_fn write, const void *ctx);
/* doc on standard output, indented, as valid UTF-8, then a newline; doc is
 * deleted. 0, or -1 when it could not be printed (out of memory). */
int cli_print_json(struct cJSON *doc);

/* The choice closest to word (a typo, a transposition, a unique prefix), or
 * NULL when none is close: for "did you mean". */
const char *cli_suggest(const char *word, const char *const *choices, size_t n);
/* one when n is 1, else many ("1 error", "2 errors"). */
const char *cli_plural(size_t n, const char *one, const char *many);
/* An option getopt_long did not know (call with opterr = 0): says so, with
 * the closest long option, prints the usage to stderr; returns 64. */
/* The backend this build drives whose name is closest to name, or NULL. */
const char *cli_suggest_backend(const char *name);
struct option;
int cli_unknown_option(const char *cmd, const char *arg, const struct option *longopts,
                       void (*usage)(FILE *));

#endif
