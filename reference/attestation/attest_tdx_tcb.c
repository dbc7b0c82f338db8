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
 * other status, no level, or collateral out of date is refused. Reading and
 * checking the signed document is attest_tdx_collateral.c's.
 */
#include "attest.h"

#include <cjson/cJSON.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>

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

int isotier__attest_tdx_tcb_status(char *status, size_t status_len, const struct x509_st *pck_c,
                                   const uint8_t *body, const char *dir, const char *roots,
                                   time_t now, char *why, size_t whylen)
{
	X509 *pck = (X509 *)pck_c;
	cJSON *doc = NULL;
	const cJSON *info = NULL;
	int got = isotier__attest_tdx_signed_json(&doc, &info, dir, "tcb_info.json", "tcbInfo",
	                                          roots, now, why, whylen);
	if (got == 0) {
		snprintf(status, status_len, "not evaluated (no tcb_info.json in the collateral)");
		return 0;
	}
	if (got < 0)
		return -1;
	struct pck_tcb pt;
	int rc = -1;
	uint8_t fmspc[6], pceid[2];
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(info, "id");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(info, "version");
	if (!read_pck_tcb(&pt, pck))
		snprintf(why, whylen,
		         "TDX quote.pck_chain: the PCK's SGX extension has no TCB, "
		         "PCE-ID or FMSPC to evaluate");
	else if (!cJSON_IsString(id) || strcmp(id->valuestring, "TDX") || !cJSON_IsNumber(ver) ||
	         ver->valuedouble != 3)
		snprintf(why, whylen,
		         "TDX collateral: tcb_info.json is not TDX TCB info version 3");
	else if (!isotier__attest_hex_bytes(
	             fmspc, 6,
	             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(info, "fmspc"))) ||
	         memcmp(fmspc, pt.fmspc, 6) ||
	         !isotier__attest_hex_bytes(
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
