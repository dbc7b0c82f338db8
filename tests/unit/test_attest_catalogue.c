/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_catalogue.c - an offering may say it offers hardware
 * attestation (catalogue "attestation", ADR-0020): sev-snp or tdx load; any
 * other word fails naming the field; absent is none documented. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../catalogue/catalogue.h"

#define ENTRY ISOTIER_SOURCE_DIR "/catalogue/providers/aci-confidential-containers.json"

/* The entry with `"attestation": value,` put before its mechanism (none: as is). */
/* The entry parsed; *why gets the first finding's field and message. */
static int parse_with(isotier_provider *p, const char *value, char *why, size_t whylen)
{
	char *json = NULL, *out = NULL;
	size_t len = 0;
	isotier_error err = {0};
	isotier_findings f = {0};
	ck_assert_int_eq(isotier__read_file(&json, &len, ENTRY, 1 << 20, &err), 0);
	if (value) {
		char *at = strstr(json, "\"mechanism\"");
		ck_assert_ptr_nonnull(at);
		ck_assert_int_gt(asprintf(&out, "%.*s\"attestation\": %s,\n  %s", (int)(at - json),
		                          json, value, at),
		                 0);
		free(json);
		json = out;
	}
	int rc = isotier__provider_parse(p, json, strlen(json), ENTRY, &f);
	snprintf(why, whylen, "%s: %s", f.n ? f.items[0].field : "", f.n ? f.items[0].message : "");
	isotier__findings_free(&f);
	free(json);
	return rc;
}

START_TEST(attestation_field)
{
	isotier_provider p = {0};
	char why[512];
	ck_assert_msg(parse_with(&p, NULL, why, sizeof why) == 0, "%s", why);
	ck_assert_ptr_null(p.attestation);
	isotier__provider_clear(&p);
	ck_assert_msg(parse_with(&p, "\"sev-snp\"", why, sizeof why) == 0, "%s", why);
	ck_assert_str_eq(p.attestation, "sev-snp");
	isotier__provider_clear(&p);
	ck_assert_int_eq(parse_with(&p, "\"tdx\"", why, sizeof why), 0);
	isotier__provider_clear(&p);
	ck_assert_int_lt(parse_with(&p, "\"sgx\"", why, sizeof why), 0);
	ck_assert_msg(strstr(why, "attestation") != NULL, "%s", why);
	isotier__provider_clear(&p);
	ck_assert_int_lt(parse_with(&p, "true", why, sizeof why), 0);
	isotier__provider_clear(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_catalogue");
	TCase *tc = tcase_create("catalogue");
	tcase_add_test(tc, attestation_field);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
