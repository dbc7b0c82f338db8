/* SPDX-License-Identifier: Apache-2.0 */
/*
 * churn.h - the catalogue's history, read with libgit2 straight from the
 * object database (no checkout, no git binary): the claims of every provider
 * at a revision, the diff of two revisions keyed by provider id, and the
 * first-parent timeline of tier/mechanism changes. The caller owns
 * git_libgit2_init/shutdown (once per process: cmd_churn.c).
 */
#ifndef ISOTIER_CHURN_H
#define ISOTIER_CHURN_H

#include "churnlog.h"

#include "dl_git.h"
#include <stdint.h>

#define CHURN_PROVIDERS_DIR "catalogue/providers"
#define CHURN_JSON_MAX      (1024 * 1024) /* bytes of one historical provider file */
#define CHURN_PROVIDERS_MAX 100000        /* files per revision */

static inline void churn_repo_freep(git_repository **p)
{
	git_repository_free(*p);
}
static inline void churn_commit_freep(git_commit **p)
{
	git_commit_free(*p);
}
static inline void churn_tree_freep(git_tree **p)
{
	git_tree_free(*p);
}
static inline void churn_entry_freep(git_tree_entry **p)
{
	git_tree_entry_free(*p);
}
static inline void churn_blob_freep(git_blob **p)
{
	git_blob_free(*p);
}
static inline void churn_object_freep(git_object **p)
{
	git_object_free(*p);
}
static inline void churn_revwalk_freep(git_revwalk **p)
{
	git_revwalk_free(*p);
}
static inline void churn_strarray_freep(git_strarray *p)
{
	git_strarray_dispose(p);
}
#define cleanup_git_repo     __attribute__((cleanup(churn_repo_freep)))
#define cleanup_git_commit   __attribute__((cleanup(churn_commit_freep)))
#define cleanup_git_tree     __attribute__((cleanup(churn_tree_freep)))
#define cleanup_git_entry    __attribute__((cleanup(churn_entry_freep)))
#define cleanup_git_blob     __attribute__((cleanup(churn_blob_freep)))
#define cleanup_git_object   __attribute__((cleanup(churn_object_freep)))
#define cleanup_git_revwalk  __attribute__((cleanup(churn_revwalk_freep)))
#define cleanup_git_strarray __attribute__((cleanup(churn_strarray_freep)))

#define CHURN_STATUS_MAX       16 /* "current", "deprecated", "retired" */
#define CHURN_RENAMED_FROM_MAX 16 /* earlier ids per offering */

/* One offering's claim at one revision. */
typedef struct churn_claim {
	char *id;
	char *path; /* "catalogue/providers/<file>.json" */
	churn_claimref claim;
	char status[CHURN_STATUS_MAX]; /* "current" when the file has none */
	char **renamed_from;           /* earlier ids (catalogue v2), at most 16 */
	size_t n_renamed_from;
} churn_claim;

/* Every provider at one revision, sorted by id. */
typedef struct churn_snapshot {
	churn_claim *items;
	size_t n;
	git_oid dir_oid; /* the catalogue/providers tree (zero when absent) */
} churn_snapshot;

typedef enum { CHURN_ADDED, CHURN_REMOVED, CHURN_CHANGED } churn_kind;

typedef struct churn_change {
	churn_kind kind;
	char *id;
	char *old_path, *new_path; /* NULL on the absent side */
	churn_claimref from, to;   /* zeroed on the absent side */
	bool tier_changed, mechanism_changed, scope_changed;
	/* CHURN_CHANGED also covers an offering renamed (renamed_from pairs the
	 * old id's removal with the new id's addition) and a status change
	 * (current -> deprecated -> retired); neither needs a CHURN.md entry
	 * unless the tier or mechanism changed too. */
	char *old_id; /* the id before a rename; NULL when not renamed */
	char old_status[CHURN_STATUS_MAX], new_status[CHURN_STATUS_MAX];
	bool status_changed;
	const churn_entry *entry; /* the CHURN.md entry logging it; NULL: unlogged */
	/* churn log only: the commit that made the change */
	char commit[GIT_OID_HEXSZ + 1];
	int64_t time;    /* committer time, seconds since the epoch */
	int time_offset; /* minutes east of UTC */
} churn_change;

typedef struct churn_changes {
	churn_change *items;
	size_t n, cap;
} churn_changes;

/* Opens the repository at path (NULL: discover from the working directory). */
int churn_repo_open(git_repository **out, const char *path, isotier_error *err);

/* Resolves a tag, branch or commit id to its commit (errors say when the
 * repository is shallow and the commit may simply be missing). */
int churn_resolve(git_commit **out, git_repository *repo, const char *spec, isotier_error *err);

/* The claims of every catalogue/providers/<file>.json at commit. Parsing is
 * tolerant of schema changes (only id, tier and mechanism are read) but a
 * file missing those or not JSON is ISOTIER_EDATA naming label and path. */
int churn_snapshot_load(churn_snapshot *out, git_repository *repo, git_commit *commit,
                        const char *label, isotier_error *err);
void churn_snapshot_clear(churn_snapshot *s);
/* Frees one claim's members (churn_diff.c). */
void churn_claim_clear(churn_claim *c);

/* One offering file: id, tier, mechanism and the v2 fields when present
 * (where names it in errors); on error *out may hold partial members: the
 * caller clears it (churn_claim_clear). */
int churn_claim_parse(churn_claim *out, const char *buf, size_t len, const char *where,
                      isotier_error *err);
/* churn_worktree.c: the working tree's catalogue/providers (a pre-commit
 * check), and one of its files (regular files only, bounded, never a FIFO
 * or a symbolic link; *found false when absent). */
int churn_snapshot_load_worktree(churn_snapshot *out, const char *workdir, isotier_error *err);
int churn_read_worktree_file(char **out, size_t *len, bool *found, const char *workdir,
                             const char *path, size_t max, isotier_error *err);

/* A tier, mechanism or scope change: what CHURN.md must log. */
static inline bool churn_change_needs_entry(const churn_change *c)
{
	return c->kind == CHURN_CHANGED &&
	       (c->tier_changed || c->mechanism_changed || c->scope_changed);
}

/* Appends the differences old -> new, keyed by offering id, sorted by id; an
 * id that disappears while a new entry lists it in renamed_from is one
 * renamed change, not a removal and an addition (churn_diff.c). */
int churn_diff(churn_changes *out, const churn_snapshot *old, const churn_snapshot *new_,
               isotier_error *err);
void churn_changes_clear(churn_changes *c);

/* Reads path in commit's tree; *found false (and 0 returned) when absent. */
int churn_read_blob(char **out, size_t *len, bool *found, git_repository *repo, git_commit *commit,
                    const char *path, size_t max, isotier_error *err);

/* A revision `churn log` could not read (a symlinked or unparsable catalogue
 * file in history that cannot be rewritten). */
typedef struct churn_skip {
	char commit[GIT_OID_HEXSZ + 1];
	int64_t time;
	const char *reason; /* the error, naming revision and file */
} churn_skip;

/* Where `churn log` puts what it finds, as it finds it: nothing of the
 * timeline is held beyond the commit being read. The pointers are valid
 * during the call only; a negative return stops the walk with that code. */
typedef struct churn_log_sink {
	int (*change)(void *ctx, const churn_change *c, isotier_error *err);
	/* NULL: an unreadable catalogue at any revision is an error. */
	int (*skip)(void *ctx, const churn_skip *s, isotier_error *err);
	void *ctx;
} churn_log_sink;

/* Every change along the first-parent chain from head back to (excluding)
 * since (NULL: back to the root commit, where every provider is "added"),
 * oldest first, each passed to sink->change; one commit's changes come
 * sorted by id. With sink->skip, a revision whose catalogue cannot be read
 * (also since's baseline) goes to it and the timeline continues across
 * it: the next readable revision is diffed against the last readable one,
 * and carries the changes made in between; an error only when no revision
 * could be read. Missing commits (shallow clones) are errors either way.
 * Memory is bounded by one revision's catalogue, not by the history's
 * length (set churn_git_limits() first: libgit2's caches are
 * process-wide). */
int churn_log(const churn_log_sink *sink, git_repository *repo, git_commit *head, git_commit *since,
              isotier_error *err);

/* Bounds libgit2's process-wide object cache and pack mappings, which
 * otherwise grow with every commit and tree read (256 MiB of cache by
 * default): call once after git_libgit2_init(). */
void churn_git_limits(void);

/* churn_walk.c: visits the first-parent chain from head back to
 * (excluding) since and every ancestor of since, oldest first. */
typedef int (*churn_walk_fn)(void *ctx, git_commit *c, isotier_error *err);
int churn_walk_first_parent(git_repository *repo, git_commit *head, git_commit *since,
                            churn_walk_fn visit, void *ctx, isotier_error *err);

/* "abc1234" (12 hex digits) of a commit. */
void churn_short_id(char *buf, size_t len, const git_oid *oid);

#endif
