/* SPDX-License-Identifier: Apache-2.0 */
/*
 * resolve.h - "the tier we can defend" for a backend (ADR-0006, ADR-0018).
 *
 * The catalogue claim counts only if its entry validates and its newest
 * provider-published source is within the max age (counted from the day this
 * host's `sources check` last found its passage unchanged, renewal.h, when
 * that is later than `retrieved`); then the history gate
 * (the host's history: db_path, else isotier__default_db_path()) reads this
 * host's rows of the backend in the order they were written (id, never
 * their timestamps):
 *   - the latest judgement (CONFIRMED, CONSISTENT, EXCEEDS or CONTRADICTED;
 *     an INCONCLUSIVE or UNAVAILABLE run judges nothing) must not be
 *     CONTRADICTED;
 *   - no row may be dated after now (beyond a few minutes of clock skew) or
 *     be undated: such a row cannot be ordered, and the gate fails closed;
 *   - the latest trustworthy observation's ceiling must reach the claim;
 *   - with require_verified_days, the latest observation of any verdict must
 *     be a proof (CONFIRMED or CONSISTENT, ceiling reaching the claim) made on
 *     this host, of the very claim the catalogue makes now (its
 *     isotier__claim_digest), that recent: a newer INCONCLUSIVE voids it.
 * "This host's rows": host_id equal to this machine's id; rows that name no
 * host (older than host ids) still deny, never grant; other hosts' rows are
 * not read unless any_host. Otherwise the resolved tier is UNKNOWN and
 * `reason` says why.
 */
#ifndef ISOTIER_RESOLVE_H
#define ISOTIER_RESOLVE_H

#include "../backends/backend.h"
#include "../core/paths.h"

#include <time.h>

typedef struct isotier_resolve_opts {
	const char *catalogue_dir; /* NULL: isotier__default_catalogue_dir() */
	const char *db_path;       /* NULL: isotier__default_db_path(). Absent (ENOENT) is
	                              an error (a wrong path) unless it is the built-in
	                              default or db_created: then no observations
	                              (require_verified_days fails) */
	int max_source_age_days;   /* 0: the runbook's default */
	int require_verified_days; /* 0: off */
	const char *today;         /* YYYY-MM-DD; NULL: the current UTC date */
	time_t now;                /* what "after now" means for row dates; 0: time(NULL) */
	const char *host_id;       /* this host's id; NULL: isotier__host_id() */
	bool any_host;             /* count every host's rows, not only this host's */
	bool db_created;           /* db_path is created when absent (create_db): absent
	                              is an empty history, not a wrong path */
} isotier_resolve_opts;

typedef struct isotier_resolution {
	char provider_id[64]; /* catalogue entry; "" when the backend has none */
	isotier_tier claimed; /* the catalogue's claim (UNKNOWN when none) */
	char mechanism[64];
	char source_retrieved[16];
	char source_verified[16]; /* "" or the day a sources check last re-verified it */
	char status[64];       /* "" (current) or "deprecated since DATE"; retired never resolves */
	isotier_tier resolved; /* the tier we can defend */
	char reason[1024];     /* why resolved < claimed, or what vouches for it */
	char latest_verdict[32]; /* of the newest judged observation; "" when none */
	char latest_at[32];
} isotier_resolution;

/* Resolves backend `name`. Returns 0 (even when the result is UNKNOWN), or
 * <0 when the backend does not exist or an input cannot be read at all. */
int isotier__resolve(isotier_resolution *out, const isotier_backend *backend,
                     const isotier_resolve_opts *opts, isotier_error *err);

#endif
