/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_catalogue_scope.c - an offering's `scope` (between whom its tier's
 * boundary holds): the parser takes the three words and refuses any other
 * (the entry does not load: fail closed), and a set scope is part of the
 * claim an observation judged, while an entry without one keeps the digest
 * it always had.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <string.h>

#include "../../catalogue/catalogue.h"

static const char *entry_fmt =
    "{\"id\": \"x\", \"name\": \"X\", \"kind\": \"remote\", \"tier\": \"MICROVM\", %s"
    "\"mechanism\": \"firecracker\", \"since\": \"2026-01-01\", \"sources\": [{\"url\": "
    "\"https://example.com/a\", \"quote\": \"q\", \"publisher\": \"provider\", \"retrieved\": "
    "\"2026-11-30\"}], \"history\": [], \"notes\": \"n\"}";

static int parse(isotier_provider *p, const char *scope_field, isotier_findings *f)
{
	char json[1024];
	snprintf(json, sizeof json, entry_fmt, scope_field);
	memset(p, 0, sizeof *p);
	return isotier__provider_parse(p, json, strlen(json), "x.json", f);
}

START_TEST(scope_words)
{
	static const char *const ok[] = {"per-sandbox", "between-tenants", "between-accounts"};
	for (size_t i = 0; i < 3; i++) {
		char field[64];
		snprintf(field, sizeof field, "\"scope\": \"%s\",", ok[i]);
		isotier_provider p;
		isotier_findings f = {0};
		ck_assert_int_eq(parse(&p, field, &f), 0);
		ck_assert_str_eq(p.scope, ok[i]);
		ck_assert(isotier__scope_valid(ok[i]));
		isotier__provider_clear(&p);
		isotier__findings_free(&f);
	}
	static const char *const bad[] = {"\"scope\": \"per-account\",", "\"scope\": \"\",",
	                                  "\"scope\": 3,", "\"scope\": null,",
	                                  "\"scope\": \"Per-Sandbox\","};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		isotier_provider p;
		isotier_findings f = {0};
		ck_assert_int_lt(parse(&p, bad[i], &f), 0);
		ck_assert_uint_ge(f.n_errors, 1);
		ck_assert_str_eq(f.items[0].field, "scope");
		isotier__findings_free(&f);
	}
	ck_assert(!isotier__scope_valid(NULL));
}
END_TEST

START_TEST(scope_in_claim_digest)
{
	isotier_provider a, b;
	isotier_findings f = {0};
	ck_assert_int_eq(parse(&a, "", &f), 0);
	ck_assert_int_eq(parse(&b, "\"scope\": \"between-accounts\",", &f), 0);
	char *da = isotier__claim_digest(&a), *db = isotier__claim_digest(&b);
	ck_assert_ptr_nonnull(da);
	ck_assert_ptr_nonnull(db);
	ck_assert_str_ne(da, db);
	ck_assert_ptr_null(strstr(da, "scope")); /* no scope: the digest it always had */
	ck_assert_ptr_nonnull(strstr(db, "\n5:scope\n16:between-accounts"));
	ck_assert_int_eq(strncmp(da, db, strlen(da)), 0); /* appended, nothing else moved */
	free(da);
	free(db);
	isotier__provider_clear(&a);
	isotier__provider_clear(&b);
	isotier__findings_free(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("catalogue_scope");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, scope_words);
	tcase_add_test(tc, scope_in_claim_digest);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
