/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_table.h - `isotier history`'s pieces: a text table that fits a
 * width (or shows everything), one observation with its evidence
 * (`history show ID`), and the source checks (`history --sources`).
 */
#ifndef ISOTIER_HISTORY_TABLE_H
#define ISOTIER_HISTORY_TABLE_H

#include "../../reference/api/isotier_tool.h"

#include <stdbool.h>
#include <stdio.h>

#define HISTORY_WIDTH 100 /* columns the default table fits in */

/* A table of ncol columns; cells[r * ncol + c] may be NULL ("-"). wide:
 * every column as wide as its widest cell; otherwise each column at most
 * caps[c] bytes and the last one what is left of HISTORY_WIDTH, cut cells
 * ending in "~". Every cell is written terminal-safe. */
void history_table(FILE *f, const char *const *hdr, const int *caps, size_t ncol,
                   const char *const *cells, size_t nrows, bool wide);

/* What the sandbox itself took (schema 8: wall, CPU, the run's --jobs and
 * how many ran at once), kept apart from duration_ms, which under --jobs
 * also measures the contention. NULL columns are null / "-", never 0. */
struct cJSON;
void history_json_sandbox_times(struct cJSON *o, const isotier_observation_listing *l);
/* One line for `history show`. */
void history_sandbox_times_text(char *buf, size_t len, const isotier_observation_listing *l);
/* Table cells: CPU "N ms" or "-"; WALL "N ms", with " xK" when K ran at once. */
void history_cell_cpu(char *buf, size_t len, const isotier_observation_listing *l);
void history_cell_wall(char *buf, size_t len, const isotier_observation_listing *l);

/* One observation and its evidence; json: one JSON object. Returns an exit
 * code (66 when there is no such observation). */
int history_show(isotier_history *h, long long id, bool json);

typedef struct source_filter {
	const char *provider, *since, *until;
	int limit;
} source_filter;
/* The source checks, newest first. Returns an exit code. */
int history_sources(isotier_history *h, const source_filter *f, bool json, bool wide);

/* --by-host: the newest observation of each host and backend the filter
 * lets through (its limit aside), sorted by host then backend. 0, or < 0
 * with err set (ISOTIER_ENOMEM: out of memory). */
int history_by_host(isotier_history *h, isotier_observation_filter flt, bool json, bool wide,
                    isotier_error *err);

/* `history export|import|migrate ...` (history_transfer.c); argv[1] is the
 * verb. Returns an exit code. */
int history_transfer_main(int argc, char **argv);
/* `isotier history init` (history_init.c): a fleet's PostgreSQL roles. */
int history_init_main(int argc, char **argv);
/* `history prune` (history_retention.c); argv[1] is "prune". */
int history_prune_main(int argc, char **argv);

#endif
