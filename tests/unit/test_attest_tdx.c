/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_tdx.c - a real TDX quote v4 (tests/fixtures/attest/SOURCE.md):
 * its attestation key's signature, the QE report's commitment and PCK
 * signature, and the PCK chain to the Intel SGX Root CA pinned in
 * catalogue/roots verify; a flipped bit in the quote, its signatures or its
 * chain, a chain checked outside its validity, a foreign root and hostile
 * lengths are refused; a genuine quote not bound to this run is refused; the
 * sample's TD lacks SEPT_VE_DISABLE, refused unless the operator allows it.
 * Quotes a test authority signs (attest_authority.h) are refused with the
 * check named: a PCK leaf that is a CA, DEBUG, MIGRATABLE, SEPT_VE_DISABLE
 * clear, another XFAM or MRSEAM, a revoked PCK, an expired or missing CRL,
 * another QE vendor, out-of-date TCB info, a QE identity that is stale,
 * forged, another enclave's or puts the QE's ISVSVN OutOfDate or Revoked;
 * an honest one verifies, saying what was evaluated. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reference/attestation/attest.h"
#include "attest_authority.h"

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
	attest_policy p = {.roots_dir = roots, .now = when, .tdx_allow_sept_ve = true};
	attest_evidence e = {.provider = "tdx_guest", .outblob = q, .outblob_len = len};
	/* The quote's own report data stands for the binding: authenticity only. */
	return isotier__attest_verify(v, &e, q + 48 + 520, &p, NULL);
}

START_TEST(real_quote_verifies)
{
	attest_verdict v;
	ck_assert_msg(verify(quote, quote_len, ROOTS, WHEN, &v) == 0 && v.valid, "%s", v.detail);
	ck_assert_int_eq(v.tech, ATTEST_TECH_TDX);
	ck_assert_int_eq(v.certs, ATTEST_CERTS_QUOTE);
	ck_assert_ptr_nonnull(strstr(v.root, "Intel SGX Root CA"));
	ck_assert_ptr_nonnull(strstr(v.tcb, "TCB status not evaluated"));
	ck_assert_ptr_nonnull(strstr(v.tcb, "revocation not checked: no collateral"));
	ck_assert(!v.has_guest_id); /* a TD names no guest id */
	/* Genuine, but not this run's: refused. */
	uint8_t other[64] = {1};
	attest_policy p = {.roots_dir = ROOTS, .now = WHEN, .tdx_allow_sept_ve = true};
	attest_evidence e = {.provider = "tdx_guest", .outblob = quote, .outblob_len = quote_len};
	ck_assert_int_lt(isotier__attest_verify(&v, &e, other, &p, NULL), 0);
	ck_assert_ptr_nonnull(strstr(v.detail, "report_data"));
	/* The sample's TD attributes (PKS only): SEPT_VE_DISABLE clear. */
	p.tdx_allow_sept_ve = false;
	ck_assert_int_lt(isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "SEPT_VE_DISABLE clear"), "%s", v.detail);
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
	attest_policy p = {.roots_dir = ROOTS, .now = WHEN, .tdx_allow_sept_ve = true};
	attest_evidence e = {.provider = "tdx_guest", .outblob = bad, .outblob_len = quote_len};
	int rc = isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL);
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

/* A collateral directory holding copies of the fixture's files named. */
static void collateral_copy(char *dir, const char *const *names, size_t n, long flip_at)
{
	strcpy(dir, "/tmp/isotier-attest-tdxc-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i < n; i++) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "cp %s/tdx_collateral/%s %s/", FIX, names[i], dir);
		ck_assert_int_eq(system(cmd), 0);
	}
	if (flip_at >= 0) {
		char path[200];
		snprintf(path, sizeof path, "%s/tcb_info.json", dir);
		FILE *f = fopen(path, "r+b");
		ck_assert_ptr_nonnull(f);
		fseek(f, flip_at, SEEK_SET);
		int c = fgetc(f);
		fseek(f, flip_at, SEEK_SET);
		fputc(c == '5' ? '6' : '5', f);
		fclose(f);
	}
}

/* Intel's June 2023 collateral (go-tdx-guest's PCS samples) for the SPR
 * quote: its CRLs cover the chain while valid and are refused once expired;
 * its TCB info (signed by Intel's TCB signing key) lists no level the
 * quote's PCK reaches (SGX SVNs 3,3,2,2,2,1,0,2 below both levels' 5,5,2,
 * 2,3,1,0,3): the platform's TCB is not supported, and refused; a changed
 * TCB info, or one not yet issued, is refused. */
START_TEST(real_collateral)
{
	attest_verdict v;
	char dir[64];
	static const char *const crls[] = {"pck_crl.der", "root_crl.der"};
	static const char *const all[] = {"pck_crl.der", "root_crl.der", "tcb_info.json",
	                                  "tcb_signing_chain.pem"};
	collateral_copy(dir, crls, 2, -1);
	attest_policy p = {.roots_dir = ROOTS,
	                   .now = 1687392000, /* 2023-06-22 */
	                   .tdx_allow_sept_ve = true,
	                   .tdx_collateral_dir = dir};
	attest_evidence e = {.provider = "tdx_guest", .outblob = quote, .outblob_len = quote_len};
	ck_assert_msg(isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL) == 0, "%s",
	              v.detail);
	ck_assert_ptr_nonnull(strstr(v.tcb, "checked against Intel's CRLs"));
	ck_assert_msg(strstr(v.tcb, "TCB status not evaluated (no tcb_info.json"), "%s", v.tcb);
	p.now = WHEN;
	ck_assert_int_lt(isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "CRL has expired"), "%s", v.detail);
	p.now = 1687392000;
	p.tdx_collateral_dir = FIX "tdx_collateral";
	ck_assert_int_lt(isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "no TCB level of the TCB info matches"), "%s", v.detail);
	p.now = 1686441600; /* 2023-06-11: CRLs valid, the TCB info not yet issued */
	ck_assert_int_lt(isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "tcb_info.json is out of date"), "%s", v.detail);
	char cmd[100];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	/* One svn changed in the signed TCB info (byte 400: inside tcbLevels). */
	collateral_copy(dir, all, 4, 400);
	p.now = 1687392000;
	p.tdx_collateral_dir = dir;
	ck_assert_int_lt(isotier__attest_verify(&v, &e, quote + 48 + 520, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "signature is not Intel's"), "%s", v.detail);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A production quote v5 (a TD report 1.5 body, SEPT_VE_DISABLE set)
 * verifies under the default TD policy; a flipped body byte is refused. */
START_TEST(real_quote_v5_verifies)
{
	char *data = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&data, &len, FIX "tdx_quote_v5.bin", 16384, &err), 0);
	uint8_t *q5 = (uint8_t *)data;
	attest_policy p = {.roots_dir = ROOTS, .now = 1780000000 /* 2026-05-28 */};
	attest_evidence e = {.provider = "tdx_guest", .outblob = q5, .outblob_len = len};
	attest_verdict v;
	const uint8_t *rd = q5 + 48 + 6 + 520;
	ck_assert_msg(isotier__attest_verify(&v, &e, rd, &p, NULL) == 0, "%s", v.detail);
	ck_assert_int_eq(v.tech, ATTEST_TECH_TDX);
	q5[48 + 6 + 200] ^= 1;
	ck_assert_int_lt(isotier__attest_verify(&v, &e, rd, &p, NULL), 0);
	q5[48 + 6 + 200] ^= 1;
	q5[48] = 4; /* an unknown body type */
	ck_assert_int_lt(isotier__attest_verify(&v, &e, rd, &p, NULL), 0);
	ck_assert_msg(strstr(v.detail, "quote v5.body"), "%s", v.detail);
	free(data);
}
END_TEST

/* ---- quotes a test authority signs ---------------------------------------- */

static char troots[64], coll[64];

static void tsetup(void)
{
	strcpy(troots, "/tmp/isotier-attest-tdxta-XXXXXX");
	strcpy(coll, "/tmp/isotier-attest-tdxcol-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(troots));
	ck_assert_ptr_nonnull(mkdtemp(coll));
}

static void tteardown(void)
{
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", troots, coll);
	ck_assert_int_eq(system(cmd), 0);
}

/* f's quote by ta under p (troots), its report data the binding. */
static int tverify(test_tdx_authority *ta, test_tdx_fields f, attest_policy p, attest_verdict *v,
                   int flip)
{
	size_t len = 0;
	memset(f.report_data, 0x77, sizeof f.report_data);
	uint8_t *q = test_tdx_authority_quote(ta, &f, &len);
	if (flip >= 0)
		q[flip] ^= 1;
	p.roots_dir = troots;
	attest_evidence e = {.provider = "tdx_guest", .outblob = q, .outblob_len = len};
	int rc = isotier__attest_verify(v, &e, f.report_data, &p, NULL);
	free(q);
	return rc;
}

#define TREFUSED(ta, f, p, flip, what)                                                             \
	do {                                                                                       \
		attest_verdict v_;                                                                 \
		int rc_ = tverify(ta, f, p, &v_, flip);                                            \
		ck_assert_msg(rc_ < 0 && strstr(v_.detail, what), "want \"%s\": %s", what,         \
		              v_.detail);                                                          \
	} while (0)

START_TEST(generated_quotes)
{
	test_tdx_authority *ta = test_tdx_authority_new(troots, false);
	attest_verdict v;
	test_tdx_fields f = {0};
	attest_policy p = {0};
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	ck_assert_ptr_nonnull(strstr(v.tcb, "revocation not checked: no collateral"));
	f.td_attributes = 1ull << 28 | 1;
	TREFUSED(ta, f, p, -1, "td_attributes: DEBUG set");
	f.td_attributes = 1ull << 28 | 1ull << 29;
	TREFUSED(ta, f, p, -1, "td_attributes: MIGRATABLE set");
	f.td_attributes = 1ull << 30;
	TREFUSED(ta, f, p, -1, "SEPT_VE_DISABLE clear");
	p.tdx_allow_sept_ve = true;
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	/* XFAM, MRSEAM: as configured or refused. */
	f = (test_tdx_fields){.xfam = {0xe7, 0x1a, 0x06}};
	p = (attest_policy){.has_tdx_xfam = true, .tdx_xfam = {0xe7, 0x1a, 0x06}};
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	p.tdx_xfam[0] = 0xe3;
	TREFUSED(ta, f, p, -1, "quote.xfam");
	p = (attest_policy){.has_tdx_mrseam = true, .tdx_mrseam = {1}};
	TREFUSED(ta, f, p, -1, "quote.mrseam");
	p = (attest_policy){.has_tdx_rtmr = {false, false, true}};
	p.tdx_rtmr[2][0] = 1;
	TREFUSED(ta, f, p, -1, "quote.rtmr2");
	/* Another QE vendor (byte 12 of the header). */
	TREFUSED(ta, f, (attest_policy){0}, 12, "qe_vendor_id");
	test_tdx_authority_free(ta);
	/* A PCK leaf that is a CA. */
	ta = test_tdx_authority_new(troots, true);
	TREFUSED(ta, f, (attest_policy){0}, -1, "is a CA, not a PCK certificate");
	test_tdx_authority_free(ta);
}
END_TEST

START_TEST(collateral_crls)
{
	test_tdx_authority *ta = test_tdx_authority_new(troots, false);
	attest_verdict v;
	test_tdx_fields f = {0};
	attest_policy p = {.tdx_collateral_dir = coll};
	TREFUSED(ta, f, p, -1, "pck_crl.der or .pem missing");
	test_tdx_authority_crls(ta, coll, false, 30);
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	ck_assert_msg(strstr(v.tcb, "checked against Intel's CRLs"), "%s", v.tcb);
	ck_assert_msg(strstr(v.tcb, "TCB status not evaluated (no tcb_info.json"), "%s", v.tcb);
	test_tdx_authority_crls(ta, coll, true, 30);
	TREFUSED(ta, f, p, -1, "revoked by Intel's CRL");
	test_tdx_authority_crls(ta, coll, false, -2);
	TREFUSED(ta, f, p, -1, "CRLs do not cover the chain: CRL has expired");
	/* TCB info: the matching level's status is the verdict's; without the
	 * QE identity beside it, refused (Intel's status is both together). */
	test_tdx_authority_crls(ta, coll, false, 30);
	test_tdx_authority_tcb_info(ta, coll, "UpToDate", 30);
	TREFUSED(ta, f, p, -1, "tcb_info.json without qe_identity.json");
	test_tdx_authority_qe_identity(ta, coll, &(test_qe_identity){.next_update_days = 30});
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	ck_assert_msg(strstr(v.tcb, "TCB status UpToDate"), "%s", v.tcb);
	ck_assert_msg(strstr(v.tcb, "QE identity UpToDate (TD_QE isvsvn 4)"), "%s", v.tcb);
	ck_assert_msg(strstr(v.detail, "QE identity UpToDate"), "%s", v.detail);
	test_tdx_authority_tcb_info(ta, coll, "SWHardeningNeeded", 30);
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	ck_assert_msg(strstr(v.tcb, "TCB status SWHardeningNeeded"), "%s", v.tcb);
	test_tdx_authority_tcb_info(ta, coll, "OutOfDate", 30);
	TREFUSED(ta, f, p, -1, "the platform's TCB status is OutOfDate");
	test_tdx_authority_tcb_info(ta, coll, "Revoked", 30);
	TREFUSED(ta, f, p, -1, "the platform's TCB status is Revoked");
	test_tdx_authority_tcb_info(ta, coll, "UpToDate", -1);
	TREFUSED(ta, f, p, -1, "tcb_info.json is out of date");
	/* Another authority's TCB info: its signing chain is not the root's. */
	test_tdx_authority *other = test_tdx_authority_new(NULL, false);
	test_tdx_authority_tcb_info(other, coll, "UpToDate", 30);
	TREFUSED(ta, f, p, -1, "tcb_signing_chain.pem missing or not chained");
	test_tdx_authority_free(other);
	test_tdx_authority_free(ta);
}
END_TEST

/* The quoting enclave judged by Intel's QE identity (qe_identity.json,
 * signed by the TCB signing key): its status is the verdict's; another
 * MRSIGNER, ISVPRODID or ATTRIBUTES, an ISVSVN whose level is OutOfDate or
 * Revoked or below every level, a stale identity, one signed by another key
 * and one without the TCB info are refused, naming the check. */
START_TEST(collateral_qe_identity)
{
	test_tdx_authority *ta = test_tdx_authority_new(troots, false);
	attest_verdict v;
	test_tdx_fields f = {0};
	attest_policy p = {.tdx_collateral_dir = coll};
	test_tdx_authority_crls(ta, coll, false, 30);
	/* The identity alone: the platform's TCB not evaluated beside it. */
	test_tdx_authority_qe_identity(ta, coll, &(test_qe_identity){.next_update_days = 30});
	TREFUSED(ta, f, p, -1, "qe_identity.json without tcb_info.json");
	test_tdx_authority_tcb_info(ta, coll, "SWHardeningNeeded", 30);
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	ck_assert_msg(strstr(v.tcb, "TCB status SWHardeningNeeded; QE identity UpToDate"), "%s",
	              v.tcb);
	/* The QE's ISVSVN: 3 is at level 2 (OutOfDate), 1 Revoked, 0 below all. */
	f.qe_isvsvn = 3;
	TREFUSED(ta, f, p, -1, "qe_report.isvsvn (3): the QE identity's status is OutOfDate");
	f.qe_isvsvn = 1;
	TREFUSED(ta, f, p, -1, "qe_report.isvsvn (1): the QE identity's status is Revoked");
	f.qe_isvsvn = 9; /* above the highest level: that level's */
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	ck_assert_msg(strstr(v.tcb, "QE identity UpToDate (TD_QE isvsvn 9)"), "%s", v.tcb);
	f.qe_isvsvn = 0;
	f.qe_isvprodid = 1; /* the SGX QE3's, not the TD QE's */
	TREFUSED(ta, f, p, -1, "qe_report.isvprodid (1): not the QE identity's (2)");
	f.qe_isvprodid = 0;
	/* The identity's status at the QE's level. */
	test_tdx_authority_qe_identity(
	    ta, coll, &(test_qe_identity){.status = "Revoked", .next_update_days = 30});
	TREFUSED(ta, f, p, -1, "qe_report.isvsvn (4): the QE identity's status is Revoked");
	/* Another signer's enclave (the quote's QE is signed by Intel's key). */
	test_tdx_authority_qe_identity(
	    ta, coll,
	    &(test_qe_identity){
	        .mrsigner = "0000000000000000000000000000000000000000000000000000000000000001",
	        .next_update_days = 30});
	TREFUSED(ta, f, p, -1, "qe_report.mrsigner: not the QE identity's");
	/* Past its nextUpdate. */
	test_tdx_authority_qe_identity(ta, coll, &(test_qe_identity){.next_update_days = -1});
	TREFUSED(ta, f, p, -1, "qe_identity.json is out of date");
	/* Signed by a key the chain does not certify. */
	test_tdx_authority_qe_identity(ta, coll,
	                               &(test_qe_identity){.next_update_days = 30, .forged = true});
	TREFUSED(ta, f, p, -1, "qe_identity.json's signature is not Intel's TCB signing key's");
	/* A changed byte in the signed identity (its isvprodid). */
	test_tdx_authority_qe_identity(ta, coll, &(test_qe_identity){.next_update_days = 30});
	ck_assert_msg(tverify(ta, f, p, &v, -1) == 0, "%s", v.detail);
	char path[200], *text = NULL;
	size_t len = 0;
	snprintf(path, sizeof path, "%s/qe_identity.json", coll);
	ck_assert_int_eq(isotier__read_file(&text, &len, path, 1 << 16, NULL), 0);
	char *at = strstr(text, "\"isvprodid\":2");
	ck_assert_ptr_nonnull(at);
	at[strlen("\"isvprodid\":")] = '3';
	FILE *w = fopen(path, "w");
	ck_assert_ptr_nonnull(w);
	fwrite(text, 1, len, w);
	fclose(w);
	free(text);
	TREFUSED(ta, f, p, -1, "qe_identity.json's signature is not Intel's");
	/* Not an identity at all; a TCB info where the identity should be. */
	ck_assert_int_eq(truncate(path, 0), 0);
	TREFUSED(ta, f, p, -1, "qe_identity.json is not Intel's {\"enclaveIdentity\"");
	test_tdx_authority_sign_collateral(ta, coll, "qe_identity.json", "enclaveIdentity",
	                                   "{\"id\":\"QE\",\"version\":2,\"issueDate\":"
	                                   "\"2020-01-01T00:00:00Z\",\"nextUpdate\":"
	                                   "\"2099-01-01T00:00:00Z\"}");
	TREFUSED(ta, f, p, -1, "qe_identity.json is not the TD_QE's identity version 2");
	/* There but unreadable (a directory): refused, never "not evaluated". */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	TREFUSED(ta, f, p, -1, "TDX collateral: qe_identity.json: ");
	ck_assert_int_eq(rmdir(path), 0);
	test_tdx_authority_free(ta);
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
	tcase_add_test(tc, real_collateral);
	tcase_add_test(tc, real_quote_v5_verifies);
	suite_add_tcase(s, tc);
	TCase *gen = tcase_create("generated");
	tcase_set_timeout(gen, 60);
	tcase_add_checked_fixture(gen, tsetup, tteardown);
	tcase_add_test(gen, generated_quotes);
	tcase_add_test(gen, collateral_crls);
	tcase_add_test(gen, collateral_qe_identity);
	suite_add_tcase(s, gen);
	return run_suite(s);
}
