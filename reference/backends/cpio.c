/* SPDX-License-Identifier: Apache-2.0 */
/* cpio.c - newc cpio archives (the format the Linux initramfs unpacker reads). */
#include "cpio.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static void put(isotier_cpio *c, const void *p, size_t n)
{
	if (!c->failed && n && fwrite(p, 1, n, c->f) != n)
		c->failed = errno ? errno : EIO;
}

static void pad4(isotier_cpio *c, size_t written)
{
	static const char zeros[4];
	put(c, zeros, (4 - written % 4) % 4);
}

void isotier__cpio_add(isotier_cpio *c, const char *name, mode_t mode, unsigned rdev_major,
                       unsigned rdev_minor, const void *data, size_t len)
{
	char hdr[111];
	size_t namesize = strlen(name) + 1;
	if (len > 0xffffffffu || namesize > 4096) {
		c->failed = c->failed ? c->failed : EFBIG;
		return;
	}
	snprintf(hdr, sizeof hdr, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
	         ++c->next_ino, (unsigned)mode, 0u, 0u, S_ISDIR(mode) ? 2u : 1u, 0u, (unsigned)len,
	         0u, 0u, rdev_major, rdev_minor, (unsigned)namesize, 0u);
	put(c, hdr, 110);
	put(c, name, namesize);
	pad4(c, 110 + namesize);
	put(c, data, len);
	pad4(c, len);
}

int isotier__cpio_add_file(isotier_cpio *c, const char *name, const char *host_path, mode_t mode,
                           isotier_error *err)
{
	cleanup_free char *data = NULL;
	size_t len = 0;
	int rc = isotier__read_file(&data, &len, host_path, (size_t)512 << 20, err);
	if (rc)
		return rc;
	isotier__cpio_add(c, name, S_IFREG | (mode & 07777), 0, 0, data, len);
	return 0;
}

int isotier__cpio_finish(isotier_cpio *c, isotier_error *err)
{
	isotier__cpio_add(c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	if (!c->failed && fflush(c->f) != 0)
		c->failed = errno ? errno : EIO;
	if (c->failed)
		return isotier__error_set(err, ISOTIER_EIO, c->failed, "write initramfs");
	return 0;
}
