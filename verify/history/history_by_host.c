/* SPDX-License-Identifier: Apache-2.0 */
/* history_by_host.c - `isotier history --by-host`: what each host last
 * observed of each backend, as a host x backend table or JSON. */
#include "history_table.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* --by-host: what each host last observed of each backend (the newest row
 * per host and backend; the listing is newest first). Bounded: at most
 * BY_HOST_MAX pairs are kept. */
#define BY_HOST_MAX 4096
typedef struct host_cell {
	char host[80], backend[65], time[32], observed[40], verdict[24];
	int64_t id;
} host_cell;
typedef struct by_host {
	host_cell *cells;
	size_t n;
} by_host;

static int by_host_row(void *ctx, const isotier_observation_listing *r)
{
	by_host *b = ctx;
	const char *host = r->host ? r->host : r->host_id ? r->host_id : "-";
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->cells[i].backend, r->backend ? r->backend : "") &&
		    !strncmp(b->cells[i].host, host, sizeof b->cells[i].host - 1))
			return 0;
	if (b->n == BY_HOST_MAX)
		return 0;
	host_cell *c = &b->cells[b->n++];
	snprintf(c->host, sizeof c->host, "%s", host);
	snprintf(c->backend, sizeof c->backend, "%s", r->backend ? r->backend : "");
	snprintf(c->time, sizeof c->time, "%s", r->observed_at ? r->observed_at : "");
	snprintf(c->observed, sizeof c->observed, "%s", r->observed_tier ? r->observed_tier : "");
	snprintf(c->verdict, sizeof c->verdict, "%s", r->verdict ? r->verdict : "");
	c->id = r->id;
	return 0;
}

static int cmp_cell(const void *x, const void *y)
{
	const host_cell *a = x, *b = y;
	int c = strcmp(a->host, b->host);
	return c ? c : strcmp(a->backend, b->backend);
}

int history_by_host(isotier_history *h, isotier_observation_filter flt, bool json, bool wide,
                    isotier_error *err)
{
	by_host b = {calloc(BY_HOST_MAX, sizeof *b.cells), 0};
	if (!b.cells)
		return ISOTIER_ENOMEM;
	flt.limit = 0;
	int rc = isotier__history_list_observations(h, &flt, by_host_row, &b, err);
	if (rc < 0) {
		free(b.cells);
		return rc;
	}
	qsort(b.cells, b.n, sizeof *b.cells, cmp_cell);
	if (json) {
		cJSON *doc = cJSON_CreateObject(), *arr = NULL;
		if (doc) {
			cJSON_AddStringToObject(doc, "schema", "isotier.history.hosts/1");
			arr = cJSON_AddArrayToObject(doc, "latest");
		}
		for (size_t i = 0; arr && i < b.n; i++) {
			cJSON *o = cJSON_CreateObject();
			if (!o)
				break;
			cJSON_AddStringToObject(o, "host", b.cells[i].host);
			cJSON_AddStringToObject(o, "backend", b.cells[i].backend);
			cJSON_AddNumberToObject(o, "id", (double)b.cells[i].id);
			cJSON_AddStringToObject(o, "observed_at", b.cells[i].time);
			cJSON_AddStringToObject(o, "observed_tier", b.cells[i].observed);
			cJSON_AddStringToObject(o, "verdict", b.cells[i].verdict);
			cJSON_AddItemToArray(arr, o);
		}
		char *text = doc ? isotier__json_print(doc, true) : NULL;
		cJSON_Delete(doc);
		if (text)
			puts(text);
		rc = text ? 0 : ISOTIER_ENOMEM;
		free(text);
	} else if (!b.n) {
		printf("(no observations%s)\n", flt.backend || flt.host ? " match" : "");
	} else {
		static const char *const hdr[] = {"HOST", "BACKEND",  "ID",
		                                  "TIME", "OBSERVED", "VERDICT"};
		static const int caps[] = {24, 14, 8, 20, 10, 0};
		const char **cells = calloc(b.n * 6, sizeof *cells);
		char(*ids)[24] = calloc(b.n, sizeof *ids);
		if (cells && ids) {
			for (size_t i = 0; i < b.n; i++) {
				snprintf(ids[i], sizeof ids[i], "%lld", (long long)b.cells[i].id);
				const char *row[6] = {
				    b.cells[i].host, b.cells[i].backend,  ids[i],
				    b.cells[i].time, b.cells[i].observed, b.cells[i].verdict};
				memcpy(&cells[i * 6], row, sizeof row);
			}
			history_table(stdout, hdr, caps, 6, cells, b.n, wide);
		} else {
			rc = ISOTIER_ENOMEM;
		}
		free(cells), free(ids);
	}
	free(b.cells);
	return rc;
}
