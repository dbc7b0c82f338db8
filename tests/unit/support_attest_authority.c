/* SPDX-License-Identifier: Apache-2.0 */
/* support_attest_authority.c - the test authority (attest_authority.h). */
#include "attest_authority.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_authority {
	EVP_PKEY *ark_key, *ask_key, *vcek_key;
	X509 *ark, *ask, *vcek;
	uint8_t chip_id[64];
	uint32_t family, model;
};

static void die(const char *what)
{
	fprintf(stderr, "test authority: %s failed\n", what);
	abort();
}

static EVP_PKEY *keygen(bool ec)
{
	EVP_PKEY *k = ec ? EVP_EC_gen("P-384") : EVP_RSA_gen(2048);
	if (!k)
		die("keygen");
	return k;
}

/* Signs x with key: RSA-PSS SHA-384 for RSA keys (as AMD's ARK and ASK). */
static void sign_cert(X509 *x, EVP_PKEY *key)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	if (!md || EVP_DigestSignInit(md, &pctx, EVP_sha384(), NULL, key) != 1)
		die("sign init");
	if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA &&
	    (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
	     EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, 48) != 1))
		die("pss");
	if (X509_sign_ctx(x, md) <= 0)
		die("X509_sign_ctx");
	EVP_MD_CTX_free(md);
}

static void add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!e || X509_add_ext(x, e, -1) != 1)
		die("extension");
	X509_EXTENSION_free(e);
}

static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, bool ca,
                       long serial)
{
	X509 *x = X509_new();
	X509_NAME *name = X509_NAME_new();
	if (!x || !name || X509_set_version(x, 2) != 1 ||
	    ASN1_INTEGER_set(X509_get_serialNumber(x), serial) != 1 ||
	    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
	                               (const unsigned char *)"isotier test authority", -1, -1,
	                               0) != 1 ||
	    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
	                               0) != 1 ||
	    X509_set_subject_name(x, name) != 1 ||
	    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name) != 1 ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -86400) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 86400L * 365) || X509_set_pubkey(x, key) != 1)
		die("certificate");
	X509_NAME_free(name);
	add_ext(x, issuer ? issuer : x, NID_basic_constraints,
	        ca ? "critical,CA:TRUE" : "CA:FALSE");
	add_ext(x, issuer ? issuer : x, NID_key_usage,
	        ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
	sign_cert(x, issuer_key);
	return x;
}

/* AMD's hwID extension (1.3.6.1.4.1.3704.1.4): the chip id, an OCTET STRING. */
static void add_hwid(X509 *x, const uint8_t chip[64])
{
	ASN1_OBJECT *oid = OBJ_txt2obj("1.3.6.1.4.1.3704.1.4", 1);
	ASN1_OCTET_STRING *inner = ASN1_OCTET_STRING_new(), *outer = ASN1_OCTET_STRING_new();
	unsigned char *der = NULL;
	int n;
	if (!oid || !inner || !outer || ASN1_OCTET_STRING_set(inner, chip, 64) != 1 ||
	    (n = i2d_ASN1_OCTET_STRING(inner, &der)) <= 0 ||
	    ASN1_OCTET_STRING_set(outer, der, n) != 1)
		die("hwid");
	X509_EXTENSION *e = X509_EXTENSION_create_by_OBJ(NULL, oid, 0, outer);
	if (!e || X509_add_ext(x, e, -1) != 1)
		die("hwid ext");
	X509_EXTENSION_free(e);
	OPENSSL_free(der);
	ASN1_OCTET_STRING_free(inner);
	ASN1_OCTET_STRING_free(outer);
	ASN1_OBJECT_free(oid);
}

static void write_pem(const char *dir, const char *name, X509 *x)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f || PEM_write_X509(f, x) != 1)
		die("write pem");
	fclose(f);
}

test_authority *test_authority_new(const char *roots_dir, const char *product)
{
	test_authority *ta = calloc(1, sizeof *ta);
	char cn[64], file[64];
	if (!ta)
		die("calloc");
	ta->family = strcmp(product, "turin") ? 0x19 : 0x1A;
	ta->model = strcmp(product, "genoa") ? 0x01 : 0x11;
	if (RAND_bytes(ta->chip_id, sizeof ta->chip_id) != 1)
		die("rand");
	ta->ark_key = keygen(false);
	ta->ask_key = keygen(false);
	ta->vcek_key = keygen(true);
	snprintf(cn, sizeof cn, "ARK-%s (test)", product);
	ta->ark = make_cert(cn, ta->ark_key, NULL, ta->ark_key, true, 1);
	snprintf(cn, sizeof cn, "SEV-%s (test)", product);
	ta->ask = make_cert(cn, ta->ask_key, ta->ark, ta->ark_key, true, 2);
	/* The VCEK: made like the others, plus its chip's hwID, signed last. */
	ta->vcek = make_cert("SEV-VCEK (test)", ta->vcek_key, ta->ask, ta->ask_key, false, 3);
	add_hwid(ta->vcek, ta->chip_id);
	sign_cert(ta->vcek, ta->ask_key);
	if (roots_dir) {
		snprintf(file, sizeof file, "amd_%s_ark.pem", product);
		write_pem(roots_dir, file, ta->ark);
		snprintf(file, sizeof file, "amd_%s_ask.pem", product);
		write_pem(roots_dir, file, ta->ask);
	}
	return ta;
}

void test_authority_free(test_authority *ta)
{
	if (!ta)
		return;
	EVP_PKEY_free(ta->ark_key);
	EVP_PKEY_free(ta->ask_key);
	EVP_PKEY_free(ta->vcek_key);
	X509_free(ta->ark);
	X509_free(ta->ask);
	X509_free(ta->vcek);
	free(ta);
}

const uint8_t *test_authority_chip_id(const test_authority *ta)
{
	return ta->chip_id;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void test_authority_snp_report(test_authority *ta, const test_snp_fields *f, uint8_t out[0x4A0])
{
	memset(out, 0, 0x4A0);
	put_le(out + 0x00, f->version ? f->version : 3, 4);
	put_le(out + 0x04, 1, 4);
	put_le(out + 0x08, f->policy ? f->policy : 0x30000, 8);
	put_le(out + 0x30, f->vmpl, 4);
	put_le(out + 0x34, 1, 4); /* ECDSA P-384 with SHA-384 */
	uint64_t tcb = f->reported_tcb ? f->reported_tcb : 0x7300000000000304ull;
	put_le(out + 0x38, tcb, 8);
	memcpy(out + 0x50, f->report_data, 64);
	memset(out + 0x90, 0xab, 48); /* measurement */
	memcpy(out + 0x140, f->report_id, 32);
	put_le(out + 0x180, tcb, 8);
	out[0x188] = (uint8_t)ta->family;
	out[0x189] = (uint8_t)ta->model;
	memcpy(out + 0x1A0, ta->chip_id, 64);
	put_le(out + 0x1E0, tcb, 8);
	put_le(out + 0x1F0, tcb, 8);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char der[160];
	size_t der_len = sizeof der;
	if (!md || EVP_DigestSignInit(md, NULL, EVP_sha384(), NULL, ta->vcek_key) != 1 ||
	    EVP_DigestSign(md, der, &der_len, out, 0x2A0) != 1)
		die("report signature");
	EVP_MD_CTX_free(md);
	const unsigned char *p = der;
	ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	if (!sig || BN_bn2lebinpad(ECDSA_SIG_get0_r(sig), out + 0x2A0, 72) != 72 ||
	    BN_bn2lebinpad(ECDSA_SIG_get0_s(sig), out + 0x2A0 + 72, 72) != 72)
		die("signature r/s");
	ECDSA_SIG_free(sig);
}

uint8_t *test_authority_auxblob(test_authority *ta, size_t *len)
{
	/* 63da758d-e664-4564-adc5-f4b93be8accd, as go-sev-guest writes it. */
	static const uint8_t guid[16] = {0x63, 0xda, 0x75, 0x8d, 0xe6, 0x64, 0x45, 0x64,
	                                 0xad, 0xc5, 0xf4, 0xb9, 0x3b, 0xe8, 0xac, 0xcd};
	unsigned char *der = NULL;
	int n = i2d_X509(ta->vcek, &der);
	if (n <= 0)
		die("vcek der");
	size_t table = 2 * 24;
	uint8_t *buf = calloc(1, table + (size_t)n);
	if (!buf)
		die("calloc");
	memcpy(buf, guid, 16);
	put_le(buf + 16, table, 4);
	put_le(buf + 20, (uint64_t)n, 4);
	memcpy(buf + table, der, (size_t)n);
	OPENSSL_free(der);
	*len = table + (size_t)n;
	return buf;
}
