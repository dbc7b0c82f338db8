/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_attest.c - the attestation parsers and verifiers (reference/attest*.c):
 * hostile SEV-SNP reports, TDX quotes and auxblobs, and probe outputs with an
 * "attestation" member. Input: a mode byte, then the bytes.
 *   0: an SNP report (the rest, split at a length byte into outblob and
 *      auxblob); 1: a TDX quote; 2: a probe output (attest_output_parse and
 *      attest_output_verify with a fixed nonce); 3: an SNP key certificate
 *      (attest_snp_ek_parse: AMD's TCB, hwID and product extensions).
 * Properties: no evidence verifies against a binding nobody signed (the
 * expected report data is 0xEE..., which no real report here carries, and the
 * fuzzer holds no vendor key); a refusal always says why in a terminated
 * detail; a parsed output's blobs are within their bounds and the status is a
 * terminated short word; a certificate's hwID is 0, 8 or 64 bytes, its
 * product name terminated. */
#include "fuzz.h"

#include "../../reference/attest.h"

#define ROOTS ISOTIER_SOURCE_DIR "/catalogue/roots"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t mode = data[0] % 4;
	data++, size--;
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
		int rc = attest_verify(&v, &e, expected, &p, NULL);
		FUZZ_ASSERT(rc < 0 && !v.valid, "evidence verified against an unsigned binding");
		FUZZ_ASSERT(memchr(v.detail, '\0', sizeof v.detail) && v.detail[0],
		            "a refusal without a reason");
		return 0;
	}
	if (mode == 3) {
		attest_snp_ek ek;
		char why[200] = "";
		if (attest_snp_ek_parse(&ek, data, size, why, sizeof why) == 0) {
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
	if (attest_output_parse(&o, out, size, "0123456789abcdef", &err) == 0) {
		FUZZ_ASSERT(memchr(o.status, '\0', sizeof o.status), "status not terminated");
		FUZZ_ASSERT(o.outblob_len <= ATTEST_MAX_OUTBLOB &&
		                o.auxblob_len <= ATTEST_MAX_AUXBLOB,
		            "blobs beyond their bounds");
		attest_output_clear(&o);
	} else {
		FUZZ_ASSERT(err.message[0], "a parse error without a message");
	}
	int rc = attest_output_verify(&v, out, size, "0123456789abcdef", &p);
	/* No output here carries a report signed over its own binding. */
	FUZZ_ASSERT(rc != 1, "an output's evidence verified: %s", v.detail);
	FUZZ_ASSERT(rc == 1 || !v.valid, "a verdict valid without verifying");
	free(out);
	return 0;
}
