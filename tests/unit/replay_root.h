/* SPDX-License-Identifier: Apache-2.0 */
/* replay_root.h - what the probe suites share to build replay roots by hand:
 * files written under a root with their parent directories, and the root
 * removed afterwards. Test fixtures only. */
#ifndef ISOTIER_REPLAY_ROOT_H
#define ISOTIER_REPLAY_ROOT_H

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static inline void rm_rf(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* mkdir -p of the parent directories of path. */
static inline void mkdir_parents(const char *path)
{
	char tmp[8192];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ck_assert_msg(mkdir(tmp, 0755) == 0 || errno == EEXIST, "mkdir %s", tmp);
		*p = '/';
	}
}

/* Writes len bytes of data to root/rel, creating rel's directories. */
static inline void put(const char *root, const char *rel, const char *data, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir_parents(path);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

#endif
