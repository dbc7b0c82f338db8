/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report_scan.c - `isotier report` over more observations than it shows
 * (report_scan.c): every one counted, only the shown ones held in full; the
 * newest REPORT_LOG_MAX for the log, each row's latest, the newest
 * REPORT_EVIDENCE_MAX that did not back their claim, each row's last verdict
 * changes; the JSON writer still carries every observation. A real history
 * file (isotier__history_open) and the real writers.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../verify/report/report_model.h"
#include "../../reference/history/history_sqlite.h"

#define N 2000

static char dir[64];

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

/* n observations, one an hour from 2026-01-01: even i bwrap, odd i runsc,
 * i % 10 == 3 CONTRADICTED (runsc's), else CONFIRMED; backends: how many
 * distinct backends to cycle through instead (0: bwrap and runsc). */
static const char *history(int n, int backends)
{
	static char path[128];
	snprintf(dir, sizeof dir, "/tmp/test_report_scan.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/h.db", dir);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, path, 0, &err) == 0, "%s", err.message);
	sqlite3 *db = isotier__history_db(h);
	exec_sql(db, "BEGIN");
	exec_sql(db, "INSERT INTO runs(id, started_at, tool_version, command, host) VALUES (1, "
	             "'2026-01-01T00:00:00Z', '0', 'verify', 'h1')");
	sqlite3_stmt *st = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(db,
	                                    "INSERT INTO observations(run_id, observed_at, backend,"
	                                    " claimed_tier, observed_tier, verdict, reason)"
	                                    " VALUES (1, strftime('%Y-%m-%dT%H:%M:%SZ',"
	                                    " '2026-01-01', ?1 || ' hours'), ?2, 'CONTAINER',"
	                                    " 'CONTAINER', ?3, 'generated')",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	for (int i = 0; i < n; i++) {
		char backend[32];
		if (backends)
			snprintf(backend, sizeof backend, "b%d", i % backends);
		else
			snprintf(backend, sizeof backend, "%s", i % 2 ? "runsc" : "bwrap");
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, backend, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 3, i % 10 == 3 ? "CONTRADICTED" : "CONFIRMED", -1,
		                  SQLITE_STATIC);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	}
	sqlite3_finalize(st);
	exec_sql(db, "COMMIT");
	isotier__history_close(h);
	return path;
}

static void cleanup(void)
{
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static const report_row *row_of(const report_model *m, const char *backend)
{
	for (size_t i = 0; i < m->n_rows; i++)
		if (m->rows[i].backend && !strcmp(m->rows[i].backend, backend))
			return &m->rows[i];
	ck_abort_msg("no row for %s", backend);
	return NULL;
}

START_TEST(counts_every_observation_holds_the_shown)
{
	const char *db = history(N, 0);
	report_options opts = {.db_path = db};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_msg(report_model_load(&m, &opts, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(m->n_observations, N);
	ck_assert_uint_lt(m->n_held, N / 2);
	/* The log: the newest REPORT_LOG_MAX, in id order. */
	ck_assert_uint_ge(m->n_held, REPORT_LOG_MAX);
	for (size_t k = 0; k < REPORT_LOG_MAX; k++)
		ck_assert_int_eq(m->observations[m->n_held - 1 - k].id, N - (int64_t)k);
	/* The matrix: every observation counted, the latest of each. */
	const report_row *bwrap = row_of(m, "bwrap"), *runsc = row_of(m, "runsc");
	ck_assert_uint_eq(bwrap->n_observations, N / 2);
	ck_assert_uint_eq(runsc->n_observations, N / 2);
	ck_assert_int_eq(bwrap->latest->id, N - 1);
	ck_assert_int_eq(runsc->latest->id, N);
	ck_assert_int_eq(runsc->latest_judged->id, N);
	/* The chart: 83 days, so by month, every observation in it. */
	ck_assert_str_eq(m->bucket_unit, "month");
	size_t total = 0, contradicted = 0;
	for (size_t i = 0; i < m->n_buckets; i++)
		total += m->buckets[i].total, contradicted += m->buckets[i].counts[RV_CONTRADICTED];
	ck_assert_uint_eq(m->n_buckets, 3);
	ck_assert_uint_eq(total, N);
	ck_assert_uint_eq(contradicted, N / 10);
	/* Evidence: each row's latest and the newest REPORT_EVIDENCE_MAX that
	 * did not back their claim (ids 1994, 1984, ... 1004), none older. */
	size_t with_evidence = 0;
	int64_t oldest_bad = INT64_MAX;
	for (size_t i = 0; i < m->n_held; i++) {
		const report_observation *o = &m->observations[i];
		if (!o->evidence)
			continue;
		with_evidence++;
		if (o->v == RV_CONTRADICTED && o->id < oldest_bad)
			oldest_bad = o->id;
	}
	ck_assert_uint_eq(with_evidence, 2 + REPORT_EVIDENCE_MAX);
	ck_assert_int_eq(oldest_bad, 1994 - 10 * (REPORT_EVIDENCE_MAX - 1));
	/* runsc's timeline: CONFIRMED, then CONTRADICTED and back every ten. */
	ck_assert_uint_eq(runsc->tl->total_changes, 1 + 2 * (N / 10));
	ck_assert_uint_eq(runsc->tl->n_changes, REPORT_TL_CHANGES_MAX);
	ck_assert_int_eq(runsc->tl->changes[REPORT_TL_CHANGES_MAX - 1]->id, 1996);
	ck_assert_str_eq(runsc->tl->changes[REPORT_TL_CHANGES_MAX - 2]->verdict, "CONTRADICTED");
	/* JSON: every observation, one a line, streamed from the history. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(report_write_json(f, m), 0);
	fclose(f);
	size_t lines = 0;
	for (const char *p = buf; (p = strstr(p, "\n{\"id\":")); p++)
		lines++;
	ck_assert_uint_eq(lines, N);
	ck_assert_ptr_nonnull(strstr(buf, "\n{\"id\":1,\"run_id\":1,"));
	free(buf);
	/* HTML says how many it shows of how many. */
	buf = NULL, len = 0;
	f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(report_write_html(f, m), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "2000 observations; the newest 500 shown"));
	free(buf);
	report_model_free(m);
	cleanup();
}
END_TEST

/* More distinct rows than a report shows: it fails, never drops some. */
START_TEST(too_many_rows_fails)
{
	const char *db = history(REPORT_ROWS_MAX + 1, REPORT_ROWS_MAX + 1);
	report_options opts = {.db_path = db};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(report_model_load(&m, &opts, &err), ISOTIER_EDB);
	ck_assert_ptr_nonnull(strstr(err.message, "more offering x backend rows"));
	cleanup();
}
END_TEST

/* Observations written out of time order (history import brings old ones
 * in after newer ones): the latest of a row, of its judged ones and of each
 * host's cell is the newest observed (ties: the higher id), never the last
 * written; an old CONFIRMED imported late hides no newer CONTRADICTED. */
START_TEST(latest_is_newest_observed)
{
	snprintf(dir, sizeof dir, "/tmp/test_report_scan.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/h.db", dir);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, path, 0, &err) == 0, "%s", err.message);
	sqlite3 *db = isotier__history_db(h);
	exec_sql(db, "INSERT INTO runs(id, started_at, tool_version, command, host) VALUES (1, "
	             "'2026-01-01T00:00:00Z', '0', 'verify', 'h1')");
	/* bwrap: 1 the newest (CONTRADICTED), 2 and 3 older, written after
	 * it (3 a bad one); runsc: 4 and 5 at the same second (5 decides). */
	exec_sql(db, "INSERT INTO observations(id, run_id, observed_at, backend, claimed_tier,"
	             " observed_tier, verdict, reason) VALUES"
	             " (1, 1, '2026-02-01T10:00:00Z', 'bwrap', 'CONTAINER', 'NONE',"
	             "  'CONTRADICTED', 'new'),"
	             " (2, 1, '2026-01-01T10:00:00Z', 'bwrap', 'CONTAINER', 'CONTAINER',"
	             "  'CONFIRMED', 'old, imported'),"
	             " (3, 1, '2026-01-15T10:00:00Z', 'bwrap', 'CONTAINER', 'NONE',"
	             "  'INCONCLUSIVE', 'old, imported'),"
	             " (4, 1, '2026-03-01T10:00:00Z', 'runsc', 'CONTAINER', 'CONTAINER',"
	             "  'CONFIRMED', 'same second'),"
	             " (5, 1, '2026-03-01T10:00:00Z', 'runsc', 'CONTAINER', 'NONE',"
	             "  'CONTRADICTED', 'same second, later')");
	isotier__history_close(h);
	report_options opts = {.db_path = path};
	report_model *m = NULL;
	ck_assert_msg(report_model_load(&m, &opts, &err) == 0, "%s", err.message);
	const report_row *bwrap = row_of(m, "bwrap"), *runsc = row_of(m, "runsc");
	ck_assert_uint_eq(bwrap->n_observations, 3);
	ck_assert_int_eq(bwrap->latest->id, 1);
	ck_assert_int_eq(bwrap->latest_run->id, 1);
	ck_assert_int_eq(bwrap->latest_judged->id, 1);
	ck_assert_int_eq(bwrap->latest_checked->id, 1);
	ck_assert(bwrap->contradicted);
	ck_assert_int_eq(runsc->latest->id, 5);
	ck_assert(runsc->contradicted);
	ck_assert_uint_eq(m->latest_counts[RV_CONTRADICTED], 2);
	ck_assert_uint_eq(m->latest_counts[RV_CONFIRMED], 0);
	/* The host's cells: bwrap's newest judged, not the old import. */
	ck_assert_uint_eq(m->n_hosts, 2);
	for (size_t i = 0; i < m->n_hosts; i++)
		ck_assert_int_eq(m->hosts[i].latest->id,
		                 !strcmp(m->hosts[i].latest->backend, "bwrap") ? 1 : 5);
	/* Changes: bwrap's one verdict so far (the late rows change none of
	 * it); the late INCONCLUSIVE shown among the bad ones. */
	ck_assert_uint_eq(bwrap->tl->total_changes, 1);
	ck_assert_int_eq(bwrap->tl->changes[0]->id, 1);
	ck_assert_ptr_nonnull(report_held(m, 3));
	report_model_free(m);
	cleanup();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_scan");
	TCase *tc = tcase_create("scan");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, counts_every_observation_holds_the_shown);
	tcase_add_test(tc, too_many_rows_fails);
	tcase_add_test(tc, latest_is_newest_observed);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
