/* SPDX-License-Identifier: Apache-2.0 */
/* probe_result.c - parse the probe's "isotier.probe/1" JSON as hostile input. */
#include "probe_result.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PROBE_SCHEMA "isotier.probe/1"

static const char *const tier_names[] = {"UNKNOWN", "NONE", "CONTAINER", "GVISOR", "MICROVM"};
static const char *const kind_names[] = {"vm", "gvisor", "container"};
static const char *const confidence_names[] = {"none", "low", "high"};

const char *isotier__probe_tier_name(probe_tier t)
{
	return (unsigned)t < sizeof tier_names / sizeof *tier_names ? tier_names[t] : "UNKNOWN";
}

const char *isotier__probe_layer_kind_name(probe_layer_kind k)
{
	return (unsigned)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "?";
}

probe_tier isotier__probe_layer_tier(probe_layer_kind k)
{
	switch (k) {
	case PROBE_LAYER_VM: return PROBE_TIER_MICROVM;
	case PROBE_LAYER_GVISOR: return PROBE_TIER_GVISOR;
	case PROBE_LAYER_CONTAINER: return PROBE_TIER_CONTAINER;
	}
	return PROBE_TIER_UNKNOWN;
}

int isotier__probe_tier_rank(probe_tier t)
{
	switch (t) {
	case PROBE_TIER_NONE: return 0;
	case PROBE_TIER_CONTAINER: return 1;
	case PROBE_TIER_GVISOR: return 2;
	case PROBE_TIER_MICROVM: return 3;
	case PROBE_TIER_UNKNOWN: break;
	}
	return -1;
}

const char *isotier__probe_result_vendor(const probe_result *r)
{
	const char *v = r->n_layers ? r->layers[r->n_layers - 1].vendor : "";
	return strcasecmp(v, "unknown") && strcasecmp(v, "none") ? v : "";
}

void isotier__probe_result_clear(probe_result *r)
{
	if (!r)
		return;
	cJSON_free(r->layers_json);
	cJSON_free(r->doc_json);
	isotier__probe_run_clear(&r->run);
	memset(r, 0, sizeof *r);
	r->duration_us = -1;
}

/* A bounded, printable string (no control characters, no bytes >= 0x7f:
 * these names end up in terminals, SQL rows and reports). optional: a
 * missing member is fine (dst stays ""); null is never a string. */
static int copy_name(char *dst, size_t dst_len, const cJSON *item, const char *field, bool optional,
                     isotier_error *err)
{
	dst[0] = '\0';
	if (!item) {
		if (optional)
			return 0;
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: missing", field);
	}
	if (!cJSON_IsString(item) || !item->valuestring)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not a string", field);
	size_t n = strlen(item->valuestring);
	if (n >= dst_len)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: longer than %zu bytes", field,
		                          dst_len - 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)item->valuestring[i];
		if (c < 0x20 || c >= 0x7f)
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "%s: byte 0x%02x at offset %zu is not printable ASCII", field, c, i);
	}
	memcpy(dst, item->valuestring, n + 1);
	return 0;
}

static int parse_enum(int *out, const cJSON *item, const char *field, const char *const *names,
                      size_t n_names, isotier_error *err)
{
	char buf[PROBE_RESULT_NAME_MAX];
	int rc = copy_name(buf, sizeof buf, item, field, false, err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n_names; i++)
		if (!strcmp(buf, names[i])) {
			*out = (int)i;
			return 0;
		}
	return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: unknown value \"%s\"", field, buf);
}

static int parse_confidence(probe_result *r, const cJSON *item, isotier_error *err)
{
	int c = 0;
	int rc = parse_enum(&c, item, "confidence", confidence_names,
	                    sizeof confidence_names / sizeof *confidence_names, err);
	if (rc < 0)
		return rc;
	r->confidence = (probe_confidence)c;
	snprintf(r->confidence_text, sizeof r->confidence_text, "%s", confidence_names[c]);
	return 0;
}

static int parse_layer(probe_layer *l, const cJSON *item, size_t index, isotier_error *err)
{
	char field[64];
	snprintf(field, sizeof field, "layers[%zu]", index);
	if (!cJSON_IsObject(item))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not an object", field);
	int kind = 0, rc;
	snprintf(field, sizeof field, "layers[%zu].kind", index);
	if ((rc = parse_enum(&kind, cJSON_GetObjectItemCaseSensitive(item, "kind"), field,
	                     kind_names, sizeof kind_names / sizeof *kind_names, err)) < 0)
		return rc;
	l->kind = (probe_layer_kind)kind;
	snprintf(field, sizeof field, "layers[%zu].vendor", index);
	if ((rc = copy_name(l->vendor, sizeof l->vendor,
	                    cJSON_GetObjectItemCaseSensitive(item, "vendor"), field, false, err)) <
	    0)
		return rc;
	snprintf(field, sizeof field, "layers[%zu].hypervisor", index);
	if ((rc = copy_name(l->hypervisor, sizeof l->hypervisor,
	                    cJSON_GetObjectItemCaseSensitive(item, "hypervisor"), field, true,
	                    err)) < 0)
		return rc;
	const cJSON *signals = cJSON_GetObjectItemCaseSensitive(item, "signals");
	snprintf(field, sizeof field, "layers[%zu].signals", index);
	if (!signals)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: missing", field);
	{
		if (!cJSON_IsArray(signals))
			return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not an array", field);
		int n = cJSON_GetArraySize(signals);
		if (n > PROBE_RESULT_MAX_SIGNALS)
			return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: more than %d entries",
			                          field, PROBE_RESULT_MAX_SIGNALS);
		l->n_signals = (size_t)n;
	}
	return 0;
}

static int parse_count(size_t *out, const cJSON *doc, const char *field, isotier_error *err)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, field);
	if (!a)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: missing", field);
	if (!cJSON_IsArray(a))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not an array", field);
	int n = cJSON_GetArraySize(a);
	if (n > PROBE_RESULT_MAX_SIGNALS)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: more than %d entries", field,
		                          PROBE_RESULT_MAX_SIGNALS);
	*out = (size_t)n;
	return 0;
}

/* kernel.boot_id / kernel.btime: optional (older probes, other writers), but a
 * value that is present must be well-formed, or the identity is not evidence. */
static int parse_kernel_identity(probe_result *r, const cJSON *kernel, isotier_error *err)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(kernel, "boot_id");
	if (id && !cJSON_IsNull(id)) {
		int rc = copy_name(r->boot_id, sizeof r->boot_id, id, "kernel.boot_id", false, err);
		if (rc < 0)
			return rc;
		if (!isotier__boot_id_valid(r->boot_id))
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "kernel.boot_id: \"%s\" is not a boot_id (a UUID)", r->boot_id);
	}
	const cJSON *bt = cJSON_GetObjectItemCaseSensitive(kernel, "btime");
	if (bt && !cJSON_IsNull(bt)) {
		if (!cJSON_IsNumber(bt) || !isfinite(bt->valuedouble) || bt->valuedouble < 1 ||
		    bt->valuedouble > 1e12 || bt->valuedouble != floor(bt->valuedouble))
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "kernel.btime: not a positive integer");
		r->btime = (int64_t)bt->valuedouble;
	}
	return 0;
}

/*
 * kernel.identity: whether the probe checked, on the live kernel, that boot_id
 * and btime came from that kernel's own procfs. Never an error: anything but a
 * well-formed {"trusted": true, "problems": []} leaves it untrusted (fail
 * closed), with the first problem the probe gave, bounded and printable.
 */
static void parse_kernel_trust(probe_result *r, const cJSON *kernel)
{
	static const char none[] = "the probe did not check its identity inputs";
	r->identity_trusted = false;
	snprintf(r->identity_problem, sizeof r->identity_problem, "%s", none);
	const cJSON *id = kernel ? cJSON_GetObjectItemCaseSensitive(kernel, "identity") : NULL;
	if (!cJSON_IsObject(id))
		return;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(id, "trusted");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(id, "problems");
	int n = cJSON_IsArray(p) ? cJSON_GetArraySize(p) : -1;
	bool ok = cJSON_IsBool(t) && n >= 0 && n <= PROBE_RESULT_MAX_IDENTITY_PROBLEMS;
	for (int i = 0; ok && i < n; i++) {
		const cJSON *e = cJSON_GetArrayItem(p, i);
		ok = cJSON_IsString(e) && e->valuestring &&
		     strlen(e->valuestring) <= PROBE_RESULT_IDENTITY_PROBLEM_LEN;
	}
	if (!ok) {
		snprintf(r->identity_problem, sizeof r->identity_problem, "%s",
		         "kernel.identity is malformed: the identity inputs are not trusted");
		return;
	}
	if (n > 0) {
		/* Printable ASCII only: the text is the sandbox's. */
		const char *src = cJSON_GetArrayItem(p, 0)->valuestring;
		size_t j = 0;
		for (; j < sizeof r->identity_problem - 1 && src[j]; j++)
			r->identity_problem[j] =
			    (unsigned char)src[j] < 0x20 || (unsigned char)src[j] >= 0x7f ? '?'
			                                                                  : src[j];
		r->identity_problem[j] = '\0';
	}
	/* "trusted" with a problem listed is not trusted. */
	r->identity_trusted = cJSON_IsTrue(t) && n == 0;
	if (!cJSON_IsTrue(t) && n == 0)
		snprintf(r->identity_problem, sizeof r->identity_problem, "%s",
		         "the probe did not say why its identity inputs are not trusted");
	if (r->identity_trusted)
		r->identity_problem[0] = '\0';
}

static int parse_doc(probe_result *r, const cJSON *doc, isotier_error *err)
{
	int rc;
	if (!cJSON_IsObject(doc))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "document: not a JSON object");
	char schema[PROBE_RESULT_NAME_MAX];
	if ((rc = copy_name(schema, sizeof schema, cJSON_GetObjectItemCaseSensitive(doc, "schema"),
	                    "schema", false, err)) < 0)
		return rc;
	if (strcmp(schema, PROBE_SCHEMA) != 0)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "schema: \"%s\" is not \"%s\"",
		                          schema, PROBE_SCHEMA);
	if ((rc = copy_name(r->probe_version, sizeof r->probe_version,
	                    cJSON_GetObjectItemCaseSensitive(doc, "probe_version"), "probe_version",
	                    false, err)) < 0)
		return rc;
	int tier = 0;
	if ((rc = parse_enum(&tier, cJSON_GetObjectItemCaseSensitive(doc, "observed_tier"),
	                     "observed_tier", tier_names, sizeof tier_names / sizeof *tier_names,
	                     err)) < 0)
		return rc;
	r->observed = (probe_tier)tier;
	const cJSON *conf = cJSON_GetObjectItemCaseSensitive(doc, "confidence");
	if (!conf)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "confidence: missing");
	if ((rc = parse_confidence(r, conf, err)) < 0)
		return rc;

	const cJSON *layers = cJSON_GetObjectItemCaseSensitive(doc, "layers");
	if (!layers)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "layers: missing");
	if (!cJSON_IsArray(layers))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "layers: not an array");
	int n_layers = cJSON_GetArraySize(layers);
	if (n_layers > PROBE_RESULT_MAX_LAYERS)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "layers: %d entries, at most %d",
		                          n_layers, PROBE_RESULT_MAX_LAYERS);
	size_t i = 0;
	for (const cJSON *l = layers->child; l; l = l->next, i++)
		if ((rc = parse_layer(&r->layers[i], l, i, err)) < 0)
			return rc;
	r->n_layers = i;

	if ((rc = parse_count(&r->n_signals, doc, "signals", err)) < 0 ||
	    (rc = parse_count(&r->n_conflicts, doc, "conflicts", err)) < 0)
		return rc;

	const cJSON *dur = cJSON_GetObjectItemCaseSensitive(doc, "duration_us");
	if (!dur)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "duration_us: missing");
	if (!cJSON_IsNumber(dur) || !isfinite(dur->valuedouble) || dur->valuedouble < 0 ||
	    dur->valuedouble > 1e15 || dur->valuedouble != floor(dur->valuedouble))
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "duration_us: not a non-negative integer");
	r->duration_us = (int64_t)dur->valuedouble;
	const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(doc, "kernel");
	if (!kernel)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "kernel: missing");
	if (!cJSON_IsObject(kernel))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "kernel: not an object");

	if ((rc = parse_kernel_identity(r, kernel, err)) < 0)
		return rc;
	parse_kernel_trust(r, kernel);
	if ((rc = isotier__probe_run_parse(&r->run, doc, err)) < 0)
		return rc;

	/* The innermost layer decides observed_tier: a document that says
	 * otherwise contradicts itself and is not evidence. */
	if (r->observed == PROBE_TIER_NONE && r->n_layers)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "observed_tier: NONE but %zu layer(s) reported",
		                          r->n_layers);
	if (r->observed != PROBE_TIER_NONE && r->observed != PROBE_TIER_UNKNOWN) {
		if (!r->n_layers)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "observed_tier: %s but no layers reported",
			                          isotier__probe_tier_name(r->observed));
		probe_layer_kind inner = r->layers[r->n_layers - 1].kind;
		if (isotier__probe_layer_tier(inner) != r->observed)
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "observed_tier: %s disagrees with the innermost layer (%s)",
			    isotier__probe_tier_name(r->observed),
			    isotier__probe_layer_kind_name(inner));
	}
	r->layers_json = isotier__json_print((cJSON *)layers, false) /* ours: scrubbed in place */;
	if (!r->layers_json)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "layers: out of memory");
	return 0;
}

cJSON *isotier__probe_json_read(const char *json, size_t len, const char *what, isotier_error *err)
{
	if (json && len > PROBE_RESULT_MAX_BYTES) {
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: %zu bytes, larger than %d", what,
		                   len, PROBE_RESULT_MAX_BYTES);
		return NULL;
	}
	return isotier__json_parse_limited(json, len, PROBE_RESULT_MAX_DEPTH, what, err);
}

int isotier__probe_result_parse(probe_result *out, const char *json, size_t len, isotier_error *err)
{
	memset(out, 0, sizeof *out);
	out->duration_us = -1;
	isotier_error local = {0};
	isotier_error *e = err ? err : &local;
	cJSON *doc = isotier__probe_json_read(json, len, "document", e);
	if (!doc)
		return e->code;
	int rc = parse_doc(out, doc, err);
	/* What is stored is the document judged, re-serialised (valid UTF-8). */
	if (rc == 0 && !(out->doc_json = isotier__json_print(doc, false)))
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "document: out of memory");
	cJSON_Delete(doc);
	if (rc < 0) {
		isotier__probe_result_clear(out);
		return rc;
	}
	return 0;
}
