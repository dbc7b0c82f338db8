/* observations.c - verify's rows in the shared SQLite history. */
#include "observations.h"

#include <string.h>

static void bind_text_or_null(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

static int insert_row(isotier_history *h, const observation *o, int64_t *id_out, isotier_error *err)
{
	sqlite3 *db = isotier_history_db(h);
	char now[32];
	isotier_utc_now(now, sizeof now);
	cleanup_stmt sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(
	        db,
	        "INSERT INTO observations(run_id, observed_at, backend, provider_id,"
	        " claimed_tier, claimed_mechanism, observed_tier, observed_vendor, confidence,"
	        " layers_json, verdict, reason, probe_json, evidence, evidence_format,"
	        " duration_ms, kernel_relation, ceiling_tier, host_id, claim_digest)"
	        " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)",
	        -1, &s, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "record observation");
	sqlite3_bind_int64(s, 1, o->run_id);
	sqlite3_bind_text(s, 2, o->observed_at ? o->observed_at : now, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 3, o->backend, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 4, o->provider_id);
	bind_text_or_null(s, 5, o->claimed_tier);
	bind_text_or_null(s, 6, o->claimed_mechanism);
	sqlite3_bind_text(s, 7, o->observed_tier ? o->observed_tier : "UNKNOWN", -1,
	                  SQLITE_TRANSIENT);
	bind_text_or_null(s, 8, o->observed_vendor);
	bind_text_or_null(s, 9, o->confidence);
	bind_text_or_null(s, 10, o->layers_json);
	sqlite3_bind_text(s, 11, o->verdict, -1, SQLITE_TRANSIENT);
	bind_text_or_null(s, 12, o->reason);
	if (o->probe_json)
		sqlite3_bind_text(s, 13, o->probe_json, (int)o->probe_json_len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 13);
	if (o->evidence && o->evidence_len)
		sqlite3_bind_blob(s, 14, o->evidence, (int)o->evidence_len, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, 14);
	bind_text_or_null(s, 15, o->evidence && o->evidence_len ? o->evidence_format : NULL);
	sqlite3_bind_int64(s, 16, o->duration_ms);
	bind_text_or_null(s, 17, o->kernel_relation);
	bind_text_or_null(s, 18, o->ceiling_tier);
	bind_text_or_null(s, 19, o->host_id && *o->host_id ? o->host_id : NULL);
	bind_text_or_null(s, 20, o->claim_digest);
	if (sqlite3_step(s) != SQLITE_DONE)
		return isotier_history_sql_error(h, err, "record observation");
	if (id_out)
		*id_out = sqlite3_last_insert_rowid(db);
	return 0;
}

int observations_insert(isotier_history *h, const observation *o, int64_t *id_out,
                        isotier_error *err)
{
	int rc = isotier_history_begin(h, err);
	if (rc < 0)
		return isotier_error_prefix(err, "record observation of %s", o->backend);
	if ((rc = insert_row(h, o, id_out, err)) < 0 || (rc = isotier_history_commit(h, err)) < 0) {
		isotier_history_rollback(h);
		return isotier_error_prefix(err, "record observation of %s", o->backend);
	}
	return 0;
}

static char *column_dup(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? strdup((const char *)t) : NULL;
}

void observation_rows_free(observation_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		observation_row *r = &rows[i];
		free(r->observed_at);
		free(r->backend);
		free(r->provider_id);
		free(r->claimed_tier);
		free(r->claimed_mechanism);
		free(r->observed_tier);
		free(r->observed_vendor);
		free(r->confidence);
		free(r->verdict);
		free(r->reason);
		free(r->run_status);
		free(r->catalogue_commit);
		free(r->tool_version);
		free(r->host);
	}
	free(rows);
}

int observations_list(isotier_history *h, const observation_filter *f,
                      observation_row **rows_out, size_t *n_out, isotier_error *err)
{
	sqlite3 *db = isotier_history_db(h);
	cleanup_stmt sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(
	        db,
	        "SELECT o.id, o.run_id, o.observed_at, o.backend, o.provider_id, o.claimed_tier,"
	        " o.claimed_mechanism, o.observed_tier, o.observed_vendor, o.confidence, o.verdict,"
	        " o.reason, r.status, r.catalogue_commit, r.tool_version, o.duration_ms,"
	        " length(o.evidence), r.host"
	        " FROM observations o JOIN runs r ON r.id = o.run_id"
	        " WHERE (?1 IS NULL OR o.backend = ?1) AND (?3 IS NULL OR o.observed_at >= ?3)"
	        " AND (?4 IS NULL OR o.observed_at < ?4) AND (?5 IS NULL OR o.verdict = ?5)"
	        " AND (?6 = 0 OR o.run_id = ?6) AND (?7 = 0 OR o.id = ?7)"
	        " ORDER BY o.id DESC LIMIT ?2",
	        -1, &s, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "list observations");
	bind_text_or_null(s, 1, f->backend);
	sqlite3_bind_int64(s, 2, f->limit > 0 ? f->limit : -1);
	bind_text_or_null(s, 3, f->since);
	bind_text_or_null(s, 4, f->until);
	bind_text_or_null(s, 5, f->verdict);
	sqlite3_bind_int64(s, 6, f->run_id);
	sqlite3_bind_int64(s, 7, f->id);
	observation_row *rows = NULL;
	size_t n = 0, cap = 0;
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			observation_row *nr = realloc(rows, ncap * sizeof *rows);
			if (!nr) {
				observation_rows_free(rows, n);
				return isotier_error_set(err, ISOTIER_ENOMEM, 0,
				                         "list observations: out of memory");
			}
			rows = nr;
			cap = ncap;
		}
		observation_row *r = &rows[n++];
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(s, 0);
		r->run_id = sqlite3_column_int64(s, 1);
		r->observed_at = column_dup(s, 2);
		r->backend = column_dup(s, 3);
		r->provider_id = column_dup(s, 4);
		r->claimed_tier = column_dup(s, 5);
		r->claimed_mechanism = column_dup(s, 6);
		r->observed_tier = column_dup(s, 7);
		r->observed_vendor = column_dup(s, 8);
		r->confidence = column_dup(s, 9);
		r->verdict = column_dup(s, 10);
		r->reason = column_dup(s, 11);
		r->run_status = column_dup(s, 12);
		r->catalogue_commit = column_dup(s, 13);
		r->tool_version = column_dup(s, 14);
		r->duration_ms = sqlite3_column_int64(s, 15);
		r->evidence_bytes =
		    sqlite3_column_type(s, 16) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 16);
		r->host = column_dup(s, 17);
	}
	if (step != SQLITE_DONE) {
		observation_rows_free(rows, n);
		return isotier_history_sql_error(h, err, "list observations");
	}
	*rows_out = rows;
	*n_out = n;
	return 0;
}
