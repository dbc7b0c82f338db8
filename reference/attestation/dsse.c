/* SPDX-License-Identifier: Apache-2.0 */
/* dsse.c - DSSE envelopes (statement.h): the pre-authentication encoding,
 * Ed25519 signatures by libcrypto, standard base64 (URL-safe read too, as
 * the DSSE protocol allows). */
#include "statement.h"

#include <cJSON.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIGNATURES 16

int isotier__dsse_pae(const char *type, const void *body, size_t len, unsigned char **out,
                      size_t *out_len)
{
	char head[128];
	size_t tlen = strlen(type);
	int n = snprintf(head, sizeof head, "DSSEv1 %zu ", tlen);
	char mid[32];
	int m = snprintf(mid, sizeof mid, " %zu ", len);
	if (n < 0 || m < 0)
		return ISOTIER_EINVAL;
	size_t total = (size_t)n + tlen + (size_t)m + len;
	unsigned char *p = malloc(total ? total : 1);
	if (!p)
		return ISOTIER_ENOMEM;
	memcpy(p, head, (size_t)n);
	memcpy(p + n, type, tlen);
	memcpy(p + (size_t)n + tlen, mid, (size_t)m);
	if (len)
		memcpy(p + (size_t)n + tlen + (size_t)m, body, len);
	*out = p;
	*out_len = total;
	return 0;
}

static char *b64_encode(const unsigned char *data, size_t len)
{
	if (len > (1u << 28))
		return NULL;
	char *out = malloc(4 * ((len + 2) / 3) + 1);
	if (out)
		EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	return out;
}

/* Standard or URL-safe, padded or not; 0 and the bytes, or -1. */
static int b64_decode(const char *s, unsigned char **out, size_t *out_len)
{
	size_t len = strlen(s);
	if (len > ISOTIER_ENVELOPE_MAX * 2)
		return -1;
	char *t = malloc(len + 4);
	if (!t)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		c = c == '-' ? '+' : c == '_' ? '/' : c;
		if (c == '=')
			break;
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '+' || c == '/')) {
			free(t);
			return -1;
		}
		t[n++] = c;
	}
	size_t pad = (4 - n % 4) % 4;
	if (pad == 3) {
		free(t);
		return -1;
	}
	for (size_t i = 0; i < pad; i++)
		t[n++] = '=';
	t[n] = '\0';
	unsigned char *buf = malloc(n / 4 * 3 + 1);
	int got = buf ? EVP_DecodeBlock(buf, (unsigned char *)t, (int)n) : -1;
	free(t);
	if (got < 0) {
		free(buf);
		return -1;
	}
	*out = buf;
	*out_len = (size_t)got - pad; /* EVP_DecodeBlock counts the padding as zero bytes */
	return 0;
}

int isotier__dsse_sign(const isotier_identity *id, const char *type, const void *body, size_t len,
                       char **envelope, isotier_error *err)
{
	*envelope = NULL;
	cleanup_free unsigned char *pae = NULL;
	size_t pae_len = 0;
	if (isotier__dsse_pae(type, body, len, &pae, &pae_len) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "sign statement: out of memory");
	unsigned char sig[64];
	size_t sig_len = sizeof sig;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool ok = md && EVP_DigestSignInit(md, NULL, NULL, NULL, id->key) == 1 &&
	          EVP_DigestSign(md, sig, &sig_len, pae, pae_len) == 1;
	EVP_MD_CTX_free(md);
	if (!ok)
		return isotier__error_set(err, ISOTIER_EIO, 0,
		                          "sign statement: libcrypto refused the host key");
	cleanup_free char *payload = b64_encode(body, len);
	cleanup_free char *sig64 = b64_encode(sig, sig_len);
	cJSON *env = cJSON_CreateObject(), *sigs = cJSON_CreateArray(), *one = cJSON_CreateObject();
	if (!payload || !sig64 || !env || !sigs || !one ||
	    !cJSON_AddStringToObject(env, "payloadType", type) ||
	    !cJSON_AddStringToObject(env, "payload", payload) ||
	    !cJSON_AddStringToObject(one, "keyid", id->key_id) ||
	    !cJSON_AddStringToObject(one, "sig", sig64)) {
		cJSON_Delete(env), cJSON_Delete(sigs), cJSON_Delete(one);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "sign statement: out of memory");
	}
	cJSON_AddItemToArray(sigs, one);
	cJSON_AddItemToObject(env, "signatures", sigs);
	*envelope = isotier__json_print(env, false);
	cJSON_Delete(env);
	return *envelope
	           ? 0
	           : isotier__error_set(err, ISOTIER_ENOMEM, 0, "sign statement: out of memory");
}

static bool verify_one(EVP_PKEY *key, const unsigned char *pae, size_t pae_len,
                       const unsigned char *sig, size_t sig_len)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool ok = md && EVP_DigestVerifyInit(md, NULL, NULL, NULL, key) == 1 &&
	          EVP_DigestVerify(md, sig, sig_len, pae, pae_len) == 1;
	EVP_MD_CTX_free(md);
	return ok;
}

int isotier__dsse_open(const char *envelope, size_t len, const isotier_keyring *kr, char **payload,
                       size_t *payload_len, char key_id[65], isotier_error *err)
{
	*payload = NULL;
	*payload_len = 0;
	key_id[0] = '\0';
	if (!envelope || !len)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "no envelope");
	if (len > ISOTIER_ENVELOPE_MAX)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "envelope of %zu bytes (max %d)",
		                          len, ISOTIER_ENVELOPE_MAX);
	cJSON *env = isotier__json_parse(envelope, len, "envelope", err);
	if (!env)
		return ISOTIER_EDATA;
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(env, "payloadType");
	const cJSON *body = cJSON_GetObjectItemCaseSensitive(env, "payload");
	const cJSON *sigs = cJSON_GetObjectItemCaseSensitive(env, "signatures");
	int rc = 0;
	unsigned char *raw = NULL, *pae = NULL;
	size_t raw_len = 0, pae_len = 0;
	if (!cJSON_IsObject(env) || !cJSON_IsString(type) || !cJSON_IsString(body) ||
	    !cJSON_IsArray(sigs))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "not a DSSE envelope (payloadType, payload, signatures)");
	else if (strcmp(type->valuestring, ISOTIER_DSSE_PAYLOAD_TYPE))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "payloadType '%.80s', not %s",
		                        type->valuestring, ISOTIER_DSSE_PAYLOAD_TYPE);
	else if (b64_decode(body->valuestring, &raw, &raw_len) < 0)
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "payload: not base64");
	else if (isotier__dsse_pae(type->valuestring, raw, raw_len, &pae, &pae_len) < 0)
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "envelope: out of memory");
	int n = rc == 0 ? cJSON_GetArraySize(sigs) : 0;
	if (rc == 0 && (n < 1 || n > MAX_SIGNATURES))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%d signatures (1 to %d)", n,
		                        MAX_SIGNATURES);
	bool verified = false, known = false;
	for (int i = 0; rc == 0 && !verified && i < n; i++) {
		const cJSON *s = cJSON_GetArrayItem(sigs, i);
		const cJSON *kid = cJSON_GetObjectItemCaseSensitive(s, "keyid");
		const cJSON *sig = cJSON_GetObjectItemCaseSensitive(s, "sig");
		unsigned char *sb = NULL;
		size_t sb_len = 0;
		if (!cJSON_IsString(sig) || b64_decode(sig->valuestring, &sb, &sb_len) < 0)
			continue;
		/* keyid is a hint (DSSE): unset, every key is tried. */
		for (size_t k = 0; !verified && kr && k < kr->n; k++) {
			if (cJSON_IsString(kid) && *kid->valuestring &&
			    strcmp(kid->valuestring, kr->key_ids[k]))
				continue;
			known = true;
			if (verify_one(kr->keys[k], pae, pae_len, sb, sb_len)) {
				verified = true;
				snprintf(key_id, 65, "%s", kr->key_ids[k]);
			}
		}
		free(sb);
	}
	if (rc == 0 && !verified)
		rc = isotier__error_set(
		    err, ISOTIER_ECONFIG, 0,
		    known ? "no signature verifies against the trusted key it names"
		          : "signed by no trusted key (this host's, or "
		            "ISOTIER_TRUSTED_KEYS)");
	if (rc == 0) {
		*payload = (char *)raw;
		*payload_len = raw_len;
		raw = NULL;
		/* NUL-terminate: b64_decode left room (n / 4 * 3 + 1 >= raw_len + 1). */
		(*payload)[raw_len] = '\0';
	}
	free(raw);
	free(pae);
	cJSON_Delete(env);
	return rc;
}
