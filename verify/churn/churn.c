/* SPDX-License-Identifier: Apache-2.0 */
/* churn.c - the catalogue's history through libgit2: snapshots, diffs, the
 * first-parent timeline. Object database only: no checkout, no git binary. */
#include "churn.h"

#include <cjson/cJSON.h>
#include <string.h>

/* Sets err from the last libgit2 error, after a formatted context. */
static int git_fail(isotier_error *err, int code, const char *fmt, ...) ISOTIER_PRINTF(3, 4);
static int git_fail(isotier_error *err, int code, const char *fmt, ...)
{
	char ctx[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ctx, sizeof ctx, fmt, ap);
	va_end(ap);
	const git_error *e = git_error_last();
	return isotier__error_set(err, code, 0, "%s: %s", ctx,
	                          e && e->message ? e->message : "libgit2 error");
}

void churn_short_id(char *buf, size_t len, const git_oid *oid)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof hex, oid);
	snprintf(buf, len, "%.12s", hex);
}

int churn_repo_open(git_repository **out, const char *path, isotier_error *err)
{
	const char *where = path ? path : ".";
	if (git_repository_open_ext(out, where, path ? GIT_REPOSITORY_OPEN_NO_SEARCH : 0, NULL) < 0)
		return git_fail(err, ISOTIER_ENOTFOUND, "open git repository %s", where);
	return 0;
}

static const char *shallow_hint(git_repository *repo)
{
	return git_repository_is_shallow(repo) == 1
	           ? " (this is a shallow clone: the commit may be outside it; fetch the full "
	             "history, e.g. `git fetch --unshallow --tags`, or check out with fetch-depth: "
	             "0)"
	           : "";
}

int churn_resolve(git_commit **out, git_repository *repo, const char *spec, isotier_error *err)
{
	cleanup_git_object git_object *obj = NULL;
	cleanup_git_object git_object *peeled = NULL;
	int rc = git_revparse_single(&obj, repo, spec);
	if (rc < 0) {
		const git_error *e = git_error_last();
		return isotier__error_set(
		    err, ISOTIER_ENOTFOUND, 0,
		    "revision '%s' not found (a tag, branch or commit id): %s%s", spec,
		    e && e->message ? e->message : "", shallow_hint(repo));
	}
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0)
		return git_fail(err, ISOTIER_ENOTFOUND, "revision '%s' is not a commit%s", spec,
		                shallow_hint(repo));
	*out = (git_commit *)steal_pointer(&peeled);
	return 0;
}

/* ---- one provider file ------------------------------------------------ */

static bool ident_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > CHURN_ID_MAX || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

static void cjson_deletep(cJSON **p)
{
	cJSON_Delete(*p);
}

/* The catalogue v2 fields churn reads: status (default "current") and
 * renamed_from; absent in older revisions, strictly checked when present. */
static int offering_parse_json(churn_claim *out, const cJSON *root, const char *where,
                               isotier_error *err)
{
	/* The scope is part of the claim (FORMAT.md): absent is "not said". */
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(root, "scope");
	out->claim.scope_given = true;
	if (sc) {
		if (!cJSON_IsString(sc) || !isotier__scope_valid(sc->valuestring))
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "%s: field \"scope\" must be per-sandbox, "
			                          "between-tenants or between-accounts",
			                          where);
		snprintf(out->claim.scope, sizeof out->claim.scope, "%s", sc->valuestring);
	}
	snprintf(out->status, sizeof out->status, "current");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "status");
	if (st) {
		if (!cJSON_IsString(st) || !st->valuestring ||
		    (strcmp(st->valuestring, "current") && strcmp(st->valuestring, "deprecated") &&
		     strcmp(st->valuestring, "retired")))
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "%s: field \"status\" must be \"current\", "
			                          "\"deprecated\" or \"retired\"",
			                          where);
		snprintf(out->status, sizeof out->status, "%s", st->valuestring);
	}
	const cJSON *rf = cJSON_GetObjectItemCaseSensitive(root, "renamed_from");
	if (!rf)
		return 0;
	int n = cJSON_IsArray(rf) ? cJSON_GetArraySize(rf) : -1;
	if (n < 0 || n > CHURN_RENAMED_FROM_MAX)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: field \"renamed_from\" must be an array of at most %d "
		    "ids",
		    where, CHURN_RENAMED_FROM_MAX);
	if (n == 0)
		return 0;
	if (!(out->renamed_from = calloc((size_t)n, sizeof *out->renamed_from)))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	for (const cJSON *e = rf->child; e; e = e->next) {
		if (!cJSON_IsString(e) || !e->valuestring || !ident_ok(e->valuestring))
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "%s: field \"renamed_from\" must hold ids [a-z0-9][a-z0-9-]* (at most "
			    "%d bytes)",
			    where, CHURN_ID_MAX);
		if (!(out->renamed_from[out->n_renamed_from++] = strdup(e->valuestring)))
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	return 0;
}

/* Tolerant of schema drift across history: only id, tier and mechanism, and
 * the offering fields when present. On error *out may hold partial members:
 * the caller clears it. */
int churn_claim_parse(churn_claim *out, const char *buf, size_t len, const char *where,
                      isotier_error *err)
{
	char **id = &out->id;
	churn_claimref *claim = &out->claim;
	/* A key given twice has two readings (first-wins here, last-wins in jq):
	 * refused, as the catalogue loader does. */
	__attribute__((cleanup(cjson_deletep))) cJSON *root =
	    isotier__json_parse(buf, len, where, err);
	if (!root)
		return ISOTIER_EDATA;
	if (!cJSON_IsObject(root))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not a JSON object", where);
	static const char *const fields[] = {"id", "tier", "mechanism"};
	const char *v[3];
	for (int i = 0; i < 3; i++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, fields[i]);
		if (!f)
			return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: field \"%s\" missing",
			                          where, fields[i]);
		if (!cJSON_IsString(f) || !f->valuestring)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "%s: field \"%s\" is not a string", where,
			                          fields[i]);
		v[i] = f->valuestring;
	}
	if (!ident_ok(v[0]))
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: field \"id\" must match [a-z0-9][a-z0-9-]* (at most %d bytes)", where,
		    CHURN_ID_MAX);
	if (isotier_tier_parse(&claim->tier, v[1]) < 0)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: field \"tier\": unknown tier",
		                          where);
	if (!ident_ok(v[2]))
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0,
		    "%s: field \"mechanism\" must match [a-z0-9][a-z0-9-]* (at most %d bytes)",
		    where, CHURN_ID_MAX);
	snprintf(claim->mechanism, sizeof claim->mechanism, "%s", v[2]);
	if (!(*id = strdup(v[0])))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	return offering_parse_json(out, root, where, err);
}

/* Checks a blob's size from its header before reading it: a hostile
 * repository cannot make us load a huge object. */
static int blob_size_ok(git_repository *repo, const git_oid *oid, size_t max, const char *where,
                        isotier_error *err)
{
	git_odb *odb = NULL;
	size_t len = 0;
	git_object_t type;
	if (git_repository_odb(&odb, repo) < 0)
		return git_fail(err, ISOTIER_EDATA, "%s: open object database", where);
	int rc = git_odb_read_header(&len, &type, odb, oid);
	git_odb_free(odb);
	if (rc < 0)
		return git_fail(err, ISOTIER_EDATA, "%s: read object", where);
	if (len > max)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %zu bytes", where,
		                          max);
	return 0;
}

/* ---- parsed-blob cache: each historical file version is parsed once ---- */

typedef struct blob_slot {
	git_oid oid;
	bool used;
	churn_claim c; /* path unused */
} blob_slot;

typedef struct blob_cache {
	blob_slot *slots;
	size_t cap, n; /* cap: a power of two */
} blob_cache;

static void blob_cache_free(blob_cache *c)
{
	for (size_t i = 0; i < c->cap; i++)
		churn_claim_clear(&c->slots[i].c);
	free(c->slots);
	memset(c, 0, sizeof *c);
}

static size_t slot_of(const blob_cache *c, const git_oid *oid)
{
	size_t h;
	memcpy(&h, oid->id, sizeof h);
	for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1))
		if (!c->slots[i].used || git_oid_equal(&c->slots[i].oid, oid))
			return i;
}

static int blob_cache_grow(blob_cache *c)
{
	blob_cache bigger = {.cap = c->cap ? c->cap * 2 : 256};
	if (!(bigger.slots = calloc(bigger.cap, sizeof *bigger.slots)))
		return ISOTIER_ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slots[i].used)
			bigger.slots[slot_of(&bigger, &c->slots[i].oid)] = c->slots[i];
	bigger.n = c->n;
	free(c->slots);
	*c = bigger;
	return 0;
}

static int blob_claim(const blob_slot **out, blob_cache *cache, git_repository *repo,
                      const git_oid *oid, const char *where, isotier_error *err)
{
	if (cache->n * 2 >= cache->cap && blob_cache_grow(cache) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	size_t i = slot_of(cache, oid);
	if (cache->slots[i].used) {
		*out = &cache->slots[i];
		return 0;
	}
	cleanup_git_blob git_blob *blob = NULL;
	if (blob_size_ok(repo, oid, CHURN_JSON_MAX, where, err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	if (git_blob_lookup(&blob, repo, oid) < 0)
		return git_fail(err, ISOTIER_EDATA, "%s: read blob", where);
	git_object_size_t size = git_blob_rawsize(blob);
	if (size > CHURN_JSON_MAX)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %d bytes", where,
		                          CHURN_JSON_MAX);
	blob_slot s = {.oid = *oid, .used = true};
	if (churn_claim_parse(&s.c, git_blob_rawcontent(blob), (size_t)size, where, err) < 0) {
		churn_claim_clear(&s.c);
		return err ? err->code : ISOTIER_EDATA;
	}
	cache->slots[i] = s;
	cache->n++;
	*out = &cache->slots[i];
	return 0;
}

/* ---- snapshots --------------------------------------------------------- */

void churn_snapshot_clear(churn_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		churn_claim_clear(&s->items[i]);
	free(s->items);
	memset(s, 0, sizeof *s);
}

static int claim_cmp(const void *a, const void *b)
{
	return strcmp(((const churn_claim *)a)->id, ((const churn_claim *)b)->id);
}

/* The catalogue/providers tree of commit; *dir NULL when the revision has none. */
static int providers_dir(git_tree **dir, git_repository *repo, git_commit *commit,
                         const char *label, isotier_error *err)
{
	cleanup_git_tree git_tree *root = NULL;
	cleanup_git_entry git_tree_entry *ent = NULL;
	*dir = NULL;
	if (git_commit_tree(&root, commit) < 0)
		return git_fail(err, ISOTIER_EDATA, "revision %s: read tree", label);
	int rc = git_tree_entry_bypath(&ent, root, CHURN_PROVIDERS_DIR);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return git_fail(err, ISOTIER_EDATA, "revision %s: %s", label, CHURN_PROVIDERS_DIR);
	if (git_tree_entry_type(ent) != GIT_OBJECT_TREE)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "revision %s: %s is not a directory", label,
		                          CHURN_PROVIDERS_DIR);
	if (git_tree_lookup(dir, repo, git_tree_entry_id(ent)) < 0)
		return git_fail(err, ISOTIER_EDATA, "revision %s: read %s", label,
		                CHURN_PROVIDERS_DIR);
	return 0;
}

static int snapshot_from_dir(churn_snapshot *out, git_repository *repo, git_tree *dir,
                             const char *label, blob_cache *cache, isotier_error *err)
{
	memset(out, 0, sizeof *out);
	if (!dir)
		return 0;
	out->dir_oid = *git_tree_id(dir);
	size_t n = git_tree_entrycount(dir);
	if (n > CHURN_PROVIDERS_MAX)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "revision %s: more than %d files in %s", label,
		                          CHURN_PROVIDERS_MAX, CHURN_PROVIDERS_DIR);
	if (n && !(out->items = calloc(n, sizeof *out->items)))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(dir, i);
		const char *name = git_tree_entry_name(e);
		size_t len = strlen(name);
		if (len < 6 || strcmp(name + len - 5, ".json") ||
		    git_tree_entry_type(e) != GIT_OBJECT_BLOB)
			continue;
		char where[1024];
		snprintf(where, sizeof where, "revision %s: %s/%s", label, CHURN_PROVIDERS_DIR,
		         name);
		if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
			churn_snapshot_clear(out);
			return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: a symbolic link",
			                          where);
		}
		const blob_slot *slot = NULL;
		if (blob_claim(&slot, cache, repo, git_tree_entry_id(e), where, err) < 0) {
			churn_snapshot_clear(out);
			return err ? err->code : ISOTIER_EDATA;
		}
		churn_claim *c = &out->items[out->n++];
		c->claim = slot->c.claim;
		memcpy(c->status, slot->c.status, sizeof c->status);
		c->id = strdup(slot->c.id);
		if (asprintf(&c->path, "%s/%s", CHURN_PROVIDERS_DIR, name) < 0)
			c->path = NULL;
		bool ids_ok = true;
		if (slot->c.n_renamed_from &&
		    (c->renamed_from = calloc(slot->c.n_renamed_from, sizeof(char *))))
			for (size_t k = 0; k < slot->c.n_renamed_from; k++, c->n_renamed_from++)
				ids_ok &= !!(c->renamed_from[k] = strdup(slot->c.renamed_from[k]));
		else if (slot->c.n_renamed_from)
			ids_ok = false;
		if (!c->id || !c->path || !ids_ok) {
			churn_snapshot_clear(out);
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		}
	}
	if (out->n)
		qsort(out->items, out->n, sizeof *out->items, claim_cmp);
	for (size_t i = 1; i < out->n; i++)
		if (!strcmp(out->items[i - 1].id, out->items[i].id)) {
			int rc = isotier__error_set(
			    err, ISOTIER_EDATA, 0, "revision %s: %s and %s both have id \"%s\"",
			    label, out->items[i - 1].path, out->items[i].path, out->items[i].id);
			churn_snapshot_clear(out);
			return rc;
		}
	return 0;
}

int churn_snapshot_load(churn_snapshot *out, git_repository *repo, git_commit *commit,
                        const char *label, isotier_error *err)
{
	memset(out, 0, sizeof *out);
	cleanup_git_tree git_tree *dir = NULL;
	if (providers_dir(&dir, repo, commit, label, err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	blob_cache cache = {0};
	int rc = snapshot_from_dir(out, repo, dir, label, &cache, err);
	blob_cache_free(&cache);
	return rc;
}

int churn_read_blob(char **out, size_t *len, bool *found, git_repository *repo, git_commit *commit,
                    const char *path, size_t max, isotier_error *err)
{
	cleanup_git_tree git_tree *root = NULL;
	cleanup_git_entry git_tree_entry *ent = NULL;
	cleanup_git_blob git_blob *blob = NULL;
	*found = false;
	if (git_commit_tree(&root, commit) < 0)
		return git_fail(err, ISOTIER_EDATA, "read tree for %s", path);
	int rc = git_tree_entry_bypath(&ent, root, path);
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return git_fail(err, ISOTIER_EDATA, "%s", path);
	if (git_tree_entry_type(ent) != GIT_OBJECT_BLOB ||
	    git_tree_entry_filemode(ent) == GIT_FILEMODE_LINK)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not a regular file", path);
	if (blob_size_ok(repo, git_tree_entry_id(ent), max, path, err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(ent)) < 0)
		return git_fail(err, ISOTIER_EDATA, "read %s", path);
	git_object_size_t size = git_blob_rawsize(blob);
	if (size > max)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %zu bytes", path,
		                          max);
	char *buf = malloc((size_t)size + 1);
	if (!buf)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	memcpy(buf, git_blob_rawcontent(blob), (size_t)size);
	buf[size] = '\0';
	*out = buf;
	*len = (size_t)size;
	*found = true;
	return 0;
}

/* ---- the first-parent timeline ---------------------------------------- */

void churn_git_limits(void)
{
	/* By default every commit and tree read stays in libgit2's object cache
	 * up to 256 MiB (what `churn log` grew to by 20,000 commits), and packs
	 * stay mapped up to gigabytes. The timeline reads each object two or
	 * three times in a row, never later: without the cache it ran faster
	 * (2.1 s of CPU against 2.5 s at 20,000 commits), and 2 MiB of pack
	 * windows kept the page-ins in step. The delta-base cache of each pack
	 * (16 MiB, fixed in libgit2) remains. */
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_SIZE, (size_t)(1 << 20));
	git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, (size_t)(2 << 20));
}

/* Parsed file versions kept between revisions: past this many beyond two
 * revisions' worth, the cache starts again (one revision's files are parsed
 * again, once), so it holds about one catalogue however long the history. */
#define CHURN_CACHE_SLACK 4096

typedef struct log_state {
	const churn_log_sink *sink;
	git_repository *repo;
	blob_cache cache;
	churn_snapshot prev;
	churn_changes step; /* one commit's changes, handed to the sink */
	bool have_prev, started;
	bool sink_failed; /* the sink's own error: never a skipped revision */
	size_t readable, skipped;
	char last_reason[ISOTIER_ERROR_MESSAGE_MAX];
} log_state;

static int log_skip(log_state *st, const git_commit *c, isotier_error *err)
{
	churn_skip k = {.time = git_commit_time(c),
	                .reason = err->message[0] ? err->message : "unreadable catalogue"};
	git_oid_tostr(k.commit, sizeof k.commit, git_commit_id(c));
	snprintf(st->last_reason, sizeof st->last_reason, "%s", k.reason);
	st->skipped++;
	char reason[ISOTIER_ERROR_MESSAGE_MAX];
	snprintf(reason, sizeof reason, "%s", k.reason); /* err is the sink's to fill */
	k.reason = reason;
	memset(err, 0, sizeof *err);
	return st->sink->skip(st->sink->ctx, &k, err);
}

/* have_prev false: the previous revision was unreadable and none before it
 * was read; this one becomes the baseline without events. */
static int log_step(log_state *st, git_commit *commit, isotier_error *err)
{
	char label[GIT_OID_HEXSZ + 1];
	git_oid_tostr(label, sizeof label, git_commit_id(commit));
	cleanup_git_tree git_tree *dir = NULL;
	if (providers_dir(&dir, st->repo, commit, label, err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	git_oid zero = {{0}};
	if (st->have_prev && git_oid_equal(dir ? git_tree_id(dir) : &zero, &st->prev.dir_oid))
		return 0; /* the catalogue did not change in this commit */
	if (st->cache.n > 2 * st->prev.n + CHURN_CACHE_SLACK)
		blob_cache_free(&st->cache);
	churn_snapshot cur;
	if (snapshot_from_dir(&cur, st->repo, dir, label, &st->cache, err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	int rc = st->have_prev ? churn_diff(&st->step, &st->prev, &cur, err) : 0;
	for (size_t i = 0; rc == 0 && i < st->step.n; i++) {
		churn_change *c = &st->step.items[i];
		memcpy(c->commit, label, sizeof label);
		c->time = git_commit_time(commit);
		c->time_offset = git_commit_time_offset(commit);
		rc = st->sink->change(st->sink->ctx, c, err);
		st->sink_failed = rc < 0;
	}
	churn_changes_clear(&st->step);
	churn_snapshot_clear(&st->prev);
	st->prev = cur;
	st->have_prev = true;
	return rc;
}

/* The baseline: the first parent of the oldest commit walked, or the empty
 * catalogue before a root commit. */
static int log_baseline(log_state *st, git_commit *oldest, isotier_error *err)
{
	if (git_commit_parentcount(oldest) == 0) {
		st->readable++;
		return 0;
	}
	char label[GIT_OID_HEXSZ + 1];
	git_oid_tostr(label, sizeof label, git_commit_parent_id(oldest, 0));
	cleanup_git_commit git_commit *parent = NULL;
	cleanup_git_tree git_tree *dir = NULL;
	if (git_commit_parent(&parent, oldest, 0) < 0)
		return git_fail(err, ISOTIER_EDATA, "read commit %s%s", label,
		                shallow_hint(st->repo));
	int rc = providers_dir(&dir, st->repo, parent, label, err);
	if (rc == 0)
		rc = snapshot_from_dir(&st->prev, st->repo, dir, label, &st->cache, err);
	if (rc == ISOTIER_EDATA && st->sink->skip) {
		st->have_prev = false;
		return log_skip(st, parent, err);
	}
	if (rc == 0)
		st->readable++;
	return rc;
}

static int log_visit(void *ctx, git_commit *c, isotier_error *err)
{
	log_state *st = ctx;
	if (!st->started) {
		st->started = true;
		int rc = log_baseline(st, c, err);
		if (rc < 0)
			return rc;
	}
	int rc = log_step(st, c, err);
	if (rc == ISOTIER_EDATA && st->sink->skip && !st->sink_failed)
		return log_skip(st, c, err);
	if (rc == 0)
		st->readable++;
	return rc;
}

int churn_log(const churn_log_sink *sink, git_repository *repo, git_commit *head, git_commit *since,
              isotier_error *err)
{
	log_state st = {.sink = sink, .repo = repo, .have_prev = true};
	int rc = churn_walk_first_parent(repo, head, since, log_visit, &st, err);
	if (rc == 0 && st.started && st.readable == 0 && st.skipped)
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "no revision's catalogue could be read (%zu skipped; the "
		                        "newest: %s)",
		                        st.skipped, st.last_reason);
	churn_changes_clear(&st.step);
	churn_snapshot_clear(&st.prev);
	blob_cache_free(&st.cache);
	return rc;
}
