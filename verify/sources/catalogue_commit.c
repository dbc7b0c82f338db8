/* SPDX-License-Identifier: Apache-2.0 */
/* catalogue_commit.c - which revision of the catalogue a run judged against: HEAD of
 * the git repository holding the catalogue directory (libgit2), marked
 * "+dirty" when the catalogue's files differ from it, so a run against
 * uncommitted claims never passes for one against HEAD.
 *
 * git_libgit2_init() parses the whole CA bundle (mbedTLS) whatever is asked of
 * it: ~60% of a `verify --backend host`'s instructions. So the answer is
 * memoised in the state cache (catalogue_memo.c), keyed by everything it
 * depends on; libgit2 runs only when that key is new. */
#include "catalogue_commit.h"
#include "catalogue_memo.h"

#include "../../include/isotier.h"

#include "../churn/dl_git.h"
#include <stdbool.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Does anything under dir differ from HEAD (modified, new, deleted)? */
static bool catalogue_dirty(git_repository *repo, const char *dir)
{
	const char *workdir = git_repository_workdir(repo);
	char real[PATH_MAX];
	if (!workdir || !realpath(dir, real))
		return false;
	size_t wlen = strlen(workdir);
	if (strncmp(real, workdir, wlen - 1) != 0)
		return false;
	const char *rel = real + wlen - 1;
	rel += *rel == '/';
	char spec[PATH_MAX + 2];
	snprintf(spec, sizeof spec, "%s%s", rel, *rel ? "/" : "");
	char *specs[] = {spec};
	git_status_options opts;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	opts.pathspec.strings = *rel ? specs : NULL;
	opts.pathspec.count = *rel ? 1 : 0;
	git_status_list *list = NULL;
	if (git_status_list_new(&list, repo, &opts) < 0)
		return false;
	bool dirty = git_status_list_entrycount(list) > 0;
	git_status_list_free(list);
	return dirty;
}

void isotier_catalogue_commit(char *out, size_t len, const char *dir)
{
	if (len)
		out[0] = '\0';
	char key[80];
	int k = isotier_catalogue_memo_key(key, sizeof key, dir);
	if (k == ISOTIER_ENOTFOUND)
		return; /* in no repository: "" without starting libgit2 */
	bool keyed = k == 0;
	if (keyed && isotier_catalogue_memo_get(key, out, len) == 0)
		return;
	isotier_error err = ISOTIER_ERROR_INIT;
	if (isotier__dl_git_open(&err) < 0) {
		fprintf(stderr, "isotier: warning: catalogue commit unknown: %s\n", err.message);
		return;
	}
	if (git_libgit2_init() < 0)
		return;
	git_repository *repo = NULL;
	if (git_repository_open_ext(&repo, dir, 0, NULL) == 0) {
		git_object *obj = NULL;
		if (git_revparse_single(&obj, repo, "HEAD") == 0) {
			git_oid_tostr(out, len, git_object_id(obj));
			git_object_free(obj);
			if (out[0] && catalogue_dirty(repo, dir)) {
				size_t n = strlen(out);
				snprintf(out + n, len - n, "+dirty");
			}
		}
		git_repository_free(repo);
	}
	git_libgit2_shutdown();
	if (keyed && out[0])
		isotier_catalogue_memo_put(key, out);
}
