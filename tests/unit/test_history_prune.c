/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_history_prune.c - retention (reference/history/history_prune.c) over a real
 * SQLite file with rows verify's own signed insert wrote: the gate decides
 * the same before and after (the same tier, the same reason), each kind's
 * latest row and this host's newest signed rows stay, old evidence goes with
 * its rows, a contradiction however old still refuses, a row dated after now
 * or unreadably is never pruned, a source's renewal is read the same, a dry
 * run and a locked history change nothing, and a pruning leaves an audit
 * event with its counts.
 */
#include <check.h>
#include "check_run.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../verify/history/observations.h"
#include "../../reference/history/history_driver.h"
#include "../../reference/api/resolve.h"

#define TODAY "2026-12-03"
#define HOST  "0123456789abcdef0123456789abcdef"

static char tmpdir[64], cat[128], db[256], keys[128];

static time_t now_t(void)
{
	struct tm tm = {.tm_year = 2026 - 1900, .tm_mon = 11, .tm_mday = 3, .tm_hour = 12};
	return timegm(&tm);
}

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/isotier-prune.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(cat, sizeof cat, "%s/providers", tmpdir);
	snprintf(db, sizeof db, "%s/history.db", tmpdir);
	snprintf(keys, sizeof keys, "%s/identity", tmpdir);
	setenv("ISOTIER_IDENTITY_DIR", keys, 1);
	unsetenv("ISOTIER_TRUSTED_KEYS");
	ck_assert_int_eq(mkdir(cat, 0755), 0);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp '%s/catalogue/providers/bubblewrap.json' '%s/'",
	         ISOTIER_SOURCE_DIR, cat);
	ck_assert_int_eq(system(cmd), 0);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static isotier_history *open_db(int busy_ms)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, busy_ms, &err) == 0, "%s", err.message);
	return h;
}

static char *digest(void)
{
	char path[256], *json = NULL;
	size_t len = 0;
	isotier_error err = {0};
	snprintf(path, sizeof path, "%s/bubblewrap.json", cat);
	ck_assert_int_eq(isotier__read_file(&json, &len, path, 1 << 20, &err), 0);
	isotier_provider p = {0};
	isotier_findings f = {0};
	ck_assert_int_eq(isotier__provider_parse(&p, json, len, path, &f), 0);
	char *d = isotier__claim_digest(&p);
	isotier__provider_clear(&p);
	isotier__findings_free(&f);
	free(json);
	return d;
}

/* One bwrap observation in a verify run of its own: signed by this host
 * (host set) or naming no host (unsigned), with evidence unique to it. */
static void add(isotier_history *h, const char *at, const char *verdict, const char *host)
{
	static int seq;
	isotier_error err = {0};
	char *d = digest(), ev[64];
	snprintf(ev, sizeof ev, "evidence of row %d", ++seq);
	int64_t run = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &run, "verify", NULL, &err), 0);
	observation o = {.run_id = run,
	                 .observed_at = at,
	                 .backend = "bwrap",
	                 .provider_id = "bubblewrap",
	                 .claimed_tier = "CONTAINER",
	                 .observed_tier = "CONTAINER",
	                 .verdict = verdict,
	                 .reason = "test row",
	                 .ceiling_tier = "CONTAINER",
	                 .evidence = ev,
	                 .evidence_len = strlen(ev),
	                 .evidence_format = "tar",
	                 .host_id = host,
	                 .claim_digest = d};
	ck_assert_msg(observations_insert(h, &o, NULL, &err) == 0, "%s", err.message);
	ck_assert_int_eq(isotier__history_run_end(h, run, "ok", &err), 0);
	free(d);
}

/* n rows a day apart from 2025-01-01 + day0. */
static void add_days(isotier_history *h, int day0, int n, const char *verdict, const char *host)
{
	for (int i = 0; i < n; i++) {
		time_t t = 1735689600 + (time_t)(day0 + i) * 86400; /* 2025-01-01 */
		char at[32];
		strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		add(h, at, verdict, host);
	}
}

static long long count(const char *query)
{
	sqlite3 *s = NULL;
	ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
	sqlite3_stmt *st = NULL;
	ck_assert_msg(sqlite3_prepare_v2(s, query, -1, &st, NULL) == SQLITE_OK, "%s",
	              sqlite3_errmsg(s));
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	long long n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	return n;
}

/* Each run started when its observation was made, as verify's do (the
 * rows here are dated in 2025, their runs started by the clock). */
static void date_runs(void)
{
	sqlite3 *s = NULL;
	ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s,
	                              "UPDATE runs SET started_at = (SELECT min(observed_at) FROM "
	                              "observations o WHERE o.run_id = runs.id) WHERE EXISTS "
	                              "(SELECT 1 FROM observations o WHERE o.run_id = runs.id)",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(s);
}

/* What the gate says, with and without a verification window. */
typedef struct verdicts {
	isotier_tier tier[2];
	char reason[2][sizeof((isotier_resolution){0}).reason];
} verdicts;

static void gate(verdicts *v)
{
	static const int days[2] = {0, 3650};
	for (int i = 0; i < 2; i++) {
		isotier_resolve_opts o = {.catalogue_dir = cat,
		                          .db_path = db,
		                          .today = TODAY,
		                          .now = now_t(),
		                          .host_id = HOST,
		                          .require_verified_days = days[i]};
		isotier_resolution r;
		isotier_error err = {0};
		ck_assert_msg(isotier__resolve(&r, isotier__backend_lookup("bwrap"), &o, &err) == 0,
		              "%s", err.message);
		v->tier[i] = r.resolved;
		snprintf(v->reason[i], sizeof v->reason[i], "%s", r.reason);
	}
}

static void assert_same(const verdicts *a, const verdicts *b)
{
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(a->tier[i], b->tier[i]);
		ck_assert_str_eq(a->reason[i], b->reason[i]);
	}
}

static isotier_prune_counts prune(int days, int keep, bool dry)
{
	isotier_history *h = open_db(0);
	isotier_prune_policy p = {
	    .older_than_days = days, .keep_last = keep, .dry_run = dry, .now = now_t()};
	isotier_prune_counts n;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_prune(h, &p, &n, &err) == 0, "%s", err.message);
	isotier__history_close(h);
	return n;
}

/* 100 signed CONFIRMED rows, the newest 2025-04-10: older than 30 days all,
 * yet the newest 64 stay (the gate may pass over 63 whose statement fails). */
START_TEST(prune_keeps_what_the_gate_reads)
{
	isotier_history *h = open_db(0);
	add_days(h, 0, 100, "CONFIRMED", HOST);
	isotier__history_close(h);
	date_runs();
	verdicts before, after;
	gate(&before);
	ck_assert_int_eq(before.tier[0], ISOTIER_CONTAINER);
	ck_assert_int_eq(count("SELECT count(*) FROM evidence_blobs"), 100);
	isotier_prune_counts n = prune(30, 0, false);
	ck_assert_int_eq(n.observations, 100 - HISTORY_GATE_OWN_SCAN);
	ck_assert_int_eq(n.evidence_blobs, 100 - HISTORY_GATE_OWN_SCAN);
	ck_assert_int_eq(n.runs, 100 - HISTORY_GATE_OWN_SCAN);
	ck_assert_int_eq(n.kept_observations, HISTORY_GATE_OWN_SCAN);
	gate(&after);
	assert_same(&before, &after);
	/* The newest stayed, the oldest went, with their evidence. */
	ck_assert_int_eq(count("SELECT count(*) FROM observations WHERE observed_at = "
	                       "'2025-04-10T00:00:00Z'"),
	                 1);
	ck_assert_int_eq(count("SELECT count(*) FROM observations WHERE observed_at < "
	                       "'2025-02-06T00:00:00Z'"),
	                 0);
	ck_assert_int_eq(count("SELECT count(*) FROM evidence_blobs"), HISTORY_GATE_OWN_SCAN);
	ck_assert_int_eq(count("SELECT count(*) FROM observations o WHERE NOT EXISTS (SELECT 1 "
	                       "FROM evidence_blobs e WHERE e.sha256 = o.evidence_sha256)"),
	                 0);
	/* The audit event says what went. */
	ck_assert_int_eq(count("SELECT count(*) FROM audit_events WHERE event = 'history_pruned'"
	                       " AND detail_json LIKE '%\"observations\":36,%'"),
	                 1);
	/* Again: nothing more goes. */
	n = prune(30, 0, false);
	ck_assert_int_eq(n.observations, 0);
	ck_assert_int_eq(count("SELECT count(*) FROM audit_events WHERE event = 'history_pruned'"),
	                 2);
}
END_TEST

/* A CONTRADICTED row a year old, nothing of this host's clearing it since:
 * however old, it still refuses; older hostless rows of a kind go. */
START_TEST(prune_keeps_an_old_contradiction)
{
	isotier_history *h = open_db(0);
	add_days(h, 0, 10, "INCONCLUSIVE", NULL);
	add_days(h, 10, 3, "CONFIRMED", HOST);
	add_days(h, 20, 1, "CONTRADICTED", HOST);
	add_days(h, 30, 5, "INCONCLUSIVE", HOST);
	isotier__history_close(h);
	verdicts before, after;
	gate(&before);
	ck_assert_int_eq(before.tier[0], ISOTIER_UNKNOWN);
	ck_assert_msg(strstr(before.reason[0], "CONTRADICTED"), "%s", before.reason[0]);
	isotier_prune_counts n = prune(30, 1, false);
	ck_assert_int_eq(n.observations, 9); /* the hostless INCONCLUSIVE rows but the newest */
	gate(&after);
	assert_same(&before, &after);
	ck_assert_int_eq(count("SELECT count(*) FROM observations WHERE verdict = 'CONTRADICTED'"),
	                 1);
}
END_TEST

/* A row dated after now refuses (the gate cannot place it); one dated in no
 * readable form likewise. Neither is ever pruned, even when not its kind's
 * newest. */
START_TEST(prune_never_removes_future_or_undated_rows)
{
	isotier_history *h = open_db(0);
	add(h, "2027-06-01T00:00:00Z", "INCONCLUSIVE", NULL);
	add(h, "last tuesday", "INCONCLUSIVE", NULL);
	add_days(h, 0, 3, "INCONCLUSIVE", NULL);
	add_days(h, 10, 2, "CONFIRMED", HOST);
	isotier__history_close(h);
	verdicts before, after;
	gate(&before);
	ck_assert_int_eq(before.tier[0], ISOTIER_UNKNOWN);
	isotier_prune_counts n = prune(30, 0, false);
	ck_assert_int_eq(n.observations, 2); /* two of the three dated hostless rows */
	gate(&after);
	assert_same(&before, &after);
	ck_assert_int_eq(count("SELECT count(*) FROM observations WHERE observed_at IN "
	                       "('2027-06-01T00:00:00Z', 'last tuesday')"),
	                 2);
}
END_TEST

START_TEST(dry_run_changes_nothing)
{
	isotier_history *h = open_db(0);
	add_days(h, 0, 70, "CONFIRMED", HOST);
	add_days(h, 70, 5, "INCONCLUSIVE", NULL);
	isotier__history_close(h);
	date_runs();
	long long obs = count("SELECT count(*) FROM observations"),
	          blobs = count("SELECT count(*) FROM evidence_blobs"),
	          runs = count("SELECT count(*) FROM runs"),
	          events = count("SELECT count(*) FROM audit_events");
	isotier_prune_counts n = prune(30, 0, true);
	ck_assert_int_eq(n.observations, 6 + 4);
	ck_assert_int_eq(n.kept_observations, obs - 10);
	ck_assert_int_eq(count("SELECT count(*) FROM observations"), obs);
	ck_assert_int_eq(count("SELECT count(*) FROM evidence_blobs"), blobs);
	ck_assert_int_eq(count("SELECT count(*) FROM runs"), runs);
	ck_assert_int_eq(count("SELECT count(*) FROM audit_events"), events);
	/* The same policy for real removes what the dry run counted. */
	isotier_prune_counts m = prune(30, 0, false);
	ck_assert_int_eq(m.observations, n.observations);
	ck_assert_int_eq(m.evidence_blobs, n.evidence_blobs);
	ck_assert_int_eq(m.runs, n.runs);
}
END_TEST

/* Another writer holds the lock: the prune fails busy and nothing changed. */
START_TEST(locked_history_changes_nothing)
{
	isotier_history *h = open_db(0);
	add_days(h, 0, 70, "CONFIRMED", HOST);
	isotier__history_close(h);
	long long obs = count("SELECT count(*) FROM observations");
	sqlite3 *locker = NULL;
	ck_assert_int_eq(sqlite3_open(db, &locker), SQLITE_OK);
	h = open_db(100);
	ck_assert_int_eq(sqlite3_exec(locker, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	isotier_prune_policy p = {.older_than_days = 30, .now = now_t()};
	isotier_prune_counts n;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_prune(h, &p, &n, &err), ISOTIER_EBUSY);
	isotier__history_close(h);
	sqlite3_exec(locker, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(locker);
	ck_assert_int_eq(count("SELECT count(*) FROM observations"), obs);
	ck_assert_int_eq(count("SELECT count(*) FROM audit_events WHERE event = 'history_pruned'"),
	                 0);
}
END_TEST

START_TEST(a_policy_is_needed)
{
	isotier_history *h = open_db(0);
	isotier_prune_policy p = {0};
	isotier_prune_counts n;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_prune(h, &p, &n, &err), ISOTIER_EINVAL);
	p.older_than_days = -1;
	ck_assert_int_eq(isotier__history_prune(h, &p, &n, &err), ISOTIER_EINVAL);
	isotier__history_close(h);
}
END_TEST

/* One source's checks, daily through 2025-02 with the passage moved on
 * 2025-02-10, this host's own: the renewal every retrieval day reads is the
 * same after the prune. */
static void add_checks(isotier_history *h)
{
	isotier_error err = {0};
	int64_t run = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &run, "sources check", NULL, &err), 0);
	ck_assert_int_eq(isotier__history_begin(h, &err), 0);
	for (int i = 0; i < 59; i++) {
		time_t t = 1735689600 + (time_t)i * 86400;
		char at[32];
		strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		bool moved = !strncmp(at, "2025-02-10", 10);
		isotier_source_check_row c = {.run_id = run,
		                              .checked_at = at,
		                              .provider_id = "bubblewrap",
		                              .url = "https://example.org/bwrap",
		                              .quote = "unprivileged sandboxing",
		                              .status = moved ? "CHANGED" : "PRESENT",
		                              .http_status = 200,
		                              .change = moved ? "passage_changed" : "none"};
		ck_assert_msg(isotier__history_add_source_check(h, &c, &err) == 0, "%s",
		              err.message);
	}
	ck_assert_int_eq(isotier__history_commit(h, &err), 0);
	ck_assert_int_eq(isotier__history_run_end(h, run, "ok", &err), 0);
}

static void renewals(char out[4][16])
{
	static const char *const retrieved[4] = {"2024-12-01", "2025-02-01", "2025-02-11",
	                                         "2025-03-01"};
	isotier_history *h = open_db(0);
	for (int i = 0; i < 4; i++) {
		isotier_error err = {0};
		ck_assert_int_ge(
		    isotier__history_source_renewed(h, "bubblewrap", "https://example.org/bwrap",
		                                    "unprivileged sandboxing", retrieved[i], TODAY,
		                                    out[i], 16, &err),
		    0);
	}
	isotier__history_close(h);
}

START_TEST(prune_keeps_a_sources_renewal)
{
	isotier_history *h = open_db(0);
	add_checks(h);
	isotier__history_close(h);
	char before[4][16], after[4][16];
	renewals(before);
	ck_assert_str_eq(before[0], "");           /* the passage moved since */
	ck_assert_str_eq(before[2], "2025-02-28"); /* renewed after it moved */
	ck_assert_str_eq(before[3], "");           /* nothing checked since */
	isotier_prune_counts n = prune(30, 0, false);
	ck_assert_int_eq(n.source_checks, 57); /* the newest unchanged and the change stay */
	ck_assert_int_eq(n.runs, 0);           /* its run still holds them */
	renewals(after);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(before[i], after[i]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history_prune");
	TCase *tc = tcase_create("prune");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, prune_keeps_what_the_gate_reads);
	tcase_add_test(tc, prune_keeps_an_old_contradiction);
	tcase_add_test(tc, prune_never_removes_future_or_undated_rows);
	tcase_add_test(tc, dry_run_changes_nothing);
	tcase_add_test(tc, locked_history_changes_nothing);
	tcase_add_test(tc, a_policy_is_needed);
	tcase_add_test(tc, prune_keeps_a_sources_renewal);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
