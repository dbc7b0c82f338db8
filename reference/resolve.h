/*
 * resolve.h - "the tier we can defend" for a backend (ADR-0006, ADR-0018).
 *
 * The catalogue claim counts only if its entry validates and its newest
 * provider-published source is within the max age, and the latest stored
 * judgement of the backend (CONFIRMED, CONSISTENT, EXCEEDS or CONTRADICTED;
 * an INCONCLUSIVE or UNAVAILABLE run judges nothing) is not CONTRADICTED; with require_verified_days,
 * a CONFIRMED or CONSISTENT observation that recent is also demanded.
 * Otherwise the resolved tier is UNKNOWN and `reason` says why.
 */
#ifndef ISOTIER_RESOLVE_H
#define ISOTIER_RESOLVE_H

#include "backend.h"
#include "paths.h"

typedef struct isotier_resolve_opts {
	const char *catalogue_dir; /* NULL: isotier_default_catalogue_dir() */
	const char *db_path;       /* NULL or absent file: no observations */
	int max_source_age_days;   /* 0: the runbook's default */
	int require_verified_days; /* 0: off */
	const char *today;         /* YYYY-MM-DD; NULL: the current UTC date */
} isotier_resolve_opts;

typedef struct isotier_resolution {
	char provider_id[64];   /* catalogue entry; "" when the backend has none */
	isotier_tier claimed;   /* the catalogue's claim (UNKNOWN when none) */
	char mechanism[64];
	char source_retrieved[16];
	char status[64];        /* "" (current) or "deprecated since DATE"; retired never resolves */
	isotier_tier resolved;  /* the tier we can defend */
	char reason[1024];      /* why resolved < claimed, or what vouches for it */
	char latest_verdict[32];/* of the newest judged observation; "" when none */
	char latest_at[32];
} isotier_resolution;

/* Resolves backend `name`. Returns 0 (even when the result is UNKNOWN), or
 * <0 when the backend does not exist or an input cannot be read at all. */
int isotier_resolve(isotier_resolution *out, const isotier_backend *backend,
		    const isotier_resolve_opts *opts, isotier_error *err);

#endif
