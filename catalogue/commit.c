/* commit.c - which revision of the catalogue a run judged against: HEAD of
 * the git repository holding the catalogue directory (libgit2). */
#include "catalogue.h"

#include <git2.h>

void isotier_catalogue_commit(char *out, size_t len, const char *dir)
{
	if (len)
		out[0] = '\0';
	if (git_libgit2_init() < 0)
		return;
	git_repository *repo = NULL;
	if (git_repository_open_ext(&repo, dir, 0, NULL) == 0) {
		git_object *obj = NULL;
		if (git_revparse_single(&obj, repo, "HEAD") == 0) {
			git_oid_tostr(out, len, git_object_id(obj));
			git_object_free(obj);
		}
		git_repository_free(repo);
	}
	git_libgit2_shutdown();
}
