/* SPDX-License-Identifier: Apache-2.0 */
/* test_vocabulary.c - the one verdict table (base/verdict.h) and the one
 * mechanism table (catalogue/mechanism.h): what each verdict lets a reader
 * conclude, and the mechanism table equal to what the JSON Schema and
 * FORMAT.md publish (a word added to one and not the others fails here). */
#include <check.h>
#include "check_run.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/base.h"
#include "../../base/verdict.h"
#include "../../catalogue/mechanism.h"
#include "../../reference/evidence/judge.h"

START_TEST(verdict_names_round_trip)
{
	for (int v = 0; v < VERDICT_COUNT; v++) {
		ck_assert_int_eq(isotier__verdicts[v].verdict, v);
		isotier_verdict back;
		ck_assert_int_eq(
		    isotier__verdict_parse(&back, isotier__verdict_name((isotier_verdict)v)), 0);
		ck_assert_int_eq(back, v);
		ck_assert_ptr_nonnull(isotier__verdicts[v].meaning);
	}
	isotier_verdict v = VERDICT_CONFIRMED;
	ck_assert_int_eq(isotier__verdict_parse(&v, "contradicted"), 0);
	ck_assert_int_eq(v, VERDICT_CONTRADICTED);
	ck_assert_int_eq(isotier__verdict_parse(&v, "CONFIRMED "), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__verdict_parse(&v, ""), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__verdict_parse(&v, NULL), ISOTIER_EINVAL);
	ck_assert_str_eq(isotier__verdict_name((isotier_verdict)VERDICT_COUNT), "?");
	ck_assert_str_eq(isotier__verdict_name((isotier_verdict)-1), "?");
}
END_TEST

/* The policy each caller relies on, spelled out once more: a change to the
 * table that loosens it fails here. */
START_TEST(verdict_flags_fail_closed)
{
	/* Only CONFIRMED and CONSISTENT prove the claimed tier. */
	for (int v = 0; v < VERDICT_COUNT; v++)
		ck_assert_int_eq(isotier__verdict_is((isotier_verdict)v, VERDICT_PROVES),
		                 v == VERDICT_CONFIRMED || v == VERDICT_CONSISTENT);
	/* Attestation also accepts a boundary stronger than claimed. */
	for (int v = 0; v < VERDICT_COUNT; v++)
		ck_assert_int_eq(isotier__verdict_is((isotier_verdict)v, VERDICT_ATTESTS),
		                 v == VERDICT_CONFIRMED || v == VERDICT_CONSISTENT ||
		                     v == VERDICT_EXCEEDS);
	/* CONTRADICTED alone is against the claim, and it is a judgement. */
	for (int v = 0; v < VERDICT_COUNT; v++)
		ck_assert_int_eq(isotier__verdict_is((isotier_verdict)v, VERDICT_AGAINST),
		                 v == VERDICT_CONTRADICTED);
	ck_assert(isotier__verdict_is(VERDICT_CONTRADICTED, VERDICT_JUDGES | VERDICT_AGAINST));
	/* A run that judged nothing never clears a contradiction, never proves. */
	ck_assert(!isotier__verdict_is(VERDICT_INCONCLUSIVE, VERDICT_JUDGES));
	ck_assert(!isotier__verdict_is(VERDICT_UNAVAILABLE, VERDICT_JUDGES));
	/* Every verdict that proves or attests is a judgement. */
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (isotier__verdict_is((isotier_verdict)v, VERDICT_ATTESTS))
			ck_assert(isotier__verdict_is((isotier_verdict)v, VERDICT_JUDGES));
	ck_assert(!isotier__verdict_is((isotier_verdict)VERDICT_COUNT, 0));
	/* NOT_CONTRADICTED (a remote provider's testimony, reference/attestation/testimony.h)
	 * proves, attests and judges nothing, and is not against the claim: it
	 * only counts as a check made (the report's cadence). */
	ck_assert_int_eq(isotier__verdicts[VERDICT_NOT_CONTRADICTED].flags, VERDICT_CHECKS);
	ck_assert_str_eq(isotier__verdict_name(VERDICT_NOT_CONTRADICTED), "NOT_CONTRADICTED");
	/* Every judgement is a check; a run that judged nothing is not. */
	for (int v = 0; v < VERDICT_COUNT; v++)
		if (isotier__verdict_is((isotier_verdict)v, VERDICT_JUDGES))
			ck_assert(isotier__verdict_is((isotier_verdict)v, VERDICT_CHECKS));
	ck_assert(!isotier__verdict_is(VERDICT_INCONCLUSIVE, VERDICT_CHECKS));
	ck_assert(!isotier__verdict_is(VERDICT_UNAVAILABLE, VERDICT_CHECKS));
}
END_TEST

/* The report's JSON Schema lists the verdicts it counts: the table's words
 * plus OTHER, no more, no fewer. */
START_TEST(verdict_table_equals_the_report_schema)
{
	char *text = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&text, &len,
	                                    ISOTIER_SOURCE_DIR "/runbook/report.schema.json",
	                                    1 << 20, &err),
	                 0);
	cJSON *doc = cJSON_ParseWithLength(text, len);
	free(text);
	ck_assert_ptr_nonnull(doc);
	const cJSON *req = doc;
	const char *const path[] = {"properties", "summary", "properties", "latest_verdicts",
	                            "required"};
	for (size_t i = 0; i < sizeof path / sizeof *path; i++)
		req = cJSON_GetObjectItemCaseSensitive(req, path[i]);
	ck_assert(cJSON_IsArray(req));
	ck_assert_int_eq(cJSON_GetArraySize(req), VERDICT_COUNT + 1);
	for (int v = 0; v < VERDICT_COUNT; v++) {
		const cJSON *w = cJSON_GetArrayItem(req, v);
		ck_assert(cJSON_IsString(w));
		ck_assert_str_eq(w->valuestring, isotier__verdict_name((isotier_verdict)v));
	}
	ck_assert_str_eq(cJSON_GetArrayItem(req, VERDICT_COUNT)->valuestring, "OTHER");
	cJSON_Delete(doc);
}
END_TEST

static cJSON *load_schema(void)
{
	char *text = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&text, &len,
	                                    ISOTIER_SOURCE_DIR "/catalogue/provider.schema.json",
	                                    1 << 20, &err),
	                 0);
	cJSON *doc = cJSON_ParseWithLength(text, len);
	free(text);
	ck_assert_ptr_nonnull(doc);
	return doc;
}

static size_t count_with_tier(isotier_tier t)
{
	size_t n = 0;
	for (size_t i = 0; i < isotier__mechanism_count; i++)
		n += isotier__mechanisms[i].tier == t;
	return n;
}

/* The schema's "if tier is T then mechanism in [...]" rule for tier T, as the
 * list of its words (a const is a list of one). */
static const cJSON *tier_rule(const cJSON *schema, const char *tier)
{
	const cJSON *rule;
	cJSON_ArrayForEach(rule, cJSON_GetObjectItemCaseSensitive(schema, "allOf"))
	{
		const cJSON *cond = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(
		        cJSON_GetObjectItemCaseSensitive(
		            cJSON_GetObjectItemCaseSensitive(rule, "if"), "properties"),
		        "tier"),
		    "const");
		if (cJSON_IsString(cond) && !strcmp(cond->valuestring, tier))
			return cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(
			        cJSON_GetObjectItemCaseSensitive(rule, "then"), "properties"),
			    "mechanism");
	}
	return NULL;
}

static bool rule_allows(const cJSON *then_mechanism, const char *name)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(then_mechanism, "const");
	if (cJSON_IsString(c))
		return !strcmp(c->valuestring, name);
	const cJSON *w;
	cJSON_ArrayForEach(
	    w, cJSON_GetObjectItemCaseSensitive(
	           then_mechanism, "enum")) if (cJSON_IsString(w) &&
	                                        !strcmp(w->valuestring, name)) return true;
	return false;
}

static size_t rule_size(const cJSON *then_mechanism)
{
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(then_mechanism, "const")))
		return 1;
	return (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(then_mechanism, "enum"));
}

START_TEST(mechanism_table_equals_the_schema)
{
	cJSON *schema = load_schema();
	const cJSON *words = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(schema, "$defs"),
	                                     "mechanism"),
	    "enum");
	ck_assert_int_eq(cJSON_GetArraySize(words), (int)isotier__mechanism_count);
	size_t i = 0;
	const cJSON *w;
	cJSON_ArrayForEach(w, words)
	{
		ck_assert(cJSON_IsString(w));
		ck_assert_str_eq(w->valuestring, isotier__mechanisms[i++].name);
	}
	static const struct {
		const char *tier_name;
		isotier_tier tier;
	} tiers[] = {{"MICROVM", ISOTIER_MICROVM},
	             {"GVISOR", ISOTIER_GVISOR},
	             {"CONTAINER", ISOTIER_CONTAINER}};
	for (size_t t = 0; t < sizeof tiers / sizeof *tiers; t++) {
		const cJSON *rule = tier_rule(schema, tiers[t].tier_name);
		ck_assert_msg(rule != NULL, "no schema rule for tier %s", tiers[t].tier_name);
		ck_assert_uint_eq(rule_size(rule), count_with_tier(tiers[t].tier));
		for (size_t m = 0; m < isotier__mechanism_count; m++)
			if (isotier__mechanisms[m].tier == tiers[t].tier)
				ck_assert_msg(rule_allows(rule, isotier__mechanisms[m].name),
				              "schema: tier %s does not allow %s",
				              tiers[t].tier_name, isotier__mechanisms[m].name);
	}
	cJSON_Delete(schema);
}
END_TEST

/* FORMAT.md's table names every mechanism in its tier's row. */
START_TEST(mechanism_table_equals_format_md)
{
	char *text = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&text, &len, ISOTIER_SOURCE_DIR "/catalogue/FORMAT.md",
	                                    1 << 20, &err),
	                 0);
	for (size_t m = 0; m < isotier__mechanism_count; m++) {
		const isotier_mechanism *mech = &isotier__mechanisms[m];
		const char *row_head = mech->tier == ISOTIER_UNKNOWN   ? "| UNKNOWN only |"
		                       : mech->tier == ISOTIER_MICROVM ? "| MICROVM |"
		                       : mech->tier == ISOTIER_GVISOR  ? "| GVISOR |"
		                                                       : "| CONTAINER |";
		const char *row = strstr(text, row_head);
		ck_assert_msg(row != NULL, "FORMAT.md: no row %s", row_head);
		const char *end = strchr(row, '\n');
		char word[48];
		snprintf(word, sizeof word, "`%s`", mech->name);
		const char *at = strstr(row, word);
		ck_assert_msg(at && (!end || at < end), "FORMAT.md: %s is not in row %s",
		              mech->name, row_head);
	}
	free(text);
}
END_TEST

/* The judge reads the same table: each mechanism of a tier maps to that
 * tier's layer; the others (and words outside the vocabulary) to none. */
START_TEST(judge_reads_the_mechanism_table)
{
	for (size_t m = 0; m < isotier__mechanism_count; m++) {
		probe_layer_kind kind;
		int rc = isotier__judge_mechanism_kind(&kind, isotier__mechanisms[m].name);
		if (isotier__mechanisms[m].tier == ISOTIER_UNKNOWN) {
			ck_assert_int_eq(rc, ISOTIER_EINVAL);
			continue;
		}
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(
		    kind, isotier__mechanisms[m].tier == ISOTIER_MICROVM  ? PROBE_LAYER_VM
		          : isotier__mechanisms[m].tier == ISOTIER_GVISOR ? PROBE_LAYER_GVISOR
		                                                          : PROBE_LAYER_CONTAINER);
	}
	probe_layer_kind kind;
	ck_assert_int_eq(isotier__judge_mechanism_kind(&kind, "hyperlight"), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__judge_mechanism_kind(&kind, NULL), ISOTIER_EINVAL);
	ck_assert_ptr_null(isotier__mechanism_find("Firecracker"));
	ck_assert_ptr_null(isotier__mechanism_find(NULL));
	ck_assert_str_eq(isotier__mechanism_find("qemu")->vmm, "qemu");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vocabulary");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, verdict_names_round_trip);
	tcase_add_test(tc, verdict_flags_fail_closed);
	tcase_add_test(tc, verdict_table_equals_the_report_schema);
	tcase_add_test(tc, mechanism_table_equals_the_schema);
	tcase_add_test(tc, mechanism_table_equals_format_md);
	tcase_add_test(tc, judge_reads_the_mechanism_table);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
