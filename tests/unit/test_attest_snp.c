/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_snp.c - real SEV-SNP evidence (tests/fixtures/attest/SOURCE.md):
 * a Milan report and its VCEK verify against the AMD roots pinned in
 * catalogue/roots under a minimum at the report's own TCB, and are refused
 * under the shipped minimum (the sample's firmware is older than
 * AMD-SB-3019's); one flipped bit anywhere in the report, its signature,
 * the VCEK or the pinned roots is refused, and so are an expired chain, a
 * chain of another product, and hostile report fields. AMD's real Turin
 * VCEK (an 8-byte hwID, the fmc SPL) is read and passes every check but the
 * signature over a report it never signed. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/attestation/attest.h"

#define FIX   ISOTIER_SOURCE_DIR "/tests/fixtures/attest/"
#define ROOTS ISOTIER_SOURCE_DIR "/catalogue/roots"
/* 2025-06-01: inside the Milan VCEK's validity (2023-04-03 to 2030-04-03). */
#define WHEN 1748736000
/* The sample's own TCB: an operator's minimum that lets it through. */
#define SAMPLE_TCB ((attest_snp_tcb){.boot_loader = 3, .tee = 0, .snp = 8, .microcode = 115})

static uint8_t report[ATTEST_SNP_REPORT_LEN];
static char *vcek;
static size_t vcek_len;

static void load(void)
{
	char *data = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&data, &len, FIX "snp_milan_report.bin", 4096, &err),
	                 0);
	ck_assert_uint_eq(len, ATTEST_SNP_REPORT_LEN);
	memcpy(report, data, len);
	free(data);
	ck_assert_int_eq(isotier__read_file(&vcek, &vcek_len, FIX "snp_milan_vcek.der", 8192, &err),
	                 0);
}

static void unload(void)
{
	free(vcek);
	vcek = NULL;
}

/* A cache directory holding cert under the name the verifier looks for. */
static void make_cache(char *dir, const uint8_t *rep, const void *cert, size_t len)
{
	strcpy(dir, "/tmp/isotier-attest-cache-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[4096];
	int n = snprintf(path, sizeof path, "%s/", dir);
	for (int i = 0; i < 64; i++)
		n += snprintf(path + n, sizeof path - (size_t)n, "%02x", rep[0x1A0 + i]);
	uint64_t tcb = 0;
	for (int i = 7; i >= 0; i--)
		tcb = tcb << 8 | rep[0x180 + i];
	snprintf(path + n, sizeof path - (size_t)n, "-%016llx.der", (unsigned long long)tcb);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(cert, 1, len, f), len);
	fclose(f);
}

static void rm_dir(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Verifies rep with cert (as cached) under roots at time when; the report's
 * own report_data is the expected binding, so only authenticity is tested. */
static int verify(const uint8_t *rep, const void *cert, size_t cert_len, const char *roots,
                  time_t when, attest_verdict *v)
{
	char cache[64];
	make_cache(cache, rep, cert, cert_len);
	attest_policy p = {.roots_dir = roots,
	                   .cache_dir = cache,
	                   .max_vmpl = 3,
	                   .now = when,
	                   .has_min_tcb = true,
	                   .min_tcb = SAMPLE_TCB};
	attest_evidence e = {
	    .provider = "sev_guest", .outblob = rep, .outblob_len = ATTEST_SNP_REPORT_LEN};
	int rc = isotier__attest_verify(v, &e, rep + 0x50, &p, NULL);
	rm_dir(cache);
	return rc;
}

START_TEST(real_milan_report_verifies)
{
	attest_verdict v;
	int rc = verify(report, vcek, vcek_len, ROOTS, WHEN, &v);
	ck_assert_msg(rc == 0 && v.valid, "%s", v.detail);
	ck_assert_str_eq(v.product, "Milan");
	ck_assert_int_eq(v.certs, ATTEST_CERTS_CACHE);
	ck_assert_ptr_nonnull(strstr(v.root, "ARK-Milan"));
	ck_assert_ptr_nonnull(strstr(v.root, "local cache"));
	ck_assert_uint_eq(strlen(v.measurement), 96);
	ck_assert(v.has_guest_id);
	attest_snp_report r;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__attest_snp_parse(&r, report, sizeof report, &err), 0);
	ck_assert_uint_eq(r.version, 2);
	/* The VCEK's extensions: the TCB it was issued for is the report's. */
	attest_snp_ek ek;
	char why[200];
	ck_assert_int_eq(
	    isotier__attest_snp_ek_parse(&ek, (const uint8_t *)vcek, vcek_len, why, sizeof why), 0);
	ck_assert_uint_eq(ek.hwid_len, 64);
	ck_assert_str_eq(ek.product, "Milan-B0");
	ck_assert_uint_eq(isotier__attest_snp_ek_tcb(&ek, false), r.reported_tcb);
}
END_TEST

/* The shipped minimum refuses the sample (SNP SPL 8, older than 0x18). */
START_TEST(real_milan_report_below_shipped_minimum)
{
	char cache[64];
	make_cache(cache, report, vcek, vcek_len);
	attest_policy p = {.roots_dir = ROOTS, .cache_dir = cache, .max_vmpl = 3, .now = WHEN};
	attest_evidence e = {
	    .provider = "sev_guest", .outblob = report, .outblob_len = sizeof report};
	attest_verdict v;
	int rc = isotier__attest_verify(&v, &e, report + 0x50, &p, NULL);
	rm_dir(cache);
	ck_assert_int_lt(rc, 0);
	ck_assert_msg(strstr(v.detail, "report.reported_tcb") && strstr(v.detail, "minimum TCB") &&
	                  strstr(v.detail, "AMD-SB-3019"),
	              "%s", v.detail);
}
END_TEST

/* AMD's real Turin VCEK: an 8-byte hwID and the fmc SPL are read, and a
 * Turin report naming its chip and TCB passes the chain (the pinned Turin
 * ARK and ASK), the hwID and the product; only the signature, which that
 * key never made, is refused. */
START_TEST(real_turin_vcek_checks_up_to_the_signature)
{
	char *turin = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&turin, &len, FIX "snp_turin_vcek.der", 8192, &err), 0);
	attest_snp_ek ek;
	char why[200];
	ck_assert_msg(isotier__attest_snp_ek_parse(&ek, (uint8_t *)turin, len, why, sizeof why) ==
	                  0,
	              "%s", why);
	ck_assert_uint_eq(ek.hwid_len, 8);
	ck_assert_str_eq(ek.product, "Turin");
	ck_assert(ek.has_spl[9] && ek.has_spl[8]);
	uint64_t tcb = isotier__attest_snp_ek_tcb(&ek, true);
	uint8_t rep[ATTEST_SNP_REPORT_LEN] = {3, 0, 0, 0};
	rep[0x08] = 0, rep[0x0A] = 3; /* policy: SMT, reserved bit 17 */
	rep[0x34] = 1;                /* ECDSA P-384 */
	for (int i = 0; i < 8; i++)
		rep[0x38 + i] = rep[0x180 + i] = rep[0x1E0 + i] = rep[0x1F0 + i] =
		    (uint8_t)(tcb >> (8 * i));
	rep[0x188] = 0x1A, rep[0x189] = 0x02; /* family 1Ah: Turin */
	memcpy(rep + 0x1A0, ek.hwid, 8);      /* the chip, 8 bytes, then zeros */
	rep[0x2A0] = rep[0x2A0 + 72] = 1;     /* r = s = 1: no signature */
	attest_verdict v;
	int rc = verify(rep, turin, len, ROOTS, WHEN, &v);
	ck_assert_int_lt(rc, 0);
	ck_assert_msg(strstr(v.detail, "report.signature") != NULL, "%s", v.detail);
	/* Another chip: refused before the signature. */
	rep[0x1A0] ^= 1;
	char cache[64];
	make_cache(cache, rep, turin, len);
	attest_policy p = {.roots_dir = ROOTS, .cache_dir = cache, .now = WHEN};
	attest_evidence e = {.provider = "sev_guest", .outblob = rep, .outblob_len = sizeof rep};
	ck_assert_int_lt(isotier__attest_verify(&v, &e, rep + 0x50, &p, NULL), 0);
	rm_dir(cache);
	ck_assert_msg(strstr(v.detail, "chip_id") != NULL, "%s", v.detail);
	free(turin);
}
END_TEST

/* Every 97th bit of the signed bytes and of the signature's r and s. */
START_TEST(flipped_report_bit_refused)
{
	uint8_t bad[ATTEST_SNP_REPORT_LEN];
	size_t at = (size_t)_i * 97 % (0x2A0 + 144); /* signed bytes, then r and s */
	memcpy(bad, report, sizeof bad);
	bad[at] ^= (uint8_t)(1u << (_i % 8));
	attest_verdict v;
	/* The expected binding stays the genuine one: a flip in report_data
	 * is caught by the signature before the binding is compared. */
	char cache[64];
	make_cache(cache, report, vcek, vcek_len);
	attest_policy p = {.roots_dir = ROOTS, .cache_dir = cache, .max_vmpl = 3, .now = WHEN};
	attest_evidence e = {.provider = "sev_guest", .outblob = bad, .outblob_len = sizeof bad};
	int rc = isotier__attest_verify(&v, &e, report + 0x50, &p, NULL);
	rm_dir(cache);
	ck_assert_msg(rc < 0 && !v.valid, "byte 0x%zx accepted", at);
	ck_assert(v.detail[0]);
}
END_TEST

START_TEST(flipped_vcek_bit_refused)
{
	char *bad = malloc(vcek_len);
	memcpy(bad, vcek, vcek_len);
	size_t at = 200 + (size_t)_i * 131 % (vcek_len - 200);
	bad[at] ^= 0x01;
	attest_verdict v;
	int rc = verify(report, bad, vcek_len, ROOTS, WHEN, &v);
	free(bad);
	ck_assert_msg(rc < 0 && !v.valid, "VCEK byte %zu flipped accepted", at);
}
END_TEST

/* A roots directory whose Milan files are copies of others (a flipped byte
 * in the ARK's signature, or Genoa's roots under Milan's names). */
static void roots_variant(char *dir, const char *ark_src, const char *ask_src, long flip)
{
	strcpy(dir, "/tmp/isotier-attest-roots-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char *src[2] = {ark_src, ask_src},
	           *dst[2] = {"amd_milan_ark.pem", "amd_milan_ask.pem"};
	for (int k = 0; k < 2; k++) {
		char *data = NULL, path[4096];
		size_t len = 0;
		isotier_error err = {0};
		ck_assert_int_eq(isotier__read_file(&data, &len, src[k], 8192, &err), 0);
		if (k == 0 && flip >= 0) {
			/* base64 inside the PEM: swap one letter for another */
			char *c = data + flip;
			*c = *c == 'A' ? 'B' : 'A';
		}
		snprintf(path, sizeof path, "%s/%s", dir, dst[k]);
		FILE *f = fopen(path, "wb");
		ck_assert_ptr_nonnull(f);
		fwrite(data, 1, len, f);
		fclose(f);
		free(data);
	}
}

START_TEST(tampered_or_wrong_product_roots_refused)
{
	char dir[64];
	attest_verdict v;
	/* Near the end of the ARK's PEM: its signature. */
	roots_variant(dir, FIX "amd_milan_ark.pem", FIX "amd_milan_ask.pem", 2100);
	ck_assert_int_lt(verify(report, vcek, vcek_len, dir, WHEN, &v), 0);
	rm_dir(dir);
	roots_variant(dir, FIX "amd_genoa_ark.pem", FIX "amd_genoa_ask.pem", -1);
	ck_assert_int_lt(verify(report, vcek, vcek_len, dir, WHEN, &v), 0);
	ck_assert_msg(strstr(v.detail, "chain") != NULL, "%s", v.detail);
	rm_dir(dir);
	/* The genuine roots under their own names still verify. */
	roots_variant(dir, FIX "amd_milan_ark.pem", FIX "amd_milan_ask.pem", -1);
	ck_assert_int_eq(verify(report, vcek, vcek_len, dir, WHEN, &v), 0);
	rm_dir(dir);
}
END_TEST

START_TEST(expired_or_not_yet_valid_chain_refused)
{
	attest_verdict v;
	ck_assert_int_lt(verify(report, vcek, vcek_len, ROOTS, 1955000000 /* 2031 */, &v), 0);
	ck_assert_msg(strstr(v.detail, "expired") != NULL, "%s", v.detail);
	ck_assert_int_lt(verify(report, vcek, vcek_len, ROOTS, 1640995200 /* 2022 */, &v), 0);
}
END_TEST

START_TEST(no_vcek_offline_refused)
{
	attest_policy p = {.roots_dir = ROOTS, .now = WHEN, .max_vmpl = 3};
	attest_evidence e = {
	    .provider = "sev_guest", .outblob = report, .outblob_len = sizeof report};
	attest_verdict v;
	ck_assert_int_lt(isotier__attest_verify(&v, &e, report + 0x50, &p, NULL), 0);
	ck_assert_ptr_nonnull(strstr(v.detail, "no VCEK"));
}
END_TEST

START_TEST(hostile_report_fields_refused)
{
	attest_snp_report r;
	isotier_error err = {0};
	uint8_t bad[ATTEST_SNP_REPORT_LEN];
	ck_assert_int_lt(isotier__attest_snp_parse(&r, report, sizeof report - 1, &err), 0);
	memcpy(bad, report, sizeof bad);
	bad[0] = 9; /* version */
	ck_assert_int_lt(isotier__attest_snp_parse(&r, bad, sizeof bad, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.message, "version"));
	memcpy(bad, report, sizeof bad);
	bad[0x34] = 2; /* signature_algo */
	ck_assert_int_lt(isotier__attest_snp_parse(&r, bad, sizeof bad, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.message, "signature_algo"));
	memcpy(bad, report, sizeof bad);
	bad[0x48] |= 2 << 2; /* signing_key 2: reserved */
	ck_assert_int_lt(isotier__attest_snp_parse(&r, bad, sizeof bad, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.message, "signing_key"));
	memcpy(bad, report, sizeof bad);
	bad[0x48] |= 1 << 5; /* flags: must be zero */
	ck_assert_int_lt(isotier__attest_snp_parse(&r, bad, sizeof bad, &err), 0);
	memcpy(bad, report, sizeof bad);
	bad[0x190] = 1; /* reserved */
	ck_assert_int_lt(isotier__attest_snp_parse(&r, bad, sizeof bad, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.message, "reserved bytes 0x188-0x19F"));
	/* An auxblob whose VCEK entry points outside it. */
	uint8_t aux[48] = {0x63, 0xda, 0x75, 0x8d, 0xe6, 0x64, 0x45, 0x64, 0xad, 0xc5, 0xf4,
	                   0xb9, 0x3b, 0xe8, 0xac, 0xcd, 0x30, 0,    0,    0,    0xff, 0xff};
	attest_policy p = {.roots_dir = ROOTS, .now = WHEN, .max_vmpl = 3};
	attest_evidence e = {.provider = "sev_guest",
	                     .outblob = report,
	                     .outblob_len = sizeof report,
	                     .auxblob = aux,
	                     .auxblob_len = sizeof aux};
	attest_verdict v;
	ck_assert_int_lt(isotier__attest_verify(&v, &e, report + 0x50, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "out of bounds") != NULL, "%s", v.detail);
	e.provider = "something_else";
	ck_assert_int_lt(isotier__attest_verify(&v, &e, report + 0x50, &p, NULL), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_snp");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, load, unload);
	tcase_add_test(tc, real_milan_report_verifies);
	tcase_add_test(tc, real_milan_report_below_shipped_minimum);
	tcase_add_test(tc, real_turin_vcek_checks_up_to_the_signature);
	tcase_add_loop_test(tc, flipped_report_bit_refused, 0, 24);
	tcase_add_loop_test(tc, flipped_vcek_bit_refused, 0, 12);
	tcase_add_test(tc, tampered_or_wrong_product_roots_refused);
	tcase_add_test(tc, expired_or_not_yet_valid_chain_refused);
	tcase_add_test(tc, no_vcek_offline_refused);
	tcase_add_test(tc, hostile_report_fields_refused);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
