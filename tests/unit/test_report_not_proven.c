/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report_not_proven.c - how `isotier report` shows NOT_CONTRADICTED (a
 * remote claim above CONTAINER that its provider's sandboxes do not
 * contradict and cannot prove): distinctly, as a note, never as an alert nor
 * as overdue; and never as clearing a contradiction made before it (resolve
 * does not let it either: it is not VERDICT_JUDGES). A real history file
 * (isotier__history_open) and the real writers.
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

static char dir[64];

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

/* A history whose e2b rows are the given (observed_at, verdict) pairs, each
 * claimed MICROVM/firecracker, oldest first; returns its path. */
static const char *history(const char *const *rows, size_t n)
{
	static char path[128];
	snprintf(dir, sizeof dir, "/tmp/test_report_np.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/h.db", dir);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, path, 0, &err) == 0, "%s", err.message);
	sqlite3 *db = isotier__history_db(h);
	exec_sql(db, "INSERT INTO runs(id, started_at, tool_version, command) VALUES (1, "
	             "'2026-12-01T00:00:00Z', '0', 'verify')");
	sqlite3_stmt *st = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(
	                     db,
	                     "INSERT INTO observations(run_id, observed_at, backend, provider_id,"
	                     " claimed_tier, claimed_mechanism, observed_tier, verdict, reason,"
	                     " kernel_relation, ceiling_tier)"
	                     " VALUES (1, ?1, 'e2b', 'e2b', 'MICROVM', 'firecracker', 'CONTAINER',"
	                     " ?2, ?3, ?4, 'CONTAINER')",
	                     -1, &st, NULL),
	                 SQLITE_OK);
	for (size_t i = 0; i < n; i += 2) {
		bool against = !strcmp(rows[i + 1], "CONTRADICTED");
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, rows[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rows[i + 1], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3,
		                  against ? "two e2b sandboxes run on one kernel"
		                          : "not contradicted, not proven: no hardware attestation",
		                  -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, against ? "shared" : "dedicated", -1, SQLITE_STATIC);
		ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	}
	sqlite3_finalize(st);
	isotier__history_close(h);
	return path;
}

static void cleanup(void)
{
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static report_model *load(const char *db, const char *today)
{
	static const char *const backends[] = {"e2b"};
	report_options opts = {
	    .db_path = db, .today = today, .backends = backends, .n_backends = 1};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_msg(report_model_load(&m, &opts, &err) == 0, "%s", err.message);
	return m;
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

/* The steady state of a remote claim: a note, no alert, not overdue. */
START_TEST(not_contradicted_is_a_note)
{
	const char *const rows[] = {"2026-12-01T10:00:00Z", "NOT_CONTRADICTED"};
	report_model *m = load(history(rows, 2), "2026-12-03");
	ck_assert_uint_eq(m->n_rows, 1);
	const report_row *r = &m->rows[0];
	ck_assert(r->not_proven && !r->contradicted && !r->unproven && !r->overdue);
	ck_assert_str_eq(r->state, "NOT PROVEN");
	ck_assert_uint_eq(m->latest_counts[RV_NOT_CONTRADICTED], 1);
	ck_assert_uint_eq(m->n_attention, 1);
	ck_assert_int_eq(m->attention[0].kind, RA_NOT_PROVEN);
	ck_assert_int_eq(m->attention[0].severity, RSEV_NOTE);
	ck_assert(!m->attention[0].failing);
	ck_assert_ptr_nonnull(strstr(m->attention[0].detail, "no hardware attestation"));
	ck_assert_uint_eq(m->n_severity[RSEV_ALERT], 0);
	ck_assert_str_ne(m->status, "ALERT");

	char *html = generate(m, report_write_html);
	ck_assert_ptr_nonnull(strstr(html, "class=\"v v-not-contradicted\">NOT_CONTRADICTED<"));
	free(html);
	char *md = generate(m, report_write_md);
	ck_assert_ptr_nonnull(strstr(md, "(not proven: no hardware attestation)"));
	ck_assert_ptr_nonnull(strstr(md, "not\\_proven")); /* the attention kind */
	free(md);
	char *junit = generate(m, report_write_junit);
	ck_assert_ptr_null(strstr(junit, "<failure"));
	ck_assert_ptr_nonnull(strstr(junit, "NOT PROVEN: not contradicted, not proven"));
	free(junit);
	char *json = generate(m, report_write_json);
	ck_assert_ptr_nonnull(strstr(json, "\"not_proven\":true"));
	ck_assert_ptr_nonnull(strstr(json, "\"NOT_CONTRADICTED\":1"));
	free(json);
	report_model_free(m);
	cleanup();
}
END_TEST

/* It restarts the re-verification clock like any check, but a stale one is
 * still overdue. */
START_TEST(not_contradicted_ages)
{
	const char *const rows[] = {"2026-11-01T10:00:00Z", "NOT_CONTRADICTED"};
	report_model *m = load(history(rows, 2), "2026-12-03");
	ck_assert(m->rows[0].overdue && m->rows[0].not_proven);
	ck_assert_str_eq(m->status, "ALERT");
	report_model_free(m);
	cleanup();
}
END_TEST

/* A provider's testimony in its favour does not clear what its sandboxes
 * showed against the claim before: still CONTRADICTED, named by the
 * observation that contradicted it. */
START_TEST(not_contradicted_keeps_a_contradiction)
{
	const char *const rows[] = {"2026-12-01T10:00:00Z", "CONTRADICTED", "2026-12-02T10:00:00Z",
	                            "NOT_CONTRADICTED"};
	report_model *m = load(history(rows, 4), "2026-12-03");
	const report_row *r = &m->rows[0];
	ck_assert_str_eq(r->latest->verdict, "NOT_CONTRADICTED");
	ck_assert(r->contradicted && r->not_proven);
	ck_assert_str_eq(r->state, "CONTRADICTED, NOT PROVEN");
	ck_assert_int_eq(m->attention[0].kind, RA_CONTRADICTED);
	ck_assert(m->attention[0].failing);
	ck_assert_ptr_nonnull(strstr(m->attention[0].detail, "observation 1 at 2026-12-01"));
	ck_assert_str_eq(m->status, "ALERT");
	char *junit = generate(m, report_write_junit);
	ck_assert_ptr_nonnull(strstr(junit, "<failure type=\"CONTRADICTED\""));
	ck_assert_ptr_nonnull(strstr(junit, "two e2b sandboxes run on one kernel"));
	free(junit);
	report_model_free(m);
	cleanup();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_not_proven");
	TCase *tc = tcase_create("not_proven");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, not_contradicted_is_a_note);
	tcase_add_test(tc, not_contradicted_ages);
	tcase_add_test(tc, not_contradicted_keeps_a_contradiction);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
