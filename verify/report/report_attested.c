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
 * Those are few, so every one in range is read, not only those shown.
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

static bool candidate(const report_model *m, const report_observation *o)
{
	if (o->v != RV_CONFIRMED || !o->claimed_tier || strcmp(o->claimed_tier, "MICROVM"))
		return false;
	for (size_t i = 0; o->provider_id && i < m->n_providers; i++)
		if (!strcmp(m->providers[i].id, o->provider_id))
			return !m->providers[i].kind || strcmp(m->providers[i].kind, "local") != 0;
	return true;
}

typedef struct attested_ctx {
	report_observation **of;
} attested_ctx;

static int mark(void *ctx, size_t i, const char *layers, const char *probe)
{
	(void)probe;
	attested_ctx *c = ctx;
	size_t len = layers ? strnlen(layers, REPORT_LAYERS_JSON_MAX + 1) : 0;
	if (!len || len > REPORT_LAYERS_JSON_MAX)
		return 0; /* none, or over the bound: not shown as attested */
	isotier_error err = {0};
	cJSON *doc = isotier_json_parse(layers, len, "layers_json", &err);
	/* Fail closed: only the exact form verify writes counts. */
	c->of[i]->attested = cJSON_IsObject(doc) &&
	                     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "attested")) &&
	                     cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "layers"));
	cJSON_Delete(doc);
	return 0;
}

int report_load_attested(report_model *m, isotier_history *h, isotier_error *err)
{
	size_t k = 0;
	for (size_t i = 0; i < m->n_observations; i++)
		k += candidate(m, &m->observations[i]);
	if (!k)
		return 0;
	report_observation **of = report_arena_alloc(&m->arena, k * sizeof *of);
	int64_t *ids = report_arena_alloc(&m->arena, k * sizeof *ids);
	if (!of || !ids)
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	k = 0;
	for (size_t i = 0; i < m->n_observations; i++)
		if (candidate(m, &m->observations[i]))
			of[k] = &m->observations[i], ids[k++] = m->observations[i].id;
	attested_ctx c = {.of = of};
	/* probe_json is not needed: read none of it. */
	int rc = isotier_history_observation_documents(h, ids, k, REPORT_LAYERS_JSON_MAX, 0, mark,
	                                               &c, err);
	return rc < 0 ? rc : 0;
}
