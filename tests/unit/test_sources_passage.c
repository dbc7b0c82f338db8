/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_sources_passage.c - what `sources check` keeps of a page and how it
 * tells the page's moves apart (verify/sources/sources_baseline.h, htmltext.h): the
 * passage around a quote, the main text without chrome, the four changes,
 * and hostile inputs (huge pages, no sentences, a repeated quote, invalid
 * UTF-8, a damaged baseline file).
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/base.h"
#include "../../verify/sources/htmltext.h"
#include "../../verify/sources/sha256.h"
#include "../../verify/sources/sources_baseline.h"

static char *passage_of(const char *text, const char *quote)
{
	const char *p = strstr(text, quote);
	ck_assert_ptr_nonnull(p);
	size_t qs = (size_t)(p - text);
	return sources_passage(text, strlen(text), qs, qs + strlen(quote));
}

START_TEST(passage_is_sentence_either_side)
{
	const char *t = "intro one. intro two. before it. the quote is here and goes on. after it. "
	                "far away. farther.";
	char *p = passage_of(t, "quote is here");
	ck_assert_str_eq(p, "before it. the quote is here and goes on. after it.");
	free(p);
	/* A quote that ends its sentence: the next one is the context. */
	p = passage_of(t, "the quote is here and goes on.");
	ck_assert_str_eq(p, "before it. the quote is here and goes on. after it.");
	free(p);
	/* At the very start and end of the text. */
	p = passage_of("only the quote", "only the quote");
	ck_assert_str_eq(p, "only the quote");
	free(p);
	ck_assert_ptr_null(sources_passage("abc", 3, 2, 1));
	ck_assert_ptr_null(sources_passage("abc", 3, 1, 9));
}
END_TEST

START_TEST(passage_without_sentences_is_bounded)
{
	size_t n = 3 * 1024 * 1024;
	char *t = malloc(n + 1);
	ck_assert_ptr_nonnull(t);
	for (size_t i = 0; i < n; i++)
		t[i] = i % 6 == 5 ? ' ' : 'w';
	t[n] = '\0';
	memcpy(t + n / 2, "needle", 6);
	char *p = sources_passage(t, n, n / 2, n / 2 + 6);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_le(strlen(p), 6 + 2 * SOURCES_PASSAGE_SIDE_MAX);
	ck_assert_ptr_nonnull(strstr(p, "needle"));
	ck_assert(p[0] != ' ' && p[strlen(p) - 1] != ' ');
	free(p);
	/* No space at all in multi-byte text: cut at character boundaries. */
	for (size_t i = 0; i + 1 < n; i += 2) {
		t[i] = '\xc3';
		t[i + 1] = '\xa9';
	}
	p = sources_passage(t, n, n / 2 + 1, n / 2 + 5);
	ck_assert_ptr_nonnull(p);
	ck_assert(isotier__utf8_valid(p, strlen(p)));
	ck_assert_uint_le(strlen(p), 4 + 2 * SOURCES_PASSAGE_SIDE_MAX);
	free(p);
	free(t);
}
END_TEST

static void sha(const char *s, char out[65])
{
	isotier__sha256_hex(s, strlen(s), out);
}

/* Compares page text t (already normalised: main and full the same). */
static sources_change cmp(const char *t, const sources_baseline_entry *be, const char *quote,
                          char **diff)
{
	char h[65];
	sha(t, h);
	sources_change c = SOURCES_UNCHANGED;
	char *passage = NULL;
	ck_assert_int_eq(sources_compare(t, t, h, quote, be, &c, &passage, diff), 0);
	free(passage);
	return c;
}

START_TEST(four_changes_told_apart)
{
	const char *v1 = "welcome. the default class shares the kernel of the host. use it for "
	                 "trusted code. other topics follow. pricing is per second.";
	char h[65];
	sha(v1, h);
	char *passage = NULL, *diff = NULL;
	sources_change c;
	ck_assert_int_eq(
	    sources_compare(v1, v1, h, "shares the kernel of the host", NULL, &c, &passage, &diff),
	    0);
	ck_assert_ptr_nonnull(passage);
	ck_assert_ptr_null(diff);
	sources_baseline_entry be = {
	    .url = "u", .quote = "q", .taken_at = "t", .main_text_sha256 = h, .passage = passage};
	const char *q = "shares the kernel of the host";
	ck_assert_int_eq(cmp(v1, &be, q, &diff), SOURCES_UNCHANGED);
	ck_assert_ptr_null(diff);
	/* Elsewhere on the page. */
	ck_assert_int_eq(cmp("welcome. the default class shares the kernel of the host. use it "
	                     "for trusted code. other topics follow. pricing is per minute.",
	                     &be, q, &diff),
	                 SOURCES_PAGE_CHANGED);
	ck_assert_ptr_null(diff);
	/* Around the quote, which is still there. */
	ck_assert_int_eq(cmp("welcome. the default class shares the kernel of the host. use it "
	                     "for untrusted code. other topics follow.",
	                     &be, q, &diff),
	                 SOURCES_PASSAGE_CHANGED);
	ck_assert_ptr_nonnull(diff);
	ck_assert_str_eq(diff, "welcome. the default class shares the kernel of the host. use it "
	                       "for [-trusted-] {+untrusted+} code.");
	free(diff);
	diff = NULL;
	/* Gone (case and spacing are not changes: normalised). */
	ck_assert_int_eq(
	    cmp("welcome. the default class runs a microvm. other topics follow.", &be, q, &diff),
	    SOURCES_QUOTE_GONE);
	ck_assert_ptr_null(diff);
	free(passage);
}
END_TEST

START_TEST(repeated_quote_any_occurrence)
{
	const char *v1 = "one. it runs in a microvm. two. three. four. five. six. it runs in a "
	                 "microvm. seven.";
	char h[65], *passage = NULL, *diff = NULL;
	sha(v1, h);
	sources_change c;
	ck_assert_int_eq(
	    sources_compare(v1, v1, h, "it runs in a microvm", NULL, &c, &passage, &diff), 0);
	ck_assert_str_eq(passage, "one. it runs in a microvm. two.");
	sources_baseline_entry be = {
	    .url = "u", .quote = "q", .taken_at = "t", .main_text_sha256 = h, .passage = passage};
	/* The first occurrence moved on; a later one still reads as kept. */
	const char *v2 = "zero. six. it runs in a microvm. eight. one. it runs in a microvm. two. "
	                 "end.";
	ck_assert_int_ne(cmp(v2, &be, "it runs in a microvm", &diff), SOURCES_PASSAGE_CHANGED);
	ck_assert_ptr_null(diff);
	free(passage);
}
END_TEST

START_TEST(main_text_leaves_chrome_out)
{
	const char *page =
	    "<html><head><title>T</title></head><body><nav>Home Docs Blog</nav>"
	    "<header role=\"banner\">Site banner</header><div role=\"navigation\">Side menu</div>"
	    "<main><h1>Sandboxes</h1><p>Each sandbox runs in its own microVM.</p>"
	    "<aside>Related: pricing</aside></main><footer>Copyright 2026</footer>"
	    "<script>var x = 1;</script></body></html>";
	char *full = NULL, *main_text = NULL;
	ck_assert_int_eq(isotier_html_texts(&full, &main_text, page, strlen(page), NULL), 0);
	ck_assert_ptr_nonnull(strstr(full, "Home Docs Blog"));
	ck_assert_ptr_nonnull(strstr(full, "Copyright"));
	ck_assert_ptr_nonnull(strstr(main_text, "Each sandbox runs in its own microVM."));
	ck_assert_ptr_null(strstr(main_text, "Home"));
	ck_assert_ptr_null(strstr(main_text, "banner"));
	ck_assert_ptr_null(strstr(main_text, "Side menu"));
	ck_assert_ptr_null(strstr(main_text, "pricing"));
	ck_assert_ptr_null(strstr(main_text, "Copyright"));
	ck_assert_ptr_null(strstr(main_text, "var x"));
	free(full);
	free(main_text);
	/* No <main>: the body without its chrome. Invalid UTF-8 survives. */
	const char *bare =
	    "<body><nav>menu</nav><p>Text \xff\xfe here.</p><footer>f</footer></body>";
	ck_assert_int_eq(isotier_html_texts(&full, &main_text, bare, strlen(bare), "utf-8"), 0);
	ck_assert_ptr_nonnull(strstr(main_text, "here."));
	ck_assert_ptr_null(strstr(main_text, "menu"));
	char *norm = isotier_text_normalise(main_text, strlen(main_text));
	ck_assert(isotier__utf8_valid(norm, strlen(norm)));
	free(norm);
	free(full);
	free(main_text);
}
END_TEST

static char *write_tmp(const char *content)
{
	char *path = strdup("/tmp/isotier-baseline-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
	return path;
}

START_TEST(baseline_round_trip_and_damage)
{
	char h[65];
	sha("x", h);
	sources_baseline b = {0};
	ck_assert_int_eq(
	    sources_baseline_put(&b, "https://b", "q2", "2026-12-03T00:00:00Z", h, "p"), 0);
	ck_assert_int_eq(
	    sources_baseline_put(&b, "https://a", "q1", "2026-12-03T00:00:00Z", h, "p1"), 0);
	ck_assert_int_eq(
	    sources_baseline_put(&b, "https://a", "q1", "2026-12-04T00:00:00Z", h, "p2"), 0);
	ck_assert_uint_eq(b.n, 2);
	char *path = write_tmp("");
	isotier_error err = {0};
	ck_assert_int_eq(sources_baseline_save(&b, path, &err), 0);
	sources_baseline_free(&b);
	ck_assert_int_eq(sources_baseline_load(&b, path, &err), 0);
	ck_assert_uint_eq(b.n, 2);
	ck_assert_str_eq(b.e[0].url, "https://a"); /* sorted */
	ck_assert_str_eq(sources_baseline_find(&b, "https://a", "q1")->passage, "p2");
	ck_assert_ptr_null(sources_baseline_find(&b, "https://a", "q2"));
	sources_baseline_free(&b);
	unlink(path);
	/* Absent: an empty baseline. */
	ck_assert_int_eq(sources_baseline_load(&b, path, &err), 0);
	ck_assert_uint_eq(b.n, 0);
	free(path);
	static const char *const bad[] = {
	    "not json",
	    "{\"format\": \"other/1\", \"sources\": []}",
	    "{\"format\": \"isotier.sources-baseline/1\", \"sources\": {}}",
	    "{\"format\": \"isotier.sources-baseline/1\", \"sources\": [], \"extra\": 1}",
	    "{\"format\": \"isotier.sources-baseline/1\", \"sources\": [{\"url\": \"u\"}]}",
	    "{\"format\": \"isotier.sources-baseline/1\", \"sources\": [{\"url\": \"u\", "
	    "\"quote\": "
	    "\"q\", \"taken_at\": \"t\", \"main_text_sha256\": \"XYZ\", \"passage\": \"p\"}]}",
	    "{\"format\": \"isotier.sources-baseline/1\", \"sources\": [{\"url\": \"u\", "
	    "\"quote\": "
	    "\"q\", \"taken_at\": \"t\", \"main_text_sha256\": "
	    "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\", "
	    "\"passage\": \"p\", \"more\": 1}]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		path = write_tmp(bad[i]);
		isotier_error e2 = {0};
		ck_assert_int_lt(sources_baseline_load(&b, path, &e2), 0);
		ck_assert_ptr_nonnull(strstr(e2.message, path));
		ck_assert_uint_eq(b.n, 0);
		unlink(path);
		free(path);
	}
	/* A symbolic link is never written through. */
	ck_assert_int_eq(sources_baseline_put(&b, "u", "q", "t", h, "p"), 0);
	char link[] = "/tmp/isotier-baseline-link-XXXXXX";
	int fd = mkstemp(link);
	close(fd);
	unlink(link);
	ck_assert_int_eq(symlink("/tmp/isotier-nowhere", link), 0);
	ck_assert_int_lt(sources_baseline_save(&b, link, &err), 0);
	unlink(link);
	sources_baseline_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sources_passage");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, passage_is_sentence_either_side);
	tcase_add_test(tc, passage_without_sentences_is_bounded);
	tcase_add_test(tc, four_changes_told_apart);
	tcase_add_test(tc, repeated_quote_any_occurrence);
	tcase_add_test(tc, main_text_leaves_chrome_out);
	tcase_add_test(tc, baseline_round_trip_and_damage);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
