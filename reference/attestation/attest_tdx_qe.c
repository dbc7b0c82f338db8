/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_tdx_qe.c - the TDX quoting enclave judged by Intel's QE identity,
 * offline (attest.h): the collateral directory's qe_identity.json (Intel PCS
 * /tdx/certification/v4/qe/identity, the body as served: {"enclaveIdentity":
 * {...}, "signature": ...}, signed by the TCB signing key of
 * tcb_signing_chain.pem; attest_tdx_collateral.c checks signature and dates)
 * against the quote's QE report (an SGX REPORT body), as Intel's QVL and
 * go-tdx-guest's verify do: the identity is TD_QE's (version 2); the
 * report's MISCSELECT and ATTRIBUTES under the identity's masks equal the
 * identity's; MRSIGNER and ISVPRODID equal; the QE's ISVSVN's level (the
 * first, highest first, at or below it) gives its status. UpToDate only is
 * accepted: an OutOfDate or Revoked QE, an ISVSVN below every level, another
 * enclave's identity or a stale one is refused, naming the check.
 */
#include "attest.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* The SGX REPORT body (Intel SDM vol. 3D, REPORTBODY). */
#define QE_MISCSELECT 16
#define QE_ATTRIBUTES 48
#define QE_MRSIGNER   128
#define QE_ISVPRODID  256
#define QE_ISVSVN     258

static unsigned le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

/* A JSON number that is an integer in [0, max]; -1 else. */
static long small_int(const cJSON *j, long max)
{
	if (!cJSON_IsNumber(j) || j->valuedouble < 0 || j->valuedouble > (double)max ||
	    j->valuedouble != (double)(long)j->valuedouble)
		return -1;
	return (long)j->valuedouble;
}

/* field under mask equals want, bytes in the report's order (Intel writes
 * ATTRIBUTES, MRSIGNER as the report's bytes). MISCSELECT is a number in
 * the JSON (big-endian hex) and little-endian in the report: reversed. */
static bool masked_eq(const uint8_t *field, size_t n, const cJSON *want_j, const cJSON *mask_j,
                      bool reversed)
{
	uint8_t want[16], mask[16];
	if (n > sizeof want || !isotier__attest_hex_bytes(want, n, cJSON_GetStringValue(want_j)) ||
	    !isotier__attest_hex_bytes(mask, n, cJSON_GetStringValue(mask_j)))
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t j = reversed ? n - 1 - i : i;
		if ((field[i] & mask[j]) != want[j])
			return false;
	}
	return true;
}

int isotier__attest_tdx_qe_match(char *status, size_t status_len, const struct cJSON *id_c,
                                 const uint8_t qe_report[384], char *why, size_t whylen)
{
	const cJSON *id = id_c;
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(id, "id");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(id, "version");
	uint8_t mrsigner[32];
	long prodid = small_int(cJSON_GetObjectItemCaseSensitive(id, "isvprodid"), 65535);
	unsigned isvsvn = le16(qe_report + QE_ISVSVN);
	if (!cJSON_IsString(name) || strcmp(name->valuestring, "TD_QE") || small_int(ver, 9) != 2) {
		snprintf(why, whylen,
		         "TDX collateral: qe_identity.json is not the TD_QE's identity version 2");
		return -1;
	}
	if (!masked_eq(qe_report + QE_MISCSELECT, 4,
	               cJSON_GetObjectItemCaseSensitive(id, "miscselect"),
	               cJSON_GetObjectItemCaseSensitive(id, "miscselectMask"), true)) {
		snprintf(why, whylen,
		         "TDX quote.qe_report.miscselect: not the QE identity's (under its mask)");
		return -1;
	}
	if (!masked_eq(qe_report + QE_ATTRIBUTES, 16,
	               cJSON_GetObjectItemCaseSensitive(id, "attributes"),
	               cJSON_GetObjectItemCaseSensitive(id, "attributesMask"), false)) {
		snprintf(why, whylen,
		         "TDX quote.qe_report.attributes: not the QE identity's (under its mask)");
		return -1;
	}
	if (!isotier__attest_hex_bytes(
	        mrsigner, 32,
	        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(id, "mrsigner"))) ||
	    memcmp(mrsigner, qe_report + QE_MRSIGNER, 32)) {
		snprintf(why, whylen, "TDX quote.qe_report.mrsigner: not the QE identity's");
		return -1;
	}
	if (prodid < 0 || (unsigned)prodid != le16(qe_report + QE_ISVPRODID)) {
		snprintf(why, whylen,
		         "TDX quote.qe_report.isvprodid (%u): not the QE identity's (%ld)",
		         le16(qe_report + QE_ISVPRODID), prodid);
		return -1;
	}
	/* Intel lists the levels highest first: the first at or below the
	 * QE's ISVSVN is its. */
	const cJSON *lv;
	cJSON_ArrayForEach(lv, cJSON_GetObjectItemCaseSensitive(id, "tcbLevels"))
	{
		long svn = small_int(cJSON_GetObjectItemCaseSensitive(
		                         cJSON_GetObjectItemCaseSensitive(lv, "tcb"), "isvsvn"),
		                     65535);
		if (svn < 0 || (unsigned long)svn > isvsvn)
			continue;
		const char *st =
		    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(lv, "tcbStatus"));
		if (!st ||
		    (strcmp(st, "UpToDate") && strcmp(st, "OutOfDate") && strcmp(st, "Revoked"))) {
			snprintf(why, whylen,
			         "TDX collateral: qe_identity.json: a level with an unknown "
			         "tcbStatus");
			return -1;
		}
		snprintf(status, status_len, "%s (TD_QE isvsvn %u)", st, isvsvn);
		if (strcmp(st, "UpToDate")) {
			snprintf(why, whylen,
			         "TDX quote.qe_report.isvsvn (%u): the QE identity's status is %s",
			         isvsvn, st);
			return -1;
		}
		return 0;
	}
	snprintf(why, whylen,
	         "TDX quote.qe_report.isvsvn (%u): below every level of the QE identity", isvsvn);
	return -1;
}

int isotier__attest_tdx_qe_status(char *status, size_t status_len, const uint8_t qe_report[384],
                                  const char *dir, const char *roots, time_t now, char *why,
                                  size_t whylen)
{
	cJSON *doc = NULL;
	const cJSON *id = NULL;
	int got = isotier__attest_tdx_signed_json(&doc, &id, dir, "qe_identity.json",
	                                          "enclaveIdentity", roots, now, why, whylen);
	if (got == 0) {
		snprintf(status, status_len,
		         "not evaluated (no qe_identity.json in the collateral)");
		return 0;
	}
	if (got < 0)
		return -1;
	int rc = isotier__attest_tdx_qe_match(status, status_len, id, qe_report, why, whylen);
	cJSON_Delete(doc);
	return rc;
}
