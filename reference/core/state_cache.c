/* SPDX-License-Identifier: Apache-2.0 */
/*
 * state_cache.c - the state directory every isotier on a host shares, and the
 * small caches kept there: decisions that are dear to make and cheap to key
 * (whether KVM works for a guest kernel, a file's SHA-256). A cache may only
 * save time: an entry that is not ours, not a regular file, too large or not
 * in the expected form is a miss, never an answer (hostile: bounded read,
 * O_NOFOLLOW, owner and mode checked).
 */
#include "paths.h"
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FHS_STATE "/var/lib/isotier"

/* A directory we may keep caches in: ours (or root's when we are root) and
 * writable by nobody else. Created with mode when missing. */
static bool usable_dir(const char *path, mode_t mode)
{
	struct stat st;
	if (mkdir(path, mode) != 0 && errno != EEXIST)
		return false;
	if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 022))
		return false;
	return st.st_uid == geteuid() && access(path, W_OK | X_OK) == 0;
}

int isotier__state_dir(char *buf, size_t len)
{
	const char *env = getenv("ISOTIER_STATE_DIR");
	if (env && *env) {
		if (env[0] != '/' || (size_t)snprintf(buf, len, "%s", env) >= len)
			return ISOTIER_EINVAL;
		return usable_dir(buf, 0700) ? 0 : ISOTIER_EIO;
	}
	/* The packaged place (packaging/deb.sh makes it 0750 root): every
	 * checkout and the installed isotier share it when we may write it. */
	if (geteuid() == 0 && usable_dir(FHS_STATE, 0750)) {
		snprintf(buf, len, "%s", FHS_STATE);
		return 0;
	}
	char parent[PATH_MAX];
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		snprintf(parent, sizeof parent, "%s", xdg);
	else if (home && home[0] == '/')
		snprintf(parent, sizeof parent, "%s/.local/state", home);
	else
		return ISOTIER_ENOTFOUND;
	if ((size_t)snprintf(buf, len, "%s/isotier", parent) >= len)
		return ISOTIER_EINVAL;
	/* ~/.local first, then ~/.local/state: mkdir -p for the two we may need. */
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent && !xdg) {
		*slash = '\0';
		mkdir(parent, 0700);
		*slash = '/';
	}
	mkdir(parent, 0700);
	return usable_dir(buf, 0700) ? 0 : ISOTIER_EIO;
}

/* STATE/cache/NAME; NAME is ours to choose, checked anyway: no slash, no dot first. */
static int entry_path(char *path, size_t len, const char *name, bool create)
{
	size_t n = strlen(name);
	if (n == 0 || n > 200 || name[0] == '.' ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz"
	                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789._-") != n)
		return ISOTIER_EINVAL;
	char dir[PATH_MAX];
	int rc = isotier__state_dir(dir, sizeof dir);
	if (rc)
		return rc;
	if ((size_t)snprintf(path, len, "%s/cache", dir) >= len)
		return ISOTIER_EINVAL;
	if (create && !usable_dir(path, 0700))
		return ISOTIER_EIO;
	if ((size_t)snprintf(path, len, "%s/cache/%s", dir, name) >= len)
		return ISOTIER_EINVAL;
	return 0;
}

int isotier__state_cache_get(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	if (len < 2 || entry_path(path, sizeof path, name, false) != 0)
		return ISOTIER_ENOTFOUND;
	buf[0] = '\0';
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_mode & 022) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) || st.st_size <= 0 ||
	    (size_t)st.st_size >= len)
		return ISOTIER_ENOTFOUND;
	ssize_t got = isotier__read_full(fd, buf, (size_t)st.st_size);
	buf[got > 0 ? got : 0] = '\0';
	if (got != (ssize_t)st.st_size || memchr(buf, '\0', (size_t)got)) {
		buf[0] = '\0';
		return ISOTIER_ENOTFOUND;
	}
	return 0;
}

int isotier__state_cache_put(const char *name, const char *data)
{
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	int rc = entry_path(path, sizeof path, name, true);
	if (rc)
		return rc;
	/* Another process may write the same entry at once: each its own temp
	 * file, the rename makes either whole answer the one readers see. */
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	if ((rc = isotier__write_file(tmp, data, strlen(data), 0644, NULL)) == 0 &&
	    rename(tmp, path) != 0)
		rc = ISOTIER_EIO;
	if (rc)
		unlink(tmp);
	return rc;
}

static void to_hex(const unsigned char *md, unsigned n, char *hex)
{
	for (unsigned i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

int isotier__sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	hex[0] = '\0';
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return ISOTIER_EIO;
	to_hex(md, n, hex);
	return 0;
}

static bool is_hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

int isotier__file_sha256(const char *path, char hex[65], isotier_error *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return isotier__error_set(err, ISOTIER_ENOTFOUND, errno, "open %s", path);
	if (!S_ISREG(st.st_mode))
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s: not a regular file", path);
	/* The memo's key is the file's identity: a write changes its ctime
	 * (which no caller can set back), a replacement its inode. */
	char ident[256], key[65], name[96] = "", memo[80];
	snprintf(ident, sizeof ident, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld",
	         (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	         (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
	         (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	if (isotier__sha256_hex(ident, strlen(ident), key) == 0) {
		snprintf(name, sizeof name, "sha256-%.32s", key);
		if (isotier__state_cache_get(name, memo, sizeof memo) == 0 && strlen(memo) == 65 &&
		    memo[64] == '\n') {
			memo[64] = '\0';
			if (is_hex64(memo)) {
				memcpy(hex, memo, 65);
				return 0;
			}
		}
	}
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "sha256 %s: no digest", path);
	}
	/* Bounded: a guest kernel is tens of MB; 1 GiB is no file we hash. */
	static const off_t max = (off_t)1 << 30;
	char buf[65536];
	off_t total = 0;
	int rc = 0;
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = isotier__error_set(err, ISOTIER_EIO, errno, "read %s", path);
			break;
		}
		if (r == 0)
			break;
		if ((total += r) > max) {
			rc = isotier__error_set(err, ISOTIER_EINVAL, 0, "%s: larger than 1 GiB",
			                        path);
			break;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)r);
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	if (!rc && (!EVP_DigestFinal_ex(ctx, md, &n) || n != 32))
		rc = isotier__error_set(err, ISOTIER_EIO, 0, "sha256 %s", path);
	EVP_MD_CTX_free(ctx);
	if (rc)
		return rc;
	to_hex(md, n, hex);
	snprintf(memo, sizeof memo, "%s\n", hex);
	if (name[0])
		isotier__state_cache_put(name, memo); /* best effort: a miss costs a hash */
	return 0;
}
