/* SPDX-License-Identifier: Apache-2.0 */
/* test_util.c - terminal-safe output, bounded non-blocking file reads, and
 * the history's honest errors on files that are not databases. */
#include <check.h>
#include "check_run.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reference/history/history.h"
#include "../../base/base.h"

START_TEST(sanitizer_escapes_what_rewrites_a_terminal)
{
	ASSERT_RENDER(isotier__fputs_sanitized, "plain text", "plain text");
	ASSERT_RENDER(isotier__fputs_sanitized, "\x1b[2J\x07\x7f", "\\x1b[2J\\x07\\x7f");
	/* Layout kept in messages, escaped in a single value. */
	ASSERT_RENDER(isotier__fputs_sanitized, "a\nb\tc\r", "a\nb\tc\\x0d");
	ASSERT_RENDER(isotier__fputs_inline, "row\nforged row\tx", "row\\nforged row\\tx");
	/* Valid UTF-8 passes; bidi overrides, C1 controls and invalid bytes do not. */
	ASSERT_RENDER(isotier__fputs_inline, "gr\xc3\xbc\xc3\x9f \xe2\x86\x92",
	              "gr\xc3\xbc\xc3\x9f \xe2\x86\x92");
	ASSERT_RENDER(isotier__fputs_inline, "a\xe2\x80\xaeZ", "a\\u202eZ");
	ASSERT_RENDER(isotier__fputs_inline,
	              "\xc2\x9b"
	              "31m",
	              "\\u009b31m");
	ASSERT_RENDER(isotier__fputs_inline, "\xff\xc3", "\\xff\\xc3");
	ASSERT_RENDER(isotier__fputs_inline, "\xc0\xaf", "\\xc0\\xaf");          /* overlong '/' */
	ASSERT_RENDER(isotier__fputs_inline, "\xed\xa0\x80", "\\xed\\xa0\\x80"); /* surrogate */
}
END_TEST

START_TEST(utf8_decoding_is_strict_and_bounded)
{
	ck_assert(isotier__utf8_valid("plain \xc3\xbc \xe2\x86\x92 \xf0\x9f\x98\x80", 17));
	ck_assert(!isotier__utf8_valid("\xc0\xaf", 2));         /* overlong */
	ck_assert(!isotier__utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
	ck_assert(!isotier__utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
	ck_assert(!isotier__utf8_valid("\xff", 1));
	/* A sequence cut by the length is invalid even if the bytes go on. */
	ck_assert(!isotier__utf8_valid("a\xe2\x86\x92", 3));
	ck_assert(isotier__utf8_valid("a\xe2\x86\x92", 4));
	uint32_t cp = 0;
	ck_assert_uint_eq(
	    isotier__utf8_decode((const unsigned char *)"\xe2\x86\x92", SIZE_MAX, &cp), 3);
	ck_assert_uint_eq(cp, 0x2192);
	ck_assert_uint_eq(isotier__utf8_decode((const unsigned char *)"\xe2\x86", SIZE_MAX, &cp),
	                  0);
}
END_TEST

START_TEST(read_file_refuses_what_could_block_or_is_not_a_file)
{
	char dir[] = "/tmp/isotier-util-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char fifo[128], file[128];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(file, sizeof file, "%s/file", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	char *buf = NULL;
	size_t len = 0;
	isotier_error err = {0};
	/* A FIFO with no writer would block a plain open(); we refuse it. */
	ck_assert_int_eq(isotier__read_file(&buf, &len, fifo, 100, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
	ck_assert_int_lt(isotier__read_file(&buf, &len, dir, 100, &err), 0);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0123456789", f);
	fclose(f);
	ck_assert_int_eq(isotier__read_file(&buf, &len, file, 100, &err), 0);
	ck_assert_uint_eq(len, 10);
	ck_assert_str_eq(buf, "0123456789");
	free(buf);
	buf = NULL;
	ck_assert_int_eq(isotier__read_file(&buf, &len, file, 5, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "larger than 5 bytes"));
	unlink(fifo);
	unlink(file);
	rmdir(dir);
}
END_TEST

START_TEST(history_names_a_file_that_is_not_a_database)
{
	char path[] = "/tmp/isotier-notdb-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	char junk[8192];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 7 + 13);
	ck_assert_int_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
	close(fd);
	isotier_history *h = NULL;
	isotier_error err = {0};
	/* Refused from its header, before SQLite opens it (issue 17, finding 7). */
	ck_assert_int_eq(isotier__history_open_readonly(&h, path, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "not an SQLite database"));
	ck_assert_int_eq(isotier__history_open(&h, path, 100, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "not an SQLite database"));
	/* The file is left as it was: no history is ever overwritten. */
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_size, (off_t)sizeof junk);
	unlink(path);
}
END_TEST

/* A history is a file or a postgresql:// URI: a connection string is
 * refused, its value never in the message, no file made (issue 36). */
START_TEST(history_target_is_a_file_or_a_uri)
{
	isotier_error err = {0};
	const char *refused[] = {
	    "host=db.example password=hunter2", "password=hunter2",       "dbname = x  user=u",
	    "/tmp/x.db sslmode=require",        "mysql://u:hunter2@h/db", "file://tmp/x.db",
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		ck_assert_msg(isotier__history_target_check(refused[i], &err) == ISOTIER_EINVAL,
		              "accepted '%s'", refused[i]);
		ck_assert_ptr_null(strstr(err.message, "hunter2"));
		ck_assert_ptr_nonnull(strstr(err.message, "not shown"));
	}
	const char *accepted[] = {
	    "/var/lib/isotier/isotier.db", "run=1.db",   "./a b.db",    "postgresql://u:p@h/db",
	    "postgres:///isotier",         "notes:1.db", "hostname.db", NULL,
	};
	for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++)
		ck_assert_msg(isotier__history_target_check(accepted[i], &err) == 0, "refused '%s'",
		              accepted[i] ? accepted[i] : "(null)");
	char cwd[4096], dir[] = "/tmp/isotier-target-XXXXXX";
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chdir(dir), 0);
	isotier_history *h = NULL;
	ck_assert_int_eq(isotier__history_open(&h, "host=h password=hunter2", 100, &err),
	                 ISOTIER_EINVAL);
	ck_assert_ptr_null(h);
	ck_assert_int_eq(isotier__history_present("host=h password=hunter2", NULL, &err),
	                 ISOTIER_EINVAL);
	struct stat st;
	ck_assert_int_ne(stat("host=h password=hunter2", &st), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Issue 17, finding 1: nothing a user names is waited on. Each call returns
 * at once (a FIFO without a reader would block an open forever). */
START_TEST(named_paths_never_block)
{
	char dir[] = "/tmp/isotier-fifo-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char fifo[64], one[64];
	snprintf(fifo, sizeof fifo, "%s/f", dir);
	snprintf(one, sizeof one, "%s/one", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	isotier_error err = {0};
	ck_assert_int_eq(isotier__open_append(fifo, "audit log", &err), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "a FIFO, not a regular file"));
	ck_assert_int_eq(isotier__open_append(dir, "span file", &err), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "a directory"));
	ck_assert_int_eq(isotier__open_append("/dev/null", "audit log", &err), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__history_check_file(fifo, &err), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__history_check_file("/dev/zero", &err), ISOTIER_EINVAL);
	isotier_history *h = NULL;
	ck_assert_int_eq(isotier__history_open(&h, fifo, 100, &err), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__history_open_readonly(&h, fifo, &err), ISOTIER_EINVAL);
	/* A 1-byte file is not a database and stays one byte. */
	int fd = open(one, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
	ck_assert_int_eq(isotier__history_open(&h, one, 100, &err), ISOTIER_EDATA);
	struct stat st;
	ck_assert_int_eq(stat(one, &st), 0);
	ck_assert_int_eq(st.st_size, 1);
	/* A regular file opens for appending. */
	fd = isotier__open_append(one, "audit log", &err);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(one);
	unlink(fifo);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");
	tcase_add_test(tc, sanitizer_escapes_what_rewrites_a_terminal);
	tcase_add_test(tc, history_target_is_a_file_or_a_uri);
	tcase_add_test(tc, utf8_decoding_is_strict_and_bounded);
	tcase_add_test(tc, read_file_refuses_what_could_block_or_is_not_a_file);
	tcase_add_test(tc, history_names_a_file_that_is_not_a_database);
	tcase_add_test(tc, named_paths_never_block);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
