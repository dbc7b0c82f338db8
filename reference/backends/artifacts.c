/* SPDX-License-Identifier: Apache-2.0 */
/* artifacts.c - a guest directory fetched through exec(), unpacked as
 * hostile input (artifacts.h). */
#include "artifacts.h"

#include "collect.h"
#include "../core/connect.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* ---- unpacking --------------------------------------------------------- */

#define TAR_BLOCK 512

/* An octal field (NUL/space terminated), or a GNU base-256 size: -1 when
 * neither or out of range. */
static long long tar_number(const unsigned char *f, size_t n)
{
	if (f[0] & 0x80) { /* base-256: GNU for sizes >= 8 GiB; refused below anyway */
		return -1;
	}
	long long v = 0;
	size_t i = 0;
	while (i < n && f[i] == ' ')
		i++;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (1LL << 40))
			return -1;
		v = v * 8 + (f[i] - '0');
	}
	if (i < n && f[i] != '\0' && f[i] != ' ')
		return -1;
	return v;
}

static bool tar_checksum_ok(const unsigned char *h)
{
	long long want = tar_number(h + 148, 8);
	long long sum = 0;
	for (size_t i = 0; i < TAR_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return want == sum;
}

/* "prefix/name" of a ustar header, NUL-terminated, without leading "./";
 * false when it does not fit or holds a NUL-less field overflow. */
static bool tar_name(char *out, size_t len, const unsigned char *h)
{
	char name[101], prefix[156];
	memcpy(name, h, 100);
	name[100] = '\0';
	prefix[0] = '\0';
	if (!memcmp(h + 257, "ustar", 5)) {
		memcpy(prefix, h + 345, 155);
		prefix[155] = '\0';
	}
	int n =
	    prefix[0] ? snprintf(out, len, "%s/%s", prefix, name) : snprintf(out, len, "%s", name);
	if (n < 0 || (size_t)n >= len)
		return false;
	char *p = out;
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	memmove(out, p, strlen(p) + 1);
	size_t l = strlen(out);
	while (l && out[l - 1] == '/')
		out[--l] = '\0';
	return true;
}

/* Splits a relative name into its components: refused when absolute, empty
 * in the middle, "." or "..", or deeper than the limit. */
static int tar_components(char *name, char **parts, size_t *n)
{
	*n = 0;
	if (name[0] == '/')
		return -1;
	for (char *save = NULL, *c = strtok_r(name, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, ".") || !strcmp(c, "..") || *n >= ISOTIER_UNTAR_MAX_DEPTH)
			return -1;
		parts[(*n)++] = c;
	}
	return *n ? 0 : -1;
}

/* Opens (creating) the directories parts[0..n) beneath root; a descriptor. */
static int open_dirs(int root, char **parts, size_t n)
{
	int fd = dup(root);
	for (size_t i = 0; fd >= 0 && i < n; i++) {
		if (mkdirat(fd, parts[i], 0755) < 0 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		int next = openat(fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	return fd;
}

static int write_file(int dir, const char *leaf, const unsigned char *data, size_t len)
{
	int fd = openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (isotier__write_all(fd, data, len) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int isotier__untar(const unsigned char *tar, size_t len, const char *dest,
                   isotier_untar_stats *stats, isotier_error *err)
{
	isotier_untar_stats st = {0};
	if (len > ISOTIER_UNTAR_MAX_BYTES)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "archive: %zu bytes, more than %u",
		                          len, ISOTIER_UNTAR_MAX_BYTES);
	cleanup_close int root = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "open %s", dest);
	int rc = 0;
	size_t off = 0, entry = 0;
	while (rc == 0 && off + TAR_BLOCK <= len) {
		const unsigned char *h = tar + off;
		bool zero = true;
		for (size_t i = 0; i < TAR_BLOCK && zero; i++)
			zero = h[i] == 0;
		if (zero)
			break; /* the end-of-archive blocks */
		entry++;
		if (!tar_checksum_ok(h)) {
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "archive entry %zu: bad header checksum", entry);
			break;
		}
		long long size = tar_number(h + 124, 12);
		size_t data_blocks = size >= 0 ? ((size_t)size + TAR_BLOCK - 1) / TAR_BLOCK : 0;
		if (size < 0 || off + TAR_BLOCK + data_blocks * TAR_BLOCK > len) {
			rc =
			    isotier__error_set(err, ISOTIER_EDATA, 0,
			                       "archive entry %zu: size beyond the archive", entry);
			break;
		}
		const unsigned char *data = h + TAR_BLOCK;
		off += TAR_BLOCK + data_blocks * TAR_BLOCK;
		char type = (char)h[156];
		if (type != '0' && type != '\0' && type != '5') {
			st.skipped++; /* links, devices, FIFOs, pax and GNU long-name records */
			continue;
		}
		char name[300], *parts[ISOTIER_UNTAR_MAX_DEPTH];
		size_t n;
		if (!tar_name(name, sizeof name, h) || tar_components(name, parts, &n) < 0) {
			st.skipped++; /* "", ".", absolute, "..", too deep: never written */
			if (name[0] == '\0' || !strcmp(name, "."))
				st.skipped--; /* the archive's own root: nothing to skip */
			continue;
		}
		if (st.files + st.dirs >= ISOTIER_UNTAR_MAX_FILES) {
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "archive: more than %d entries",
			                        ISOTIER_UNTAR_MAX_FILES);
			break;
		}
		int dir = open_dirs(root, parts, type == '5' ? n : n - 1);
		if (dir < 0) {
			rc = isotier__error_set(err, ISOTIER_EIO, errno,
			                        "archive entry %zu: directory", entry);
			break;
		}
		if (type == '5')
			st.dirs++;
		else if (write_file(dir, parts[n - 1], data, (size_t)size) < 0)
			st.skipped++; /* a name given twice, or a directory in the way */
		else {
			st.files++;
			st.bytes += (size_t)size;
		}
		close(dir);
	}
	if (stats)
		*stats = st;
	return rc;
}

/* ---- fetching ---------------------------------------------------------- */

#define FETCH_MAX_OUTPUT (ISOTIER_UNTAR_MAX_BYTES / 3 * 4 + (ISOTIER_UNTAR_MAX_BYTES / 57) + 16)

/* base64 text (line breaks allowed) into *out; -1 when not base64. */
static ssize_t decode_lines(unsigned char **out, const char *text, size_t len)
{
	char *compact = malloc(len + 1);
	*out = malloc(len / 4 * 3 + 4);
	if (!compact || !*out) {
		free(compact);
		return -1;
	}
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] != '\n' && text[i] != '\r')
			compact[n++] = text[i];
	ssize_t got = isotier__base64_decode(*out, compact, n);
	free(compact);
	return got;
}

int isotier__fetch_by_exec(const isotier_backend *b, void *state, const char *guest_dir,
                           const char *host_dir, const isotier_exec_request *how,
                           isotier_error *err)
{
	/* The directory is the last argument, so a backend maps it to where it
	 * really is inside (backends/remote/remote.h) like any path under the guest dir. */
	const char *const argv[] = {"/bin/sh", "-c",      "cd \"$1\" && tar -cf - . | base64",
	                            "sh",      guest_dir, NULL};
	isotier_exec_request req = {.argv = argv,
	                            .timeout_s = how ? how->timeout_s : 0,
	                            .cancel_fd = how ? how->cancel_fd : -1};
	isotier_collected got = {.max_out = FETCH_MAX_OUTPUT};
	int status = -1;
	int rc = isotier__exec_collect(&got, b, state, &req, &status, err);
	cleanup_free char *text = got.out;
	if (rc < 0)
		return isotier__error_prefix(err, "fetch %s", guest_dir);
	if (status != 0) {
		got.err[strcspn(got.err, "\n")] = '\0';
		return isotier__error_set(err, ISOTIER_EDATA, 0, "fetch %s: tar exited %d%s%.160s",
		                          guest_dir, status, got.err[0] ? ": " : "", got.err);
	}
	if (got.out_over)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "fetch %s: more than %u bytes",
		                          guest_dir, ISOTIER_UNTAR_MAX_BYTES);
	cleanup_free unsigned char *tar = NULL;
	ssize_t n = decode_lines(&tar, text ? text : "", got.out_len);
	if (n < 0)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "fetch %s: not base64", guest_dir);
	rc = isotier__untar(tar, (size_t)n, host_dir, NULL, err);
	return rc < 0 ? isotier__error_prefix(err, "fetch %s", guest_dir) : 0;
}
