/* SPDX-License-Identifier: Apache-2.0 */
/* sources_print.c - what `isotier sources check` prints (text and --json)
 * and what --update-baseline keeps (sources_run.h). */
#include "sources_run.h"
#include "../cmd/cli.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <string.h>

const char *const sources_status_names[4] = {"PRESENT", "CHANGED", "GONE", "UNREACHABLE"};

void sources_print_text(const struct run *r, const char *db, const char *status)
{
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct check *c = &r->checks[i];
		if (!c->status)
			continue;
		char line[4096];
		char tag[64] = ""; /* how the page moved; nothing when unchanged */
		if (c->has_change && c->change)
			snprintf(tag, sizeof tag, "  [%s]", sources_change_words(c->change));
		snprintf(line, sizeof line, "%-11s %-24s %s%s%s%s%s\n", c->status, c->provider->id,
		         c->source->url, c->stored ? "" : "  [NOT stored]", tag,
		         c->detail[0] ? "\n            " : "", c->detail);
		isotier__fputs_sanitized(stdout, line);
		if (c->diff) { /* the kept passage against today's, word by word */
			fputs("            passage: ", stdout);
			isotier__fputs_inline(stdout, c->diff);
			fputc('\n', stdout);
		}
	}
	size_t checked = r->counts[0] + r->counts[1] + r->counts[2] + r->counts[3];
	char lost[64] = "";
	if (r->not_stored)
		snprintf(lost, sizeof lost, "; %zu NOT stored", r->not_stored);
	printf("sources check: %zu of %zu checked: %zu PRESENT, %zu CHANGED, %zu GONE, "
	       "%zu UNREACHABLE%s; run %lld in %s (%s)\n",
	       checked, r->n_checks, r->counts[0], r->counts[1], r->counts[2], r->counts[3], lost,
	       (long long)r->run_id, db, status);
	printf("against the baseline %s: %zu unchanged, %zu passage changed, %zu page changed "
	       "elsewhere, %zu quote gone, %zu without a baseline\n",
	       r->baseline_path, r->changes[SOURCES_UNCHANGED], r->changes[SOURCES_PASSAGE_CHANGED],
	       r->changes[SOURCES_PAGE_CHANGED], r->changes[SOURCES_QUOTE_GONE], r->no_baseline);
}

int sources_print_json(const struct run *r, const char *db, const char *dir, const char *status)
{
	cJSON *o = cJSON_CreateObject(), *counts = cJSON_CreateObject(),
	      *list = cJSON_CreateArray();
	if (!o || !counts || !list) {
		cJSON_Delete(o);
		cJSON_Delete(counts);
		cJSON_Delete(list);
		return -1;
	}
	cJSON_AddNumberToObject(o, "run_id", (double)r->run_id);
	cJSON_AddStringToObject(o, "db", db);
	cJSON_AddStringToObject(o, "catalogue", dir);
	cJSON_AddStringToObject(o, "status", status);
	size_t checked = r->counts[0] + r->counts[1] + r->counts[2] + r->counts[3];
	cJSON_AddNumberToObject(counts, "checked", (double)checked);
	for (int s = 0; s < 4; s++)
		cJSON_AddNumberToObject(counts, sources_status_names[s], (double)r->counts[s]);
	cJSON_AddNumberToObject(counts, "unchecked", (double)(r->n_checks - checked));
	cJSON_AddNumberToObject(counts, "not_stored", (double)r->not_stored);
	for (int k = 0; k < 4; k++)
		cJSON_AddNumberToObject(counts, sources_change_name((sources_change)k),
		                        (double)r->changes[k]);
	cJSON_AddNumberToObject(counts, "no_baseline", (double)r->no_baseline);
	cJSON_AddStringToObject(o, "baseline", r->baseline_path);
	cJSON_AddItemToObject(o, "counts", counts);
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct check *c = &r->checks[i];
		cJSON *e = c->status ? cJSON_CreateObject() : NULL;
		if (!e)
			continue;
		cJSON_AddStringToObject(e, "provider", c->provider->id);
		cJSON_AddStringToObject(e, "url", c->source->url);
		cJSON_AddStringToObject(e, "quote", c->source->quote);
		cJSON_AddStringToObject(e, "publisher", c->source->publisher);
		cJSON_AddStringToObject(e, "status", c->status);
		if (c->http_status)
			cJSON_AddNumberToObject(e, "http_status", (double)c->http_status);
		else
			cJSON_AddNullToObject(e, "http_status");
		if (c->sha256[0])
			cJSON_AddStringToObject(e, "content_sha256", c->sha256);
		else
			cJSON_AddNullToObject(e, "content_sha256");
		cJSON_AddStringToObject(e, "detail", c->detail);
		if (c->has_change)
			cJSON_AddStringToObject(e, "change", sources_change_name(c->change));
		else
			cJSON_AddNullToObject(e, "change");
		if (c->diff)
			cJSON_AddStringToObject(e, "passage_diff", c->diff);
		else
			cJSON_AddNullToObject(e, "passage_diff");
		if (c->passage)
			cJSON_AddStringToObject(e, "passage", c->passage);
		else
			cJSON_AddNullToObject(e, "passage");
		cJSON_AddStringToObject(e, "retrieved", c->source->retrieved);
		if (c->source->published)
			cJSON_AddStringToObject(e, "published", c->source->published);
		else
			cJSON_AddNullToObject(e, "published");
		cJSON_AddNumberToObject(e, "attempts", c->attempts);
		cJSON_AddStringToObject(e, "checked_at", c->checked_at);
		cJSON_AddBoolToObject(e, "stored", c->stored);
		cJSON_AddItemToArray(list, e);
	}
	cJSON_AddItemToObject(o, "sources", list);
	return cli_print_json(o);
}

/* sources.lock.json beside the provider directory (catalogue/providers ->
 * catalogue/sources.lock.json): the baseline travels with the catalogue. */
char *sources_default_baseline_path(const char *dir)
{
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	char trimmed[PATH_MAX], path[PATH_MAX];
	if (len >= sizeof trimmed)
		return NULL;
	snprintf(trimmed, sizeof trimmed, "%.*s", (int)len, dir);
	/* An installed host keeps it in the state directory, never in the
	 * package's own files (reference/core/paths.h). */
	if (isotier__default_baseline_path(path, sizeof path, trimmed) < 0)
		return NULL;
	return strdup(path);
}

static bool still_cited(const sources_baseline_entry *e, void *arg)
{
	const isotier_catalogue *cat = arg;
	for (size_t i = 0; i < cat->n_providers; i++)
		for (size_t s = 0; s < cat->providers[i].n_sources; s++)
			if (!strcmp(cat->providers[i].sources[s].url, e->url) &&
			    !strcmp(cat->providers[i].sources[s].quote, e->quote))
				return true;
	return false;
}

/* --update-baseline: keep what was read for every source whose quote is on
 * the page; one that is gone or unread keeps its old entry (a baseline never
 * records a page that does not defend its quote). */
int sources_keep_baseline(struct run *r, const isotier_catalogue *cat)
{
	size_t kept = 0;
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct check *c = &r->checks[i];
		if (!c->status || strcmp(c->status, "PRESENT") || !c->passage)
			continue;
		if (sources_baseline_put(&r->baseline, c->source->url, c->source->quote,
		                         c->checked_at, c->main_sha, c->passage) < 0)
			return isotier__error_set(r->err, ISOTIER_ENOMEM, 0, "out of memory");
		kept++;
	}
	sources_baseline_filter(&r->baseline, still_cited, (void *)cat);
	int rc = sources_baseline_save(&r->baseline, r->baseline_path, r->err);
	if (rc == 0)
		fprintf(stderr, "sources check: baseline %s keeps %zu sources (%zu read now)\n",
		        r->baseline_path, r->baseline.n, kept);
	return rc;
}
