/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report.c - `isotier report`: escaping (HTML/XML, JSON, Markdown) of
 * hostile strings, dates, evidence parsing of hostile stored JSON, and the
 * model + writers over a fixture database built with the real schema
 * (isotier__history_open): the expected rows and findings, and byte-identical
 * output when regenerated.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include "check_run.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../verify/report/report_format.h"
#include "../../verify/report/report_model.h"
#include "../../reference/history/history_sqlite.h"

START_TEST(xml_escapes_markup_and_controls)
{
	ASSERT_RENDER(report_put_xml, "<script>alert('x')</script>",
	              "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	ASSERT_RENDER(report_put_xml, "a & b \"q\"", "a &amp; b &quot;q&quot;");
	ASSERT_RENDER(report_put_xml, "\x1b[31mred\x1b[0m\r", "\\x1b[31mred\\x1b[0m\\x0d");
	ASSERT_RENDER(report_put_xml, "tab\tnl\n", "tab\tnl\n");
	ASSERT_RENDER(report_put_xml, "\x7f", "\\x7f");
	ASSERT_RENDER(report_put_xml, "C1 \xc2\x9b", "C1 \\x9b"); /* CSI as a C1 control */
	ASSERT_RENDER(report_put_xml, "caf\xc3\xa9 \xe2\x80\x94", "caf\xc3\xa9 \xe2\x80\x94");
	/* invalid UTF-8: a lone continuation, a truncated sequence, an overlong '<', a surrogate */
	ASSERT_RENDER(report_put_xml, "\x80", "\xef\xbf\xbd");
	ASSERT_RENDER(report_put_xml, "\xe2\x80", "\xef\xbf\xbd\xef\xbf\xbd");
	ASSERT_RENDER(report_put_xml, "\xc0\xbc", "\xef\xbf\xbd\xef\xbf\xbd");
	ASSERT_RENDER(report_put_xml, "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	ASSERT_RENDER(report_put_xml, "\xef\xbf\xbe", "\xef\xbf\xbd"); /* U+FFFE: not XML */
	ASSERT_RENDER(report_put_xml, "", "");
	ASSERT_RENDER(report_put_xml, NULL, "");
}
END_TEST

START_TEST(json_escapes)
{
	ASSERT_RENDER(report_put_json, "a\"b\\c", "\"a\\\"b\\\\c\"");
	ASSERT_RENDER(report_put_json, "\x1b[2J\n\t\r\x01", "\"\\u001b[2J\\n\\t\\r\\u0001\"");
	ASSERT_RENDER(report_put_json, "</script>", "\"</script>\"");
	ASSERT_RENDER(report_put_json, "\xff", "\"\xef\xbf\xbd\"");
	ASSERT_RENDER(report_put_json, "\xe2\x80\xa8", "\"\\u2028\"");
	ASSERT_RENDER(report_put_json, NULL, "null");
}
END_TEST

START_TEST(markdown_escapes)
{
	ASSERT_RENDER(report_put_md, "a|b", "a\\|b");
	ASSERT_RENDER(report_put_md, "*bold* _it_ `code` [l](u) ![i](x)",
	              "\\*bold\\* \\_it\\_ \\`code\\` \\[l\\](u) \\!\\[i\\](x)");
	ASSERT_RENDER(report_put_md, "<img src=x onerror=alert(1)>",
	              "&lt;img src=x onerror=alert(1)&gt;");
	ASSERT_RENDER(report_put_md, "line1\nline2", "line1 line2");
	ASSERT_RENDER(report_put_md, "\x1b]0;t\x07", "\\\\x1b\\]0;t\\\\x07");
	ASSERT_RENDER(report_put_md, "# not a heading", "\\# not a heading");
}
END_TEST

START_TEST(dates)
{
	ck_assert_int_eq(report_days("1970-01-01"), 0);
	ck_assert_int_eq(report_days("2026-12-02T10:00:00Z") - report_days("2026-09-03"), 90);
	ck_assert_int_eq(report_days("2024-02-29"), report_days("2024-02-28") + 1);
	ck_assert_int_eq(report_days("2025-02-29"), -1);
	ck_assert_int_eq(report_days("2026-13-01"), -1);
	ck_assert_int_eq(report_days("2026-1-01"), -1);
	ck_assert_int_eq(report_days(NULL), -1);
	ck_assert(report_valid_date("2026-12-02"));
	ck_assert(!report_valid_date("2026-12-02T00:00:00Z"));
	ck_assert(report_valid_timestamp("2026-12-02T23:59:59Z"));
	ck_assert(report_valid_timestamp("2026-12-02"));
	ck_assert(!report_valid_timestamp("2026-12-02T24:00:00Z"));
	ck_assert(!report_valid_timestamp("2026-12-02 10:00:00"));
	ck_assert(!report_valid_timestamp("'; DROP TABLE runs; --"));
}
END_TEST

START_TEST(evidence_hostile_json)
{
	report_arena a = {0};
	/* ids resolved against the probe's signal table; conflicts as objects */
	report_evidence *ev = report_evidence_parse(
	    &a,
	    "[{\"kind\":\"vm\",\"vendor\":\"firecracker\",\"signals\":[\"virt.cpuid\",\"nope\"]}]",
	    "{\"schema\":\"isotier.probe/"
	    "1\",\"signals\":[{\"id\":\"virt.cpuid\",\"family\":\"virt\","
	    "\"value\":\"KVMKVMKVM\",\"weight\":\"strong\",\"supports\":\"vm\"}],"
	    "\"conflicts\":[{\"signal\":\"container.dockerenv\",\"over\":[\"ns.pid\"],\"note\":\"<"
	    "b>\"}]}");
	ck_assert_ptr_nonnull(ev);
	ck_assert_uint_eq(ev->n_layers, 1);
	ck_assert_str_eq(ev->layers[0].vendor, "firecracker");
	ck_assert_uint_eq(ev->layers[0].n_signals, 2);
	ck_assert_str_eq(ev->layers[0].signals[0].value, "KVMKVMKVM");
	ck_assert_str_eq(ev->layers[0].signals[0].weight, "strong");
	ck_assert_str_eq(ev->layers[0].signals[1].id, "nope");
	ck_assert_ptr_null(ev->layers[0].signals[1].value);
	ck_assert_uint_eq(ev->n_conflicts, 1);
	ck_assert_str_eq(ev->conflicts[0], "signal: container.dockerenv; over: ns.pid; note: <b>");
	ck_assert_uint_eq(ev->n_problems, 0);

	ev = report_evidence_parse(&a, "{not json", "[1,2]");
	ck_assert_uint_eq(ev->n_layers, 0);
	ck_assert_uint_eq(ev->n_problems, 2);
	ck_assert_str_eq(ev->problems[0], "layers_json: not JSON (at byte 2)");
	ck_assert_str_eq(ev->problems[1], "probe_json: not an object");

	ev = report_evidence_parse(&a, "[1,{\"kind\":7,\"signals\":{\"x\":1}}]", NULL);
	ck_assert_uint_eq(ev->n_layers, 1);
	ck_assert_str_eq(ev->layers[0].kind, "7");
	ck_assert_uint_eq(ev->n_problems, 2);

	/* Too many layers and signals: bounded, and said so. */
	char big[8192] = "[";
	for (int i = 0; i < 40; i++)
		strcat(big, i ? ",{\"kind\":\"vm\"}" : "{\"kind\":\"vm\"}");
	strcat(big, "]");
	ev = report_evidence_parse(&a, big, NULL);
	ck_assert_uint_eq(ev->n_layers, REPORT_LAYERS_MAX);
	ck_assert_uint_eq(ev->n_problems, 1);

	/* Deep nesting and a huge value do not crash and stay bounded. */
	char *deep = malloc(3 * 100000 + 64);
	char *p = deep;
	p += sprintf(p, "[{\"kind\":\"vm\",\"vendor\":");
	for (int i = 0; i < 100000; i++)
		*p++ = '[';
	for (int i = 0; i < 100000; i++)
		*p++ = ']';
	strcpy(p, "}]");
	ev = report_evidence_parse(&a, deep, NULL);
	ck_assert_uint_le(ev->n_layers, 1);
	free(deep);
	char *huge = malloc(REPORT_PROBE_JSON_MAX + 16);
	memset(huge, ' ', REPORT_PROBE_JSON_MAX + 8);
	huge[REPORT_PROBE_JSON_MAX + 8] = '\0';
	ev = report_evidence_parse(&a, NULL, huge);
	ck_assert_uint_eq(ev->n_problems, 1);
	free(huge);
	report_arena_free(&a);
}
END_TEST

/* The report reads the stored columns with the judge's reader: what the
 * judge refuses (nesting, a NUL-free size, duplicate keys) the report
 * states as the column's problem, in the same words. */
START_TEST(evidence_bounds_are_the_judges)
{
	report_arena a = {0};
	char deep[2 * (PROBE_RESULT_MAX_DEPTH + 1) + 1];
	for (int i = 0; i <= PROBE_RESULT_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[2 * (PROBE_RESULT_MAX_DEPTH + 1) - 1 - i] = ']';
	}
	deep[sizeof deep - 1] = '\0';
	probe_result r;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__probe_result_parse(&r, deep, strlen(deep), &err), ISOTIER_EDATA);
	ck_assert_str_eq(err.message, "document: nested deeper than 32 levels");
	report_evidence *ev = report_evidence_parse(&a, NULL, deep);
	ck_assert_uint_eq(ev->n_problems, 1);
	ck_assert_str_eq(ev->problems[0], "probe_json: nested deeper than 32 levels");
	/* One level less is read (its layers are not objects: that is all). */
	deep[PROBE_RESULT_MAX_DEPTH] = ' ', deep[PROBE_RESULT_MAX_DEPTH + 1] = ' ';
	ev = report_evidence_parse(&a, deep, NULL);
	ck_assert_uint_eq(ev->n_problems, 1);
	ck_assert_str_eq(ev->problems[0], "layers[0]: not an object");
	report_arena_free(&a);
}
END_TEST

/* Signal values that are huge numbers or huge arrays: no undefined
 * conversion, and a bounded rendering built in linear time. */
START_TEST(evidence_value_text_bounds)
{
	report_arena a = {0};
	const char *numbers[][2] = {
	    {"1e300", "1e+300"},
	    {"-1e300", "-1e+300"},
	    {"1e400", "inf"}, /* cJSON: HUGE_VAL */
	    {"-1e400", "-inf"},
	    {"9.2233720368547758e18", "9.22337e+18"},
	    {"123456789", "123456789"},
	    {"-42", "-42"},
	    {"0.5", "0.5"},
	};
	for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
		char probe[256];
		snprintf(probe, sizeof probe,
		         "{\"signals\":[{\"id\":\"x\",\"value\":%s,\"weight\":%s}]}", numbers[i][0],
		         numbers[i][0]);
		report_evidence *ev =
		    report_evidence_parse(&a, "[{\"kind\":\"vm\",\"signals\":[\"x\"]}]", probe);
		ck_assert_ptr_nonnull(ev);
		ck_assert_uint_eq(ev->n_layers, 1);
		ck_assert_uint_eq(ev->layers[0].n_signals, 1);
		ck_assert_str_eq(ev->layers[0].signals[0].value, numbers[i][1]);
	}
	/* NaN cannot be written in JSON text (cJSON prints it as null), so
	 * stored JSON never holds one; 1e400 (inf, above) is the non-finite
	 * number that does reach value_text. The round trip is still checked. */
	{
		cJSON *root = cJSON_CreateObject();
		cJSON *conf = cJSON_AddArrayToObject(root, "conflicts");
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToObject(c, "nan", cJSON_CreateNumber(NAN));
		cJSON_AddItemToObject(c, "big", cJSON_CreateNumber(-1e300));
		cJSON_AddItemToArray(conf, c);
		char *text = cJSON_PrintUnformatted(root); /* cJSON prints NaN as null */
		cJSON_Delete(root);
		report_evidence *ev = report_evidence_parse(&a, text, NULL);
		cJSON_free(text);
		ck_assert_uint_eq(ev->n_conflicts, 1);
		ck_assert_str_eq(ev->conflicts[0], "nan: null; big: -1e+300");
	}
	/* An 800 KB value: 200,000 strings joined, cut at VALUE_MAX (512) and marked. */
	size_t n = 200000;
	char *big = malloc(n * 4 + 256);
	char *p = big;
	p += sprintf(p, "{\"signals\":[{\"id\":\"x\",\"value\":[");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s\"a\"", i ? "," : "");
	strcpy(p, "]}]}");
	report_evidence *ev =
	    report_evidence_parse(&a, "[{\"kind\":\"vm\",\"signals\":[\"x\"]}]", big);
	free(big);
	ck_assert_uint_eq(ev->n_problems, 0);
	const char *v = ev->layers[0].signals[0].value;
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_le(strlen(v), 512 + 3);
	ck_assert(!strncmp(v, "a, a, a, ", 9));
	ck_assert_str_eq(v + strlen(v) - 3, "...");
	/* A short array is joined whole, without a mark. */
	ev = report_evidence_parse(&a, "[{\"kind\":\"vm\",\"signals\":[\"x\"]}]",
	                           "{\"signals\":[{\"id\":\"x\",\"value\":[\"kvm\",\"xen\"]}]}");
	ck_assert_str_eq(ev->layers[0].signals[0].value, "kvm, xen");
	report_arena_free(&a);
}
END_TEST

/* ---- fixture database -------------------------------------------------- */

static char tmpdir[64];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

static void insert_observation(sqlite3 *db, const char *at, const char *backend,
                               const char *provider, const char *claimed, const char *observed,
                               const char *verdict, const char *reason, const char *layers,
                               const char *probe)
{
	sqlite3_stmt *st = NULL;
	ck_assert_int_eq(
	    sqlite3_prepare_v2(
	        db,
	        "INSERT INTO observations(run_id, observed_at, backend, provider_id,"
	        " claimed_tier, claimed_mechanism, observed_tier, observed_vendor,"
	        " confidence, layers_json, verdict, reason, probe_json, duration_ms)"
	        " VALUES (1, ?, ?, ?, ?, 'bubblewrap', ?, 'kvm', 'high', ?, ?, ?, ?, 42)",
	        -1, &st, NULL),
	    SQLITE_OK);
	const char *v[] = {at,     backend, provider, claimed, observed,
	                   layers, verdict, reason,   probe};
	for (int i = 0; i < 9; i++)
		sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

static void build_fixture(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/test_report.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	char path[256];
	snprintf(path, sizeof path, "%s/providers", tmpdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/providers/bubblewrap.json", tmpdir);
	write_text(
	    path,
	    "{\"id\":\"bubblewrap\",\"name\":\"bubblewrap <b>bold</b>\",\"kind\":\"local\","
	    "\"tier\":\"CONTAINER\",\"mechanism\":\"bubblewrap\",\"since\":\"2026-09-01\","
	    "\"backend\":\"bwrap\",\"sources\":[{\"url\":\"https://example.test/bwrap\","
	    "\"quote\":\"uses <script>alert(1)</script> namespaces\",\"publisher\":\"provider\","
	    "\"retrieved\":\"2026-09-01\"}],\"history\":[],\"notes\":\"n | m\"}");
	snprintf(path, sizeof path, "%s/providers/ember.json", tmpdir);
	write_text(
	    path, "{\"id\":\"ember\",\"name\":\"Ember\",\"kind\":\"remote\",\"tier\":\"MICROVM\","
	          "\"mechanism\":\"firecracker\",\"since\":\"2026-11-01\",\"sources\":[{\"url\":"
	          "\"https://example.test/ember\",\"quote\":\"Firecracker microVMs\",\"publisher\":"
	          "\"provider\",\"retrieved\":\"2026-11-20\"}],\"history\":[],\"notes\":\"\"}");

	snprintf(path, sizeof path, "%s/history.db", tmpdir);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, path, 0, &err) == 0, "%s", err.message);
	sqlite3 *db = isotier__history_db(h);
	exec_sql(
	    db,
	    "INSERT INTO runs(id, started_at, finished_at, tool_version, command, status)"
	    " VALUES (1, '2026-11-30T10:00:00Z', '2026-11-30T10:00:05Z', '0.1.0', 'verify', 'ok')");
	const char *layers =
	    "[{\"kind\":\"vm\",\"vendor\":\"firecracker\",\"signals\":[\"virt.cpuid\"]},"
	    "{\"kind\":\"container\",\"vendor\":\"<script>x</script>\",\"signals\":[\"ns.pid\"]}]";
	const char *probe =
	    "{\"schema\":\"isotier.probe/1\",\"probe_version\":\"0.1.0\",\"signals\":["
	    "{\"id\":\"virt.cpuid\",\"family\":\"virt\",\"value\":\"KVMKVMKVM\",\"weight\":"
	    "\"strong\"},"
	    "{\"id\":\"ns.pid\",\"family\":\"container\",\"value\":\"\\u001b[31m<img src=x>\","
	    "\"weight\":\"strong\"}],\"conflicts\":[\"/.dockerenv present\"]}";
	insert_observation(db, "2026-11-29T10:00:00Z", "bwrap", "bubblewrap", "CONTAINER",
	                   "CONTAINER", "CONFIRMED", "ok", layers, probe);
	insert_observation(db, "2026-11-30T10:00:00Z", "bwrap", "bubblewrap", "CONTAINER",
	                   "MICROVM", "CONTRADICTED", "claimed <CONTAINER> \x1b[2J | observed",
	                   layers, probe);
	insert_observation(db, "2026-11-30T10:00:01Z", "host", NULL, NULL, "MICROVM",
	                   "INCONCLUSIVE", NULL, "{broken", "[]");
	exec_sql(db,
	         "INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote, status,"
	         " http_status, detail) VALUES"
	         " (1, '2026-11-30T11:00:00Z', 'ember', 'https://example.test/ember', 'Firecracker "
	         "microVMs',"
	         " 'CHANGED', 200, 'quote gone: <iframe>'),"
	         " (1, '2026-11-30T11:00:00Z', 'bubblewrap', 'https://example.test/bwrap',"
	         " 'uses <script>alert(1)</script> namespaces', 'PRESENT', 200, NULL)");
	exec_sql(
	    db,
	    "INSERT INTO audit_events(at, event, backend, claimed_tier, resolved_tier,"
	    " required_tier, decision, reason) VALUES"
	    " ('2026-12-01T09:00:00Z', 'refuse', 'bwrap', 'CONTAINER', 'UNKNOWN', 'MICROVM',"
	    " 'refused', 'latest observation CONTRADICTED <svg onload=x>'),"
	    " ('2026-12-01T09:00:01Z', 'create', 'bwrap', 'CONTAINER', 'CONTAINER', 'CONTAINER',"
	    " 'allowed', 'ok')");
	isotier__history_close(h);
}

static void remove_fixture(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *generate(report_model *m, int (*write)(FILE *, const report_model *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(write(f, m), 0);
	fclose(f);
	return buf;
}

/* CSV (RFC 4180): a comma, quote or line break quotes the field (quotes
 * doubled); what a spreadsheet would evaluate is kept text with a leading '. */
START_TEST(csv_quotes_and_defuses)
{
	report_observation o = {.observed_at = "2026-12-01T10:00:00Z",
	                        .verdict = "CONFIRMED",
	                        .observed_tier = "CONTAINER",
	                        .observed_vendor = "@SUM(A1:A9)"};
	report_row rows[] = {
	    {.provider_id = "=HYPERLINK(\"http://x\")",
	     .backend = "-2+3",
	     .claimed_tier = "CONTAINER",
	     .mechanism = "a,b",
	     .state = "line\nbreak",
	     .latest = &o,
	     .section = RS_LOCAL},
	    {.provider_id = "+cmd|' /C calc'!A0",
	     .mechanism = "say \"hi\"\x01",
	     .section = RS_SOURCES},
	};
	report_model m = {.rows = rows, .n_rows = 2};
	char *csv = generate(&m, report_format_lookup("csv")->write);
	ck_assert_str_eq(csv, "section,provider,backend,claimed_tier,mechanism,state,observed_at,"
	                      "verdict,observed_tier,observed_vendor\r\n"
	                      "local,\"'=HYPERLINK(\"\"http://x\"\")\",\"'-2+3\",CONTAINER,\"a,b\","
	                      "\"line\nbreak\",2026-12-01T10:00:00Z,CONFIRMED,CONTAINER,"
	                      "\"'@SUM(A1:A9)\"\r\n"
	                      "sources,\"'+cmd|' /C calc'!A0\",,,\"say \"\"hi\"\"\\x01\",,,,,\r\n");
	free(csv);
}
END_TEST

static report_model *load(const char *today, const char *since)
{
	char db[256], cat[256];
	snprintf(db, sizeof db, "%s/history.db", tmpdir);
	snprintf(cat, sizeof cat, "%s/providers", tmpdir);
	report_options opts = {.db_path = db, .catalogue_dir = cat, .today = today, .since = since};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_msg(report_model_load(&m, &opts, &err) == 0, "%s", err.message);
	return m;
}

START_TEST(model_from_fixture)
{
	build_fixture();
	report_model *m = load(NULL, NULL);
	ck_assert_str_eq(m->today, "2026-12-01"); /* the newest stored record: an audit event */
	ck_assert_str_eq(m->today_source, "database");
	ck_assert_uint_eq(m->n_observations, 3);
	ck_assert_uint_eq(m->n_refusals, 1);
	/* bubblewrap/bwrap, bubblewrap/bwrap-nonet (shares the claim, never
	 * verified: still a row), ember (remote), host without a claim */
	ck_assert_uint_eq(m->n_rows, 4);
	ck_assert_str_eq(m->rows[0].provider_id, "bubblewrap");
	ck_assert(m->rows[0].contradicted);
	ck_assert_str_eq(m->rows[0].latest->verdict, "CONTRADICTED");
	ck_assert_uint_eq(m->rows[0].n_observations, 2);
	ck_assert_str_eq(m->rows[0].state, "CONTRADICTED, SOURCE STALE");
	ck_assert_str_eq(m->rows[1].provider_id, "bubblewrap");
	ck_assert_str_eq(m->rows[1].backend, "bwrap-nonet");
	ck_assert_uint_eq(m->rows[1].n_observations, 0);
	ck_assert_str_eq(m->rows[2].provider_id, "ember");
	ck_assert(m->rows[2].drifted);
	ck_assert_ptr_null(m->rows[3].provider_id);
	ck_assert_str_eq(m->rows[3].backend, "host");
	ck_assert_int_eq(m->providers[0].source_age_days, 91);
	ck_assert(m->providers[0].source_stale); /* 91 > 90 */
	ck_assert(!m->providers[1].source_stale);
	/* contradicted, source_changed, source_stale, and bwrap-nonet (registered,
	 * sharing bubblewrap's claim) never verified: overdue */
	ck_assert_uint_eq(m->n_attention, 4);
	ck_assert_int_eq(m->attention[0].kind, RA_CONTRADICTED);
	ck_assert_int_eq(m->attention[1].kind, RA_SOURCE_CHANGED);
	ck_assert_int_eq(m->attention[2].kind, RA_SOURCE_STALE);
	ck_assert_int_eq(m->attention[3].kind, RA_OVERDUE);
	ck_assert_str_eq(m->attention[3].backend, "bwrap-nonet");
	ck_assert_uint_eq(m->n_failing, 4);
	ck_assert_uint_eq(m->n_evidence, 2); /* the latest of bwrap and of host */
	ck_assert_str_eq(m->bucket_unit, "day");
	ck_assert_uint_eq(m->n_buckets, 2);
	ck_assert_str_eq(m->buckets[0].period, "2026-11-29");
	ck_assert_uint_eq(m->buckets[0].counts[RV_CONFIRMED], 1);
	ck_assert_str_eq(m->buckets[1].period, "2026-11-30");
	ck_assert_uint_eq(m->buckets[1].counts[RV_CONTRADICTED], 1);
	ck_assert_uint_eq(m->buckets[1].counts[RV_INCONCLUSIVE], 1);
	ck_assert_uint_eq(m->buckets[1].total, 2);

	char *html = generate(m, report_write_html);
	ck_assert_ptr_null(strstr(html, "<script"));
	ck_assert_ptr_null(strstr(html, "<img"));
	ck_assert_ptr_null(strstr(html, "<svg onload"));
	ck_assert_ptr_null(strstr(html, "<iframe"));
	ck_assert_ptr_null(strchr(html, '\x1b'));
	ck_assert_ptr_nonnull(
	    strstr(html, "uses &lt;script&gt;alert(1)&lt;/script&gt; namespaces"));
	ck_assert_ptr_nonnull(strstr(html, "\\x1b[31m&lt;img src=x&gt;"));
	ck_assert_ptr_nonnull(strstr(html, "<td class=\"v v-contradicted\">CONTRADICTED</td>"));
	ck_assert_ptr_nonnull(strstr(html, "layers_json: not JSON (at byte"));
	char *junit = generate(m, report_write_junit);
	ck_assert_ptr_nonnull(strstr(junit, "tests=\"5\" failures=\"2\"")); /* bwrap-nonet too */
	ck_assert_ptr_nonnull(strstr(junit, "<failure type=\"CONTRADICTED\""));
	ck_assert_ptr_nonnull(strstr(junit, "<failure type=\"SOURCE_DRIFT\""));
	ck_assert_ptr_null(strstr(junit, "<iframe"));
	char *md = generate(m, report_write_md);
	ck_assert_ptr_null(strstr(md, "<script"));
	ck_assert_ptr_nonnull(strstr(md, "**CONTRADICTED**"));
	char *json = generate(m, report_write_json);
	ck_assert_ptr_nonnull(strstr(json, "\"schema\":\"isotier.report/1\""));
	ck_assert_ptr_nonnull(strstr(json, "\\u001b[2J"));

	char *csv = generate(m, report_format_lookup("csv")->write);
	ck_assert_ptr_nonnull(strstr(csv, "\r\nlocal,bubblewrap,bwrap,")); /* a record per row */
	ck_assert_ptr_nonnull(strstr(csv, ",\"CONTRADICTED, SOURCE STALE\","));
	ck_assert_ptr_null(strchr(csv, '\x1b'));

	free(html), free(json), free(junit), free(md), free(csv);
	/* Regenerated: the same bytes, in every format of the table. */
	report_model *again = load(NULL, NULL);
	ck_assert_uint_ge(report_format_count, 5);
	for (size_t i = 0; i < report_format_count; i++) {
		char *first = generate(m, report_formats[i]->write);
		char *second = generate(again, report_formats[i]->write);
		ck_assert_msg(!strcmp(first, second), "%s differs", report_formats[i]->name);
		/* The banner's words are the model's: every writer that shows the banner
		 * says the same sentence. */
		const char *name = report_formats[i]->name;
		if (!strcmp(name, "html") || !strcmp(name, "md") || !strcmp(name, "text"))
			ck_assert_msg(strstr(first, m->summary), "%s lacks \"%s\"", name,
			              m->summary);
		free(first);
		free(second);
	}
	report_model_free(again);
	report_model_free(m);

	/* --today moves ages; --since narrows the history. */
	m = load("2026-12-20", "2026-11-30");
	ck_assert_str_eq(m->today_source, "--today");
	ck_assert_uint_eq(m->n_observations, 2);
	ck_assert(m->rows[0].overdue); /* last observed 2026-11-30, 20 days before */
	ck_assert_int_eq(m->providers[1].source_age_days, 30);
	report_model_free(m);

	/* A --today before the data would make every age negative, i.e. fresh. */
	char db[256], cat[256];
	snprintf(db, sizeof db, "%s/history.db", tmpdir);
	snprintf(cat, sizeof cat, "%s/providers", tmpdir);
	isotier_error err = {0};
	report_options past = {.db_path = db, .today = "1970-01-01"};
	m = NULL;
	ck_assert_int_eq(report_model_load(&m, &past, &err), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "earlier than the newest stored record"));
	ck_assert_ptr_null(m);
	past.today = "2026-12-01"; /* the newest record's own day is fine */
	ck_assert_int_eq(report_model_load(&m, &past, &err), 0);
	report_model_free(m);
	m = NULL;
	/* ... nor before a catalogue source was retrieved (an empty history). */
	snprintf(db, sizeof db, "%s/empty.db", tmpdir);
	isotier_history *h = NULL;
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
	isotier__history_close(h);
	past.catalogue_dir = cat;
	past.today = "2026-11-19";
	ck_assert_int_eq(report_model_load(&m, &past, &err), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "ember's source retrieved 2026-11-20"));
	past.today = "2026-11-20";
	ck_assert_int_eq(report_model_load(&m, &past, &err), 0);
	report_model_free(m);
	remove_fixture();
}
END_TEST

START_TEST(timeline_months_with_gaps)
{
	char dir[] = "/tmp/test_report_tl.XXXXXX", path[128];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/h.db", dir);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_open(&h, path, 0, &err), 0);
	sqlite3 *db = isotier__history_db(h);
	exec_sql(db, "INSERT INTO runs(id, started_at, tool_version, command) VALUES (1, "
	             "'2025-12-31T00:00:00Z', '0', 'verify')");
	insert_observation(db, "2025-12-31T23:59:59Z", "bwrap", NULL, NULL, "CONTAINER",
	                   "CONFIRMED", NULL, NULL, NULL);
	insert_observation(db, "2026-03-01T00:00:00Z", "bwrap", NULL, NULL, "CONTAINER",
	                   "CONFIRMED", NULL, NULL, NULL);
	insert_observation(db, "not a date", "bwrap", NULL, NULL, "CONTAINER", "EXCEEDS", NULL,
	                   NULL, NULL);
	isotier__history_close(h);
	report_options opts = {.db_path = path};
	report_model *m = NULL;
	ck_assert_int_eq(report_model_load(&m, &opts, &err), 0);
	ck_assert_str_eq(m->bucket_unit, "month");
	ck_assert_uint_eq(m->n_buckets, 4); /* 2025-12 .. 2026-03, the empty months included */
	ck_assert_str_eq(m->buckets[0].period, "2025-12");
	ck_assert_str_eq(m->buckets[1].period, "2026-01");
	ck_assert_uint_eq(m->buckets[1].total, 0);
	ck_assert_str_eq(m->buckets[3].period, "2026-03");
	ck_assert_uint_eq(m->buckets[3].total, 1);
	ck_assert_uint_eq(m->n_observations, 3); /* the garbled date is listed, not charted */
	ck_assert_uint_eq(m->n_rows, 1);
	/* no catalogue: the row has no claim; "not a date" sorts last, so it is the latest */
	ck_assert_str_eq(m->rows[0].latest->verdict, "EXCEEDS");
	report_model_free(m);
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(model_errors)
{
	report_options opts = {.db_path = "/nonexistent/history.db"};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(report_model_load(&m, &opts, &err), ISOTIER_ENOTFOUND);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	opts.since = "yesterday";
	ck_assert_int_eq(report_model_load(&m, &opts, &err), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.message, "--since"));
	opts.since = NULL;
	opts.today = "2026-02-30";
	ck_assert_int_eq(report_model_load(&m, &opts, &err), ISOTIER_EINVAL);
	ck_assert_ptr_null(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("escape");
	tcase_add_test(tc, xml_escapes_markup_and_controls);
	tcase_add_test(tc, json_escapes);
	tcase_add_test(tc, markdown_escapes);
	tcase_add_test(tc, dates);
	tcase_add_test(tc, evidence_hostile_json);
	tcase_add_test(tc, evidence_bounds_are_the_judges);
	tcase_add_test(tc, evidence_value_text_bounds);
	suite_add_tcase(s, tc);
	TCase *tm = tcase_create("model");
	tcase_set_timeout(tm, 60);
	tcase_add_test(tm, model_from_fixture);
	tcase_add_test(tm, timeline_months_with_gaps);
	tcase_add_test(tm, model_errors);
	tcase_add_test(tm, csv_quotes_and_defuses);
	suite_add_tcase(s, tm);
	return run_suite(s);
}
