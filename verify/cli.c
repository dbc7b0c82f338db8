/* cli.c - helpers every subcommand shares: errors, exit codes, defaults.
 * Kept out of main.c so the unit suites link them too. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

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

int cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		cli_error("%s: expected a number from %d to %d, got '%s'", opt, lo, hi, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int cli_subcommand(int argc, char **argv, const char *sub, int (*run)(int, char **),
		   void (*usage)(FILE *))
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], sub))
		return run(argc - 1, argv + 1);
	cli_error("%s: unknown subcommand '%s'", argv[0], argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
