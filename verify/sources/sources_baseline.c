/* SPDX-License-Identifier: Apache-2.0 */
/* sources_baseline.c - the kept baseline of cited sources: load, look up,
 * update, save (sources_baseline.h). */
#include "sources_baseline.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIELD_MAX 65536 /* bytes of one string field */

static void entry_free(sources_baseline_entry *e)
{
	free(e->url);
	free(e->quote);
	free(e->taken_at);
	free(e->main_text_sha256);
	free(e->passage);
	memset(e, 0, sizeof *e);
}

void sources_baseline_free(sources_baseline *b)
{
	for (size_t i = 0; i < b->n; i++)
		entry_free(&b->e[i]);
	free(b->e);
	memset(b, 0, sizeof *b);
}

const sources_baseline_entry *sources_baseline_find(const sources_baseline *b, const char *url,
                                                    const char *quote)
{
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->e[i].url, url) && !strcmp(b->e[i].quote, quote))
			return &b->e[i];
	return NULL;
}

static int append(sources_baseline *b, sources_baseline_entry *e)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		sources_baseline_entry *ne = realloc(b->e, cap * sizeof *ne);
		if (!ne)
			return ISOTIER_ENOMEM;
		b->e = ne;
		b->cap = cap;
	}
	b->e[b->n++] = *e;
	return 0;
}

int sources_baseline_put(sources_baseline *b, const char *url, const char *quote,
                         const char *taken_at, const char *main_text_sha256, const char *passage)
{
	sources_baseline_entry e = {
	    .url = strdup(url),
	    .quote = strdup(quote),
	    .taken_at = strdup(taken_at),
	    .main_text_sha256 = strdup(main_text_sha256),
	    .passage = strdup(passage),
	};
	if (!e.url || !e.quote || !e.taken_at || !e.main_text_sha256 || !e.passage) {
		entry_free(&e);
		return ISOTIER_ENOMEM;
	}
	for (size_t i = 0; i < b->n; i++)
		if (!strcmp(b->e[i].url, url) && !strcmp(b->e[i].quote, quote)) {
			entry_free(&b->e[i]);
			b->e[i] = e;
			return 0;
		}
	if (b->n >= SOURCES_BASELINE_MAX || append(b, &e) < 0) {
		entry_free(&e);
		return ISOTIER_ENOMEM;
	}
	return 0;
}

void sources_baseline_filter(sources_baseline *b,
                             bool (*keep)(const sources_baseline_entry *e, void *arg), void *arg)
{
	size_t o = 0;
	for (size_t i = 0; i < b->n; i++) {
		if (keep(&b->e[i], arg))
			b->e[o++] = b->e[i];
		else
			entry_free(&b->e[i]);
	}
	b->n = o;
}

static bool hex64(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	return true;
}

/* One entry of "sources"; err names path and index. */
static int load_entry(sources_baseline *b, const cJSON *o, size_t i, const char *path,
                      isotier_error *err)
{
	static const char *const keys[] = {"url", "quote", "taken_at", "main_text_sha256",
	                                   "passage"};
	if (!cJSON_IsObject(o))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: sources[%zu]: not an object",
		                          path, i);
	for (const cJSON *k = o->child; k; k = k->next) {
		bool known = false;
		for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
			known |= !strcmp(k->string, keys[j]);
		if (!known)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "%s: sources[%zu].%.40s: unknown field", path, i,
			                          k->string);
	}
	const char *v[5];
	for (size_t j = 0; j < 5; j++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, keys[j]);
		if (!cJSON_IsString(f) || strlen(f->valuestring) > FIELD_MAX)
			return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: sources[%zu].%s: %s",
			                          path, i, keys[j],
			                          f ? "not a string of at most 64 KiB" : "missing");
		v[j] = f->valuestring;
	}
	if (!hex64(v[3]))
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "%s: sources[%zu].main_text_sha256: not 64 lowercase hex "
		                          "digits",
		                          path, i);
	if (sources_baseline_find(b, v[0], v[1]))
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: sources[%zu]: a second entry for the same url and quote", path, i);
	if (sources_baseline_put(b, v[0], v[1], v[2], v[3], v[4]) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", path);
	return 0;
}

int sources_baseline_parse(sources_baseline *b, const char *text, size_t len, const char *path,
                           isotier_error *err)
{
	memset(b, 0, sizeof *b);
	if (len > SOURCES_BASELINE_MAX_BYTES)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %d bytes", path,
		                          SOURCES_BASELINE_MAX_BYTES);
	cJSON *doc = isotier__json_parse(text, len, path, err);
	if (!doc)
		return ISOTIER_EDATA;
	int rc = 0;
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "sources");
	if (!cJSON_IsObject(doc) || !cJSON_IsString(fmt) ||
	    strcmp(fmt->valuestring, SOURCES_BASELINE_FORMAT))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s: format: not \"%s\"", path,
		                        SOURCES_BASELINE_FORMAT);
	else if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > SOURCES_BASELINE_MAX)
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "%s: sources: not an array of at most %d entries", path,
		                        SOURCES_BASELINE_MAX);
	for (const cJSON *k = rc == 0 ? doc->child : NULL; k && rc == 0; k = k->next)
		if (strcmp(k->string, "format") && strcmp(k->string, "sources"))
			rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s: %.40s: unknown field",
			                        path, k->string);
	size_t i = 0;
	for (const cJSON *o = rc == 0 ? list->child : NULL; o && rc == 0; o = o->next, i++)
		rc = load_entry(b, o, i, path, err);
	cJSON_Delete(doc);
	if (rc < 0)
		sources_baseline_free(b);
	return rc;
}

int sources_baseline_load(sources_baseline *b, const char *path, isotier_error *err)
{
	memset(b, 0, sizeof *b);
	struct stat st;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0; /* no baseline yet: nothing to compare with */
	cleanup_free char *text = NULL;
	size_t len = 0;
	int rc = isotier__read_file(&text, &len, path, SOURCES_BASELINE_MAX_BYTES + 1, err);
	if (rc < 0)
		return isotier__error_prefix(err, "source baseline");
	return sources_baseline_parse(b, text, len, path, err);
}

static int entry_cmp(const void *x, const void *y)
{
	const sources_baseline_entry *a = x, *b = y;
	int c = strcmp(a->url, b->url);
	return c ? c : strcmp(a->quote, b->quote);
}

int sources_baseline_save(const sources_baseline *b, const char *path, isotier_error *err)
{
	struct stat st;
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "source baseline %s: is %s, not a regular file: refused", path,
		    S_ISLNK(st.st_mode) ? "a symbolic link" : isotier__file_kind(st.st_mode));
	qsort(b->e, b->n, sizeof *b->e, entry_cmp);
	cJSON *doc = cJSON_CreateObject(), *list = cJSON_CreateArray();
	if (!doc || !list) {
		cJSON_Delete(doc);
		cJSON_Delete(list);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	cJSON_AddStringToObject(doc, "format", SOURCES_BASELINE_FORMAT);
	cJSON_AddItemToObject(doc, "sources", list);
	for (size_t i = 0; i < b->n; i++) {
		const sources_baseline_entry *e = &b->e[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "url", e->url);
		cJSON_AddStringToObject(o, "quote", e->quote);
		cJSON_AddStringToObject(o, "taken_at", e->taken_at);
		cJSON_AddStringToObject(o, "main_text_sha256", e->main_text_sha256);
		cJSON_AddStringToObject(o, "passage", e->passage);
		cJSON_AddItemToArray(list, o);
	}
	cleanup_free char *json = isotier__json_print(doc, true);
	bool complete = (size_t)cJSON_GetArraySize(list) == b->n;
	cJSON_Delete(doc);
	if (!json || !complete)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	size_t plen = strlen(path);
	cleanup_free char *tmp = malloc(plen + 16);
	if (!tmp)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "source baseline %s: create",
		                          tmp);
	bool ok = isotier__write_all(fd, json, strlen(json)) == 0 && write(fd, "\n", 1) == 1 &&
	          fchmod(fd, 0644) == 0 && fsync(fd) == 0;
	int e = errno;
	if (close(fd) < 0)
		ok = false;
	if (!ok || rename(tmp, path) < 0) {
		e = ok ? errno : e;
		unlink(tmp);
		return isotier__error_set(err, ISOTIER_EIO, e, "source baseline %s: write", path);
	}
	return 0;
}
