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
	EVP_PKEY *ark_key, *ask_key, *asvk_key, *vcek_key, *vlek_key;
	X509 *ark, *ask, *asvk, *vcek, *vlek;
	uint8_t chip_id[64];
	uint32_t family, model;
	uint64_t tcb; /* the keys' */
	bool turin;
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

/* An extension under AMD's KDS arc (1.3.6.1.4.1.3704.1.<rest>) holding der. */
static void add_kds(X509 *x, const char *rest, const unsigned char *der, int n)
{
	char txt[64];
	snprintf(txt, sizeof txt, "1.3.6.1.4.1.3704.1.%s", rest);
	ASN1_OBJECT *oid = OBJ_txt2obj(txt, 1);
	ASN1_OCTET_STRING *os = ASN1_OCTET_STRING_new();
	if (!oid || !os || ASN1_OCTET_STRING_set(os, der, n) != 1)
		die("kds ext");
	X509_EXTENSION *e = X509_EXTENSION_create_by_OBJ(NULL, oid, 0, os);
	if (!e || X509_add_ext(x, e, -1) != 1)
		die("kds ext add");
	X509_EXTENSION_free(e);
	ASN1_OCTET_STRING_free(os);
	ASN1_OBJECT_free(oid);
}

/* AMD 57230's extensions: the TCB SPLs (INTEGERs), the product name, and
 * for a VCEK the hwID as KDS writes it (raw bytes: 64, 8 on Turin). */
static void add_kds_exts(X509 *x, const test_authority *ta, bool vcek)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(ta->tcb >> (8 * i));
	/* Which byte each SPL .3.N is: Milan/Genoa bl tee 4 5 6 7 snp ucode;
	 * Turin fmc bl tee snp 5 6 7 ucode. */
	static const int milan[10] = {-1, 0, 1, 6, 2, 3, 4, 5, 7, -1},
	                 turin[10] = {-1, 1, 2, 3, -1, 4, 5, 6, 7, 0};
	const int *at = ta->turin ? turin : milan;
	for (int k = 1; k <= 9; k++) {
		if (at[k] < 0)
			continue;
		unsigned char der[3] = {0x02, 0x01, b[at[k]]},
		              wide[4] = {0x02, 0x02, 0x00, b[at[k]]};
		char rest[8];
		snprintf(rest, sizeof rest, "3.%d", k);
		/* A value over 127 is a two-byte INTEGER in DER. */
		if (b[at[k]] > 127)
			add_kds(x, rest, wide, 4);
		else
			add_kds(x, rest, der, 3);
	}
	unsigned char name[16] = {0x16};
	int n = snprintf((char *)name + 2, sizeof name - 2, "%s",
	                 ta->turin           ? "Turin"
	                 : ta->model >= 0x10 ? "Genoa"
	                                     : "Milan-B0");
	name[1] = (unsigned char)n;
	add_kds(x, "2", name, n + 2);
	if (vcek)
		add_kds(x, "4", ta->chip_id, ta->turin ? 8 : 64);
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

test_authority *test_authority_new_tcb(const char *roots_dir, const char *product, uint64_t tcb)
{
	test_authority *ta = calloc(1, sizeof *ta);
	char cn[64], file[64];
	if (!ta)
		die("calloc");
	ta->turin = !strcmp(product, "turin");
	ta->family = ta->turin ? 0x1A : 0x19;
	ta->model = strcmp(product, "genoa") ? 0x01 : 0x11;
	ta->tcb = tcb;
	/* Turin's KDS names a chip by 8 bytes: the rest of its chip id is 0. */
	if (RAND_bytes(ta->chip_id, ta->turin ? 8 : sizeof ta->chip_id) != 1)
		die("rand");
	ta->ark_key = keygen(false);
	ta->ask_key = keygen(false);
	ta->asvk_key = keygen(false);
	ta->vcek_key = keygen(true);
	ta->vlek_key = keygen(true);
	snprintf(cn, sizeof cn, "ARK-%s (test)", product);
	ta->ark = make_cert(cn, ta->ark_key, NULL, ta->ark_key, true, 1);
	snprintf(cn, sizeof cn, "SEV-%s (test)", product);
	ta->ask = make_cert(cn, ta->ask_key, ta->ark, ta->ark_key, true, 2);
	snprintf(cn, sizeof cn, "SEV-VLEK-%s (test)", product);
	ta->asvk = make_cert(cn, ta->asvk_key, ta->ark, ta->ark_key, true, 4);
	/* The keys: made like the others, plus AMD's extensions, signed last. */
	ta->vcek = make_cert("SEV-VCEK (test)", ta->vcek_key, ta->ask, ta->ask_key, false, 3);
	add_kds_exts(ta->vcek, ta, true);
	sign_cert(ta->vcek, ta->ask_key);
	ta->vlek = make_cert("SEV-VLEK (test)", ta->vlek_key, ta->asvk, ta->asvk_key, false, 5);
	add_kds_exts(ta->vlek, ta, false);
	sign_cert(ta->vlek, ta->asvk_key);
	if (roots_dir) {
		snprintf(file, sizeof file, "amd_%s_ark.pem", product);
		write_pem(roots_dir, file, ta->ark);
		snprintf(file, sizeof file, "amd_%s_ask.pem", product);
		write_pem(roots_dir, file, ta->ask);
		snprintf(file, sizeof file, "amd_%s_asvk.pem", product);
		write_pem(roots_dir, file, ta->asvk);
	}
	return ta;
}

test_authority *test_authority_new(const char *roots_dir, const char *product)
{
	return test_authority_new_tcb(roots_dir, product,
	                              strcmp(product, "turin") ? TEST_AUTHORITY_TCB
	                                                       : TEST_AUTHORITY_TCB_TURIN);
}

void test_authority_free(test_authority *ta)
{
	if (!ta)
		return;
	EVP_PKEY_free(ta->ark_key);
	EVP_PKEY_free(ta->ask_key);
	EVP_PKEY_free(ta->asvk_key);
	EVP_PKEY_free(ta->vcek_key);
	EVP_PKEY_free(ta->vlek_key);
	X509_free(ta->ark);
	X509_free(ta->ask);
	X509_free(ta->asvk);
	X509_free(ta->vcek);
	X509_free(ta->vlek);
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
	uint64_t tcb = f->reported_tcb ? f->reported_tcb : ta->tcb;
	uint64_t current = f->current_tcb ? f->current_tcb : tcb;
	put_le(out + 0x38, current, 8);
	put_le(out + 0x48, (f->vlek ? 1u << 2 : 0) | f->flags_extra, 4);
	memcpy(out + 0x50, f->report_data, 64);
	memset(out + 0x90, 0xab, 48); /* measurement */
	memcpy(out + 0x140, f->report_id, 32);
	put_le(out + 0x180, tcb, 8);
	out[0x188] = (uint8_t)ta->family;
	out[0x189] = (uint8_t)ta->model;
	memcpy(out + 0x1A0, ta->chip_id, 64);
	put_le(out + 0x1E0, f->committed_tcb ? f->committed_tcb : current, 8);
	/* CURRENT and COMMITTED firmware: build, API 1.55. */
	out[0x1E8] = f->current_build, out[0x1E9] = 55, out[0x1EA] = 1;
	out[0x1EC] = f->committed_build, out[0x1ED] = 55, out[0x1EE] = 1;
	put_le(out + 0x1F0, f->launch_tcb ? f->launch_tcb : current, 8);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char der[160];
	size_t der_len = sizeof der;
	if (!md ||
	    EVP_DigestSignInit(md, NULL, EVP_sha384(), NULL,
	                       f->vlek ? ta->vlek_key : ta->vcek_key) != 1 ||
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

uint8_t *test_authority_vcek_der(test_authority *ta, size_t *len)
{
	unsigned char *der = NULL;
	int n = i2d_X509(ta->vcek, &der);
	if (n <= 0)
		die("vcek der");
	uint8_t *out = malloc((size_t)n);
	if (!out)
		die("malloc");
	memcpy(out, der, (size_t)n);
	OPENSSL_free(der);
	*len = (size_t)n;
	return out;
}

uint8_t *test_authority_auxblob(test_authority *ta, size_t *len)
{
	/* 63da758d-e664-4564-adc5-f4b93be8accd (VCEK) and
	 * a8074bc2-a25a-483e-aae6-39c045a0b8a1 (VLEK), as go-sev-guest writes them. */
	static const uint8_t guid[2][16] = {{0x63, 0xda, 0x75, 0x8d, 0xe6, 0x64, 0x45, 0x64, 0xad,
	                                     0xc5, 0xf4, 0xb9, 0x3b, 0xe8, 0xac, 0xcd},
	                                    {0xa8, 0x07, 0x4b, 0xc2, 0xa2, 0x5a, 0x48, 0x3e, 0xaa,
	                                     0xe6, 0x39, 0xc0, 0x45, 0xa0, 0xb8, 0xa1}};
	unsigned char *der[2] = {NULL, NULL};
	int n[2] = {i2d_X509(ta->vcek, &der[0]), i2d_X509(ta->vlek, &der[1])};
	if (n[0] <= 0 || n[1] <= 0)
		die("key der");
	size_t table = 3 * 24;
	uint8_t *buf = calloc(1, table + (size_t)n[0] + (size_t)n[1]);
	if (!buf)
		die("calloc");
	size_t at = table;
	for (int k = 0; k < 2; k++) {
		memcpy(buf + 24 * k, guid[k], 16);
		put_le(buf + 24 * k + 16, at, 4);
		put_le(buf + 24 * k + 20, (uint64_t)n[k], 4);
		memcpy(buf + at, der[k], (size_t)n[k]);
		at += (size_t)n[k];
		OPENSSL_free(der[k]);
	}
	*len = at;
	return buf;
}
