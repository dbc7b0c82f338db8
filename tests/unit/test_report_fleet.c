/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_report_fleet.c - what the report shows of a shared history, on a real
 * SQLite file: the host x backend matrix in every human format only when two
 * hosts share it, DISAGREES on a backend they saw at different tiers, a
 * hostile host name escaped; and "CONFIRMED (attested)" only for the
 * observation verify stored as attested, never for a reason that merely
 * says "attested:".
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../reference/history/history_sqlite.h"
#include "../../verify/report/report_model.h"

static char dir[64], db[128];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/test_report_fleet.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(db, sizeof db, "%s/h.db", dir);
	char id[128];
	snprintf(id, sizeof id, "%s/identity", dir);
	setenv("ISOTIER_IDENTITY_DIR", id, 1); /* the report trusts this key */
}

static void teardown(void)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

#define HOSTILE "<i>b</i>\x1b[2J|*"

/* sign: the row's statement signed with this test's key, saying attested
 * when said_attested (verify's facts); else the row is stored bare. */
static void observe_as(isotier_history *h, int64_t run, const char *backend, const char *tier,
                       const char *verdict, const char *layers, const char *reason,
                       const char *host_id, bool sign, bool said_attested)
{
	isotier_error err = {0};
	bool remote = !strcmp(backend, "fly");
	isotier_observation_record o = {.run_id = run,
	                                .backend = backend,
	                                .claimed_tier = remote ? "MICROVM" : "CONTAINER",
	                                .observed_tier = tier,
	                                .verdict = verdict,
	                                .reason = reason,
	                                .layers_json = layers,
	                                .host_id = host_id};
	char uuid[ISOTIER_UUID_LEN + 1];
	ck_assert_int_eq(isotier__history_uuid(uuid), 0);
	o.uuid = uuid;
	o.observed_at = "2026-12-01T00:00:00Z";
	char *envelope = NULL;
	if (sign) {
		isotier_identity id;
		ck_assert_msg(isotier__identity_load(&id, true, &err) == 0, "%s", err.message);
		isotier_statement_facts f = {.attested = said_attested};
		ck_assert_int_eq(isotier__statement_sign(&id, &o, &f, &envelope, &err), 0);
		isotier__identity_clear(&id);
		o.statement = envelope;
	}
	ck_assert_int_eq(isotier__history_begin(h, &err), 0);
	ck_assert_msg(isotier__history_add_observation(h, &o, NULL, &err) == 0, "%s", err.message);
	ck_assert_int_eq(isotier__history_commit(h, &err), 0);
	free(envelope);
}

static void observe(isotier_history *h, int64_t run, const char *backend, const char *tier,
                    const char *verdict, const char *layers, const char *reason,
                    const char *host_id)
{
	observe_as(h, run, backend, tier, verdict, layers, reason, host_id, true,
	           layers && strstr(layers, "\"attested\":true"));
}

/* Host a: bwrap CONTAINER, fly attested. Host b (hostile name): bwrap
 * NONE, fly CONFIRMED with a reason that only claims attestation. */
static void record(void)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
	static const char a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	                  b[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	int64_t r1 = 0, r2 = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &r1, "verify", "c0ffee", &err), 0);
	observe(h, r1, "bwrap", "CONTAINER", "CONFIRMED", "[]", "ok", a);
	observe(h, r1, "fly", "MICROVM", "CONFIRMED", "{\"attested\":true,\"layers\":[]}",
	        "attested: two sev-snp guests", a);
	ck_assert_int_eq(isotier__history_run_end(h, r1, "ok", &err), 0);
	ck_assert_int_eq(isotier__history_run_begin(h, &r2, "verify", "c0ffee", &err), 0);
	observe(h, r2, "bwrap", "NONE", "CONTRADICTED", "[]", "shared", b);
	observe(h, r2, "fly", "MICROVM", "CONFIRMED", "[]", "attested: forged", b);
	ck_assert_int_eq(isotier__history_run_end(h, r2, "ok", &err), 0);
	sqlite3_stmt *st = NULL;
	ck_assert_int_eq(
	    sqlite3_prepare_v2(isotier__history_db(h),
	                       "UPDATE runs SET host = CASE id WHEN ?1 THEN 'a' ELSE ?2 END", -1,
	                       &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_int64(st, 1, r1);
	sqlite3_bind_text(st, 2, HOSTILE, -1, SQLITE_STATIC);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	isotier__history_close(h);
}

static char *render_with(int (*writer)(FILE *, const report_model *), const report_model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(writer(f, m), 0);
	fclose(f);
	return buf;
}

static size_t occurrences(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* "attested": true in layers_json (an import can claim it) is shown only
 * with a signed statement that says so: unsigned, or signed saying not
 * attested, it is a plain CONFIRMED. */
START_TEST(attested_needs_a_signed_statement)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
	static const char a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	int64_t r = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &r, "verify", "c0ffee", &err), 0);
	const char *layers = "{\"attested\":true,\"layers\":[]}";
	observe_as(h, r, "fly", "MICROVM", "CONFIRMED", layers, "attested: imported", a, false,
	           false);
	observe_as(h, r, "fly", "MICROVM", "CONFIRMED", layers, "attested: said no", a, true,
	           false);
	observe_as(h, r, "fly", "MICROVM", "CONFIRMED", layers, "attested: signed", a, true, true);
	ck_assert_int_eq(isotier__history_run_end(h, r, "ok", &err), 0);
	isotier__history_close(h);
	report_model *m = NULL;
	report_options o = {.db_path = db, .today = "2099-01-01"};
	ck_assert_msg(report_model_load(&m, &o, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(m->n_observations, 3);
	ck_assert(!m->observations[0].attested);
	ck_assert(!m->observations[1].attested);
	ck_assert(m->observations[2].attested);
	report_model_free(m);
	/* Read with another host's key (not the signer's, not trusted): none. */
	char other[160];
	snprintf(other, sizeof other, "%s/other-identity", dir);
	setenv("ISOTIER_IDENTITY_DIR", other, 1);
	isotier_identity id;
	ck_assert_int_eq(isotier__identity_load(&id, true, &err), 0);
	isotier__identity_clear(&id);
	ck_assert_msg(report_model_load(&m, &o, &err) == 0, "%s", err.message);
	ck_assert(!m->observations[2].attested);
	report_model_free(m);
}
END_TEST

START_TEST(two_hosts_matrix_and_attested)
{
	record();
	report_options o = {.db_path = db, .today = "2099-01-01"};
	report_model *m = NULL;
	isotier_error err = {0};
	ck_assert_msg(report_model_load(&m, &o, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(m->n_host_names, 2);
	ck_assert_uint_eq(m->n_hosts, 4);
	for (size_t i = 0; i < m->n_hosts; i++) /* bwrap disagrees, fly agrees */
		ck_assert(m->hosts[i].disagrees == !strcmp(m->hosts[i].latest->backend, "bwrap"));
	ck_assert_uint_eq(m->n_observations, 4);
	ck_assert(m->observations[1].attested);
	ck_assert(!m->observations[3].attested); /* the reason's words are not the fact */
	ck_assert(!m->observations[0].attested);
	ck_assert_str_eq(report_verdict_shown(&m->observations[1]), "CONFIRMED (attested)");
	ck_assert_str_eq(report_verdict_shown(&m->observations[3]), "CONFIRMED");

	int (*const writers[])(FILE *, const report_model *) = {report_write_html, report_write_md,
	                                                        report_write_text};
	for (size_t w = 0; w < 3; w++) {
		char *out = render_with(writers[w], m);
		ck_assert_msg(strstr(out, "Hosts sharing this history"),
		              "writer %zu: no host matrix", w);
		ck_assert_ptr_null(strchr(out, '\x1b'));
		if (w < 2) /* markup is text on a terminal; only controls must not pass */
			ck_assert_ptr_null(strstr(out, "<i>b"));
		ck_assert_msg(occurrences(out, "CONFIRMED (attested)") >= 1, "writer %zu", w);
		free(out);
	}
	char *html = render_with(report_write_html, m);
	ck_assert_ptr_nonnull(strstr(html, "<td>&lt;i&gt;b&lt;/i&gt;\\x1b[2J|*</td>"));
	ck_assert_uint_eq(occurrences(html, ">DISAGREES<"), 2);
	free(html);
	char *md = render_with(report_write_md, m);
	ck_assert_ptr_nonnull(strstr(md, "| &lt;i&gt;b&lt;/i&gt;\\\\x1b\\[2J\\|\\* |"));
	free(md);
	char *json = render_with(report_write_json, m);
	ck_assert_uint_eq(occurrences(json, "\"attested\":true"), 2); /* observation, host cell */
	free(json);
	report_model_free(m);
}
END_TEST

/* One host: the matrix would repeat the tier matrix, so no writer shows it. */
START_TEST(one_host_no_matrix)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__history_open(&h, db, 0, &err), 0);
	int64_t r = 0;
	ck_assert_int_eq(isotier__history_run_begin(h, &r, "verify", "c0ffee", &err), 0);
	observe(h, r, "bwrap", "CONTAINER", "CONFIRMED", "[]", "ok",
	        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	ck_assert_int_eq(isotier__history_run_end(h, r, "ok", &err), 0);
	isotier__history_close(h);
	report_options o = {.db_path = db, .today = "2099-01-01"};
	report_model *m = NULL;
	ck_assert_msg(report_model_load(&m, &o, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(m->n_host_names, 1);
	int (*const writers[])(FILE *, const report_model *) = {report_write_html, report_write_md,
	                                                        report_write_text};
	for (size_t w = 0; w < 3; w++) {
		char *out = render_with(writers[w], m);
		ck_assert_ptr_null(strstr(out, "Hosts sharing this history"));
		free(out);
	}
	report_model_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report_fleet");
	TCase *tc = tcase_create("fleet");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, two_hosts_matrix_and_attested);
	tcase_add_test(tc, attested_needs_a_signed_statement);
	tcase_add_test(tc, one_host_no_matrix);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
