/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_tdx_tcb.c - a TDX platform's TCB status from Intel's TCB info,
 * offline (attest.h): the operator's collateral directory holds tcb_info.json
 * (Intel PCS /tdx/certification/v4/tcb?fmspc=..., the body as served) and
 * tcb_signing_chain.pem (its TCB-Info-Issuer-Chain header). The TCB info's
 * signature by Intel's TCB signing key (chained to the pinned root), its
 * dates, FMSPC and PCE-ID are checked, then its TCB levels are matched as
 * Intel's algorithm says (go-tdx-guest testing/testdata/README.md and
 * verify.getMatchingTdxTcbLevel): the first level whose SGX components and
 * PCESVN the PCK certificate's reach and whose TDX components the TD
 * report's TEE_TCB_SVN reaches (from index 2 when TEE_TCB_SVN[1] > 0, the
 * TDX module then judged by its identity's levels), with TEE_TCB_SVN[1]
 * equal to the level's. UpToDate and SWHardeningNeeded are accepted; any
 * other status, no level, or collateral out of date is refused.
 */
#include "attest.h"

#include <cjson/cJSON.h>
#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* What the PCK certificate's SGX extension says about the platform. */
struct pck_tcb {
	uint8_t comp[16];
	unsigned pcesvn;
	uint8_t fmspc[6], pceid[2];
	bool has_fmspc, has_pceid, has_tcb;
};

static int sgx_oid_tail(const ASN1_TYPE *t, const char *prefix, ASN1_TYPE **value)
{
	if (!t || t->type != V_ASN1_SEQUENCE)
		return -1;
	const unsigned char *p = t->value.sequence->data;
	STACK_OF(ASN1_TYPE) *pair = d2i_ASN1_SEQUENCE_ANY(NULL, &p, t->value.sequence->length);
	int n = -1;
	char txt[80];
	size_t plen = strlen(prefix);
	ASN1_TYPE *first = pair && sk_ASN1_TYPE_num(pair) == 2 ? sk_ASN1_TYPE_value(pair, 0) : NULL;
	if (first && first->type == V_ASN1_OBJECT &&
	    OBJ_obj2txt(txt, sizeof txt, first->value.object, 1) > 0 &&
	    !strncmp(txt, prefix, plen) && sscanf(txt + plen, "%d", &n) == 1) {
		*value = sk_ASN1_TYPE_value(pair, 1);
		sk_ASN1_TYPE_set(pair, 1, NULL); /* the caller's now */
	} else {
		n = -1;
	}
	sk_ASN1_TYPE_pop_free(pair, ASN1_TYPE_free);
	return n;
}

static bool read_pck_tcb(struct pck_tcb *out, X509 *pck)
{
	memset(out, 0, sizeof *out);
	ASN1_OBJECT *oid = OBJ_txt2obj("1.2.840.113741.1.13.1", 1);
	int at = oid ? X509_get_ext_by_OBJ(pck, oid, -1) : -1;
	ASN1_OBJECT_free(oid);
	if (at < 0)
		return false;
	const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(X509_get_ext(pck, at));
	const unsigned char *p = ASN1_STRING_get0_data(data);
	STACK_OF(ASN1_TYPE) *seq = d2i_ASN1_SEQUENCE_ANY(NULL, &p, ASN1_STRING_length(data));
	for (int i = 0; seq && i < sk_ASN1_TYPE_num(seq); i++) {
		ASN1_TYPE *v = NULL;
		int n = sgx_oid_tail(sk_ASN1_TYPE_value(seq, i), "1.2.840.113741.1.13.1.", &v);
		if (n == 4 && v && v->type == V_ASN1_OCTET_STRING &&
		    v->value.octet_string->length == 6) {
			memcpy(out->fmspc, v->value.octet_string->data, 6);
			out->has_fmspc = true;
		} else if (n == 3 && v && v->type == V_ASN1_OCTET_STRING &&
		           v->value.octet_string->length == 2) {
			memcpy(out->pceid, v->value.octet_string->data, 2);
			out->has_pceid = true;
		} else if (n == 2 && v && v->type == V_ASN1_SEQUENCE) {
			const unsigned char *q = v->value.sequence->data;
			STACK_OF(ASN1_TYPE) *tcb =
			    d2i_ASN1_SEQUENCE_ANY(NULL, &q, v->value.sequence->length);
			int seen = 0;
			for (int k = 0; tcb && k < sk_ASN1_TYPE_num(tcb); k++) {
				ASN1_TYPE *c = NULL;
				int m = sgx_oid_tail(sk_ASN1_TYPE_value(tcb, k),
				                     "1.2.840.113741.1.13.1.2.", &c);
				long val = c && c->type == V_ASN1_INTEGER
				               ? ASN1_INTEGER_get(c->value.integer)
				               : -1;
				if (m >= 1 && m <= 16 && val >= 0 && val <= 255)
					out->comp[m - 1] = (uint8_t)val, seen++;
				else if (m == 17 && val >= 0 && val <= 65535)
					out->pcesvn = (unsigned)val, seen++;
				ASN1_TYPE_free(c);
			}
			sk_ASN1_TYPE_pop_free(tcb, ASN1_TYPE_free);
			out->has_tcb = seen == 17;
		}
		ASN1_TYPE_free(v);
	}
	sk_ASN1_TYPE_pop_free(seq, ASN1_TYPE_free);
	return out->has_fmspc && out->has_pceid && out->has_tcb;
}

/* The raw text of the top-level member `key`'s object value in json (what
 * Intel signed), or NULL. */
static const char *raw_member(const char *json, size_t len, const char *key, size_t *out_len)
{
	char pat[40];
	snprintf(pat, sizeof pat, "{\"%s\":", key);
	size_t pl = strlen(pat);
	if (len < pl || memcmp(json, pat, pl) || json[pl] != '{')
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

static bool hex_bytes(uint8_t *out, size_t n, const char *hex)
{
	if (!hex || strlen(hex) != 2 * n)
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
	if (!hex_bytes(rs, 64, hex))
		return false;
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
	bool ok = der_len > 0 && md &&
	          EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, X509_get0_pubkey(by)) == 1 &&
	          EVP_DigestVerify(md, der, (size_t)der_len, (const uint8_t *)raw, len) == 1;
	EVP_MD_CTX_free(md);
	OPENSSL_free(der);
	return ok;
}

/* The statuses, best first; the index orders them. */
static const char *const statuses[] = {"UpToDate",
                                       "SWHardeningNeeded",
                                       "ConfigurationNeeded",
                                       "ConfigurationAndSWHardeningNeeded",
                                       "OutOfDate",
                                       "OutOfDateConfigurationNeeded",
                                       "Revoked"};

static int status_rank(const cJSON *s)
{
	for (size_t i = 0; cJSON_IsString(s) && i < sizeof statuses / sizeof *statuses; i++)
		if (!strcmp(s->valuestring, statuses[i]))
			return (int)i;
	return -1;
}

/* Every component's svn in arr (16 of them, from index `from`) at most have's. */
static bool comps_le(const cJSON *arr, const uint8_t *have, int from)
{
	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != 16)
		return false;
	for (int i = from; i < 16; i++) {
		const cJSON *svn =
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, i), "svn");
		if (!cJSON_IsNumber(svn) || svn->valuedouble > have[i])
			return false;
	}
	return true;
}

/* The status of the matching level, or -1 with why. */
static int match_level(const cJSON *info, const struct pck_tcb *pck, const uint8_t *tee, char *why,
                       size_t whylen)
{
	const cJSON *levels = cJSON_GetObjectItemCaseSensitive(info, "tcbLevels"), *lv;
	int from = tee[1] > 0 ? 2 : 0;
	cJSON_ArrayForEach(lv, levels)
	{
		const cJSON *tcb = cJSON_GetObjectItemCaseSensitive(lv, "tcb");
		const cJSON *pcesvn = cJSON_GetObjectItemCaseSensitive(tcb, "pcesvn");
		const cJSON *tdx = cJSON_GetObjectItemCaseSensitive(tcb, "tdxtcbcomponents");
		if (!comps_le(cJSON_GetObjectItemCaseSensitive(tcb, "sgxtcbcomponents"), pck->comp,
		              0) ||
		    !cJSON_IsNumber(pcesvn) || pcesvn->valuedouble > pck->pcesvn ||
		    !comps_le(tdx, tee, from))
			continue;
		const cJSON *s1 =
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(tdx, 1), "svn");
		if (!cJSON_IsNumber(s1) || (int)s1->valuedouble != tee[1]) {
			snprintf(
			    why, whylen,
			    "TDX collateral: the matching TCB level's TDX module version is not "
			    "the TD report's: this TCB info does not cover the platform");
			return -1;
		}
		int rank = status_rank(cJSON_GetObjectItemCaseSensitive(lv, "tcbStatus"));
		if (rank < 0)
			snprintf(why, whylen,
			         "TDX collateral: a TCB level with an unknown tcbStatus");
		return rank;
	}
	snprintf(why, whylen,
	         "TDX collateral: no TCB level of the TCB info matches the PCK's and the TD "
	         "report's SVNs: the platform's TCB is not supported");
	return -1;
}

/* TEE_TCB_SVN[1] > 0: the TDX module judged by its identity's levels. */
static int module_level(const cJSON *info, const uint8_t *tee, char *why, size_t whylen)
{
	char id[16];
	snprintf(id, sizeof id, "TDX_%02X", tee[1]);
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(info, "tdxModuleIdentities"), *m, *lv;
	cJSON_ArrayForEach(m, ids)
	{
		const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
		if (!cJSON_IsString(mid) || strcmp(mid->valuestring, id))
			continue;
		cJSON_ArrayForEach(lv, cJSON_GetObjectItemCaseSensitive(m, "tcbLevels"))
		{
			const cJSON *isv = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(lv, "tcb"), "isvsvn");
			if (cJSON_IsNumber(isv) && isv->valuedouble <= tee[0])
				return status_rank(
				    cJSON_GetObjectItemCaseSensitive(lv, "tcbStatus"));
		}
	}
	snprintf(why, whylen, "TDX collateral: no TDX module identity level (%s) matches", id);
	return -1;
}

int attest_tdx_tcb_status(char *status, size_t status_len, const struct x509_st *pck_c,
                          const uint8_t *body, const char *dir, const char *roots, time_t now,
                          char *why, size_t whylen)
{
	X509 *pck = (X509 *)pck_c;
	char path[4096];
	snprintf(path, sizeof path, "%s/tcb_info.json", dir);
	cleanup_free char *json = NULL;
	size_t len = 0;
	isotier_error e = {0};
	if (isotier__read_file(&json, &len, path, 1 << 20, &e) < 0) {
		snprintf(status, status_len, "not evaluated (no tcb_info.json in the collateral)");
		return 0;
	}
	struct pck_tcb pt;
	if (!read_pck_tcb(&pt, pck)) {
		snprintf(why, whylen,
		         "TDX quote.pck_chain: the PCK's SGX extension has no TCB, "
		         "PCE-ID or FMSPC to evaluate");
		return -1;
	}
	size_t raw_len = 0;
	const char *raw = raw_member(json, len, "tcbInfo", &raw_len);
	cJSON *doc = raw ? isotier__json_parse(json, len, "tcb_info.json", &e) : NULL;
	const cJSON *info = cJSON_GetObjectItemCaseSensitive(doc, "tcbInfo");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(doc, "signature");
	X509 *by = doc ? signer(dir, roots, now) : NULL;
	int rc = -1;
	uint8_t fmspc[6], pceid[2];
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(info, "id");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(info, "version");
	time_t issued = iso_time(cJSON_GetObjectItemCaseSensitive(info, "issueDate"));
	time_t next = iso_time(cJSON_GetObjectItemCaseSensitive(info, "nextUpdate"));
	if (!raw || !cJSON_IsObject(info) || !cJSON_IsString(sig))
		snprintf(why, whylen,
		         "TDX collateral: tcb_info.json is not Intel's {\"tcbInfo\":..., "
		         "\"signature\":...}");
	else if (!by)
		snprintf(why, whylen,
		         "TDX collateral: tcb_signing_chain.pem missing or not chained "
		         "to the pinned Intel SGX Root CA");
	else if (!sig_ok(by, raw, raw_len, sig->valuestring))
		snprintf(why, whylen,
		         "TDX collateral: tcb_info.json's signature is not Intel's TCB "
		         "signing key's");
	else if (!cJSON_IsString(id) || strcmp(id->valuestring, "TDX") || !cJSON_IsNumber(ver) ||
	         ver->valuedouble != 3)
		snprintf(why, whylen,
		         "TDX collateral: tcb_info.json is not TDX TCB info version 3");
	else if (issued < 0 || next < 0 || now < issued || now >= next)
		snprintf(why, whylen,
		         "TDX collateral: tcb_info.json is out of date (issued %.20s, "
		         "next update %.20s)",
		         cJSON_GetObjectItemCaseSensitive(info, "issueDate")->valuestring,
		         cJSON_GetObjectItemCaseSensitive(info, "nextUpdate")->valuestring);
	else if (!hex_bytes(
	             fmspc, 6,
	             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "fmspc"))) ||
	         memcmp(fmspc, pt.fmspc, 6) ||
	         !hex_bytes(
	             pceid, 2,
	             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "pceId"))) ||
	         memcmp(pceid, pt.pceid, 2))
		snprintf(why, whylen,
		         "TDX collateral: tcb_info.json is for another platform (FMSPC "
		         "or PCE-ID not the PCK's)");
	else
		rc = 0;
	int rank = rc == 0 ? match_level(info, &pt, body, why, whylen) : -1;
	if (rank >= 0 && body[1] > 0) {
		int mod = module_level(info, body, why, whylen);
		rank = mod < 0 ? -1 : mod > rank ? mod : rank;
	}
	if (rank >= 0)
		snprintf(status, status_len, "%s", statuses[rank]);
	X509_free(by);
	cJSON_Delete(doc);
	if (rank < 0)
		return -1;
	/* UpToDate and SWHardeningNeeded only (Intel's QVL calls the rest
	 * non-terminal or terminal; a platform behind is not attested here). */
	if (rank > 1) {
		snprintf(why, whylen, "TDX collateral: the platform's TCB status is %s",
		         statuses[rank]);
		return -1;
	}
	return 0;
}
