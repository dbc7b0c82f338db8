/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_sources.c - `isotier sources check`: re-fetch every cited source and
 * check that its quote is still on the page. Each source gets
 *   PRESENT     fetched, the quote is there (normalised text)
 *   CHANGED     fetched, the quote is gone
 *   GONE        HTTP 404 or 410
 *   UNREACHABLE network, TLS, timeout, redirect loop, oversized body, any
 *               other HTTP status: never read as drift
 * and one source_checks row in the history, committed as soon as it is known,
 * so an interrupted run keeps everything it stored (the run is marked
 * 'interrupted'). A row that meets a locked database is tried again (three
 * busy timeouts: $ISOTIER_BUSY_TIMEOUT_MS, default 5000 ms); one that still
 * cannot be stored stops the run, is shown and counted as checked but NOT
 * stored, and the exit status is the database's (75 locked). Exit 1 when any
 * source is CHANGED or GONE, 75 when every source was UNREACHABLE (nothing was
 * checked) or more than --max-unreachable of them (default 50%: too few
 * answered), 130 when interrupted, 0 otherwise.
 *
 * --json prints one object:
 *   {"run_id": N, "db": PATH, "catalogue": DIR, "status": "ok"|"failed"|"interrupted",
 *    "counts": {"checked": N, "PRESENT": N, "CHANGED": N, "GONE": N, "UNREACHABLE": N,
 *               "unchecked": N, "not_stored": N},
 *    "sources": [{"provider": ID, "url": URL, "quote": TEXT, "publisher": P,
 *                 "status": "PRESENT"|..., "http_status": N|null,
 *                 "content_sha256": HEX|null, "detail": TEXT, "attempts": N (0: not tried,
 *                 its origin could not be reached in this run),
 *                 "checked_at": "YYYY-MM-DDTHH:MM:SSZ", "stored": BOOL}...]}
 * ("sources" lists the checked sources in catalogue order.)
 */
#include "../sources/catalogue_commit.h"
#include "cli.h"
#include "../sources/fetch.h"
#include "../history/history_retry.h"
#include "../sources/htmltext.h"
#include "../sources/sha256.h"
#include "../sources/sources_page.h"
#include "../sources/sources_run.h"
#include "../../reference/api/isotier_tool.h"
#include "cli_options.h"

#include <signal.h>
#include <string.h>
#include <strings.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
	signal(sig, SIG_DFL); /* a second ^C ends the process at once */
}

struct store_arg {
	struct run *r;
	struct check *c;
};

static int store(void *arg, isotier_error *err)
{
	struct run *r = ((struct store_arg *)arg)->r;
	struct check *c = ((struct store_arg *)arg)->c;
	isotier_history *h = r->db;
	int rc = isotier__history_begin(h, err);
	if (rc < 0)
		return rc;
	isotier_source_check_row row = {
	    .run_id = r->run_id,
	    .checked_at = c->checked_at,
	    .provider_id = c->provider->id,
	    .url = c->source->url,
	    .quote = c->source->quote,
	    .status = c->status,
	    .http_status = c->http_status,
	    .content_sha256 = c->sha256,
	    .detail = c->detail,
	    .retrieved = c->source->retrieved,
	    .published = c->source->published,
	    .publisher = c->source->publisher,
	    .change = c->has_change ? sources_change_name(c->change) : NULL,
	    .passage_diff = c->diff,
	};
	if ((rc = isotier__history_add_source_check(h, &row, err)) < 0) {
		isotier__history_rollback(h);
		return rc;
	}
	if ((rc = isotier__history_commit(h, err)) < 0)
		isotier__history_rollback(h);
	return rc;
}

/* Three busy timeouts for a row before it is given up. */
static const history_retry_policy store_policy = {.min_attempts = 3};

/* How the page moved for c against the kept baseline, and what to keep. */
static int compare(struct run *r, struct check *c, const sources_page *page)
{
	const sources_baseline_entry *be =
	    sources_baseline_find(&r->baseline, c->source->url, c->source->quote);
	if (!c->source->quote[0])
		return 0;
	int rc = sources_compare(page->full, page->main_text, page->main_sha, c->source->quote, be,
	                         &c->change, &c->passage, &c->diff);
	if (rc < 0)
		return rc;
	memcpy(c->main_sha, page->main_sha, sizeof c->main_sha);
	c->has_change = be != NULL;
	if (be)
		r->changes[c->change]++;
	else
		r->no_baseline++;
	return 0;
}

static int on_fetched(size_t url_index, const isotier_fetch_result *f, void *arg)
{
	struct run *r = arg;
	char now[32], sha[65] = "", detail[512] = "";
	isotier__utc_now(now, sizeof now);
	r->n_fetched++;
	if (r->progress) /* one line, rewritten: a long run is never silent */
		fprintf(stderr, "\rsources check: %zu/%zu pages", r->n_fetched, r->n_urls);
	int base = 3; /* UNREACHABLE */
	sources_page page = {0};
	if (f->rc == 0) {
		isotier__sha256_hex(f->body, f->body_len, sha);
		if (f->http_status == 404 || f->http_status == 410) {
			base = 2;
			snprintf(detail, sizeof detail, "HTTP %ld", f->http_status);
		} else if (f->http_status >= 200 && f->http_status <= 299) {
			int prc = sources_page_read(&page, f, detail, sizeof detail);
			if (prc == ISOTIER_ENOMEM)
				return isotier__error_set(r->err, ISOTIER_ENOMEM, 0,
				                          "out of memory");
			base = prc == 0 ? 0 : 3;
		} else {
			snprintf(detail, sizeof detail, "HTTP %ld%s", f->http_status,
			         f->attempts > 1 ? " after retries" : "");
		}
	} else {
		snprintf(detail, sizeof detail, "%s", f->error);
	}
	if (f->attempts > 1 && base == 3) {
		size_t l = strlen(detail);
		snprintf(detail + l, sizeof detail - l, " (%d attempts)", f->attempts);
	}
	for (size_t i = 0; i < r->n_checks; i++) {
		struct check *c = &r->checks[i];
		if (c->url_index != url_index)
			continue;
		int st = base;
		snprintf(c->detail, sizeof c->detail, "%s", detail);
		if (base == 0) {
			int found = isotier_text_has_quote(page.full, c->source->quote);
			if (found < 0 || compare(r, c, &page) < 0) {
				sources_page_free(&page);
				return isotier__error_set(r->err, ISOTIER_ENOMEM, 0,
				                          "out of memory");
			}
			st = found ? 0 : 1;
			if (!c->source->quote[0])
				snprintf(c->detail, sizeof c->detail,
				         "empty quote: nothing to check");
			else if (!found)
				snprintf(c->detail, sizeof c->detail,
				         "quote not found on the page");
			else if (c->has_change && c->change == SOURCES_PASSAGE_CHANGED)
				snprintf(c->detail, sizeof c->detail,
				         "quote present, but the passage around it changed since "
				         "the baseline");
			else if (c->has_change && c->change == SOURCES_PAGE_CHANGED)
				snprintf(c->detail, sizeof c->detail,
				         "passage as kept; the page's main text changed elsewhere");
			if (f->effective_url) {
				size_t l = strlen(c->detail);
				snprintf(c->detail + l, sizeof c->detail - l,
				         "%sredirected to %.300s", l ? "; " : "", f->effective_url);
			}
		}
		c->status = sources_status_names[st];
		c->http_status = f->http_status;
		memcpy(c->sha256, sha, sizeof sha);
		memcpy(c->checked_at, now, sizeof now);
		c->attempts = f->attempts;
		r->counts[st]++;
		/* Checked either way; after one row could not be stored the run
		 * stops, and the rest of this page's checks are shown unstored. */
		if (!r->db_failed) {
			struct store_arg sa = {r, c};
			isotier_error serr = {0};
			if (history_retry(store, &sa, &store_policy, NULL, &serr) < 0) {
				r->db_failed = true;
				*r->err = serr;
				isotier__error_prefix(r->err, "%s (%s)", c->provider->id,
				                      c->source->url);
			} else {
				c->stored = true;
			}
		}
		if (!c->stored)
			r->not_stored++;
	}
	sources_page_free(&page);
	return r->db_failed ? r->err->code : 0;
}

static int check_cmp(const void *a, const void *b)
{
	const struct check *x = *(struct check *const *)a, *y = *(struct check *const *)b;
	return strcmp(x->source->url, y->source->url);
}

/* Collects the checks (catalogue order) and the unique URLs to fetch. */
static int collect(struct run *r, const isotier_catalogue *cat, char **only, size_t n_only)
{
	size_t n = 0;
	for (size_t i = 0; i < cat->n_providers; i++)
		n += cat->providers[i].n_sources;
	r->checks = calloc(n ? n : 1, sizeof *r->checks);
	r->urls = calloc(n ? n : 1, sizeof *r->urls);
	struct check **sorted = calloc(n ? n : 1, sizeof *sorted);
	if (!r->checks || !r->urls || !sorted) {
		free(sorted);
		return ISOTIER_ENOMEM;
	}
	for (size_t i = 0; i < cat->n_providers; i++) {
		const isotier_provider *p = &cat->providers[i];
		bool wanted = n_only == 0;
		for (size_t k = 0; k < n_only && !wanted; k++)
			wanted = !strcmp(only[k], p->id);
		for (size_t s = 0; wanted && s < p->n_sources; s++) {
			r->checks[r->n_checks].provider = p;
			r->checks[r->n_checks].source = &p->sources[s];
			sorted[r->n_checks] = &r->checks[r->n_checks];
			r->n_checks++;
		}
	}
	if (r->n_checks)
		qsort(sorted, r->n_checks, sizeof *sorted, check_cmp);
	for (size_t i = 0; i < r->n_checks; i++) {
		if (i == 0 || strcmp(sorted[i]->source->url, sorted[i - 1]->source->url))
			r->urls[r->n_urls++] = sorted[i]->source->url;
		sorted[i]->url_index = r->n_urls - 1;
	}
	free(sorted);
	return 0;
}

static const char *default_jobs(void)
{
	return "8";
}

static const char *default_timeout(void)
{
	return "20";
}

enum {
	OPT_CATALOGUE = 'c',
	OPT_DB = 'd',
	OPT_JOBS = 'j',
	OPT_TIMEOUT = 't',
	OPT_JSON = 'J',
	OPT_PROVIDER = 'p',
	OPT_BASELINE = 'b',
	OPT_UPDATE_BASELINE = 'u',
	OPT_MAX_UNREACHABLE = 'U',
};

/* Whoever can block most sources (a proxy, a firewall, a DNS answer) must not
 * keep the drift gate green: a run in which more than this share of the
 * sources did not answer checked too little to count. */
#define DEFAULT_MAX_UNREACHABLE_PCT 50

static const char *default_max_unreachable(void)
{
	return "50";
}

static const struct cli_option options[] = {
    CLI_DEFAULTED_OPTION("catalogue", OPT_CATALOGUE, "DIR", NULL,
                         "provider directory (default: {})", cli_default_catalogue_text),
    CLI_DEFAULTED_OPTION("db", OPT_DB, "PATH", cli_check_db, "history database (default: {})",
                         cli_default_db_text),
    CLI_DEFAULTED_NUMBER_OPTION("jobs", OPT_JOBS, "N", 1, 64,
                                "concurrent transfers, 1-64 (default: {})", default_jobs),
    CLI_DEFAULTED_NUMBER_OPTION("timeout", OPT_TIMEOUT, "S", 1, 600,
                                "per-transfer timeout in seconds, 1-600 (default: {})",
                                default_timeout),
    CLI_TEXT_OPTION("provider", OPT_PROVIDER, "ID", "check only this provider (repeatable)"),
    CLI_TEXT_OPTION("baseline", OPT_BASELINE, "PATH",
                    "the kept baseline (default: sources.lock.json beside the\n"
                    "provider directory); absent: nothing to compare with"),
    CLI_FLAG_OPTION("update-baseline", OPT_UPDATE_BASELINE,
                    "keep what was read now for every source whose quote is\n"
                    "on the page (after re-verifying it; entries of sources no\n"
                    "longer cited are dropped)"),
    {.name = "max-unreachable",
     .key = OPT_MAX_UNREACHABLE,
     .kind = CLI_NUMBER,
     .metavar = "PCT",
     .hi = 100,
     .help = "a run with more than PCT% of its sources UNREACHABLE is\n"
             "no check (exit 75, stored as failed), 0-100 (default: {})",
     .dflt = default_max_unreachable},
    CLI_FLAG_OPTION("json", OPT_JSON,
                    "machine-readable report on stdout: {run_id, db, catalogue,\n"
                    "status, counts{checked, PRESENT, CHANGED, GONE, UNREACHABLE,\n"
                    "unchecked, not_stored, none, quote_gone, passage_changed,\n"
                    "page_changed, no_baseline}, baseline, sources[{provider,\n"
                    "url, quote, publisher, status, http_status, content_sha256,\n"
                    "detail, change, passage_diff, passage, retrieved,\n"
                    "published, attempts, checked_at, stored}]}"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "sources check",
    .synopsis =
        "usage: isotier sources check [--catalogue DIR] [--db PATH] [--jobs N] [--timeout S]\n"
        "                             [--json] [--provider ID]... [--baseline PATH]\n"
        "                             [--update-baseline]",
    .about = "Re-fetches every cited source and checks its quote is still on the page:\n"
             "PRESENT, CHANGED (quote gone), GONE (404/410) or UNREACHABLE (network, TLS,\n"
             "timeout, redirects, size: never drift). Results go into the history database.\n"
             "Against the kept baseline (what was read at retrieval: the hash of the page's\n"
             "main text, navigation and other chrome left out, and the passage around each\n"
             "quote) each read source is also: unchanged, passage changed (quote present,\n"
             "the sentences around it differ: a word diff is shown), page changed elsewhere\n"
             "(passage the same) or quote gone. A changed passage is a finding (exit 1).\n"
             "A row the history cannot take even after three busy timeouts\n"
             "($ISOTIER_BUSY_TIMEOUT_MS, default 5000) stops the run: it is shown and counted\n"
             "as checked but NOT stored. On a terminal, progress goes to standard error.",
    .options = options,
    .epilogue = "Exit status: 0 checked; 1 when any source is CHANGED or GONE or its passage\n"
                "changed; 64 usage; 69 libxml2 cannot be loaded (nothing fetched); 74 history\n"
                "unusable; 75 when every source was UNREACHABLE (nothing was checked: not this\n"
                "period's check), when more than --max-unreachable (50%) of them were (too\n"
                "few answered: not a check either), or the history stayed locked; 130 when\n"
                "interrupted.",
};

static void usage(FILE *f)
{
	cli_usage(&spec, f);
}

/* What the command line asked for. */
struct check_args {
	const char *dir, *db_path, *baseline_path;
	char **only; /* --provider IDs: at most argc of them */
	size_t n_only;
	int jobs, timeout_s, max_unreachable_pct;
	bool json, update_baseline;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct check_args *a = ctx;
	switch (key) {
	case OPT_CATALOGUE: a->dir = value; break;
	case OPT_DB: a->db_path = value; break;
	case OPT_JOBS: a->jobs = number; break;
	case OPT_TIMEOUT: a->timeout_s = number; break;
	case OPT_JSON: a->json = true; break;
	case OPT_MAX_UNREACHABLE: a->max_unreachable_pct = number; break;
	case OPT_PROVIDER: a->only[a->n_only++] = (char *)value; break;
	case OPT_BASELINE: a->baseline_path = value; break;
	case OPT_UPDATE_BASELINE: a->update_baseline = true; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

struct end_arg {
	struct run *r;
	const char *status;
};

static int end_run(void *arg, isotier_error *err)
{
	struct end_arg *a = arg;
	return isotier__history_run_end(a->r->db, a->r->run_id, a->status, err);
}

static bool too_unreachable(const struct run *r)
{
	size_t total = r->counts[0] + r->counts[1] + r->counts[2] + r->counts[3];
	return r->counts[3] && r->counts[3] * 100 > (size_t)r->max_unreachable_pct * total;
}

static int run_checks(struct run *r, const char *db_path, const char *dir, int jobs, int timeout_s,
                      int busy_ms, const char **status_out)
{
	isotier_error *err = r->err;
	int rc = isotier__history_open(&r->db, db_path, busy_ms, err);
	if (rc < 0)
		return rc;
	char commit[64];
	isotier_catalogue_commit(commit, sizeof commit, dir);
	if (!commit[0]) /* not in git: the same word verify records */
		snprintf(commit, sizeof commit, "unknown");
	if ((rc = isotier__history_run_begin(r->db, &r->run_id, "sources check", commit, err)) < 0)
		return rc;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A peer closing a TLS connection mid-write must not kill the run. */
	signal(SIGPIPE, SIG_IGN);
	isotier_fetch_opts fo = {
	    .jobs = jobs, .timeout_s = timeout_s, .max_redirects = 5, .stop = &stop_requested};
	r->progress = isatty(STDERR_FILENO);
	rc = isotier_fetch_all(r->urls, r->n_urls, &fo, on_fetched, r, err);
	if (r->progress && r->n_fetched)
		fputc('\n', stderr);
	/* A run in which nothing answered checked nothing, and one in which
	 * most did not checked too little: it failed. */
	bool none_answered = r->counts[3] && !r->counts[0] && !r->counts[1] && !r->counts[2];
	none_answered |= too_unreachable(r);
	const char *status = rc == ISOTIER_EINTR ? "interrupted"
	                     : rc < 0 || r->counts[1] || r->counts[2] || none_answered ||
	                             r->changes[SOURCES_PASSAGE_CHANGED]
	                         ? "failed"
	                         : "ok";
	isotier_error end_err = {0};
	struct end_arg ea = {r, status};
	if (history_retry(end_run, &ea, &store_policy, NULL, &end_err) < 0) {
		if ((end_err.db_code & 0xff) == ISOTIER_DB_IOERR) {
			/* The run's one sync (its durability point) may have
			 * failed: no check it stored is known to survive a power
			 * loss. */
			cli_error("run %lld: its source checks are NOT known to be stored: the "
			          "history could not be synced: %s",
			          (long long)r->run_id, end_err.message);
			for (size_t i = 0; i < r->n_checks; i++)
				if (r->checks[i].stored)
					r->checks[i].stored = false, r->not_stored++;
		} else {
			cli_error("run %lld could not be marked %s; it still reads 'running'",
			          (long long)r->run_id, status);
		}
		if (rc == 0)
			rc = end_err.code, *err = end_err;
	}
	*status_out = status;
	return rc;
}

static int sources_check(int argc, char **argv)
{
	int busy_ms = 5000;
	const char *env = getenv("ISOTIER_BUSY_TIMEOUT_MS");
	if (env && *env && cli_parse_int("ISOTIER_BUSY_TIMEOUT_MS", env, 1, 3600000, &busy_ms) < 0)
		return EXIT_USAGE;
	cleanup_free char **only = calloc((size_t)argc, sizeof *only);
	if (!only)
		return EXIT_SOFTWARE;
	struct check_args a = {.dir = cli_default_catalogue(),
	                       .db_path = isotier__default_db_path(),
	                       .only = only,
	                       .jobs = 8,
	                       .timeout_s = 20,
	                       .max_unreachable_pct = DEFAULT_MAX_UNREACHABLE_PCT};
	int c = cli_parse(&spec, argc, argv, on_option, &a, NULL);
	if (c == CLI_HELP_SHOWN)
		return EXIT_OK;
	if (c != 0)
		return c;
	const char *dir = a.dir, *db_path = a.db_path, *baseline_path = a.baseline_path;
	size_t n_only = a.n_only;
	int jobs = a.jobs, timeout_s = a.timeout_s;
	bool json = a.json, update_baseline = a.update_baseline;
	isotier_findings findings = {0};
	isotier_catalogue *cat = NULL;
	isotier_error err = {0};
	if (isotier__catalogue_load_effective(&cat, dir, false, &findings, &err) < 0) {
		isotier__findings_free(&findings);
		return cli_fail(&err);
	}
	int exit_code = EXIT_OK;
	if (findings.n_errors) {
		for (size_t i = 0; i < findings.n; i++)
			cli_error("%s: %s%s%s", findings.items[i].file, findings.items[i].field,
			          findings.items[i].field[0] ? ": " : "",
			          findings.items[i].message);
		cli_error(
		    "the catalogue does not load; `isotier catalogue check` lists every problem");
		exit_code = EXIT_DATAERR;
	}
	for (size_t k = 0; exit_code == EXIT_OK && k < n_only; k++)
		if (!isotier__catalogue_find(cat, only[k])) {
			{
				const char *ids[512];
				size_t n_ids = 0;
				for (size_t i = 0; i < cat->n_providers && n_ids < 512; i++)
					ids[n_ids++] = cat->providers[i].id;
				const char *hint = cli_suggest(only[k], ids, n_ids);
				cli_error("--provider: no provider '%s' in %s%s%s%s", only[k], dir,
				          hint ? " (did you mean '" : "", hint ? hint : "",
				          hint ? "'?)" : "");
			}
			exit_code = EXIT_USAGE;
		}
	isotier__findings_free(&findings);
	struct run r = {.err = &err, .max_unreachable_pct = a.max_unreachable_pct};
	const char *status = "failed";
	cleanup_free char *default_baseline =
	    baseline_path ? NULL : sources_default_baseline_path(dir);
	r.baseline_path = baseline_path ? baseline_path : default_baseline;
	if (exit_code == EXIT_OK && !r.baseline_path) {
		cli_error("sources check: out of memory");
		exit_code = EXIT_SOFTWARE;
	} else if (exit_code == EXIT_OK &&
	           sources_baseline_load(&r.baseline, r.baseline_path, &err) < 0) {
		exit_code = cli_fail(&err); /* a damaged baseline is never read as none */
	} else if (exit_code == EXIT_OK && isotier_html_available(&err) < 0) {
		/* Before any fetch or history row: without libxml2 no HTML page
		 * is readable, and every source would read UNREACHABLE (69). */
		exit_code = cli_fail(&err);
	}
	if (exit_code == EXIT_OK) {
		if (collect(&r, cat, only, n_only) < 0) {
			cli_error("sources check: out of memory");
			exit_code = EXIT_SOFTWARE;
		} else {
			int rc = run_checks(&r, db_path, dir, jobs, timeout_s, busy_ms, &status);
			if (rc == 0 && update_baseline && sources_keep_baseline(&r, cat) < 0)
				rc = err.code;
			if (r.run_id) {
				/* A URI's password is never printed (history.h). */
				char db_shown[512];
				isotier__history_display(db_path, db_shown, sizeof db_shown);
				if (json)
					sources_print_json(&r, db_shown, dir, status);
				else
					sources_print_text(&r, db_shown, status);
			}
			if (rc == ISOTIER_EINTR)
				exit_code = EXIT_INTERRUPTED;
			else if (rc < 0 && err.code == ISOTIER_EDB) {
				/* Not a lock: retrying later will not help. */
				cli_error("history database %s: %s%s", db_path, err.message,
				          cli_db_why(db_path));
				exit_code = EXIT_IOERR;
			} else if (rc < 0)
				exit_code = cli_fail(&err);
			else if (r.counts[1] || r.counts[2] || r.changes[SOURCES_PASSAGE_CHANGED])
				exit_code = EXIT_FINDING;
			else if (r.counts[3] && !r.counts[0]) {
				/* Nothing answered: no source was checked at all, and a
				 * run like this must not pass for this period's check. */
				if (r.counts[3] == 1)
					cli_error(
					    "the one source was UNREACHABLE: nothing was checked "
					    "(no network?); not a check, try again later");
				else
					cli_error(
					    "all %zu sources were UNREACHABLE: nothing was checked "
					    "(no network?); not a check, try again later",
					    r.counts[3]);
				exit_code = EXIT_TEMPFAIL;
			} else if (too_unreachable(&r)) {
				size_t total =
				    r.counts[0] + r.counts[1] + r.counts[2] + r.counts[3];
				cli_error("%zu of %zu sources were UNREACHABLE, more than %d%% "
				          "(--max-unreachable): too few answered for a check; "
				          "try again later, or find what blocks them",
				          r.counts[3], total, r.max_unreachable_pct);
				exit_code = EXIT_TEMPFAIL;
			}
		}
	}
	isotier__history_close(r.db);
	for (size_t i = 0; i < r.n_checks; i++) {
		free(r.checks[i].passage);
		free(r.checks[i].diff);
	}
	sources_baseline_free(&r.baseline);
	free(r.checks);
	free(r.urls);
	isotier__catalogue_free(cat);
	return exit_code;
}

static int sources_main(int argc, char **argv)
{
	return cli_subcommand(argc, argv, "check", sources_check, usage);
}

const struct cli_command cli_sources = {
    .name = "sources",
    .summary = "re-fetch every cited source and check its quote (sources check)",
    .main = sources_main,
};
