/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_probe_output.c - what a sandbox prints as probe output, through the
 * verify-side parser and the judge. Properties: a document accepted has one
 * reading (no key twice anywhere); what would be stored (doc_json,
 * layers_json) is valid UTF-8 and re-parses to the same result; the judge's
 * reason is bounded text. */
#include "fuzz.h"

#include <cJSON.h>

#include "../../reference/evidence/judge.h"
#include "../../reference/evidence/probe_result.h"

static void same_result(const probe_result *a, const probe_result *b)
{
	FUZZ_ASSERT(a->observed == b->observed, "observed tier changed on re-parse");
	FUZZ_ASSERT(a->confidence == b->confidence, "confidence changed on re-parse");
	FUZZ_ASSERT(a->n_layers == b->n_layers, "layer count changed on re-parse");
	for (size_t i = 0; i < a->n_layers; i++) {
		FUZZ_ASSERT(a->layers[i].kind == b->layers[i].kind, "layer %zu kind", i);
		FUZZ_ASSERT(!strcmp(a->layers[i].vendor, b->layers[i].vendor), "layer %zu vendor",
		            i);
	}
	FUZZ_ASSERT(!strcmp(a->layers_json, b->layers_json), "layers_json changed on re-parse");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	probe_result r;
	isotier_error err = {0};
	if (isotier__probe_result_parse(&r, (const char *)data, size, &err) != 0) {
		FUZZ_ASSERT(err.code == ISOTIER_EDATA || err.code == ISOTIER_ENOMEM, "code %d",
		            err.code);
		FUZZ_ASSERT(r.layers_json == NULL && r.doc_json == NULL, "refused but kept output");
		return 0;
	}
	/* A pattern accepted (run.pattern) is what the cross-sandbox challenge
	 * can rely on: bounded, 0/1 bits, slots in order and no more than bits. */
	const probe_run_info *ri = &r.run;
	FUZZ_ASSERT(ri->n_segments <= strlen(ri->pattern_bits), "more slots than bits");
	FUZZ_ASSERT(strspn(ri->pattern_bits, "01") == strlen(ri->pattern_bits), "bits not 0/1");
	for (size_t i = 0; i < ri->n_segments; i++) {
		FUZZ_ASSERT(ri->segments[i].start_us <= ri->segments[i].end_us &&
		                ri->segments[i].tasks <= PROBE_RUN_PATTERN_TASKS,
		            "slot %zu malformed", i);
		FUZZ_ASSERT(!i || ri->segments[i].start_us >= ri->segments[i - 1].end_us,
		            "slot %zu out of order", i);
	}
	size_t dl = strlen(r.doc_json);
	FUZZ_ASSERT(isotier__utf8_valid(r.doc_json, dl), "stored document is not UTF-8");
	FUZZ_ASSERT(isotier__utf8_valid(r.layers_json, strlen(r.layers_json)),
	            "layers_json not UTF-8");
	cJSON *doc = cJSON_ParseWithLength(r.doc_json, dl);
	FUZZ_ASSERT(doc, "stored document does not parse");
	FUZZ_ASSERT(!isotier__json_duplicate_key(doc), "stored document has a duplicate key");
	cJSON_Delete(doc);
	/* The stored document is judged the same as the one printed. */
	probe_result again;
	FUZZ_ASSERT(isotier__probe_result_parse(&again, r.doc_json, dl, &err) == 0,
	            "stored document refused: %s", err.message);
	same_result(&r, &again);
	static const judge_claim claims[] = {{true, ISOTIER_CONTAINER, "runc", NULL},
	                                     {true, ISOTIER_GVISOR, "gvisor", NULL},
	                                     {true, ISOTIER_MICROVM, "firecracker", NULL},
	                                     {true, ISOTIER_UNKNOWN, "unknown", NULL},
	                                     {false, ISOTIER_UNKNOWN, NULL, NULL}};
	static const isotier_kernel_relation relations[] = {
	    ISOTIER_KERNEL_UNCOMPARED, ISOTIER_KERNEL_SHARED, ISOTIER_KERNEL_DEDICATED,
	    ISOTIER_KERNEL_SELF};
	for (size_t i = 0; i < sizeof claims / sizeof *claims; i++)
		for (size_t k = 0; k < sizeof relations / sizeof *relations; k++) {
			judge_kernel kernel = {.relation = relations[k], .detail = "fuzz"};
			judge_result a, b;
			isotier__judge(&a, &claims[i], &r, &kernel);
			isotier__judge(&b, &claims[i], &again, &kernel);
			FUZZ_ASSERT(a.verdict == b.verdict && a.ceiling == b.ceiling &&
			                !strcmp(a.reason, b.reason),
			            "the stored document is judged differently");
			FUZZ_ASSERT(a.verdict != VERDICT_UNAVAILABLE, "judge returned UNAVAILABLE");
			FUZZ_ASSERT(memchr(a.reason, '\0', sizeof a.reason),
			            "reason not terminated");
			/* Fail closed: a VM never counts unless the kernel is the sandbox's own. */
			if (claims[i].tier == ISOTIER_MICROVM &&
			    (a.verdict == VERDICT_CONFIRMED || a.verdict == VERDICT_CONSISTENT))
				FUZZ_ASSERT(
				    relations[k] == ISOTIER_KERNEL_DEDICATED ||
				        relations[k] == ISOTIER_KERNEL_SELF,
				    "a MICROVM claim confirmed without a kernel of its own");
			if (relations[k] == ISOTIER_KERNEL_SHARED)
				FUZZ_ASSERT(
				    a.ceiling != PROBE_TIER_MICROVM &&
				        (a.ceiling != PROBE_TIER_GVISOR ||
				         (r.n_layers &&
				          r.layers[r.n_layers - 1].kind == PROBE_LAYER_GVISOR)),
				    "a sandbox on the host's kernel defended above CONTAINER");
		}
	isotier__probe_result_clear(&again);
	isotier__probe_result_clear(&r);
	return 0;
}
