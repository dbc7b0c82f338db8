/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gate_signed.c - the history gate trusts signatures, not rows
 * (reference/attestation/statement.c, identity.c, resolve.c): over a real SQLite file,
 * rows written by verify's own signed insert grant; a row with no
 * statement, a row copied from another host, a row edited after signing,
 * an edited envelope and a key nobody configured each fail to grant, the
 * reason naming the signature check; a key in ISOTIER_TRUSTED_KEYS speaks
 * for this host. DSSE's PAE against the protocol's own example.
 */
#include <check.h>
#include "check_run.h"

#include <cJSON.h>
#include <openssl/evp.h>
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

#define TODAY      "2026-12-03"
#define HOST       "0123456789abcdef0123456789abcdef"
#define OTHER_HOST "fedcba9876543210fedcba9876543210"

static char tmpdir[64], cat[128], db[256], key_a[128], key_b[128];
static char *digest;

static time_t now_t(void)
{
	struct tm tm = {.tm_year = 2026 - 1900, .tm_mon = 11, .tm_mday = 3, .tm_hour = 12};
	return timegm(&tm);
}

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/isotier-signed.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(cat, sizeof cat, "%s/providers", tmpdir);
	snprintf(db, sizeof db, "%s/history.db", tmpdir);
	snprintf(key_a, sizeof key_a, "%s/host-a", tmpdir);
	snprintf(key_b, sizeof key_b, "%s/host-b", tmpdir);
	setenv("ISOTIER_IDENTITY_DIR", key_a, 1);
	unsetenv("ISOTIER_TRUSTED_KEYS");
	ck_assert_int_eq(mkdir(cat, 0755), 0);
	char src[4096], dst[256];
	snprintf(src, sizeof src, "%s/catalogue/providers/bubblewrap.json", ISOTIER_SOURCE_DIR);
	snprintf(dst, sizeof dst, "%s/bubblewrap.json", cat);
	char *json = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__read_file(&json, &len, src, 1 << 20, &err), 0);
	FILE *f = fopen(dst, "w");
	ck_assert_ptr_nonnull(f);
	fwrite(json, 1, len, f);
	fclose(f);
	isotier_provider p = {0};
	isotier_findings findings = {0};
	ck_assert_int_eq(isotier__provider_parse(&p, json, len, dst, &findings), 0);
	digest = isotier__claim_digest(&p);
	isotier__provider_clear(&p);
	isotier__findings_free(&findings);
	free(json);
	isotier_history *h = NULL;
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

/* One bwrap observation in a verify run: signed by the identity in
 * ISOTIER_IDENTITY_DIR (signed), or stored bare with statement. */
static void add(const char *at, const char *verdict, const char *host, bool sign,
                const char *statement)
{
	isotier_history *h = NULL;
	isotier_error err = {0};
	ck_assert_msg(isotier__history_open(&h, db, 0, &err) == 0, "%s", err.message);
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
	                 .host_id = host,
	                 .claim_digest = digest,
	                 .statement = statement};
	if (sign) {
		ck_assert_msg(observations_insert(h, &o, NULL, &err) == 0, "%s", err.message);
	} else {
		ck_assert_int_eq(isotier__history_begin(h, &err), 0);
		ck_assert_msg(isotier__history_add_observation(h, &o, NULL, &err) == 0, "%s",
		              err.message);
		ck_assert_int_eq(isotier__history_commit(h, &err), 0);
	}
	ck_assert_int_eq(isotier__history_run_end(h, run, "ok", &err), 0);
	isotier__history_close(h);
}

static isotier_tier gate(isotier_resolution *r, int days)
{
	isotier_resolve_opts o = {.catalogue_dir = cat,
	                          .db_path = db,
	                          .today = TODAY,
	                          .now = now_t(),
	                          .host_id = HOST,
	                          .require_verified_days = days};
	isotier_error err = {0};
	ck_assert_msg(isotier__resolve(r, isotier__backend_lookup("bwrap"), &o, &err) == 0, "%s",
	              err.message);
	return r->resolved;
}

#define ASSERT_REFUSED(r, why)                                                                     \
	do {                                                                                       \
		ck_assert_msg(gate(&(r), 7) == ISOTIER_UNKNOWN, "granted: %s", (r).reason);        \
		ck_assert_msg(strstr((r).reason, "signature check"), "%s", (r).reason);            \
		ck_assert_msg(strstr((r).reason, why), "wanted '%s': %s", why, (r).reason);        \
	} while (0)
#define ASSERT_GRANTED(r)                                                                          \
	ck_assert_msg(gate(&(r), 7) == ISOTIER_CONTAINER, "refused: %s", (r).reason)

/* The newest row's statement, from the file itself (the caller frees). */
static char *sql_text(const char *query)
{
	sqlite3 *s = NULL;
	ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
	sqlite3_stmt *st = NULL;
	ck_assert_int_eq(sqlite3_prepare_v2(s, query, -1, &st, NULL), SQLITE_OK);
	char *out = NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(s);
	return out;
}

static void sql_exec(const char *query)
{
	sqlite3 *s = NULL;
	ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(s, query, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

START_TEST(honest_signed_row_grants)
{
	isotier_resolution r;
	add("2026-12-03T11:00:00Z", "CONFIRMED", HOST, true, NULL);
	ASSERT_GRANTED(r);
	char *env = sql_text("SELECT statement FROM observations ORDER BY id DESC LIMIT 1");
	ck_assert_ptr_nonnull(env);
	ck_assert_ptr_nonnull(strstr(env, "\"payloadType\":\"application/vnd.in-toto+json\""));
	free(env);
	/* The private key is its owner's only. */
	char path[256];
	struct stat st;
	snprintf(path, sizeof path, "%s/host.key", key_a);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 077, 0);
}
END_TEST

START_TEST(forged_unsigned_row_does_not_grant)
{
	isotier_resolution r;
	add("2026-12-03T11:00:00Z", "CONFIRMED", HOST, false, NULL);
	ASSERT_REFUSED(r, "no signed statement");
}
END_TEST

/* Another host's signed CONFIRMED, its statement copied onto a row naming
 * this host: neither its key nor, once trusted, its host matches. */
START_TEST(copied_row_does_not_grant)
{
	isotier_resolution r;
	setenv("ISOTIER_IDENTITY_DIR", key_b, 1);
	add("2026-12-03T10:00:00Z", "CONFIRMED", OTHER_HOST, true, NULL);
	setenv("ISOTIER_IDENTITY_DIR", key_a, 1);
	/* This host's own key exists (a row of its own was signed once). */
	add("2026-12-03T09:00:00Z", "INCONCLUSIVE", HOST, true, NULL);
	char *env = sql_text("SELECT statement FROM observations WHERE host_id = '" OTHER_HOST "'");
	ck_assert_ptr_nonnull(env);
	add("2026-12-03T10:00:00Z", "CONFIRMED", HOST, false, env);
	ASSERT_REFUSED(r, "signed by no trusted key");
	char pub[256];
	snprintf(pub, sizeof pub, "%s/host.pub", key_b);
	setenv("ISOTIER_TRUSTED_KEYS", pub, 1);
	ASSERT_REFUSED(r, "another host's statement");
	/* Also with this host's id taken over and the uuid copied. */
	sql_exec("UPDATE observations SET uuid = (SELECT uuid FROM observations WHERE host_id = "
	         "'" OTHER_HOST "') || 'x' WHERE id = 3");
	ASSERT_REFUSED(r, "signature check");
	free(env);
}
END_TEST

START_TEST(edited_row_does_not_grant)
{
	isotier_resolution r;
	add("2026-12-03T11:00:00Z", "INCONCLUSIVE", HOST, true, NULL);
	sql_exec("UPDATE observations SET verdict = 'CONFIRMED'");
	ASSERT_REFUSED(r, "verdict");
	/* A honest proof, then its time moved (to look fresh): refused. */
	add("2026-11-01T11:00:00Z", "CONFIRMED", HOST, true, NULL);
	ck_assert_int_eq(gate(&r, 0), ISOTIER_CONTAINER);
	sql_exec("UPDATE observations SET observed_at = '2026-12-03T11:30:00Z' WHERE id = 2");
	ASSERT_REFUSED(r, "observation.observedAt");
}
END_TEST

/* The payload edited (INCONCLUSIVE to CONFIRMED, row and statement agree),
 * the signature kept: DSSE's signature is over the payload. */
START_TEST(edited_envelope_does_not_grant)
{
	isotier_resolution r;
	add("2026-12-03T11:00:00Z", "INCONCLUSIVE", HOST, true, NULL);
	char *env = sql_text("SELECT statement FROM observations");
	ck_assert_ptr_nonnull(env);
	isotier_error err = {0};
	cJSON *e = isotier__json_parse(env, strlen(env), "envelope", &err);
	ck_assert_ptr_nonnull(e);
	cJSON *payload = cJSON_GetObjectItemCaseSensitive(e, "payload");
	/* Decode, edit, re-encode with libcrypto's base64. */
	const char *b64 = payload->valuestring;
	size_t n = strlen(b64);
	unsigned char *raw = calloc(1, n);
	int got = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
	ck_assert_int_gt(got, 0);
	char *text = strndup((char *)raw, (size_t)got);
	char *v = strstr(text, "\"verdict\":\"INCONCLUSIVE\"");
	ck_assert_ptr_nonnull(v);
	char edited[8192];
	snprintf(edited, sizeof edited, "%.*s\"verdict\":\"CONFIRMED\"%s", (int)(v - text), text,
	         v + strlen("\"verdict\":\"INCONCLUSIVE\""));
	/* Trailing NULs of the decode are not JSON: cut at the last brace. */
	char *end = strrchr(edited, '}');
	ck_assert_ptr_nonnull(end);
	end[1] = '\0';
	unsigned char *enc = calloc(1, 4 * strlen(edited) / 3 + 8);
	EVP_EncodeBlock(enc, (unsigned char *)edited, (int)strlen(edited));
	cJSON_SetValuestring(payload, (char *)enc);
	char *forged = isotier__json_print(e, false);
	sql_exec("DELETE FROM observations");
	add("2026-12-03T11:00:00Z", "CONFIRMED", HOST, false, forged);
	char *uuid_fix = NULL;
	ck_assert_int_gt(asprintf(&uuid_fix, "UPDATE observations SET uuid = '%s'",
	                          strstr(edited, "\"uuid\":\"") + 8),
	                 0);
	*strchr(strstr(uuid_fix, "'") + 1, '"') = '\'';
	strchr(strstr(uuid_fix, "'") + 1, '\'')[1] = '\0';
	sql_exec(uuid_fix);
	ASSERT_REFUSED(r, "no signature verifies");
	free(uuid_fix);
	free(forged);
	free(enc);
	free(text);
	free(raw);
	cJSON_Delete(e);
	free(env);
}
END_TEST

/* A forged CONFIRMED newer than this host's own CONTRADICTED does not
 * clear it; it is passed over and the reason says why. */
START_TEST(forged_row_does_not_clear_contradiction)
{
	isotier_resolution r;
	add("2026-12-03T10:00:00Z", "CONTRADICTED", HOST, true, NULL);
	add("2026-12-03T11:00:00Z", "CONFIRMED", HOST, false, NULL);
	ck_assert_int_eq(gate(&r, 0), ISOTIER_UNKNOWN);
	ck_assert_msg(strstr(r.reason, "CONTRADICTED") && strstr(r.reason, "passed over") &&
	                  strstr(r.reason, "signature check"),
	              "%s", r.reason);
	/* A honest proof after it clears it. */
	add("2026-12-03T11:10:00Z", "CONFIRMED", HOST, true, NULL);
	ASSERT_GRANTED(r);
}
END_TEST

/* A row naming this host signed by a key this host does not hold (a
 * rotated key, another machine's): counted only once configured. */
START_TEST(trusted_keys_speak_for_this_host)
{
	isotier_resolution r;
	setenv("ISOTIER_IDENTITY_DIR", key_b, 1);
	add("2026-12-03T11:00:00Z", "CONFIRMED", HOST, true, NULL);
	setenv("ISOTIER_IDENTITY_DIR", key_a, 1);
	ASSERT_REFUSED(r, "signed by no trusted key");
	char pub[256];
	snprintf(pub, sizeof pub, "%s/host.pub", key_b);
	setenv("ISOTIER_TRUSTED_KEYS", pub, 1);
	ASSERT_GRANTED(r);
	/* A key file others could write is not trusted. */
	ck_assert_int_eq(chmod(pub, 0666), 0);
	ASSERT_REFUSED(r, "signed by no trusted key");
}
END_TEST

START_TEST(private_key_readable_by_others_is_refused)
{
	isotier_identity id;
	isotier_error err = {0};
	ck_assert_msg(isotier__identity_load(&id, true, &err) == 0, "%s", err.message);
	char *pem = isotier__identity_public_pem(&id);
	ck_assert_ptr_nonnull(strstr(pem, "BEGIN PUBLIC KEY"));
	ck_assert_ptr_null(strstr(pem, "PRIVATE"));
	free(pem);
	ck_assert_int_eq(strlen(id.key_id), 64);
	ck_assert_int_eq(strlen(id.host_id), 64);
	isotier__identity_clear(&id);
	char path[256];
	snprintf(path, sizeof path, "%s/host.key", key_a);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_lt(isotier__identity_load(&id, true, &err), 0);
	ck_assert_msg(strstr(err.message, "lets others read the private key"), "%s", err.message);
	isotier__identity_clear(&id);
}
END_TEST

/* DSSE protocol.md's example: PAE("http://example.com/HelloWorld",
 * "hello world"). */
START_TEST(pae_is_dsse)
{
	unsigned char *out = NULL;
	size_t len = 0;
	ck_assert_int_eq(
	    isotier__dsse_pae("http://example.com/HelloWorld", "hello world", 11, &out, &len), 0);
	const char *want = "DSSEv1 29 http://example.com/HelloWorld 11 hello world";
	ck_assert_uint_eq(len, strlen(want));
	ck_assert_int_eq(memcmp(out, want, len), 0);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gate_signed");
	TCase *tc = tcase_create("gate");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, honest_signed_row_grants);
	tcase_add_test(tc, forged_unsigned_row_does_not_grant);
	tcase_add_test(tc, copied_row_does_not_grant);
	tcase_add_test(tc, edited_row_does_not_grant);
	tcase_add_test(tc, edited_envelope_does_not_grant);
	tcase_add_test(tc, forged_row_does_not_clear_contradiction);
	tcase_add_test(tc, trusted_keys_speak_for_this_host);
	tcase_add_test(tc, private_key_readable_by_others_is_refused);
	tcase_add_test(tc, pae_is_dsse);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
