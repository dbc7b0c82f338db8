/* SPDX-License-Identifier: Apache-2.0 */
/*
 * artifacts.h - what a sandbox leaves behind, fetched in an explicit step.
 *
 * A local backend shares the capture directory with the host (a bind mount,
 * or qemu's copy back over the console): the probe's inputs are there when
 * exec() returns. A provider reached over HTTP shares nothing; its
 * backend's fetch() (backend.h) brings a guest directory back through the one
 * thing every backend can do, exec(): `tar -cf - . | base64` inside, the
 * answer bounded, decoded and unpacked here as hostile input.
 *
 * Unpacking keeps regular files and directories only: a symlink, hard link,
 * device, FIFO or an extension header is skipped and counted; a name that is
 * absolute, holds "..", or is deeper than ISOTIER_UNTAR_MAX_DEPTH is refused;
 * sizes and counts are bounded. Files are created beneath the destination
 * with O_EXCL|O_NOFOLLOW from directory descriptors, so nothing outside it is
 * ever written.
 */
#ifndef ISOTIER_ARTIFACTS_H
#define ISOTIER_ARTIFACTS_H

#include "backend.h"

#define ISOTIER_UNTAR_MAX_BYTES (16u << 20) /* the whole archive */
#define ISOTIER_UNTAR_MAX_FILES 4096
#define ISOTIER_UNTAR_MAX_DEPTH 16

typedef struct isotier_untar_stats {
	size_t files, dirs, skipped, bytes;
} isotier_untar_stats;

/*
 * Unpacks a ustar/GNU archive (tar[0..len)) into the existing, empty
 * directory dest. 0, or ISOTIER_EDATA naming the entry (what was unpacked
 * before it stays), ISOTIER_EIO.
 */
int isotier__untar(const unsigned char *tar, size_t len, const char *dest,
                   isotier_untar_stats *stats, isotier_error *err);

/*
 * A backend's fetch() for any backend whose sandbox has sh, tar and base64:
 * guest_dir's contents (a path as seen inside, ISOTIER_GUEST_DIR...) into
 * host_dir through b->exec. req supplies the timeout and cancel_fd.
 */
int isotier__fetch_by_exec(const isotier_backend *b, void *state, const char *guest_dir,
                           const char *host_dir, const isotier_exec_request *req,
                           isotier_error *err);

#endif
