/*
 * observations.h - `isotier verify` observations in the shared history
 * (table observations, reference/history.c owns the schema): one transaction
 * per observation, every parameter bound; and the listing `isotier history`
 * prints.
 */
#ifndef ISOTIER_OBSERVATIONS_H
#define ISOTIER_OBSERVATIONS_H

#include "../reference/isotier_tool.h"

#include <stdint.h>

typedef struct observation {
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
	const void *evidence;
	size_t evidence_len;
	const char *evidence_format; /* "tar" */
	int64_t duration_ms;
	const char *kernel_relation; /* "shared", "dedicated"...; NULL: not compared */
	const char *ceiling_tier;    /* NULL: the observation shows nothing trustworthy */
	const char *host_id;         /* isotier_host_id(); NULL or "": unknown (never counts) */
	const char *claim_digest;    /* isotier_claim_digest() of the claim judged; NULL: none */
} observation;

/* Inserts o in its own transaction (BEGIN IMMEDIATE ... COMMIT); on failure
 * nothing is written. *id_out (may be NULL) gets the new row id. */
int observations_insert(isotier_history *h, const observation *o, int64_t *id_out,
                        isotier_error *err);

/* A row as `isotier history` shows it; strings owned. */
typedef struct observation_row {
	int64_t id, run_id;
	char *observed_at, *backend, *provider_id, *claimed_tier, *claimed_mechanism;
	char *observed_tier, *observed_vendor, *confidence, *verdict, *reason, *run_status,
	    *catalogue_commit, *tool_version, *host;
	int64_t duration_ms;
	int64_t evidence_bytes;
} observation_row;

/* What `isotier history` asks for; NULL / 0 fields do not filter. */
typedef struct observation_filter {
	const char *backend;
	const char *since, *until; /* observed_at >= since, < until (YYYY-MM-DD[...]) */
	const char *verdict;
	int64_t run_id; /* 0: any */
	int64_t id;     /* 0: any */
	int limit;      /* <= 0: no limit */
} observation_filter;

/* Newest first: by id (the order they were recorded), never by observed_at,
 * which is only what the writer's clock said. */
int observations_list(isotier_history *h, const observation_filter *f, observation_row **rows,
                      size_t *n, isotier_error *err);
void observation_rows_free(observation_row *rows, size_t n);

#endif
