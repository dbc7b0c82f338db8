/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fetch.h - fetch many URLs concurrently for `sources check`: at most `jobs`
 * requests at once, each through libisotier's one HTTP client
 * (reference/core/http.h: its User-Agent, a per-attempt timeout, a bounded body,
 * retries with exponential backoff on 429, 5xx and transport failures),
 * following a bounded number of redirects.
 */
#ifndef ISOTIER_FETCH_H
#define ISOTIER_FETCH_H

#include "../../reference/api/isotier_tool.h"

#include <signal.h>

typedef struct isotier_fetch_opts {
	int jobs;                          /* concurrent transfers; <=0: 8 */
	int timeout_s;                     /* whole transfer, per attempt; <=0: 20 */
	int max_redirects;                 /* <0: 5 */
	size_t max_body;                   /* bytes, after content decoding; 0: 5 MiB */
	int max_attempts;                  /* tries per URL incl. the first; <=0: 3 */
	int backoff_ms;                    /* first retry delay, doubled each time; <=0: 250 */
	const volatile sig_atomic_t *stop; /* set (by a signal handler) to stop early */
} isotier_fetch_opts;

typedef struct isotier_fetch_result {
	const char *url;
	int rc;                   /* 0 when a response arrived; else an ISOTIER_E* (error says) */
	long http_status;         /* 0 when none */
	const char *content_type; /* NULL when none */
	const char *body;         /* NUL-terminated; valid during the callback */
	size_t body_len;
	int attempts;              /* 0: not tried, its origin could not be reached in this run */
	const char *error;         /* human-readable failure, "" when none */
	const char *effective_url; /* after redirects; NULL when none was followed */
} isotier_fetch_result;

/* Called once per URL when its last attempt is over, in the calling thread.
 * Returning <0 stops the run (e.g. the history database failed). */
typedef int (*isotier_fetch_done_fn)(size_t index, const isotier_fetch_result *r, void *arg);

/*
 * Fetches urls[0..n). Returns 0 when every URL was delivered, ISOTIER_EINTR
 * when *opts->stop was set first (URLs not yet delivered are dropped), the
 * callback's code when it returned <0, or <0 when libcurl could not start.
 */
int isotier_fetch_all(const char *const *urls, size_t n, const isotier_fetch_opts *opts,
                      isotier_fetch_done_fn done, void *arg, isotier_error *err);

#endif
