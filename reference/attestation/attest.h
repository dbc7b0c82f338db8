/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest.h - hardware attestation evidence (AMD SEV-SNP reports, Intel TDX
 * quotes) verified offline against vendor roots pinned in the tree
 * (ADR-0020).
 *
 * The probe asks the guest's kernel (configfs-tsm) for a report over 64
 * bytes of its choosing: the binding, a SHA-512 over the verifier's nonce and
 * a digest of the probe's own report (isotier__attest_binding). The CPU's firmware
 * signs that report with a key only the chip holds (SNP: the VCEK, certified
 * by AMD's ASK and ARK, or a cloud's VLEK, certified by AMD's ASVK and ARK; TDX: the attestation
 * key, certified by the quoting enclave whose PCK chains to Intel's SGX root). Everything in the
 * evidence, certificates included, crossed a trust boundary: sizes are bounded, every field is
 * checked, and anything unproven leaves the verdict not valid, with the field named.
 *
 * What a valid verdict proves: a genuine SEV-SNP or TDX guest (the chip's
 * vendor says so) signed this run's binding. It does not prove that the
 * probe ran directly in that guest rather than in a container inside it: a
 * report attests the guest, and the kernel-sharing rules still apply
 * (testimony.h).
 */
#ifndef ISOTIER_ATTEST_H
#define ISOTIER_ATTEST_H

#include "../../base/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ATTEST_DATA_LEN 64
/* Bounds on what crosses the trust boundary. */
#define ATTEST_MAX_OUTBLOB (16 * 1024)
#define ATTEST_MAX_AUXBLOB (64 * 1024)
#define ATTEST_MAX_CERT    (8 * 1024)

#define ATTEST_SNP_REPORT_LEN   0x4A0
#define ATTEST_SNP_SIGNED_LEN   0x2A0
#define ATTEST_SNP_MEASURE_LEN  48
#define ATTEST_SNP_REPORTID_LEN 32
#define ATTEST_SNP_CHIPID_LEN   64
/* SNP guest policy bits (AMD 56860, GUEST_POLICY; go-sev-guest abi.ParseSnpPolicy). */
#define ATTEST_SNP_POLICY_SMT           (1ull << 16)  /* simultaneous multithreading allowed */
#define ATTEST_SNP_POLICY_RESERVED1     (1ull << 17)  /* reserved, must be one */
#define ATTEST_SNP_POLICY_MIGRATE_MA    (1ull << 18)  /* a migration agent may export the guest */
#define ATTEST_SNP_POLICY_DEBUG         (1ull << 19)  /* debugging allowed: the host reads it */
#define ATTEST_SNP_POLICY_SINGLE_SOCKET (1ull << 20)  /* the guest may run on one socket only */
#define ATTEST_SNP_POLICY_MBZ           (~0ull << 26) /* bits 26-63: must be zero */
/* Report flags (SIGNER_INFO) bits 2-4: the key that signed. */
#define ATTEST_SNP_SIGNER_VCEK 0
#define ATTEST_SNP_SIGNER_VLEK 1

typedef enum { ATTEST_TECH_NONE, ATTEST_TECH_SEV_SNP, ATTEST_TECH_TDX } attest_tech;

/* Where the certificate that signed the report came from: the statements
 * differ (a host that serves a VCEK of another chip is caught by the chain
 * and the chip id; a cache is the operator's own). */
typedef enum {
	ATTEST_CERTS_NONE,
	ATTEST_CERTS_HOST,  /* auxblob: served by the host the guest runs on */
	ATTEST_CERTS_CACHE, /* the operator's local cache directory */
	ATTEST_CERTS_QUOTE  /* TDX: the PCK chain carried in the quote itself */
} attest_cert_source;

/* An SNP TCB_VERSION (8 bytes, little-endian): per-component SVNs. The byte
 * layout differs on Turin (fmc first); compared component by component. */
typedef struct attest_snp_tcb {
	uint8_t boot_loader, tee, snp, microcode, fmc;
} attest_snp_tcb;

/* The SEV-SNP ATTESTATION_REPORT (AMD SEV-SNP ABI spec 56860, Table 22):
 * versions 2, 3 and 5 are in use (3 adds CPUID family/model/stepping, 5
 * launch mitigations); all are 0x4A0 bytes signed over 0..0x29F. */
typedef struct attest_snp_report {
	uint32_t version, guest_svn;
	uint64_t policy;
	uint8_t family_id[16], image_id[16];
	uint32_t vmpl, sig_algo;
	uint64_t current_tcb, platform_info;
	uint32_t
	    flags; /* bit 0 author key, 1 MASK_CHIP_ID, bits 2-4 signing key (0 VCEK, 1 VLEK) */
	uint8_t report_data[ATTEST_DATA_LEN];
	uint8_t measurement[ATTEST_SNP_MEASURE_LEN];
	uint8_t host_data[32], id_key_digest[48], author_key_digest[48];
	uint8_t report_id[ATTEST_SNP_REPORTID_LEN], report_id_ma[ATTEST_SNP_REPORTID_LEN];
	uint64_t reported_tcb;
	uint8_t cpuid_fam, cpuid_mod, cpuid_step; /* version >= 3; 0 before */
	uint8_t chip_id[ATTEST_SNP_CHIPID_LEN];
	uint64_t committed_tcb, launch_tcb;
	uint8_t current_build, current_minor, current_major;
	uint8_t committed_build, committed_minor, committed_major;
	uint8_t sig_r[72], sig_s[72]; /* little-endian, zero-padded */
} attest_snp_report;

/* Parses len bytes (exactly 0x4A0); fails naming the field. */
int isotier__attest_snp_parse(attest_snp_report *r, const uint8_t *buf, size_t len,
                              isotier_error *err);
/* The TCB's components for the chip family the report names (Turin: fmc). */
attest_snp_tcb isotier__attest_snp_tcb_split(uint64_t tcb, bool turin);

/* What the operator configures (runbook/attestation.md); zero = defaults. */
typedef struct attest_policy {
	const char *roots_dir; /* pinned vendor roots; NULL: isotier__attest_default_roots_dir() */
	const char *cache_dir; /* VCEKs the operator fetched (<chip_id hex>.der|.pem); NULL: none */
	unsigned max_vmpl;     /* SNP: highest VMPL accepted (0: only the most privileged) */
	/* SNP: every component of REPORTED_TCB and LAUNCH_TCB at least this
	 * (fmc on Turin only); without it, the product's shipped minimum
	 * (attest_snp_default_min_tcb), and none for the product: refused. */
	bool has_min_tcb;
	attest_snp_tcb min_tcb;
	bool allow_provisional; /* SNP: COMMITTED below CURRENT accepted (never above) */
	bool require_no_smt;    /* SNP: policy SMT must be clear */
	bool require_single_socket;
	uint8_t min_abi_major, min_abi_minor; /* SNP: policy ABI at least this */
	/* A reference measurement (SNP: 48 bytes, TDX: MRTD 48 bytes): judged
	 * only when given; else recorded. */
	const uint8_t *measurement;
	size_t measurement_len;
	time_t now; /* certificate validity is checked at this time; 0: now */
	/* TDX: SEPT_VE_DISABLE is required unless this is set; XFAM, MRSEAM
	 * and RTMRs, when given, must equal the quote's. */
	bool tdx_allow_sept_ve;
	bool has_tdx_xfam, has_tdx_mrseam, has_tdx_rtmr[4];
	uint8_t tdx_xfam[8], tdx_mrseam[48], tdx_rtmr[4][48];
	/* TDX collateral fetched elsewhere from Intel PCS (runbook/attestation.md):
	 * pck_crl and root_crl (.der or .pem), and tcb_info.json with
	 * qe_identity.json (both or neither) and tcb_signing_chain.pem; NULL: not
	 * evaluated, and the verdict says so. */
	const char *tdx_collateral_dir;
} attest_policy;

/* Fills p from ISOTIER_ATTEST_ROOTS, ISOTIER_ATTEST_CACHE,
 * ISOTIER_ATTEST_MAX_VMPL, ISOTIER_ATTEST_MIN_TCB ("bl.tee.snp.ucode[.fmc]"),
 * ISOTIER_ATTEST_SNP_PROVISIONAL, ISOTIER_ATTEST_SNP_NO_SMT,
 * ISOTIER_ATTEST_SNP_SINGLE_SOCKET (each "1"), ISOTIER_ATTEST_SNP_MIN_ABI
 * ("major.minor"), ISOTIER_ATTEST_MEASUREMENT (hex); mbuf holds the decoded
 * measurement. */
int isotier__attest_policy_from_env(attest_policy *p, uint8_t mbuf[ATTEST_SNP_MEASURE_LEN],
                                    isotier_error *err);
/* catalogue/roots in a build, share/isotier/catalogue/roots installed. */
const char *isotier__attest_default_roots_dir(void);

typedef struct attest_evidence {
	const char *provider; /* configfs-tsm provider: "sev_guest", "tdx_guest" */
	const uint8_t *outblob;
	size_t outblob_len;
	const uint8_t *auxblob; /* SNP: the GUID table of certificates; may be NULL */
	size_t auxblob_len;
} attest_evidence;

typedef struct attest_verdict {
	bool valid; /* signature, chain, binding and policy all hold */
	attest_tech tech;
	attest_cert_source certs;
	char root[200];   /* the root of trust used, e.g. "AMD ARK-Milan (pinned: ...)" */
	char product[16]; /* Milan, Genoa, Turin; TDX: "" */
	char tcb[256];    /* the reported TCB, as text (TDX: what of it was evaluated) */
	char measurement[2 * 48 + 1];
	const char *measurement_judged; /* "matches the reference", "differs...", "recorded" */
	uint8_t guest_id[ATTEST_SNP_REPORTID_LEN]; /* SNP report_id; TDX: none */
	bool has_guest_id;
	char detail[400]; /* why not valid (names the field), or what was verified */
} attest_verdict;

/*
 * The binding the guest must have put in its report data:
 * SHA-512("isotier-attest/1\0" || nonce || "\0" || SHA-512(body)), where body
 * is the probe's report as printed without its "attestation" member.
 */
int isotier__attest_binding(uint8_t out[ATTEST_DATA_LEN], const char *nonce, const uint8_t *body,
                            size_t body_len, isotier_error *err);

/* Verifies evidence against `expected` (the binding) under policy p; v is
 * filled on every path. Returns 0 when v->valid, else a negative code (err
 * and v->detail say why). */
int isotier__attest_verify(attest_verdict *v, const attest_evidence *e,
                           const uint8_t expected[ATTEST_DATA_LEN], const attest_policy *p,
                           isotier_error *err);

/* What an SNP endorsement key's certificate says (AMD 57230, VCEK and VLEK
 * extensions under 1.3.6.1.4.1.3704.1): the TCB it was issued for, the chip
 * (hwID: 64 bytes to Genoa, 8 on Turin; a VLEK names none) and the product. */
typedef struct attest_snp_ek {
	uint8_t spl[10]; /* .3.N, N = 1 bl, 2 tee, 3 snp, 4-7 reserved, 8 ucode, 9 fmc */
	bool has_spl[10];
	uint8_t hwid[ATTEST_SNP_CHIPID_LEN];
	size_t hwid_len;  /* 0: none */
	char product[24]; /* .2, e.g. "Milan-B0", "Turin" */
	bool vlek;        /* the report's SIGNING_KEY said VLEK */
} attest_snp_ek;
struct x509_st;
/* Reads x's extensions into ek; <0 with why when one is malformed or twice. */
int isotier__attest_snp_ek_read(attest_snp_ek *ek, const struct x509_st *x, char *why,
                                size_t whylen);
/* The same from a certificate's DER or PEM bytes (tests, tools). */
int isotier__attest_snp_ek_parse(attest_snp_ek *ek, const uint8_t *cert, size_t len, char *why,
                                 size_t whylen);
/* The TCB the certificate was issued for, as the report's 8 raw bytes. */
uint64_t isotier__attest_snp_ek_tcb(const attest_snp_ek *ek, bool turin);

/* The SNP half (attest_snp.c): the endorsement key the report's SIGNING_KEY
 * names (a VCEK, or a VLEK), from the operator's cache first, else the
 * host's auxblob; its chain to the product's pinned ARK through the pinned
 * ASK (VCEK) or ASVK (VLEK); the chip it names; its signature over the
 * report. ek gets what its certificate says. Both halves take p->roots_dir
 * resolved (attest_verify does it). */
int isotier__attest_snp_verify(attest_verdict *v, const attest_snp_report *r, const uint8_t *raw,
                               const attest_evidence *e, const attest_policy *p, attest_snp_ek *ek,
                               isotier_error *err);
/* attest_snp_check.c: a genuine report appraised as go-sev-guest's
 * validate.SnpAttestation does: the key's TCB equal to REPORTED_TCB and not
 * above CURRENT_TCB; COMMITTED equal to CURRENT (TCB, build, API) unless
 * provisional firmware is allowed (then not above); REPORTED_TCB and
 * LAUNCH_TCB at least the minimum; the guest policy (reserved bit 17 set,
 * bits 26-63 clear, MIGRATE_MA and DEBUG refused, SMT, SINGLE_SOCKET and
 * ABI as required); the VMPL. 0, or <0 with v->detail naming the check. */
int isotier__attest_snp_appraise(attest_verdict *v, const attest_snp_report *r,
                                 const attest_snp_ek *ek, const char *product,
                                 const attest_policy *p, isotier_error *err);
/* The TDX half (attest_tdx.c). */
/* attest_tdx_check.c: the TD report's attributes (DEBUG and MIGRATABLE
 * refused, SEPT_VE_DISABLE required), XFAM, MRSEAM, RTMRs against p; 0, or
 * <0 with v->detail naming the field. body: the 584-byte TD report. */
int isotier__attest_tdx_appraise(attest_verdict *v, const uint8_t *body, const attest_policy *p,
                                 isotier_error *err);
/* Whether leaf is a PCK certificate: not a CA, with Intel's SGX extension
 * (1.2.840.113741.1.13.1) holding the PPID, TCB, PCE-ID and FMSPC; NULL, or
 * why not. */
const char *isotier__attest_tdx_pck_check(const struct x509_st *leaf);
/* attest_tdx_tcb.c: the platform's TCB status from the collateral
 * directory's tcb_info.json and tcb_signing_chain.pem (Intel PCS), for the
 * PCK pck and the TD report body, at now. 0 with status ("UpToDate",
 * "SWHardeningNeeded", or "not evaluated (no tcb_info.json ...)"); <0 with
 * why (a bad or stale TCB info, another platform's, no matching level, or a
 * status below SWHardeningNeeded). */
int isotier__attest_tdx_tcb_status(char *status, size_t status_len, const struct x509_st *pck,
                                   const uint8_t *body, const char *dir, const char *roots,
                                   time_t now, char *why, size_t whylen);
/* attest_tdx_qe.c: the quoting enclave's status from the collateral
 * directory's qe_identity.json (Intel PCS, signed by the key of
 * tcb_signing_chain.pem) for the quote's 384-byte QE report, at now. 0 with
 * status ("UpToDate (TD_QE isvsvn N)", or "not evaluated (no
 * qe_identity.json ...)"); <0 with why (a bad or stale identity, another
 * enclave's, a MISCSELECT, ATTRIBUTES, MRSIGNER or ISVPRODID not its, an
 * ISVSVN OutOfDate, Revoked or below every level). */
int isotier__attest_tdx_qe_status(char *status, size_t status_len, const uint8_t qe_report[384],
                                  const char *dir, const char *roots, time_t now, char *why,
                                  size_t whylen);
/* The same judgement of an identity already read and checked (its
 * "enclaveIdentity" object): tests and the fuzz harness. */
struct cJSON;
int isotier__attest_tdx_qe_match(char *status, size_t status_len, const struct cJSON *identity,
                                 const uint8_t qe_report[384], char *why, size_t whylen);
/* attest_tdx_collateral.c: dir/file, Intel's {"<member>":{...},
 * "signature":"<r||s hex>"}: the member's bytes signed by the leaf of
 * dir/tcb_signing_chain.pem, chained to roots' Intel SGX Root CA at now,
 * with issueDate <= now < nextUpdate. 1 with *doc (the caller deletes it)
 * and *body its member; 0 when the file does not exist; <0 with why. */
int isotier__attest_tdx_signed_json(struct cJSON **doc, const struct cJSON **body, const char *dir,
                                    const char *file, const char *member, const char *roots,
                                    time_t now, char *why, size_t whylen);
struct evp_pkey_st; /* OpenSSL's EVP_PKEY: callers include <openssl/evp.h> */
/* An ECDSA P-256 signature given as r||s (big-endian, 32 bytes each, as in
 * TDX quotes and Intel's collateral) by key over data, SHA-256 (attest_tdx_collateral.c). */
bool isotier__attest_p256_verify(struct evp_pkey_st *key, const uint8_t rs[64], const uint8_t *data,
                                 size_t len);
/* v->detail from fmt and the same words as err (ISOTIER_EDATA): what an
 * appraisal refuses with. Returns ISOTIER_EDATA. */
int isotier__attest_refuse(attest_verdict *v, isotier_error *err, const char *fmt, ...)
    ISOTIER_PRINTF(3, 4);
/* n bytes from exactly 2n hex digits (either case); false else. */
bool isotier__attest_hex_bytes(uint8_t *out, size_t n, const char *hex);
int isotier__attest_tdx_verify(attest_verdict *v, const attest_evidence *e,
                               const uint8_t expected[ATTEST_DATA_LEN], const attest_policy *p,
                               isotier_error *err);

/*
 * A probe's output as printed: its "attestation" member (the last one), the
 * evidence in it (hex-decoded into malloc'd buffers the caller frees with
 * attest_output_clear) and the binding recomputed from the rest of the
 * output and nonce. status gets the member's "status" ("ok", "absent",
 * "refused", ...); without the member, status is "absent" and 0 is returned.
 */
typedef struct attest_output {
	char status[24];
	char why[160];
	char provider[24];
	uint8_t *outblob, *auxblob;
	size_t outblob_len, auxblob_len;
	uint8_t binding[ATTEST_DATA_LEN];
} attest_output;
int isotier__attest_output_parse(attest_output *o, const char *out, size_t len, const char *nonce,
                                 isotier_error *err);
void isotier__attest_output_clear(attest_output *o);

/* Two remote sandboxes' evidence, each verified against its own run. */
typedef enum {
	ATTEST_PAIR_NONE,      /* not asked, or no evidence offered: nothing changes */
	ATTEST_PAIR_REJECTED,  /* evidence offered and refused: nothing proven */
	ATTEST_PAIR_ONE_GUEST, /* both valid, one technology, one report id: one guest */
	ATTEST_PAIR_UNPAIRED,  /* both valid, but a side names no guest (TDX) or the two
	                          technologies differ: neither one guest nor two shown */
	ATTEST_PAIR_ATTESTED   /* both valid, one technology, bound to their runs, two ids */
} attest_pair_outcome;

typedef struct attest_pair {
	attest_pair_outcome outcome;
	attest_verdict v[2];
	char detail[600];
} attest_pair;

/* Verifies one sandbox's output (its run's nonce) into v; 1 when it
 * offered evidence that verified, 0 when it offered none (v->detail says
 * why), <0 when it offered evidence that failed. */
int isotier__attest_output_verify(attest_verdict *v, const char *out, size_t len, const char *nonce,
                                  const attest_policy *p);
/* attest_host.c: the probe on this host (`verify --attest`) with a fresh
 * nonce; returns as attest_output_verify, or <0 when the probe could not
 * run (err). */
int isotier__attest_host(attest_verdict *v, const char *probe_path, int timeout_s, int cancel_fd,
                         isotier_error *err);
/* How an attested verdict's text starts: "attested, measurement not judged"
 * unless every verdict given matched a configured reference measurement
 * ("attested, measurement matches the reference"): a genuine guest running
 * unknown software is not the same statement. */
const char *isotier__attest_judged_phrase(const attest_verdict *v, size_t n);
/* The pair's outcome from its two verdicts (v[] filled, rc[] from
 * attest_output_verify). */
void isotier__attest_pair_judge(attest_pair *pair, const int rc[2]);

#endif
