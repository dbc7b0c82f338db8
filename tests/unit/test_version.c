/* SPDX-License-Identifier: Apache-2.0 */
/* test_version.c - the library's version (isotier_version() and the header's numbers are one
 * version) and the version rules of the structs a caller allocates: an options struct of a
 * version up to the library's is read, a newer one or 0 refused; an isotier_error of version 0
 * (zero-initialised) is filled as version 1. */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <string.h>

#include "isotier.h"

START_TEST(version_string_and_numbers_agree)
{
	int major = -1, minor = -1, patch = -1;
	const char *v = isotier_version(&major, &minor, &patch);
	ck_assert_int_eq(major, ISOTIER_VERSION_MAJOR);
	ck_assert_int_eq(minor, ISOTIER_VERSION_MINOR);
	ck_assert_int_eq(patch, ISOTIER_VERSION_PATCH);
	char want[64];
	snprintf(want, sizeof want, "%d.%d.%d", major, minor, patch);
	ck_assert_str_eq(v, want);
	ck_assert_str_eq(v, ISOTIER_VERSION);
	/* Every out-parameter may be NULL. */
	ck_assert_str_eq(isotier_version(NULL, NULL, NULL), ISOTIER_VERSION);
}
END_TEST

START_TEST(create_opts_newer_or_zero_refused)
{
	unsigned int bad[] = {0, ISOTIER_CREATE_OPTS_VERSION + 1, 99};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
		opts.version = bad[i];
		opts.backend = "no-such-backend";
		isotier_sandbox *sb = NULL;
		isotier_error err = ISOTIER_ERROR_INIT;
		ck_assert_int_eq(isotier_create(&sb, &opts, &err), ISOTIER_EINVAL);
		ck_assert_ptr_null(sb);
		ck_assert_int_eq(err.code, ISOTIER_EINVAL);
		ck_assert_msg(strstr(err.message, "1 to 1") && strstr(err.message, ISOTIER_VERSION),
		              "version %u: %s", bad[i], err.message);
		ck_assert_int_eq(err.version,
		                 ISOTIER_ERROR_VERSION); /* the library never changes it */
	}
}
END_TEST

START_TEST(create_opts_known_version_read)
{
	/* Every version from 1 to the library's passes the version check and reaches the
	 * backend lookup. */
	for (unsigned int v = 1; v <= ISOTIER_CREATE_OPTS_VERSION; v++) {
		isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
		opts.version = v;
		opts.backend = "no-such-backend";
		isotier_sandbox *sb = NULL;
		isotier_error err = {0}; /* version 0: read as 1 */
		ck_assert_int_eq(isotier_create(&sb, &opts, &err), ISOTIER_ENOTFOUND);
		ck_assert_ptr_null(sb);
		ck_assert_int_eq(err.version, 0);
		ck_assert_msg(strstr(err.message, "no-such-backend"), "%s", err.message);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("version");
	tcase_add_test(tc, version_string_and_numbers_agree);
	tcase_add_test(tc, create_opts_newer_or_zero_refused);
	tcase_add_test(tc, create_opts_known_version_read);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
