/* SPDX-License-Identifier: Apache-2.0 */
/* attest_authority.h - a test authority for attestation suites: ARK, ASK,
 * ASVK, VCEK and VLEK keys created at test time (same structures as AMD's:
 * RSA-PSS SHA-384 ARK, ASK and ASVK; ECDSA P-384 VCEK naming its chip in a
 * hwID of 64 bytes, 8 on Turin, and the TCB it was issued for in AMD 57230's
 * SPL extensions; a VLEK naming no chip), written as a roots directory, and
 * SEV-SNP reports signed by the VCEK or the VLEK. Test fixtures only:
 * nothing here is trusted outside a test's own roots directory. */
#ifndef ISOTIER_ATTEST_AUTHORITY_H
#define ISOTIER_ATTEST_AUTHORITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct test_authority test_authority;

/* Keys and certificates for product ("milan", "genoa", "turin"); the roots
 * (amd_<product>_ark.pem, _ask.pem, _asvk.pem) written into roots_dir. The
 * keys are issued for TEST_AUTHORITY_TCB (Milan and Genoa layout: bl 4,
 * tee 0, snp 0x18, ucode 0xDB, at AMD-SB-3019's minimum) or, on Turin,
 * TEST_AUTHORITY_TCB_TURIN (fmc 1, bl 2, tee 3, snp 4, ucode 0x47). */
#define TEST_AUTHORITY_TCB       0xDB18000000000004ull
#define TEST_AUTHORITY_TCB_TURIN 0x4700000004030201ull
test_authority *test_authority_new(const char *roots_dir, const char *product);
/* The same, its VCEK and VLEK issued for tcb (an old key, say). */
test_authority *test_authority_new_tcb(const char *roots_dir, const char *product, uint64_t tcb);
void test_authority_free(test_authority *ta);

typedef struct test_snp_fields {
	uint32_t version; /* 0: 3 */
	uint64_t policy;  /* 0: 0x30000 (SMT allowed, reserved bit 17) */
	uint32_t vmpl;
	uint8_t report_data[64];
	uint8_t report_id[32];
	uint64_t reported_tcb;                  /* 0: the keys' TCB */
	uint64_t current_tcb;                   /* 0: reported_tcb */
	uint64_t committed_tcb;                 /* 0: current_tcb */
	uint64_t launch_tcb;                    /* 0: current_tcb */
	uint8_t current_build, committed_build; /* firmware builds (API 1.55 both) */
	uint32_t flags_extra;                   /* or'ed into the flags (SIGNER_INFO) */
	bool vlek; /* signed by the VLEK (SIGNING_KEY 1), not the VCEK */
} test_snp_fields;

/* A signed 0x4A0-byte report into out. */
void test_authority_snp_report(test_authority *ta, const test_snp_fields *f, uint8_t out[0x4A0]);
/* The host's certificate table (GUID table) with the VCEK and the VLEK; malloc'd. */
uint8_t *test_authority_auxblob(test_authority *ta, size_t *len);
/* The VCEK's DER (a cache's file); malloc'd. */
uint8_t *test_authority_vcek_der(test_authority *ta, size_t *len);
/* The chip id every report and the VCEK name. */
const uint8_t *test_authority_chip_id(const test_authority *ta);

/* The TDX side: an SGX root CA (written as roots_dir/intel_sgx_root_ca.pem),
 * a PCK Platform CA, a PCK leaf (ECDSA P-256, with Intel's SGX extension:
 * PPID, TCB, PCE-ID, FMSPC; a CA itself when pck_is_ca) and quotes v4 as
 * Intel's DCAP library writes them: the attestation key's signature over
 * header and TD report, the QE report committing to that key, signed by
 * the PCK, the PEM chain inside. */
typedef struct test_tdx_authority test_tdx_authority;
test_tdx_authority *test_tdx_authority_new(const char *roots_dir, bool pck_is_ca);
void test_tdx_authority_free(test_tdx_authority *ta);

typedef struct test_tdx_fields {
	uint64_t td_attributes; /* 0: SEPT_VE_DISABLE (bit 28) only */
	uint8_t xfam[8];
	uint8_t report_data[64];
	/* The QE report (an SGX REPORT body): ATTRIBUTES 0x11 (INIT,
	 * PROVISIONKEY), MISCSELECT 0, Intel's MRSIGNER, and these. */
	uint16_t qe_isvprodid; /* 0: 2 (TD_QE) */
	uint16_t qe_isvsvn;    /* 0: 4 */
} test_tdx_fields;
/* A signed quote; malloc'd, *len its size. */
uint8_t *test_tdx_authority_quote(test_tdx_authority *ta, const test_tdx_fields *f, size_t *len);
/* dir/pck_crl.pem (by the platform CA, revoking the PCK when revoke) and
 * dir/root_crl.pem (by the root, revoking nothing), next update in
 * next_update_days (negative: expired). */
void test_tdx_authority_crls(test_tdx_authority *ta, const char *dir, bool revoke,
                             long next_update_days);
/* dir/tcb_info.json (TDX TCB info v3 for the PCK's FMSPC: a level at the
 * PCK's and the quote's SVNs with status, an OutOfDate one below) signed by
 * the authority's TCB signing key, and dir/tcb_signing_chain.pem. */
void test_tdx_authority_tcb_info(test_tdx_authority *ta, const char *dir, const char *status,
                                 long next_update_days);
/* dir/qe_identity.json (Intel's TD_QE identity v2: MISCSELECT 0 under mask
 * FFFFFFFF, ATTRIBUTES 11.. under FBFF.., mrsigner, isvprodid, levels
 * isvsvn 4 with status, 2 OutOfDate, 1 Revoked) signed by the TCB signing
 * key, or by a key nobody certified when forged; and
 * dir/tcb_signing_chain.pem. */
typedef struct test_qe_identity {
	const char *mrsigner; /* 64 hex digits; NULL: Intel's */
	int isvprodid;        /* 0: 2 */
	const char *status;   /* isvsvn 4's; NULL: UpToDate */
	long next_update_days;
	bool forged;
} test_qe_identity;
void test_tdx_authority_qe_identity(test_tdx_authority *ta, const char *dir,
                                    const test_qe_identity *q);
/* dir/file holding body (any text) under member, signed by the TCB signing
 * key, as Intel would: the fuzz harness's hostile collateral. */
void test_tdx_authority_sign_collateral(test_tdx_authority *ta, const char *dir, const char *file,
                                        const char *member, const char *body);

#endif
