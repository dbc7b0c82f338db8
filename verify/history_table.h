/*
 * history_table.h - `isotier history`'s pieces: a text table that fits a
 * width (or shows everything), one observation with its evidence
 * (`history show ID`), and the source checks (`history --sources`).
 */
#ifndef ISOTIER_HISTORY_TABLE_H
#define ISOTIER_HISTORY_TABLE_H

#include "../reference/isotier_tool.h"

#include <stdbool.h>
#include <stdio.h>

#define HISTORY_WIDTH 100 /* columns the default table fits in */

/* A table of ncol columns; cells[r * ncol + c] may be NULL ("-"). wide:
 * every column as wide as its widest cell; otherwise each column at most
 * caps[c] bytes and the last one what is left of HISTORY_WIDTH, cut cells
 * ending in "~". Every cell is written terminal-safe. */
void history_table(FILE *f, const char *const *hdr, const int *caps, size_t ncol,
                   const char *const *cells, size_t nrows, bool wide);

/* One observation and its evidence; json: one JSON object. Returns an exit
 * code (66 when there is no such observation). */
int history_show(isotier_history *h, long long id, bool json);

typedef struct source_filter {
	const char *provider, *since, *until;
	int limit;
} source_filter;
/* The source checks, newest first. Returns an exit code. */
int history_sources(isotier_history *h, const source_filter *f, bool json, bool wide);

/* `history export|import|migrate ...` (history_transfer.c); argv[1] is the
 * verb. Returns an exit code. */
int history_transfer_main(int argc, char **argv);

#endif
