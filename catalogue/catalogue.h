/* SPDX-License-Identifier: Apache-2.0 */
/*
 * catalogue.h - the provider catalogue: load, validate, look up (internal to
 * libisotier and the CLI). Format: catalogue/FORMAT.md and
 * catalogue/provider.schema.json.
 */
#ifndef ISOTIER_CATALOGUE_H
#define ISOTIER_CATALOGUE_H

#include "../base/base.h"

/* Re-verification cadence of the runbook: a provider source older than this
 * many days no longer defends a tier. */
#define ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS 90
/* How many days before a source stops defending its tier the validator warns
 * (runbook/cadence.md): a host without network sees the expiry coming. */
#define ISOTIER_EXPIRY_WARNING_DAYS 30

typedef struct isotier_source {
	char *url;
	char *quote;     /* verbatim text from the page */
	char *publisher; /* "provider" | "third-party" */
	char *retrieved; /* YYYY-MM-DD */
	char *title;     /* optional */
	char *published; /* optional YYYY-MM-DD: the date the page itself shows */
	/* YYYY-MM-DD or NULL: the newest day a `sources check` of this host found
	 * the quoted passage unchanged against its baseline, with no CHANGED,
	 * GONE or moved passage since `retrieved`. Never read from a file: only
	 * isotier__catalogue_renew() sets it, from the history. */
	char *verified;
} isotier_source;

typedef struct isotier_prior_claim {
	isotier_tier tier;
	char *mechanism;
	char *until; /* YYYY-MM-DD: the claim stopped holding */
	char *note;
} isotier_prior_claim;

/* The provider's own words for an offering's status (deprecated, retired). */
typedef struct isotier_status_source {
	char *date;  /* YYYY-MM-DD: when the status took (or takes) effect */
	char *url;   /* the provider's page that says so */
	char *quote; /* verbatim */
} isotier_status_source;

#define ISOTIER_RENAMED_FROM_MAX 16

/*
 * One offering: what a user selects (a class, generation, runtime or product
 * mode), grouped by `provider`. The struct keeps its historical name.
 */
typedef struct isotier_provider {
	char *file; /* path it was loaded from (or a "rev:path" label) */
	char *id;
	char *provider; /* optional: the provider this offering belongs to (an id) */
	char *name;
	char *offering; /* optional */
	char *kind;     /* "remote" | "local" */
	isotier_tier tier;
	/* optional: between whom the tier's boundary holds (ISOTIER_SCOPES);
	 * NULL: the sources do not say */
	char *scope;
	/* optional: the hardware attestation its sandboxes can give (ADR-0020):
	 * "sev-snp" or "tdx"; NULL: none documented */
	char *attestation;
	char *mechanism;
	char *since;   /* YYYY-MM-DD */
	char *backend; /* read and ignored: a backend's descriptor names its entry (catalogue_id) */
	char *notes;
	char *status; /* optional: "current" (the default), "deprecated", "retired" */
	isotier_status_source status_source; /* required unless current */
	bool has_status_source;
	char **renamed_from; /* earlier ids of this offering, newest first */
	size_t n_renamed_from;
	isotier_source *sources;
	size_t n_sources;
	isotier_prior_claim *history;
	size_t n_history;
} isotier_provider;

typedef struct isotier_catalogue {
	char *dir;
	isotier_provider *providers; /* sorted by id */
	size_t n_providers;
} isotier_catalogue;

typedef enum { ISOTIER_FINDING_WARNING = 0, ISOTIER_FINDING_ERROR = 1 } isotier_finding_severity;

typedef struct isotier_finding {
	isotier_finding_severity severity;
	char *file;
	char *field; /* JSON path like "sources[0].retrieved"; "" for the whole file */
	char *message;
} isotier_finding;

typedef struct isotier_findings {
	isotier_finding *items;
	size_t n, cap;
	size_t n_errors, n_warnings;
} isotier_findings;

void isotier__findings_add(isotier_findings *f, isotier_finding_severity sev, const char *file,
                           const char *field, const char *fmt, ...) ISOTIER_PRINTF(5, 6);
void isotier__findings_free(isotier_findings *f);

/*
 * Parses one provider document (hostile input: size-capped, every field
 * type-checked). Problems go to findings with file and field; returns 0 when
 * the document yielded an entry, ISOTIER_EDATA when it did not.
 */
int isotier__provider_parse(isotier_provider *out, const char *json, size_t len, const char *file,
                            isotier_findings *findings);
void isotier__provider_clear(isotier_provider *p);

/*
 * Loads every *.json under dir. Per-file problems become findings (the file is
 * skipped); returns <0 only when dir itself cannot be read.
 */
int isotier__catalogue_load(isotier_catalogue **out, const char *dir, isotier_findings *findings,
                            isotier_error *err);

/*
 * For the validator only (`isotier catalogue check`): like _load, but a file
 * with per-field problems still yields its partial entry (fields that failed
 * are NULL) so every rule can be reported in one run. A file that is not JSON
 * at all is still skipped. Never use the result to decide a tier.
 */
int isotier__catalogue_load_partial(isotier_catalogue **out, const char *dir,
                                    isotier_findings *findings, isotier_error *err);

/*
 * The validator's rules over a loaded catalogue: provider source required for
 * a non-UNKNOWN tier, dates well-formed and not after today (YYYY-MM-DD),
 * sources within max_age_days (0: the default cadence), ids unique, vocabulary,
 * mechanism consistent with tier. Third-party-only evidence is a warning.
 */
void isotier__catalogue_validate(const isotier_catalogue *c, const char *today, int max_age_days,
                                 isotier_findings *findings);

/*
 * Lays the entries of overlay_dir (an operator's directory: NULL, "" or an
 * absent directory is none) over c: one there replaces c's entry of the same
 * id, or is added. Its files are hostile input like the packaged ones (the
 * same loader; partial as isotier__catalogue_load_partial). Returns <0 only
 * when the directory exists but cannot be read.
 */
int isotier__catalogue_overlay(isotier_catalogue *c, const char *overlay_dir, bool partial,
                               isotier_findings *findings, isotier_error *err);

const isotier_provider *isotier__catalogue_find(const isotier_catalogue *c, const char *id);
/* The entry whose renamed_from lists old_id (an id that no longer exists). */
const isotier_provider *isotier__catalogue_find_renamed(const isotier_catalogue *c,
                                                        const char *old_id);
/*
 * The id an offering has now: id itself when dir holds <id>.json, else the id
 * of the entry whose renamed_from lists it (loading the whole catalogue only
 * then), else id unchanged. Writes into out (>= 65 bytes) and returns out.
 */
const char *isotier__catalogue_current_id(char *out, size_t len, const char *dir, const char *id);

/* The scope vocabulary (FORMAT.md): between whom an offering's boundary holds.
 * "per-sandbox": every sandbox the user creates; "between-tenants": between
 * the provider's tenants (organisations, projects), not between one tenant's
 * sandboxes; "between-accounts": between customer accounts only. */
#define ISOTIER_SCOPES "per-sandbox", "between-tenants", "between-accounts"
/* Whether s is a word of the scope vocabulary. */
bool isotier__scope_valid(const char *s);

/* "current" for NULL; the status otherwise. */
const char *isotier__provider_status(const isotier_provider *p);
/* The provider an offering is grouped under: `provider`, else its own id. */
const char *isotier__provider_group(const isotier_provider *p);

/* The date a source's age counts from: `verified` when a sources check
 * re-verified it after `retrieved`, else `retrieved` (may be NULL). */
const char *isotier__source_as_of(const isotier_source *s);
/* The day (YYYY-MM-DD into buf, >= 11 bytes) a source stops defending a tier:
 * its as-of date plus max_age_days; -1 when the date is unreadable. */
int isotier__source_expires(const isotier_source *s, int max_age_days, char *buf, size_t len);

/* The newest (by isotier__source_as_of) provider-published source with a
 * non-empty quote, or NULL. */
const isotier_source *isotier__provider_best_source(const isotier_provider *p);

/*
 * The claim an observation judges, as one canonical string: what the history
 * stores beside the verdict (observations.claim_digest) and what resolve
 * compares with the catalogue's claim now, so a proof stops counting once the
 * claim it judged changed (claim_digest.c says why it is the text itself, not
 * a hash). Malloc'd; NULL when p is NULL or memory runs out.
 */
char *isotier__claim_digest(const isotier_provider *p);

/* Tier a mechanism can support: the tier it implies, or ISOTIER_UNKNOWN for
 * mechanisms outside the four tiers (webassembly, unknown...). Returns
 * ISOTIER_EINVAL for a name not in the vocabulary. */
int isotier__mechanism_tier(isotier_tier *out, const char *mechanism);

void isotier__catalogue_free(isotier_catalogue *c);

/* Days since 1970-01-01 of a strict "YYYY-MM-DD" calendar date (1970 or later).
 * Returns 0 or ISOTIER_EINVAL (malformed, or no such day: 2025-02-29). */
int isotier__date_days(long *out, const char *date);
/* The same for the date part (first 10 bytes) of a date or a stored
 * "YYYY-MM-DDTHH:MM:SSZ" timestamp. */
int isotier__date_part_days(long *out, const char *date_or_timestamp);
/* The civil date of a count of days since 1970-01-01 (the inverse of the two
 * above; H. Hinnant's algorithm). */
void isotier__civil_from_days(long days, long *y, unsigned *m, unsigned *d);
/* Today's UTC date as "YYYY-MM-DD" into buf (>= 11 bytes). */
void isotier__today(char *buf, size_t len);

#endif
