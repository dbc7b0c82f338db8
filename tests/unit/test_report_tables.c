/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report_tables.c - `isotier report` over more source checks and
 * refusals than it shows (report_tables.c): every one counted, each catalogue
 * source's newest check (of its quote, else of its URL, within --since) and
 * the newest REPORT_REFUSALS_MAX refusals held; the JSON writer still
 * carries every row, in order. A real history file and catalogue, the real
 * writers.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../verify/report/report_model.h"
#include "../../reference/history/history_sqlite.h"

#define CHECKS   3000 /* a day each, alternating between the two quotes */
#define REFUSALS (REPORT_REFUSALS_MAX + 150)

static char dir[64];

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* One provider citing one page for two quotes, and a second page whose
 * quote was never checked (its latest: the URL's newest). Checks of the
 * first page alternate quote A (even days) and B (odd days); the second
 * page's, all of another quote, stop on day 10. Refusals one a minute among
 * as many allowed creates. */
static void fixture(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_report_tables.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[160];
	snprintf(path, sizeof path, "%s/providers", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/providers/ember.json", dir);
	write_text(path,
	           "{\"id\":\"ember\",\"name\":\"Ember\",\"kind\":\"remote\",\"tier\":\"MICROVM\","
	           "\"mechanism\":\"firecracker\",\"since\":\"2026-11-01\",\"sources\":["
	           "{\"url\":\"https://example.test/a\",\"quote\":\"quote A\",\"publisher\":"
	           "\"provider\",\"retrieved\":\"2026-11-20\"},"
	           "{\"url\":\"https://example.test/a\",\"quote\":\"quote B\",\"publisher\":"
	           "\"provider\",\"retrieved\":\"2026-11-20\"},"
	           "{\"url\":\"https://example.test/b\",\"quote\":\"quote C\",\"publisher\":"
	           "\"provider\",\"retrieved\":\"2026-11-20\"}],\"history\":[],\"notes\":\"\"}");
	snprintf(path, sizeof path, "%s/h.db", dir);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, path, 0, &err) == 0, "%s", err.message);
	sqlite3 *db = isotier__history_db(h);
	exec_sql(db, "BEGIN");
	exec_sql(db, "INSERT INTO runs(id, started_at, tool_version, command) VALUES (1, "
	             "'2018-01-01T00:00:00Z', '0', 'sources check')");
	exec_sql(
	    db, "WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i + 1 < 3000)"
	        " INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote, status,"
	        " http_status, change, passage_diff)"
	        " SELECT 1, strftime('%Y-%m-%dT%H:%M:%SZ', '2018-01-01', i || ' days'), 'ember',"
	        " 'https://example.test/a', CASE i % 2 WHEN 0 THEN 'quote A' ELSE 'quote B' END,"
	        " CASE WHEN i % 2 THEN 'CHANGED' ELSE 'PRESENT' END, 200,"
	        " CASE WHEN i % 2 THEN 'passage_changed' END, 'diff ' || i FROM d");
	exec_sql(db,
	         "INSERT INTO source_checks(run_id, checked_at, provider_id, url, quote, status)"
	         " VALUES (1, '2018-01-10T00:00:00Z', 'ember', 'https://example.test/b',"
	         " 'another quote', 'GONE'),"
	         " (1, '2018-01-10T00:00:00Z', 'other', 'https://example.test/b',"
	         " 'quote C', 'PRESENT')");
	exec_sql(
	    db,
	    "WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i + 1 < 1300)"
	    " INSERT INTO audit_events(at, event, backend, decision, reason, detail_json)"
	    " SELECT strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', (i / 2) || ' minutes'),"
	    " CASE i % 2 WHEN 0 THEN 'refuse' ELSE 'create' END, 'bwrap',"
	    " CASE i % 2 WHEN 0 THEN 'refused' ELSE 'allowed' END, 'r' || (i / 2), '{}' FROM d");
	exec_sql(db, "COMMIT");
	isotier__history_close(h);
}

static void cleanup(void)
{
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static report_model *load(const char *since)
{
	char db[96], cat[96];
	snprintf(db, sizeof db, "%s/h.db", dir);
	snprintf(cat, sizeof cat, "%s/providers", dir);
	report_options opts = {.db_path = db, .catalogue_dir = cat, .since = since};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_msg(report_model_load(&m, &opts, &err) == 0, "%s", err.message);
	return m;
}

START_TEST(counts_every_row_holds_the_shown)
{
	fixture();
	report_model *m = load(NULL);
	ck_assert_uint_eq(m->n_checks, CHECKS + 2);
	ck_assert_uint_eq(m->n_refusals, REFUSALS);
	ck_assert_uint_eq(m->n_refusals_held, REPORT_REFUSALS_MAX);
	/* The newest, oldest first: the first held is refusal 150, the last 649. */
	ck_assert_str_eq(m->refusals[0].reason, "r150");
	ck_assert_str_eq(m->refusals[REPORT_REFUSALS_MAX - 1].reason, "r649");
	for (size_t i = 0; i < m->n_refusals_held; i++)
		ck_assert_str_eq(m->refusals[i].decision, "refused");
	ck_assert_uint_eq(m->n_providers, 1);
	const report_provider *p = &m->providers[0];
	ck_assert_uint_eq(p->n_sources, 3);
	/* Each quote's own newest check: day 2998 (A) and 2999 (B), with the
	 * change against the baseline read beside it. */
	ck_assert_str_eq(p->sources[0].latest->checked_at, "2026-03-18T00:00:00Z");
	ck_assert_str_eq(p->sources[0].latest->quote, "quote A");
	ck_assert_str_eq(p->sources[0].latest->passage_diff, "diff 2998");
	ck_assert_ptr_null(p->sources[0].latest->change);
	ck_assert_str_eq(p->sources[1].latest->quote, "quote B");
	ck_assert_str_eq(p->sources[1].latest->change, "passage_changed");
	ck_assert_str_eq(p->sources[1].latest->passage_diff, "diff 2999");
	/* A quote never checked: the URL's newest, this provider's only. */
	ck_assert_str_eq(p->sources[2].latest->status, "GONE");
	ck_assert_str_eq(p->source_status, "GONE");

	/* JSON carries every check and refusal, in (time, id) order. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(report_write_json(f, m), 0);
	fclose(f);
	const char *checks = strstr(buf, "\"source_checks\":[");
	const char *refusals = strstr(buf, "\"refusals\":[");
	const char *hosts = strstr(buf, "\"hosts\":[");
	ck_assert(checks && refusals && hosts && checks < refusals && refusals < hosts);
	size_t n_checks = 0, n_refusals = 0;
	for (const char *s = checks; (s = strstr(s, "\"checked_at\":")) && s < refusals; s++)
		n_checks++;
	for (const char *s = refusals; (s = strstr(s, "\"decision\":\"refused\"")) && s < hosts;
	     s++)
		n_refusals++;
	ck_assert_uint_eq(n_checks, CHECKS + 2);
	ck_assert_uint_eq(n_refusals, REFUSALS);
	ck_assert_ptr_nonnull(strstr(refusals, "\"reason\":\"r0\"},\n{\"id\":3,"));
	free(buf);

	/* The HTML and Markdown say how many they show of how many. */
	buf = NULL, len = 0;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(report_write_md(f, m), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "650 refusals; newest 50 shown."));
	ck_assert_ptr_nonnull(strstr(buf, "| r649 |"));
	ck_assert_ptr_null(strstr(buf, "| r599 |"));
	free(buf);
	report_model_free(m);
	cleanup();
}
END_TEST

START_TEST(since_bounds_the_latest_and_the_counts)
{
	fixture();
	/* From day 2999 (2026-03-19) on: only quote B's last check is in range; quote A's
	 * latest is then the URL's newest, B's; the other page has none. */
	report_model *m = load("2026-03-19");
	ck_assert_uint_eq(m->n_checks, 1);
	const report_provider *p = &m->providers[0];
	ck_assert_str_eq(p->sources[0].latest->quote, "quote B");
	ck_assert_str_eq(p->sources[1].latest->quote, "quote B");
	ck_assert_ptr_null(p->sources[2].latest);
	ck_assert_uint_eq(m->n_refusals, 0); /* every refusal was in January */
	ck_assert_uint_eq(m->n_refusals_held, 0);
	report_model_free(m);
	cleanup();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_tables");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, counts_every_row_holds_the_shown);
	tcase_add_test(tc, since_bounds_the_latest_and_the_counts);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
