/* SPDX-License-Identifier: Apache-2.0 */
/*
 * churn_report.h - what `isotier churn` and `isotier churn release-check`
 * found, and its text, JSON and JUnit renderings.
 */
#ifndef ISOTIER_CHURN_REPORT_H
#define ISOTIER_CHURN_REPORT_H

#include "churn.h"

/* One release-gate check beyond the churn diff (a CHANGELOG.md listing...). */
typedef struct churn_check {
	char *name;    /* "CHANGELOG [0.1.0] lists modal: GVISOR/gvisor -> MICROVM/firecracker" */
	char *failure; /* NULL: passed */
} churn_check;

typedef struct churn_report {
	char since_spec[256], until_spec[256]; /* as given ("" since: no earlier release) */
	char since_id[GIT_OID_HEXSZ + 1], until_id[GIT_OID_HEXSZ + 1];
	churn_changes changes;
	churn_entries entries; /* CHURN.md at until */
	bool entries_found;
	char churn_md_from[600]; /* where CHURN.md was read: "REF (commit)" or the working tree */
	size_t unlogged;
	/* release-check */
	char version[64]; /* "" for a plain churn check */
	churn_check *checks;
	size_t n_checks, n_failed;
} churn_report;

void churn_report_clear(churn_report *r);
int churn_report_add_check(churn_report *r, const char *name, const char *failure);

/* Marks each CHANGED entry logged or not against r->entries; counts unlogged. */
void churn_report_match(churn_report *r);

void churn_report_text(FILE *f, const churn_report *r);
int churn_report_json(FILE *f, const churn_report *r);
/* JUnit XML into f; report is a const churn_report * (a cli_output_fn). */
int churn_report_junit(FILE *f, const void *report);

/* A change's kind as reports name it ("added", "tier+mechanism"...). */
const char *churn_kind_name(const churn_change *c);
/* "; renamed from modal", "; status current -> deprecated" or "". */
void churn_offering_note(char *buf, size_t len, const churn_change *c);
/* One change as JSON (NULL: out of memory); with_commit: the churn log's
 * commit and date in place of the check's logged state. */
struct cJSON *churn_change_json(const churn_change *c, bool with_commit);

/* "GVISOR/gvisor" */
void churn_claim_format(char *buf, size_t len, const churn_claimref *c);

#endif
