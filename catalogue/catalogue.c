/* SPDX-License-Identifier: Apache-2.0 */
/*
 * catalogue.c - the provider catalogue: parse one provider document (hostile
 * input), load a directory, free. Look-ups are in lookup.c; the validator's rules over
 * a loaded catalogue live in validate.c; findings in findings.c.
 * The provider-offering fields (provider, status, status_source,
 * renamed_from) are catalogue v2: FORMAT.md.
 */
#include "catalogue.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE_BYTES (256 * 1024)
#define MAX_FILES      4096
#define MAX_STRING     8192
#define MAX_ARRAY      64

/* ---- small helpers ------------------------------------------------------ */

static bool has_control_chars(const char *s, bool allow_newlines)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && !(allow_newlines && (*p == '\n' || *p == '\t'))) || *p == 0x7f)
			return true;
	return false;
}

/* ---- field tables --------------------------------------------------------- */

enum field_type { F_STRING, F_TEXT, F_TIER, F_SOURCES, F_HISTORY, F_STATUS_SOURCE, F_IDLIST };

struct field {
	const char *name;
	enum field_type type;
	bool required;
	size_t offset; /* into the target struct */
};

#define PF(name, type, req)                                                                        \
	{                                                                                          \
#name, type, req, offsetof(isotier_provider, name)                                 \
	}
static const struct field provider_fields[] = {
    PF(id, F_STRING, true),
    PF(name, F_STRING, true),
    PF(offering, F_STRING, false),
    PF(kind, F_STRING, true),
    PF(tier, F_TIER, true),
    PF(scope, F_STRING, false),
    PF(attestation, F_STRING, false),
    PF(mechanism, F_STRING, true),
    PF(since, F_STRING, true),
    PF(backend, F_STRING, false),
    PF(sources, F_SOURCES, true),
    PF(history, F_HISTORY, true),
    PF(notes, F_TEXT, true),
    PF(provider, F_STRING, false),
    PF(status, F_STRING, false),
    PF(status_source, F_STATUS_SOURCE, false),
    PF(renamed_from, F_IDLIST, false),
};
#define SF(name, req)                                                                              \
	{                                                                                          \
#name, F_STRING, req, offsetof(isotier_source, name)                               \
	}
static const struct field source_fields[] = {
    SF(url, true),       {"quote", F_TEXT, true, offsetof(isotier_source, quote)},
    SF(publisher, true), SF(retrieved, true),
    SF(title, false),    SF(published, false),
};
#define HF(name, type)                                                                             \
	{                                                                                          \
#name, type, true, offsetof(isotier_prior_claim, name)                             \
	}
static const struct field history_fields[] = {
    HF(tier, F_TIER),
    HF(mechanism, F_STRING),
    HF(until, F_STRING),
    HF(note, F_TEXT),
};
#define STF(name, type)                                                                            \
	{                                                                                          \
#name, type, true, offsetof(isotier_status_source, name)                           \
	}
static const struct field status_source_fields[] = {
    STF(date, F_STRING),
    STF(url, F_STRING),
    STF(quote, F_TEXT),
};
#define N_OF(a)    (sizeof(a) / sizeof((a)[0]))
#define MAX_FIELDS 24 /* parse_object tracks fields seen in a bool[MAX_FIELDS] */
_Static_assert(N_OF(provider_fields) <= MAX_FIELDS, "too many provider fields");
_Static_assert(N_OF(source_fields) <= MAX_FIELDS, "too many source fields");
_Static_assert(N_OF(history_fields) <= MAX_FIELDS, "too many history fields");
_Static_assert(N_OF(status_source_fields) <= MAX_FIELDS, "too many status_source fields");

struct parse_ctx {
	const char *file;
	isotier_findings *findings;
	size_t errors;
};

ISOTIER_PRINTF(3, 4)
static void perr(struct parse_ctx *ctx, const char *field, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	isotier__findings_add(ctx->findings, ISOTIER_FINDING_ERROR, ctx->file, field, "%s", buf);
	ctx->errors++;
}

static const char *json_type_name(const cJSON *j)
{
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsNull(j))
		return "null";
	if (cJSON_IsArray(j))
		return "an array";
	if (cJSON_IsObject(j))
		return "an object";
	return "invalid";
}

static int parse_object(struct parse_ctx *ctx, void *target, const cJSON *obj, const char *path,
                        const struct field *fields, size_t n_fields);

static void field_path(char *buf, size_t len, const char *path, const char *name)
{
	if (path[0])
		snprintf(buf, len, "%s.%s", path, name);
	else
		snprintf(buf, len, "%s", name);
}

static int parse_string(struct parse_ctx *ctx, char **out, const cJSON *v, const char *fpath,
                        bool text)
{
	if (!cJSON_IsString(v) || !v->valuestring) {
		perr(ctx, fpath, "must be a string, not %s", json_type_name(v));
		return 0;
	}
	size_t len = strlen(v->valuestring);
	if (len > MAX_STRING) {
		perr(ctx, fpath, "longer than %d bytes", MAX_STRING);
		return 0;
	}
	if (has_control_chars(v->valuestring, text)) {
		perr(ctx, fpath, "contains control characters");
		return 0;
	}
	if (!text && len == 0) {
		perr(ctx, fpath, "must not be empty");
		return 0;
	}
	*out = strdup(v->valuestring);
	if (!*out)
		return ISOTIER_ENOMEM;
	return 0;
}

static int parse_tier(struct parse_ctx *ctx, isotier_tier *out, const cJSON *v, const char *fpath)
{
	if (!cJSON_IsString(v) || !v->valuestring) {
		perr(ctx, fpath, "must be a string, not %s", json_type_name(v));
		return 0;
	}
	for (int t = ISOTIER_UNKNOWN; t <= ISOTIER_MICROVM; t++)
		if (!strcmp(v->valuestring, isotier_tier_name((isotier_tier)t))) {
			*out = (isotier_tier)t;
			return 0;
		}
	char shown[64];
	snprintf(shown, sizeof shown, "%.40s", v->valuestring);
	perr(ctx, fpath, "'%s' is not a tier (UNKNOWN, CONTAINER, GVISOR, MICROVM)", shown);
	return 0;
}

/* Checks that v is an array of at most max entries and allocates them
 * (zeroed): 1 when there are entries to parse, 0 when none (or a finding was
 * recorded), ISOTIER_ENOMEM. */
static int array_alloc(struct parse_ctx *ctx, void **items, size_t *n_items, size_t item_size,
                       const cJSON *v, const char *fpath, int max)
{
	if (!cJSON_IsArray(v)) {
		perr(ctx, fpath, "must be an array, not %s", json_type_name(v));
		return 0;
	}
	int n = cJSON_GetArraySize(v);
	if (n > max) {
		perr(ctx, fpath, "more than %d entries", max);
		return 0;
	}
	if (n == 0)
		return 0;
	*items = calloc((size_t)n, item_size);
	if (!*items)
		return ISOTIER_ENOMEM;
	*n_items = (size_t)n;
	return 1;
}

static int parse_array(struct parse_ctx *ctx, void **items, size_t *n_items, size_t item_size,
                       const cJSON *v, const char *fpath, const struct field *fields,
                       size_t n_fields)
{
	int ok = array_alloc(ctx, items, n_items, item_size, v, fpath, MAX_ARRAY);
	if (ok <= 0)
		return ok;
	int i = 0;
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		char epath[352];
		snprintf(epath, sizeof epath, "%s[%d]", fpath, i);
		int rc = parse_object(ctx, (char *)*items + (size_t)i * item_size, e, epath, fields,
		                      n_fields);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* An array of strings (renamed_from): at most ISOTIER_RENAMED_FROM_MAX, each
 * a non-empty line; the validator checks each is an id. */
static int parse_idlist(struct parse_ctx *ctx, char ***items, size_t *n_items, const cJSON *v,
                        const char *fpath)
{
	int ok = array_alloc(ctx, (void **)items, n_items, sizeof **items, v, fpath,
	                     ISOTIER_RENAMED_FROM_MAX);
	if (ok <= 0)
		return ok;
	int i = 0;
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		char epath[352];
		snprintf(epath, sizeof epath, "%s[%d]", fpath, i);
		int rc = parse_string(ctx, &(*items)[i], e, epath, false);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_object(struct parse_ctx *ctx, void *target, const cJSON *obj, const char *path,
                        const struct field *fields, size_t n_fields)
{
	if (!cJSON_IsObject(obj)) {
		perr(ctx, path, "must be an object, not %s", json_type_name(obj));
		return 0;
	}
	bool seen[MAX_FIELDS] = {false};
	for (const cJSON *m = obj->child; m; m = m->next) {
		char fpath[320];
		const char *key = m->string ? m->string : "";
		char shown[64];
		snprintf(shown, sizeof shown, "%.48s", key);
		field_path(fpath, sizeof fpath, path, shown);
		size_t k;
		for (k = 0; k < n_fields; k++)
			if (!strcmp(key, fields[k].name))
				break;
		if (k == n_fields) {
			perr(ctx, fpath, "unknown field");
			continue;
		}
		if (seen[k]) {
			perr(ctx, fpath, "duplicate field");
			continue;
		}
		seen[k] = true;
		void *dst = (char *)target + fields[k].offset;
		int rc = 0;
		switch (fields[k].type) {
		case F_STRING: rc = parse_string(ctx, dst, m, fpath, false); break;
		case F_TEXT: rc = parse_string(ctx, dst, m, fpath, true); break;
		case F_TIER: rc = parse_tier(ctx, dst, m, fpath); break;
		case F_SOURCES: {
			isotier_provider *p = target;
			rc = parse_array(ctx, (void **)&p->sources, &p->n_sources,
			                 sizeof(isotier_source), m, fpath, source_fields,
			                 N_OF(source_fields));
			break;
		}
		case F_HISTORY: {
			isotier_provider *p = target;
			rc = parse_array(ctx, (void **)&p->history, &p->n_history,
			                 sizeof(isotier_prior_claim), m, fpath, history_fields,
			                 N_OF(history_fields));
			break;
		}
		case F_STATUS_SOURCE: {
			isotier_provider *p = target;
			p->has_status_source = true;
			rc = parse_object(ctx, &p->status_source, m, fpath, status_source_fields,
			                  N_OF(status_source_fields));
			break;
		}
		case F_IDLIST: {
			isotier_provider *p = target;
			rc = parse_idlist(ctx, &p->renamed_from, &p->n_renamed_from, m, fpath);
			break;
		}
		}
		if (rc < 0)
			return rc;
	}
	for (size_t k = 0; k < n_fields; k++)
		if (fields[k].required && !seen[k]) {
			char fpath[320];
			field_path(fpath, sizeof fpath, path, fields[k].name);
			perr(ctx, fpath, "required field missing");
		}
	return 0;
}

/* ---- public: parse ----------------------------------------------------- */

bool isotier__scope_valid(const char *s)
{
	static const char *const scopes[] = {ISOTIER_SCOPES};
	for (size_t i = 0; s && i < N_OF(scopes); i++)
		if (!strcmp(s, scopes[i]))
			return true;
	return false;
}

void isotier__provider_clear(isotier_provider *p)
{
	if (!p)
		return;
	free(p->file);
	free(p->id);
	free(p->name);
	free(p->offering);
	free(p->kind);
	free(p->scope);
	free(p->attestation);
	free(p->mechanism);
	free(p->since);
	free(p->backend);
	free(p->notes);
	free(p->provider);
	free(p->status);
	free(p->status_source.date);
	free(p->status_source.url);
	free(p->status_source.quote);
	for (size_t i = 0; i < p->n_renamed_from; i++)
		free(p->renamed_from[i]);
	free(p->renamed_from);
	for (size_t i = 0; i < p->n_sources; i++) {
		free(p->sources[i].url);
		free(p->sources[i].quote);
		free(p->sources[i].publisher);
		free(p->sources[i].retrieved);
		free(p->sources[i].title);
		free(p->sources[i].published);
		free(p->sources[i].verified);
	}
	free(p->sources);
	for (size_t i = 0; i < p->n_history; i++) {
		free(p->history[i].mechanism);
		free(p->history[i].until);
		free(p->history[i].note);
	}
	free(p->history);
	memset(p, 0, sizeof *p);
}

static int provider_parse(isotier_provider *out, const char *json, size_t len, const char *file,
                          isotier_findings *findings, bool keep_partial)
{
	memset(out, 0, sizeof *out);
	struct parse_ctx ctx = {.file = file, .findings = findings};
	if (len > MAX_FILE_BYTES) {
		perr(&ctx, "", "larger than %d bytes", MAX_FILE_BYTES);
		return ISOTIER_EDATA;
	}
	if (memchr(json, '\0', len) || !isotier__utf8_valid(json, len)) {
		perr(&ctx, "", "not valid UTF-8 text");
		return ISOTIER_EDATA;
	}
	/* cJSON wants a NUL-terminated buffer to be safe from over-reads. */
	cleanup_free char *copy = malloc(len + 1);
	if (!copy) {
		perr(&ctx, "", "out of memory");
		return ISOTIER_EDATA;
	}
	memcpy(copy, json, len);
	copy[len] = '\0';
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, true);
	if (!root) {
		size_t at = end && end >= copy ? (size_t)(end - copy) : 0;
		size_t line = 1;
		for (size_t i = 0; i < at && i < len; i++)
			line += copy[i] == '\n';
		perr(&ctx, "", "not valid JSON (near byte %zu, line %zu)", at, line);
		return ISOTIER_EDATA;
	}
	/* A JSON file that is no provider at all (a schema copied among them, a
	 * stray config) is one error naming the file, not one per field. */
	if (cJSON_IsObject(root) && !cJSON_GetObjectItemCaseSensitive(root, "id") &&
	    !cJSON_GetObjectItemCaseSensitive(root, "tier") &&
	    !cJSON_GetObjectItemCaseSensitive(root, "kind")) {
		perr(
		    &ctx, "",
		    "not a provider file: it has no id, kind or tier%s; only provider files belong "
		    "in the catalogue directory",
		    cJSON_GetObjectItemCaseSensitive(root, "$schema") ? " (it is a JSON Schema)"
		                                                      : "");
		cJSON_Delete(root);
		return ISOTIER_EDATA;
	}
	int rc = parse_object(&ctx, out, root, "", provider_fields, N_OF(provider_fields));
	cJSON_Delete(root);
	/* A scope outside the vocabulary would hide what the tier covers:
	 * the entry does not load (fail closed), like a tier it cannot read. */
	if (rc == 0 && out->scope && !isotier__scope_valid(out->scope))
		perr(&ctx, "scope",
		     "'%.40s' is not a scope (per-sandbox, between-tenants, "
		     "between-accounts)",
		     out->scope);
	/* Attestation offered: a technology isotier can verify (attest.h). */
	if (rc == 0 && out->attestation && strcmp(out->attestation, "sev-snp") &&
	    strcmp(out->attestation, "tdx"))
		perr(&ctx, "attestation", "'%.40s' is not sev-snp or tdx", out->attestation);
	if (rc == 0 && !(out->file = strdup(file)))
		rc = ISOTIER_ENOMEM;
	if (rc < 0)
		perr(&ctx, "", "out of memory");
	if (rc < 0 || (ctx.errors && !keep_partial)) {
		isotier__provider_clear(out);
		return ISOTIER_EDATA;
	}
	return 0;
}

int isotier__provider_parse(isotier_provider *out, const char *json, size_t len, const char *file,
                            isotier_findings *findings)
{
	return provider_parse(out, json, len, file, findings, false);
}

/* ---- public: load ------------------------------------------------------ */

static int provider_cmp(const void *a, const void *b)
{
	const isotier_provider *pa = a, *pb = b;
	int c = strcmp(pa->id ? pa->id : "", pb->id ? pb->id : "");
	return c ? c : strcmp(pa->file, pb->file);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

static int catalogue_load(isotier_catalogue **out, const char *dir, isotier_findings *findings,
                          bool keep_partial, isotier_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return isotier__error_set(err, errno == ENOENT ? ISOTIER_ENOTFOUND : ISOTIER_EIO,
		                          errno, "open catalogue %s", dir);
	/* Read names first so the order (and so every message) is deterministic. */
	char **names = NULL;
	size_t n_names = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".json"))
			continue;
		if (n_names == MAX_FILES) {
			isotier__findings_add(findings, ISOTIER_FINDING_ERROR, dir, "",
			                      "more than %d files; the rest were not read",
			                      MAX_FILES);
			break;
		}
		char **nn = realloc(names, (n_names + 1) * sizeof *names);
		if (!nn || !(nn[n_names] = strdup(de->d_name))) {
			names = nn ? nn : names;
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "load %s: out of memory",
			                        dir);
			break;
		}
		names = nn;
		n_names++;
	}
	closedir(d);
	isotier_catalogue *c = NULL;
	if (rc == 0) {
		c = calloc(1, sizeof *c);
		if (!c || !(c->dir = strdup(dir)) ||
		    (n_names && !(c->providers = calloc(n_names, sizeof *c->providers))))
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "load %s: out of memory",
			                        dir);
	}
	if (n_names)
		qsort(names, n_names, sizeof *names, name_cmp);
	for (size_t i = 0; rc == 0 && i < n_names; i++) {
		size_t plen = strlen(dir) + strlen(names[i]) + 2;
		cleanup_free char *path = malloc(plen);
		if (!path) {
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "load %s: out of memory",
			                        dir);
			break;
		}
		snprintf(path, plen, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", names[i]);
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			isotier__findings_add(findings, ISOTIER_FINDING_ERROR, path, "",
			                      "not a regular file");
			continue;
		}
		cleanup_free char *buf = NULL;
		size_t len = 0;
		isotier_error ferr = {0};
		if (isotier__read_file(&buf, &len, path, MAX_FILE_BYTES, &ferr) < 0) {
			isotier__findings_add(findings, ISOTIER_FINDING_ERROR, path, "", "%s",
			                      ferr.message);
			continue;
		}
		if (provider_parse(&c->providers[c->n_providers], buf, len, path, findings,
		                   keep_partial) == 0)
			c->n_providers++;
	}
	for (size_t i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	if (rc < 0) {
		isotier__catalogue_free(c);
		return rc;
	}
	if (c->n_providers)
		qsort(c->providers, c->n_providers, sizeof *c->providers, provider_cmp);
	*out = c;
	return 0;
}

int isotier__catalogue_load(isotier_catalogue **out, const char *dir, isotier_findings *findings,
                            isotier_error *err)
{
	return catalogue_load(out, dir, findings, false, err);
}

int isotier__catalogue_load_partial(isotier_catalogue **out, const char *dir,
                                    isotier_findings *findings, isotier_error *err)
{
	return catalogue_load(out, dir, findings, true, err);
}

void isotier__catalogue_free(isotier_catalogue *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_providers; i++)
		isotier__provider_clear(&c->providers[i]);
	free(c->providers);
	free(c->dir);
	free(c);
}
