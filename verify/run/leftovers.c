/* SPDX-License-Identifier: Apache-2.0 */
/* leftovers.c - sweeping what dead runs left behind (see leftovers.h). */
#include "leftovers.h"
#include "../cmd/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(void *ctx, const char *kind, const char *backend, const char *what,
                   int owner_pid, const char *done)
{
	isotier_history *h = ctx;
	char line[1200];
	snprintf(line, sizeof line, "%s%s%s %.300s, left by process %d (gone): %.400s",
	         *backend ? backend : "", *backend ? " " : "",
	         strcmp(kind, "dir") ? kind : "temp dir", what, owner_pid, done);
	fputs("isotier: swept ", stderr);
	isotier__fputs_sanitized(stderr, line);
	fputc('\n', stderr);
	if (h) {
		isotier_error err = {0};
		if (isotier__history_note_swept(h, backend, line, &err) < 0)
			cli_error("sweep: not recorded in the history: %s", err.message);
	}
}

static void drop_owner_lease(void)
{
	isotier__lease_owner_drop();
}

int leftovers_sweep(isotier_history *h, int *swept, size_t *stale, isotier_error *err)
{
	/* This process records runs: its owner lease says in which pid namespace
	 * its pid means something, for a later stale-run check (lease.h). */
	static bool owned;
	if (h && !owned) {
		owned = true;
		isotier__lease_owner_take();
		atexit(drop_owner_lease);
	}
	int n = isotier__sweep(report, h);
	if (swept)
		*swept = n;
	if (stale)
		*stale = 0;
	if (!h)
		return 0;
	int64_t ids[16];
	size_t n_stale = 0;
	int rc = isotier__history_mark_stale(h, ids, 16, &n_stale, err);
	for (size_t i = 0; i < n_stale && i < 16; i++)
		fprintf(stderr,
		        "isotier: ALERT: run %lld was left running by a process that is gone "
		        "(killed, or the host stopped): marked interrupted\n",
		        (long long)ids[i]);
	if (stale)
		*stale = n_stale;
	return rc;
}
