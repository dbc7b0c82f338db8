/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_snp.c - AMD SEV-SNP attestation reports (attest.h): parsing per the
 * SEV-SNP firmware ABI (AMD 56860, ATTESTATION_REPORT), the ECDSA P-384
 * signature by the endorsement key the report's SIGNING_KEY names (the chip's
 * VCEK, or a cloud's VLEK), and that key's chain to the ARK of its product
 * (Milan, Genoa, Turin) through the ASK (VCEK) or the ASVK (VLEK), all pinned
 * in catalogue/roots (their source: catalogue/roots/SOURCE.md). The
 * certificates the host serves (auxblob) are never trusted as roots: only
 * the key's own certificate is taken from it, and only when the operator's
 * cache has none (the cache is the operator's own word; the host's is not).
 */
#include "attest.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <string.h>

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

int isotier__attest_snp_parse(attest_snp_report *r, const uint8_t *b, size_t len,
                              isotier_error *err)
{
	memset(r, 0, sizeof *r);
	if (len != ATTEST_SNP_REPORT_LEN)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "SNP report: %zu bytes, not %d",
		                          len, ATTEST_SNP_REPORT_LEN);
	r->version = le32(b + 0x00);
	if (r->version < 2 || r->version > 5)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "SNP report.version: %u, not 2 to 5", r->version);
	r->guest_svn = le32(b + 0x04);
	r->policy = le64(b + 0x08);
	memcpy(r->family_id, b + 0x10, 16);
	memcpy(r->image_id, b + 0x20, 16);
	r->vmpl = le32(b + 0x30);
	r->sig_algo = le32(b + 0x34);
	r->current_tcb = le64(b + 0x38);
	r->platform_info = le64(b + 0x40);
	r->flags = le32(b + 0x48);
	memcpy(r->report_data, b + 0x50, ATTEST_DATA_LEN);
	memcpy(r->measurement, b + 0x90, ATTEST_SNP_MEASURE_LEN);
	memcpy(r->host_data, b + 0xC0, 32);
	memcpy(r->id_key_digest, b + 0xE0, 48);
	memcpy(r->author_key_digest, b + 0x110, 48);
	memcpy(r->report_id, b + 0x140, ATTEST_SNP_REPORTID_LEN);
	memcpy(r->report_id_ma, b + 0x160, ATTEST_SNP_REPORTID_LEN);
	r->reported_tcb = le64(b + 0x180);
	if (r->version >= 3) {
		r->cpuid_fam = b[0x188];
		r->cpuid_mod = b[0x189];
		r->cpuid_step = b[0x18A];
	}
	memcpy(r->chip_id, b + 0x1A0, ATTEST_SNP_CHIPID_LEN);
	r->committed_tcb = le64(b + 0x1E0);
	r->current_build = b[0x1E8], r->current_minor = b[0x1E9], r->current_major = b[0x1EA];
	r->committed_build = b[0x1EC], r->committed_minor = b[0x1ED];
	r->committed_major = b[0x1EE];
	r->launch_tcb = le64(b + 0x1F0);
	memcpy(r->sig_r, b + 0x2A0, 72);
	memcpy(r->sig_s, b + 0x2A0 + 72, 72);
	if (r->sig_algo != 1)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "SNP report.signature_algo: %u, not 1 (ECDSA P-384 SHA-384)", r->sig_algo);
	/* Bits 2-4: which key signed: the VCEK (0) or a VLEK (1); 2-6 are
	 * reserved and 7 is none (go-sev-guest abi.ParseSignerInfo). */
	if ((r->flags >> 2 & 7) > ATTEST_SNP_SIGNER_VLEK)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "SNP report.signing_key: %u, not the VCEK (0) or a VLEK (1)",
		    r->flags >> 2 & 7);
	if (r->flags >> 5)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "SNP report.flags: must-be-zero bits 5-31 set");
	/* Reserved ranges must be zero (go-sev-guest abi.ReportToProto). */
	static const struct {
		unsigned lo, hi;
	} mbz[] = {{0x4C, 0x50},   {0x18B, 0x1A0}, {0x1EB, 0x1EC},
	           {0x1EF, 0x1F0}, {0x208, 0x2A0}, {0x2A0 + 144, ATTEST_SNP_REPORT_LEN}};
	for (size_t i = 0; i < sizeof mbz / sizeof *mbz; i++) {
		unsigned lo = i == 1 && r->version < 3 ? 0x188 : mbz[i].lo;
		for (unsigned k = lo; k < mbz[i].hi; k++)
			if (b[k])
				return isotier__error_set(
				    err, ISOTIER_EDATA, 0,
				    "SNP report: reserved bytes 0x%X-0x%X not zero", lo,
				    mbz[i].hi - 1);
	}
	return 0;
}

/* ---- certificates -------------------------------------------------------- */

static X509 *cert_from_bytes(const uint8_t *p, size_t len)
{
	if (!p || !len || len > ATTEST_MAX_CERT)
		return NULL;
	const unsigned char *q = p;
	X509 *x = d2i_X509(NULL, &q, (long)len);
	if (x && q == p + len)
		return x;
	X509_free(x);
	BIO *bio = BIO_new_mem_buf(p, (int)len);
	x = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	return x;
}

static X509 *cert_from_file(const char *path)
{
	cleanup_free char *data = NULL;
	size_t len = 0;
	isotier_error e = {0};
	if (isotier__read_file(&data, &len, path, ATTEST_MAX_CERT, &e) < 0)
		return NULL;
	return cert_from_bytes((const uint8_t *)data, len);
}

/* The GUIDs of the GHCB certificate table (auxblob), in RFC 4122 byte
 * order; the table's own order is matched in either encoding (AMD 56421). */
static const uint8_t guid_vcek[16] = {0x63, 0xda, 0x75, 0x8d, 0xe6, 0x64, 0x45, 0x64,
                                      0xad, 0xc5, 0xf4, 0xb9, 0x3b, 0xe8, 0xac, 0xcd};
static const uint8_t guid_vlek[16] = {0xa8, 0x07, 0x4b, 0xc2, 0xa2, 0x5a, 0x48, 0x3e,
                                      0xaa, 0xe6, 0x39, 0xc0, 0x45, 0xa0, 0xb8, 0xa1};

static bool guid_is(const uint8_t *g, const uint8_t *want)
{
	if (!memcmp(g, want, 16))
		return true;
	/* Mixed-endian (EFI) layout of the same GUID. */
	uint8_t m[16] = {want[3], want[2], want[1], want[0], want[5], want[4], want[7], want[6]};
	memcpy(m + 8, want + 8, 8);
	return !memcmp(g, m, 16);
}

/* The key's certificate in the host's table, or NULL (*why says why). */
static X509 *ek_from_auxblob(const uint8_t *aux, size_t len, bool vlek, const char **why)
{
	*why = "no auxblob";
	if (!aux || !len)
		return NULL;
	*why = vlek ? "auxblob: no VLEK entry" : "auxblob: no VCEK entry";
	if (len > ATTEST_MAX_AUXBLOB) {
		*why = "auxblob: too large";
		return NULL;
	}
	for (size_t off = 0; off + 24 <= len; off += 24) {
		const uint8_t *ent = aux + off;
		static const uint8_t zero[24];
		if (!memcmp(ent, zero, 24))
			break;
		if (!guid_is(ent, vlek ? guid_vlek : guid_vcek))
			continue;
		uint32_t at = le32(ent + 16), n = le32(ent + 20);
		if (at > len || n > len - at || n > ATTEST_MAX_CERT) {
			*why = "auxblob: key entry out of bounds";
			return NULL;
		}
		X509 *x = cert_from_bytes(aux + at, n);
		if (!x)
			*why = "auxblob: key entry is not a certificate";
		return x;
	}
	return NULL;
}

static void hex(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* The operator's cache: a VCEK as <chip_id hex>-<reported_tcb as 16 hex>
 * (.der or .pem; Turin's KDS names its chip by 8 bytes, so
 * <first 8 bytes hex>-<tcb> is looked for too), a VLEK as
 * vlek-<reported_tcb as 16 hex>. */
static X509 *ek_from_cache(const char *dir, const attest_snp_report *r, bool vlek)
{
	char id[2 * ATTEST_SNP_CHIPID_LEN + 1], path[4096];
	if (!dir || !*dir)
		return NULL;
	hex(id, r->chip_id, sizeof r->chip_id);
	for (int form = 0; form < 6; form++) {
		const char *ext = form % 2 ? "pem" : "der";
		int kind = form / 2; /* 0: full chip id or vlek, 1: 8-byte id */
		if (vlek && kind)
			break;
		if (vlek)
			snprintf(path, sizeof path, "%s/vlek-%016llx.%s", dir,
			         (unsigned long long)r->reported_tcb, ext);
		else
			snprintf(path, sizeof path, "%s/%.*s-%016llx.%s", dir, kind ? 16 : 128, id,
			         (unsigned long long)r->reported_tcb, ext);
		X509 *x = cert_from_file(path);
		if (x)
			return x;
	}
	return NULL;
}

static const char *const snp_products[] = {"Milan", "Genoa", "Turin"};

/* Does ek chain to product's pinned intermediate (the ASK for a VCEK, the
 * ASVK for a VLEK) and ARK at time now? */
static bool chain_ok(X509 *ek, bool vlek, const char *roots, const char *product, time_t now,
                     char *why, size_t whylen)
{
	char ark_path[4096], ica_path[4096], lower[8];
	snprintf(lower, sizeof lower, "%c%s", product[0] + 32, product + 1);
	snprintf(ark_path, sizeof ark_path, "%s/amd_%s_ark.pem", roots, lower);
	snprintf(ica_path, sizeof ica_path, "%s/amd_%s_%s.pem", roots, lower,
	         vlek ? "asvk" : "ask");
	X509 *ark = cert_from_file(ark_path), *ica = cert_from_file(ica_path);
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	STACK_OF(X509) *untrusted = sk_X509_new_null();
	bool ok = false;
	if (!ark || !ica) {
		snprintf(why, whylen, "pinned %s roots (ARK, %s) missing in %.150s", product,
		         vlek ? "ASVK" : "ASK", roots);
	} else if (store && ctx && untrusted && X509_STORE_add_cert(store, ark) == 1 &&
	           sk_X509_push(untrusted, ica) > 0 &&
	           X509_STORE_CTX_init(ctx, store, ek, untrusted) == 1) {
		X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
		X509_VERIFY_PARAM_set_time(param, now);
		/* The pinned ARK's own signature too: a corrupted pin is refused. */
		X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_CHECK_SS_SIGNATURE);
		ok = X509_verify_cert(ctx) == 1;
		if (!ok)
			snprintf(why, whylen, "%s does not chain to the pinned ARK-%s: %s",
			         vlek ? "VLEK" : "VCEK", product,
			         X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
	} else {
		snprintf(why, whylen, "certificate store: out of memory");
	}
	sk_X509_free(untrusted);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	X509_free(ark);
	X509_free(ica);
	return ok;
}

/* The product a v3+ report's CPUID names; NULL before v3 or unknown. */
static const char *report_product(const attest_snp_report *r)
{
	if (r->version < 3)
		return NULL;
	if (r->cpuid_fam == 0x1A)
		return "Turin";
	if (r->cpuid_fam == 0x19)
		return r->cpuid_mod < 0x10 ? "Milan" : "Genoa";
	return NULL;
}

/* A VCEK's hwID must be the report's chip: all 64 bytes to Genoa, the first
 * 8 on Turin (KDS issues Turin VCEKs for an 8-byte id); a VLEK is a cloud's
 * and names no chip (go-sev-guest kds.VlekCertificateExtensions). A chip id
 * of zeros is accepted only when the report says it masked it. */
static const char *ek_names_chip(const attest_snp_ek *ek, const attest_snp_report *r,
                                 const char *product)
{
	static const uint8_t zero[ATTEST_SNP_CHIPID_LEN];
	if (ek->vlek)
		return ek->hwid_len ? "a VLEK certificate that names a chip (hwID)" : NULL;
	if (!ek->hwid_len)
		return "a VCEK certificate without a hwID";
	if (!memcmp(r->chip_id, zero, sizeof zero))
		return r->flags & 2 ? NULL : "report.chip_id is zeros without MASK_CHIP_ID";
	size_t want = !strcmp(product, "Turin") ? 8 : ATTEST_SNP_CHIPID_LEN;
	if (ek->hwid_len != want)
		return "the VCEK's hwID is not the length its product's KDS issues";
	return memcmp(ek->hwid, r->chip_id, want) ? "the VCEK is not the report's chip_id's" : NULL;
}

/* ECDSA P-384 over bytes 0..0x29F with SHA-384; r and s little-endian. */
static bool signature_ok(X509 *vcek, const attest_snp_report *r, const uint8_t *raw)
{
	EVP_PKEY *key = X509_get0_pubkey(vcek);
	if (!key || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC || EVP_PKEY_get_bits(key) != 384)
		return false;
	ECDSA_SIG *sig = ECDSA_SIG_new();
	BIGNUM *br = BN_lebin2bn(r->sig_r, 72, NULL), *bs = BN_lebin2bn(r->sig_s, 72, NULL);
	unsigned char *der = NULL;
	int der_len = -1;
	if (sig && br && bs && ECDSA_SIG_set0(sig, br, bs) == 1) {
		br = bs = NULL; /* owned by sig */
		der_len = i2d_ECDSA_SIG(sig, &der);
	}
	BN_free(br);
	BN_free(bs);
	ECDSA_SIG_free(sig);
	bool ok = false;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (der_len > 0 && md && EVP_DigestVerifyInit(md, NULL, EVP_sha384(), NULL, key) == 1)
		ok = EVP_DigestVerify(md, der, (size_t)der_len, raw, ATTEST_SNP_SIGNED_LEN) == 1;
	EVP_MD_CTX_free(md);
	OPENSSL_free(der);
	return ok;
}

static int fail(attest_verdict *v, isotier_error *err, const char *fmt, const char *a)
{
	snprintf(v->detail, sizeof v->detail, fmt, a);
	return isotier__error_set(err, ISOTIER_EDATA, 0, "%s", v->detail);
}

int isotier__attest_snp_verify(attest_verdict *v, const attest_snp_report *r, const uint8_t *raw,
                               const attest_evidence *e, const attest_policy *p, attest_snp_ek *ek,
                               isotier_error *err)
{
	const char *roots = p->roots_dir; /* resolved by attest_verify */
	time_t now = p->now ? p->now : time(NULL);
	const char *why = NULL;
	bool vlek = (r->flags >> 2 & 7) == ATTEST_SNP_SIGNER_VLEK;
	const char *kind = vlek ? "VLEK" : "VCEK";
	v->tech = ATTEST_TECH_SEV_SNP;
	memset(ek, 0, sizeof *ek);
	/* The operator's cache first: the host's table is the provider's word. */
	X509 *cert = ek_from_cache(p->cache_dir, r, vlek);
	v->certs = cert ? ATTEST_CERTS_CACHE : ATTEST_CERTS_NONE;
	if (!cert && (cert = ek_from_auxblob(e->auxblob, e->auxblob_len, vlek, &why)))
		v->certs = ATTEST_CERTS_HOST;
	if (!cert) {
		snprintf(v->detail, sizeof v->detail,
		         "SNP: no %s (%s, none in the local cache): the report's signer is "
		         "unknown offline",
		         kind, why);
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s", v->detail);
	}
	const char *src =
	    v->certs == ATTEST_CERTS_HOST ? "served by the host" : "from the local cache";
	const char *named = report_product(r);
	char chain_why[200] = "", first_why[200] = "", ek_why[200] = "";
	const char *product = NULL;
	for (size_t i = 0; i < sizeof snp_products / sizeof *snp_products && !product; i++) {
		if (named && strcmp(named, snp_products[i]) != 0)
			continue;
		if (chain_ok(cert, vlek, roots, snp_products[i], now, chain_why, sizeof chain_why))
			product = snp_products[i];
		else if (!first_why[0])
			snprintf(first_why, sizeof first_why, "%s", chain_why);
	}
	int rc = 0;
	const char *chip = NULL;
	if (!product)
		rc =
		    fail(v, err, "SNP: %s", first_why[0] ? first_why : "no pinned product matches");
	else if (isotier__attest_snp_ek_read(ek, cert, ek_why, sizeof ek_why) < 0)
		rc = fail(v, err, "%s", ek_why);
	if (rc == 0) {
		ek->vlek = vlek;
		if ((chip = ek_names_chip(ek, r, product)) != NULL)
			rc = fail(v, err, "SNP: %s", chip);
	}
	if (rc == 0 && !signature_ok(cert, r, raw)) {
		snprintf(v->detail, sizeof v->detail,
		         "SNP report.signature: not the %s's over the report (%s)", kind, src);
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s", v->detail);
	}
	X509_free(cert);
	if (rc < 0)
		return rc;
	snprintf(v->product, sizeof v->product, "%s", product);
	snprintf(v->root, sizeof v->root, "AMD ARK-%s pinned in %.120s, %s %s", product, roots,
	         kind, v->certs == ATTEST_CERTS_HOST ? "served by the host (auxblob)" : src);
	return 0;
}
