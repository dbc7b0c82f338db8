/* SPDX-License-Identifier: Apache-2.0 */
/* leftovers.c - sweeping what dead runs left behind (see leftovers.h). */
#include "leftovers.h"
#include "../cmd/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sweep_ctx {
	isotier_history *h;
	int unrecorded; /* leftover_swept events the history did not take */
};

static void report(void *ctx, const char *kind, const char *backend, const char *what,
                   int owner_pid, const char *done)
{
	struct sweep_ctx *c = ctx;
	isotier_history *h = c->h;
	char line[1200];
	snprintf(line, sizeof line, "%s%s%s %.300s, left by process %d (gone): %.400s",
	         *backend ? backend : "", *backend ? " " : "",
	         strcmp(kind, "dir") ? kind : "temp dir", what, owner_pid, done);
	fputs("isotier: swept ", stderr);
	isotier__fputs_sanitized(stderr, line);
	fputc('\n', stderr);
	if (h) {
		isotier_error err = {0};
		if (isotier__history_note_swept(h, backend, line, &err) < 0) {
			cli_error("sweep: not recorded in the history: %s", err.message);
			c->unrecorded++;
		}
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
	struct sweep_ctx c = {.h = h};
	int n = isotier__sweep(report, &c);
	int lease_errno = errno;
	if (swept)
		*swept = n < 0 ? 0 : n;
	if (stale)
		*stale = 0;
	if (n < 0) {
		char dir[4096] = "";
		isotier__lease_dir(dir, sizeof dir);
		isotier__error_set(err, ISOTIER_EIO, lease_errno,
		                   "the lease directory %s could not be read: what dead runs "
		                   "left there was not swept",
		                   dir[0] ? dir : "(no state directory: set ISOTIER_STATE_DIR)");
	}
	if (!h)
		return n < 0 ? ISOTIER_EIO : 0;
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
	if (rc < 0)
		return rc;
	if (n < 0)
		return ISOTIER_EIO;
	if (c.unrecorded)
		return isotier__error_set(err, ISOTIER_EDB, 0,
		                          "%d leftover_swept event%s not recorded in the history",
		                          c.unrecorded, c.unrecorded == 1 ? "" : "s");
	return 0;
}
