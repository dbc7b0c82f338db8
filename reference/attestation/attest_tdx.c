/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_tdx.c - Intel TDX quotes (attest.h): quotes v4 and v5 as Intel's
 * DCAP quote library writes them (v5: a body descriptor, type and size,
 * before a TD report 1.0 or 1.5) (Intel TDX DCAP Quoting Library API, "Quote
 * Format"): a 48-byte header, the 584-byte TD report body, then the ECDSA
 * signature data: the quote's signature by the attestation key, that key,
 * and its certification: the quoting enclave's (QE) report, whose report
 * data commits to the key, signed by the platform's PCK, whose certificate
 * chain (carried in the quote) ends at Intel's SGX Root CA, pinned in
 * catalogue/roots/intel_sgx_root_ca.pem.
 *
 * Checked: every length against the quote's, the QE vendor (Intel's), the
 * quote signature (ECDSA P-256, SHA-256), the QE report's commitment to the
 * attestation key, the QE's signer (Intel's), the QE report's signature by
 * the PCK, the PCK leaf being a PCK certificate (attest_tdx_check.c), the PCK
 * chain to the pinned root at the policy's time and, given an operator's
 * collateral directory, against Intel's CRLs (a revoked PCK or platform CA,
 * an expired CRL: refused) and Intel's TCB info (attest_tdx_tcb.c: the TCB
 * status) and QE identity (attest_tdx_qe.c: the quoting enclave's
 * status); the TD attributes, XFAM, MRSEAM and RTMRs (attest_tdx_check.c)
 * and the binding. The verdict says what was evaluated.
 */
#include "attest.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

#define TDX_HEADER_LEN 48
#define TDX_BODY_LEN   584
#define TDX_SIGNED_LEN (TDX_HEADER_LEN + TDX_BODY_LEN)
#define TDX_TEE_TYPE   0x81
#define TDX_MRTD_OFF   136 /* in the TD report */
#define TDX_RDATA_OFF  520
#define TDX_BODY15_LEN 648 /* quote v5's TD report 1.5: + TEE_TCB_SVN2, MRSERVICETD */
#define TDX_QE_REPORT  384
#define TDX_MAX_CHAIN  (3 * ATTEST_MAX_CERT)
/* The signer of Intel's quoting enclaves (DCAP QE3 and the TD QE). */
static const uint8_t intel_qe_mrsigner[32] = {
    0xdc, 0x9e, 0x2a, 0x7c, 0x6f, 0x94, 0x8f, 0x17, 0x47, 0x4e, 0x34, 0xa7, 0xfc, 0x43, 0xed, 0x03,
    0x0f, 0x7c, 0x15, 0x63, 0xf1, 0xba, 0xbd, 0xdf, 0x63, 0x40, 0xc8, 0x2e, 0x0e, 0x54, 0xa8, 0xc5};

/* The quote header's QE vendor id: Intel's quoting enclave. */
static const uint8_t intel_qe_vendor[16] = {0x93, 0x9a, 0x72, 0x33, 0xf7, 0x9c, 0x4c, 0xa9,
                                            0x94, 0x0a, 0x0d, 0xb3, 0x95, 0x7f, 0x06, 0x07};

static unsigned le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16;
}

static int refuse(attest_verdict *v, isotier_error *err, const char *what)
{
	snprintf(v->detail, sizeof v->detail, "%.390s", what);
	return isotier__error_set(err, ISOTIER_EDATA, 0, "%s", what);
}

/* The parts of a quote v4, every pointer inside it. */
struct tdx_quote {
	const uint8_t *body;      /* the TD report (584 bytes, or 648 in a v5 1.5 body) */
	size_t signed_len;        /* header and body (v5: and the body's type and size) */
	const uint8_t *sig, *ak;  /* 64 bytes each: r||s, x||y */
	const uint8_t *qe_report; /* 384 bytes */
	const uint8_t *qe_sig;    /* 64 bytes */
	const uint8_t *auth;      /* auth_len bytes */
	size_t auth_len;
	const uint8_t *chain; /* PEM, chain_len bytes */
	size_t chain_len;
};

static const char *tdx_split(struct tdx_quote *t, const uint8_t *q, size_t len)
{
	if (len < TDX_SIGNED_LEN + 4)
		return "TDX quote: shorter than a v4 header and TD report";
	unsigned version = le16(q);
	if (version != 4 && version != 5)
		return "TDX quote.header.version: not 4 or 5";
	if (le16(q + 2) != 2)
		return "TDX quote.header.att_key_type: not ECDSA-256 P-256 (2)";
	if (le32(q + 4) != TDX_TEE_TYPE)
		return "TDX quote.header.tee_type: not TDX (0x81)";
	if (memcmp(q + 12, intel_qe_vendor, 16))
		return "TDX quote.header.qe_vendor_id: not Intel's quoting enclave";
	t->body = q + TDX_HEADER_LEN;
	t->signed_len = TDX_SIGNED_LEN;
	if (version == 5) {
		/* The body descriptor: type 2 (TD report 1.0, 584 bytes) or 3
		 * (1.5, 648 bytes), its size, then the body; all signed. */
		unsigned type = le16(q + TDX_HEADER_LEN);
		uint32_t size = le32(q + TDX_HEADER_LEN + 2);
		if (!((type == 2 && size == TDX_BODY_LEN) || (type == 3 && size == TDX_BODY15_LEN)))
			return "TDX quote v5.body: not a TD report 1.0 (type 2, 584 bytes) or 1.5 "
			       "(type 3, 648 bytes)";
		t->body = q + TDX_HEADER_LEN + 6;
		t->signed_len = TDX_HEADER_LEN + 6 + size;
		if (len < t->signed_len + 4)
			return "TDX quote v5: shorter than its header and TD report";
	}
	size_t at = t->signed_len + 4, sig_len = le32(q + t->signed_len);
	/* Bytes after the signature data are covered by nothing: ignored. */
	if (sig_len > len - at || sig_len < 64 + 64 + 6)
		return "TDX quote.signature_data_len: beyond the quote or too short";
	const uint8_t *s = q + at, *end = s + sig_len;
	t->sig = s;
	t->ak = s + 64;
	s += 128;
	if (le16(s) != 6)
		return "TDX quote.certification_data.type: not a QE report (6)";
	uint32_t cd_len = le32(s + 2);
	s += 6;
	if (cd_len > (size_t)(end - s) || cd_len < TDX_QE_REPORT + 64 + 2)
		return "TDX quote.certification_data.size: beyond the signature data";
	end = s + cd_len;
	t->qe_report = s;
	t->qe_sig = s + TDX_QE_REPORT;
	s += TDX_QE_REPORT + 64;
	t->auth_len = le16(s);
	s += 2;
	if (t->auth_len > (size_t)(end - s) || (size_t)(end - s) - t->auth_len < 6)
		return "TDX quote.qe_auth_data.size: beyond the certification data";
	t->auth = s;
	s += t->auth_len;
	if (le16(s) != 5)
		return "TDX quote.certification_data.inner type: not a PCK chain (5)";
	t->chain_len = le32(s + 2);
	s += 6;
	if (t->chain_len > (size_t)(end - s) || t->chain_len > TDX_MAX_CHAIN || !t->chain_len)
		return "TDX quote.pck_chain.size: beyond the certification data or too large";
	t->chain = s;
	return NULL;
}

/* An ECDSA P-256 public key from x||y. */
static EVP_PKEY *p256_key(const uint8_t xy[64])
{
	uint8_t point[65] = {0x04};
	memcpy(point + 1, xy, 64);
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	EVP_PKEY *key = NULL;
	if (bld && ctx &&
	    OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) &&
	    OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) &&
	    (params = OSSL_PARAM_BLD_to_param(bld)) && EVP_PKEY_fromdata_init(ctx) == 1 &&
	    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1)
		key = NULL;
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EVP_PKEY_CTX_free(ctx);
	return key;
}

/* The PCK leaf of the quote's chain, verified to the pinned Intel root at
 * `now`; NULL with *why. The chain's own copy of the root is never used. */
/* A CRL from dir/<name>.der or .pem, or NULL. */
static X509_CRL *crl_from(const char *dir, const char *name)
{
	char path[4096];
	for (int pem = 0; pem < 2; pem++) {
		cleanup_free char *data = NULL;
		size_t len = 0;
		isotier_error e = {0};
		snprintf(path, sizeof path, "%s/%s.%s", dir, name, pem ? "pem" : "der");
		if (isotier__read_file(&data, &len, path, 1 << 20, &e) < 0)
			continue;
		const unsigned char *q = (const unsigned char *)data;
		X509_CRL *c = d2i_X509_CRL(NULL, &q, (long)len);
		if (!c) {
			BIO *b = BIO_new_mem_buf(data, (int)len);
			c = b ? PEM_read_bio_X509_CRL(b, NULL, NULL, NULL) : NULL;
			BIO_free(b);
		}
		return c; /* a file that is not a CRL: NULL, refused */
	}
	return NULL;
}

/* The operator's CRLs into store (both, or none and why). */
static bool add_crls(X509_STORE *store, const char *dir, char *why, size_t whylen)
{
	static const char *const names[] = {"pck_crl", "root_crl"};
	for (size_t i = 0; i < 2; i++) {
		X509_CRL *c = crl_from(dir, names[i]);
		bool ok = c && X509_STORE_add_crl(store, c) == 1;
		X509_CRL_free(c);
		if (!ok) {
			snprintf(why, whylen,
			         "TDX collateral: %s.der or .pem missing or not a CRL in %.150s",
			         names[i], dir);
			return false;
		}
	}
	return true;
}

static X509 *pck_leaf(const struct tdx_quote *t, const char *roots, const char *collateral,
                      time_t now, char *why, size_t whylen)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/intel_sgx_root_ca.pem", roots);
	cleanup_free char *root_pem = NULL;
	size_t root_len = 0;
	isotier_error e = {0};
	BIO *rb = NULL, *cb = BIO_new_mem_buf(t->chain, (int)t->chain_len);
	X509 *root = NULL, *leaf = NULL, *x;
	STACK_OF(X509) *inter = sk_X509_new_null();
	if (isotier__read_file(&root_pem, &root_len, path, ATTEST_MAX_CERT, &e) == 0 &&
	    (rb = BIO_new_mem_buf(root_pem, (int)root_len)))
		root = PEM_read_bio_X509(rb, NULL, NULL, NULL);
	BIO_free(rb);
	/* The leaf first, then at most four intermediates. */
	while (cb && inter && (x = PEM_read_bio_X509(cb, NULL, NULL, NULL))) {
		bool kept = !leaf || (sk_X509_num(inter) < 4 && sk_X509_push(inter, x) > 0);
		if (!leaf)
			leaf = x;
		else if (!kept)
			X509_free(x);
	}
	BIO_free(cb);
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	bool ok = false;
	if (!root)
		snprintf(why, whylen, "TDX: the pinned Intel SGX Root CA is missing in %.150s",
		         roots);
	else if (!leaf)
		snprintf(why, whylen, "TDX quote.pck_chain: no certificate in it");
	else if (collateral && store && !add_crls(store, collateral, why, whylen))
		; /* why says which */
	else if (store && ctx && X509_STORE_add_cert(store, root) == 1 &&
	         X509_STORE_CTX_init(ctx, store, leaf, inter) == 1) {
		X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
		X509_VERIFY_PARAM_set_time(param, now);
		X509_VERIFY_PARAM_set_flags(
		    param,
		    X509_V_FLAG_CHECK_SS_SIGNATURE |
		        (collateral ? X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL : 0));
		ok = X509_verify_cert(ctx) == 1;
		if (!ok) {
			int code = X509_STORE_CTX_get_error(ctx);
			snprintf(why, whylen,
			         code == X509_V_ERR_CERT_REVOKED
			             ? "TDX quote.pck_chain: revoked by Intel's CRL (%s)"
			         : collateral && (code == X509_V_ERR_CRL_HAS_EXPIRED ||
			                          code == X509_V_ERR_CRL_NOT_YET_VALID ||
			                          code == X509_V_ERR_UNABLE_TO_GET_CRL ||
			                          code == X509_V_ERR_CRL_SIGNATURE_FAILURE)
			             ? "TDX collateral: the CRLs do not cover the chain: %s"
			             : "TDX quote.pck_chain: does not chain to the pinned Intel "
			               "SGX Root CA: %s",
			         X509_verify_cert_error_string(code));
		}
	} else {
		snprintf(why, whylen, "certificate store: out of memory");
	}
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	X509_free(root);
	sk_X509_pop_free(inter, X509_free);
	if (!ok) {
		X509_free(leaf);
		return NULL;
	}
	return leaf;
}

int isotier__attest_tdx_verify(attest_verdict *v, const attest_evidence *e,
                               const uint8_t expected[ATTEST_DATA_LEN], const attest_policy *p,
                               isotier_error *err)
{
	const uint8_t *q = e->outblob;
	const char *roots = p->roots_dir; /* resolved by attest_verify */
	struct tdx_quote t;
	char why[300];
	v->tech = ATTEST_TECH_TDX;
	v->certs = ATTEST_CERTS_QUOTE;
	const char *bad = tdx_split(&t, q, e->outblob_len);
	if (bad)
		return refuse(v, err, bad);
	for (size_t i = 0; i < 48; i++)
		snprintf(v->measurement + 2 * i, 3, "%02x", t.body[TDX_MRTD_OFF + i]);
	snprintf(v->tcb, sizeof v->tcb,
	         "TEE TCB SVN %02x%02x%02x%02x%02x%02x%02x%02x...; %s; TCB status and QE "
	         "identity not evaluated (no Intel collateral read)",
	         t.body[0], t.body[1], t.body[2], t.body[3], t.body[4], t.body[5], t.body[6],
	         t.body[7],
	         p->tdx_collateral_dir ? "PCK chain checked against Intel's CRLs"
	                               : "revocation not checked: no collateral");
	EVP_PKEY *ak = p256_key(t.ak);
	bool sig_ok = isotier__attest_p256_verify(ak, t.sig, q, t.signed_len);
	EVP_PKEY_free(ak);
	if (!sig_ok)
		return refuse(v, err,
		              "TDX quote.signature: not the attestation key's over the quote");
	/* The QE's report commits to the attestation key and its auth data. */
	uint8_t commit[32];
	unsigned n = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool hashed = md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
	              EVP_DigestUpdate(md, t.ak, 64) == 1 &&
	              EVP_DigestUpdate(md, t.auth, t.auth_len) == 1 &&
	              EVP_DigestFinal_ex(md, commit, &n) == 1;
	EVP_MD_CTX_free(md);
	static const uint8_t zero[32];
	if (!hashed || CRYPTO_memcmp(t.qe_report + 320, commit, 32) ||
	    memcmp(t.qe_report + 352, zero, 32))
		return refuse(v, err,
		              "TDX quote.qe_report.report_data: does not commit to the "
		              "attestation key");
	if (memcmp(t.qe_report + 128, intel_qe_mrsigner, 32))
		return refuse(v, err, "TDX quote.qe_report.mrsigner: not Intel's quoting enclave");
	X509 *leaf = pck_leaf(&t, roots, p->tdx_collateral_dir, p->now ? p->now : time(NULL), why,
	                      sizeof why);
	if (!leaf)
		return refuse(v, err, why);
	const char *not_pck = isotier__attest_tdx_pck_check(leaf);
	if (not_pck) {
		X509_free(leaf);
		return refuse(v, err, not_pck);
	}
	bool qe_ok = isotier__attest_p256_verify(X509_get0_pubkey(leaf), t.qe_sig, t.qe_report,
	                                         TDX_QE_REPORT);
	char status[80] = "not evaluated (no collateral)";
	char qe_status[80] = "not evaluated (no collateral)";
	int st = 0;
	time_t now = p->now ? p->now : time(NULL);
	if (qe_ok && p->tdx_collateral_dir)
		st = isotier__attest_tdx_tcb_status(status, sizeof status, leaf, t.body,
		                                    p->tdx_collateral_dir, roots, now, why,
		                                    sizeof why);
	if (qe_ok && p->tdx_collateral_dir && st == 0)
		st = isotier__attest_tdx_qe_status(qe_status, sizeof qe_status, t.qe_report,
		                                   p->tdx_collateral_dir, roots, now, why,
		                                   sizeof why);
	/* Intel's TCB status is the platform's and its quoting enclave's
	 * together (QVL converges the two): one without the other is not it. */
	if (st == 0 && p->tdx_collateral_dir &&
	    !strncmp(status, "not evaluated", 13) != !strncmp(qe_status, "not evaluated", 13)) {
		st = -1;
		snprintf(
		    why, sizeof why,
		    "TDX collateral: %s without %s: the platform's TCB status stands only "
		    "with its quoting enclave's (both, or neither)",
		    strncmp(status, "not evaluated", 13) ? "tcb_info.json" : "qe_identity.json",
		    strncmp(status, "not evaluated", 13) ? "qe_identity.json" : "tcb_info.json");
	}
	X509_free(leaf);
	if (!qe_ok)
		return refuse(v, err,
		              "TDX quote.qe_report_signature: not the PCK's over the QE report");
	if (st < 0)
		return refuse(v, err, why);
	/* The statuses first: what a reader needs survives any shortening. */
	snprintf(v->tcb, sizeof v->tcb,
	         "TCB status %s; QE identity %s; %s; TEE TCB SVN %02x%02x%02x%02x...", status,
	         qe_status,
	         p->tdx_collateral_dir ? "PCK chain checked against Intel's CRLs"
	                               : "revocation not checked: no collateral",
	         t.body[0], t.body[1], t.body[2], t.body[3]);
	snprintf(v->root, sizeof v->root,
	         "Intel SGX Root CA pinned in %.100s, PCK chain carried in the quote", roots);
	int rc = isotier__attest_tdx_appraise(v, t.body, p, err);
	if (rc < 0)
		return rc;
	if (CRYPTO_memcmp(t.body + TDX_RDATA_OFF, expected, ATTEST_DATA_LEN) != 0)
		return refuse(v, err,
		              "TDX quote.report_data: not this run's binding (a replayed "
		              "quote, or one over another probe output)");
	v->measurement_judged = "recorded, not judged (no reference value configured)";
	if (p->measurement) {
		bool same =
		    p->measurement_len == 48 && !memcmp(p->measurement, t.body + TDX_MRTD_OFF, 48);
		v->measurement_judged = same ? "matches the configured reference"
		                             : "differs from the configured reference";
		if (!same)
			return refuse(v, err, "TDX quote.mrtd: not the configured reference");
	}
	/* A TD report carries no per-guest id: has_guest_id stays false. */
	return 0;
}
