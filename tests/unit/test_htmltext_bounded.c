/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_htmltext_bounded.c - issue 17, finding 5: text is extracted from a
 * web page in memory bounded by the page, not by its tree. A 5 MiB page of
 * nested tags built a tree of 315 MB (about 1 GB under ASan). The extraction
 * runs in a child that reports how much its peak resident set grew
 * (ru_maxrss): a measure of memory, not of time.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../verify/sources/htmltext.h"

#define PAGE_BYTES (5 * 1024 * 1024)
/* The text and the parser's element stack (a pointer per open element)
 * under ASan's shadow memory: well under this; a tree, well over. */
#define GROWTH_LIMIT_KB (200 * 1024)

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Peak RSS growth (KiB) of extracting the text of page, in a child; -1 if
 * the extraction failed or did not find `needle`. */
static long growth_kb(const char *page, size_t len, const char *needle)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		long before = maxrss_kb();
		char *text = NULL;
		long grew = -1;
		if (isotier_html_text(&text, page, len, NULL) == 0 && strstr(text, needle))
			grew = maxrss_kb() - before;
		free(text);
		if (write(fds[1], &grew, sizeof grew) != (ssize_t)sizeof grew)
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	long grew = -2;
	ck_assert_int_eq(read(fds[0], &grew, sizeof grew), (ssize_t)sizeof grew);
	close(fds[0]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return grew;
}

START_TEST(nested_page_memory_is_bounded)
{
	static const char open_tag[] = "<div><span><b>";
	char *page = malloc(PAGE_BYTES + 64);
	ck_assert_ptr_nonnull(page);
	size_t len = 0, n = strlen(open_tag);
	while (len + n + 32 < PAGE_BYTES) {
		memcpy(page + len, open_tag, n);
		len += n;
	}
	len += (size_t)sprintf(page + len, "bottom quote");
	long kb = growth_kb(page, len, "bottom quote");
	if (getenv("ISOTIER_TEST_VERBOSE"))
		fprintf(stderr, "nested page: peak RSS grew %ld KiB\n", kb);
	ck_assert_msg(kb >= 0, "the text of a 5 MiB nested page was not extracted");
	ck_assert_msg(kb < GROWTH_LIMIT_KB,
	              "extracting 5 MiB of nested tags grew the peak RSS by %ld MiB", kb / 1024);
	/* Flat pages of the same size: bounded as well. */
	len = 0;
	while (len + 16 < PAGE_BYTES)
		len += (size_t)sprintf(page + len, "<p>word</p>");
	kb = growth_kb(page, len, "word");
	ck_assert_int_ge(kb, 0);
	ck_assert_msg(kb < GROWTH_LIMIT_KB, "flat page: %ld MiB", kb / 1024);
	free(page);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("htmltext_bounded");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, nested_page_memory_is_bounded);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
