/* SPDX-License-Identifier: Apache-2.0 */
/* report_oscal.c - the report as an OSCAL 1.1 assessment-results document
 * (JSON; NIST's schema: tests/fixtures/oscal/), for auditors' tools: one
 * observation per backend row (its latest observation in range), one
 * finding per row, "satisfied" only when that observation proves the claim
 * (CONFIRMED or CONSISTENT). Every UUID is a version 5 UUID of what it
 * names, and every time comes from the history, so the same history gives
 * the same bytes. */
#include "report_format.h"
#include "report_model.h"

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#define OSCAL_VERSION "1.1.1"
/* isotier's namespace for its OSCAL UUIDs (a random UUID, fixed here). */
static const unsigned char oscal_ns[16] = {0x3b, 0x6e, 0x1f, 0x52, 0x9a, 0x44, 0x4c, 0x0d,
                                           0x8e, 0x27, 0x61, 0xf0, 0x5c, 0x3a, 0xd2, 0x19};

/* RFC 9562 version 5: SHA-1 of the namespace and the name. */
static void uuid5(char out[37], const char *kind, const char *a, const char *b)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	bool ok = c && EVP_DigestInit_ex(c, EVP_sha1(), NULL) == 1 &&
	          EVP_DigestUpdate(c, oscal_ns, sizeof oscal_ns) == 1 &&
	          EVP_DigestUpdate(c, kind, strlen(kind) + 1) == 1 &&
	          EVP_DigestUpdate(c, a ? a : "", strlen(a ? a : "") + 1) == 1 &&
	          EVP_DigestUpdate(c, b ? b : "", strlen(b ? b : "")) == 1 &&
	          EVP_DigestFinal_ex(c, md, &len) == 1 && len >= 16;
	EVP_MD_CTX_free(c);
	if (!ok)
		memset(md, 0, 16);
	md[6] = (unsigned char)((md[6] & 0x0f) | 0x50);
	md[8] = (unsigned char)((md[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         md[0], md[1], md[2], md[3], md[4], md[5], md[6], md[7], md[8], md[9], md[10],
	         md[11], md[12], md[13], md[14], md[15]);
}

/* OSCAL strings may not be empty nor start or end with white space. */
static const char *text(const char *s, const char *fallback)
{
	if (!s || !*s || s[0] == ' ' || s[strlen(s) - 1] == ' ')
		return fallback;
	return s;
}

/* A time OSCAL reads (with its zone): the history's UTC form, else NULL. */
static const char *when(const char *t)
{
	return t && strlen(t) == 20 && t[10] == 'T' && t[19] == 'Z' ? t : NULL;
}

static void prop(cJSON *props, const char *name, const char *value)
{
	if (!value || !*value)
		return;
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "name", name);
	cJSON_AddStringToObject(p, "value", text(value, "?"));
	cJSON_AddStringToObject(p, "ns", "https://isotier.dev/oscal");
	cJSON_AddItemToArray(props, p);
}

static bool proves(const report_observation *o)
{
	return o && (o->v == RV_CONFIRMED || o->v == RV_CONSISTENT);
}

static const char *row_name(const report_row *r)
{
	return r->backend ? r->backend : r->provider_id ? r->provider_id : "?";
}

int report_write_oscal(FILE *f, const report_model *m)
{
	const char *epoch = "1970-01-01T00:00:00Z";
	const char *newest = when(m->newest_record) ? m->newest_record : epoch;
	const char *start = NULL;
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_observation *o = m->rows[i].latest;
		if (o && when(o->observed_at) && (!start || strcmp(o->observed_at, start) < 0))
			start = o->observed_at;
	}
	char id[37];
	cJSON *doc = cJSON_CreateObject();
	cJSON *ar = cJSON_AddObjectToObject(doc, "assessment-results");
	uuid5(id, "assessment-results", newest, NULL);
	cJSON_AddStringToObject(ar, "uuid", id);
	cJSON *meta = cJSON_AddObjectToObject(ar, "metadata");
	cJSON_AddStringToObject(meta, "title", "isotier: isolation tiers of sandbox backends");
	cJSON_AddStringToObject(meta, "last-modified", newest);
	cJSON_AddStringToObject(meta, "version", ISOTIER_VERSION);
	cJSON_AddStringToObject(meta, "oscal-version", OSCAL_VERSION);
	cJSON *ap = cJSON_AddObjectToObject(ar, "import-ap");
	cJSON_AddStringToObject(ap, "href",
	                        "https://isotier.dev/oscal/assessment-plan/claimed-tier");
	cJSON_AddStringToObject(ap, "remarks",
	                        "Each backend's claimed isolation tier, from isotier's provider "
	                        "catalogue, verified by its probe and judge.");
	cJSON *results = cJSON_AddArrayToObject(ar, "results");
	cJSON *res = cJSON_CreateObject();
	cJSON_AddItemToArray(results, res);
	uuid5(id, "result", newest, NULL);
	cJSON_AddStringToObject(res, "uuid", id);
	cJSON_AddStringToObject(res, "title", "Isolation tier verification");
	cJSON_AddStringToObject(
	    res, "description",
	    "The latest observation of each backend in the history, and whether "
	    "it proves the catalogue's claimed tier (CONFIRMED or CONSISTENT).");
	cJSON_AddStringToObject(res, "start", start ? start : newest);
	cJSON_AddStringToObject(res, "end", newest);
	cJSON *sel = cJSON_CreateObject();
	cJSON_AddObjectToObject(sel, "include-all");
	cJSON_AddItemToArray(
	    cJSON_AddArrayToObject(cJSON_AddObjectToObject(res, "reviewed-controls"),
	                           "control-selections"),
	    sel);
	cJSON *observations = cJSON_CreateArray(), *findings = cJSON_CreateArray();
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[i];
		const report_observation *o = r->latest;
		if (!o)
			continue;
		char oid[37], fid[37], num[32];
		snprintf(num, sizeof num, "%lld", (long long)o->id);
		uuid5(oid, "observation", row_name(r), num);
		uuid5(fid, "finding", row_name(r), num);
		cJSON *ob = cJSON_CreateObject();
		cJSON_AddItemToArray(observations, ob);
		cJSON_AddStringToObject(ob, "uuid", oid);
		char title[300];
		snprintf(title, sizeof title, "%s: %s", row_name(r), text(o->verdict, "?"));
		cJSON_AddStringToObject(ob, "title", title);
		cJSON_AddStringToObject(ob, "description", text(o->reason, "No reason recorded."));
		cJSON *props = cJSON_AddArrayToObject(ob, "props");
		prop(props, "backend", row_name(r));
		prop(props, "provider", r->provider_id);
		prop(props, "claimed-tier", o->claimed_tier);
		prop(props, "observed-tier", o->observed_tier);
		prop(props, "verdict", o->verdict);
		prop(props, "kernel-relation", o->kernel_relation);
		prop(props, "host-id", o->host_id);
		prop(props, "attested", o->attested ? "true" : "false");
		prop(props, "imported", o->imported ? "true" : "false");
		prop(props, "unsigned", o->unsigned_row ? "true" : "false");
		prop(props, "evidence-sha256", o->evidence_sha256);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(ob, "methods"),
		                     cJSON_CreateString("TEST"));
		cJSON *subj = cJSON_CreateObject();
		char sid[37];
		uuid5(sid, "component", row_name(r), NULL);
		cJSON_AddStringToObject(subj, "subject-uuid", sid);
		cJSON_AddStringToObject(subj, "type", "component");
		cJSON_AddItemToArray(cJSON_AddArrayToObject(ob, "subjects"), subj);
		cJSON *ev = cJSON_CreateObject();
		char evd[200];
		snprintf(evd, sizeof evd,
		         "Observation #%lld in the history: `isotier history show %lld` shows its "
		         "probe output and evidence; `isotier attest export` its signed statement.",
		         (long long)o->id, (long long)o->id);
		cJSON_AddStringToObject(ev, "description", evd);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(ob, "relevant-evidence"), ev);
		cJSON_AddStringToObject(ob, "collected",
		                        when(o->observed_at) ? o->observed_at : newest);

		cJSON *fi = cJSON_CreateObject();
		cJSON_AddItemToArray(findings, fi);
		cJSON_AddStringToObject(fi, "uuid", fid);
		snprintf(title, sizeof title, "%s claims %s", row_name(r),
		         text(r->claimed_tier, "no tier"));
		cJSON_AddStringToObject(fi, "title", title);
		cJSON_AddStringToObject(fi, "description", text(r->state, "No state."));
		cJSON *target = cJSON_AddObjectToObject(fi, "target");
		cJSON_AddStringToObject(target, "type", "objective-id");
		char tid[200];
		snprintf(tid, sizeof tid, "isotier-claimed-tier-%s", row_name(r));
		cJSON_AddStringToObject(target, "target-id", tid);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(target, "status"), "state",
		                        proves(o) ? "satisfied" : "not-satisfied");
		cJSON *rel = cJSON_CreateObject();
		cJSON_AddStringToObject(rel, "observation-uuid", oid);
		cJSON_AddItemToArray(cJSON_AddArrayToObject(fi, "related-observations"), rel);
	}
	/* Arrays OSCAL allows only non-empty. */
	if (cJSON_GetArraySize(observations))
		cJSON_AddItemToObject(res, "observations", observations);
	else
		cJSON_Delete(observations);
	if (cJSON_GetArraySize(findings))
		cJSON_AddItemToObject(res, "findings", findings);
	else
		cJSON_Delete(findings);
	char *out = isotier__json_print(doc, true);
	cJSON_Delete(doc);
	if (!out)
		return ISOTIER_ENOMEM;
	int rc = fputs(out, f) >= 0 && fputc('\n', f) != EOF ? 0 : ISOTIER_EIO;
	free(out);
	return rc;
}

const report_format report_format_oscal = {
    "oscal", "json", "application/json",
    "auditors' tools: OSCAL 1.1 assessment results (a finding per backend)", report_write_oscal};
