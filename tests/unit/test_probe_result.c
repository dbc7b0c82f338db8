/* test_probe_result.c - the probe's JSON as hostile input: wrong types, huge
 * strings, missing fields, unknown enum values, self-contradiction, nesting. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../verify/probe_result.h"

#define GOOD_LAYERS                                                                                \
	"[{\"kind\":\"vm\",\"vendor\":\"firecracker\",\"hypervisor\":\"kvm\",\"signals\":["        \
	"\"cpuid\"]},"                                                                             \
	"{\"kind\":\"container\",\"vendor\":null,\"signals\":[\"ns.pid\",\"ns.user\"]}]"

/* A valid document with one field replaced: FIELD is spliced in raw. */
static char *doc_with(const char *schema, const char *tier, const char *conf, const char *layers,
                      const char *extra)
{
	char *out = NULL;
	if (asprintf(&out,
	             "{\"schema\":%s,\"probe_version\":\"0.1.0\",\"observed_tier\":%s,"
	             "\"confidence\":%s,\"layers\":%s,\"signals\":[{\"id\":\"cpuid\"}],"
	             "\"conflicts\":[]%s%s,\"kernel\":{\"release\":\"6.1\"},\"duration_us\":1234}",
	             schema, tier, conf, layers, extra ? "," : "", extra ? extra : "") < 0)
		abort();
	return out;
}

static void expect_ok(const char *json, probe_result *r)
{
	isotier_error err = {0};
	ck_assert_msg(probe_result_parse(r, json, strlen(json), &err) == 0, "%s -> %s", json,
	              err.message);
}

static void expect_reject(const char *json, size_t len, const char *needle)
{
	probe_result r;
	isotier_error err = {0};
	int rc = probe_result_parse(&r, json, len, &err);
	ck_assert_msg(rc == ISOTIER_EDATA, "accepted (rc %d): %.200s", rc, json);
	ck_assert_int_eq(err.code, ISOTIER_EDATA);
	ck_assert_msg(strstr(err.message, needle), "'%s' not in '%s'", needle, err.message);
	ck_assert_ptr_null(r.layers_json);
	ck_assert_uint_eq(r.n_layers, 0);
}

#define REJECT_LIT(lit, needle) expect_reject(lit, sizeof(lit) - 1, needle)

static void reject_doc(char *doc, const char *needle)
{
	expect_reject(doc, strlen(doc), needle);
	free(doc);
}

START_TEST(valid_document)
{
	char *d = doc_with("\"isotier.probe/1\"", "\"CONTAINER\"", "\"high\"", GOOD_LAYERS, NULL);
	probe_result r;
	expect_ok(d, &r);
	ck_assert_int_eq(r.observed, PROBE_TIER_CONTAINER);
	ck_assert_int_eq(r.confidence, PROBE_CONFIDENCE_HIGH);
	ck_assert_str_eq(r.confidence_text, "high");
	ck_assert_str_eq(r.probe_version, "0.1.0");
	ck_assert_uint_eq(r.n_layers, 2);
	ck_assert_int_eq(r.layers[0].kind, PROBE_LAYER_VM);
	ck_assert_str_eq(r.layers[0].vendor, "firecracker");
	ck_assert_str_eq(r.layers[0].hypervisor, "kvm");
	ck_assert_uint_eq(r.layers[0].n_signals, 1);
	ck_assert_int_eq(r.layers[1].kind, PROBE_LAYER_CONTAINER);
	ck_assert_str_eq(r.layers[1].vendor, "");
	ck_assert_uint_eq(r.layers[1].n_signals, 2);
	ck_assert_uint_eq(r.n_signals, 1);
	ck_assert_uint_eq(r.n_conflicts, 0);
	ck_assert_int_eq(r.duration_us, 1234);
	ck_assert_str_eq(probe_result_vendor(&r), ""); /* the innermost layer names none */
	ck_assert_ptr_nonnull(strstr(r.layers_json, "\"firecracker\""));
	probe_result_clear(&r);
	free(d);
}
END_TEST

START_TEST(other_shapes_accepted)
{
	probe_result r;
	/* Numeric confidence, NONE without layers, unknown extra fields, trailing whitespace. */
	char *d =
	    doc_with("\"isotier.probe/1\"", "\"NONE\"", "0.9", "[]", "\"future_field\":[1,2]");
	expect_ok(d, &r);
	ck_assert_int_eq(r.observed, PROBE_TIER_NONE);
	ck_assert_int_eq(r.confidence, PROBE_CONFIDENCE_HIGH);
	ck_assert_str_eq(probe_result_vendor(&r), "");
	probe_result_clear(&r);
	free(d);
	d = doc_with("\"isotier.probe/1\"", "\"UNKNOWN\"", "0.2", GOOD_LAYERS, NULL);
	expect_ok(d, &r);
	ck_assert_int_eq(r.confidence, PROBE_CONFIDENCE_LOW);
	probe_result_clear(&r);
	free(d);
	d = doc_with("\"isotier.probe/1\"", "\"GVISOR\"", "\"MEDIUM\"", "[{\"kind\":\"gvisor\"}]",
	             NULL);
	char *padded = NULL;
	ck_assert_int_ge(asprintf(&padded, "  \n%s \n\t", d), 0);
	expect_ok(padded, &r);
	ck_assert_int_eq(r.confidence, PROBE_CONFIDENCE_MEDIUM);
	ck_assert_int_eq(r.layers[0].kind, PROBE_LAYER_GVISOR);
	probe_result_clear(&r);
	probe_result_clear(&r); /* twice is harmless */
	free(padded);
	free(d);
}
END_TEST

START_TEST(not_json)
{
	REJECT_LIT("", "empty");
	REJECT_LIT("garbage", "not JSON");
	REJECT_LIT("\x1b[31m{", "not JSON");
	REJECT_LIT("[1,2,3]", "not a JSON object");
	REJECT_LIT("\"str\"", "not a JSON object");
	REJECT_LIT("{\"schema\":\"isotier.probe/1\"", "not JSON");
	REJECT_LIT("{} {}", "trailing data");
	REJECT_LIT("{}\0{}", "NUL");
	expect_reject(NULL, 0, "empty");
}
END_TEST

START_TEST(too_large)
{
	size_t n = PROBE_RESULT_MAX_BYTES + 1;
	char *big = malloc(n);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	expect_reject(big, n, "larger than");
	free(big);
}
END_TEST

START_TEST(deep_nesting)
{
	char buf[4096];
	size_t off = 0;
	off += (size_t)snprintf(buf, sizeof buf, "{\"schema\":\"isotier.probe/1\",\"x\":");
	for (int i = 0; i < 200; i++)
		buf[off++] = '[';
	for (int i = 0; i < 200; i++)
		buf[off++] = ']';
	buf[off++] = '}';
	buf[off] = '\0';
	expect_reject(buf, off, "nested deeper");
	/* Brackets inside strings do not count. */
	char *d = doc_with("\"isotier.probe/1\"", "\"NONE\"", "\"high\"", "[]",
	                   "\"s\":\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[[\"");
	probe_result r;
	expect_ok(d, &r);
	probe_result_clear(&r);
	free(d);
}
END_TEST

START_TEST(schema_field)
{
	reject_doc(doc_with("\"isotier.probe/2\"", "\"NONE\"", "\"high\"", "[]", NULL), "schema:");
	reject_doc(doc_with("1", "\"NONE\"", "\"high\"", "[]", NULL), "schema: not a string");
	reject_doc(doc_with("null", "\"NONE\"", "\"high\"", "[]", NULL), "schema: missing");
	REJECT_LIT("{\"observed_tier\":\"NONE\"}", "schema: missing");
}
END_TEST

START_TEST(observed_tier_field)
{
	reject_doc(doc_with("\"isotier.probe/1\"", "\"HYPERVISOR\"", "\"high\"", "[]", NULL),
	           "observed_tier: unknown value \"HYPERVISOR\"");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"microvm\"", "\"high\"", "[]", NULL),
	           "observed_tier: unknown value");
	reject_doc(doc_with("\"isotier.probe/1\"", "3", "\"high\"", "[]", NULL),
	           "observed_tier: not a string");
	reject_doc(doc_with("\"isotier.probe/1\"", "[\"MICROVM\"]", "\"high\"", "[]", NULL),
	           "observed_tier: not a string");
	/* Self-contradiction: the innermost layer decides the tier. */
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"", GOOD_LAYERS, NULL),
	           "disagrees with the innermost layer (container)");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"GVISOR\"", "\"high\"", "[]", NULL),
	           "no layers");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "\"high\"", GOOD_LAYERS, NULL),
	           "NONE but 2 layer(s)");
}
END_TEST

START_TEST(confidence_field)
{
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "\"certain\"", "[]", NULL),
	           "confidence: unknown value");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "1.5", "[]", NULL),
	           "confidence: 1.5 is outside");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "-0.1", "[]", NULL), "confidence:");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "true", "[]", NULL),
	           "confidence: not a string");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "null", "[]", NULL),
	           "confidence: missing");
}
END_TEST

START_TEST(layers_field)
{
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "\"high\"", "{}", NULL),
	           "layers: not an array");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "\"high\"", "null", NULL),
	           "layers: not an array");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"", "[\"vm\"]", NULL),
	           "layers[0]: not an object");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"kind\":\"vm\"},{\"kind\":\"hypervisor\"}]", NULL),
	           "layers[1].kind: unknown value \"hypervisor\"");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"vendor\":\"x\"}]", NULL),
	           "layers[0].kind: missing");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"kind\":\"vm\",\"vendor\":7}]", NULL),
	           "layers[0].vendor: not a string");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"kind\":\"vm\",\"hypervisor\":{}}]", NULL),
	           "layers[0].hypervisor: not a string");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"kind\":\"vm\",\"signals\":\"cpuid\"}]", NULL),
	           "layers[0].signals: not an array");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"kind\":\"vm\",\"vendor\":\"fire\\u001b[2Jcracker\"}]", NULL),
	           "layers[0].vendor: byte 0x1b");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"",
	                    "[{\"kind\":\"vm\",\"vendor\":\"caf\\u00e9\"}]", NULL),
	           "not printable ASCII");
	/* Too many layers. */
	char layers[2048] = "[";
	for (int i = 0; i < PROBE_RESULT_MAX_LAYERS + 1; i++)
		strcat(layers, i ? ",{\"kind\":\"vm\"}" : "{\"kind\":\"vm\"}");
	strcat(layers, "]");
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"", layers, NULL),
	           "layers: 9 entries");
}
END_TEST

START_TEST(huge_strings)
{
	size_t n = 100000;
	char *vendor = malloc(n + 1);
	memset(vendor, 'a', n);
	vendor[n] = '\0';
	char *layers = NULL;
	ck_assert_int_ge(asprintf(&layers, "[{\"kind\":\"vm\",\"vendor\":\"%s\"}]", vendor), 0);
	reject_doc(doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"", layers, NULL),
	           "layers[0].vendor: longer than 63 bytes");
	free(layers);
	char *schema = NULL;
	ck_assert_int_ge(asprintf(&schema, "\"%s\"", vendor), 0);
	reject_doc(doc_with(schema, "\"NONE\"", "\"high\"", "[]", NULL), "schema: longer than");
	free(schema);
	free(vendor);
	/* Exactly at the limit is fine. */
	char ok[64];
	memset(ok, 'v', 63);
	ok[63] = '\0';
	ck_assert_int_ge(asprintf(&layers, "[{\"kind\":\"vm\",\"vendor\":\"%s\"}]", ok), 0);
	char *d = doc_with("\"isotier.probe/1\"", "\"MICROVM\"", "\"high\"", layers, NULL);
	probe_result r;
	expect_ok(d, &r);
	ck_assert_uint_eq(strlen(r.layers[0].vendor), 63);
	probe_result_clear(&r);
	free(d);
	free(layers);
}
END_TEST

START_TEST(signals_and_other_fields)
{
	reject_doc(doc_with("\"isotier.probe/1\"", "\"NONE\"", "\"high\"", "[]",
	                    "\"duration_us\":\"fast\""),
	           "");
	/* signals / conflicts missing or mistyped */
	const char *no_signals = "{\"schema\":\"isotier.probe/1\",\"observed_tier\":\"NONE\","
	                         "\"confidence\":\"high\",\"layers\":[],\"conflicts\":[]}";
	expect_reject(no_signals, strlen(no_signals), "signals: missing");
	const char *bad_conflicts = "{\"schema\":\"isotier.probe/1\",\"observed_tier\":\"NONE\","
	                            "\"confidence\":\"high\",\"layers\":[],\"signals\":[],"
	                            "\"conflicts\":\"none\"}";
	expect_reject(bad_conflicts, strlen(bad_conflicts), "conflicts: not an array");
	const char *bad_duration = "{\"schema\":\"isotier.probe/1\",\"observed_tier\":\"NONE\","
	                           "\"confidence\":\"high\",\"layers\":[],\"signals\":[],"
	                           "\"conflicts\":[],\"duration_us\":-5}";
	expect_reject(bad_duration, strlen(bad_duration), "duration_us");
	const char *bad_kernel = "{\"schema\":\"isotier.probe/1\",\"observed_tier\":\"NONE\","
	                         "\"confidence\":\"high\",\"layers\":[],\"signals\":[],"
	                         "\"conflicts\":[],\"kernel\":[1]}";
	expect_reject(bad_kernel, strlen(bad_kernel), "kernel: not an object");
	const char *bad_version =
	    "{\"schema\":\"isotier.probe/1\",\"probe_version\":1,"
	    "\"observed_tier\":\"NONE\",\"confidence\":\"high\",\"layers\":[],"
	    "\"signals\":[],\"conflicts\":[]}";
	expect_reject(bad_version, strlen(bad_version), "probe_version: not a string");
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(probe_tier_name(PROBE_TIER_MICROVM), "MICROVM");
	ck_assert_str_eq(probe_tier_name((probe_tier)42), "UNKNOWN");
	ck_assert_str_eq(probe_layer_kind_name(PROBE_LAYER_GVISOR), "gvisor");
	ck_assert_int_eq(probe_tier_rank(PROBE_TIER_UNKNOWN), -1);
	ck_assert_int_lt(probe_tier_rank(PROBE_TIER_NONE), probe_tier_rank(PROBE_TIER_CONTAINER));
	ck_assert_int_lt(probe_tier_rank(PROBE_TIER_GVISOR), probe_tier_rank(PROBE_TIER_MICROVM));
	ck_assert_int_eq(probe_layer_tier(PROBE_LAYER_VM), PROBE_TIER_MICROVM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_result");
	TCase *tc = tcase_create("probe_result");
	tcase_add_test(tc, valid_document);
	tcase_add_test(tc, other_shapes_accepted);
	tcase_add_test(tc, not_json);
	tcase_add_test(tc, too_large);
	tcase_add_test(tc, deep_nesting);
	tcase_add_test(tc, schema_field);
	tcase_add_test(tc, observed_tier_field);
	tcase_add_test(tc, confidence_field);
	tcase_add_test(tc, layers_field);
	tcase_add_test(tc, huge_strings);
	tcase_add_test(tc, signals_and_other_fields);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
