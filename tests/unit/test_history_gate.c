/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_history_gate.c - resolve's history gate (reference/api/resolve.c) over a
 * real SQLite file with the real schema (isotier__history_open) and rows
 * written by verify's own insert (verify/history/observations.c): the latest
 * observation decides, rows are ordered by id and a row dated after now
 * fails the gate closed, a proof counts only for the claim it judged and the
 * host that made it, the host's default history (ISOTIER_DB) is read when
 * none is named, and a database from before host ids migrates and still
 * lists its rows while they prove nothing.
 */
#include <check.h>
#include <errno.h>
#include "check_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../verify/history/observations.h"
#include "../../reference/history/history_driver.h"
#include "../../reference/history/history_sqlite.h"
#include "../../reference/api/resolve.h"

#include <cJSON.h>

#include <libpq-fe.h>

/* The gate's clock: 2026-12-03T12:00:00Z; catalogue ages against that day. */
#define NOW_TS     "2026-12-03T12:00:00Z"
#define TODAY      "2026-12-03"
#define HOST       "0123456789abcdef0123456789abcdef"
#define OTHER_HOST "fedcba9876543210fedcba9876543210"

static char tmpdir[64], cat[128], db[1024];
/* $ISOTIER_TEST_PG_URI: the same suite against a PostgreSQL history (a real
 * server: tests/integration/history_pg_gate.sh starts one), emptied before
 * each test. */
static const char *pg_uri;

static void pg_reset(void)
{
	PGconn *c = PQconnectdb(pg_uri);
	ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
	PGresult *r = PQexec(c, "SET client_min_messages = warning;"
	                        " DROP SCHEMA public CASCADE; CREATE SCHEMA public");
	ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}
static char *digest; /* the catalogue's bubblewrap claim, canonical */

static time_t now_t(void)
{
	struct tm tm = {.tm_year = 2026 - 1900, .tm_mon = 11, .tm_mday = 3, .tm_hour = 12};
	return timegm(&tm);
}

static char *read_all(const char *path, size_t *len)
{
	char *buf = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__read_file(&buf, len, path, 1 << 20, &err) == 0, "%s", err.message);
	return buf;
}

static void write_all(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static char *claim_digest_of(const char *path)
{
	size_t len = 0;
	char *json = read_all(path, &len);
	isotier_provider p = {0};
	isotier_findings findings = {0};
	ck_assert_int_eq(isotier__provider_parse(&p, json, len, path, &findings), 0);
	char *d = isotier__claim_digest(&p);
	ck_assert_ptr_nonnull(d);
	isotier__provider_clear(&p);
	isotier__findings_free(&findings);
	free(json);
	return d;
}

/* A catalogue of one entry (the source tree's bubblewrap) and an empty
 * history with the current schema. */
static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/isotier-gate.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(cat, sizeof cat, "%s/providers", tmpdir);
	snprintf(db, sizeof db, "%s/history.db", tmpdir);
	if (pg_uri) {
		pg_reset();
		snprintf(db, sizeof db, "%s", pg_uri);
	}
	ck_assert_int_eq(mkdir(cat, 0755), 0);
	/* This test's own host key: verify's insert signs with it, the gate
	 * checks against it (identity.h). */
	char keys[128];
	snprintf(keys, sizeof keys, "%s/identity", tmpdir);
	setenv("ISOTIER_IDENTITY_DIR", keys, 1);
	char src[4096], dst[256];
	snprintf(src, sizeof src, "%s/catalogue/providers/bubblewrap.json", ISOTIER_SOURCE_DIR);
	snprintf(dst, sizeof dst, "%s/bubblewrap.json", cat);
	size_t len = 0;
	char *json = read_all(src, &len);
	write_all(dst, json, len);
	free(json);
	digest = claim_digest_of(dst);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
	isotier__history_close(h);
}

static void teardown(void)
{
	free(digest);
	digest = NULL;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* One observation of bwrap, through verify's insert. digest_or NULL: the
 * catalogue's claim now; "-": none recorded. */
static void add(const char *at, const char *verdict, const char *ceiling, const char *host,
                const char *digest_or)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
	int64_t run = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &run, "verify", NULL, &err), 0);
	observation o = {
	    .run_id = run,
	    .observed_at = at,
	    .backend = "bwrap",
	    .provider_id = "bubblewrap",
	    .claimed_tier = "CONTAINER",
	    .claimed_mechanism = "bubblewrap",
	    .observed_tier = "CONTAINER",
	    .verdict = verdict,
	    .reason = "test row",
	    .ceiling_tier = ceiling,
	    .host_id = host,
	    .claim_digest = digest_or && !strcmp(digest_or, "-") ? NULL
	                    : digest_or                          ? digest_or
	                                                         : digest,
	};
	ck_assert_msg(observations_insert(h, &o, NULL, &err) == 0, "%s", err.message);
	/* Ended, or PostgreSQL drops the run with the connection (atomic runs). */
	ck_assert_msg(isotier__history_run_end(h, run, "ok", &err) == 0, "%s", err.message);
	isotier__history_close(h);
}

static void proof(const char *at)
{
	add(at, "CONFIRMED", "CONTAINER", HOST, NULL);
}

/* Resolves bwrap as this test's host at NOW_TS; returns the resolved tier. */
static isotier_tier gate_as(isotier_resolution *r, int verified_days, bool any_host,
                            const char *db_path)
{
	isotier_resolve_opts o = {.catalogue_dir = cat,
	                          .db_path = db_path,
	                          .today = TODAY,
	                          .now = now_t(),
	                          .host_id = HOST,
	                          .any_host = any_host,
	                          .require_verified_days = verified_days};
	isotier_error err = {0};
	ck_assert_msg(isotier__resolve(r, isotier__backend_lookup("bwrap"), &o, &err) == 0, "%s",
	              err.message);
	return r->resolved;
}

static isotier_tier gate(isotier_resolution *r, int verified_days)
{
	return gate_as(r, verified_days, false, db);
}

#define ASSERT_TIER(r, t, want)                                                                    \
	ck_assert_msg((t) == (want), "resolved %s, expected %s: %s", isotier_tier_name(t),         \
	              isotier_tier_name(want), (r).reason)

START_TEST(honest_proof_grants)
{
	isotier_resolution r;
	proof("2026-12-03T11:00:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_CONTAINER);
}
END_TEST

START_TEST(newer_inconclusive_voids_require_verified)
{
	isotier_resolution r;
	proof("2026-12-03T09:00:00Z");
	add("2026-12-03T10:00:00Z", "INCONCLUSIVE", NULL, HOST, NULL);
	add("2026-12-03T11:00:00Z", "INCONCLUSIVE", NULL, HOST, NULL);
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "is INCONCLUSIVE, not a proof"));
	ck_assert_ptr_nonnull(strstr(r.reason, "#3"));
	/* Without the demand, an INCONCLUSIVE run judges nothing: the claim stands. */
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_CONTAINER);
	/* UNAVAILABLE is no proof either. */
	proof("2026-12-03T11:10:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	add("2026-12-03T11:20:00Z", "UNAVAILABLE", NULL, HOST, NULL);
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
}
END_TEST

START_TEST(inconclusive_does_not_clear_contradiction)
{
	isotier_resolution r;
	proof("2026-12-03T09:00:00Z");
	add("2026-12-03T10:00:00Z", "CONTRADICTED", "CONTAINER", HOST, NULL);
	add("2026-12-03T11:00:00Z", "INCONCLUSIVE", NULL, HOST, NULL);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "CONTRADICTED"));
	proof("2026-12-03T11:30:00Z"); /* a newer judgement replaces it */
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
}
END_TEST

START_TEST(ordered_by_id_not_timestamp)
{
	isotier_resolution r;
	/* Written first with a clock a year ahead, then an honest contradiction:
	 * by timestamp the proof would be the latest for a year. */
	proof("2027-12-03T11:00:00Z");
	add("2026-12-03T11:00:00Z", "CONTRADICTED", "CONTAINER", HOST, NULL);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "CONTRADICTED"));
	/* A contradiction written first, then a proof honestly dated earlier
	 * (a clock stepped back): the proof is the latest. */
	teardown();
	setup();
	add("2026-12-03T11:30:00Z", "CONTRADICTED", "CONTAINER", HOST, NULL);
	proof("2026-12-03T11:00:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
}
END_TEST

START_TEST(future_row_fails_closed)
{
	isotier_resolution r;
	proof("2026-12-03T11:00:00Z");
	proof("2027-12-03T11:00:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(
	    strstr(r.reason, "observation #2 of bwrap is dated '2027-12-03T11:00:00Z'"));
	/* Not only require_verified: the claim itself is refused. */
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	/* Even when an older row is the future one, and a newer proof follows. */
	proof("2026-12-03T11:30:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "#2"));
}
END_TEST

START_TEST(small_skew_and_bad_dates)
{
	isotier_resolution r;
	proof("2026-12-03T12:04:00Z"); /* 4 minutes ahead: a clock's skew */
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	proof("2026-12-03T12:06:00Z"); /* 6: refused */
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	teardown();
	setup();
	proof("not a date");
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "unreadable"));
}
END_TEST

START_TEST(changed_claim_voids_proof)
{
	isotier_resolution r;
	proof("2026-12-03T11:00:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	/* The entry changes after the proof: another source quote. */
	char path[256];
	snprintf(path, sizeof path, "%s/bubblewrap.json", cat);
	size_t len = 0;
	char *json = read_all(path, &len);
	char *q = strstr(json, "\"quote\": \"");
	ck_assert_ptr_nonnull(q);
	q += strlen("\"quote\": \"");
	*q = *q == 'X' ? 'Y' : 'X';
	write_all(path, json, len);
	free(json);
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "another claim"));
	/* Re-verified against the new claim: it counts again. */
	char *now_digest = claim_digest_of(path);
	ck_assert_str_ne(now_digest, digest);
	add("2026-12-03T11:30:00Z", "CONFIRMED", "CONTAINER", HOST, now_digest);
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	/* A row without a digest proves nothing. */
	add("2026-12-03T11:40:00Z", "CONFIRMED", "CONTAINER", HOST, "-");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "no recorded claim"));
	free(now_digest);
}
END_TEST

START_TEST(claim_digest_is_canonical)
{
	isotier_source src = {
	    .url = (char *)"https://a/", .quote = (char *)"q", .retrieved = (char *)"2026-12-01"};
	isotier_provider p = {.id = (char *)"x",
	                      .tier = ISOTIER_CONTAINER,
	                      .mechanism = (char *)"bubblewrap",
	                      .sources = &src,
	                      .n_sources = 1};
	char *a = isotier__claim_digest(&p);
	ck_assert_str_eq(a, "isotier-claim/1\n1:x\n9:CONTAINER\n10:bubblewrap\n1:1\n10:https://a/"
	                    "\n10:2026-12-01\n1:q");
	/* Bytes cannot move between fields. */
	src.url = (char *)"https://a/\n10:2026-12-01";
	src.retrieved = (char *)"";
	char *b = isotier__claim_digest(&p);
	ck_assert_str_ne(a, b);
	p.tier = ISOTIER_MICROVM;
	src.url = (char *)"https://a/";
	src.retrieved = (char *)"2026-12-01";
	char *c = isotier__claim_digest(&p);
	ck_assert_str_ne(a, c);
	ck_assert_ptr_null(isotier__claim_digest(NULL));
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(only_this_hosts_rows)
{
	isotier_resolution r;
	add("2026-12-03T11:00:00Z", "CONFIRMED", "CONTAINER", OTHER_HOST, NULL);
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "no observation made on this host"));
	ASSERT_TIER(r, gate_as(&r, 7, true, db), ISOTIER_CONTAINER); /* asked for */
	/* Another host's contradiction or future row does not reach this one. */
	add("2026-12-03T11:10:00Z", "CONTRADICTED", "CONTAINER", OTHER_HOST, NULL);
	add("2027-12-03T11:10:00Z", "INCONCLUSIVE", NULL, OTHER_HOST, NULL);
	proof("2026-12-03T11:20:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	ASSERT_TIER(r, gate_as(&r, 0, true, db), ISOTIER_UNKNOWN);
	/* No machine id: nothing is this host's. */
	teardown();
	setup();
	add("2026-12-03T11:00:00Z", "CONFIRMED", "CONTAINER", "", NULL); /* stored as NULL */
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "names no host"));
	ASSERT_TIER(r, gate_as(&r, 7, true, db), ISOTIER_UNKNOWN);
}
END_TEST

START_TEST(hostless_rows_deny_never_grant)
{
	isotier_resolution r;
	proof("2026-12-03T10:00:00Z");
	add("2026-12-03T11:00:00Z", "CONTRADICTED", "CONTAINER", NULL, "-");
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "CONTRADICTED"));
}
END_TEST

/* Imports one run and one observation of bwrap into the history, as an
 * export file would carry them (history import / migrate). run_command is
 * what the file says the run was. */
static int import_one(const char *run_uuid, const char *run_command, const char *obs_uuid,
                      const char *at, const char *verdict, const char *ceiling, const char *host,
                      isotier_error *err)
{
	char path[256];
	snprintf(path, sizeof path, "%s/in.jsonl", tmpdir);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"type\":\"header\",\"schema\":\"isotier.history.export/1\"}\n", f);
	cJSON *run = cJSON_CreateObject(), *o = cJSON_CreateObject();
	cJSON_AddStringToObject(run, "type", "run");
	cJSON_AddStringToObject(run, "uuid", run_uuid);
	cJSON_AddStringToObject(run, "started_at", at);
	cJSON_AddStringToObject(run, "finished_at", at);
	cJSON_AddStringToObject(run, "command", run_command);
	cJSON_AddStringToObject(run, "status", "ok");
	cJSON_AddStringToObject(run, "tool_version", "0.1.0");
	if (host)
		cJSON_AddStringToObject(run, "host_id", host);
	const char *kv[][2] = {{"type", "observation"},        {"uuid", obs_uuid},
	                       {"run_uuid", run_uuid},         {"observed_at", at},
	                       {"backend", "bwrap"},           {"provider_id", "bubblewrap"},
	                       {"claimed_tier", "CONTAINER"},  {"claimed_mechanism", "bubblewrap"},
	                       {"observed_tier", "CONTAINER"}, {"verdict", verdict},
	                       {"reason", "imported row"},     {"claim_digest", digest}};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		cJSON_AddStringToObject(o, kv[i][0], kv[i][1]);
	if (ceiling)
		cJSON_AddStringToObject(o, "ceiling_tier", ceiling);
	if (host)
		cJSON_AddStringToObject(o, "host_id", host);
	char *a = cJSON_PrintUnformatted(run), *b = cJSON_PrintUnformatted(o);
	fprintf(f, "%s\n%s\n", a, b);
	free(a), free(b);
	cJSON_Delete(run), cJSON_Delete(o);
	ck_assert_int_eq(fclose(f), 0);
	isotier_history *h = NULL;
	ck_assert_msg(isotier__history_open(&h, db, 0, err) == 0, "%s", err->message);
	isotier_transfer_counts c = {0};
	int rc = isotier__history_import(h, path, &c, err);
	isotier__history_close(h);
	return rc;
}

/* Imported rows (history import, migrate) may lower what the gate grants,
 * never grant, nor be the "latest" that hides this host's own verdict: a
 * machine id is no secret, and an import's rows get new, higher ids. */
START_TEST(imported_rows_only_lower)
{
	isotier_resolution r;
	isotier_error err = {0};
	proof("2026-12-03T09:00:00Z");
	add("2026-12-03T10:00:00Z", "CONTRADICTED", "CONTAINER", HOST, NULL);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	/* A file naming this host, its run calling itself a verify, an old
	 * CONFIRMED proof of the current claim: it must not mask the
	 * contradiction, nor prove anything. */
	ck_assert_msg(import_one("11111111-1111-4111-8111-111111111111", "verify",
	                         "22222222-2222-4222-8222-222222222222", "2026-11-01T00:00:00Z",
	                         "CONFIRMED", "CONTAINER", HOST, &err) == 0,
	              "%s", err.message);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "CONTRADICTED"));
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	/* The same naming no host. */
	ck_assert_int_eq(import_one("33333333-3333-4333-8333-333333333333", "verify",
	                            "44444444-4444-4444-8444-444444444444", "2026-11-02T00:00:00Z",
	                            "CONFIRMED", "CONTAINER", NULL, &err),
	                 0);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	/* Only this host's own verification clears it. */
	proof("2026-12-03T11:00:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	/* After it, an imported proof is no proof: require-verified wants this
	 * host's own, and an imported one newer than it voids it. */
	ck_assert_int_eq(import_one("55555555-5555-4555-8555-555555555555", "verify",
	                            "66666666-6666-4666-8666-666666666666", "2026-12-03T11:10:00Z",
	                            "CONFIRMED", "CONTAINER", HOST, &err),
	                 0);
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "import"));
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_CONTAINER); /* it lowers nothing else */
	/* An imported contradiction or lower ceiling lowers. */
	proof("2026-12-03T11:20:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	ck_assert_int_eq(import_one("77777777-7777-4777-8777-777777777777", "verify",
	                            "88888888-8888-4888-8888-888888888888", "2026-10-01T00:00:00Z",
	                            "CONTRADICTED", "CONTAINER", HOST, &err),
	                 0);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	proof("2026-12-03T11:30:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
	ck_assert_int_eq(import_one("99999999-9999-4999-8999-999999999999", "verify",
	                            "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "2026-10-02T00:00:00Z",
	                            "CONSISTENT", "NONE", NULL, &err),
	                 0);
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "NONE"));
	/* A file cannot slip a row into one of this host's own runs. */
	proof("2026-12-03T11:40:00Z");
	char local_run[64] = "";
	{
		isotier_history *h = NULL;
		ck_assert_int_eq(isotier__history_open_readonly(&h, db, &err), 0);
		FILE *f = tmpfile();
		ck_assert_int_eq(isotier__history_export(h, f, &err), 0);
		isotier__history_close(h);
		rewind(f);
		char line[1 << 16];
		while (fgets(line, sizeof line, f)) /* the last run: the proof's */
			if (strstr(line, "\"type\":\"run\""))
				sscanf(strstr(line, "\"uuid\":\"") + 8, "%36[^\"]", local_run);
		fclose(f);
	}
	ck_assert_uint_eq(strlen(local_run), 36);
	ck_assert_int_eq(import_one(local_run, "verify", "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb",
	                            "2026-12-03T11:50:00Z", "INCONCLUSIVE", NULL, HOST, &err),
	                 ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "not imported"));
}
END_TEST

/* PostgreSQL only: a server that stops answering cannot hold the gate for
 * ever (a statement timeout, TCP keepalives), and a COMMIT that rolled back
 * (a statement in the transaction failed) is an error, not a success. */
START_TEST(pg_session_bounded_and_commit_checked)
{
	if (!pg_uri)
		return;
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open_readonly(&h, db, &err) == 0, "%s", err.message);
	hstmt *s = NULL;
	ck_assert_int_eq(isotier__hq_prepare(h, &s, "SHOW statement_timeout", &err, "test"), 0);
	ck_assert_int_eq(hq_step(s, &err), 1);
	ck_assert_str_ne(hq_col(s, 0), "0");
	HDRV(s)->finalize(s);
	bool keepalives = false;
	PQconninfoOption *opts = PQconninfo(h->pg);
	for (PQconninfoOption *o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, "keepalives"))
			keepalives = o->val && !strcmp(o->val, "1");
	PQconninfoFree(opts);
	ck_assert(keepalives);
	isotier__history_close(h);
	ck_assert_int_eq(isotier__history_open(&h, db, 0, &err), 0);
	ck_assert_int_eq(h->drv->exec(h, "BEGIN", &err, "test"), 0);
	ck_assert_int_lt(h->drv->exec(h, "SELECT 1/0", &err, "test"), 0);
	ck_assert_int_lt(h->drv->exec(h, "COMMIT", &err, "test"), 0);
	ck_assert_ptr_nonnull(strstr(err.message, "rolled back"));
	isotier__history_close(h);
}
END_TEST

START_TEST(host_id_reads_machine_id)
{
	char id[64];
	isotier__host_id(id, sizeof id);
	if (access("/etc/machine-id", R_OK) == 0 || access("/var/lib/dbus/machine-id", R_OK) == 0)
		ck_assert(strlen(id) == 32 || id[0] == '\0');
	else
		ck_assert_str_eq(id, "");
	char small[8] = "junk";
	isotier__host_id(small, sizeof small);
	ck_assert_str_eq(small, "");
}
END_TEST

/* Absent is ENOENT and nothing else: a history that is there but cannot be
 * read fails the gate with its own code and errno, naming the path, and
 * grants nothing (a non-root reader's EACCES: tests/integration/
 * gate_permissions.sh). */
START_TEST(unreadable_history_fails)
{
	if (pg_uri)
		return; /* files only */
	isotier_resolution r;
	isotier_error err = {0};
	add("2026-12-03T11:00:00Z", "CONTRADICTED", "CONTAINER", HOST, NULL);
	isotier_resolve_opts o = {
	    .catalogue_dir = cat, .today = TODAY, .now = now_t(), .host_id = HOST};
	/* A directory where the history is named. */
	char dir[256];
	snprintf(dir, sizeof dir, "%s/adir", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	o.db_path = dir;
	ck_assert_int_eq(isotier__resolve(&r, isotier__backend_lookup("bwrap"), &o, &err),
	                 ISOTIER_EIO);
	ck_assert_int_eq(err.sys_errno, EISDIR);
	ck_assert_ptr_nonnull(strstr(err.message, dir));
	ck_assert_int_eq(r.resolved, ISOTIER_UNKNOWN);
	/* A path through a regular file (ENOTDIR): not "absent" either. */
	char under[300];
	snprintf(under, sizeof under, "%s/x.db", db);
	o.db_path = under;
	ck_assert_int_lt(isotier__resolve(&r, isotier__backend_lookup("bwrap"), &o, &err), 0);
	ck_assert_int_eq(err.sys_errno, ENOTDIR);
	ck_assert_int_eq(isotier__history_present(under, NULL, &err), ISOTIER_ENOTFOUND);
	ck_assert_int_eq(isotier__history_present(db, NULL, &err), 1);
	/* A schema newer than this build: refused, not read as empty. */
	char cmd[1400];
	snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'PRAGMA user_version = 999'", db);
	ck_assert_int_eq(system(cmd), 0);
	o.db_path = db;
	ck_assert_int_eq(isotier__resolve(&r, isotier__backend_lookup("bwrap"), &o, &err),
	                 ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "schema version 999"));
	ck_assert_int_eq(r.resolved, ISOTIER_UNKNOWN);
}
END_TEST

START_TEST(default_history)
{
	isotier_resolution r;
	char saved[512] = "";
	const char *env = getenv("ISOTIER_DB");
	bool had = env != NULL;
	if (had)
		snprintf(saved, sizeof saved, "%s", env);
	unsetenv("ISOTIER_DB");
	ck_assert_str_eq(isotier__default_db_path(), "/var/lib/isotier/isotier.db");
	setenv("ISOTIER_DB", "", 1);
	ck_assert_str_eq(isotier__default_db_path(), "/var/lib/isotier/isotier.db");
	ck_assert_ptr_null(isotier__default_db_named_by());
	/* The built-in default not written yet (ENOENT, as on a host the job has
	 * not run on): nothing verified, a plain claim still resolves. */
	struct stat st;
	if (stat(ISOTIER_DEFAULT_DB, &st) != 0 && errno == ENOENT) {
		ASSERT_TIER(r, gate_as(&r, 0, false, NULL), ISOTIER_CONTAINER);
		ASSERT_TIER(r, gate_as(&r, 7, false, NULL), ISOTIER_UNKNOWN);
		ck_assert_ptr_nonnull(strstr(r.reason, "absent"));
	}
	/* $ISOTIER_DB naming a path that is not there is a typo, never "no
	 * history": the gate fails (ENOTFOUND, ENOENT), nothing resolves. */
	char absent[256];
	snprintf(absent, sizeof absent, "%s/none.db", tmpdir);
	setenv("ISOTIER_DB", absent, 1);
	ck_assert_str_eq(isotier__default_db_path(), absent);
	ck_assert_str_eq(isotier__default_db_named_by(), "$ISOTIER_DB");
	isotier_resolve_opts o = {
	    .catalogue_dir = cat, .today = TODAY, .now = now_t(), .host_id = HOST};
	isotier_error err = {0};
	ck_assert_int_eq(isotier__resolve(&r, isotier__backend_lookup("bwrap"), &o, &err),
	                 ISOTIER_ENOTFOUND);
	ck_assert_int_eq(err.sys_errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(err.message, absent));
	ck_assert_ptr_nonnull(strstr(err.message, "$ISOTIER_DB"));
	struct stat none;
	ck_assert_int_ne(stat(absent, &none), 0); /* and not created */
	/* Present: its contradiction is honoured with no db_path given. */
	setenv("ISOTIER_DB", db, 1);
	proof("2026-12-03T10:00:00Z");
	ASSERT_TIER(r, gate_as(&r, 7, false, NULL), ISOTIER_CONTAINER);
	add("2026-12-03T11:00:00Z", "CONTRADICTED", "CONTAINER", HOST, NULL);
	ASSERT_TIER(r, gate_as(&r, 0, false, NULL), ISOTIER_UNKNOWN);
	/* An explicit path wins, and must exist as well. */
	o.db_path = absent;
	ck_assert_int_eq(isotier__resolve(&r, isotier__backend_lookup("bwrap"), &o, &err),
	                 ISOTIER_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.message, "named by db_path"));
	if (had)
		setenv("ISOTIER_DB", saved, 1);
	else
		unsetenv("ISOTIER_DB");
}
END_TEST

/* Schema 3 as isotier left it before host ids and claim digests (the
 * released migrations 0 -> 3, verbatim), with one observation. */
static const char *const schema3 =
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT,"
    " tool_version TEXT NOT NULL, catalogue_commit TEXT, command TEXT NOT NULL,"
    " status TEXT NOT NULL DEFAULT 'running');"
    "CREATE TABLE observations (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES "
    "runs(id),"
    " observed_at TEXT NOT NULL, backend TEXT NOT NULL, provider_id TEXT, claimed_tier TEXT,"
    " claimed_mechanism TEXT, observed_tier TEXT NOT NULL, observed_vendor TEXT, confidence TEXT,"
    " layers_json TEXT, verdict TEXT NOT NULL, reason TEXT, probe_json TEXT, evidence BLOB,"
    " evidence_format TEXT, duration_ms INTEGER);"
    "CREATE INDEX observations_by_backend ON observations(backend, observed_at);"
    "CREATE TABLE source_checks (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES "
    "runs(id),"
    " checked_at TEXT NOT NULL, provider_id TEXT NOT NULL, url TEXT NOT NULL, quote TEXT NOT NULL,"
    " status TEXT NOT NULL, http_status INTEGER, content_sha256 TEXT, detail TEXT);"
    "CREATE INDEX source_checks_by_url ON source_checks(url, checked_at);"
    "CREATE TABLE audit_events (id INTEGER PRIMARY KEY, at TEXT NOT NULL, event TEXT NOT NULL,"
    " sandbox_id TEXT, backend TEXT, claimed_tier TEXT, resolved_tier TEXT, required_tier TEXT,"
    " decision TEXT, reason TEXT, detail_json TEXT);"
    "CREATE INDEX audit_events_by_time ON audit_events(at);"
    "ALTER TABLE observations ADD COLUMN kernel_relation TEXT;"
    "ALTER TABLE observations ADD COLUMN ceiling_tier TEXT;"
    "ALTER TABLE runs ADD COLUMN host TEXT;"
    "PRAGMA user_version = 3;"
    "INSERT INTO runs(started_at, tool_version, command, status) VALUES"
    " ('2026-12-03T10:00:00Z', '0.1.0', 'verify', 'ok');"
    "INSERT INTO observations(run_id, observed_at, backend, provider_id, claimed_tier,"
    " claimed_mechanism, observed_tier, verdict, ceiling_tier) VALUES (1, '2026-12-03T10:00:00Z',"
    " 'bwrap', 'bubblewrap', 'CONTAINER', 'bubblewrap', 'CONTAINER', 'CONFIRMED', 'CONTAINER');";

/* The listing's first rows, copied. */
typedef struct listed {
	size_t n;
	int64_t id[8];
	char verdict[8][32];
	int64_t wall[8], cpu[8], jobs[8], overlap[8]; /* schema 8's, -1: NULL */
} listed;

static int list_row(void *ctx, const isotier_observation_listing *r)
{
	listed *l = ctx;
	if (l->n < 8) {
		l->id[l->n] = r->id;
		snprintf(l->verdict[l->n], sizeof l->verdict[l->n], "%s",
		         r->verdict ? r->verdict : "");
		l->wall[l->n] = r->sandbox_wall_ms, l->cpu[l->n] = r->sandbox_cpu_ms;
		l->jobs[l->n] = r->jobs, l->overlap[l->n] = r->overlap;
	}
	l->n++;
	return 0;
}

START_TEST(old_database_migrates_and_proves_nothing)
{
	if (pg_uri)
		return; /* an SQLite file of schema 3: nothing of it exists in PostgreSQL */
	unlink(db);
	sqlite3 *raw = NULL;
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw, schema3, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	isotier_resolution r;
	/* Read-only resolve migrates it once (it may write here)... */
	ASSERT_TIER(r, gate(&r, 0), ISOTIER_CONTAINER);
	/* ...and the old proof names neither host nor claim: it proves nothing. */
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_UNKNOWN);
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_open_readonly(&h, db, &err), 0);
	ck_assert_int_eq(isotier__history_schema_version(h), 11);
	listed l = {0};
	observation_filter f = {0};
	ck_assert_int_eq(isotier__history_list_observations(h, &f, list_row, &l, &err), 0);
	ck_assert_uint_eq(l.n, 1); /* the listing still shows it */
	ck_assert_str_eq(l.verdict[0], "CONFIRMED");
	/* Migrated, it says nothing of the sandbox's own times: NULL, not 0. */
	ck_assert_int_eq(l.wall[0], -1);
	ck_assert_int_eq(l.cpu[0], -1);
	ck_assert_int_eq(l.jobs[0], -1);
	ck_assert_int_eq(l.overlap[0], -1);
	isotier__history_close(h);
	/* A new proof on top of it counts. */
	proof("2026-12-03T11:00:00Z");
	ASSERT_TIER(r, gate(&r, 7), ISOTIER_CONTAINER);
}
END_TEST

START_TEST(listing_is_by_id)
{
	proof("2027-01-01T00:00:00Z");
	proof("2026-12-01T00:00:00Z");
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_open_readonly(&h, db, &err), 0);
	listed l = {0};
	observation_filter f = {0};
	ck_assert_int_eq(isotier__history_list_observations(h, &f, list_row, &l, &err), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_int_eq(l.id[0], 2); /* newest written first, whatever its date */
	ck_assert_int_eq(l.id[1], 1);
	isotier__history_close(h);
}
END_TEST

int main(void)
{
	pg_uri = getenv("ISOTIER_TEST_PG_URI");
	if (pg_uri && !*pg_uri)
		pg_uri = NULL;
	Suite *s = suite_create(pg_uri ? "history_gate (PostgreSQL)" : "history_gate");
	TCase *tc = tcase_create("gate");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, honest_proof_grants);
	tcase_add_test(tc, newer_inconclusive_voids_require_verified);
	tcase_add_test(tc, inconclusive_does_not_clear_contradiction);
	tcase_add_test(tc, ordered_by_id_not_timestamp);
	tcase_add_test(tc, future_row_fails_closed);
	tcase_add_test(tc, small_skew_and_bad_dates);
	tcase_add_test(tc, changed_claim_voids_proof);
	tcase_add_test(tc, only_this_hosts_rows);
	tcase_add_test(tc, hostless_rows_deny_never_grant);
	tcase_add_test(tc, imported_rows_only_lower);
	tcase_add_test(tc, pg_session_bounded_and_commit_checked);
	tcase_add_test(tc, default_history);
	tcase_add_test(tc, unreadable_history_fails);
	tcase_add_test(tc, old_database_migrates_and_proves_nothing);
	tcase_add_test(tc, listing_is_by_id);
	suite_add_tcase(s, tc);
	TCase *tp = tcase_create("parts");
	tcase_add_test(tp, claim_digest_is_canonical);
	tcase_add_test(tp, host_id_reads_machine_id);
	suite_add_tcase(s, tp);
	return run_suite(s);
}
