/* SPDX-License-Identifier: Apache-2.0 */
/* json.c - JSON in and out as hostile data: one reading per document (a
 * duplicate key is refused, whatever depth it is at), and valid UTF-8 in
 * everything isotier writes. */
#include "base.h"

#include <cJSON.h>
#include <string.h>

static int cmp_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first duplicate key in one object's members (sorted: n log n, so an
 * object of 100,000 members costs milliseconds), or NULL. */
static const char *object_duplicate(const cJSON *obj)
{
	size_t n = 0;
	for (const cJSON *m = obj->child; m; m = m->next)
		n++;
	if (n < 2)
		return NULL;
	const char **keys = malloc(n * sizeof *keys);
	if (!keys)
		return ""; /* out of memory: refuse rather than pass unchecked */
	size_t i = 0;
	for (const cJSON *m = obj->child; m; m = m->next)
		keys[i++] = m->string ? m->string : "";
	qsort(keys, n, sizeof *keys, cmp_keys);
	const char *dup = NULL;
	for (i = 1; i < n && !dup; i++)
		if (!strcmp(keys[i - 1], keys[i]))
			dup = keys[i];
	free(keys);
	return dup;
}

const char *isotier__json_duplicate_key(const cJSON *item)
{
	/* Depth is cJSON's own nesting limit (1000): recursion is bounded. */
	for (; item; item = item->next) {
		if (cJSON_IsObject(item)) {
			const char *dup = object_duplicate(item);
			if (dup)
				return dup;
		}
		if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
			const char *dup = isotier__json_duplicate_key(item->child);
			if (dup)
				return dup;
		}
	}
	return NULL;
}

/* What every reading refuses once cJSON has parsed: anything but whitespace
 * after the document (nul_tail: NUL bytes count as whitespace, for a buffer
 * read with its terminator) and a key given twice, which would be read
 * first-wins here and last-wins by jq or Python from a stored copy. Frees
 * doc on refusal. */
static cJSON *refuse_extra(cJSON *doc, const char *json, size_t len, const char *end, bool nul_tail,
                           const char *what, isotier_error *err)
{
	for (const char *p = end; p && p < json + len; p++)
		if (*p != ' ' && *p != '\n' && *p != '\r' && *p != '\t' &&
		    (*p != '\0' || !nul_tail)) {
			cJSON_Delete(doc);
			isotier__error_set(err, ISOTIER_EDATA, 0, "%s: trailing data at byte %zu",
			                   what, (size_t)(p - json));
			return NULL;
		}
	const char *dup = isotier__json_duplicate_key(doc);
	if (dup) {
		char shown[64];
		snprintf(shown, sizeof shown, "%.48s", dup);
		cJSON_Delete(doc);
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: duplicate key \"%s\"", what, shown);
		return NULL;
	}
	return doc;
}

cJSON *isotier__json_parse(const char *json, size_t len, const char *what, isotier_error *err)
{
	if (!json) {
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: empty", what);
		return NULL;
	}
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(json, len, &end, false);
	if (!doc) {
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not valid JSON", what);
		return NULL;
	}
	return refuse_extra(doc, json, len, end, true, what, err);
}

cJSON *isotier__json_parse_limited(const char *json, size_t len, int max_depth, const char *what,
                                   isotier_error *err)
{
	if (!json || len == 0) {
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: empty", what);
		return NULL;
	}
	if (memchr(json, '\0', len)) {
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: contains a NUL byte", what);
		return NULL;
	}
	/* cJSON recurses per nesting level: deep nesting is refused before it
	 * parses (a bracket inside a string is not nesting). */
	int depth = 0;
	bool in_string = false, escaped = false;
	for (size_t i = 0; i < len; i++) {
		char c = json[i];
		if (in_string) {
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if ((c == '{' || c == '[') && ++depth > max_depth) {
			isotier__error_set(err, ISOTIER_EDATA, 0,
			                   "%s: nested deeper than %d levels", what, max_depth);
			return NULL;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(json, len, &end, false);
	if (!doc) {
		size_t off = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;
		isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not JSON (at byte %zu)", what, off);
		return NULL;
	}
	return refuse_extra(doc, json, len, end, false, what, err);
}

char *isotier__utf8_scrub(const char *s, size_t *n_replaced)
{
	size_t len = strlen(s), bad = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = isotier__utf8_decode(p + i, len - i, &cp);
		if (n == 0)
			bad++, n = 1;
		i += n;
	}
	char *out = malloc(len + 2 * bad + 1); /* each bad byte: 1 -> 3 (EF BF BD) */
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = isotier__utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3, i++;
		} else {
			memcpy(out + o, s + i, n);
			o += n, i += n;
		}
	}
	out[o] = '\0';
	if (n_replaced)
		*n_replaced = bad;
	return out;
}

/* Replaces s (a cJSON-owned string) by its scrubbed copy when it needs one. */
static int scrub_owned(char **s, size_t *replaced)
{
	if (!*s || isotier__utf8_valid(*s, strlen(*s)))
		return 0;
	size_t n = 0;
	char *clean = isotier__utf8_scrub(*s, &n);
	if (!clean)
		return -1;
	char *copy = cJSON_malloc(strlen(clean) + 1);
	if (!copy) {
		free(clean);
		return -1;
	}
	strcpy(copy, clean);
	free(clean);
	cJSON_free(*s);
	*s = copy;
	*replaced += n;
	return 0;
}

int isotier__json_scrub(cJSON *item, size_t *replaced)
{
	for (; item; item = item->next) {
		/* Keys added with a constant (cJSON_StringIsConst) are ours, ASCII. */
		if (!(item->type & cJSON_StringIsConst) && scrub_owned(&item->string, replaced) < 0)
			return -1;
		if (cJSON_IsString(item) && !(item->type & cJSON_IsReference) &&
		    scrub_owned(&item->valuestring, replaced) < 0)
			return -1;
		if ((cJSON_IsObject(item) || cJSON_IsArray(item)) &&
		    isotier__json_scrub(item->child, replaced) < 0)
			return -1;
	}
	return 0;
}

/* Scrubs one value; an object that needed it says how many bytes were
 * replaced, in "utf8_replacements". */
static int scrub_noted(cJSON *item)
{
	size_t replaced = 0;
	cJSON *next = item->next;
	item->next = NULL; /* this value only */
	int rc = isotier__json_scrub(item, &replaced);
	item->next = next;
	if (rc < 0)
		return -1;
	if (replaced && cJSON_IsObject(item) &&
	    !cJSON_GetObjectItemCaseSensitive(item, "utf8_replacements") &&
	    !cJSON_AddNumberToObject(item, "utf8_replacements", (double)replaced))
		return -1;
	return 0;
}

char *isotier__json_print(cJSON *doc, bool formatted)
{
	if (cJSON_IsArray(doc)) {
		for (cJSON *e = doc->child; e; e = e->next)
			if (scrub_noted(e) < 0)
				return NULL;
	} else if (scrub_noted(doc) < 0) {
		return NULL;
	}
	return formatted ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
}
