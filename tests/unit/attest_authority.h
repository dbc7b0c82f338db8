/* SPDX-License-Identifier: Apache-2.0 */
/* attest_authority.h - a test authority for attestation suites: ARK, ASK and
 * VCEK keys created at test time (same structures as AMD's: RSA-PSS SHA-384
 * ARK and ASK, an ECDSA P-384 VCEK naming its chip), written as a roots
 * directory, and SEV-SNP reports signed by the VCEK. Test fixtures only:
 * nothing here is trusted outside a test's own roots directory. */
#ifndef ISOTIER_ATTEST_AUTHORITY_H
#define ISOTIER_ATTEST_AUTHORITY_H

#include <stddef.h>
#include <stdint.h>

typedef struct test_authority test_authority;

/* Keys and certificates for product ("milan", "genoa", "turin"); the roots
 * (amd_<product>_ark.pem, amd_<product>_ask.pem) written into roots_dir. */
test_authority *test_authority_new(const char *roots_dir, const char *product);
void test_authority_free(test_authority *ta);

typedef struct test_snp_fields {
	uint32_t version; /* 0: 3 */
	uint64_t policy;  /* 0: 0x30000 (SMT allowed, reserved bit 17) */
	uint32_t vmpl;
	uint8_t report_data[64];
	uint8_t report_id[32];
	uint64_t reported_tcb; /* 0: 0x7300000000000304 */
} test_snp_fields;

/* A signed 0x4A0-byte report into out. */
void test_authority_snp_report(test_authority *ta, const test_snp_fields *f, uint8_t out[0x4A0]);
/* The host's certificate table (GUID table) with the VCEK; malloc'd. */
uint8_t *test_authority_auxblob(test_authority *ta, size_t *len);
/* The chip id every report and the VCEK name. */
const uint8_t *test_authority_chip_id(const test_authority *ta);

#endif
