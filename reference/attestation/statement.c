/* SPDX-License-Identifier: Apache-2.0 */
/* statement.c - an observation as an in-toto statement (statement.h): made
 * from the row verify stores, signed in a DSSE envelope, and checked
 * against a row the gate reads. The predicate's fields are documented in
 * runbook/statements.md; a field added there is added here. */
#include "statement.h"
#include "../core/paths.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sha_of(const char *text, char out[65])
{
	if (isotier__sha256_hex(text ? text : "", text ? strlen(text) : 0, out) < 0)
		out[0] = '\0';
}

/* text or JSON null: the statement says "not known" as the row does. */
static cJSON *add_text(cJSON *obj, const char *name, const char *text)
{
	return text ? cJSON_AddStringToObject(obj, name, text) : cJSON_AddNullToObject(obj, name);
}

static cJSON *make_statement(const isotier_identity *id, const isotier_observation_record *o,
                             const isotier_statement_facts *f, const char *signed_at)
{
	char claim_sha[65], subject[300], probe_sha[65] = "", evidence_sha[65] = "";
	/* The host the row names (verify's: this host's machine id), under the
	 * key that signs: host.id binds the two. */
	char machine[65], host_id[65];
	isotier__machine_digest(o->host_id, machine);
	isotier__host_id_of(id->key_id, machine, host_id);
	sha_of(o->claim_digest, claim_sha);
	snprintf(subject, sizeof subject, "isotier:host/%s/backend/%s", host_id, o->backend);
	if (o->probe_json && isotier__sha256_hex(o->probe_json, o->probe_json_len, probe_sha) < 0)
		probe_sha[0] = '\0';
	if (o->evidence && o->evidence_len &&
	    isotier__sha256_hex(o->evidence, o->evidence_len, evidence_sha) < 0)
		evidence_sha[0] = '\0';
	cJSON *st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "_type", ISOTIER_STATEMENT_TYPE);
	cJSON *subjects = cJSON_AddArrayToObject(st, "subject");
	cJSON *s = cJSON_CreateObject();
	cJSON_AddItemToArray(subjects, s);
	cJSON_AddStringToObject(s, "name", subject);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "digest"), "sha256", claim_sha);
	cJSON_AddStringToObject(st, "predicateType", ISOTIER_PREDICATE_OBSERVATION);
	cJSON *p = cJSON_AddObjectToObject(st, "predicate");

	cJSON *host = cJSON_AddObjectToObject(p, "host");
	cJSON_AddStringToObject(host, "id", host_id);
	cJSON_AddStringToObject(host, "keyId", id->key_id);
	cJSON_AddStringToObject(host, "machineIdSha256", machine);

	cJSON *ob = cJSON_AddObjectToObject(p, "observation");
	add_text(ob, "uuid", o->uuid);
	add_text(ob, "backend", o->backend);
	add_text(ob, "observedAt", o->observed_at);
	cJSON_AddNumberToObject(ob, "durationMs", (double)o->duration_ms);

	cJSON *claim = cJSON_AddObjectToObject(p, "claim");
	add_text(claim, "provider", o->provider_id);
	add_text(claim, "tier", o->claimed_tier);
	add_text(claim, "mechanism", o->claimed_mechanism);
	if (o->claim_digest)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(claim, "digest"), "sha256",
		                        claim_sha);
	else
		cJSON_AddNullToObject(claim, "digest");
	cJSON *srcs = cJSON_AddArrayToObject(claim, "sources");
	if (f && f->source_url) {
		cJSON *one = cJSON_CreateObject();
		cJSON_AddItemToArray(srcs, one);
		add_text(one, "url", f->source_url);
		add_text(one, "retrieved", f->source_retrieved);
	}

	add_text(p, "observedTier", o->observed_tier);
	add_text(p, "ceilingTier", o->ceiling_tier);
	add_text(p, "resolvedTier", f ? f->resolved_tier : NULL);
	add_text(p, "verdict", o->verdict);
	add_text(p, "reason", o->reason);
	add_text(p, "nonce", f && f->nonce && *f->nonce ? f->nonce : NULL);
	add_text(p, "challenge", f && f->challenge && *f->challenge ? f->challenge : NULL);
	add_text(p, "kernelRelation", o->kernel_relation);
	cJSON *att = cJSON_AddObjectToObject(p, "attestation");
	cJSON_AddBoolToObject(att, "attested", f && f->attested);
	add_text(att, "summary", f && f->attestation && *f->attestation ? f->attestation : NULL);

	cJSON *ev = cJSON_AddObjectToObject(p, "evidence");
	add_text(ev, "probeOutputSha256", probe_sha[0] ? probe_sha : NULL);
	add_text(ev, "captureSha256", evidence_sha[0] ? evidence_sha : NULL);
	add_text(ev, "captureFormat", evidence_sha[0] ? o->evidence_format : NULL);

	cJSON *tool = cJSON_AddObjectToObject(p, "tool");
	cJSON_AddStringToObject(tool, "name", "isotier");
	cJSON_AddStringToObject(tool, "version", ISOTIER_VERSION);
	cJSON *times = cJSON_AddObjectToObject(p, "times");
	add_text(times, "observedAt", o->observed_at);
	add_text(times, "signedAt", signed_at);
	return st;
}

int isotier__statement_sign(const isotier_identity *id, const isotier_observation_record *o,
                            const isotier_statement_facts *facts, char **envelope,
                            isotier_error *err)
{
	*envelope = NULL;
	if (!id->key || !o->uuid || !o->observed_at)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "sign statement: no key, id or time for the observation");
	char now[32];
	isotier__utc_now(now, sizeof now);
	cJSON *st = make_statement(id, o, facts, now);
	/* Every string the statement holds is valid UTF-8 (isotier__json_print). */
	cleanup_free char *body = st ? isotier__json_print(st, false) : NULL;
	cJSON_Delete(st);
	if (!body)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "sign statement: out of memory");
	return isotier__dsse_sign(id, ISOTIER_DSSE_PAYLOAD_TYPE, body, strlen(body), envelope, err);
}

int isotier__statement_open(const char *envelope, size_t len, const isotier_keyring *kr,
                            char **statement, char key_id[65], isotier_error *err)
{
	size_t plen = 0;
	int rc = isotier__dsse_open(envelope, len, kr, statement, &plen, key_id, err);
	if (rc < 0)
		return rc;
	cJSON *st = isotier__json_parse(*statement, plen, "statement", err);
	const cJSON *type = st ? cJSON_GetObjectItemCaseSensitive(st, "_type") : NULL;
	const cJSON *pt = st ? cJSON_GetObjectItemCaseSensitive(st, "predicateType") : NULL;
	if (!st)
		rc = ISOTIER_EDATA;
	else if (!cJSON_IsString(type) || strcmp(type->valuestring, ISOTIER_STATEMENT_TYPE))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "statement: _type is not %s",
		                        ISOTIER_STATEMENT_TYPE);
	else if (!cJSON_IsString(pt))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "statement: no predicateType");
	cJSON_Delete(st);
	if (rc < 0) {
		free(*statement);
		*statement = NULL;
	}
	return rc;
}

/* The string at a path of objects, or NULL (absent or null); *bad when it
 * is there but not a string. */
static const char *text_at(const cJSON *o, const char *a, const char *b, bool *bad)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_IsObject(x) ? cJSON_GetObjectItemCaseSensitive(x, b) : NULL;
	if (!x || cJSON_IsNull(x))
		return NULL;
	if (!cJSON_IsString(x)) {
		*bad = true;
		return NULL;
	}
	return x->valuestring;
}

/* predicate.claim.digest.sha256; NULL when the digest is null. */
static const char *claim_sha_of(const cJSON *p, bool *bad)
{
	const cJSON *claim = cJSON_GetObjectItemCaseSensitive(p, "claim");
	const cJSON *d =
	    cJSON_IsObject(claim) ? cJSON_GetObjectItemCaseSensitive(claim, "digest") : NULL;
	if (!d || cJSON_IsNull(d))
		return NULL;
	return text_at(d, "sha256", NULL, bad);
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

bool isotier__statement_check(const char *envelope, const isotier_keyring *kr,
                              const isotier_statement_row *row, char *why, size_t why_len)
{
	if (!envelope || !*envelope) {
		snprintf(why, why_len, "signature check: the row has no signed statement");
		return false;
	}
	isotier_error err = {0};
	cleanup_free char *body = NULL;
	char key_id[65];
	if (isotier__statement_open(envelope, strlen(envelope), kr, &body, key_id, &err) < 0) {
		snprintf(why, why_len, "signature check: %s", err.message);
		return false;
	}
	cJSON *st = isotier__json_parse(body, strlen(body), "statement", &err);
	const cJSON *p = st ? cJSON_GetObjectItemCaseSensitive(st, "predicate") : NULL;
	const cJSON *pt = st ? cJSON_GetObjectItemCaseSensitive(st, "predicateType") : NULL;
	bool bad = false;
	char machine[65], host[65], claim_sha[65];
	isotier__machine_digest(row->host_id, machine);
	sha_of(row->claim_digest, claim_sha);
	const char *s_key = text_at(p, "host", "keyId", &bad);
	const char *s_machine = text_at(p, "host", "machineIdSha256", &bad);
	const char *s_host = text_at(p, "host", "id", &bad);
	isotier__host_id_of(s_key ? s_key : "", s_machine ? s_machine : "", host);
	const char *field = NULL;
	if (!cJSON_IsObject(p) || !cJSON_IsString(pt) ||
	    strcmp(pt->valuestring, ISOTIER_PREDICATE_OBSERVATION))
		field = "predicateType";
	else if (!same(s_key, key_id))
		field = "host.keyId (not the key that signed it)";
	else if (!same(s_host, host))
		field = "host.id";
	else if (!s_machine || !*machine || strcmp(s_machine, machine))
		field = "host.machineIdSha256 (another host's statement)";
	else if (!same(text_at(p, "observation", "uuid", &bad), row->uuid))
		field = "observation.uuid (a copied row)";
	else if (!same(text_at(p, "observation", "backend", &bad), row->backend))
		field = "observation.backend";
	else if (!same(text_at(p, "observation", "observedAt", &bad), row->observed_at))
		field = "observation.observedAt";
	else if (!same(text_at(p, "verdict", NULL, &bad), row->verdict))
		field = "verdict";
	else if (!same(text_at(p, "ceilingTier", NULL, &bad), row->ceiling_tier))
		field = "ceilingTier";
	else if (!same(row->claim_digest ? claim_sha : NULL, claim_sha_of(p, &bad)))
		field = "claim.digest";
	else if (bad)
		field = "a field that is not a string";
	cJSON_Delete(st);
	if (field) {
		snprintf(why, why_len,
		         "signature check: the signed statement (key %.16s) does not say what the "
		         "row says: %s",
		         key_id, field);
		return false;
	}
	return true;
}
