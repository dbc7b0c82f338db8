/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_attest.c - the attestation parsers and verifiers (reference/attestation/attest*.c):
 * hostile SEV-SNP reports, TDX quotes and auxblobs, and probe outputs with an
 * "attestation" member. Input: a mode byte, then the bytes.
 *   0: an SNP report (the rest, split at a length byte into outblob and
 *      auxblob); 1: a TDX quote; 2: a probe output (attest_output_parse and
 *      attest_output_verify with a fixed nonce); 3: an SNP key certificate
 *      (attest_snp_ek_parse: AMD's TCB, hwID and product extensions);
 *   4: TDX collateral: the rest split at a length byte (x16) into a TCB
 *      info body and a QE identity body, each signed as Intel would by a
 *      test authority's TCB signing key (so the fuzzer reaches what the
 *      signature guards: the levels, the identity, the dates) and judged
 *      with a quote that authority signed (attest_verify, CRLs, TCB info,
 *      QE identity); 5: a QE report (384 bytes, zero-padded) and a QE
 *      identity object judged directly (attest_tdx_qe_match).
 * Properties: no evidence verifies against a binding nobody signed (the
 * expected report data is 0xEE..., which no real report here carries, and the
 * fuzzer holds no vendor key); a refusal always says why in a terminated
 * detail; a parsed output's blobs are within their bounds and the status is a
 * terminated short word; a certificate's hwID is 0, 8 or 64 bytes, its
 * product name terminated; collateral is accepted only with the platform
 * at UpToDate or SWHardeningNeeded and the QE at UpToDate, both named in the
 * verdict, and a refusal names TDX collateral or the QE report's field. */
#include "fuzz.h"

#include "../../reference/attestation/attest.h"
#include "../unit/attest_authority.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <unistd.h>

#define ROOTS ISOTIER_SOURCE_DIR "/catalogue/roots"

/* Mode 4's test authority, its roots and collateral directories, its quote. */
static char ta_roots[64] = "/tmp/isotier-fuzz-tdxroots-XXXXXX";
static char ta_coll[64] = "/tmp/isotier-fuzz-tdxcoll-XXXXXX";
static test_tdx_authority *ta;
static uint8_t *ta_quote;
static size_t ta_quote_len;

static void ta_cleanup(void)
{
	static const char *const files[] = {"pck_crl.pem", "root_crl.pem", "tcb_info.json",
	                                    "qe_identity.json", "tcb_signing_chain.pem"};
	char path[128];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", ta_coll, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/intel_sgx_root_ca.pem", ta_roots);
	unlink(path);
	rmdir(ta_coll);
	rmdir(ta_roots);
	free(ta_quote);
	test_tdx_authority_free(ta);
}

static void ta_init(void)
{
	if (ta)
		return;
	if (!mkdtemp(ta_roots) || !mkdtemp(ta_coll))
		abort();
	ta = test_tdx_authority_new(ta_roots, false);
	test_tdx_authority_crls(ta, ta_coll, false, 30);
	test_tdx_fields f = {0};
	memset(f.report_data, 0xEE, sizeof f.report_data);
	ta_quote = test_tdx_authority_quote(ta, &f, &ta_quote_len);
	atexit(ta_cleanup);
}

static int collateral(const uint8_t *data, size_t size)
{
	ta_init();
	size_t split = size ? (size_t)data[0] * 16 : 0;
	if (size)
		data++, size--;
	if (split > size)
		split = size;
	char *tcb = fuzz_strndup(data, split), *qe = fuzz_strndup(data + split, size - split);
	test_tdx_authority_sign_collateral(ta, ta_coll, "tcb_info.json", "tcbInfo", tcb);
	test_tdx_authority_sign_collateral(ta, ta_coll, "qe_identity.json", "enclaveIdentity", qe);
	free(tcb);
	free(qe);
	uint8_t expected[ATTEST_DATA_LEN];
	memset(expected, 0xEE, sizeof expected);
	attest_policy p = {.roots_dir = ta_roots, .tdx_collateral_dir = ta_coll};
	attest_evidence e = {
	    .provider = "tdx_guest", .outblob = ta_quote, .outblob_len = ta_quote_len};
	attest_verdict v;
	int rc = isotier__attest_verify(&v, &e, expected, &p, NULL);
	FUZZ_ASSERT(memchr(v.detail, '\0', sizeof v.detail) && v.detail[0],
	            "a verdict without a detail");
	if (rc == 0) {
		FUZZ_ASSERT(v.valid, "0 but not valid");
		FUZZ_ASSERT((strstr(v.tcb, "TCB status UpToDate;") ||
		             strstr(v.tcb, "TCB status SWHardeningNeeded;")) &&
		                strstr(v.tcb, "QE identity UpToDate ("),
		            "collateral accepted without both statuses good: %s", v.tcb);
	} else {
		FUZZ_ASSERT(!v.valid, "refused but valid");
		FUZZ_ASSERT(strstr(v.detail, "TDX collateral") || strstr(v.detail, "qe_report"),
		            "a collateral refusal not naming its check: %s", v.detail);
	}
	return 0;
}

static int qe_match(const uint8_t *data, size_t size)
{
	uint8_t report[384] = {0};
	size_t n = size < sizeof report ? size : sizeof report;
	memcpy(report, data, n);
	cJSON *doc = isotier__json_parse((const char *)data + n, size - n, "fuzz", NULL);
	char status[80] = "", why[200] = "";
	int rc = isotier__attest_tdx_qe_match(status, sizeof status, doc, report, why, sizeof why);
	if (rc == 0)
		FUZZ_ASSERT(!strncmp(status, "UpToDate (TD_QE isvsvn ", 23), "accepted as %s",
		            status);
	else
		FUZZ_ASSERT(why[0] && memchr(why, '\0', sizeof why), "a refusal without a reason");
	cJSON_Delete(doc);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0] % 6;
	data++, size--;
	if (mode == 4)
		return collateral(data, size);
	if (mode == 5)
		return qe_match(data, size);
	uint8_t expected[ATTEST_DATA_LEN];
	memset(expected, 0xEE, sizeof expected);
	attest_policy p = {.roots_dir = ROOTS, .max_vmpl = 3, .now = 1748736000};
	attest_verdict v;
	if (mode == 0 || mode == 1) {
		size_t split = size && mode == 0 ? (size_t)data[0] * 16 : size;
		if (mode == 0 && size)
			data++, size--;
		if (split > size)
			split = size;
		attest_evidence e = {.provider = mode == 0 ? "sev_guest" : "tdx_guest",
		                     .outblob = data,
		                     .outblob_len = split,
		                     .auxblob = data + split,
		                     .auxblob_len = size - split};
		int rc = isotier__attest_verify(&v, &e, expected, &p, NULL);
		FUZZ_ASSERT(rc < 0 && !v.valid, "evidence verified against an unsigned binding");
		FUZZ_ASSERT(memchr(v.detail, '\0', sizeof v.detail) && v.detail[0],
		            "a refusal without a reason");
		return 0;
	}
	if (mode == 3) {
		attest_snp_ek ek;
		char why[200] = "";
		if (isotier__attest_snp_ek_parse(&ek, data, size, why, sizeof why) == 0) {
			FUZZ_ASSERT(ek.hwid_len == 0 || ek.hwid_len == 8 || ek.hwid_len == 64,
			            "hwID of %zu bytes", ek.hwid_len);
			FUZZ_ASSERT(memchr(ek.product, '\0', sizeof ek.product),
			            "product not terminated");
		} else {
			FUZZ_ASSERT(why[0], "a refusal without a reason");
		}
		return 0;
	}
	char *out = fuzz_strndup(data, size);
	attest_output o;
	isotier_error err = {0};
	if (isotier__attest_output_parse(&o, out, size, "0123456789abcdef", &err) == 0) {
		FUZZ_ASSERT(memchr(o.status, '\0', sizeof o.status), "status not terminated");
		FUZZ_ASSERT(o.outblob_len <= ATTEST_MAX_OUTBLOB &&
		                o.auxblob_len <= ATTEST_MAX_AUXBLOB,
		            "blobs beyond their bounds");
		isotier__attest_output_clear(&o);
	} else {
		FUZZ_ASSERT(err.message[0], "a parse error without a message");
	}
	int rc = isotier__attest_output_verify(&v, out, size, "0123456789abcdef", &p);
	/* No output here carries a report signed over its own binding. */
	FUZZ_ASSERT(rc != 1, "an output's evidence verified: %s", v.detail);
	FUZZ_ASSERT(rc == 1 || !v.valid, "a verdict valid without verifying");
	free(out);
	return 0;
}
