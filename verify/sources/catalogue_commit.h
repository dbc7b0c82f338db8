/* SPDX-License-Identifier: Apache-2.0 */
/*
 * catalogue_commit.h - which revision of the catalogue a run judged against
 * (libgit2: the CLI's alone, never linked into libisotier's consumers).
 */
#ifndef ISOTIER_CATALOGUE_COMMIT_H
#define ISOTIER_CATALOGUE_COMMIT_H

#include <stddef.h>

/* HEAD of the git repository holding dir (hex), "" when dir is not in one;
 * "+dirty" appended when the catalogue's files differ from it. Runs record
 * it so an observation names the claims it was judged against. */
void isotier_catalogue_commit(char *out, size_t len, const char *dir);

#endif
