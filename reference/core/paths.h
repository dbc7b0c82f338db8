/* SPDX-License-Identifier: Apache-2.0 */
/*
 * paths.h - where an isotier finds its parts: the catalogue, the probe, the
 * guest init and kernels, the schemas. An installed prefix first (found from
 * where the running code lives), then the build tree it runs from; never the
 * directory it was built in nor the current directory (paths.c).
 */
#ifndef ISOTIER_PATHS_H
#define ISOTIER_PATHS_H

#include "../../base/base.h"
#include "../../catalogue/catalogue.h"

/* Where a packaged isotier lives: the last resort of every default, so an
 * error names a place an operator can act on. */
#define ISOTIER_FHS_PREFIX "/usr"

/* $ISOTIER_CATALOGUE, else PREFIX/share/isotier/catalogue/providers, else the
 * build tree's catalogue/providers, else /usr/share/isotier/catalogue/providers. */
const char *isotier__default_catalogue_dir(void);

/* The operator's catalogue directory, laid over the packaged catalogue (an
 * entry there replaces the packaged one of the same id): $ISOTIER_CATALOGUE_OVERLAY
 * (set and empty: none), else ISOTIER_CATALOGUE_OVERLAY_DIR for an installed
 * isotier, else none (NULL): a build tree never reads /etc. */
#define ISOTIER_CATALOGUE_OVERLAY_DIR "/etc/isotier/catalogue.d"
const char *isotier__catalogue_overlay_dir(void);
/* isotier__catalogue_load (or _partial) of dir with the overlay laid over it. */
int isotier__catalogue_load_effective(isotier_catalogue **out, const char *dir, bool partial,
                                      isotier_findings *findings, isotier_error *err);
/* Where `sources check` keeps its baseline for catalogue_dir by default:
 * STATE/sources.lock.json when the directory belongs to the installed package
 * (never written into), else sources.lock.json beside the provider directory. */
int isotier__default_baseline_path(char *buf, size_t len, const char *catalogue_dir);
/* PREFIX of an installed isotier: two levels at most above the running code
 * (bin/, lib/, lib/TRIPLET/) where share/isotier exists. 0, or ISOTIER_ENOTFOUND. */
int isotier__install_prefix(char *buf, size_t len);
/* PREFIX/rel of an installed isotier; 0 when it exists. */
int isotier__install_path(char *buf, size_t len, const char *rel);
/* Data: PREFIX/rel when installed, else SRC/src_rel in a build tree (src_rel
 * NULL: none there), else /usr/rel. buf is filled either way; 0 when it exists. */
int isotier__default_data_path(char *buf, size_t len, const char *rel, const char *src_rel);
/* $env when set and not empty, else isotier__default_data_path in buf. */
const char *isotier__env_data_path(const char *env, char *buf, size_t len, const char *rel,
                                   const char *src_rel);
/* A program: PREFIX/libexec_rel when installed, else BUILD/build_rel in a build
 * tree, else /usr/libexec_rel. buf is filled either way; 0 when executable. */
int isotier__default_build_path(char *buf, size_t len, const char *libexec_rel,
                                const char *build_rel);
/* $ISOTIER_PROBE, else isotier-probe beside the running executable, else
 * PREFIX/bin/isotier-probe or the build tree's. 0, or ISOTIER_ENOTFOUND. */
int isotier__default_probe_path(char *buf, size_t len);
/* The qemu backends' guest kernel directory and guest init (backend_qemu.c):
 * $ISOTIER_GUEST[_ARM64]_DIR, else PREFIX/lib/isotier/guest[-arm64], else the
 * build tree's .deps/guest[-arm64]. 0 when both are there. */
int isotier__qemu_default_paths(bool aarch64, char *guest_dir, size_t guest_len, char *init,
                                size_t init_len);

/* The state directory every isotier on this host shares, whichever checkout or
 * install it runs from (state_cache.c): $ISOTIER_STATE_DIR, else /var/lib/isotier
 * for root, else $XDG_STATE_HOME/isotier or ~/.local/state/isotier. Created when
 * missing; refused (<0) when another user or group could write it. */
int isotier__state_dir(char *buf, size_t len);
/* A small cache entry, STATE/cache/NAME (NAME: [A-Za-z0-9._-]). get: 0 and buf
 * NUL-terminated when the entry is a regular file owned by us or root, writable
 * by nobody else, shorter than len; anything else is a miss (ISOTIER_ENOTFOUND):
 * a cache only ever saves time. put: whole or nothing (temp file + rename). */
int isotier__state_cache_get(const char *name, char *buf, size_t len);
int isotier__state_cache_put(const char *name, const char *data);
/* Lower-case hex SHA-256 (libcrypto EVP) of a regular file's content (at most
 * 1 GiB), memoised in the state cache by the file's identity (device, inode,
 * size, mtime, ctime), so a guest kernel is hashed once. */
int isotier__file_sha256(const char *path, char hex[65], isotier_error *err);
/* Lower-case hex SHA-256 (libcrypto EVP) of len bytes into hex (65 bytes with
 * its NUL): the one content hash of the library and the CLI. ISOTIER_EIO and
 * hex "" when libcrypto fails (callers store "no hash", never a wrong one). */
int isotier__sha256_hex(const void *data, size_t len, char hex[65]);

#endif
