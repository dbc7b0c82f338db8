/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_verify.c - attestation evidence to a verdict (attest.h): which
 * technology, the signature and chain (attest_snp.c, attest_tdx.c), the
 * binding to this run, the operator's policy; and a probe output's
 * "attestation" member, and two sandboxes' verdicts as a pair.
 */
#include "attest.h"
#include "../core/paths.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

static const char *attest_tech_name(attest_tech t)
{
	return t == ATTEST_TECH_SEV_SNP ? "sev-snp" : t == ATTEST_TECH_TDX ? "tdx" : "none";
}

const char *isotier__attest_default_roots_dir(void)
{
	static __thread char dir[PATH_MAX];
	return isotier__env_data_path("ISOTIER_ATTEST_ROOTS", dir, sizeof dir,
	                              "share/isotier/catalogue/roots", "catalogue/roots");
}

static int hex_decode(uint8_t *out, size_t max, size_t *n, const char *s)
{
	size_t len = strlen(s);
	if (len % 2 || len / 2 > max)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned v = 0;
		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + (size_t)k];
			int d = c >= '0' && c <= '9'   ? c - '0'
			        : c >= 'a' && c <= 'f' ? c - 'a' + 10
			                               : -1;
			if (d < 0)
				return -1;
			v = v << 4 | (unsigned)d;
		}
		out[i] = (uint8_t)v;
	}
	*n = len / 2;
	return 0;
}

int isotier__attest_policy_from_env(attest_policy *p, uint8_t mbuf[ATTEST_SNP_MEASURE_LEN],
                                    isotier_error *err)
{
	*p = (attest_policy){0};
	const char *v;
	p->roots_dir = isotier__attest_default_roots_dir();
	if ((v = getenv("ISOTIER_ATTEST_CACHE")) && *v)
		p->cache_dir = v;
	if ((v = getenv("ISOTIER_ATTEST_MAX_VMPL")) && *v) {
		char *end;
		unsigned long n = strtoul(v, &end, 10);
		if (*end || n > 3)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "ISOTIER_ATTEST_MAX_VMPL: \"%.20s\", not 0 to 3",
			                          v);
		p->max_vmpl = (unsigned)n;
	}
	if ((v = getenv("ISOTIER_ATTEST_MIN_TCB")) && *v) {
		unsigned a, b, c, d, f = 0;
		char tail;
		int n = sscanf(v, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail);
		if (n == 5 && tail == '.')
			n = sscanf(v, "%u.%u.%u.%u.%u%c", &a, &b, &c, &d, &f, &tail) == 5 ? 4 : 0;
		if (n != 4 || a > 255 || b > 255 || c > 255 || d > 255 || f > 255)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "ISOTIER_ATTEST_MIN_TCB: \"%.40s\", not "
			                          "bootloader.tee.snp.microcode[.fmc]",
			                          v);
		p->has_min_tcb = true;
		p->min_tcb = (attest_snp_tcb){.boot_loader = (uint8_t)a,
		                              .tee = (uint8_t)b,
		                              .snp = (uint8_t)c,
		                              .microcode = (uint8_t)d,
		                              .fmc = (uint8_t)f};
	}
	static const struct {
		const char *name;
		size_t at;
	} flags[] = {
	    {"ISOTIER_ATTEST_SNP_PROVISIONAL", offsetof(attest_policy, allow_provisional)},
	    {"ISOTIER_ATTEST_SNP_NO_SMT", offsetof(attest_policy, require_no_smt)},
	    {"ISOTIER_ATTEST_SNP_SINGLE_SOCKET", offsetof(attest_policy, require_single_socket)},
	    {"ISOTIER_ATTEST_TDX_ALLOW_SEPT_VE", offsetof(attest_policy, tdx_allow_sept_ve)}};
	for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) {
		if (!(v = getenv(flags[i].name)) || !*v || !strcmp(v, "0"))
			continue;
		if (strcmp(v, "1") != 0)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "%s: \"%.20s\", not 0 or 1", flags[i].name, v);
		*(bool *)((char *)p + flags[i].at) = true;
	}
	if ((v = getenv("ISOTIER_ATTEST_SNP_MIN_ABI")) && *v) {
		unsigned major, minor;
		char tail;
		if (sscanf(v, "%u.%u%c", &major, &minor, &tail) != 2 || major > 255 || minor > 255)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "ISOTIER_ATTEST_SNP_MIN_ABI: \"%.20s\", not "
			                          "major.minor",
			                          v);
		p->min_abi_major = (uint8_t)major;
		p->min_abi_minor = (uint8_t)minor;
	}
	/* TDX values the quote must carry, hex as the quote's bytes. */
	struct {
		const char *name;
		uint8_t *buf;
		size_t len;
		bool *has;
	} tdx[] = {{"ISOTIER_ATTEST_TDX_XFAM", p->tdx_xfam, 8, &p->has_tdx_xfam},
	           {"ISOTIER_ATTEST_TDX_MRSEAM", p->tdx_mrseam, 48, &p->has_tdx_mrseam},
	           {"ISOTIER_ATTEST_TDX_RTMR0", p->tdx_rtmr[0], 48, &p->has_tdx_rtmr[0]},
	           {"ISOTIER_ATTEST_TDX_RTMR1", p->tdx_rtmr[1], 48, &p->has_tdx_rtmr[1]},
	           {"ISOTIER_ATTEST_TDX_RTMR2", p->tdx_rtmr[2], 48, &p->has_tdx_rtmr[2]},
	           {"ISOTIER_ATTEST_TDX_RTMR3", p->tdx_rtmr[3], 48, &p->has_tdx_rtmr[3]}};
	for (size_t i = 0; i < sizeof tdx / sizeof *tdx; i++) {
		size_t n = 0;
		if (!(v = getenv(tdx[i].name)) || !*v)
			continue;
		if (hex_decode(tdx[i].buf, tdx[i].len, &n, v) < 0 || n != tdx[i].len)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "%s: not %zu lowercase hex digits", tdx[i].name,
			                          2 * tdx[i].len);
		*tdx[i].has = true;
	}
	if ((v = getenv("ISOTIER_ATTEST_TDX_COLLATERAL")) && *v)
		p->tdx_collateral_dir = v;
	if ((v = getenv("ISOTIER_ATTEST_MEASUREMENT")) && *v) {
		size_t n = 0;
		if (hex_decode(mbuf, ATTEST_SNP_MEASURE_LEN, &n, v) < 0 ||
		    n != ATTEST_SNP_MEASURE_LEN)
			return isotier__error_set(
			    err, ISOTIER_EINVAL, 0,
			    "ISOTIER_ATTEST_MEASUREMENT: not 96 lowercase hex digits");
		p->measurement = mbuf;
		p->measurement_len = n;
	}
	return 0;
}

int isotier__attest_binding(uint8_t out[ATTEST_DATA_LEN], const char *nonce, const uint8_t *body,
                            size_t body_len, isotier_error *err)
{
	static const char domain[] = "isotier-attest/1"; /* and its NUL */
	uint8_t inner[64];
	unsigned n1 = 0, n2 = 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	bool ok = md && EVP_DigestInit_ex(md, EVP_sha512(), NULL) == 1 &&
	          EVP_DigestUpdate(md, body, body_len) == 1 &&
	          EVP_DigestFinal_ex(md, inner, &n1) == 1 &&
	          EVP_DigestInit_ex(md, EVP_sha512(), NULL) == 1 &&
	          EVP_DigestUpdate(md, domain, sizeof domain) == 1 &&
	          EVP_DigestUpdate(md, nonce, strlen(nonce) + 1) == 1 &&
	          EVP_DigestUpdate(md, inner, sizeof inner) == 1 &&
	          EVP_DigestFinal_ex(md, out, &n2) == 1 && n1 == 64 && n2 == 64;
	EVP_MD_CTX_free(md);
	return ok ? 0
	          : isotier__error_set(err, ISOTIER_ERROR, 0,
	                               "attestation binding: SHA-512 failed");
}

static void hex_text(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static int refuse(attest_verdict *v, isotier_error *err, const char *what)
{
	snprintf(v->detail, sizeof v->detail, "%.390s", what);
	return isotier__error_set(err, ISOTIER_EDATA, 0, "%s", what);
}

static int verify_snp(attest_verdict *v, const attest_evidence *e,
                      const uint8_t expected[ATTEST_DATA_LEN], const attest_policy *p,
                      isotier_error *err)
{
	attest_snp_report r;
	attest_snp_ek ek;
	v->tech = ATTEST_TECH_SEV_SNP;
	if (isotier__attest_snp_parse(&r, e->outblob, e->outblob_len, err) < 0)
		return refuse(v, NULL, err->message);
	bool turin = r.version >= 3 && r.cpuid_fam == 0x1A;
	attest_snp_tcb t = isotier__attest_snp_tcb_split(r.reported_tcb, turin);
	if (turin)
		snprintf(v->tcb, sizeof v->tcb,
		         "reported TCB fmc %u, bootloader %u, tee %u, snp %u, microcode %u (Turin "
		         "layout)",
		         t.fmc, t.boot_loader, t.tee, t.snp, t.microcode);
	else
		snprintf(v->tcb, sizeof v->tcb,
		         "reported TCB bootloader %u, tee %u, snp %u, microcode %u", t.boot_loader,
		         t.tee, t.snp, t.microcode);
	hex_text(v->measurement, r.measurement, ATTEST_SNP_MEASURE_LEN);
	memcpy(v->guest_id, r.report_id, sizeof v->guest_id);
	v->has_guest_id = true;
	v->measurement_judged = "recorded, not judged (no reference value configured)";
	if (isotier__attest_snp_verify(v, &r, e->outblob, e, p, &ek, err) < 0)
		return err->code;
	/* The report is genuine: now whether it is this run's and acceptable. */
	if (CRYPTO_memcmp(r.report_data, expected, ATTEST_DATA_LEN) != 0)
		return refuse(v, err,
		              "SNP report.report_data: not this run's binding (a replayed report, "
		              "or one over another probe output)");
	int rc = isotier__attest_snp_appraise(v, &r, &ek, v->product, p, err);
	if (rc < 0)
		return rc;
	if (p->measurement) {
		bool same = p->measurement_len == ATTEST_SNP_MEASURE_LEN &&
		            !memcmp(p->measurement, r.measurement, ATTEST_SNP_MEASURE_LEN);
		v->measurement_judged = same ? "matches the configured reference"
		                             : "differs from the configured reference";
		if (!same)
			return refuse(v, err,
			              "SNP report.measurement: not the configured reference");
	}
	return 0;
}

int isotier__attest_verify(attest_verdict *v, const attest_evidence *e,
                           const uint8_t expected[ATTEST_DATA_LEN], const attest_policy *p,
                           isotier_error *err)
{
	isotier_error local = {0};
	if (!err)
		err = &local;
	*v = (attest_verdict){.measurement_judged = "recorded, not judged"};
	int rc;
	const char *prov = e->provider ? e->provider : "";
	attest_policy resolved = *p;
	if (!resolved.roots_dir)
		resolved.roots_dir = isotier__attest_default_roots_dir();
	p = &resolved;
	if (!e->outblob || !e->outblob_len)
		return refuse(v, err, "attestation: empty outblob");
	if (e->outblob_len > ATTEST_MAX_OUTBLOB || e->auxblob_len > ATTEST_MAX_AUXBLOB)
		return refuse(v, err, "attestation: outblob or auxblob too large");
	if (!strcmp(prov, "sev_guest") || (!*prov && e->outblob_len == ATTEST_SNP_REPORT_LEN))
		rc = verify_snp(v, e, expected, p, err);
	else if (!strcmp(prov, "tdx_guest") || !*prov)
		rc = isotier__attest_tdx_verify(v, e, expected, p, err);
	else
		return refuse(v, err, "attestation.provider: not sev_guest or tdx_guest");
	v->valid = rc == 0;
	if (v->valid)
		snprintf(v->detail, sizeof v->detail,
		         "a genuine %s guest signed this run's binding: root %.180s; %.150s",
		         attest_tech_name(v->tech), v->root, v->tcb);
	return rc;
}

/* ---- a probe's output ---------------------------------------------------- */

#define ATTEST_MARKER "\n  \"attestation\": "

static const char *last_marker(const char *out, size_t len)
{
	const char *found = NULL;
	size_t m = strlen(ATTEST_MARKER);
	for (const char *p = out; p + m <= out + len; p++) {
		p = memmem(p, (size_t)(out + len - p), ATTEST_MARKER, m);
		if (!p)
			break;
		found = p;
	}
	return found;
}

static int blob_of(uint8_t **out, size_t *n, const cJSON *o, const char *key, size_t max,
                   isotier_error *err)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, key);
	*out = NULL;
	*n = 0;
	if (!s || cJSON_IsNull(s))
		return 0;
	if (!cJSON_IsString(s) || !(*out = malloc(max ? max : 1)) ||
	    hex_decode(*out, max, n, s->valuestring) < 0) {
		free(*out);
		*out = NULL;
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "attestation.%s: not lowercase hex of at most %zu bytes",
		                          key, max);
	}
	return 0;
}

int isotier__attest_output_parse(attest_output *o, const char *out, size_t len, const char *nonce,
                                 isotier_error *err)
{
	*o = (attest_output){0};
	snprintf(o->status, sizeof o->status, "absent");
	const char *mark = out ? last_marker(out, len) : NULL;
	if (!mark || mark == out || mark[-1] != ',')
		return 0;
	/* The body the probe hashed: everything before ",<marker>", closed. */
	size_t body_len = (size_t)(mark - 1 - out);
	cleanup_free char *body = malloc(body_len + 3);
	if (!body)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "attestation: out of memory");
	memcpy(body, out, body_len);
	memcpy(body + body_len, "\n}\n", 3);
	body_len += 3;
	/* The member must be the document's last, at its top level: the body
	 * alone must be a whole document, and nothing but "}" may follow. */
	cJSON *bdoc = isotier__json_parse(body, body_len, "attestation: the report it covers", err);
	if (!bdoc)
		return err->code;
	bool obj = cJSON_IsObject(bdoc);
	cJSON_Delete(bdoc);
	const char *val = mark + strlen(ATTEST_MARKER), *end = NULL;
	cJSON *a = cJSON_ParseWithLengthOpts(val, (size_t)(out + len - val), &end, false);
	int tail_ok = a && end ? 1 : 0; /* 2: the closing brace seen */
	for (const char *q = end; tail_ok && q < out + len; q++)
		if (*q == '}' && tail_ok != 2)
			tail_ok = 2;
		else if (*q != ' ' && *q != '\n' && *q != '\r' && *q != '\t')
			tail_ok = false;
	if (!obj || !a || !cJSON_IsObject(a) || tail_ok != 2) {
		cJSON_Delete(a);
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "attestation: not the report's last top-level member");
	}
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(a, "status");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(a, "why");
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(a, "provider");
	int rc = 0;
	if (!cJSON_IsString(st) || strlen(st->valuestring) >= sizeof o->status)
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "attestation.status: missing or too long");
	else if (prov && (!cJSON_IsString(prov) || strlen(prov->valuestring) >= sizeof o->provider))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "attestation.provider: not a short string");
	if (rc == 0) {
		snprintf(o->status, sizeof o->status, "%s", st->valuestring);
		snprintf(o->provider, sizeof o->provider, "%s", prov ? prov->valuestring : "");
		if (cJSON_IsString(why))
			snprintf(o->why, sizeof o->why, "%.150s", why->valuestring);
		rc = blob_of(&o->outblob, &o->outblob_len, a, "outblob", ATTEST_MAX_OUTBLOB, err);
	}
	if (rc == 0)
		rc = blob_of(&o->auxblob, &o->auxblob_len, a, "auxblob", ATTEST_MAX_AUXBLOB, err);
	cJSON_Delete(a);
	if (rc == 0)
		rc = isotier__attest_binding(o->binding, nonce, (const uint8_t *)body, body_len,
		                             err);
	if (rc < 0)
		isotier__attest_output_clear(o);
	return rc;
}

void isotier__attest_output_clear(attest_output *o)
{
	free(o->outblob);
	free(o->auxblob);
	o->outblob = o->auxblob = NULL;
	o->outblob_len = o->auxblob_len = 0;
}

int isotier__attest_output_verify(attest_verdict *v, const char *out, size_t len, const char *nonce,
                                  const attest_policy *p)
{
	attest_output o;
	isotier_error e = {0};
	*v = (attest_verdict){.measurement_judged = "recorded, not judged"};
	if (isotier__attest_output_parse(&o, out, len, nonce, &e) < 0) {
		snprintf(v->detail, sizeof v->detail, "%.390s", e.message);
		return -1;
	}
	if (strcmp(o.status, "ok") != 0) {
		snprintf(v->detail, sizeof v->detail, "no attestation available (%s%s%.150s)",
		         o.status, o.why[0] ? ": " : "", o.why);
		isotier__attest_output_clear(&o);
		return 0;
	}
	attest_evidence ev = {.provider = o.provider,
	                      .outblob = o.outblob,
	                      .outblob_len = o.outblob_len,
	                      .auxblob = o.auxblob,
	                      .auxblob_len = o.auxblob_len};
	int rc = isotier__attest_verify(v, &ev, o.binding, p, &e);
	isotier__attest_output_clear(&o);
	return rc == 0 ? 1 : -1;
}

const char *isotier__attest_judged_phrase(const attest_verdict *v, size_t n)
{
	bool judged = n > 0;
	for (size_t i = 0; i < n; i++)
		judged = judged && v[i].measurement_judged &&
		         !strncmp(v[i].measurement_judged, "matches", 7);
	return judged ? "attested, measurement matches the reference"
	              : "attested, measurement not judged";
}

void isotier__attest_pair_judge(attest_pair *pair, const int rc[2])
{
	char *d = pair->detail;
	size_t len = sizeof pair->detail;
	if (rc[0] < 0 || rc[1] < 0) {
		int bad = rc[0] < 0 ? 0 : 1;
		pair->outcome = ATTEST_PAIR_REJECTED;
		snprintf(d, len, "attestation refused (sandbox %d): %.500s", bad + 1,
		         pair->v[bad].detail);
		return;
	}
	if (rc[0] == 0 || rc[1] == 0) {
		int none = rc[0] == 0 ? 0 : 1;
		pair->outcome = ATTEST_PAIR_NONE;
		snprintf(d, len, "not attested: sandbox %d: %.500s", none + 1,
		         pair->v[none].detail);
		return;
	}
	const attest_verdict *a = &pair->v[0], *b = &pair->v[1];
	if (!a->has_guest_id || !b->has_guest_id || a->tech != b->tech) {
		/* A TDX quote names no guest: two of them may be one TD, and one
		 * id beside none (or two technologies) compares nothing. */
		pair->outcome = ATTEST_PAIR_UNPAIRED;
		if (a->tech != b->tech)
			snprintf(d, len,
			         "both reports verify, but one is %s and the other %s: their "
			         "guests are not compared, two guests are not shown",
			         attest_tech_name(a->tech), attest_tech_name(b->tech));
		else
			snprintf(d, len,
			         "both %s reports verify, but they carry no per-guest id: two "
			         "guests are not shown",
			         attest_tech_name(a->tech));
		return;
	}
	if (!memcmp(a->guest_id, b->guest_id, sizeof a->guest_id)) {
		pair->outcome = ATTEST_PAIR_ONE_GUEST;
		snprintf(d, len,
		         "both reports verify but carry one report_id: one guest answered "
		         "for both sandboxes (a shared guest)");
		return;
	}
	pair->outcome = ATTEST_PAIR_ATTESTED;
	snprintf(d, len,
	         "two %s guests, each bound to its own run; root %.200s; "
	         "%.100s; measurement %.16s... %s",
	         attest_tech_name(a->tech), a->root, a->tcb, a->measurement, a->measurement_judged);
}
