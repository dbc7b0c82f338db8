/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_snp_check.c - what a genuine SEV-SNP report is worth (attest.h):
 * the endorsement key's certificate extensions (AMD 57230, "Versioned Chip
 * Endorsement Key (VCEK) Certificate and KDS Interface Specification": TCB
 * SPLs under 1.3.6.1.4.1.3704.1.3, hwID .1.4, product name .1.2), the
 * report's TCBs against that certificate and a minimum, and its guest
 * policy. The semantics are go-sev-guest's validate.SnpAttestation
 * (validateTcb, validateVersion, validatePolicy; abi.ParseSnpPolicy) and
 * Trustee's SNP verifier: a report whose signature verified may still be
 * worth nothing (an old, vulnerable TCB; a guest a migration agent or a
 * debugger can read), and is then refused with the check named.
 */
#include "attest.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the endorsement key's certificate ----------------------------------- */

/* The arc of AMD's KDS extensions: 1.3.6.1.4.1.3704.1.<rest>. */
static bool kds_arc(const ASN1_OBJECT *o, char *rest, size_t len)
{
	static const char arc[] = "1.3.6.1.4.1.3704.1.";
	char txt[80];
	if (OBJ_obj2txt(txt, sizeof txt, o, 1) <= 0 || strncmp(txt, arc, sizeof arc - 1))
		return false;
	snprintf(rest, len, "%s", txt + sizeof arc - 1);
	return true;
}

/* An extension value that is a DER INTEGER 0..255 and nothing else. */
static int spl_value(const ASN1_OCTET_STRING *data, uint8_t *out)
{
	const unsigned char *p = ASN1_STRING_get0_data(data);
	long n = ASN1_STRING_length(data);
	const unsigned char *q = p;
	ASN1_INTEGER *i = d2i_ASN1_INTEGER(NULL, &q, n);
	long v = i ? ASN1_INTEGER_get(i) : -1;
	bool whole = i && q == p + n;
	ASN1_INTEGER_free(i);
	if (!whole || v < 0 || v > 255)
		return -1;
	*out = (uint8_t)v;
	return 0;
}

int isotier__attest_snp_ek_read(attest_snp_ek *ek, const struct x509_st *x, char *why,
                                size_t whylen)
{
	memset(ek, 0, sizeof *ek);
	bool seen_hwid = false, seen_product = false;
	for (int i = 0; i < X509_get_ext_count(x); i++) {
		X509_EXTENSION *ext = X509_get_ext(x, i);
		char rest[64];
		if (!kds_arc(X509_EXTENSION_get_object(ext), rest, sizeof rest))
			continue;
		const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(ext);
		const unsigned char *p = ASN1_STRING_get0_data(data);
		int n = ASN1_STRING_length(data);
		unsigned k;
		char tail;
		if (sscanf(rest, "3.%u%c", &k, &tail) == 1 && k >= 1 && k <= 9) {
			if (ek->has_spl[k] || spl_value(data, &ek->spl[k]) < 0) {
				snprintf(why, whylen,
				         "SNP key certificate: extension 1.3.6.1.4.1.3704.1.3.%u "
				         "twice or not an INTEGER 0-255",
				         k);
				return -1;
			}
			ek->has_spl[k] = true;
		} else if (!strcmp(rest, "4")) {
			/* KDS writes the hwID raw (no OCTET STRING tag of its
			 * own); an inner OCTET STRING is accepted too. */
			if (n >= 2 && p[0] == 0x04 && p[1] == n - 2 && (n - 2 == 8 || n - 2 == 64))
				p += 2, n -= 2;
			if (seen_hwid || (n != 8 && n != ATTEST_SNP_CHIPID_LEN)) {
				snprintf(
				    why, whylen,
				    "SNP key certificate: hwID (1.3.6.1.4.1.3704.1.4) twice or "
				    "%d bytes, not 8 or 64",
				    n);
				return -1;
			}
			seen_hwid = true;
			memcpy(ek->hwid, p, (size_t)n);
			ek->hwid_len = (size_t)n;
		} else if (!strcmp(rest, "2")) {
			/* An IA5String: tag 0x16, a short length, the name. */
			if (seen_product || n < 2 || p[0] != 0x16 || p[1] != n - 2 ||
			    (size_t)(n - 2) >= sizeof ek->product) {
				snprintf(why, whylen,
				         "SNP key certificate: productName (1.3.6.1.4.1.3704.1.2) "
				         "twice or not a short IA5String");
				return -1;
			}
			seen_product = true;
			for (int c = 2; c < n; c++)
				ek->product[c - 2] = p[c] >= 0x20 && p[c] < 0x7f ? (char)p[c] : '?';
		}
	}
	return 0;
}

int isotier__attest_snp_ek_parse(attest_snp_ek *ek, const uint8_t *cert, size_t len, char *why,
                                 size_t whylen)
{
	if (!cert || !len || len > ATTEST_MAX_CERT) {
		snprintf(why, whylen, "SNP key certificate: empty or too large");
		return -1;
	}
	const unsigned char *q = cert;
	X509 *x = d2i_X509(NULL, &q, (long)len);
	if (!x || q != cert + len) {
		X509_free(x);
		BIO *bio = BIO_new_mem_buf(cert, (int)len);
		x = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
		BIO_free(bio);
	}
	if (!x) {
		snprintf(why, whylen, "SNP key certificate: not a certificate");
		return -1;
	}
	int rc = isotier__attest_snp_ek_read(ek, x, why, whylen);
	X509_free(x);
	return rc;
}

/* TCB_VERSION's bytes (AMD 56860, Table 3): Milan and Genoa: bl, tee, 4
 * reserved, snp, ucode; Turin: fmc, bl, tee, snp, 3 reserved, ucode. The
 * reserved bytes take the certificate's reserved SPLs (.3.4-.3.7), as
 * go-sev-guest's kds.ComposeTCBParts does, so the whole 8 bytes compare. */
uint64_t isotier__attest_snp_ek_tcb(const attest_snp_ek *ek, bool turin)
{
	static const int milan[8] = {1, 2, 4, 5, 6, 7, 3, 8}, turin_[8] = {9, 1, 2, 3, 5, 6, 7, 8};
	const int *at = turin ? turin_ : milan;
	uint64_t t = 0;
	for (int i = 0; i < 8; i++)
		t |= (uint64_t)ek->spl[at[i]] << (8 * i);
	return t;
}

attest_snp_tcb isotier__attest_snp_tcb_split(uint64_t tcb, bool turin)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(tcb >> (8 * i));
	if (turin)
		return (attest_snp_tcb){
		    .fmc = b[0], .boot_loader = b[1], .tee = b[2], .snp = b[3], .microcode = b[7]};
	return (attest_snp_tcb){.boot_loader = b[0], .tee = b[1], .snp = b[6], .microcode = b[7]};
}

/* The 8 raw bytes again (reserved bytes zero). */
static uint64_t attest_snp_tcb_join(attest_snp_tcb t, bool turin)
{
	attest_snp_ek ek = {0};
	ek.spl[1] = t.boot_loader, ek.spl[2] = t.tee, ek.spl[3] = t.snp, ek.spl[8] = t.microcode;
	ek.spl[9] = t.fmc;
	return isotier__attest_snp_ek_tcb(&ek, turin);
}

/* ---- the shipped minimum -------------------------------------------------- */

/* What AMD's bulletins say a platform needs. A verifier without a minimum
 * accepts any firmware AMD ever signed for, the vulnerable included; one
 * shipped here goes stale, so the operator's ISOTIER_ATTEST_MIN_TCB
 * replaces it (runbook/attestation.md). Only what the source names is
 * constrained; the other components are 0. */
static const struct {
	const char *product;
	attest_snp_tcb min;
	const char *source;
} default_min[] = {
    {"Milan",
     {.snp = 0x18},
     "AMD-SB-3019 (2025-02-03, CVE-2024-56161): SNP firmware SPL 0x18 on Milan"},
    {"Genoa",
     {.snp = 0x17},
     "AMD-SB-3019 (2025-02-03, CVE-2024-56161): SNP firmware SPL 0x17 on Genoa"},
    /* Turin: no bulletin read here names a minimum: none shipped. */
};

/* The minimum TCB isotier ships for product (Milan, Genoa, Turin) and its
 * dated source; false when none is shipped. */
static bool attest_snp_default_min_tcb(const char *product, attest_snp_tcb *min,
                                       const char **source)
{
	for (size_t i = 0; product && i < sizeof default_min / sizeof *default_min; i++)
		if (!strcmp(product, default_min[i].product)) {
			*min = default_min[i].min;
			*source = default_min[i].source;
			return true;
		}
	return false;
}

/* ---- the appraisal -------------------------------------------------------- */

int isotier__attest_refuse(attest_verdict *v, isotier_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->detail, sizeof v->detail, fmt, ap);
	va_end(ap);
	return isotier__error_set(err, ISOTIER_EDATA, 0, "%s", v->detail);
}

/* Every byte of a at most b's (go-sev-guest kds.TCBPartsLE). */
static bool tcb_le(uint64_t a, uint64_t b)
{
	for (int i = 0; i < 8; i++)
		if ((uint8_t)(a >> (8 * i)) > (uint8_t)(b >> (8 * i)))
			return false;
	return true;
}

static void tcb_text(char *out, size_t len, uint64_t tcb, bool turin)
{
	attest_snp_tcb t = isotier__attest_snp_tcb_split(tcb, turin);
	if (turin)
		snprintf(out, len, "fmc %u, bl %u, tee %u, snp %u, ucode %u", t.fmc, t.boot_loader,
		         t.tee, t.snp, t.microcode);
	else
		snprintf(out, len, "bl %u, tee %u, snp %u, ucode %u", t.boot_loader, t.tee, t.snp,
		         t.microcode);
}

static bool below(attest_snp_tcb have, attest_snp_tcb min, bool turin)
{
	return have.boot_loader < min.boot_loader || have.tee < min.tee || have.snp < min.snp ||
	       have.microcode < min.microcode || (turin && have.fmc < min.fmc);
}

static int appraise_tcb(attest_verdict *v, const attest_snp_report *r, const attest_snp_ek *ek,
                        const char *product, const attest_policy *p, isotier_error *err)
{
	bool turin = product && !strcmp(product, "Turin");
	char a[64], b[64];
	static const int need[] = {1, 2, 3, 8};
	for (size_t i = 0; i < sizeof need / sizeof *need; i++)
		if (!ek->has_spl[need[i]])
			return isotier__attest_refuse(
			    v, err,
			    "SNP key certificate: no TCB extension "
			    "1.3.6.1.4.1.3704.1.3.%d: the TCB it was issued for is unknown",
			    need[i]);
	if (turin && !ek->has_spl[9])
		return isotier__attest_refuse(
		    v, err, "SNP key certificate: a Turin key without fmcSPL (.3.9)");
	uint64_t cert = isotier__attest_snp_ek_tcb(ek, turin);
	tcb_text(a, sizeof a, cert, turin);
	tcb_text(b, sizeof b, r->reported_tcb, turin);
	/* A key is derived from one TCB: issued for another, it signs for a
	 * platform that may have rolled back (go-sev-guest: tcbNeError). */
	if (cert != r->reported_tcb)
		return isotier__attest_refuse(
		    v, err, "SNP report.reported_tcb (%s): not the key certificate's TCB (%s)", b,
		    a);
	tcb_text(b, sizeof b, r->current_tcb, turin);
	if (!tcb_le(cert, r->current_tcb))
		return isotier__attest_refuse(
		    v, err, "SNP report.current_tcb (%s): below the key certificate's TCB (%s)", b,
		    a);
	tcb_text(a, sizeof a, r->committed_tcb, turin);
	bool committed_ok = p->allow_provisional ? tcb_le(r->committed_tcb, r->current_tcb)
	                                         : r->committed_tcb == r->current_tcb;
	if (!committed_ok)
		return isotier__attest_refuse(
		    v, err,
		    "SNP report.committed_tcb (%s): %s the current TCB (%s): provisional "
		    "firmware%s",
		    a, p->allow_provisional ? "above" : "not", b,
		    p->allow_provisional ? "" : " (ISOTIER_ATTEST_SNP_PROVISIONAL not set)");
	int build = (int)r->committed_build - (int)r->current_build;
	int api = ((int)r->committed_major << 8 | r->committed_minor) -
	          ((int)r->current_major << 8 | r->current_minor);
	if (p->allow_provisional ? build > 0 || api > 0 : build != 0 || api != 0)
		return isotier__attest_refuse(
		    v, err,
		    "SNP report.committed_version (%u.%u build %u): %s the current "
		    "firmware (%u.%u build %u): provisional firmware",
		    r->committed_major, r->committed_minor, r->committed_build,
		    p->allow_provisional ? "above" : "not", r->current_major, r->current_minor,
		    r->current_build);
	attest_snp_tcb min;
	const char *source = "ISOTIER_ATTEST_MIN_TCB";
	if (p->has_min_tcb)
		min = p->min_tcb;
	else if (!attest_snp_default_min_tcb(product, &min, &source))
		return isotier__attest_refuse(
		    v, err,
		    "SNP minimum TCB: none shipped for %s and none configured "
		    "(ISOTIER_ATTEST_MIN_TCB): an old, vulnerable firmware cannot be told "
		    "apart",
		    product ? product : "an unnamed product");
	tcb_text(a, sizeof a, attest_snp_tcb_join(min, turin), turin);
	tcb_text(b, sizeof b, r->reported_tcb, turin);
	if (below(isotier__attest_snp_tcb_split(r->reported_tcb, turin), min, turin))
		return isotier__attest_refuse(
		    v, err, "SNP report.reported_tcb (%s): below the minimum TCB (%s; %s)", b, a,
		    source);
	tcb_text(b, sizeof b, r->launch_tcb, turin);
	if (below(isotier__attest_snp_tcb_split(r->launch_tcb, turin), min, turin))
		return isotier__attest_refuse(
		    v, err, "SNP report.launch_tcb (%s): below the minimum TCB (%s; %s)", b, a,
		    source);
	return 0;
}

static int appraise_policy(attest_verdict *v, const attest_snp_report *r, const attest_policy *p,
                           isotier_error *err)
{
	uint64_t pol = r->policy;
	unsigned major = (unsigned)(pol >> 8 & 0xff), minor = (unsigned)(pol & 0xff);
	if (!(pol & ATTEST_SNP_POLICY_RESERVED1))
		return isotier__attest_refuse(
		    v, err, "SNP report.policy: reserved bit 17 clear (it must be one)");
	if (pol & ATTEST_SNP_POLICY_MBZ)
		return isotier__attest_refuse(
		    v, err, "SNP report.policy: must-be-zero bits 26-63 set (0x%llx)",
		    (unsigned long long)(pol & ATTEST_SNP_POLICY_MBZ));
	if (pol & ATTEST_SNP_POLICY_MIGRATE_MA)
		return isotier__attest_refuse(
		    v, err,
		    "SNP report.policy: MIGRATE_MA set: a migration agent can export "
		    "the guest");
	if (pol & ATTEST_SNP_POLICY_DEBUG)
		return isotier__attest_refuse(
		    v, err, "SNP report.policy: debugging allowed: the host can read the guest");
	if (p->require_no_smt && (pol & ATTEST_SNP_POLICY_SMT))
		return isotier__attest_refuse(
		    v, err,
		    "SNP report.policy: SMT allowed, and ISOTIER_ATTEST_SNP_NO_SMT "
		    "requires it off");
	if (p->require_single_socket && !(pol & ATTEST_SNP_POLICY_SINGLE_SOCKET))
		return isotier__attest_refuse(v, err,
		                              "SNP report.policy: SINGLE_SOCKET clear, and "
		                              "ISOTIER_ATTEST_SNP_SINGLE_SOCKET requires it");
	if ((major << 8 | minor) < ((unsigned)p->min_abi_major << 8 | p->min_abi_minor))
		return isotier__attest_refuse(
		    v, err, "SNP report.policy: ABI %u.%u, below the required %u.%u", major, minor,
		    p->min_abi_major, p->min_abi_minor);
	if (r->vmpl > p->max_vmpl)
		return isotier__attest_refuse(v, err, "SNP report.vmpl: %u, above the accepted %u",
		                              r->vmpl, p->max_vmpl);
	return 0;
}

int isotier__attest_snp_appraise(attest_verdict *v, const attest_snp_report *r,
                                 const attest_snp_ek *ek, const char *product,
                                 const attest_policy *p, isotier_error *err)
{
	int rc = appraise_policy(v, r, p, err);
	return rc < 0 ? rc : appraise_tcb(v, r, ek, product, p, err);
}
