/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_binding.c - evidence bound to one run (attest.h), with
 * reports a test authority signs at test time (attest_authority.h): the
 * right nonce over the probe's own output passes; a replayed report (an old
 * nonce), a report over another probe output, a debug or too-privileged
 * guest, a low TCB, a wrong measurement, a foreign authority and a member
 * that is not the output's last are refused; two sandboxes with one
 * report_id are one guest. */
#include <check.h>
#include "check_run.h"
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reference/attestation/attest.h"
#include "attest_authority.h"

static char roots[64], other_roots[64];
static test_authority *ta, *stranger;

static void setup(void)
{
	strcpy(roots, "/tmp/isotier-attest-ta-XXXXXX");
	strcpy(other_roots, "/tmp/isotier-attest-tb-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(roots));
	ck_assert_ptr_nonnull(mkdtemp(other_roots));
	ta = test_authority_new(roots, "milan");
	stranger = test_authority_new(other_roots, "milan");
}

static void teardown(void)
{
	test_authority_free(ta);
	test_authority_free(stranger);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", roots, other_roots);
	ck_assert_int_eq(system(cmd), 0);
}

static char *hexs(const uint8_t *p, size_t n)
{
	char *s = malloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", p[i]);
	s[2 * n] = '\0';
	return s;
}

/* The probe's report body for a run (as the probe prints it, ending "\n}\n"). */
static char *body_for(const char *nonce, const char *tier)
{
	char *b = NULL;
	ck_assert_int_gt(asprintf(&b,
	                          "{\n  \"schema\": \"isotier.probe/1\",\n  \"observed_tier\": "
	                          "\"%s\",\n  \"run\": {\"nonce\": \"%s\"}\n}\n",
	                          tier, nonce),
	                 0);
	return b;
}

/* body with an attestation member holding a report by `by` over `bound_to`
 * (a body and nonce, maybe another run's), fields f. */
static char *output_with(test_authority *by, const char *body, const char *bound_body,
                         const char *bound_nonce, test_snp_fields f, const char *extra)
{
	uint8_t rep[ATTEST_SNP_REPORT_LEN];
	isotier_error err = {0};
	ck_assert_int_eq(isotier__attest_binding(f.report_data, bound_nonce,
	                                         (const uint8_t *)bound_body, strlen(bound_body),
	                                         &err),
	                 0);
	test_authority_snp_report(by, &f, rep);
	size_t aux_len = 0;
	uint8_t *aux = test_authority_auxblob(by, &aux_len);
	char *rh = hexs(rep, sizeof rep), *ah = hexs(aux, aux_len), *out = NULL;
	ck_assert_int_gt(asprintf(&out,
	                          "%.*s,\n  \"attestation\": {\"status\": \"ok\", \"provider\": "
	                          "\"sev_guest\", \"generation\": 1, \"outblob\": \"%s\", "
	                          "\"auxblob\": \"%s\"}%s\n}\n",
	                          (int)(strlen(body) - 3), body, rh, ah, extra),
	                 0);
	free(rh);
	free(ah);
	free(aux);
	return out;
}

static test_snp_fields fields(uint8_t id)
{
	test_snp_fields f = {0};
	memset(f.report_id, id, sizeof f.report_id);
	return f;
}

static int check(attest_verdict *v, const char *out, const char *nonce, const attest_policy *p)
{
	return isotier__attest_output_verify(v, out, strlen(out), nonce, p);
}

START_TEST(honest_run_verifies)
{
	const char *nonce = "00112233445566778899aabbccddeeff";
	char *body = body_for(nonce, "MICROVM");
	char *out = output_with(ta, body, body, nonce, fields(1), "");
	attest_policy p = {.roots_dir = roots};
	attest_verdict v;
	ck_assert_msg(check(&v, out, nonce, &p) == 1, "%s", v.detail);
	ck_assert(v.valid);
	ck_assert_int_eq(v.tech, ATTEST_TECH_SEV_SNP);
	ck_assert_int_eq(v.certs, ATTEST_CERTS_HOST);
	ck_assert_ptr_nonnull(strstr(v.root, "served by the host"));
	ck_assert_ptr_nonnull(strstr(v.tcb, "microcode 219"));
	ck_assert_ptr_nonnull(strstr(v.measurement_judged, "not judged"));
	/* A configured reference measurement: judged. */
	uint8_t m[48];
	memset(m, 0xab, sizeof m);
	p.measurement = m, p.measurement_len = sizeof m;
	ck_assert_int_eq(check(&v, out, nonce, &p), 1);
	ck_assert_ptr_nonnull(strstr(v.measurement_judged, "matches"));
	m[0] = 0;
	ck_assert_int_eq(check(&v, out, nonce, &p), -1);
	ck_assert_ptr_nonnull(strstr(v.detail, "measurement"));
	free(out);
	free(body);
}
END_TEST

START_TEST(replayed_or_foreign_binding_refused)
{
	const char *old = "0123456789abcdef0123456789abcdef",
	           *now = "fedcba9876543210fedcba9876543210";
	attest_policy p = {.roots_dir = roots};
	attest_verdict v;
	/* A recorded output (its report bound to the old nonce) replayed with
	 * this run's nonce edited in. */
	char *old_body = body_for(old, "MICROVM"), *body = body_for(now, "MICROVM");
	char *replayed = output_with(ta, body, old_body, old, fields(2), "");
	ck_assert_int_eq(check(&v, replayed, now, &p), -1);
	ck_assert_msg(strstr(v.detail, "report_data") != NULL, "%s", v.detail);
	/* A genuine report of this run's nonce, but over another probe output
	 * (a container's report carried over to a microVM's). */
	char *container = body_for(now, "CONTAINER");
	char *swapped = output_with(ta, body, container, now, fields(3), "");
	ck_assert_int_eq(check(&v, swapped, now, &p), -1);
	/* The honest output, checked against another nonce. */
	char *honest = output_with(ta, body, body, now, fields(4), "");
	ck_assert_int_eq(check(&v, honest, now, &p), 1);
	ck_assert_int_eq(check(&v, honest, old, &p), -1);
	free(old_body), free(body), free(replayed), free(container), free(swapped), free(honest);
}
END_TEST

START_TEST(policy_refusals)
{
	const char *nonce = "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbb";
	char *body = body_for(nonce, "MICROVM");
	attest_policy p = {.roots_dir = roots};
	attest_verdict v;
	test_snp_fields f = fields(5);
	f.policy = 0x30000 | ATTEST_SNP_POLICY_DEBUG;
	char *out = output_with(ta, body, body, nonce, f, "");
	ck_assert_int_eq(check(&v, out, nonce, &p), -1);
	ck_assert_ptr_nonnull(strstr(v.detail, "debugging"));
	free(out);
	f = fields(6);
	f.vmpl = 2;
	out = output_with(ta, body, body, nonce, f, "");
	ck_assert_int_eq(check(&v, out, nonce, &p), -1);
	ck_assert_ptr_nonnull(strstr(v.detail, "vmpl"));
	p.max_vmpl = 2;
	ck_assert_int_eq(check(&v, out, nonce, &p), 1);
	free(out);
	out = output_with(ta, body, body, nonce, fields(7), "");
	p.has_min_tcb = true;
	p.min_tcb = (attest_snp_tcb){.boot_loader = 3, .tee = 0, .snp = 0, .microcode = 220};
	ck_assert_int_eq(check(&v, out, nonce, &p), -1);
	ck_assert_ptr_nonnull(strstr(v.detail, "TCB"));
	p.min_tcb.microcode = 219;
	ck_assert_int_eq(check(&v, out, nonce, &p), 1);
	free(out);
	/* A report by an authority whose roots are not pinned here. */
	out = output_with(stranger, body, body, nonce, fields(8), "");
	ck_assert_int_eq(check(&v, out, nonce, &p), -1);
	ck_assert_ptr_nonnull(strstr(v.detail, "chain"));
	free(out);
	free(body);
}
END_TEST

START_TEST(member_must_be_last_and_well_formed)
{
	const char *nonce = "cccccccccccccccccccccccccccccccc";
	char *body = body_for(nonce, "MICROVM");
	attest_policy p = {.roots_dir = roots};
	attest_verdict v;
	/* A member after the attestation would not be covered by the binding. */
	char *out = output_with(ta, body, body, nonce, fields(9), ",\n  \"observed_tier\": \"X\"");
	ck_assert_int_eq(check(&v, out, nonce, &p), -1);
	free(out);
	/* No member at all: nothing offered, nothing changes. */
	ck_assert_int_eq(check(&v, body, nonce, &p), 0);
	/* Absent or refused, as the probe says it. */
	const char *absent = "{\n  \"schema\": \"isotier.probe/1\",\n  \"attestation\": "
	                     "{\"status\": \"absent\", \"why\": \"no configfs-tsm\"}\n}\n";
	ck_assert_int_eq(check(&v, absent, nonce, &p), 0);
	ck_assert_ptr_nonnull(strstr(v.detail, "no configfs-tsm"));
	const char *badhex =
	    "{\n  \"schema\": \"isotier.probe/1\",\n  \"attestation\": "
	    "{\"status\": \"ok\", \"provider\": \"sev_guest\", \"outblob\": \"zz\"}\n}\n";
	ck_assert_int_eq(check(&v, badhex, nonce, &p), -1);
	ck_assert_ptr_nonnull(strstr(v.detail, "outblob"));
	free(body);
}
END_TEST

START_TEST(pair_needs_two_guests)
{
	const char *n1 = "11111111111111111111111111111111",
	           *n2 = "22222222222222222222222222222222";
	char *b1 = body_for(n1, "MICROVM"), *b2 = body_for(n2, "MICROVM");
	attest_policy p = {.roots_dir = roots};
	char *o1 = output_with(ta, b1, b1, n1, fields(0x10), "");
	char *o2 = output_with(ta, b2, b2, n2, fields(0x20), "");
	char *shared = output_with(ta, b2, b2, n2, fields(0x10), "");
	attest_pair pair = {0};
	int rc[2];
	rc[0] = isotier__attest_output_verify(&pair.v[0], o1, strlen(o1), n1, &p);
	rc[1] = isotier__attest_output_verify(&pair.v[1], o2, strlen(o2), n2, &p);
	isotier__attest_pair_judge(&pair, rc);
	ck_assert_msg(pair.outcome == ATTEST_PAIR_ATTESTED, "%s", pair.detail);
	ck_assert_ptr_nonnull(strstr(pair.detail, "two sev-snp guests, each bound to its own run"));
	rc[1] = isotier__attest_output_verify(&pair.v[1], shared, strlen(shared), n2, &p);
	isotier__attest_pair_judge(&pair, rc);
	ck_assert_int_eq(pair.outcome, ATTEST_PAIR_ONE_GUEST);
	ck_assert_ptr_nonnull(strstr(pair.detail, "shared guest"));
	/* One sandbox's output given for both: the second nonce refuses it. */
	rc[1] = isotier__attest_output_verify(&pair.v[1], o1, strlen(o1), n2, &p);
	isotier__attest_pair_judge(&pair, rc);
	ck_assert_int_eq(pair.outcome, ATTEST_PAIR_REJECTED);
	rc[1] = isotier__attest_output_verify(&pair.v[1], b2, strlen(b2), n2, &p);
	isotier__attest_pair_judge(&pair, rc);
	ck_assert_int_eq(pair.outcome, ATTEST_PAIR_NONE);
	free(b1), free(b2), free(o1), free(o2), free(shared);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_binding");
	TCase *tc = tcase_create("binding");
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_add_test(tc, honest_run_verifies);
	tcase_add_test(tc, replayed_or_foreign_binding_refused);
	tcase_add_test(tc, policy_refusals);
	tcase_add_test(tc, member_must_be_last_and_well_formed);
	tcase_add_test(tc, pair_needs_two_guests);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
