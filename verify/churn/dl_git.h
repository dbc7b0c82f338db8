/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dl_git.h - libgit2, loaded on first use (dlopen) rather than linked:
 * only `churn` and the catalogue's commit (sources/catalogue_commit.c) need it, and linking it
 * costs every start of isotier its dependencies' relocations. Include this instead of the library's
 * header: after it, each function used below names its pointer in the loaded table, so call sites
 * read as plain calls. A file that calls a new function of the library adds it to
 * ISOTIER_DL_GIT_SYMBOLS and to the list of #defines (the link of the CLI fails otherwise).
 */
#ifndef ISOTIER_DL_GIT_H
#define ISOTIER_DL_GIT_H

#include <git2.h>

#include "../../reference/api/isotier_tool.h"

#define ISOTIER_DL_GIT_SONAME  "libgit2.so.1.5"
#define ISOTIER_DL_GIT_PACKAGE "libgit2-1.5" /* Debian package providing it */

#define ISOTIER_DL_GIT_SYMBOLS(X)                                                                  \
	X(git_blob_free)                                                                           \
	X(git_blob_lookup)                                                                         \
	X(git_blob_rawcontent)                                                                     \
	X(git_blob_rawsize)                                                                        \
	X(git_commit_free)                                                                         \
	X(git_commit_id)                                                                           \
	X(git_commit_lookup)                                                                       \
	X(git_commit_parent)                                                                       \
	X(git_commit_parent_id)                                                                    \
	X(git_commit_parentcount)                                                                  \
	X(git_commit_time)                                                                         \
	X(git_commit_time_offset)                                                                  \
	X(git_commit_tree)                                                                         \
	X(git_error_last)                                                                          \
	X(git_graph_descendant_of)                                                                 \
	X(git_libgit2_init)                                                                        \
	X(git_libgit2_opts)                                                                        \
	X(git_libgit2_shutdown)                                                                    \
	X(git_object_free)                                                                         \
	X(git_object_id)                                                                           \
	X(git_object_peel)                                                                         \
	X(git_odb_free)                                                                            \
	X(git_odb_read_header)                                                                     \
	X(git_oid_equal)                                                                           \
	X(git_oid_tostr)                                                                           \
	X(git_repository_free)                                                                     \
	X(git_repository_is_shallow)                                                               \
	X(git_repository_odb)                                                                      \
	X(git_repository_open_ext)                                                                 \
	X(git_repository_workdir)                                                                  \
	X(git_revparse_single)                                                                     \
	X(git_status_list_entrycount)                                                              \
	X(git_status_list_free)                                                                    \
	X(git_status_list_new)                                                                     \
	X(git_status_options_init)                                                                 \
	X(git_strarray_dispose)                                                                    \
	X(git_tag_list_match)                                                                      \
	X(git_tree_entry_byindex)                                                                  \
	X(git_tree_entry_bypath)                                                                   \
	X(git_tree_entry_filemode)                                                                 \
	X(git_tree_entry_free)                                                                     \
	X(git_tree_entry_id)                                                                       \
	X(git_tree_entry_name)                                                                     \
	X(git_tree_entry_type)                                                                     \
	X(git_tree_entrycount)                                                                     \
	X(git_tree_free)                                                                           \
	X(git_tree_id)                                                                             \
	X(git_tree_lookup)

struct isotier__dl_git_syms {
#define ISOTIER_DL_FIELD(f) __typeof__(&f) f;
	ISOTIER_DL_GIT_SYMBOLS(ISOTIER_DL_FIELD)
#undef ISOTIER_DL_FIELD
};

/* Loads libgit2.so.1.5 and every symbol above, once per process (thread-safe).
 * Returns 0, or ISOTIER_EUNAVAILABLE naming the library (or the missing
 * symbol) and the package to install; every later call says the same. */
int isotier__dl_git_open(isotier_error *err);

/* The table, loading it if no isotier__dl_git_open() did. Entry points call
 * isotier__dl_git_open() first and report its error: reached unloaded, this
 * prints why on stderr and aborts rather than call through NULL. */
const struct isotier__dl_git_syms *isotier__dl_git(void);

#ifndef ISOTIER_DL_GIT_NO_MAP
#define git_blob_free              (isotier__dl_git()->git_blob_free)
#define git_blob_lookup            (isotier__dl_git()->git_blob_lookup)
#define git_blob_rawcontent        (isotier__dl_git()->git_blob_rawcontent)
#define git_blob_rawsize           (isotier__dl_git()->git_blob_rawsize)
#define git_commit_free            (isotier__dl_git()->git_commit_free)
#define git_commit_id              (isotier__dl_git()->git_commit_id)
#define git_commit_lookup          (isotier__dl_git()->git_commit_lookup)
#define git_commit_parent          (isotier__dl_git()->git_commit_parent)
#define git_commit_parent_id       (isotier__dl_git()->git_commit_parent_id)
#define git_commit_parentcount     (isotier__dl_git()->git_commit_parentcount)
#define git_commit_time            (isotier__dl_git()->git_commit_time)
#define git_commit_time_offset     (isotier__dl_git()->git_commit_time_offset)
#define git_commit_tree            (isotier__dl_git()->git_commit_tree)
#define git_error_last             (isotier__dl_git()->git_error_last)
#define git_graph_descendant_of    (isotier__dl_git()->git_graph_descendant_of)
#define git_libgit2_init           (isotier__dl_git()->git_libgit2_init)
#define git_libgit2_opts           (isotier__dl_git()->git_libgit2_opts)
#define git_libgit2_shutdown       (isotier__dl_git()->git_libgit2_shutdown)
#define git_object_free            (isotier__dl_git()->git_object_free)
#define git_object_id              (isotier__dl_git()->git_object_id)
#define git_object_peel            (isotier__dl_git()->git_object_peel)
#define git_odb_free               (isotier__dl_git()->git_odb_free)
#define git_odb_read_header        (isotier__dl_git()->git_odb_read_header)
#define git_oid_equal              (isotier__dl_git()->git_oid_equal)
#define git_oid_tostr              (isotier__dl_git()->git_oid_tostr)
#define git_repository_free        (isotier__dl_git()->git_repository_free)
#define git_repository_is_shallow  (isotier__dl_git()->git_repository_is_shallow)
#define git_repository_odb         (isotier__dl_git()->git_repository_odb)
#define git_repository_open_ext    (isotier__dl_git()->git_repository_open_ext)
#define git_repository_workdir     (isotier__dl_git()->git_repository_workdir)
#define git_revparse_single        (isotier__dl_git()->git_revparse_single)
#define git_status_list_entrycount (isotier__dl_git()->git_status_list_entrycount)
#define git_status_list_free       (isotier__dl_git()->git_status_list_free)
#define git_status_list_new        (isotier__dl_git()->git_status_list_new)
#define git_status_options_init    (isotier__dl_git()->git_status_options_init)
#define git_strarray_dispose       (isotier__dl_git()->git_strarray_dispose)
#define git_tag_list_match         (isotier__dl_git()->git_tag_list_match)
#define git_tree_entry_byindex     (isotier__dl_git()->git_tree_entry_byindex)
#define git_tree_entry_bypath      (isotier__dl_git()->git_tree_entry_bypath)
#define git_tree_entry_filemode    (isotier__dl_git()->git_tree_entry_filemode)
#define git_tree_entry_free        (isotier__dl_git()->git_tree_entry_free)
#define git_tree_entry_id          (isotier__dl_git()->git_tree_entry_id)
#define git_tree_entry_name        (isotier__dl_git()->git_tree_entry_name)
#define git_tree_entry_type        (isotier__dl_git()->git_tree_entry_type)
#define git_tree_entrycount        (isotier__dl_git()->git_tree_entrycount)
#define git_tree_free              (isotier__dl_git()->git_tree_free)
#define git_tree_id                (isotier__dl_git()->git_tree_id)
#define git_tree_lookup            (isotier__dl_git()->git_tree_lookup)
#endif

#endif
