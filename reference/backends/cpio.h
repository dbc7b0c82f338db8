/* SPDX-License-Identifier: Apache-2.0 */
/* cpio.h - a newc ("070701") cpio writer for the qemu-microvm initramfs (internal). */
#ifndef ISOTIER_CPIO_H
#define ISOTIER_CPIO_H

#include "../../base/base.h"

#include <sys/types.h>

typedef struct isotier_cpio {
	FILE *f;
	unsigned next_ino;
	int failed; /* errno of the first failed write */
} isotier_cpio;

/* Adds one entry (name without a leading '/'). mode includes the type
 * (S_IFREG, S_IFDIR, S_IFLNK with data = target, S_IFCHR with rdev). */
void isotier__cpio_add(isotier_cpio *c, const char *name, mode_t mode, unsigned rdev_major,
                       unsigned rdev_minor, const void *data, size_t len);
/* Adds a host file's contents as a regular file with mode. Returns 0 or <0. */
int isotier__cpio_add_file(isotier_cpio *c, const char *name, const char *host_path, mode_t mode,
                           isotier_error *err);
/* Writes the trailer. Returns 0, or ISOTIER_EIO when any write failed. */
int isotier__cpio_finish(isotier_cpio *c, isotier_error *err);

#endif
