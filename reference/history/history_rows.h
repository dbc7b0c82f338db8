/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_rows.h - what is read from and written to the history, as typed
 * rows (included by history.h). Listings stream: a callback gets one row at
 * a time, its strings valid only during the call (copy what you keep), and
 * a non-zero return from it stops the listing and is returned. Strings are
 * NULL where the database holds NULL; everything read is hostile (a row may
 * hold anything): bound it, escape it.
 */
#ifndef ISOTIER_HISTORY_ROWS_H
#define ISOTIER_HISTORY_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- observations (history_obs.c) ---------------------------------------- */

/* One observation as `isotier verify` records it. */
typedef struct isotier_observation_record {
	int64_t run_id;
	const char *observed_at; /* NULL: now */
	const char *backend;
	const char *provider_id;       /* NULL: no claim */
	const char *claimed_tier;      /* NULL: no claim */
	const char *claimed_mechanism; /* NULL: no claim */
	const char *observed_tier;     /* never NULL ("UNKNOWN" when nothing was observed) */
	const char *observed_vendor;
	const char *confidence;
	const char *layers_json;
	const char *verdict;
	const char *reason;
	const char *probe_json; /* raw bytes as the probe printed them (bounded) */
	size_t probe_json_len;
	const void *evidence; /* stored once by its SHA-256 (evidence_blobs) */
	size_t evidence_len;
	const char *evidence_format; /* "tar" */
	int64_t duration_ms;
	const char *kernel_relation; /* "shared", "dedicated"...; NULL: not compared */
	const char *ceiling_tier;    /* NULL: the observation shows nothing trustworthy */
	const char *host_id;         /* isotier__host_id(); NULL or "": unknown (never counts) */
	const char *claim_digest;    /* isotier__claim_digest() of the claim judged; NULL: none */
	const char *uuid;            /* NULL: a fresh one */
	/* What the sandbox itself took (schema 8; history_schema.c says what
	 * each measures), apart from duration_ms, which under --jobs also
	 * measures the contention. Not has_*: not known, stored as NULL (a
	 * record zero-initialised by a caller that measures none stays NULL). */
	int64_t sandbox_wall_ms, sandbox_cpu_ms;
	bool has_sandbox_wall, has_sandbox_cpu;
	int jobs;    /* the run's --jobs; <= 0: not known (NULL) */
	int overlap; /* most verifications at once during this one, itself included; <= 0: NULL */
	/* Schema 11: the row as a DSSE envelope signed by the host that made
	 * it (statement.h); NULL: unsigned (it grants nothing). */
	const char *statement;
} isotier_observation_record;

/* Inserts o (the caller holds the transaction). *id_out may be NULL. */
int isotier__history_add_observation(isotier_history *h, const isotier_observation_record *o,
                                     int64_t *id_out, isotier_error *err);

/* What `isotier history` asks for; NULL / 0 fields do not filter. */
typedef struct isotier_observation_filter {
	const char *backend;
	const char *since, *until; /* observed_at >= since, < until */
	const char *verdict;
	const char *host; /* the run's host name or the observation's machine id */
	int64_t run_id;   /* 0: any */
	int64_t id;       /* 0: any */
	int limit;        /* <= 0: no limit */
} isotier_observation_filter;

/* A row as `isotier history` lists it. */
typedef struct isotier_observation_listing {
	int64_t id, run_id, duration_ms, evidence_bytes;
	const char *observed_at, *backend, *provider_id, *claimed_tier, *claimed_mechanism;
	const char *observed_tier, *observed_vendor, *confidence, *verdict, *reason;
	const char *run_status, *catalogue_commit, *tool_version, *host, *host_id, *uuid;
	/* As recorded (isotier_observation_record); -1 where NULL. */
	int64_t sandbox_wall_ms, sandbox_cpu_ms, jobs, overlap;
} isotier_observation_listing;

typedef int (*isotier_observation_cb)(void *ctx, const isotier_observation_listing *row);
/* Newest first: by id (the order they were recorded), never by observed_at,
 * which is only what the writer's clock said. */
int isotier__history_list_observations(isotier_history *h, const isotier_observation_filter *f,
                                       isotier_observation_cb cb, void *ctx, isotier_error *err);

/* The distinct backends observed (at most 64), for a name check. */
int isotier__history_list_backends(isotier_history *h, int (*cb)(void *ctx, const char *name),
                                   void *ctx, isotier_error *err);

/* One observation in full (`history show ID`). has_duration false: not
 * stored. layers_json and probe_json are cut at the bounds given. */
typedef struct isotier_observation_detail {
	isotier_observation_listing l;
	const char *kernel_relation, *ceiling_tier, *evidence_format, *run_command;
	const char *layers_json, *probe_json;
	bool has_duration, has_run_id, claim_recorded;
} isotier_observation_detail;
/* 1 and the row to cb, or 0 when there is no such observation. */
int isotier__history_get_observation(isotier_history *h, int64_t id, size_t layers_max,
                                     size_t probe_max,
                                     int (*cb)(void *ctx, const isotier_observation_detail *d),
                                     void *ctx, isotier_error *err);

/* ---- signed statements (history_statements.c) ----------------------------- */

/* An observation's row as its statement must say it (statement.h), and
 * the statement (schema 11; NULL: unsigned). own_run: recorded by this
 * history's own verify, not by import or migrate. */
typedef struct isotier_statement_listing {
	int64_t id;
	const char *uuid, *backend, *verdict, *observed_at, *ceiling_tier, *host_id, *claim_digest;
	const char *statement, *claimed_tier;
	bool own_run;
} isotier_statement_listing;
/* One observation's statement (NULL: none, or no such row) to cb. */
int isotier__history_statement_of(isotier_history *h, int64_t id,
                                  int (*cb)(void *ctx, const isotier_statement_listing *row),
                                  void *ctx, isotier_error *err);
/* Every observation in id order; host_id: only rows naming it (NULL: all). */
int isotier__history_scan_statements(isotier_history *h, const char *host_id,
                                     int (*cb)(void *ctx, const isotier_statement_listing *row),
                                     void *ctx, isotier_error *err);

/* ---- a fleet's roles (history_fleet_init.c) -------------------------------- */

/* PostgreSQL only, as the schema's owner: row-level security on the host
 * id (runners[i] inserts and updates only rows naming hosts[i], its
 * machine id), runners' and auditors' grants. Idempotent. */
int isotier__history_fleet_init(isotier_history *h, const char *const *runners,
                                const char *const *hosts, size_t n, const char *const *auditors,
                                size_t n_auditors, isotier_error *err);

/* ---- source checks -------------------------------------------------------- */

typedef struct isotier_source_filter {
	const char *provider, *since, *until;
	int limit; /* <= 0: no limit */
} isotier_source_filter;

typedef struct isotier_source_check_listing {
	int64_t id, run_id, http_status; /* http_status -1: none */
	const char *checked_at, *provider_id, *url, *quote, *status, *content_sha256, *detail;
} isotier_source_check_listing;
typedef int (*isotier_source_check_cb)(void *ctx, const isotier_source_check_listing *row);
/* Newest first (checked_at, id). */
int isotier__history_list_source_checks(isotier_history *h, const isotier_source_filter *f,
                                        isotier_source_check_cb cb, void *ctx, isotier_error *err);

/* ---- audit events (history_events.c) -------------------------------------- */

typedef struct isotier_audit_row {
	const char *at, *event, *sandbox_id, *backend, *claimed_tier, *resolved_tier,
	    *required_tier, *decision, *reason, *detail_json;
	int64_t id; /* listings only */
} isotier_audit_row;
int isotier__history_add_audit_event(isotier_history *h, const isotier_audit_row *row,
                                     isotier_error *err);

/* ---- the report's reads (history_report.c) -------------------------------- */

/* One read snapshot for every query between begin and end (a report sees
 * one state of the history while writers go on). */
int isotier__history_read_begin(isotier_history *h, isotier_error *err);
void isotier__history_read_end(isotier_history *h);

/* The newest timestamp stored anywhere that starts with a date, into buf
 * ("" when none). */
int isotier__history_newest_record(isotier_history *h, char *buf, size_t len, isotier_error *err);

typedef enum isotier_history_count_of {
	ISOTIER_COUNT_RUNS,       /* every run */
	ISOTIER_COUNT_RUNS_SINCE, /* started at or after since */
	ISOTIER_COUNT_OBSERVATIONS_SINCE,
	ISOTIER_COUNT_CHECKS_SINCE,
	ISOTIER_COUNT_REFUSALS_SINCE,
} isotier_history_count_of;
/* *n rows of what since (NULL: all time); observations made on host only
 * when host is not NULL (its name or machine id). */
int isotier__history_count(isotier_history *h, isotier_history_count_of what, const char *since,
                           const char *host, int64_t *n, isotier_error *err);

/* Observations at or after since in id order, for the report. durations:
 * every column; otherwise only those the report counts by (id, run_id,
 * observed_at, backend, provider_id, claimed_tier, observed_tier, verdict,
 * host_id, run_host), the others NULL or -1. */
typedef struct isotier_report_observation_row {
	int64_t id, run_id, duration_ms;
	const char *observed_at, *backend, *provider_id, *claimed_tier, *claimed_mechanism;
	const char *observed_tier, *observed_vendor, *confidence, *verdict, *reason;
	const char *kernel_relation, *probe_schema, *host_id;
	/* Schema 8's (isotier_observation_record), read with durations;
	 * -1: NULL, or not read. */
	int64_t sandbox_wall_ms, sandbox_cpu_ms, jobs, overlap;
	/* The observation's run (NULL: not stored). */
	const char *tool_version, *catalogue_commit, *run_host;
	/* layers_json, cut at 65537 bytes, of a CONFIRMED observation of a
	 * MICROVM claim only (where hardware attestation may be recorded);
	 * NULL for every other row. */
	const char *attest_layers;
	/* The same rows' signed statement (schema 11), cut at 262145 bytes:
	 * an attested mark stands only when it verifies and says attested. */
	const char *attest_statement;
	/* Read with durations (NULL / false otherwise): the evidence's
	 * SHA-256; recorded by history import or migrate; no signed statement
	 * (schema 11): nothing can verify the row. */
	const char *evidence_sha256;
	bool imported, unsigned_row;
} isotier_report_observation_row;
int isotier__history_scan_observations(
    isotier_history *h, const char *since, const char *host, bool durations,
    int (*cb)(void *ctx, const isotier_report_observation_row *row), void *ctx, isotier_error *err);
/* The observations ids[0..n) (ascending; a missing id is skipped), every
 * column read as with durations: the few a report shows in full. */
int isotier__history_observations_by_id(isotier_history *h, const int64_t *ids, size_t n,
                                        int (*cb)(void *ctx,
                                                  const isotier_report_observation_row *row),
                                        void *ctx, isotier_error *err);
/* For each of ids[0..n): cb(ctx, i, layers_json, probe_json), each cut at
 * its bound. */
int isotier__history_observation_documents(isotier_history *h, const int64_t *ids, size_t n,
                                           size_t layers_max, size_t probe_max,
                                           int (*cb)(void *ctx, size_t i, const char *layers,
                                                     const char *probe),
                                           void *ctx, isotier_error *err);

/* A source check as the report shows it: the listing's columns and how the
 * page moved against the kept baseline (schema 6: none, quote_gone,
 * passage_changed, page_changed, and the word diff around the quote; NULL:
 * no baseline, or an older row). */
typedef struct isotier_report_check_row {
	isotier_source_check_listing l;
	const char *change, *passage_diff;
} isotier_report_check_row;
typedef int (*isotier_report_check_cb)(void *ctx, const isotier_report_check_row *row);
/* Source checks at or after since, oldest first (checked_at, id). */
int isotier__history_scan_checks(isotier_history *h, const char *since, isotier_report_check_cb cb,
                                 void *ctx, isotier_error *err);
/* The newest (checked_at, id) check at or after since of provider_id's url
 * citing quote (NULL: any quote): 1 after cb had it, 0 when there is none
 * (or cb's nonzero return). */
int isotier__history_latest_check(isotier_history *h, const char *provider_id, const char *url,
                                  const char *quote, const char *since, isotier_report_check_cb cb,
                                  void *ctx, isotier_error *err);
/* Audit events that are refusals (create() said no), at or after since:
 * newest 0, every one oldest first (at, id); else the newest `newest`,
 * newest first. */
int isotier__history_scan_refusals(isotier_history *h, const char *since, int64_t newest,
                                   int (*cb)(void *ctx, const isotier_audit_row *row), void *ctx,
                                   isotier_error *err);
/* The reasons of the first 100 'run_interrupted' events at or after since. */
int isotier__history_scan_interrupted(isotier_history *h, const char *since,
                                      int (*cb)(void *ctx, const char *reason), void *ctx,
                                      isotier_error *err);

/* ---- export and import (history_transfer.c) ------------------------------ */

/* Writes the whole history to out as JSON Lines (isotier.history.export/1):
 * a header, every run, every evidence blob, every observation with its
 * stored documents verbatim; streamed, one row in memory at a time. */
int isotier__history_export(isotier_history *h, FILE *out, isotier_error *err);

typedef struct isotier_transfer_counts {
	size_t runs, observations, skipped; /* skipped: already present (by uuid) */
	size_t audit_events, audit_skipped; /* audit events added; already present (by uuid) */
} isotier_transfer_counts;
/* history_transfer_audit.c: every audit event as an "audit_event" record;
 * one such record (a cJSON object) into the history. */
int isotier__history_export_audit(isotier_history *h, FILE *out, isotier_error *err);
struct cJSON;
int isotier__history_import_audit(isotier_history *h, const struct cJSON *o, const char *file,
                                  size_t line, isotier_transfer_counts *n, isotier_error *err);
/* Adds what path holds (an SQLite history or an export) to h in one
 * transaction; rows already in h (same uuid) are skipped. */
int isotier__history_import(isotier_history *h, const char *path, isotier_transfer_counts *n,
                            isotier_error *err);
int isotier__history_import_jsonl(isotier_history *h, FILE *in, const char *name,
                                  isotier_transfer_counts *n, isotier_error *err);

/* ---- the history gate's reads (history_gate.c; resolve.c) ------------------ */

/* The latest row (by id) of backend's gate rows: made on host_id (NULL:
 * any host) or naming no host. own: whether this host's own isotier wrote
 * it (it names a host, and its run was not imported: history import and
 * migrate record their runs with the command HISTORY_IMPORTED_COMMAND).
 * Only own rows grant or clear; the others can only lower. */
typedef struct isotier_gate_row {
	int64_t id;
	const char *verdict, *observed_at, *reason, *ceiling_tier, *host_id, *claim_digest;
	/* own: this host's own isotier wrote it (by the runs table) and its
	 * signed statement verifies against a trusted key and says what the
	 * row says (statement.h); else unsigned says why ("" when the row is
	 * not this host's by the runs table either). */
	bool own;
	const char *unsigned_why;
} isotier_gate_row;
/* Which rows a read takes. */
typedef struct isotier_gate_query {
	const char *backend;
	const char *host_id;    /* this host's machine id; NULL: every host's */
	unsigned verdict_flags; /* only verdicts with one of these flags (0: any)... */
	unsigned verdict_not;   /* ...and none of these */
	bool with_ceiling;      /* only rows with a ceiling */
	/* Only rows whose ceiling is (ceiling_in) or is not (ceiling_out) one
	 * of the tiers that satisfy this one (ISOTIER_UNKNOWN: no filter). */
	isotier_tier ceiling_in, ceiling_out;
	bool own_only; /* only rows this host's own isotier wrote */
	int64_t after; /* only rows with a larger id */
	/* Whether a row this host's isotier wrote (by the runs table) counts
	 * as its own: its signed statement (schema 11, NULL: none) verified
	 * and compared with the row by the caller (resolve.c, statement.h),
	 * false and why otherwise. NULL: no row is own. own_only reads up to
	 * 64 of the newest such rows for the first that passes. */
	bool (*check)(const void *ctx, const struct isotier_gate_row *row, const char *uuid,
	              const char *statement, char *why, size_t why_len);
	const void *check_ctx;
} isotier_gate_query;
/* 1 and *row filled (strings valid until the next call with this buffer),
 * 0 when no row matches. */
typedef struct isotier_gate_buf {
	/* A digest is the claim's canonical text (claim_digest.c); one cut
	 * here no longer matches and so proves nothing: fail closed. */
	char verdict[64], observed_at[64], reason[4096], ceiling_tier[32], host_id[64],
	    claim_digest[16384];
	bool has_ceiling, has_host, has_digest;
	char uuid[64], unsigned_why[512];
	int skipped; /* own_only: newer rows of this host passed over, their statement not valid */
} isotier_gate_buf;
int isotier__history_gate_latest(isotier_history *h, const isotier_gate_query *q,
                                 isotier_gate_row *row, isotier_gate_buf *buf, isotier_error *err);
/* The latest gate row dated more than skew_s after now, or undated. */
int isotier__history_gate_future(isotier_history *h, const char *backend, const char *host_id,
                                 const char *now, int skew_s, isotier_gate_row *row,
                                 isotier_gate_buf *buf, isotier_error *err);

#endif
