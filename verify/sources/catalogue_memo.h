/* SPDX-License-Identifier: Apache-2.0 */
/*
 * catalogue_memo.h - the catalogue commit's memo (catalogue_memo.c): what
 * libgit2 answered for a catalogue directory, kept in the state cache under a
 * key of everything that answer depends on.
 */
#ifndef ISOTIER_CATALOGUE_MEMO_H
#define ISOTIER_CATALOGUE_MEMO_H

#include <stddef.h>

/* The key for dir: HEAD's commit id read from the repository's files (strict,
 * bounded), the identity (inode, size, mtime, ctime) of the index, of the
 * ignore files and of every entry under dir. 0; ISOTIER_ENOTFOUND when no
 * directory from dir up to the file system's boundary holds a .git or is a
 * bare repository (libgit2 would find none either: the answer is ""); another
 * <0 when there is no sound key (a linked worktree, a bare repository, an
 * entry changed in the last 2 s, too many entries): then libgit2 answers and
 * nothing is memoised. */
int isotier_catalogue_memo_key(char *key, size_t len, const char *dir);
/* 0 and out filled when the memo holds an answer for key. */
int isotier_catalogue_memo_get(const char *key, char *out, size_t len);
void isotier_catalogue_memo_put(const char *key, const char *answer);
/* HEAD's commit id (40 hex digits) of the repository whose git directory is
 * gitdir, from HEAD, the loose ref or packed-refs; 0, or <0. */
int isotier_git_head(char out[41], const char *gitdir);

#endif
