/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_model.h - `isotier report`: one in-memory model of the history
 * database plus the catalogue, and the writers that render it (HTML, JSON,
 * JUnit XML, Markdown). Bounded whatever the history's size: observations
 * are counted as they stream past and only those shown are held
 * (report_scan.c). Every string in the model came from a sandbox, a web
 * page, a catalogue file or the database: hostile until a writer escapes it.
 *
 * Reproducibility: the model holds nothing that depends on the clock, the
 * paths given on the command line or hash order. Every list is sorted with
 * tie-breakers, so the same database, catalogue and --today give the same
 * bytes.
 */
#ifndef ISOTIER_REPORT_MODEL_H
#define ISOTIER_REPORT_MODEL_H

#include "../../reference/api/isotier_tool.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The runbook's cadence (runbook/cadence.md). */
#define REPORT_REVERIFY_DAYS 7
/* What the HTML and Markdown show in full; JSON always carries everything
 * (streamed from the history as it is written). However large the history,
 * the model holds only these observations in full (report_scan.c): the
 * newest REPORT_LOG_MAX, each row's latest, each host's latest judged, the
 * newest REPORT_EVIDENCE_MAX that did not back their claim and each row's
 * last verdict changes; everything else is counted while it streams past.
 * Of the source checks it holds each catalogue source's latest, of the
 * refusals the newest REPORT_REFUSALS_MAX (report_tables.c). */
#define REPORT_LOG_MAX       500 /* rows of the observation log */
#define REPORT_EVIDENCE_MAX  100 /* observations whose evidence is spelled out */
#define REPORT_REFUSALS_MAX  500
#define REPORT_CHART_BUCKETS 60
/* Hostile-input bounds. */
#define REPORT_FIELD_MAX 4096 /* longest string kept from the database */
/* The stored columns are read with the probe's reader and its bounds
 * (reference/evidence/probe_result.h): a column the judge would refuse is a problem. */
#define REPORT_LAYERS_JSON_MAX 65536 /* bytes of layers_json fetched */
#define REPORT_PROBE_JSON_MAX  PROBE_RESULT_MAX_BYTES
#define REPORT_LAYERS_MAX      PROBE_RESULT_MAX_LAYERS
#define REPORT_SIGNALS_MAX     64
#define REPORT_CONFLICTS_MAX   64
/* Distinct offering x backend rows and host x backend cells a history may
 * name: more fails the report (a history that large is not a fleet's). */
#define REPORT_ROWS_MAX       2048
#define REPORT_HOST_CELLS_MAX 4096
#define REPORT_TL_CHANGES_MAX 6 /* verdict changes spelled out per row, newest */

/* Bump-pointer arena: the model is freed in one go. */
typedef struct report_arena_block report_arena_block;
typedef struct report_arena {
	report_arena_block *head;
} report_arena;

void *report_arena_alloc(report_arena *a, size_t n);
/* Copies at most max bytes of s (cutting at a UTF-8 boundary, marking the cut
 * with "..."); NULL stays NULL. */
char *report_arena_strndup(report_arena *a, const char *s, size_t max);
char *report_arena_printf(report_arena *a, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
void report_arena_free(report_arena *a);

/* The verdict table's words (base/verdict.h), plus one for a stored word
 * this build does not know. */
typedef enum report_verdict {
	RV_CONFIRMED = VERDICT_CONFIRMED,
	RV_CONSISTENT = VERDICT_CONSISTENT,
	RV_EXCEEDS = VERDICT_EXCEEDS,
	RV_NOT_CONTRADICTED = VERDICT_NOT_CONTRADICTED,
	RV_CONTRADICTED = VERDICT_CONTRADICTED,
	RV_INCONCLUSIVE = VERDICT_INCONCLUSIVE,
	RV_UNAVAILABLE = VERDICT_UNAVAILABLE,
	RV_OTHER = VERDICT_COUNT, /* a word this build does not know: shown as stored */
	RV_COUNT
} report_verdict;
const char *report_verdict_name(report_verdict v);
report_verdict report_verdict_parse(const char *s);

typedef struct report_signal {
	const char *id, *family, *source, *value, *weight, *supports; /* any may be NULL */
} report_signal;

typedef struct report_layer {
	const char *kind, *vendor, *hypervisor;
	report_signal *signals;
	size_t n_signals;
} report_layer;

typedef struct report_evidence {
	report_layer *layers; /* outermost first; signals resolved against probe_json */
	size_t n_layers;
	const char **conflicts; /* one line each */
	size_t n_conflicts;
	const char *probe_schema, *probe_version, *kernel;
	const char **problems; /* what could not be read from the stored JSON */
	size_t n_problems;
} report_evidence;

typedef struct report_observation {
	int64_t id, run_id, duration_ms; /* duration_ms -1: not stored */
	/* The sandbox's own wall and CPU time, the run's --jobs and how many
	 * ran at once (schema 8; -1: not stored, or not read: JSON only). */
	int64_t sandbox_wall_ms, sandbox_cpu_ms, jobs, overlap;
	const char *observed_at, *backend, *provider_id, *claimed_tier, *claimed_mechanism;
	const char *observed_tier, *observed_vendor, *confidence, *verdict, *reason;
	const char *kernel_relation; /* NULL: the probe's output was not judged (or an old row) */
	/* Provenance: from the observation's run (NULL: not stored). probe_schema
	 * is read for the observations the log shows (and all of them in JSON). */
	const char *tool_version, *catalogue_commit, *host, *probe_schema;
	const char *host_id; /* the machine id that made it (NULL: not recorded) */
	report_verdict v;
	/* CONFIRMED by hardware attestation: verify stored the fact with it
	 * (report_attested.c), not read from the reason. */
	bool attested;
	/* Read with every column (JSON, and the rows shown in full): the
	 * evidence's SHA-256 (NULL: none); the row came in by history import or
	 * migrate; it has no signed statement (runbook/statements.md). */
	const char *evidence_sha256;
	bool imported, unsigned_row;
	report_evidence *evidence; /* NULL unless in the evidence set */
} report_observation;

typedef struct report_check {
	int64_t id, run_id, http_status; /* http_status -1: none */
	const char *checked_at, *provider_id, *url, *quote, *status, *content_sha256, *detail;
	/* Against the kept baseline (NULL: an older row, or no baseline):
	 * none, quote_gone, passage_changed, page_changed; and the word diff. */
	const char *change, *passage_diff;
} report_check;

typedef struct report_source {
	const char *url, *quote, *publisher, *retrieved, *title;
	/* NULL, or the day this host's sources check last found the passage
	 * unchanged (renewal.h): the age counts from it. */
	const char *verified;
	const char *expires; /* the day it stops defending a tier; NULL: unknown */
	int age_days;        /* -1: unknown */
	bool stale;
	const report_check *latest; /* newest check of this provider+url, or NULL */
} report_source;

typedef struct report_prior {
	const char *tier, *mechanism, *until, *note;
} report_prior;

/* One catalogue offering; offerings of one provider are neighbours (sorted by
 * group, then id) so every writer can show a provider's classes side by side. */
typedef struct report_provider {
	const char *id, *name, *offering, *kind, *tier, *mechanism, *since, *backend, *notes, *file;
	const char *scope;  /* between whom the tier holds; NULL: not stated */
	const char *group;  /* the `provider` field, else the id */
	const char *status; /* "current", "deprecated", "retired" */
	const char *status_date, *status_url, *status_quote; /* NULL when current */
	report_source *sources;
	size_t n_sources;
	report_prior *history;
	size_t n_history;
	int best_source;     /* index of the provider-published source that defends the tier; -1 */
	int source_age_days; /* of best_source; -1 */
	bool source_stale;   /* the tier is not defended by a source within the max age */
	/* Declared beside observed: the day the tier's defending source was
	 * read (retrieved) or last found unchanged (verified); NULL when no
	 * provider-published source defends it (UNKNOWN). */
	const char *declared_on;
	const char
	    *source_status; /* worst latest check: GONE, CHANGED, UNREACHABLE, PRESENT, UNCHECKED */
} report_provider;

/* One period of one row's timeline (report_svg.c): the verdicts seen in it,
 * in the order first seen; attested: the first CONFIRMED was (read after
 * the scan for confirmed_id, the first CONFIRMED that could be: 0 none). */
typedef struct report_tl_slot {
	long key; /* day or month number; -1: empty */
	int64_t confirmed_id;
	unsigned char order[RV_COUNT];
	unsigned char n;
	bool attested;
} report_tl_slot;

/* A row's timeline, gathered while the observations stream past: the
 * newest REPORT_CHART_BUCKETS days and months (the chart shows one unit),
 * and its last verdict changes. */
typedef struct report_row_tl {
	report_tl_slot days[REPORT_CHART_BUCKETS], months[REPORT_CHART_BUCKETS];
	long max_day, max_month;
	int64_t change_ids[REPORT_TL_CHANGES_MAX]; /* oldest first */
	const report_observation *changes[REPORT_TL_CHANGES_MAX];
	size_t n_changes, total_changes;
	int prev; /* the verdict before; RV_COUNT: none */
} report_row_tl;

/* One line of the tier matrix: a catalogue provider, a backend, or both. */
typedef struct report_row {
	const char *provider_id;         /* NULL: an observation without a claim */
	const char *backend;             /* NULL: not driven locally */
	const report_provider *provider; /* NULL: not in the catalogue */
	const char *claimed_tier, *mechanism;
	const report_observation *latest;     /* NULL: none in range */
	const report_observation *latest_run; /* newest that was not UNAVAILABLE */
	const report_observation
	    *latest_judged; /* newest CONFIRMED/CONSISTENT/EXCEEDS/CONTRADICTED */
	const report_observation *latest_checked; /* latest_judged, or a newer NOT_CONTRADICTED */
	size_t n_observations;
	bool overdue;      /* a backend with no verification within the cadence (an
	                      UNAVAILABLE run does not count; nor does an INCONCLUSIVE
	                      one for a backend with a claim) */
	bool unproven;     /* the latest run could not prove the claim (INCONCLUSIVE) */
	bool contradicted; /* latest verdict CONTRADICTED, or NOT_CONTRADICTED after one (a
	                      provider's testimony does not clear a contradiction) */
	bool not_proven;   /* latest verdict NOT_CONTRADICTED: a remote claim above
	                      CONTAINER not contradicted, not proven (a note, not drift) */
	bool drifted;      /* a source CHANGED or GONE */
	const char *state; /* "ok" or the problems, e.g. "CONTRADICTED, SOURCE STALE" */
	int section;       /* report_section */
	const char *group; /* the provider it is grouped under (report_row_group) */
	/* While scanning: the ids behind latest, latest_run, latest_judged,
	 * latest_checked (0: none), and their times (report_time_key): the
	 * latest is the newest observed, not the last written (an import
	 * brings old rows in after new ones; ties: the higher id). */
	int64_t latest_id[4], latest_key[4];
	report_row_tl *tl; /* NULL: no observation */
} report_row;

/* The tier matrix's sections, in the order they are shown. */
typedef enum report_section {
	RS_LOCAL,   /* a backend driven on this host */
	RS_REMOTE,  /* a remote provider observed (a job ran on it) */
	RS_SOURCES, /* only its sources can be checked */
	RS_COUNT
} report_section;
const char *report_section_name(report_section s);  /* "local", "remote", "sources" */
const char *report_section_title(report_section s); /* "Local backends", ... */

typedef struct report_audit {
	int64_t id;
	const char *at, *event, *sandbox_id, *backend, *claimed_tier, *resolved_tier,
	    *required_tier;
	const char *decision, *reason;
} report_audit;

typedef enum report_attention_kind {
	RA_CONTRADICTED,
	RA_UNPROVEN,
	RA_NOT_PROVEN, /* a note: NOT_CONTRADICTED, no hardware attestation */
	RA_SOURCE_GONE,
	RA_SOURCE_CHANGED,
	RA_SOURCE_UNREACHABLE,
	RA_SOURCE_STALE,
	RA_OVERDUE,
	RA_CATALOGUE,
	RA_NOT_CONFIGURED,    /* a note: a remote backend without credentials here */
	RA_INTERRUPTED,       /* a run left 'running' by a process that died (history_stale.c) */
	RA_HOST_DISAGREEMENT, /* hosts sharing a history saw different tiers (report_fleet.c) */
	RA_COUNT
} report_attention_kind;
const char *report_attention_name(report_attention_kind k); /* "contradicted", ... */

/* How loudly: an ALERT needs action, a WARN is a check that did not happen
 * (a source unreachable), a note informs. Shown in this order. */
typedef enum report_severity { RSEV_ALERT, RSEV_WARN, RSEV_NOTE, RSEV_COUNT } report_severity;
const char *report_severity_name(report_severity s); /* "ALERT", "WARN", "note" */

typedef struct report_attention {
	report_attention_kind kind;
	bool failing; /* alerts: contradicted, changed, gone, stale, overdue */
	report_severity severity;
	const char *subject, *detail;
	const char *backend, *provider_id; /* what it is about, when known */
	const char *remedy;                /* one line: what to do (report_remedy) */
} report_attention;

/* A period's verdict counts while scanning (key: day or month; -1: empty). */
typedef struct report_count_slot {
	long key;
	size_t counts[RV_COUNT];
	size_t total;
} report_count_slot;

typedef struct report_bucket {
	const char *period; /* "YYYY-MM-DD" or "YYYY-MM" */
	size_t counts[RV_COUNT];
	size_t total;
} report_bucket;

/* A fleet's host x backend matrix: each host's latest judged observation of
 * each backend (report_fleet.c), sorted by backend, then host. */
typedef struct report_host_cell {
	const char *host;    /* the run's host name, else the machine id */
	const char *host_id; /* NULL: not recorded */
	const report_observation *latest;
	bool disagrees; /* this backend's hosts last observed different tiers */
} report_host_cell;

typedef struct report_model {
	report_arena arena;
	/* Open, in one read snapshot, until report_model_free: the JSON
	 * writer streams every observation from it (report_each_observation). */
	isotier_history *history;
	report_host_cell *hosts;
	size_t n_hosts;
	/* Distinct hosts among the cells. Every writer shows the matrix only
	 * when it is more than one: one host's matrix is the tier matrix again.
	 * Its heading and the sentence that says how to read it (report_fleet.c). */
	size_t n_host_names;
	const char *hosts_heading, *hosts_note;
	const char *host;          /* --host: only this host's observations (NULL: every host's) */
	const char *today;         /* YYYY-MM-DD used for ages; "" when nothing dates the report */
	const char *today_source;  /* "--today", "database", "catalogue", "none" */
	const char *newest_record; /* newest stored timestamp, or NULL */
	const char *since;         /* NULL: everything */
	int max_source_age_days, reverify_days;
	const char *const *backends; /* report_options' */
	size_t n_backends;
	const char *const *not_configured, *const *not_configured_why; /* report_options' */
	size_t n_not_configured;
	int schema_version;
	int64_t n_runs; /* in range */

	report_provider *providers; /* by group (provider), then id */
	size_t n_providers;
	/* The observations held in full (see REPORT_LOG_MAX), oldest first
	 * (id); n_observations counts every one in range. */
	report_observation *observations;
	size_t n_held, n_observations;
	/* Source checks and refusals in range, counted (report_tables.c):
	 * what is shown of the checks is each source's latest (a
	 * report_source's), of the refusals the newest REPORT_REFUSALS_MAX,
	 * oldest first (at, id). */
	size_t n_checks;
	report_audit *refusals;
	size_t n_refusals_held, n_refusals;
	report_row *rows; /* by provider id, backend */
	size_t n_rows;
	report_attention *attention; /* by kind, subject */
	size_t n_attention, attention_cap;
	report_bucket *buckets; /* oldest first, at most REPORT_CHART_BUCKETS */
	size_t n_buckets;
	const char *bucket_unit;        /* "day" or "month" */
	long bucket_lo;                 /* the first bucket's day or month number */
	size_t latest_counts[RV_COUNT]; /* verdicts of the rows' latest observations */
	size_t n_evidence;
	size_t n_failing;
	size_t n_severity[RSEV_COUNT];
	/* The banner: "ALERT" (something needs action), "INCOMPLETE" (a check
	 * that was due did not happen) or "OK" (every required check ran and
	 * passed). missing lists the checks that did not happen, one line each. */
	const char *status;
	const char **missing;
	size_t n_missing;
	/* The words every writer shows with the banner (report_finish), so the
	 * formats cannot phrase it differently: the sentence after the status
	 * ("2 alerts need action; 1 warning") and the heading of missing. */
	const char *summary;
	const char *missing_heading;
	const char *db_path; /* as given with --db: which history this is */
} report_model;

typedef struct report_options {
	const char *db_path;
	const char *catalogue_dir; /* NULL: no catalogue */
	const char *since;         /* YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ */
	const char *today;         /* YYYY-MM-DD */
	int max_source_age_days;   /* 0: ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS */
	int reverify_days;         /* 0: REPORT_REVERIFY_DAYS */
	/* The backends the job verifies here: only these can be overdue, and
	 * each of them is when it has no recent verification. NULL: every
	 * backend the history or the catalogue names. */
	const char *const *backends;
	size_t n_backends;
	/* Remote backends not configured on this host (no credentials), with
	 * why: never overdue, shown once each as a note. Only without backends. */
	const char *const *not_configured, *const *not_configured_why;
	size_t n_not_configured;
	const char *host; /* only observations made on this host (name or machine id) */
} report_options;

int report_model_load(report_model **out, const report_options *opts, isotier_error *err);
void report_model_free(report_model *m);

/* report_scan.c: one pass over the observations in range: the matrix's
 * rows, the timelines, the verdict chart and the fleet's cells counted, the
 * observations shown held (m->observations). Needs the providers loaded. */
int report_scan(report_model *m, isotier_error *err);
/* Every observation in range, oldest first, as the JSON writer shows it
 * (durations read; evidence for those held). cb != 0 stops. */
int report_each_observation(const report_model *m,
                            int (*cb)(void *ctx, const report_observation *o), void *ctx);
/* The held observation with this id, or NULL. */
const report_observation *report_held(const report_model *m, int64_t id);
/* Fills o from a streamed row, strings copied into ar. */
int report_observation_fill(const report_model *m, report_arena *ar, report_observation *o,
                            const isotier_report_observation_row *r);

/* report_rows.c: the matrix, attention and timeline from the loaded data. */
int report_status_rank(const char *status); /* GONE 0, CHANGED 1, UNREACHABLE 2, PRESENT 3 */
int report_attention_add(report_model *m, report_attention_kind kind, bool failing,
                         const char *subject, const char *detail);
/* The row an observation's (provider, backend) belongs to, created when new
 * (strings copied); NULL when out of memory or past REPORT_ROWS_MAX. */
report_row *report_row_for(report_model *m, const char *provider_id, const char *backend,
                           size_t *cap);
int report_seed_rows(report_model *m, size_t *cap);
void report_sort_rows(report_model *m);
int report_judge_rows(report_model *m);
/* The chart's unit from the first and last day seen, and its buckets from
 * the counts gathered per day and per month (report_scan.c). */
int report_build_buckets(report_model *m, long first, long last, const report_count_slot *days,
                         const report_count_slot *months, long max_day, long max_month);
/* A period's key: the day itself, or the month (y * 12 + m - 1). */
long report_bucket_key(long day, bool by_day);
/* report_fleet.c: an alert for each backend whose latest judged
 * observations on two hosts disagree on the tier; latest: each (backend,
 * host)'s latest judged observation, n of them. */
bool report_fleet_judged(const report_observation *o);
const char *report_host_key(const report_observation *o);
int report_fleet_alerts(report_model *m, const report_observation **latest, size_t n);
void report_sort_attention(report_model *m);
/* report_alerts.c: severities, remedies, matrix sections, the banner. */
const char *report_remedy(report_arena *ar, const report_attention *a);
/* More than this many attention items of one kind and severity are one line
 * with a count in every writer, whose remedy is report_group_remedy's. */
#define REPORT_COLLAPSE_OVER 3
const char *report_group_remedy(const report_attention *first);
const char *report_row_group(const report_row *r);
/* Row indexes in the order the matrix is shown: by section, then provider
 * group, then the model's order. malloc'd; NULL when out of memory. */
size_t *report_matrix_order(const report_model *m);
int report_finish(report_model *m);
/* The banner's sentence: "N alerts need action; M warnings", or what an
 * alert-free report says (every check ran, or how many did not). */
const char *report_summary_sentence(report_arena *ar, size_t alerts, size_t warnings,
                                    size_t missing);

/* Evidence parsing, exposed for tests: hostile JSON in, bounded model out. */
report_evidence *report_evidence_parse(report_arena *a, const char *layers_json,
                                       const char *probe_json);

/* Dates: "YYYY-MM-DD" (optionally followed by "T...") to days since the epoch;
 * -1 when not a real calendar date. */
long report_days(const char *date);
bool report_valid_date(const char *s);      /* YYYY-MM-DD */
bool report_valid_timestamp(const char *s); /* YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ */
/* An observation's time in UTC milliseconds since 1970, for ordering:
 * YYYY-MM-DD, optionally [T ]HH:MM[:SS[.fraction]], optionally Z; -1 when
 * it reads otherwise (an offset, junk). */
int64_t report_time_key(const char *s);

/* Where the report date came from, for a reader ("the newest stored record"). */
const char *report_date_source_text(const report_model *m);

/* ---- escaping (report_escape.c) -------------------------------------- */

/* Decodes one UTF-8 sequence; invalid, overlong or surrogate sequences give
 * U+FFFD and consume one byte. Returns bytes consumed (>= 1); s non-empty. */
size_t report_utf8_next(const unsigned char *s, uint32_t *cp);
/* HTML and XML text and attribute values: & < > " ' as entities, control
 * characters (C0 except tab and newline, DEL, C1) as visible "\xNN", invalid
 * UTF-8 and XML-forbidden characters as U+FFFD. NULL writes nothing. */
void report_put_xml(FILE *f, const char *s);
/* JSON string with quotes; NULL writes null. Controls as \u00XX. */
void report_put_json(FILE *f, const char *s);
/* Markdown inline text (table cells): markup characters backslash-escaped,
 * < > & as entities, newlines as spaces, controls visible. NULL writes "". */
void report_put_md(FILE *f, const char *s);
/* Terminal text (report --format text): controls visible, one line; NULL
 * writes "-". */
void report_put_text(FILE *f, const char *s);

/* ---- writers ----------------------------------------------------------- */

int report_write_html(FILE *f, const report_model *m);
int report_write_json(FILE *f, const report_model *m);
/* report_oscal.c: OSCAL 1.1 assessment results (deterministic UUIDs). */
int report_write_oscal(FILE *f, const report_model *m);
int report_write_junit(FILE *f, const report_model *m);
int report_write_md(FILE *f, const report_model *m);
int report_write_text(FILE *f, const report_model *m); /* alerts only, terminal-safe */

/* What a source check's change against its baseline means, in words
 * ("passage around the quote changed"); the word itself when unknown
 * (report_change.c). */
const char *report_change_words(const char *change);
/* report_attested.c: marks the observations verify stored as attested
 * (ADR-0020); and the verdict as every writer shows it, "CONFIRMED
 * (attested)" for those (NULL stays NULL). */
bool report_attest_candidate(const report_model *m, const report_observation *o);
/* Whether layers_json is the form verify writes for an attested one. */
bool report_layers_attested(const char *layers);
/* Whether statement (the row's signed statement) verifies against this
 * host's key or ISOTIER_TRUSTED_KEYS and says attested, CONFIRMED, of
 * backend on host_id: without it an "attested" in layers_json (an import
 * can claim one) is not shown. */
bool report_statement_attested(const char *statement, const char *backend, const char *host_id);
const char *report_verdict_shown(const report_observation *o);

/* report_tables.c: counts the source checks and refusals in range and holds
 * the newest REPORT_REFUSALS_MAX refusals (m->refusals). */
int report_load_tables(report_model *m, isotier_error *err);
/* *out: the newest check in range of provider_id's url citing quote, else
 * of the url (NULL: none), held in the model. */
int report_source_latest(report_model *m, const char *provider_id, const char *url,
                         const char *quote, const report_check **out, isotier_error *err);
/* Every source check in range (checked_at, id), every refusal (at, id),
 * streamed from the history's snapshot for the JSON writer: each valid
 * only during its call. cb != 0 stops. */
int report_each_check(const report_model *m, int (*cb)(void *ctx, const report_check *c),
                      void *ctx);
int report_each_refusal(const report_model *m, int (*cb)(void *ctx, const report_audit *a),
                        void *ctx);

#endif
