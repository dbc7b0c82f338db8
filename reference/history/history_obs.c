/* SPDX-License-Identifier: Apache-2.0 */
/* history_obs.c - observations and source checks in the history: the rows
 * verify writes, the listings `isotier history` prints (history_rows.h). */
#include "history_driver.h"
#include "../core/paths.h"

#include <cJSON.h>
#include <string.h>

/* The probe's schema (a string at most 64 bytes) from its output, or NULL:
 * stored beside the output so no reader has to parse every document. */
static char *probe_schema_of(const char *probe_json, size_t len)
{
	if (!probe_json || !len)
		return NULL;
	isotier_error ignored = {0};
	cJSON *doc = isotier__json_parse(probe_json, len, "probe", &ignored);
	const cJSON *s = doc ? cJSON_GetObjectItemCaseSensitive(doc, "schema") : NULL;
	char *out = cJSON_IsString(s) && s->valuestring ? strndup(s->valuestring, 64) : NULL;
	cJSON_Delete(doc);
	return out;
}

/* The evidence once, by content: a second run with the same bytes adds none. */
static int store_evidence(isotier_history *h, const isotier_observation_record *o, char sha[65],
                          isotier_error *err)
{
	if (isotier__sha256_hex(o->evidence, o->evidence_len, sha) < 0)
		return isotier__error_set(err, ISOTIER_EIO, 0, "record observation: hash evidence");
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO evidence_blobs(sha256, format, content) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (sha256) DO NOTHING",
	    err, "record evidence");
	if (rc < 0)
		return rc;
	hq_text(s, 1, sha);
	hq_text(s, 2, o->evidence_format);
	hq_blob(s, 3, o->evidence, o->evidence_len);
	return hq_step(s, err) < 0 ? isotier__error_prefix(err, "record evidence") : 0;
}

int isotier__history_add_observation(isotier_history *h, const isotier_observation_record *o,
                                     int64_t *id_out, isotier_error *err)
{
	char now[32], uuid[ISOTIER_UUID_LEN + 1], sha[65] = "";
	isotier__utc_now(now, sizeof now);
	if (!o->uuid && isotier__history_uuid(uuid) < 0)
		return isotier__error_set(err, ISOTIER_EIO, 0,
		                          "record observation: no random bytes for its id");
	bool has_evidence = o->evidence && o->evidence_len;
	int rc;
	if (has_evidence && (rc = store_evidence(h, o, sha, err)) < 0)
		return rc;
	cleanup_hstmt hstmt *s = NULL;
	rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO observations(run_id, observed_at, backend, provider_id,"
	    " claimed_tier, claimed_mechanism, observed_tier, observed_vendor, confidence,"
	    " layers_json, verdict, reason, probe_json, evidence_sha256, evidence_format,"
	    " duration_ms, kernel_relation, ceiling_tier, host_id, claim_digest, uuid, "
	    "probe_schema,"
	    " sandbox_wall_ms, sandbox_cpu_ms, jobs, overlap, statement)"
	    " VALUES "
	    "(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,"
	    "?23,?24,?25,?26,?27)"
	    " RETURNING id",
	    err, "record observation");
	if (rc < 0)
		return rc;
	char *probe = o->probe_json ? strndup(o->probe_json, o->probe_json_len) : NULL;
	char *schema = probe_schema_of(o->probe_json, o->probe_json_len);
	hq_int(s, 1, o->run_id);
	hq_text(s, 2, o->observed_at ? o->observed_at : now);
	hq_text(s, 3, o->backend);
	hq_text(s, 4, o->provider_id);
	hq_text(s, 5, o->claimed_tier);
	hq_text(s, 6, o->claimed_mechanism);
	hq_text(s, 7, o->observed_tier ? o->observed_tier : "UNKNOWN");
	hq_text(s, 8, o->observed_vendor);
	hq_text(s, 9, o->confidence);
	hq_text(s, 10, o->layers_json);
	hq_text(s, 11, o->verdict);
	hq_text(s, 12, o->reason);
	hq_text(s, 13, probe);
	hq_text(s, 14, has_evidence ? sha : NULL);
	hq_text(s, 15, has_evidence ? o->evidence_format : NULL);
	hq_int(s, 16, o->duration_ms);
	hq_text(s, 17, o->kernel_relation);
	hq_text(s, 18, o->ceiling_tier);
	hq_text(s, 19, o->host_id && *o->host_id ? o->host_id : NULL);
	hq_text(s, 20, o->claim_digest);
	hq_text(s, 21, o->uuid ? o->uuid : uuid);
	hq_text(s, 22, schema);
	/* Unknown is NULL, never a guess (a 0 would read as "took no time"). */
	if (o->has_sandbox_wall)
		hq_int(s, 23, o->sandbox_wall_ms);
	if (o->has_sandbox_cpu)
		hq_int(s, 24, o->sandbox_cpu_ms);
	if (o->jobs > 0)
		hq_int(s, 25, o->jobs);
	if (o->overlap > 0)
		hq_int(s, 26, o->overlap);
	hq_text(s, 27, o->statement);
	free(probe);
	free(schema);
	if ((rc = hq_step(s, err)) < 0)
		return isotier__error_prefix(err, "record observation");
	if (rc > 0 && id_out)
		*id_out = hq_col_int(s, 0);
	while ((rc = hq_step(s, err)) > 0)
		;
	return rc < 0 ? isotier__error_prefix(err, "record observation") : 0;
}

/* Evidence bytes: stored in the row (before schema 7) or once by hash. */
#define EVIDENCE_BYTES                                                                             \
	"COALESCE(length(o.evidence), (SELECT length(e.content) FROM evidence_blobs e"             \
	" WHERE e.sha256 = o.evidence_sha256))"

#define LISTING_COLUMNS                                                                            \
	"o.id, o.run_id, o.observed_at, o.backend, o.provider_id, o.claimed_tier,"                 \
	" o.claimed_mechanism, o.observed_tier, o.observed_vendor, o.confidence, o.verdict,"       \
	" o.reason, r.status, r.catalogue_commit, r.tool_version, o.duration_ms, " EVIDENCE_BYTES  \
	", r.host, o.host_id, o.uuid, o.sandbox_wall_ms, o.sandbox_cpu_ms, o.jobs, o.overlap"

static void read_listing(hstmt *s, isotier_observation_listing *r)
{
	memset(r, 0, sizeof *r);
	r->id = hq_col_int(s, 0);
	r->run_id = hq_col_int(s, 1);
	r->observed_at = hq_col(s, 2);
	r->backend = hq_col(s, 3);
	r->provider_id = hq_col(s, 4);
	r->claimed_tier = hq_col(s, 5);
	r->claimed_mechanism = hq_col(s, 6);
	r->observed_tier = hq_col(s, 7);
	r->observed_vendor = hq_col(s, 8);
	r->confidence = hq_col(s, 9);
	r->verdict = hq_col(s, 10);
	r->reason = hq_col(s, 11);
	r->run_status = hq_col(s, 12);
	r->catalogue_commit = hq_col(s, 13);
	r->tool_version = hq_col(s, 14);
	r->duration_ms = hq_col_int(s, 15);
	r->evidence_bytes = hq_null(s, 16) ? 0 : hq_col_int(s, 16);
	r->host = hq_col(s, 17);
	r->host_id = hq_col(s, 18);
	r->uuid = hq_col(s, 19);
	r->sandbox_wall_ms = hq_null(s, 20) ? -1 : hq_col_int(s, 20);
	r->sandbox_cpu_ms = hq_null(s, 21) ? -1 : hq_col_int(s, 21);
	r->jobs = hq_null(s, 22) ? -1 : hq_col_int(s, 22);
	r->overlap = hq_null(s, 23) ? -1 : hq_col_int(s, 23);
}

int isotier__history_list_observations(isotier_history *h, const isotier_observation_filter *f,
                                       isotier_observation_cb cb, void *ctx, isotier_error *err)
{
	/* Only the filters given, each a plain comparison: the planner then
	 * walks an index ((backend, id), (verdict, id), (observed_at, id),
	 * (host_id, id) or the key) instead of the whole table, which
	 * "(?1 IS NULL OR backend = ?1)" would make it do (issue #24). */
	char sql[1024];
	snprintf(sql, sizeof sql,
	         "SELECT " LISTING_COLUMNS " FROM observations o JOIN runs r ON r.id = o.run_id"
	         " WHERE 1 = 1%s%s%s%s%s%s%s ORDER BY o.id DESC LIMIT ?2",
	         f->backend ? " AND o.backend = ?1" : "",
	         f->since ? " AND o.observed_at >= ?3" : "",
	         f->until ? " AND o.observed_at < ?4" : "", f->verdict ? " AND o.verdict = ?5" : "",
	         f->run_id ? " AND o.run_id = ?6" : "", f->id ? " AND o.id = ?7" : "",
	         f->host ? " AND (r.host = ?8 OR r.host_id = ?8 OR o.host_id = ?8)" : "");
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, sql, err, "list observations");
	if (rc < 0)
		return rc;
	hq_text(s, 1, f->backend);
	hq_int(s, 2, f->limit > 0 ? f->limit : INT64_MAX);
	hq_text(s, 3, f->since);
	hq_text(s, 4, f->until);
	hq_text(s, 5, f->verdict);
	hq_int(s, 6, f->run_id);
	hq_int(s, 7, f->id);
	hq_text(s, 8, f->host);
	isotier_observation_listing row;
	while ((rc = hq_step(s, err)) > 0) {
		read_listing(s, &row);
		if ((rc = cb(ctx, &row)) != 0)
			return rc;
	}
	return rc < 0 ? isotier__error_prefix(err, "list observations") : 0;
}

int isotier__history_list_backends(isotier_history *h, int (*cb)(void *ctx, const char *name),
                                   void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s, "SELECT DISTINCT backend FROM observations ORDER BY backend LIMIT 64", err,
	    "list backends");
	if (rc < 0)
		return rc;
	while ((rc = hq_step(s, err)) > 0)
		if (hq_col(s, 0) && (rc = cb(ctx, hq_col(s, 0))) != 0)
			return rc;
	return rc;
}

int isotier__history_get_observation(isotier_history *h, int64_t id, size_t layers_max,
                                     size_t probe_max,
                                     int (*cb)(void *ctx, const isotier_observation_detail *d),
                                     void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "SELECT " LISTING_COLUMNS ", o.kernel_relation, o.ceiling_tier, o.evidence_format,"
	    " r.command, substr(o.layers_json, 1, CAST(?2 AS INTEGER)),"
	    " substr(o.probe_json, 1, CAST(?3 AS INTEGER)),"
	    " CASE WHEN o.claim_digest IS NOT NULL THEN 1 ELSE 0 END, r.id"
	    " FROM observations o LEFT JOIN runs r ON r.id = o.run_id WHERE o.id = ?1",
	    err, "history show");
	if (rc < 0)
		return rc;
	hq_int(s, 1, id);
	hq_int(s, 2, (int64_t)layers_max);
	hq_int(s, 3, (int64_t)probe_max);
	if ((rc = hq_step(s, err)) <= 0)
		return rc;
	isotier_observation_detail d = {0};
	read_listing(s, &d.l);
	d.kernel_relation = hq_col(s, 24);
	d.ceiling_tier = hq_col(s, 25);
	d.evidence_format = hq_col(s, 26);
	d.run_command = hq_col(s, 27);
	d.layers_json = hq_col(s, 28);
	d.probe_json = hq_col(s, 29);
	d.claim_recorded = hq_col_int(s, 30) != 0;
	d.has_run_id = !hq_null(s, 1);
	d.has_duration = !hq_null(s, 15);
	if ((rc = cb(ctx, &d)) != 0)
		return rc;
	return 1;
}

static void read_check(hstmt *s, isotier_source_check_listing *c)
{
	c->id = hq_col_int(s, 0);
	c->run_id = hq_col_int(s, 1);
	c->checked_at = hq_col(s, 2);
	c->provider_id = hq_col(s, 3);
	c->url = hq_col(s, 4);
	c->quote = hq_col(s, 5);
	c->status = hq_col(s, 6);
	c->http_status = hq_null(s, 7) ? -1 : hq_col_int(s, 7);
	c->content_sha256 = hq_col(s, 8);
	c->detail = hq_col(s, 9);
}

#define CHECK_COLUMNS                                                                              \
	"id, run_id, checked_at, provider_id, url, quote, status, http_status, content_sha256, "   \
	"detail"

int isotier__history_list_source_checks(isotier_history *h, const isotier_source_filter *f,
                                        isotier_source_check_cb cb, void *ctx, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "SELECT " CHECK_COLUMNS " FROM source_checks"
	    " WHERE (?1 IS NULL OR provider_id = ?1) AND (?2 IS NULL OR checked_at >= ?2)"
	    " AND (?3 IS NULL OR checked_at < ?3) ORDER BY checked_at DESC, id DESC LIMIT ?4",
	    err, "history --sources");
	if (rc < 0)
		return rc;
	hq_text(s, 1, f->provider);
	hq_text(s, 2, f->since);
	hq_text(s, 3, f->until);
	hq_int(s, 4, f->limit > 0 ? f->limit : INT64_MAX);
	isotier_source_check_listing c;
	while ((rc = hq_step(s, err)) > 0) {
		read_check(s, &c);
		if ((rc = cb(ctx, &c)) != 0)
			return rc;
	}
	return rc;
}
