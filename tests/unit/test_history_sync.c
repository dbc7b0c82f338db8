/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_history_sync.c - the SQLite history's durability point on a real
 * file: a sync of the write-ahead log that failed stays failed, so a run's
 * end retried after it (a lock) cannot report its observations stored. The
 * kernel reports a lost write-back once: a later sync's success proves
 * nothing (history_sqlite.c).
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reference/history/history_sqlite.h"

static char dir[64], db[128];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_history_sync.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/h.db", dir);
}

static void teardown(void)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(failed_sync_stays_failed)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
	int64_t run = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &run, "verify", "c0ffee", &err), 0);
	/* The log out of its place: the run's end cannot sync it. */
	char wal[160], away[176];
	snprintf(wal, sizeof wal, "%s-wal", db);
	snprintf(away, sizeof away, "%s.away", wal);
	ck_assert_int_eq(rename(wal, away), 0);
	ck_assert_int_lt(isotier__history_run_end(h, run, "ok", &err), 0);
	ck_assert_int_eq(err.db_code & 0xff, ISOTIER_DB_IOERR);
	/* Back again, the run's end tried once more: still no durability. */
	ck_assert_int_eq(rename(away, wal), 0);
	err = (isotier_error){0};
	ck_assert_int_lt(isotier__history_run_end(h, run, "ok", &err), 0);
	ck_assert_int_eq(err.db_code & 0xff, ISOTIER_DB_IOERR);
	isotier__history_close(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history_sync");
	TCase *tc = tcase_create("sync");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, failed_sync_stays_failed);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
