/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cli_options.c - declarative options (verify/cmd/cli_options.h): a table
 * drives parsing, validation, the usage and "did you mean"; and the tables
 * the commands and tests loop over (report formats) are sound.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../verify/cmd/cli_options.h"
#include "../../verify/report/report_format.h"

static const char *dflt_text(void)
{
	return "DEFAULT-TEXT";
}

static const struct cli_option options[] = {
    {"name", 'n', CLI_TEXT, "WORD", NULL, 0, 0, "a word (default {})\nsecond line", dflt_text,
     false},
    {"count", 'c', CLI_NUMBER, "N", NULL, 1, 10, "a number from 1 to 10", NULL, true},
    {"flag", 'f', CLI_FLAG, NULL, NULL, 0, 0, "a flag", NULL, false},
    {"backend", 'b', CLI_TEXT, "NAME", cli_check_backend, 0, 0, "a backend", NULL, false},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL, NULL, false},
};

static const struct cli_spec spec = {
    .name = "demo",
    .synopsis = "usage: isotier demo [--name WORD] [--count N] [--flag]",
    .about = "A demonstration.",
    .options = options,
    .epilogue = "Exit status: 0.",
};

struct seen {
	const char *name, *backend;
	int count, flags, calls;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct seen *s = ctx;
	s->calls++;
	switch (key) {
	case 'n': s->name = value; break;
	case 'c': s->count = number; break;
	case 'f': s->flags++; break;
	case 'b': s->backend = value; break;
	default: return 99;
	}
	return 0;
}

/* Parses argv (NULL-terminated) against spec; stderr and stdout captured. */
static int parse(const struct cli_spec *sp, struct seen *s, char **err, char **out, int *first,
                 char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	fflush(stdout), fflush(stderr);
	int saved_err = dup(2), saved_out = dup(1);
	FILE *e = tmpfile(), *o = tmpfile();
	ck_assert(e && o);
	dup2(fileno(e), 2), dup2(fileno(o), 1);
	memset(s, 0, sizeof *s);
	int rc = cli_parse(sp, argc, argv, on_option, s, first);
	fflush(stdout), fflush(stderr);
	dup2(saved_err, 2), dup2(saved_out, 1);
	close(saved_err), close(saved_out);
	FILE *both[2] = {e, o};
	char **dst[2] = {err, out};
	for (int i = 0; i < 2; i++) {
		rewind(both[i]);
		*dst[i] = calloc(1, 1 << 16);
		ck_assert_ptr_nonnull(*dst[i]);
		size_t n = fread(*dst[i], 1, (1 << 16) - 1, both[i]);
		(*dst[i])[n] = '\0';
		fclose(both[i]);
	}
	return rc;
}

#define ARGV(...) ((char *[]){"demo", __VA_ARGS__, NULL})

START_TEST(values_flags_and_numbers)
{
	struct seen s;
	char *err, *out;
	int first = -1;
	int rc = parse(
	    &spec, &s, &err, &out, &first,
	    ARGV("--name", "x", "--flag", "-c", "7", "--count=3", "--flag", "--backend", "bwrap"));
	ck_assert_int_eq(rc, 0);
	ck_assert_str_eq(s.name, "x");
	ck_assert_int_eq(s.count, 3);
	ck_assert_int_eq(s.flags, 2);
	ck_assert_str_eq(s.backend, "bwrap");
	ck_assert_int_eq(s.calls, 6);
	ck_assert_int_eq(first, 10);
	ck_assert_str_eq(err, "");
	free(err), free(out);
}
END_TEST

START_TEST(mistakes_are_usage_errors)
{
	struct seen s;
	char *err, *out;
	/* A number out of range, not a number. */
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("--count", "11")), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "--count: expected a number from 1 to 10, got '11'"));
	free(err), free(out);
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("--count", "2x")), EXIT_USAGE);
	free(err), free(out);
	/* An unknown option: the closest one, then the usage. */
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("--nmae", "x")), EXIT_USAGE);
	ck_assert_ptr_nonnull(
	    strstr(err, "demo: unknown option '--nmae' (did you mean '--name'?)"));
	ck_assert_ptr_nonnull(strstr(err, "usage: isotier demo"));
	ck_assert_int_eq(s.calls, 0);
	free(err), free(out);
	/* A value missing. */
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("--name")), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "demo: --name needs a value"));
	free(err), free(out);
	/* An operand where none is taken. */
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("stray")), EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(err, "demo: unexpected argument 'stray'"));
	free(err), free(out);
	/* The validator: an unknown backend, with the closest and the known ones. */
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("--backend", "bwarp")),
	                 EXIT_USAGE);
	ck_assert_ptr_nonnull(
	    strstr(err, "--backend: unknown backend 'bwarp' (did you mean 'bwrap'?)"));
	ck_assert_ptr_nonnull(strstr(err, "known backends: bwrap "));
	ck_assert_int_eq(s.calls, 0);
	free(err), free(out);
	/* The handler's refusal stops the parse with its code. */
	static const struct cli_option odd[] = {
	    {"odd", 'o', CLI_FLAG, NULL, NULL, 0, 0, "unhandled", NULL, false},
	    {NULL, 0, 0, NULL, NULL, 0, 0, NULL, NULL, false},
	};
	struct cli_spec odd_spec = spec;
	odd_spec.options = odd;
	ck_assert_int_eq(parse(&odd_spec, &s, &err, &out, NULL, ARGV("--odd")), 99);
	free(err), free(out);
}
END_TEST

START_TEST(operands_end_the_options)
{
	struct cli_spec with_operands = spec;
	with_operands.operands = true;
	struct seen s;
	char *err, *out;
	int first = -1;
	ck_assert_int_eq(parse(&with_operands, &s, &err, &out, &first,
	                       ARGV("--flag", "--", "cmd", "--name", "x")),
	                 0);
	ck_assert_int_eq(first, 3);
	ck_assert_int_eq(s.flags, 1);
	ck_assert_ptr_null(s.name); /* the command's own --name, not ours */
	free(err), free(out);
	ck_assert_int_eq(parse(&with_operands, &s, &err, &out, &first, ARGV("cmd", "--flag")), 0);
	ck_assert_int_eq(first, 1);
	ck_assert_int_eq(s.flags, 0);
	free(err), free(out);
}
END_TEST

/* With operands_anywhere, options after an operand are still ours and the
 * operands are left, in order, from *first (`history import A --db X B`). */
START_TEST(operands_anywhere_are_gathered)
{
	struct cli_spec anywhere = spec;
	anywhere.operands = anywhere.operands_anywhere = true;
	struct seen s;
	char *err, *out;
	int first = -1;
	char *argv[] = {"demo", "a.db", "--flag", "b.db", "--name", "x", NULL};
	ck_assert_int_eq(parse(&anywhere, &s, &err, &out, &first, argv), 0);
	ck_assert_int_eq(s.flags, 1);
	ck_assert_str_eq(s.name, "x");
	ck_assert_int_eq(first, 4);
	ck_assert_str_eq(argv[4], "a.db");
	ck_assert_str_eq(argv[5], "b.db");
	free(err), free(out);
}
END_TEST

/* --help prints the usage the table makes: every option with its help, the
 * default put in, continuation lines aligned, --help itself, the epilogue. */
START_TEST(help_comes_from_the_table)
{
	struct seen s;
	char *err, *out;
	ck_assert_int_eq(parse(&spec, &s, &err, &out, NULL, ARGV("--help")), CLI_HELP_SHOWN);
	ck_assert_str_eq(out, "usage: isotier demo [--name WORD] [--count N] [--flag]\n\n"
	                      "A demonstration.\n\n"
	                      "  --name WORD     a word (default DEFAULT-TEXT)\n"
	                      "                  second line\n"
	                      "  --count N       a number from 1 to 10\n"
	                      "  --flag          a flag\n"
	                      "  --backend NAME  a backend\n"
	                      "  --help          this text\n\n"
	                      "Exit status: 0.\n");
	free(err), free(out);
}
END_TEST

/* The format table every test loop reads: unique names, each with its file
 * extension, media type and writer, text included. */
START_TEST(the_format_table_is_sound)
{
	ck_assert_uint_ge(report_format_count, 5);
	for (size_t i = 0; i < report_format_count; i++) {
		const report_format *f = report_formats[i];
		ck_assert(f->name && f->extension && f->media_type && f->audience && f->write);
		ck_assert_ptr_nonnull(strchr(f->media_type, '/'));
		ck_assert_ptr_eq(report_format_lookup(f->name), f);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(report_formats[k]->name, f->name);
	}
	ck_assert_ptr_nonnull(report_format_lookup("text"));
	ck_assert_ptr_null(report_format_lookup("pdf"));
	ck_assert_ptr_null(report_format_lookup(NULL));
	ck_assert_str_eq(report_format_names(), "csv, html, json, junit, md, oscal or text");
}
END_TEST

static int half_then_fail(FILE *f, const void *ctx)
{
	(void)ctx;
	fputs("<html>half a report", f);
	return ISOTIER_ENOMEM;
}

static int whole(FILE *f, const void *ctx)
{
	fputs((const char *)ctx, f);
	return 0;
}

/* A writer's error fails the command: 70 on a stream, and through --out no
 * file appears (the half-written temporary is removed); a write that fails
 * (/dev/full) is 74. Never exit 0 over half a document. */
START_TEST(a_writer_error_fails_the_command)
{
	FILE *saved = stderr;
	stderr = tmpfile(); /* the errors printed, kept out of the test's output */
	ck_assert_ptr_nonnull(stderr);
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(cli_write_stream(f, "test stream", half_then_fail, NULL), EXIT_SOFTWARE);
	ck_assert_int_eq(cli_write_stream(f, "test stream", whole, "ok"), EXIT_OK);
	fclose(f);
	char dir[] = "/tmp/isotier-cli-options.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/report.html", dir);
	ck_assert_int_eq(cli_write_output("--out", path, NULL, half_then_fail, NULL),
	                 EXIT_SOFTWARE);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(cli_write_output("--out", path, NULL, whole, "ok"), EXIT_OK);
	ck_assert_int_eq(access(path, F_OK), 0);
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0); /* nothing else left behind */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		ck_assert_int_eq(cli_write_stream(full, "/dev/full", whole, "ok"), EXIT_IOERR);
		fclose(full);
	}
	rewind(stderr);
	char err[1024] = "";
	size_t n = fread(err, 1, sizeof err - 1, stderr);
	err[n] = '\0';
	fclose(stderr);
	stderr = saved;
	ck_assert_ptr_nonnull(strstr(err, "write test stream: "));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli_options");
	TCase *tc = tcase_create("options");
	tcase_add_test(tc, values_flags_and_numbers);
	tcase_add_test(tc, mistakes_are_usage_errors);
	tcase_add_test(tc, operands_end_the_options);
	tcase_add_test(tc, operands_anywhere_are_gathered);
	tcase_add_test(tc, help_comes_from_the_table);
	tcase_add_test(tc, the_format_table_is_sound);
	tcase_add_test(tc, a_writer_error_fails_the_command);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
