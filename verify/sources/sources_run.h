/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sources_run.h - the state of one `isotier sources check` run, shared by
 * cmd_sources.c (fetch, judge, store) and sources_print.c (what it prints,
 * what it keeps in the baseline).
 */
#ifndef ISOTIER_SOURCES_RUN_H
#define ISOTIER_SOURCES_RUN_H

#include "sources_baseline.h"

struct check {
	const isotier_provider *provider;
	const isotier_source *source;
	size_t url_index;
	const char *status; /* NULL until checked */
	long http_status;
	char sha256[65];
	char detail[512];
	char checked_at[32];
	int attempts;
	bool stored; /* its source_checks row is committed */
	/* Against the kept baseline: has_change false when there is none (or
	 * the page could not be read); passage and main_sha to keep when
	 * --update-baseline; diff for a changed passage. */
	bool has_change;
	sources_change change;
	char *passage, *diff;
	char main_sha[65];
};

struct run {
	struct check *checks;
	size_t n_checks;
	const char **urls;
	size_t n_urls;
	size_t n_fetched; /* pages answered so far (progress) */
	bool progress;    /* stderr is a terminal: show it */
	isotier_history *db;
	int64_t run_id;
	isotier_error *err;
	size_t counts[4];          /* checked, by status: stored or not */
	size_t not_stored;         /* checked, but the history refused the row */
	bool db_failed;            /* a row could not be stored: no more are tried */
	sources_baseline baseline; /* loaded from baseline_path (empty: none yet) */
	const char *baseline_path;
	size_t changes[4];       /* checks by change against the baseline */
	size_t no_baseline;      /* read, but no baseline entry to compare with */
	int max_unreachable_pct; /* more than this share UNREACHABLE is no check */
};

/* PRESENT, CHANGED, GONE, UNREACHABLE: index = counts[] slot. */
extern const char *const sources_status_names[4];

void sources_print_text(const struct run *r, const char *db, const char *status);
int sources_print_json(const struct run *r, const char *db, const char *dir, const char *status);
/* sources.lock.json beside the provider directory; malloc'd, NULL: no memory. */
char *sources_default_baseline_path(const char *dir);
/* --update-baseline: keeps what was read (sources_print.c says what). */
int sources_keep_baseline(struct run *r, const isotier_catalogue *cat);

#endif
