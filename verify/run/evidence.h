/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evidence.h - packs a probe's capture directory (written inside a sandbox:
 * hostile) into an in-memory ustar archive for the history's evidence column.
 * Symlinks are stored as links, never followed; devices, fifos and sockets
 * are skipped; sizes, entry counts and depth are bounded.
 */
#ifndef ISOTIER_EVIDENCE_H
#define ISOTIER_EVIDENCE_H

#include "../../reference/api/isotier_tool.h"

#define EVIDENCE_FORMAT      "tar"
#define EVIDENCE_MAX_BYTES   (4u * 1024 * 1024) /* the whole archive */
#define EVIDENCE_MAX_ENTRIES 4096
#define EVIDENCE_MAX_DEPTH   16

typedef struct evidence_tar {
	unsigned char *data;
	size_t len, cap;
	size_t n_entries;
	size_t n_skipped; /* entries left out (special files, names too long, over budget) */
	bool truncated;   /* the size budget cut the archive short */
} evidence_tar;

/* Archives the contents of dir (entries relative to it). Problems with single
 * entries skip them (counted); returns <0 only when dir cannot be opened or
 * memory runs out. The result is always a well-formed archive. */
int evidence_pack_dir(evidence_tar *out, const char *dir, isotier_error *err);
void evidence_tar_free(evidence_tar *t);

#endif
