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
