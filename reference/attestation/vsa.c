/* SPDX-License-Identifier: Apache-2.0 */
/* vsa.c - a SLSA Verification Summary Attestation (v1,
 * https://slsa.dev/spec/v1.0/verification_summary) of one backend on this
 * host, signed like every statement (statement.h): what an admission
 * controller or supply-chain tool reads instead of isotier's own rows. */
#include "statement.h"
#include "../core/paths.h"

#include <cJSON.h>
#include <stdio.h>
#include <string.h>

int isotier__vsa_sign(const isotier_identity *id, const isotier_vsa *v, char **envelope,
                      isotier_error *err)
{
	*envelope = NULL;
	char machine[65], host_id[65], claim_sha[65] = "", input_sha[65] = "";
	isotier__machine_digest(v->host_id, machine);
	isotier__host_id_of(id->key_id, machine, host_id);
	if (v->claim_digest &&
	    isotier__sha256_hex(v->claim_digest, strlen(v->claim_digest), claim_sha) < 0)
		claim_sha[0] = '\0';
	if (v->input_envelope &&
	    isotier__sha256_hex(v->input_envelope, strlen(v->input_envelope), input_sha) < 0)
		input_sha[0] = '\0';
	char resource[300], verifier[200], level[64], input_uri[128];
	snprintf(resource, sizeof resource, "isotier:host/%s/backend/%s", host_id, v->backend);
	snprintf(verifier, sizeof verifier, "https://isotier.dev/verifier/host/%s", id->host_id);
	snprintf(level, sizeof level, "ISOTIER_TIER_%s", v->tier ? v->tier : "UNKNOWN");
	snprintf(input_uri, sizeof input_uri, "isotier:observation/%s",
	         v->input_uuid ? v->input_uuid : "none");

	cJSON *st = cJSON_CreateObject();
	cJSON_AddStringToObject(st, "_type", ISOTIER_STATEMENT_TYPE);
	cJSON *s = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(st, "subject"), s);
	cJSON_AddStringToObject(s, "name", resource);
	/* A subject needs a digest: the claim judged (none: of the empty text). */
	if (!claim_sha[0])
		isotier__sha256_hex("", 0, claim_sha);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "digest"), "sha256", claim_sha);
	cJSON_AddStringToObject(st, "predicateType", ISOTIER_PREDICATE_VSA);
	cJSON *p = cJSON_AddObjectToObject(st, "predicate");
	cJSON *ver = cJSON_AddObjectToObject(p, "verifier");
	cJSON_AddStringToObject(ver, "id", verifier);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(ver, "version"), "isotier",
	                        ISOTIER_VERSION);
	cJSON_AddStringToObject(p, "timeVerified", v->time_verified);
	cJSON_AddStringToObject(p, "resourceUri", resource);
	cJSON *policy = cJSON_AddObjectToObject(p, "policy");
	cJSON_AddStringToObject(policy, "uri", ISOTIER_PREDICATE_OBSERVATION "#claimed-tier");
	if (v->claim_digest)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(policy, "digest"), "sha256",
		                        claim_sha);
	cJSON *inputs = cJSON_AddArrayToObject(p, "inputAttestations");
	if (input_sha[0]) {
		cJSON *in = cJSON_CreateObject();
		cJSON_AddItemToArray(inputs, in);
		cJSON_AddStringToObject(in, "uri", input_uri);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(in, "digest"), "sha256", input_sha);
	}
	cJSON_AddStringToObject(p, "verificationResult", v->passed ? "PASSED" : "FAILED");
	cJSON *levels = cJSON_AddArrayToObject(p, "verifiedLevels");
	if (v->passed)
		cJSON_AddItemToArray(levels, cJSON_CreateString(level));
	cJSON_AddStringToObject(p, "slsaVersion", "1.0");
	cleanup_free char *body = isotier__json_print(st, false);
	cJSON_Delete(st);
	if (!body)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "sign summary: out of memory");
	return isotier__dsse_sign(id, ISOTIER_DSSE_PAYLOAD_TYPE, body, strlen(body), envelope, err);
}
