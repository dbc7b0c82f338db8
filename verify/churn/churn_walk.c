/* SPDX-License-Identifier: Apache-2.0 */
/* churn_walk.c - the first-parent chain from head back to since, visited
 * oldest first in memory that does not grow with the history (issue #24).
 *
 * A commit names its parent, not its child: going oldest first means
 * knowing the chain before visiting it. Holding every commit id (or
 * libgit2's revwalk, which keeps a node per commit and, with a hidden
 * commit, the whole list) grows with the history; here the first pass
 * keeps one id every CHURN_WALK_SEGMENT commits, and the second walks each
 * segment again, oldest segment first, into a buffer of one segment. Every
 * commit is read twice; memory is 20 bytes per segment. */
#include "churn.h"

#include <string.h>

#define CHURN_WALK_SEGMENT 1024

static int walk_fail(isotier_error *err, git_repository *repo, const char *what)
{
	const git_error *e = git_error_last();
	return isotier__error_set(
	    err, ISOTIER_EDATA, 0, "%s%s: %s", what,
	    git_repository_is_shallow(repo) == 1
	        ? " (this is a shallow clone: the commit may be outside it; fetch the full "
	          "history, e.g. `git fetch --unshallow --tags`, or check out with fetch-depth: 0)"
	        : "",
	    e && e->message ? e->message : "libgit2 error");
}

/* *out: the first parent's id of the commit oid; false (and 0) at a root. */
static int first_parent(git_oid *out, bool *has, git_repository *repo, const git_oid *oid,
                        isotier_error *err)
{
	cleanup_git_commit git_commit *c = NULL;
	if (git_commit_lookup(&c, repo, oid) < 0)
		return walk_fail(err, repo, "read commit");
	*has = git_commit_parentcount(c) > 0;
	if (*has)
		*out = *git_commit_parent_id(c, 0);
	return 0;
}

typedef struct chain {
	git_oid *marks;         /* marks[k]: the commit k * CHURN_WALK_SEGMENT from head */
	size_t n_marks, cap, n; /* n: commits in the chain */
} chain;

/* The commit at index i of the chain (0: head). */
static int chain_at(git_oid *out, const chain *ch, git_repository *repo, size_t i,
                    isotier_error *err)
{
	*out = ch->marks[i / CHURN_WALK_SEGMENT];
	for (size_t k = i % CHURN_WALK_SEGMENT; k > 0; k--) {
		bool has;
		if (first_parent(out, &has, repo, out, err) < 0)
			return ISOTIER_EDATA;
		if (!has)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "walk history: chain changed");
	}
	return 0;
}

/* Hidden: since itself or one of its ancestors (what `git log since..head`
 * leaves out). */
static int hidden(bool *out, git_repository *repo, const git_oid *c, const git_oid *since,
                  isotier_error *err)
{
	if (git_oid_equal(c, since)) {
		*out = true;
		return 0;
	}
	int rc = git_graph_descendant_of(repo, since, c);
	if (rc < 0)
		return walk_fail(err, repo, "walk history");
	*out = rc == 1;
	return 0;
}

/* First pass: the chain's length and its marks, up to since when since is on
 * the chain. When it is not (a --since on a merged branch), the chain runs to
 * the root and the first hidden commit is found by bisection: being an
 * ancestor of since holds from some point of the chain on, never before. */
static int chain_measure(chain *ch, git_repository *repo, git_commit *head, git_commit *since,
                         isotier_error *err)
{
	git_oid cur = *git_commit_id(head);
	bool has = true, found_since = false;
	while (has) {
		if (since && git_oid_equal(&cur, git_commit_id(since))) {
			found_since = true;
			break;
		}
		if (ch->n % CHURN_WALK_SEGMENT == 0) {
			if (ch->n_marks == ch->cap) {
				size_t ncap = ch->cap ? ch->cap * 2 : 16;
				git_oid *m = realloc(ch->marks, ncap * sizeof *m);
				if (!m)
					return isotier__error_set(err, ISOTIER_ENOMEM, 0,
					                          "out of memory");
				ch->marks = m;
				ch->cap = ncap;
			}
			ch->marks[ch->n_marks++] = cur;
		}
		ch->n++;
		if (first_parent(&cur, &has, repo, &cur, err) < 0)
			return ISOTIER_EDATA;
	}
	if (!since || found_since || ch->n == 0)
		return 0;
	size_t lo = 0, hi = ch->n; /* the first hidden index is in [lo, hi] */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		git_oid at;
		bool h = false;
		if (chain_at(&at, ch, repo, mid, err) < 0 ||
		    hidden(&h, repo, &at, git_commit_id(since), err) < 0)
			return ISOTIER_EDATA;
		if (h)
			hi = mid;
		else
			lo = mid + 1;
	}
	ch->n = lo;
	return 0;
}

int churn_walk_first_parent(git_repository *repo, git_commit *head, git_commit *since,
                            churn_walk_fn visit, void *ctx, isotier_error *err)
{
	chain ch = {0};
	git_oid *seg = NULL;
	int rc = chain_measure(&ch, repo, head, since, err);
	if (rc == 0 && ch.n && !(seg = calloc(CHURN_WALK_SEGMENT, sizeof *seg)))
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	/* Second pass: each segment newest first into seg, visited backwards. */
	for (size_t k = ch.n ? (ch.n - 1) / CHURN_WALK_SEGMENT + 1 : 0; rc == 0 && k-- > 0;) {
		size_t len = ch.n - k * CHURN_WALK_SEGMENT;
		if (len > CHURN_WALK_SEGMENT)
			len = CHURN_WALK_SEGMENT;
		seg[0] = ch.marks[k];
		for (size_t i = 1; rc == 0 && i < len; i++) {
			bool has;
			rc = first_parent(&seg[i], &has, repo, &seg[i - 1], err);
			if (rc == 0 && !has)
				rc = isotier__error_set(err, ISOTIER_EDATA, 0,
				                        "walk history: chain changed");
		}
		for (size_t i = len; rc == 0 && i-- > 0;) {
			cleanup_git_commit git_commit *c = NULL;
			if (git_commit_lookup(&c, repo, &seg[i]) < 0)
				rc = walk_fail(err, repo, "read commit");
			else
				rc = visit(ctx, c, err);
		}
	}
	free(seg);
	free(ch.marks);
	return rc;
}
