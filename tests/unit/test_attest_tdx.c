/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_tdx.c - a real TDX quote v4 (tests/fixtures/attest/SOURCE.md):
 * its attestation key's signature, the QE report's commitment and PCK
 * signature, and the PCK chain to the Intel SGX Root CA pinned in
 * catalogue/roots verify; a flipped bit in the quote, its signatures or its
 * chain, a chain checked outside its validity, a foreign root and hostile
 * lengths are refused; a genuine quote not bound to this run is refused. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/attest.h"

#define FIX   ISOTIER_SOURCE_DIR "/tests/fixtures/attest/"
#define ROOTS ISOTIER_SOURCE_DIR "/catalogue/roots"
#define WHEN  1748736000 /* 2025-06-01 */

static uint8_t *quote;
static size_t quote_len;

static void load(void)
{
	char *data = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(
	    isotier__read_file(&data, &quote_len, FIX "tdx_spr_quote_v4.bin", 16384, &err), 0);
	quote = (uint8_t *)data;
}

static void unload(void)
{
	free(quote);
}

static int verify(const uint8_t *q, size_t len, const char *roots, time_t when, attest_verdict *v)
{
	attest_policy p = {.roots_dir = roots, .now = when};
	attest_evidence e = {.provider = "tdx_guest", .outblob = q, .outblob_len = len};
	/* The quote's own report data stands for the binding: authenticity only. */
	return attest_verify(v, &e, q + 48 + 520, &p, NULL);
}

START_TEST(real_quote_verifies)
{
	attest_verdict v;
	ck_assert_msg(verify(quote, quote_len, ROOTS, WHEN, &v) == 0 && v.valid, "%s", v.detail);
	ck_assert_int_eq(v.tech, ATTEST_TECH_TDX);
	ck_assert_int_eq(v.certs, ATTEST_CERTS_QUOTE);
	ck_assert_ptr_nonnull(strstr(v.root, "Intel SGX Root CA"));
	ck_assert_ptr_nonnull(strstr(v.tcb, "not evaluated"));
	ck_assert(!v.has_guest_id); /* a TD names no guest id */
	/* Genuine, but not this run's: refused. */
	uint8_t other[64] = {1};
	attest_policy p = {.roots_dir = ROOTS, .now = WHEN};
	attest_evidence e = {.provider = "tdx_guest", .outblob = quote, .outblob_len = quote_len};
	ck_assert_int_lt(attest_verify(&v, &e, other, &p, NULL), 0);
	ck_assert_ptr_nonnull(strstr(v.detail, "report_data"));
}
END_TEST

/* A bit flipped across the signed quote, its signature, the attestation
 * key, the QE report and its signature, and the PCK and platform CA
 * certificates. The chain's own copy of the root (from byte 3987) is never
 * used: the pinned root decides, so a flip there changes nothing. */
START_TEST(flipped_bit_refused)
{
	size_t used_end = 3987;
	size_t at = (size_t)_i * 211 % used_end;
	uint8_t *bad = malloc(quote_len);
	memcpy(bad, quote, quote_len);
	bad[at] ^= 0x04;
	attest_verdict v;
	attest_policy p = {.roots_dir = ROOTS, .now = WHEN};
	attest_evidence e = {.provider = "tdx_guest", .outblob = bad, .outblob_len = quote_len};
	int rc = attest_verify(&v, &e, quote + 48 + 520, &p, NULL);
	free(bad);
	ck_assert_msg(rc < 0, "byte %zu flipped accepted", at);
}
END_TEST

START_TEST(chain_time_and_root_refused)
{
	attest_verdict v;
	ck_assert_int_lt(verify(quote, quote_len, ROOTS, 2000000000 /* 2033 */, &v), 0);
	ck_assert_msg(strstr(v.detail, "pck_chain") != NULL, "%s", v.detail);
	/* AMD's roots under Intel's name: not the chain's root. */
	char dir[64] = "/tmp/isotier-attest-tdxroot-XXXXXX", cmd[300];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "cp %s %s/intel_sgx_root_ca.pem", FIX "amd_milan_ark.pem", dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_lt(verify(quote, quote_len, dir, WHEN, &v), 0);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(hostile_lengths_refused)
{
	attest_verdict v;
	uint8_t *bad = malloc(quote_len);
	for (size_t cut = 0; cut < 4935; cut += 97)
		ck_assert_msg(verify(quote, cut, ROOTS, WHEN, &v) < 0, "cut at %zu accepted", cut);
	/* Each length field pointing past the end. */
	static const size_t fields[] = {632, 636 + 128 + 2, 636 + 134 + 448};
	for (size_t i = 0; i < 3; i++) {
		memcpy(bad, quote, quote_len);
		bad[fields[i]] = bad[fields[i] + 1] = 0xff;
		ck_assert_int_lt(verify(bad, quote_len, ROOTS, WHEN, &v), 0);
	}
	free(bad);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_tdx");
	TCase *tc = tcase_create("real");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, load, unload);
	tcase_add_test(tc, real_quote_verifies);
	tcase_add_loop_test(tc, flipped_bit_refused, 0, 40);
	tcase_add_test(tc, chain_time_and_root_refused);
	tcase_add_test(tc, hostile_lengths_refused);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
