/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_tdx_collateral.c - Intel's signed TDX collateral, read offline
 * (attest.h): a JSON document {"<member>":{...},"signature":"<hex r||s>"}
 * as Intel PCS serves it (TCB info: tcbInfo; QE identity: enclaveIdentity),
 * whose signature covers the member's value byte for byte, by the TCB
 * signing key of the collateral directory's tcb_signing_chain.pem (Intel
 * serves the same chain as TCB-Info-Issuer-Chain and
 * SGX-Enclave-Identity-Issuer-Chain), chained to the pinned Intel SGX Root
 * CA; issued before now and not past its nextUpdate. The caller judges what
 * it says (attest_tdx_tcb.c, attest_tdx_qe.c).
 */
#include "attest.h"

#include <cjson/cJSON.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Collateral files are small (Intel's TCB info is a few kB). */
#define COLLATERAL_MAX (1 << 20)

/* The raw text of the top-level member `key`'s object value in json (what
 * Intel signed), or NULL. The member must come first, as Intel writes it. */
static const char *raw_member(const char *json, size_t len, const char *key, size_t *out_len)
{
	char pat[40];
	snprintf(pat, sizeof pat, "{\"%s\":", key);
	size_t pl = strlen(pat);
	if (len < pl + 1 || memcmp(json, pat, pl) || json[pl] != '{')
		return NULL;
	const char *s = json + pl;
	int depth = 0;
	bool str = false;
	for (const char *c = s; c < json + len; c++) {
		if (str) {
			if (*c == '\\')
				c++;
			else if (*c == '"')
				str = false;
		} else if (*c == '"') {
			str = true;
		} else if (*c == '{') {
			depth++;
		} else if (*c == '}' && --depth == 0) {
			*out_len = (size_t)(c + 1 - s);
			return s;
		}
	}
	return NULL;
}

/* ECDSA-SHA256 signature r||s (big-endian, 32 bytes each) by key over data:
 * the quote's, its QE report's and the collateral's. */
bool isotier__attest_p256_verify(EVP_PKEY *key, const uint8_t rs[64], const uint8_t *data,
                                 size_t len)
{
	ECDSA_SIG *sig = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(rs, 32, NULL), *s = BN_bin2bn(rs + 32, 32, NULL);
	unsigned char *der = NULL;
	int der_len = -1;
	if (sig && r && s && ECDSA_SIG_set0(sig, r, s) == 1) {
		r = s = NULL;
		der_len = i2d_ECDSA_SIG(sig, &der);
	}
	BN_free(r);
	BN_free(s);
	ECDSA_SIG_free(sig);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool ok = key && der_len > 0 && md &&
	          EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key) == 1 &&
	          EVP_DigestVerify(md, der, (size_t)der_len, data, len) == 1;
	EVP_MD_CTX_free(md);
	OPENSSL_free(der);
	return ok;
}

bool isotier__attest_hex_bytes(uint8_t *out, size_t n, const char *hex)
{
	if (!hex || strlen(hex) != 2 * n)
		return false;
	for (size_t i = 0; i < 2 * n; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f') ||
		      (hex[i] >= 'A' && hex[i] <= 'F')))
			return false;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (uint8_t)v;
	}
	return true;
}

/* "2023-06-18T08:42:58Z" to a time; -1 when not that form. */
static time_t iso_time(const cJSON *j)
{
	struct tm tm = {0};
	if (!cJSON_IsString(j))
		return -1;
	const char *end = strptime(j->valuestring, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return end && !*end ? timegm(&tm) : -1;
}

/* The signing chain's leaf, verified to the pinned root at now, or NULL. */
static X509 *signer(const char *dir, const char *roots, time_t now)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tcb_signing_chain.pem", dir);
	FILE *f = fopen(path, "r");
	snprintf(path, sizeof path, "%s/intel_sgx_root_ca.pem", roots);
	FILE *r = fopen(path, "r");
	X509 *leaf = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
	X509 *root = r ? PEM_read_X509(r, NULL, NULL, NULL) : NULL;
	if (f)
		fclose(f);
	if (r)
		fclose(r);
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	bool ok = leaf && root && store && ctx && X509_STORE_add_cert(store, root) == 1 &&
	          X509_STORE_CTX_init(ctx, store, leaf, NULL) == 1;
	if (ok) {
		X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), now);
		ok = X509_verify_cert(ctx) == 1;
	}
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	X509_free(root);
	if (!ok) {
		X509_free(leaf);
		return NULL;
	}
	return leaf;
}

static bool sig_ok(X509 *by, const char *raw, size_t len, const char *hex)
{
	uint8_t rs[64];
	return isotier__attest_hex_bytes(rs, 64, hex) &&
	       isotier__attest_p256_verify(X509_get0_pubkey(by), rs, (const uint8_t *)raw, len);
}

int isotier__attest_tdx_signed_json(struct cJSON **doc_out, const struct cJSON **body,
                                    const char *dir, const char *file, const char *member,
                                    const char *roots, time_t now, char *why, size_t whylen)
{
	*doc_out = NULL;
	*body = NULL;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	cleanup_free char *json = NULL;
	size_t len = 0;
	isotier_error e = {0};
	if (isotier__read_file(&json, &len, path, COLLATERAL_MAX, &e) < 0) {
		if (e.code == ISOTIER_EIO && e.sys_errno == ENOENT)
			return 0;
		snprintf(why, whylen, "TDX collateral: %s: %.200s", file, e.message);
		return -1;
	}
	size_t raw_len = 0;
	const char *raw = raw_member(json, len, member, &raw_len);
	cJSON *doc = raw ? isotier__json_parse(json, len, file, &e) : NULL;
	const cJSON *info = cJSON_GetObjectItemCaseSensitive(doc, member);
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(doc, "signature");
	X509 *by = doc ? signer(dir, roots, now) : NULL;
	time_t issued = iso_time(cJSON_GetObjectItemCaseSensitive(info, "issueDate"));
	time_t next = iso_time(cJSON_GetObjectItemCaseSensitive(info, "nextUpdate"));
	int rc = -1;
	if (!raw || !cJSON_IsObject(info) || !cJSON_IsString(sig))
		snprintf(why, whylen,
		         "TDX collateral: %s is not Intel's {\"%s\":..., \"signature\":...}", file,
		         member);
	else if (!by)
		snprintf(why, whylen,
		         "TDX collateral: tcb_signing_chain.pem missing or not chained "
		         "to the pinned Intel SGX Root CA");
	else if (!sig_ok(by, raw, raw_len, sig->valuestring))
		snprintf(why, whylen,
		         "TDX collateral: %s's signature is not Intel's TCB signing key's", file);
	else if (issued < 0 || next < 0 || now < issued || now >= next)
		snprintf(
		    why, whylen,
		    "TDX collateral: %s is out of date (issued %.20s, next update %.20s)", file,
		    issued < 0 ? "?"
		               : cJSON_GetObjectItemCaseSensitive(info, "issueDate")->valuestring,
		    next < 0 ? "?"
		             : cJSON_GetObjectItemCaseSensitive(info, "nextUpdate")->valuestring);
	else
		rc = 1;
	X509_free(by);
	if (rc < 0) {
		cJSON_Delete(doc);
		return -1;
	}
	*doc_out = doc;
	*body = info;
	return 1;
}
