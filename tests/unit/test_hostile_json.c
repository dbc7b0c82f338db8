/* SPDX-License-Identifier: Apache-2.0 */
/* test_hostile_json.c - issue 17's JSON findings: a document has one reading
 * (duplicate keys refused wherever isotier parses JSON, and the document
 * judged is what is stored), everything written is valid UTF-8, and one
 * escaping policy (bidi overrides shown, never obeyed) for every output. */
#include <check.h>
#include "check_run.h"
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/core/http.h"
#include "../../reference/evidence/probe_result.h"
#include "../../verify/report/report_model.h"

#define LAYER_VM "{\"kind\":\"vm\",\"vendor\":\"firecracker\",\"signals\":[\"cpuid\"]}"
#define LAYER_CT "{\"kind\":\"container\",\"vendor\":\"runc\",\"signals\":[\"ns.pid\"]}"
#define DOC(layers_member, tier, extra)                                                            \
	"{\"schema\":\"isotier.probe/1\",\"probe_version\":\"0.1.0\",\"observed_tier\":\"" tier    \
	"\",\"confidence\":\"high\"," layers_member                                                \
	",\"signals\":[],\"conflicts\":[],\"kernel\":{\"release\":\"6.1\"}," extra                 \
	"\"duration_us\":1}"

static int parse(probe_result *r, const char *json, isotier_error *err)
{
	return isotier__probe_result_parse(r, json, strlen(json), err);
}

START_TEST(probe_output_duplicate_keys_refused)
{
	static const char *const docs[] = {
	    /* Two "layers": first-wins saw a container, last-wins a microVM. */
	    DOC("\"layers\":[" LAYER_VM "," LAYER_CT "],\"layers\":[" LAYER_VM "]", "CONTAINER",
	        ""),
	    /* A key twice inside a layer: survives in layers_json if not refused. */
	    DOC("\"layers\":[{\"kind\":\"container\",\"kind\":\"vm\",\"signals\":[]}]", "CONTAINER",
	        ""),
	    /* Twice at the top level, in a member the judge does not read. */
	    DOC("\"layers\":[" LAYER_CT "]", "CONTAINER", "\"x\":{},\"x\":{},"),
	    /* Deep inside a signal. */
	    DOC("\"layers\":[" LAYER_CT "]", "CONTAINER", "\"x\":[[{\"a\":{\"b\":1,\"b\":2}}]],"),
	};
	for (size_t i = 0; i < sizeof docs / sizeof *docs; i++) {
		probe_result r;
		isotier_error err = {0};
		ck_assert_msg(parse(&r, docs[i], &err) == ISOTIER_EDATA, "accepted: %s", docs[i]);
		ck_assert_msg(strstr(err.message, "duplicate key"), "%s", err.message);
		ck_assert_ptr_null(r.layers_json);
	}
	/* The same key in two different objects is no duplicate. */
	probe_result r;
	isotier_error err = {0};
	ck_assert_msg(
	    parse(&r, DOC("\"layers\":[" LAYER_VM "," LAYER_CT "]", "CONTAINER", ""), &err) == 0,
	    "%s", err.message);
	isotier__probe_result_clear(&r);
}
END_TEST

START_TEST(stored_document_is_the_one_judged)
{
	/* Whitespace, key order and escapes as the sandbox wrote them are not
	 * kept: what is stored re-parses to the document that was judged. */
	const char *json =
	    "  " DOC("\"layers\":[" LAYER_CT "]", "CONTAINER", "\"k\":\"\\u0041\",") "\n";
	probe_result r;
	isotier_error err = {0};
	ck_assert_msg(parse(&r, json, &err) == 0, "%s", err.message);
	ck_assert_ptr_nonnull(r.doc_json);
	cJSON *stored = cJSON_Parse(r.doc_json), *orig = cJSON_Parse(json);
	ck_assert(cJSON_Compare(stored, orig, true));
	ck_assert_str_eq(cJSON_GetObjectItem(stored, "k")->valuestring, "A");
	ck_assert_ptr_null(strstr(r.doc_json, "\\u0041"));
	cJSON_Delete(stored);
	cJSON_Delete(orig);
	isotier__probe_result_clear(&r);
}
END_TEST

START_TEST(stored_evidence_duplicate_keys_are_a_problem)
{
	report_arena a = {0};
	report_evidence *ev = report_evidence_parse(
	    &a, "[{\"kind\":\"vm\",\"kind\":\"container\",\"signals\":[]}]", NULL);
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_ge(ev->n_problems, 1);
	ck_assert_msg(strstr(ev->problems[0], "duplicate key"), "%s", ev->problems[0]);
	ck_assert_uint_eq(ev->n_layers, 0);
	report_arena_free(&a);
}
END_TEST

START_TEST(json_written_is_valid_utf8)
{
	/* Raw bytes a sandbox printed: a lone continuation byte, an overlong
	 * NUL, a character cut in half by "%.140s", a surrogate. */
	static const char *const bad[] = {"a\x80z", "\xc0\x80", "cut \xe2\x80", "\xed\xa0\x80",
	                                  "\xff"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "reason", bad[i]);
		cJSON_AddStringToObject(o, "ok", "caf\xc3\xa9");
		char *s = isotier__json_print(o, false);
		ck_assert_ptr_nonnull(s);
		ck_assert_msg(isotier__utf8_valid(s, strlen(s)), "invalid UTF-8 out for case %zu",
		              i);
		cJSON *back = cJSON_Parse(s);
		ck_assert_ptr_nonnull(back);
		ck_assert_str_eq(cJSON_GetObjectItem(back, "ok")->valuestring, "caf\xc3\xa9");
		ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(back, "utf8_replacements")));
		ck_assert_int_ge(cJSON_GetObjectItem(back, "utf8_replacements")->valueint, 1);
		ck_assert_ptr_nonnull(strstr(s, "\xef\xbf\xbd"));
		cJSON_Delete(back);
		cJSON_Delete(o);
		free(s);
	}
	/* Valid text is left alone and not annotated; arrays note per element. */
	cJSON *arr = cJSON_CreateArray(), *e1 = cJSON_CreateObject(), *e2 = cJSON_CreateObject();
	cJSON_AddStringToObject(e1, "x", "fine \xe2\x9c\x93");
	cJSON_AddStringToObject(e2, "x", "bad \xfe");
	cJSON_AddItemToArray(arr, e1);
	cJSON_AddItemToArray(arr, e2);
	char *s = isotier__json_print(arr, true);
	cJSON *back = cJSON_Parse(s);
	ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(back, 0), "utf8_replacements"));
	ck_assert_int_eq(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(back, 1), "utf8_replacements")->valueint, 1);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(back, 0), "x")->valuestring,
	                 "fine \xe2\x9c\x93");
	cJSON_Delete(back);
	cJSON_Delete(arr);
	free(s);
}
END_TEST

START_TEST(probe_fields_with_raw_bytes_stored_as_utf8)
{
	const char *json = DOC("\"layers\":[" LAYER_CT "]", "CONTAINER",
	                       "\"note\":\"a\x80\",\"more\":{\"x\":\"b\xff\"},");
	probe_result r;
	isotier_error err = {0};
	ck_assert_msg(parse(&r, json, &err) == 0, "%s", err.message);
	ck_assert(isotier__utf8_valid(r.doc_json, strlen(r.doc_json)));
	ck_assert(isotier__utf8_valid(r.layers_json, strlen(r.layers_json)));
	ck_assert_ptr_nonnull(strstr(r.doc_json, "\"utf8_replacements\":2"));
	isotier__probe_result_clear(&r);
}
END_TEST

/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+200F RLM. */
#define BIDI                                                                                       \
	"cell\xe2\x80\xae"                                                                         \
	"evil\xe2\x81\xa6"                                                                         \
	"x\xe2\x80\x8f"

START_TEST(bidi_escaped_in_every_report_format)
{
	void (*const put[])(FILE *, const char *) = {report_put_xml, report_put_md, report_put_json,
	                                             isotier__fputs_inline};
	for (size_t i = 0; i < sizeof put / sizeof *put; i++) {
		char *out = render(put[i], BIDI);
		ck_assert_msg(!strstr(out, "\xe2\x80\xae") && !strstr(out, "\xe2\x81\xa6") &&
		                  !strstr(out, "\xe2\x80\x8f"),
		              "writer %zu let a bidi control through: %s", i, out);
		ck_assert_msg(strstr(out, "u202e") && strstr(out, "u2066") && strstr(out, "u200f"),
		              "writer %zu: %s", i, out);
		free(out);
	}
	/* JSON: the escape is still the same text to a JSON reader. */
	char *out = render(report_put_json, BIDI);
	cJSON *back = cJSON_Parse(out);
	ck_assert_str_eq(back->valuestring, BIDI);
	cJSON_Delete(back);
	free(out);
}
END_TEST

/* One strict reader (isotier__json_parse_limited) behind the probe's report
 * and every provider's answer: the same refusals, the same bound on nesting,
 * whichever of them reads the bytes. */
START_TEST(one_strict_reader_for_probe_and_provider)
{
	static const struct {
		const char *json;
		size_t len; /* 0: strlen */
		const char *said;
	} cases[] = {
	    {"", 0, ": empty"},
	    {"{\"a\":1}\0", 8, ": contains a NUL byte"},
	    {"{\"a\":1} x", 0, ": trailing data at byte 8"},
	    {"{\"a\":", 0, ": not JSON (at byte"},
	    {"{\"a\":1,\"b\":{\"c\":1,\"c\":2}}", 0, ": duplicate key \"c\""},
	    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", 0,
	     ": nested deeper than 32 levels"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].json);
		isotier_error e1 = {0}, e2 = {0};
		cJSON *a = isotier__probe_json_read(cases[i].json, len, "report", &e1);
		cJSON *b = isotier__json_parse_strict(cases[i].json, len, "answer", &e2);
		ck_assert_msg(!a && !b, "case %zu read", i);
		ck_assert_int_eq(e1.code, ISOTIER_EDATA);
		ck_assert_int_eq(e2.code, ISOTIER_EDATA);
		ck_assert_msg(strstr(e1.message, cases[i].said) &&
		                  strstr(e2.message, cases[i].said),
		              "case %zu: '%s' / '%s'", i, e1.message, e2.message);
		ck_assert_msg(!strncmp(e1.message, "report:", 7) &&
		                  !strncmp(e2.message, "answer:", 7),
		              "case %zu names its reader", i);
	}
	/* Brackets inside a string are not nesting; whitespace may follow. */
	const char *deep_string = "{\"s\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}\n \t";
	isotier_error e = {0};
	cJSON *ok = isotier__json_parse_strict(deep_string, strlen(deep_string), "answer", &e);
	ck_assert_msg(ok != NULL, "%s", e.message);
	cJSON_Delete(ok);
	/* The report's own size bound comes first. */
	ck_assert_ptr_null(
	    isotier__probe_json_read("{}", PROBE_RESULT_MAX_BYTES + 1, "report", &e));
	ck_assert_ptr_nonnull(strstr(e.message, "larger than"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile_json");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, probe_output_duplicate_keys_refused);
	tcase_add_test(tc, stored_document_is_the_one_judged);
	tcase_add_test(tc, stored_evidence_duplicate_keys_are_a_problem);
	tcase_add_test(tc, json_written_is_valid_utf8);
	tcase_add_test(tc, probe_fields_with_raw_bytes_stored_as_utf8);
	tcase_add_test(tc, bidi_escaped_in_every_report_format);
	tcase_add_test(tc, one_strict_reader_for_probe_and_provider);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
