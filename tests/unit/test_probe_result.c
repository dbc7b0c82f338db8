/* SPDX-License-Identifier: Apache-2.0 */
/* test_probe_result.c - the probe's JSON (probes/probe.schema.json) as hostile
 * input: wrong types, huge strings, missing fields, unknown enum values,
 * self-contradiction, nesting, size. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/evidence/probe_result.h"

#define GOOD_LAYERS                                                                                \
	"[{\"kind\":\"vm\",\"vendor\":\"firecracker\",\"hypervisor\":\"kvm\",\"signals\":["        \
	"\"cpuid\"]},"                                                                             \
	"{\"kind\":\"container\",\"vendor\":\"unknown\",\"signals\":[\"ns.pid\",\"ns.user\"]}]"

static const char *const keys[] = {"schema",     "probe_version", "observed_tier",
                                   "confidence", "layers",        "signals",
                                   "conflicts",  "kernel",        "duration_us"};
static const char *const defaults[] = {
    "\"isotier.probe/1\"",  "\"0.1.0\"", "\"CONTAINER\"",         "\"high\"", GOOD_LAYERS,
    "[{\"id\":\"cpuid\"}]", "[]",        "{\"release\":\"6.1\"}", "1234"};

/* The valid document with up to two members replaced by raw JSON (value
 * NULL: the member removed); k2 may be NULL. */
static char *doc_edit2(const char *k1, const char *v1, const char *k2, const char *v2)
{
	size_t cap = 1 << 20, off = 0;
	char *out = malloc(cap);
	ck_assert_ptr_nonnull(out);
	off += (size_t)snprintf(out, cap, "{");
	bool first = true;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		const char *v = defaults[i];
		if (k1 && !strcmp(keys[i], k1))
			v = v1;
		else if (k2 && !strcmp(keys[i], k2))
			v = v2;
		if (!v)
			continue;
		ck_assert_uint_lt(off + strlen(v) + strlen(keys[i]) + 8, cap);
		off += (size_t)snprintf(out + off, cap - off, "%s\"%s\":%s", first ? "" : ",",
		                        keys[i], v);
		first = false;
	}
	snprintf(out + off, cap - off, "}");
	return out;
}

static char *doc_edit(const char *key, const char *value)
{
	return doc_edit2(key, value, NULL, NULL);
}

static void expect_ok(const char *json, probe_result *r)
{
	isotier_error err = {0};
	ck_assert_msg(isotier__probe_result_parse(r, json, strlen(json), &err) == 0, "%.300s -> %s",
	              json, err.message);
}

static void expect_reject(const char *json, size_t len, const char *needle)
{
	probe_result r;
	isotier_error err = {0};
	int rc = isotier__probe_result_parse(&r, json, len, &err);
	ck_assert_msg(rc == ISOTIER_EDATA, "accepted (rc %d): %.300s", rc, json ? json : "(null)");
	ck_assert_int_eq(err.code, ISOTIER_EDATA);
	ck_assert_msg(strstr(err.message, needle), "'%s' not in '%s'", needle, err.message);
	ck_assert_ptr_null(r.layers_json);
	ck_assert_uint_eq(r.n_layers, 0);
}

#define REJECT_LIT(lit, needle) expect_reject(lit, sizeof(lit) - 1, needle)

/* Rejects (and frees) doc. */
static void reject_doc(char *doc, const char *needle)
{
	expect_reject(doc, strlen(doc), needle);
	free(doc);
}

START_TEST(valid_document)
{
	char *d = doc_edit(NULL, NULL);
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
	ck_assert_str_eq(r.layers[1].vendor, "unknown");
	ck_assert_str_eq(r.layers[1].hypervisor, "");
	ck_assert_uint_eq(r.layers[1].n_signals, 2);
	ck_assert_uint_eq(r.n_signals, 1);
	ck_assert_uint_eq(r.n_conflicts, 0);
	ck_assert_int_eq(r.duration_us, 1234);
	ck_assert_str_eq(isotier__probe_result_vendor(&r), ""); /* the innermost layer names none */
	ck_assert_ptr_nonnull(strstr(r.layers_json, "\"firecracker\""));
	isotier__probe_result_clear(&r);
	isotier__probe_result_clear(&r); /* twice is harmless */
	free(d);
}
END_TEST

START_TEST(other_shapes_accepted)
{
	probe_result r;
	/* NONE without layers, unknown extra members, whitespace around. */
	char *d = doc_edit2("observed_tier", "\"NONE\"", "layers", "[]");
	char *padded = NULL;
	ck_assert_int_ge(
	    asprintf(&padded, " \n%.*s,\"future\":[1,{\"x\":2}]} \r\n\t", (int)strlen(d) - 1, d),
	    0);
	expect_ok(padded, &r);
	ck_assert_int_eq(r.observed, PROBE_TIER_NONE);
	ck_assert_str_eq(isotier__probe_result_vendor(&r), "");
	isotier__probe_result_clear(&r);
	free(padded);
	free(d);
	/* UNKNOWN with confidence none, layers or not. */
	d = doc_edit2("observed_tier", "\"UNKNOWN\"", "confidence", "\"none\"");
	expect_ok(d, &r);
	ck_assert_int_eq(r.confidence, PROBE_CONFIDENCE_NONE);
	isotier__probe_result_clear(&r);
	free(d);
	/* gVisor, low confidence (edited in place: two edits at most), no hypervisor. */
	char *low = doc_edit2("observed_tier", "\"GVISOR\"", "layers",
	                      "[{\"kind\":\"gvisor\",\"vendor\":\"gvisor\",\"signals\":[]}]");
	char *p = strstr(low, "\"high\"");
	ck_assert_ptr_nonnull(p);
	memcpy(p, "\"low\" ", 6);
	expect_ok(low, &r);
	ck_assert_int_eq(r.confidence, PROBE_CONFIDENCE_LOW);
	ck_assert_int_eq(r.layers[0].kind, PROBE_LAYER_GVISOR);
	ck_assert_str_eq(isotier__probe_result_vendor(&r), "gvisor");
	isotier__probe_result_clear(&r);
	free(low);
	/* The innermost vm names its VMM. */
	d = doc_edit2(
	    "observed_tier", "\"MICROVM\"", "layers",
	    "[{\"kind\":\"vm\",\"vendor\":\"qemu\",\"hypervisor\":\"tcg\",\"signals\":[]}]");
	expect_ok(d, &r);
	ck_assert_str_eq(isotier__probe_result_vendor(&r), "qemu");
	isotier__probe_result_clear(&r);
	free(d);
}
END_TEST

START_TEST(every_required_member)
{
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		char needle[64];
		snprintf(needle, sizeof needle, "%s: missing", keys[i]);
		reject_doc(doc_edit(keys[i], NULL), needle);
	}
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
	char *d = doc_edit(NULL, NULL);
	char *two = NULL;
	ck_assert_int_ge(asprintf(&two, "%s\n%s", d, d), 0);
	expect_reject(two, strlen(two), "trailing data");
	free(two);
	free(d);
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
	char *d = doc_edit("probe_version", "\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"[[[\"");
	probe_result r;
	expect_ok(d, &r);
	isotier__probe_result_clear(&r);
	free(d);
}
END_TEST

START_TEST(schema_field)
{
	reject_doc(doc_edit("schema", "\"isotier.probe/2\""), "schema: \"isotier.probe/2\" is not");
	reject_doc(doc_edit("schema", "1"), "schema: not a string");
	reject_doc(doc_edit("schema", "null"), "schema: not a string");
	REJECT_LIT("{\"observed_tier\":\"NONE\"}", "schema: missing");
}
END_TEST

START_TEST(observed_tier_field)
{
	reject_doc(doc_edit("observed_tier", "\"HYPERVISOR\""),
	           "observed_tier: unknown value \"HYPERVISOR\"");
	reject_doc(doc_edit("observed_tier", "\"container\""), "observed_tier: unknown value");
	reject_doc(doc_edit("observed_tier", "3"), "observed_tier: not a string");
	reject_doc(doc_edit("observed_tier", "[\"MICROVM\"]"), "observed_tier: not a string");
	/* Self-contradiction: the innermost layer decides the tier. */
	reject_doc(doc_edit("observed_tier", "\"MICROVM\""),
	           "disagrees with the innermost layer (container)");
	reject_doc(doc_edit2("observed_tier", "\"GVISOR\"", "layers", "[]"), "no layers");
	reject_doc(doc_edit("observed_tier", "\"NONE\""), "NONE but 2 layer(s)");
}
END_TEST

START_TEST(confidence_field)
{
	reject_doc(doc_edit("confidence", "\"certain\""), "confidence: unknown value");
	reject_doc(doc_edit("confidence", "\"medium\""), "confidence: unknown value");
	reject_doc(doc_edit("confidence", "\"HIGH\""), "confidence: unknown value");
	reject_doc(doc_edit("confidence", "0.9"), "confidence: not a string");
	reject_doc(doc_edit("confidence", "true"), "confidence: not a string");
	reject_doc(doc_edit("confidence", "null"), "confidence: not a string");
}
END_TEST

START_TEST(layers_field)
{
	reject_doc(doc_edit("layers", "{}"), "layers: not an array");
	reject_doc(doc_edit("layers", "null"), "layers: not an array");
	reject_doc(doc_edit("layers", "[\"vm\"]"), "layers[0]: not an object");
	reject_doc(doc_edit("layers", "[{\"kind\":\"vm\",\"vendor\":\"qemu\",\"signals\":[]},"
	                              "{\"kind\":\"hypervisor\",\"vendor\":\"x\",\"signals\":[]}]"),
	           "layers[1].kind: unknown value \"hypervisor\"");
	reject_doc(doc_edit("layers", "[{\"vendor\":\"x\",\"signals\":[]}]"),
	           "layers[0].kind: missing");
	reject_doc(doc_edit("layers", "[{\"kind\":\"container\",\"signals\":[]}]"),
	           "layers[0].vendor: missing");
	reject_doc(doc_edit("layers", "[{\"kind\":\"container\",\"vendor\":null,\"signals\":[]}]"),
	           "layers[0].vendor: not a string");
	reject_doc(doc_edit("layers", "[{\"kind\":\"container\",\"vendor\":7,\"signals\":[]}]"),
	           "layers[0].vendor: not a string");
	reject_doc(
	    doc_edit(
	        "layers",
	        "[{\"kind\":\"container\",\"vendor\":\"x\",\"hypervisor\":{},\"signals\":[]}]"),
	    "layers[0].hypervisor: not a string");
	reject_doc(doc_edit("layers", "[{\"kind\":\"container\",\"vendor\":\"x\"}]"),
	           "layers[0].signals: missing");
	reject_doc(
	    doc_edit("layers", "[{\"kind\":\"container\",\"vendor\":\"x\",\"signals\":\"s\"}]"),
	    "layers[0].signals: not an array");
	reject_doc(
	    doc_edit("layers",
	             "[{\"kind\":\"container\",\"vendor\":\"fire\\u001b[2Jx\",\"signals\":[]}]"),
	    "layers[0].vendor: byte 0x1b");
	reject_doc(doc_edit("layers",
	                    "[{\"kind\":\"container\",\"vendor\":\"caf\\u00e9\",\"signals\":[]}]"),
	           "not printable ASCII");
	/* Too many layers. */
	char layers[2048] = "[";
	for (int i = 0; i < PROBE_RESULT_MAX_LAYERS + 1; i++)
		strcat(layers, i ? ",{\"kind\":\"vm\"}" : "{\"kind\":\"vm\"}");
	strcat(layers, "]");
	reject_doc(doc_edit("layers", layers), "layers: 9 entries");
}
END_TEST

START_TEST(huge_strings)
{
	size_t n = 100000;
	char *big = malloc(n + 3);
	big[0] = '"';
	memset(big + 1, 'a', n);
	big[n + 1] = '"';
	big[n + 2] = '\0';
	char *layers = NULL;
	ck_assert_int_ge(
	    asprintf(&layers, "[{\"kind\":\"container\",\"vendor\":%s,\"signals\":[]}]", big), 0);
	reject_doc(doc_edit("layers", layers), "layers[0].vendor: longer than 63 bytes");
	free(layers);
	reject_doc(doc_edit("schema", big), "schema: longer than");
	reject_doc(doc_edit("probe_version", big), "probe_version: longer than");
	reject_doc(doc_edit("observed_tier", big), "observed_tier: longer than");
	/* A huge string in a member this CLI only stores is fine. */
	char *kernel = NULL;
	ck_assert_int_ge(asprintf(&kernel, "{\"cmdline\":%s}", big), 0);
	char *d = doc_edit("kernel", kernel);
	probe_result r;
	expect_ok(d, &r);
	isotier__probe_result_clear(&r);
	free(d);
	free(kernel);
	free(big);
	/* Exactly at the limit is fine. */
	char ok[64];
	memset(ok, 'v', 63);
	ok[63] = '\0';
	ck_assert_int_ge(
	    asprintf(&layers, "[{\"kind\":\"container\",\"vendor\":\"%s\",\"signals\":[]}]", ok),
	    0);
	d = doc_edit("layers", layers);
	expect_ok(d, &r);
	ck_assert_uint_eq(strlen(r.layers[0].vendor), 63);
	isotier__probe_result_clear(&r);
	free(d);
	free(layers);
}
END_TEST

START_TEST(other_members)
{
	reject_doc(doc_edit("signals", "{}"), "signals: not an array");
	reject_doc(doc_edit("conflicts", "\"none\""), "conflicts: not an array");
	reject_doc(doc_edit("duration_us", "-5"), "duration_us: not a non-negative integer");
	reject_doc(doc_edit("duration_us", "1.5"), "duration_us: not a non-negative integer");
	reject_doc(doc_edit("duration_us", "\"fast\""), "duration_us");
	reject_doc(doc_edit("duration_us", "1e300"), "duration_us");
	reject_doc(doc_edit("kernel", "[1]"), "kernel: not an object");
	reject_doc(doc_edit("kernel", "\"Linux\""), "kernel: not an object");
	reject_doc(doc_edit("probe_version", "1"), "probe_version: not a string");
}
END_TEST

START_TEST(the_real_probe_output_parses)
{
	/* What build/isotier-probe prints here, when it is built. */
	FILE *f = popen(ISOTIER_SOURCE_DIR "/build/isotier-probe --json 2>/dev/null", "r");
	ck_assert_ptr_nonnull(f);
	static char buf[PROBE_RESULT_MAX_BYTES];
	size_t n = fread(buf, 1, sizeof buf, f);
	int status = pclose(f);
	if (status != 0 || n == 0)
		return; /* not built in this tree: the integration tests cover it */
	probe_result r;
	isotier_error err = {0};
	ck_assert_msg(isotier__probe_result_parse(&r, buf, n, &err) == 0, "%s", err.message);
	ck_assert_int_ne(r.observed, PROBE_TIER_UNKNOWN);
	isotier__probe_result_clear(&r);
}
END_TEST

/* kernel.identity: trusted only when well-formed, true and without a problem;
 * absent or malformed is untrusted (fail closed), never a parse error. */
START_TEST(kernel_identity_field)
{
	static const struct {
		const char *kernel;
		bool trusted;
		const char *problem; /* a prefix of identity_problem */
	} cases[] = {
	    {"{\"release\":\"6.1\"}", false, "the probe did not check its identity inputs"},
	    {"{\"identity\":{\"trusted\":true,\"problems\":[]}}", true, ""},
	    {"{\"identity\":{\"trusted\":false,\"problems\":[\"/proc: not procfs\",\"b\"]}}", false,
	     "/proc: not procfs"},
	    {"{\"identity\":{\"trusted\":true,\"problems\":[\"boot_id read twice: changed\"]}}",
	     false, "boot_id read twice: changed"},
	    {"{\"identity\":{\"trusted\":false,\"problems\":[]}}", false,
	     "the probe did not say why"},
	    {"{\"identity\":{\"trusted\":\"yes\",\"problems\":[]}}", false,
	     "kernel.identity is malformed"},
	    {"{\"identity\":{\"trusted\":1,\"problems\":[]}}", false,
	     "kernel.identity is malformed"},
	    {"{\"identity\":{\"trusted\":true}}", false, "kernel.identity is malformed"},
	    {"{\"identity\":{\"trusted\":true,\"problems\":[7]}}", false,
	     "kernel.identity is malformed"},
	    {"{\"identity\":{\"trusted\":true,\"problems\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\","
	     "\"7\",\"8\",\"9\"]}}",
	     false, "kernel.identity is malformed"},
	    {"{\"identity\":[true]}", false, "the probe did not check its identity inputs"},
	    {"{\"identity\":{\"trusted\":false,\"problems\":[\"a\\u001b[31mred\\u00e9\"]}}", false,
	     "a?[31mred??"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *doc = doc_edit("kernel", cases[i].kernel);
		probe_result r;
		expect_ok(doc, &r);
		ck_assert_msg(r.identity_trusted == cases[i].trusted, "%s: trusted %d",
		              cases[i].kernel, r.identity_trusted);
		ck_assert_msg(
		    strncmp(r.identity_problem, cases[i].problem, strlen(cases[i].problem)) == 0 &&
		        (cases[i].problem[0] || !r.identity_problem[0]),
		    "%s: problem \"%s\"", cases[i].kernel, r.identity_problem);
		isotier__probe_result_clear(&r);
		free(doc);
	}
	/* A problem over 160 bytes is malformed; one of 160 is taken whole. */
	char kernel[600], big[200];
	memset(big, 'x', 161);
	big[161] = '\0';
	snprintf(kernel, sizeof kernel, "{\"identity\":{\"trusted\":false,\"problems\":[\"%s\"]}}",
	         big);
	char *doc = doc_edit("kernel", kernel);
	probe_result r;
	expect_ok(doc, &r);
	ck_assert_ptr_nonnull(strstr(r.identity_problem, "malformed"));
	isotier__probe_result_clear(&r);
	free(doc);
	big[160] = '\0';
	snprintf(kernel, sizeof kernel, "{\"identity\":{\"trusted\":false,\"problems\":[\"%s\"]}}",
	         big);
	doc = doc_edit("kernel", kernel);
	expect_ok(doc, &r);
	ck_assert_str_eq(r.identity_problem, big);
	isotier__probe_result_clear(&r);
	free(doc);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(isotier__probe_tier_name(PROBE_TIER_MICROVM), "MICROVM");
	ck_assert_str_eq(isotier__probe_tier_name((probe_tier)42), "UNKNOWN");
	ck_assert_str_eq(isotier__probe_layer_kind_name(PROBE_LAYER_GVISOR), "gvisor");
	ck_assert_int_eq(isotier__probe_tier_rank(PROBE_TIER_UNKNOWN), -1);
	ck_assert_int_lt(isotier__probe_tier_rank(PROBE_TIER_NONE),
	                 isotier__probe_tier_rank(PROBE_TIER_CONTAINER));
	ck_assert_int_lt(isotier__probe_tier_rank(PROBE_TIER_GVISOR),
	                 isotier__probe_tier_rank(PROBE_TIER_MICROVM));
	ck_assert_int_eq(isotier__probe_layer_tier(PROBE_LAYER_VM), PROBE_TIER_MICROVM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_result");
	TCase *tc = tcase_create("probe_result");
	tcase_add_test(tc, valid_document);
	tcase_add_test(tc, other_shapes_accepted);
	tcase_add_test(tc, every_required_member);
	tcase_add_test(tc, not_json);
	tcase_add_test(tc, too_large);
	tcase_add_test(tc, deep_nesting);
	tcase_add_test(tc, schema_field);
	tcase_add_test(tc, observed_tier_field);
	tcase_add_test(tc, confidence_field);
	tcase_add_test(tc, layers_field);
	tcase_add_test(tc, huge_strings);
	tcase_add_test(tc, other_members);
	tcase_add_test(tc, the_real_probe_output_parses);
	tcase_add_test(tc, names);
	tcase_add_test(tc, kernel_identity_field);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
