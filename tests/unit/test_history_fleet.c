/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_history_fleet.c - the history's fleet pieces on a real SQLite file:
 * a URI's password redacted wherever it is shown; version 4 UUIDs; every
 * run and observation carrying its id and host; evidence stored once by
 * content; export then import idempotent by uuid; a hostile export refused
 * whole. (The same against a real PostgreSQL server:
 * tests/integration/history_pg.sh and fleet_import.sh.)
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/history/history_sqlite.h"

static char dir[64], db[128];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_history_fleet.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/h.db", dir);
}

static void teardown(void)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(uri_password_redacted)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"postgresql://runner:s3cret@db.example/isotier",
	     "postgresql://runner:[redacted]@db.example/isotier"},
	    {"postgres://runner:s3cret@/isotier?host=/run/pg&port=5432",
	     "postgres://runner:[redacted]@/isotier?host=/run/pg&port=5432"},
	    {"postgresql://runner@db/isotier?password=s3cret&sslmode=require",
	     "postgresql://runner@db/isotier?password=[redacted]&sslmode=require"},
	    {"postgresql://db/isotier", "postgresql://db/isotier"},
	    {"/var/lib/isotier/isotier.db", "/var/lib/isotier/isotier.db"},
	    {"postgresql://a:b:c@host/x", "postgresql://a:[redacted]@host/x"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[256];
		isotier__history_display(cases[i].in, buf, sizeof buf);
		ck_assert_str_eq(buf, cases[i].out);
		ck_assert_ptr_null(strstr(buf, "s3cret"));
	}
	ck_assert(isotier__history_is_uri("postgresql://x/y"));
	ck_assert(isotier__history_is_uri("postgres://x/y"));
	ck_assert(!isotier__history_is_uri("/tmp/postgresql://x"));
	ck_assert(!isotier__history_is_uri("pg://x"));
}
END_TEST

START_TEST(uuids_are_v4)
{
	char a[ISOTIER_UUID_LEN + 1], b[ISOTIER_UUID_LEN + 1];
	ck_assert_int_eq(isotier__history_uuid(a), 0);
	ck_assert_int_eq(isotier__history_uuid(b), 0);
	ck_assert_uint_eq(strlen(a), 36);
	ck_assert_str_ne(a, b);
	ck_assert(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
	ck_assert_int_eq(a[14], '4');
	ck_assert_ptr_nonnull(strchr("89ab", a[19]));
}
END_TEST

static int64_t count(isotier_history *h, const char *sql)
{
	sqlite3_stmt *st = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(isotier__history_db(h), sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	int64_t n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Two runs of one observation each, both with the same evidence bytes. */
static void record_two(const char *path)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, path, 0, &err) == 0, "%s", err.message);
	static const char evidence[] = "a tarball, the same bytes twice";
	for (int i = 0; i < 2; i++) {
		int64_t run = 0, id = 0;
		ck_assert_int_eq(isotier__history_run_begin(h, &run, "verify", "c0ffee", &err), 0);
		isotier_observation_record o = {.run_id = run,
		                                .backend = "bwrap",
		                                .observed_tier = "CONTAINER",
		                                .verdict = "CONFIRMED",
		                                .layers_json = "[]",
		                                .probe_json = "{\"schema\":\"isotier.probe/1\"}",
		                                .probe_json_len = 29,
		                                .evidence = evidence,
		                                .evidence_len = sizeof evidence,
		                                .evidence_format = "tar",
		                                .host_id = "0123456789abcdef0123456789abcdef"};
		ck_assert_int_eq(isotier__history_begin(h, &err), 0);
		ck_assert_msg(isotier__history_add_observation(h, &o, &id, &err) == 0, "%s",
		              err.message);
		ck_assert_int_eq(isotier__history_commit(h, &err), 0);
		ck_assert_int_eq(isotier__history_run_end(h, run, "ok", &err), 0);
	}
	ck_assert_int_eq(count(h, "SELECT count(*) FROM evidence_blobs"), 1);
	ck_assert_int_eq(count(h, "SELECT count(*) FROM observations WHERE evidence IS NULL"
	                          " AND length(evidence_sha256) = 64"),
	                 2);
	ck_assert_int_eq(count(h, "SELECT count(DISTINCT uuid) FROM observations"), 2);
	ck_assert_int_eq(count(h, "SELECT count(*) FROM observations"
	                          " WHERE probe_schema = 'isotier.probe/1'"),
	                 2);
	ck_assert_int_eq(count(h, "SELECT count(DISTINCT uuid) FROM runs WHERE kernel IS NOT NULL"),
	                 2);
	isotier__history_close(h);
}

START_TEST(export_import_idempotent)
{
	record_two(db);
	char export_path[160], other[160];
	snprintf(export_path, sizeof export_path, "%s/h.jsonl", dir);
	snprintf(other, sizeof other, "%s/other.db", dir);
	isotier_history *h = NULL, *o = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_open_readonly(&h, db, &err), 0);
	FILE *f = fopen(export_path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_msg(isotier__history_export(h, f, &err) == 0, "%s", err.message);
	fclose(f);
	isotier__history_close(h);
	ck_assert_int_eq(isotier__history_open(&o, other, 0, &err), 0);
	isotier_transfer_counts c = {0};
	ck_assert_msg(isotier__history_import(o, export_path, &c, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(c.runs, 2);
	ck_assert_uint_eq(c.observations, 2);
	/* The file calls them verify runs; here they are imports (the gate's
	 * marker: imported rows never grant). */
	ck_assert_int_eq(count(o, "SELECT count(*) FROM runs WHERE command = 'import'"), 2);
	/* Again, from the export and from the SQLite file itself: nothing new. */
	isotier_transfer_counts again = {0};
	ck_assert_int_eq(isotier__history_import(o, export_path, &again, &err), 0);
	ck_assert_int_eq(isotier__history_import(o, db, &again, &err), 0);
	ck_assert_uint_eq(again.runs + again.observations, 0);
	ck_assert_uint_eq(again.skipped, 8);
	ck_assert_int_eq(count(o, "SELECT count(*) FROM observations"), 2);
	ck_assert_int_eq(count(o, "SELECT count(*) FROM evidence_blobs"), 1);
	isotier__history_close(o);
}
END_TEST

static int import_text(const char *text, isotier_error *err)
{
	char path[160], target[160];
	snprintf(path, sizeof path, "%s/in.jsonl", dir);
	snprintf(target, sizeof target, "%s/t.db", dir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	isotier_history *h = NULL;
	ck_assert_int_eq(isotier__history_open(&h, target, 0, err), 0);
	isotier_transfer_counts c = {0};
	int rc = isotier__history_import(h, path, &c, err);
	int64_t n = count(h, "SELECT count(*) FROM runs");
	isotier__history_close(h);
	ck_assert_int_eq(n, 0); /* refused whole: nothing of it stays */
	return rc;
}

#define HEADER "{\"type\":\"header\",\"schema\":\"isotier.history.export/1\"}\n"
#define RUN                                                                                        \
	"{\"type\":\"run\",\"uuid\":\"r1\",\"started_at\":\"2026-12-01T00:00:00Z\",\"command\":"   \
	"\"verify\",\"tool_version\":\"0.1.0\"}\n"

START_TEST(hostile_exports_refused)
{
	isotier_error err = {0};
	ck_assert_int_eq(import_text("{\"type\":\"run\"}\n", &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "not an isotier history export"));
	ck_assert_int_eq(
	    import_text(HEADER RUN
	                "{\"type\":\"evidence\",\"sha256\":\"00000000000000000000000000000000"
	                "00000000000000000000000000000000\",\"content_base64\":\"aGk=\"}\n",
	                &err),
	    ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "does not match its sha256"));
	ck_assert_int_eq(
	    import_text(HEADER RUN
	                "{\"type\":\"observation\",\"uuid\":\"o1\",\"run_uuid\":\"nope\","
	                "\"backend\":\"bwrap\",\"verdict\":\"CONFIRMED\","
	                "\"observed_at\":\"2026-12-01T00:00:00Z\"}\n",
	                &err),
	    ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "a run the file does not hold"));
	ck_assert_int_lt(import_text(HEADER RUN "{\"type\":\"run\",\"type\":\"run\"}\n", &err), 0);
	ck_assert_int_lt(import_text(HEADER RUN "not json\n", &err), 0);
}
END_TEST

/* A file of one run (started_at S, finished_at F: raw JSON) and one observation
 * (observed_at O): imported whole (0), or refused whole with needle said. */
static void times_case(const char *s, const char *f, const char *o, const char *needle)
{
	char text[1024];
	snprintf(text, sizeof text,
	         HEADER "{\"type\":\"run\",\"uuid\":\"r1\",\"started_at\":%s,\"finished_at\":%s,"
	                "\"command\":\"verify\",\"tool_version\":\"0.1.0\"}\n"
	                "{\"type\":\"observation\",\"uuid\":\"o1\",\"run_uuid\":\"r1\","
	                "\"backend\":\"bwrap\",\"verdict\":\"CONFIRMED\",\"observed_at\":%s}\n",
	         s, f, o);
	static int n_case;
	char path[160], target[160];
	snprintf(path, sizeof path, "%s/times.jsonl", dir);
	snprintf(target, sizeof target, "%s/times-%d.db", dir, n_case++);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_open(&h, target, 0, &err), 0);
	isotier_transfer_counts c = {0};
	int rc = isotier__history_import(h, path, &c, &err);
	int64_t runs = count(h, "SELECT count(*) FROM runs");
	int64_t obs = count(h, "SELECT count(*) FROM observations");
	isotier__history_close(h);
	if (!needle) {
		ck_assert_msg(rc == 0, "%s / %s / %s refused: %s", s, f, o, err.message);
		ck_assert_int_eq(runs + obs, 2);
		return;
	}
	ck_assert_msg(rc == ISOTIER_EDATA, "%s / %s / %s imported", s, f, o);
	ck_assert_msg(strstr(err.message, needle), "'%s' not in '%s'", needle, err.message);
	ck_assert_int_eq(runs + obs, 0); /* refused whole */
}

/* A record's time decides which observation a report shows as the latest: a
 * time from the future, or not a time, is refused (the file whole). */
START_TEST(import_times_checked)
{
	char soon[40], later[40];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&(time_t){now + 60}, &tm);
	strftime(soon, sizeof soon, "\"%Y-%m-%dT%H:%M:%SZ\"", &tm);
	gmtime_r(&(time_t){now + 3600}, &tm);
	strftime(later, sizeof later, "\"%Y-%m-%dT%H:%M:%SZ\"", &tm);
	const char *ok = "\"2026-12-01T00:00:00Z\"";
	times_case(ok, "null", ok, NULL);
	times_case(ok, ok, "\"2026-12-01T00:00:00.123456Z\"", NULL);
	times_case(ok, ok, soon, NULL); /* within the clock skew allowed */
	times_case(ok, ok, later, "observed_at");
	times_case(ok, ok, "\"2099-01-01T00:00:00Z\"", "later than this host's clock");
	times_case("\"2099-01-01T00:00:00Z\"", "null", ok,
	           "started_at 2099-01-01T00:00:00Z is later");
	times_case(ok, "\"2099-01-01T00:00:00Z\"", ok, "finished_at");
	const char *bad[] = {"\"zzz\"", "\"2026-02-30T00:00:00Z\"", "\"2026-12-01 00:00:00\"",
	                     "\"2026-12-01T00:00:00+02:00\"", "\"2026-12-01T00:00:00Zjunk\"",
	                     "\"2026-12-01\"", "\"2026-12-01T25:00:00Z\"",
	                     "\"2026-12-01T00:00:00.Z\"",
	                     /* what strptime takes and SQLite's julianday() cannot read */
	                     "\"2026-9-01T00:00:00.00Z\"", "\" 2026-12-01T00:00:00Z\"",
	                     "\"2026-12- 1T00:00:00.0Z\"", "\"2026-12-01T00:00:61Z\"",
	                     "\"226-12-01T00:00:00.00Z\"", "\"2026-12-01T00:60:00Z\"", "\"\""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		times_case(ok, "null", bad[i], "not a UTC time as isotier writes it");
	times_case(ok, "null", "12", "verdict or time"); /* not a string: no time at all */
	times_case(ok, "7", ok, "finished_at: not a time");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history_fleet");
	TCase *tc = tcase_create("fleet");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, uri_password_redacted);
	tcase_add_test(tc, uuids_are_v4);
	tcase_add_test(tc, export_import_idempotent);
	tcase_add_test(tc, hostile_exports_refused);
	tcase_add_test(tc, import_times_checked);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
