/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_tdx_check.c - what a genuine TDX quote is worth (attest.h): the
 * PCK leaf is a PCK certificate (Intel SGX PCK Certificate and CRL Profile:
 * not a CA, Intel's SGX extension with PPID, TCB, PCE-ID and FMSPC), and the
 * TD report's attributes, XFAM, MRSEAM and RTMRs (Intel TDX Module ABI,
 * TDREPORT_STRUCT; go-tdx-guest's validate.TdxQuote options; Trustee's TDX
 * verifier) are acceptable.
 */
#include "attest.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* TD report body offsets (after the 48-byte quote header). */
#define BODY_MRSEAM 16
#define BODY_ATTR   120
#define BODY_XFAM   128
#define BODY_RTMR   328

/* TDATTRIBUTES (TDX Module ABI): bit 0 DEBUG, 28 SEPT_VE_DISABLE, 29
 * MIGRATABLE. */
#define TD_DEBUG           (1ull << 0)
#define TD_SEPT_VE_DISABLE (1ull << 28)
#define TD_MIGRATABLE      (1ull << 29)

int isotier__attest_tdx_appraise(attest_verdict *v, const uint8_t *body, const attest_policy *p,
                                 isotier_error *err)
{
	uint64_t attr = 0;
	for (int i = 7; i >= 0; i--)
		attr = attr << 8 | body[BODY_ATTR + i];
	if (attr & TD_DEBUG)
		return isotier__attest_refuse(
		    v, err, "TDX quote.td_attributes: DEBUG set: the host can read the TD");
	if (attr & TD_MIGRATABLE)
		return isotier__attest_refuse(
		    v, err,
		    "TDX quote.td_attributes: MIGRATABLE set: a migration TD can export "
		    "the TD");
	/* Without it the host can inject #VE on secure-EPT faults, which the
	 * guest must then handle: Linux refuses such a TD unless told not to. */
	if (!(attr & TD_SEPT_VE_DISABLE) && !p->tdx_allow_sept_ve)
		return isotier__attest_refuse(
		    v, err,
		    "TDX quote.td_attributes: SEPT_VE_DISABLE clear (the host can inject "
		    "#VE; ISOTIER_ATTEST_TDX_ALLOW_SEPT_VE not set)");
	if (p->has_tdx_xfam && memcmp(body + BODY_XFAM, p->tdx_xfam, 8))
		return isotier__attest_refuse(v, err, "TDX quote.xfam: not the configured value");
	if (p->has_tdx_mrseam && memcmp(body + BODY_MRSEAM, p->tdx_mrseam, 48))
		return isotier__attest_refuse(
		    v, err, "TDX quote.mrseam: not the configured TDX module's measurement");
	for (int i = 0; i < 4; i++)
		if (p->has_tdx_rtmr[i] && memcmp(body + BODY_RTMR + 48 * i, p->tdx_rtmr[i], 48))
			return isotier__attest_refuse(
			    v, err, "TDX quote.rtmr%d: not the configured value", i);
	return 0;
}

/* The OID of an SGX extension element: 1.2.840.113741.1.13.1.<n>. */
static int sgx_element(const ASN1_TYPE *t)
{
	if (!t || t->type != V_ASN1_SEQUENCE)
		return -1;
	const unsigned char *p = t->value.sequence->data;
	STACK_OF(ASN1_TYPE) *pair = d2i_ASN1_SEQUENCE_ANY(NULL, &p, t->value.sequence->length);
	int n = -1;
	char txt[64];
	ASN1_TYPE *first = pair && sk_ASN1_TYPE_num(pair) == 2 ? sk_ASN1_TYPE_value(pair, 0) : NULL;
	if (first && first->type == V_ASN1_OBJECT &&
	    OBJ_obj2txt(txt, sizeof txt, first->value.object, 1) > 0 &&
	    !strncmp(txt, "1.2.840.113741.1.13.1.", 22))
		sscanf(txt + 22, "%d", &n);
	sk_ASN1_TYPE_pop_free(pair, ASN1_TYPE_free);
	return n;
}

const char *isotier__attest_tdx_pck_check(const struct x509_st *leaf_c)
{
	X509 *leaf = (X509 *)leaf_c; /* X509_check_ca caches extensions */
	if (X509_check_ca(leaf) != 0)
		return "TDX quote.pck_chain: its first certificate is a CA, not a PCK certificate";
	ASN1_OBJECT *oid = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
	int at = oid ? X509_get_ext_by_OBJ(leaf, oid, -1) : -1;
	ASN1_OBJECT_free(oid);
	if (at < 0)
		return "TDX quote.pck_chain: its leaf has no Intel SGX extension "
		       "(1.2.840.113741.1.13.1): not a PCK certificate";
	const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(X509_get_ext(leaf, at));
	const unsigned char *p = ASN1_STRING_get0_data(data);
	STACK_OF(ASN1_TYPE) *seq = d2i_ASN1_SEQUENCE_ANY(NULL, &p, ASN1_STRING_length(data));
	bool seen[5] = {false};
	for (int i = 0; seq && i < sk_ASN1_TYPE_num(seq); i++) {
		int n = sgx_element(sk_ASN1_TYPE_value(seq, i));
		if (n >= 1 && n <= 4)
			seen[n] = true;
	}
	sk_ASN1_TYPE_pop_free(seq, ASN1_TYPE_free);
	if (!seen[1] || !seen[2] || !seen[3] || !seen[4])
		return "TDX quote.pck_chain: the leaf's SGX extension lacks PPID, TCB, PCE-ID or "
		       "FMSPC: not a PCK certificate";
	return NULL;
}
