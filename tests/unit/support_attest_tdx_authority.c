/* SPDX-License-Identifier: Apache-2.0 */
/* support_attest_tdx_authority.c - the TDX test authority (attest_authority.h):
 * an SGX root, a PCK Platform CA and a PCK, and quotes v4 (Intel TDX DCAP
 * Quoting Library API, "Quote Format") they sign. Test fixtures only. */
#include "attest_authority.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct test_tdx_authority {
	EVP_PKEY *root_key, *ca_key, *pck_key, *ak, *tcb_key;
	X509 *root, *ca, *pck, *tcb_signer;
};

static void die(const char *what)
{
	fprintf(stderr, "tdx test authority: %s failed\n", what);
	abort();
}

static void ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!e || X509_add_ext(x, e, -1) != 1)
		die("extension");
	X509_EXTENSION_free(e);
}

/* Intel's SGX extension (1.2.840.113741.1.13.1): a SEQUENCE of (OID, value)
 * for the PPID (.1), the TCB (.2: a SEQUENCE of 16 SGX component SVNs
 * .2.1-.2.16, the PCESVN .2.17, the CPUSVN .2.18), PCE-ID (.3, 0000) and
 * FMSPC (.4, 00906ED50000). Every SGX SVN is 4, the PCESVN 11. */
static size_t der_elem(uint8_t *out, const char *oid, const uint8_t *val, size_t vlen)
{
	ASN1_OBJECT *o = OBJ_txt2obj(oid, 1);
	unsigned char *od = NULL;
	int on = o ? i2d_ASN1_OBJECT(o, &od) : -1;
	if (on <= 0 || (size_t)on + vlen > 127)
		die("sgx elem");
	out[0] = 0x30;
	out[1] = (uint8_t)((size_t)on + vlen);
	memcpy(out + 2, od, (size_t)on);
	memcpy(out + 2 + on, val, vlen);
	OPENSSL_free(od);
	ASN1_OBJECT_free(o);
	return 2 + (size_t)on + vlen;
}

static void add_sgx_ext(X509 *x)
{
	uint8_t tcb[1200], der[1400], v[32];
	size_t tn = 4, n = 4; /* 30 82 LL LL */
	char oid[64];
	for (int k = 1; k <= 18; k++) {
		snprintf(oid, sizeof oid, "1.2.840.113741.1.13.1.2.%d", k);
		size_t vl;
		if (k <= 16)
			v[0] = 0x02, v[1] = 1, v[2] = 4, vl = 3;
		else if (k == 17)
			v[0] = 0x02, v[1] = 1, v[2] = 11, vl = 3;
		else
			v[0] = 0x04, v[1] = 16, memset(v + 2, 4, 16), vl = 18;
		tn += der_elem(tcb + tn, oid, v, vl);
	}
	tcb[0] = 0x30, tcb[1] = 0x82, tcb[2] = (uint8_t)((tn - 4) >> 8), tcb[3] = (uint8_t)(tn - 4);
	static const uint8_t ppid[18] = {0x04, 16, 0x11}, pceid[4] = {0x04, 2, 0, 0},
	                     fmspc[8] = {0x04, 6, 0x00, 0x90, 0x6E, 0xD5, 0x00, 0x00};
	n += der_elem(der + n, "1.2.840.113741.1.13.1.1", ppid, sizeof ppid);
	/* The TCB element is longer than 127: written by hand. */
	ASN1_OBJECT *o = OBJ_txt2obj("1.2.840.113741.1.13.1.2", 1);
	unsigned char *od = NULL;
	int on = i2d_ASN1_OBJECT(o, &od);
	size_t body = (size_t)on + tn;
	der[n] = 0x30, der[n + 1] = 0x82, der[n + 2] = (uint8_t)(body >> 8);
	der[n + 3] = (uint8_t)body;
	memcpy(der + n + 4, od, (size_t)on);
	memcpy(der + n + 4 + on, tcb, tn);
	n += 4 + body;
	OPENSSL_free(od);
	ASN1_OBJECT_free(o);
	n += der_elem(der + n, "1.2.840.113741.1.13.1.3", pceid, sizeof pceid);
	n += der_elem(der + n, "1.2.840.113741.1.13.1.4", fmspc, sizeof fmspc);
	der[0] = 0x30, der[1] = 0x82, der[2] = (uint8_t)((n - 4) >> 8), der[3] = (uint8_t)(n - 4);
	ASN1_OBJECT *e_oid = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
	ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
	if (!e_oid || !os || ASN1_OCTET_STRING_set(os, der, (int)n) != 1)
		die("sgx ext");
	X509_EXTENSION *e = X509_EXTENSION_create_by_OBJ(NULL, e_oid, 0, os);
	if (!e || X509_add_ext(x, e, -1) != 1)
		die("sgx ext add");
	X509_EXTENSION_free(e);
	ASN1_OCTET_STRING_free(os);
	ASN1_OBJECT_free(e_oid);
}

static X509 *cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, bool ca,
                  long serial, bool sgx)
{
	X509 *x = X509_new();
	X509_NAME *name = X509_NAME_new();
	if (!x || !name || X509_set_version(x, 2) != 1 ||
	    ASN1_INTEGER_set(X509_get_serialNumber(x), serial) != 1 ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
	                               0) != 1 ||
	    X509_set_subject_name(x, name) != 1 ||
	    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name) != 1 ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -86400) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 86400L * 365) || X509_set_pubkey(x, key) != 1)
		die("certificate");
	X509_NAME_free(name);
	ext(x, issuer ? issuer : x, NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE");
	ext(x, issuer ? issuer : x, NID_key_usage,
	    ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
	if (sgx)
		add_sgx_ext(x);
	if (X509_sign(x, issuer_key, EVP_sha256()) <= 0)
		die("sign");
	return x;
}

test_tdx_authority *test_tdx_authority_new(const char *roots_dir, bool pck_is_ca)
{
	test_tdx_authority *ta = calloc(1, sizeof *ta);
	if (!ta)
		die("calloc");
	ta->root_key = EVP_EC_gen("P-256");
	ta->ca_key = EVP_EC_gen("P-256");
	ta->pck_key = EVP_EC_gen("P-256");
	ta->ak = EVP_EC_gen("P-256");
	ta->tcb_key = EVP_EC_gen("P-256");
	if (!ta->root_key || !ta->ca_key || !ta->pck_key || !ta->ak || !ta->tcb_key)
		die("keygen");
	ta->root = cert("SGX Root CA (test)", ta->root_key, NULL, ta->root_key, true, 1, false);
	ta->ca =
	    cert("SGX PCK Platform CA (test)", ta->ca_key, ta->root, ta->root_key, true, 2, false);
	ta->pck =
	    cert("SGX PCK Certificate (test)", ta->pck_key, ta->ca, ta->ca_key, pck_is_ca, 3, true);
	ta->tcb_signer =
	    cert("SGX TCB Signing (test)", ta->tcb_key, ta->root, ta->root_key, false, 6, false);
	if (roots_dir) {
		char path[4096];
		snprintf(path, sizeof path, "%s/intel_sgx_root_ca.pem", roots_dir);
		FILE *f = fopen(path, "w");
		if (!f || PEM_write_X509(f, ta->root) != 1)
			die("write root");
		fclose(f);
	}
	return ta;
}

void test_tdx_authority_free(test_tdx_authority *ta)
{
	if (!ta)
		return;
	EVP_PKEY_free(ta->root_key);
	EVP_PKEY_free(ta->ca_key);
	EVP_PKEY_free(ta->pck_key);
	EVP_PKEY_free(ta->ak);
	EVP_PKEY_free(ta->tcb_key);
	X509_free(ta->tcb_signer);
	X509_free(ta->root);
	X509_free(ta->ca);
	X509_free(ta->pck);
	free(ta);
}

/* ECDSA-SHA256 by key over data as r||s (big-endian, 32 bytes each). */
static void sign_rs(EVP_PKEY *key, const uint8_t *data, size_t len, uint8_t out[64])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char der[80];
	size_t der_len = sizeof der;
	if (!md || EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) != 1 ||
	    EVP_DigestSign(md, der, &der_len, data, len) != 1)
		die("sign");
	EVP_MD_CTX_free(md);
	const unsigned char *p = der;
	ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	if (!sig || BN_bn2binpad(ECDSA_SIG_get0_r(sig), out, 32) != 32 ||
	    BN_bn2binpad(ECDSA_SIG_get0_s(sig), out + 32, 32) != 32)
		die("r/s");
	ECDSA_SIG_free(sig);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint8_t *test_tdx_authority_quote(test_tdx_authority *ta, const test_tdx_fields *f, size_t *len)
{
	static const uint8_t vendor[16] = {0x93, 0x9a, 0x72, 0x33, 0xf7, 0x9c, 0x4c, 0xa9,
	                                   0x94, 0x0a, 0x0d, 0xb3, 0x95, 0x7f, 0x06, 0x07};
	static const uint8_t mrsigner[32] = {0xdc, 0x9e, 0x2a, 0x7c, 0x6f, 0x94, 0x8f, 0x17,
	                                     0x47, 0x4e, 0x34, 0xa7, 0xfc, 0x43, 0xed, 0x03,
	                                     0x0f, 0x7c, 0x15, 0x63, 0xf1, 0xba, 0xbd, 0xdf,
	                                     0x63, 0x40, 0xc8, 0x2e, 0x0e, 0x54, 0xa8, 0xc5};
	/* The PEM chain: PCK, platform CA, root. */
	BIO *b = BIO_new(BIO_s_mem());
	if (!b || PEM_write_bio_X509(b, ta->pck) != 1 || PEM_write_bio_X509(b, ta->ca) != 1 ||
	    PEM_write_bio_X509(b, ta->root) != 1)
		die("chain");
	char *chain = NULL;
	long chain_len = BIO_get_mem_data(b, &chain);
	size_t auth_len = 32;
	size_t cd_len = 384 + 64 + 2 + auth_len + 6 + (size_t)chain_len;
	size_t sig_len = 128 + 6 + cd_len;
	size_t total = 48 + 584 + 4 + sig_len;
	uint8_t *q = calloc(1, total);
	if (!q)
		die("calloc");
	put_le(q, 4, 2);
	put_le(q + 2, 2, 2);
	put_le(q + 4, 0x81, 4);
	memcpy(q + 12, vendor, 16);
	uint8_t *body = q + 48;
	body[0] = 3; /* TEE TCB SVN */
	put_le(body + 120, f->td_attributes ? f->td_attributes : 1ull << 28, 8);
	memcpy(body + 128, f->xfam, 8);
	memset(body + 136, 0xcd, 48); /* MRTD */
	memcpy(body + 520, f->report_data, 64);
	put_le(q + 632, sig_len, 4);
	uint8_t *s = q + 636;
	/* The attestation key's x||y. */
	uint8_t point[65];
	size_t plen = 0;
	if (EVP_PKEY_get_octet_string_param(ta->ak, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point,
	                                    &plen) != 1 ||
	    plen != 65)
		die("ak point");
	memcpy(s + 64, point + 1, 64);
	sign_rs(ta->ak, q, 48 + 584, s);
	s += 128;
	put_le(s, 6, 2);
	put_le(s + 2, cd_len, 4);
	s += 6;
	uint8_t *qe = s;
	qe[48] = 0x11; /* ATTRIBUTES: INIT, PROVISIONKEY */
	memcpy(qe + 128, mrsigner, 32);
	put_le(qe + 256, f->qe_isvprodid ? f->qe_isvprodid : 2, 2);
	put_le(qe + 258, f->qe_isvsvn ? f->qe_isvsvn : 4, 2);
	uint8_t *auth = qe + 384 + 64 + 2;
	memset(auth, 0x42, auth_len);
	unsigned n = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (!md || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(md, point + 1, 64) != 1 || EVP_DigestUpdate(md, auth, auth_len) != 1 ||
	    EVP_DigestFinal_ex(md, qe + 320, &n) != 1)
		die("qe commitment");
	EVP_MD_CTX_free(md);
	sign_rs(ta->pck_key, qe, 384, qe + 384);
	put_le(qe + 384 + 64, auth_len, 2);
	uint8_t *inner = auth + auth_len;
	put_le(inner, 5, 2);
	put_le(inner + 2, (uint64_t)chain_len, 4);
	memcpy(inner + 6, chain, (size_t)chain_len);
	BIO_free(b);
	*len = total;
	return q;
}

static void write_crl(const char *path, X509 *issuer, EVP_PKEY *key, X509 *revoked, long days)
{
	X509_CRL *c = X509_CRL_new();
	ASN1_TIME *last = X509_gmtime_adj(NULL, -86400 + (days < 0 ? days * 86400 : 0));
	ASN1_TIME *next = X509_gmtime_adj(NULL, days * 86400);
	if (!c || !last || !next || X509_CRL_set_version(c, 1) != 1 ||
	    X509_CRL_set_issuer_name(c, X509_get_subject_name(issuer)) != 1 ||
	    X509_CRL_set1_lastUpdate(c, last) != 1 || X509_CRL_set1_nextUpdate(c, next) != 1)
		die("crl");
	if (revoked) {
		X509_REVOKED *r = X509_REVOKED_new();
		if (!r || X509_REVOKED_set_serialNumber(r, X509_get_serialNumber(revoked)) != 1 ||
		    X509_REVOKED_set_revocationDate(r, last) != 1 ||
		    X509_CRL_add0_revoked(c, r) != 1)
			die("revoked");
	}
	if (X509_CRL_sort(c) != 1 || X509_CRL_sign(c, key, EVP_sha256()) <= 0)
		die("crl sign");
	FILE *f = fopen(path, "w");
	if (!f || PEM_write_X509_CRL(f, c) != 1)
		die("crl write");
	fclose(f);
	ASN1_TIME_free(last);
	ASN1_TIME_free(next);
	X509_CRL_free(c);
}

void test_tdx_authority_crls(test_tdx_authority *ta, const char *dir, bool revoke,
                             long next_update_days)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/pck_crl.pem", dir);
	write_crl(path, ta->ca, ta->ca_key, revoke ? ta->pck : NULL, next_update_days);
	snprintf(path, sizeof path, "%s/root_crl.pem", dir);
	write_crl(path, ta->root, ta->root_key, NULL, next_update_days);
}

/* dir/file as Intel serves it: {"<member>":body,"signature":"<r||s hex>"},
 * the body signed by key; and dir/tcb_signing_chain.pem (the TCB signer's). */
static void write_signed(test_tdx_authority *ta, const char *dir, const char *file,
                         const char *member, const char *body, EVP_PKEY *key)
{
	uint8_t rs[64];
	sign_rs(key, (const uint8_t *)body, strlen(body), rs);
	char path[4096], hex[129];
	for (int i = 0; i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", rs[i]);
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (!f || fprintf(f, "{\"%s\":%s,\"signature\":\"%s\"}", member, body, hex) < 0)
		die("collateral write");
	fclose(f);
	snprintf(path, sizeof path, "%s/tcb_signing_chain.pem", dir);
	f = fopen(path, "w");
	if (!f || PEM_write_X509(f, ta->tcb_signer) != 1 || PEM_write_X509(f, ta->root) != 1)
		die("tcb chain write");
	fclose(f);
}

void test_tdx_authority_tcb_info(test_tdx_authority *ta, const char *dir, const char *status,
                                 long next_update_days)
{
	/* One level at the PCK's SVNs (SGX 4, PCESVN 11) and the quote's TEE
	 * TCB SVN (3, 0, 0...), with status; below it an OutOfDate one. */
	char comps[2][400], *t = NULL;
	for (int k = 0; k < 2; k++) {
		size_t n = 0;
		for (int i = 0; i < 16; i++)
			n += (size_t)snprintf(comps[k] + n, sizeof comps[k] - n, "%s{\"svn\":%d}",
			                      i ? "," : "",
			                      k == 0   ? 4
			                      : i == 0 ? 3
			                               : 0);
	}
	time_t now = time(NULL), next = now + next_update_days * 86400, issued = now - 86400;
	char a[32], b[32];
	strftime(a, sizeof a, "%Y-%m-%dT%H:%M:%SZ", gmtime(&issued));
	strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", gmtime(&next));
	if (asprintf(&t,
	             "{\"id\":\"TDX\",\"version\":3,\"issueDate\":\"%s\",\"nextUpdate\":\"%s\","
	             "\"fmspc\":\"00906ED50000\",\"pceId\":\"0000\",\"tcbType\":0,"
	             "\"tcbLevels\":[{\"tcb\":{\"sgxtcbcomponents\":[%s],\"pcesvn\":11,"
	             "\"tdxtcbcomponents\":[%s]},\"tcbStatus\":\"%s\"},"
	             "{\"tcb\":{\"sgxtcbcomponents\":[%s],\"pcesvn\":5,"
	             "\"tdxtcbcomponents\":[%s]},\"tcbStatus\":\"OutOfDate\"}]}",
	             a, b, comps[0], comps[1], status, comps[0], comps[1]) < 0)
		die("tcb info");
	write_signed(ta, dir, "tcb_info.json", "tcbInfo", t, ta->tcb_key);
	free(t);
}

void test_tdx_authority_qe_identity(test_tdx_authority *ta, const char *dir,
                                    const test_qe_identity *q)
{
	time_t now = time(NULL), next = now + q->next_update_days * 86400, issued = now - 86400;
	char a[32], b[32], *t = NULL;
	strftime(a, sizeof a, "%Y-%m-%dT%H:%M:%SZ", gmtime(&issued));
	strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", gmtime(&next));
	if (asprintf(&t,
	             "{\"id\":\"TD_QE\",\"version\":2,\"issueDate\":\"%s\",\"nextUpdate\":\"%s\","
	             "\"tcbEvaluationDataNumber\":17,\"miscselect\":\"00000000\","
	             "\"miscselectMask\":\"FFFFFFFF\","
	             "\"attributes\":\"11000000000000000000000000000000\","
	             "\"attributesMask\":\"FBFFFFFFFFFFFFFF0000000000000000\","
	             "\"mrsigner\":\"%s\",\"isvprodid\":%d,\"tcbLevels\":["
	             "{\"tcb\":{\"isvsvn\":4},\"tcbDate\":\"2024-03-13T00:00:00Z\","
	             "\"tcbStatus\":\"%s\"},"
	             "{\"tcb\":{\"isvsvn\":2},\"tcbDate\":\"2023-08-09T00:00:00Z\","
	             "\"tcbStatus\":\"OutOfDate\"},"
	             "{\"tcb\":{\"isvsvn\":1},\"tcbDate\":\"2023-02-15T00:00:00Z\","
	             "\"tcbStatus\":\"Revoked\"}]}",
	             a, b,
	             q->mrsigner
	                 ? q->mrsigner
	                 : "DC9E2A7C6F948F17474E34A7FC43ED030F7C1563F1BABDDF6340C82E0E54A8C5",
	             q->isvprodid ? q->isvprodid : 2, q->status ? q->status : "UpToDate") < 0)
		die("qe identity");
	EVP_PKEY *forger = q->forged ? EVP_EC_gen("P-256") : NULL;
	write_signed(ta, dir, "qe_identity.json", "enclaveIdentity", t,
	             forger ? forger : ta->tcb_key);
	EVP_PKEY_free(forger);
	free(t);
}

void test_tdx_authority_sign_collateral(test_tdx_authority *ta, const char *dir, const char *file,
                                        const char *member, const char *body)
{
	write_signed(ta, dir, file, member, body, ta->tcb_key);
}
