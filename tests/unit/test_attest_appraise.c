/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_appraise.c - genuine SEV-SNP reports that are worth nothing
 * (attest_snp_check.c), made by a test authority (attest_authority.h) and
 * refused with the check named, as go-sev-guest's validate.SnpAttestation
 * refuses them: a VCEK issued for an old TCB under a report claiming a newer
 * one, a key TCB above CURRENT_TCB, provisional firmware (COMMITTED below
 * CURRENT, TCB or build), a LAUNCH_TCB below the minimum, a product with no
 * shipped minimum, MIGRATE_MA, reserved bit 17 clear, must-be-zero policy
 * bits, and the SMT, SINGLE_SOCKET and ABI knobs. A Turin report (8-byte
 * hwID, fmc) and a VLEK-signed report verify end to end; the operator's
 * cached VCEK is preferred over the host's. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reference/attestation/attest.h"
#include "attest_authority.h"

static char roots[64];
/* Whose table the host serves (NULL: the report's authority's). */
static test_authority *aux_from;

static void setup(void)
{
	strcpy(roots, "/tmp/isotier-attest-ap-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(roots));
}

static void teardown(void)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", roots);
	ck_assert_int_eq(system(cmd), 0);
}

/* f's report by ta, the host's table beside it, verified under p (its own
 * report_data standing for the binding); rc, v->detail. */
static int run(test_authority *ta, test_snp_fields f, attest_policy p, attest_verdict *v)
{
	uint8_t rep[ATTEST_SNP_REPORT_LEN];
	memset(f.report_data, 0x5a, sizeof f.report_data);
	memset(f.report_id, 0x33, sizeof f.report_id);
	test_authority_snp_report(ta, &f, rep);
	size_t aux_len = 0;
	uint8_t *aux = test_authority_auxblob(aux_from ? aux_from : ta, &aux_len);
	if (!p.roots_dir)
		p.roots_dir = roots;
	attest_evidence e = {.provider = "sev_guest",
	                     .outblob = rep,
	                     .outblob_len = sizeof rep,
	                     .auxblob = aux,
	                     .auxblob_len = aux_len};
	int rc = isotier__attest_verify(v, &e, rep + 0x50, &p, NULL);
	free(aux);
	return rc;
}

#define REFUSED(ta, f, p, what)                                                                    \
	do {                                                                                       \
		attest_verdict v_;                                                                 \
		int rc_ = run(ta, f, p, &v_);                                                      \
		ck_assert_msg(rc_ < 0 && !v_.valid && strstr(v_.detail, what), "want \"%s\": %s",  \
		              what, v_.detail);                                                    \
	} while (0)

#define VERIFIES(ta, f, p)                                                                         \
	do {                                                                                       \
		attest_verdict v_;                                                                 \
		int rc_ = run(ta, f, p, &v_);                                                      \
		ck_assert_msg(rc_ == 0 && v_.valid, "want valid: %s", v_.detail);                  \
	} while (0)

START_TEST(honest_milan_verifies_under_the_shipped_minimum)
{
	test_authority *ta = test_authority_new(roots, "milan");
	attest_verdict v;
	ck_assert_msg(run(ta, (test_snp_fields){0}, (attest_policy){0}, &v) == 0, "%s", v.detail);
	ck_assert_str_eq(v.product, "Milan");
	ck_assert_ptr_nonnull(strstr(v.root, "VCEK served by the host"));
	test_authority_free(ta);
}
END_TEST

/* The defect as found: a VCEK issued for an old TCB signs a report that
 * states a new one; a minimum above the key's TCB does not let it through. */
START_TEST(old_tcb_vcek_refused)
{
	uint64_t old = 0x7300000000000304ull; /* bl 4, tee 3, snp 0, ucode 0x73 */
	test_authority *ta = test_authority_new_tcb(roots, "milan", old);
	attest_policy p = {.has_min_tcb = true,
	                   .min_tcb = {.boot_loader = 4, .snp = 0x18, .microcode = 0xDB}};
	test_snp_fields f = {.reported_tcb = TEST_AUTHORITY_TCB};
	REFUSED(ta, f, p,
	        "report.reported_tcb (bl 4, tee 0, snp 24, ucode 219): not the key "
	        "certificate's TCB (bl 4, tee 3, snp 0, ucode 115)");
	/* Stated truthfully, the old TCB is below the shipped minimum. */
	REFUSED(ta, (test_snp_fields){0}, (attest_policy){0}, "below the minimum TCB");
	test_authority_free(ta);
}
END_TEST

START_TEST(tcb_orderings_refused)
{
	test_authority *ta = test_authority_new(roots, "milan");
	attest_policy p = {0};
	/* The key's TCB above what the platform runs. */
	test_snp_fields f = {.current_tcb = 0xDB17000000000004ull};
	REFUSED(ta, f, p, "report.current_tcb (bl 4, tee 0, snp 23, ucode 219): below the key");
	/* Provisional firmware: COMMITTED below CURRENT. */
	f = (test_snp_fields){.current_tcb = 0xDB19000000000004ull,
	                      .committed_tcb = TEST_AUTHORITY_TCB};
	REFUSED(ta, f, p, "report.committed_tcb");
	p.allow_provisional = true;
	VERIFIES(ta, f, p);
	/* Never above CURRENT, even allowed. */
	f = (test_snp_fields){.committed_tcb = 0xDB19000000000004ull};
	REFUSED(ta, f, p, "report.committed_tcb (bl 4, tee 0, snp 25, ucode 219): above");
	/* The committed firmware build differs from the current one. */
	p.allow_provisional = false;
	f = (test_snp_fields){.current_build = 7, .committed_build = 5};
	REFUSED(ta, f, p, "report.committed_version (1.55 build 5)");
	p.allow_provisional = true;
	VERIFIES(ta, f, p);
	/* Launched on firmware below the minimum, updated since. */
	p = (attest_policy){0};
	f = (test_snp_fields){.launch_tcb = 0xDB10000000000004ull};
	REFUSED(ta, f, p, "report.launch_tcb (bl 4, tee 0, snp 16, ucode 219): below the minimum");
	test_authority_free(ta);
}
END_TEST

START_TEST(policy_bits_refused)
{
	test_authority *ta = test_authority_new(roots, "milan");
	attest_policy p = {0};
	test_snp_fields f = {.policy = 0x30000 | ATTEST_SNP_POLICY_MIGRATE_MA};
	REFUSED(ta, f, p, "report.policy: MIGRATE_MA set");
	f.policy = 0x10000; /* SMT only: reserved bit 17 clear */
	REFUSED(ta, f, p, "reserved bit 17 clear");
	f.policy = 0x30000 | 1ull << 40;
	REFUSED(ta, f, p, "must-be-zero bits 26-63 set");
	f.policy = 0x30000 | ATTEST_SNP_POLICY_DEBUG;
	REFUSED(ta, f, p, "debugging allowed");
	/* The knobs. */
	f.policy = 0x30000;
	p.require_no_smt = true;
	REFUSED(ta, f, p, "SMT allowed");
	f.policy = 0x20000;
	VERIFIES(ta, f, p);
	p.require_single_socket = true;
	REFUSED(ta, f, p, "SINGLE_SOCKET clear");
	f.policy = 0x20000 | ATTEST_SNP_POLICY_SINGLE_SOCKET | 0x0137; /* ABI 1.55 */
	VERIFIES(ta, f, p);
	p.min_abi_major = 1, p.min_abi_minor = 56;
	REFUSED(ta, f, p, "ABI 1.55, below the required 1.56");
	p.min_abi_minor = 55;
	VERIFIES(ta, f, p);
	test_authority_free(ta);
}
END_TEST

/* Turin: an 8-byte hwID, fmc first in TCB_VERSION, and no minimum shipped. */
START_TEST(turin_needs_a_minimum_and_verifies_with_one)
{
	test_authority *ta = test_authority_new(roots, "turin");
	attest_verdict v;
	REFUSED(ta, (test_snp_fields){0}, (attest_policy){0}, "none shipped for Turin");
	attest_policy p = {
	    .has_min_tcb = true,
	    .min_tcb = {.fmc = 1, .boot_loader = 2, .tee = 3, .snp = 4, .microcode = 0x47}};
	ck_assert_msg(run(ta, (test_snp_fields){0}, p, &v) == 0, "%s", v.detail);
	ck_assert_str_eq(v.product, "Turin");
	ck_assert_msg(strstr(v.tcb, "fmc 1, bootloader 2, tee 3, snp 4, microcode 71"), "%s",
	              v.tcb);
	/* fmc below the minimum. */
	p.min_tcb.fmc = 2;
	REFUSED(ta, (test_snp_fields){0}, p, "report.reported_tcb (fmc 1,");
	test_authority_free(ta);
}
END_TEST

/* A VLEK (a cloud's key, SIGNING_KEY 1) chains through the pinned ASVK. */
START_TEST(vlek_report_verifies)
{
	test_authority *ta = test_authority_new(roots, "genoa");
	attest_verdict v;
	test_snp_fields f = {.vlek = true};
	ck_assert_msg(run(ta, f, (attest_policy){0}, &v) == 0, "%s", v.detail);
	ck_assert_str_eq(v.product, "Genoa");
	ck_assert_msg(strstr(v.root, "VLEK served by the host"), "%s", v.root);
	/* Without the pinned ASVK: refused, naming it. */
	char path[200];
	snprintf(path, sizeof path, "%s/amd_genoa_asvk.pem", roots);
	ck_assert_int_eq(unlink(path), 0);
	REFUSED(ta, f, (attest_policy){0}, "ASVK");
	test_authority_free(ta);
}
END_TEST

/* The operator's cached VCEK decides over the host's table: a host serving
 * another chip's VCEK does not undo a correct cache. */
START_TEST(cache_preferred_over_host)
{
	test_authority *ta = test_authority_new(roots, "milan");
	char cache[64] = "/tmp/isotier-attest-apc-XXXXXX", path[4096], cmd[200];
	ck_assert_ptr_nonnull(mkdtemp(cache));
	int n = snprintf(path, sizeof path, "%s/", cache);
	for (int i = 0; i < 64; i++)
		n += snprintf(path + n, sizeof path - (size_t)n, "%02x",
		              test_authority_chip_id(ta)[i]);
	snprintf(path + n, sizeof path - (size_t)n, "-%016llx.der",
	         (unsigned long long)TEST_AUTHORITY_TCB);
	size_t len = 0;
	uint8_t *der = test_authority_vcek_der(ta, &len);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(der, 1, len, f), len);
	fclose(f);
	free(der);
	/* The host serves another chip's VCEK, chained to nothing pinned. */
	test_authority *stranger = test_authority_new(NULL, "milan");
	aux_from = stranger;
	attest_verdict v;
	REFUSED(ta, (test_snp_fields){0}, (attest_policy){0}, "VCEK does not chain");
	attest_policy p = {.cache_dir = cache};
	ck_assert_msg(run(ta, (test_snp_fields){0}, p, &v) == 0, "%s", v.detail);
	aux_from = NULL;
	test_authority_free(stranger);
	ck_assert_int_eq(v.certs, ATTEST_CERTS_CACHE);
	ck_assert_msg(strstr(v.root, "VCEK from the local cache"), "%s", v.root);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache);
	ck_assert_int_eq(system(cmd), 0);
	test_authority_free(ta);
}
END_TEST

START_TEST(policy_from_env)
{
	attest_policy p;
	uint8_t m[ATTEST_SNP_MEASURE_LEN];
	isotier_error err = {0};
	setenv("ISOTIER_ATTEST_MIN_TCB", "2.3.4.71.1", 1);
	setenv("ISOTIER_ATTEST_SNP_PROVISIONAL", "1", 1);
	setenv("ISOTIER_ATTEST_SNP_NO_SMT", "1", 1);
	setenv("ISOTIER_ATTEST_SNP_MIN_ABI", "1.55", 1);
	ck_assert_int_eq(isotier__attest_policy_from_env(&p, m, &err), 0);
	ck_assert(p.has_min_tcb && p.min_tcb.fmc == 1 && p.min_tcb.microcode == 71);
	ck_assert(p.allow_provisional && p.require_no_smt && !p.require_single_socket);
	ck_assert_uint_eq(p.min_abi_minor, 55);
	setenv("ISOTIER_ATTEST_SNP_SINGLE_SOCKET", "yes", 1);
	ck_assert_int_lt(isotier__attest_policy_from_env(&p, m, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.message, "ISOTIER_ATTEST_SNP_SINGLE_SOCKET"));
	unsetenv("ISOTIER_ATTEST_SNP_SINGLE_SOCKET");
	setenv("ISOTIER_ATTEST_MIN_TCB", "2.3.4.71.1.9", 1);
	ck_assert_int_lt(isotier__attest_policy_from_env(&p, m, &err), 0);
	setenv("ISOTIER_ATTEST_SNP_MIN_ABI", "1", 1);
	unsetenv("ISOTIER_ATTEST_MIN_TCB");
	ck_assert_int_lt(isotier__attest_policy_from_env(&p, m, &err), 0);
	unsetenv("ISOTIER_ATTEST_SNP_MIN_ABI");
	unsetenv("ISOTIER_ATTEST_SNP_PROVISIONAL");
	unsetenv("ISOTIER_ATTEST_SNP_NO_SMT");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_appraise");
	TCase *tc = tcase_create("appraise");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, honest_milan_verifies_under_the_shipped_minimum);
	tcase_add_test(tc, old_tcb_vcek_refused);
	tcase_add_test(tc, tcb_orderings_refused);
	tcase_add_test(tc, policy_bits_refused);
	tcase_add_test(tc, turin_needs_a_minimum_and_verifies_with_one);
	tcase_add_test(tc, vlek_report_verifies);
	tcase_add_test(tc, cache_preferred_over_host);
	tcase_add_test(tc, policy_from_env);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
