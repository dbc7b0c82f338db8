/* SPDX-License-Identifier: Apache-2.0 */
/* test_version.c - the library's version (isotier_version() and the header's numbers are one
 * version) and the version rules of the structs a caller allocates: an options struct of a
 * version up to the library's is read, a newer one or 0 refused; an isotier_error of version 0
 * (zero-initialised) is filled as version 1; isotier_resolve's request and result the same. */
#include <check.h>
#include "check_run.h"
#include <errno.h>
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
		char range[32];
		snprintf(range, sizeof range, "1 to %d", ISOTIER_CREATE_OPTS_VERSION);
		ck_assert_msg(strstr(err.message, range) && strstr(err.message, ISOTIER_VERSION),
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

START_TEST(floor_above_container_needs_attest_or_trust_history)
{
	/* runsc's claim resolves to GVISOR from the catalogue alone; requiring it without
	 * attest is refused before anything is provisioned (runsc need not be installed: the
	 * refusal comes first), naming both ways out. A version 1 struct cannot ask for the
	 * history-only trust: what it sets past its own end is never read. */
	struct {
		unsigned int version;
		bool trust_history;
	} cases[] = {{1, true}, {2, false}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
		opts.version = cases[i].version;
		opts.backend = "runsc";
		opts.require_isolation = ISOTIER_GVISOR;
		opts.trust_history = cases[i].trust_history;
		isotier_sandbox *sb = NULL;
		isotier_error err = ISOTIER_ERROR_INIT;
		int rc = isotier_create(&sb, &opts, &err);
		ck_assert_ptr_null(sb);
		ck_assert_msg(rc == ISOTIER_ECONFIG && strstr(err.message, "trust_history") &&
		                  strstr(err.message, "attest"),
		              "version %u: %d %s", cases[i].version, rc, err.message);
	}
}
END_TEST

START_TEST(resolve_versions)
{
	/* A request of a version up to the library's is read; 0 or newer refused. A result
	 * newer than the library's is refused (fields it cannot fill), untouched; 0 reads as 1. */
	struct {
		unsigned int req, out;
		int rc;
	} cases[] = {{0, 1, ISOTIER_EINVAL},
	             {ISOTIER_RESOLVE_REQUEST_VERSION + 1, 1, ISOTIER_EINVAL},
	             {1, ISOTIER_RESOLVED_VERSION + 1, ISOTIER_EINVAL},
	             {1, 0, ISOTIER_ENOTFOUND},
	             {1, 1, ISOTIER_ENOTFOUND}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		isotier_resolve_request req = ISOTIER_RESOLVE_REQUEST_INIT;
		req.version = cases[i].req;
		req.backend = "no-such-backend";
		isotier_resolved out = {.version = cases[i].out, .tier = ISOTIER_MICROVM};
		isotier_error err = ISOTIER_ERROR_INIT;
		ck_assert_int_eq(isotier_resolve(&out, &req, &err), cases[i].rc);
		ck_assert_int_eq(err.code, cases[i].rc);
		ck_assert_int_eq(out.tier, ISOTIER_MICROVM); /* nothing written on an error */
		if (cases[i].rc == ISOTIER_EINVAL)
			ck_assert_msg(strstr(err.message, "version") &&
			                  strstr(err.message, ISOTIER_VERSION),
			              "case %zu: %s", i, err.message);
		else
			ck_assert_msg(strstr(err.message, "no-such-backend"), "%s", err.message);
	}
	isotier_resolved out = ISOTIER_RESOLVED_INIT;
	isotier_error err = ISOTIER_ERROR_INIT;
	ck_assert_int_eq(isotier_resolve(&out, NULL, &err), ISOTIER_EINVAL);
	isotier_resolve_request req = ISOTIER_RESOLVE_REQUEST_INIT;
	ck_assert_int_eq(isotier_resolve(&out, &req, &err), ISOTIER_EINVAL); /* no backend */
	req.backend = "bwrap";
	req.require_verified_days = -1;
	ck_assert_int_eq(isotier_resolve(&out, &req, &err), ISOTIER_EINVAL);
}
END_TEST

START_TEST(resolve_absent_history_is_not_found)
{
	isotier_resolve_request req = ISOTIER_RESOLVE_REQUEST_INIT;
	req.backend = "bwrap";
	req.db_path = "/nonexistent-isotier-dir/h.db";
	isotier_resolved out = ISOTIER_RESOLVED_INIT;
	isotier_error err = ISOTIER_ERROR_INIT;
	ck_assert_int_eq(isotier_resolve(&out, &req, &err), ISOTIER_ENOTFOUND);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	ck_assert_msg(strstr(err.message, req.db_path), "%s", err.message);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("version");
	TCase *tc = tcase_create("version");
	tcase_add_test(tc, version_string_and_numbers_agree);
	tcase_add_test(tc, create_opts_newer_or_zero_refused);
	tcase_add_test(tc, create_opts_known_version_read);
	tcase_add_test(tc, floor_above_container_needs_attest_or_trust_history);
	tcase_add_test(tc, resolve_versions);
	tcase_add_test(tc, resolve_absent_history_is_not_found);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
