/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_attested.c - which CONFIRMED observations hardware attestation
 * proved (ADR-0020), as a fact every writer shows, never read back out of
 * the reason's words. verify stores the fact in the observation's
 * layers_json: the object form {"attested":true,"layers":[...]}, a wrapper
 * isotier writes around the layers it printed itself (verify_judge.c), so no
 * sandbox output can make one.
 *
 * Only an observation that can be attested is read: CONFIRMED, of a MICROVM
 * claim (the one claim attestation confirms), of an offering that is not a
 * local backend (a remote provider, or one the catalogue does not know).
 * The history's scan hands over the layers_json of those alone, as each
 * streams past (isotier_report_observation_row.attest_layers).
 */
#include "report_model.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *report_verdict_shown(const report_observation *o)
{
	if (!o)
		return NULL;
	return o->attested && o->v == RV_CONFIRMED ? "CONFIRMED (attested)" : o->verdict;
}

bool report_attest_candidate(const report_model *m, const report_observation *o)
{
	if (o->v != RV_CONFIRMED || !o->claimed_tier || strcmp(o->claimed_tier, "MICROVM"))
		return false;
	for (size_t i = 0; o->provider_id && i < m->n_providers; i++)
		if (!strcmp(m->providers[i].id, o->provider_id))
			return !m->providers[i].kind || strcmp(m->providers[i].kind, "local") != 0;
	return true;
}

bool report_layers_attested(const char *layers)
{
	size_t len = layers ? strnlen(layers, REPORT_LAYERS_JSON_MAX + 1) : 0;
	if (!len || len > REPORT_LAYERS_JSON_MAX)
		return false; /* none, or over the bound: not shown as attested */
	isotier_error err = {0};
	cJSON *doc = isotier__json_parse(layers, len, "layers_json", &err);
	/* Fail closed: only the exact form verify writes counts. */
	bool attested = cJSON_IsObject(doc) &&
	                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "attested")) &&
	                cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "layers"));
	cJSON_Delete(doc);
	return attested;
}

/* The keys a report trusts: this host's and ISOTIER_TRUSTED_KEYS, read
 * once per process (a report of a fleet marks another host's attested row
 * only when that host's key is listed). */
static isotier_keyring report_keys;
static bool report_keys_loaded;
static char report_keys_from[8192]; /* the settings they were read with */

static void report_keys_release(void)
{
	isotier__keyring_clear(&report_keys);
}

/* Loads the keys again when the identity or the trusted list changed (a
 * process that renders reports for several settings). */
static void report_keys_load(void)
{
	char from[sizeof report_keys_from], dir[3072] = "";
	isotier_error ignored = {0};
	isotier__identity_dir(dir, sizeof dir, &ignored);
	const char *trusted = getenv("ISOTIER_TRUSTED_KEYS");
	snprintf(from, sizeof from, "%s\n%.4000s", dir, trusted ? trusted : "");
	if (report_keys_loaded && !strcmp(from, report_keys_from))
		return;
	if (report_keys_loaded)
		isotier__keyring_clear(&report_keys);
	else
		atexit(report_keys_release);
	isotier__keyring_load(&report_keys);
	report_keys_loaded = true;
	snprintf(report_keys_from, sizeof report_keys_from, "%s", from);
}

bool report_statement_attested(const char *statement, const char *backend, const char *host_id)
{
	if (!statement || !*statement || !backend)
		return false;
	report_keys_load();
	isotier_error err = {0};
	char key_id[65], machine[65];
	char *body = NULL;
	if (isotier__statement_open(statement, strlen(statement), &report_keys, &body, key_id,
	                            &err) < 0)
		return false;
	cJSON *st = isotier__json_parse(body, strlen(body), "statement", &err);
	free(body);
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(st, "predicate");
	const cJSON *att = cJSON_GetObjectItemCaseSensitive(p, "attestation");
	const cJSON *obs = cJSON_GetObjectItemCaseSensitive(p, "observation");
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(p, "host");
	const char *b = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obs, "backend"));
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "verdict"));
	const char *m =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(host, "machineIdSha256"));
	const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(host, "keyId"));
	isotier__machine_digest(host_id, machine);
	/* Fail closed: the signed statement itself must say attested, of this
	 * backend and host, CONFIRMED, signed by the key it names. */
	bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(att, "attested")) && b &&
	          !strcmp(b, backend) && v && !strcmp(v, "CONFIRMED") && m && machine[0] &&
	          !strcmp(m, machine) && k && !strcmp(k, key_id);
	cJSON_Delete(st);
	return ok;
}
