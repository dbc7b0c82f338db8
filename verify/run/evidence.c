/* SPDX-License-Identifier: Apache-2.0 */
/* evidence.c - a small ustar writer for capture directories (hostile trees). */
#include "evidence.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define TAR_BLOCK    512
#define TAR_PATH_MAX 1024

struct ustar_header {
	char name[100];
	char mode[8];
	char uid[8];
	char gid[8];
	char size[12];
	char mtime[12];
	char chksum[8];
	char typeflag;
	char linkname[100];
	char magic[6];
	char version[2];
	char uname[32];
	char gname[32];
	char devmajor[8];
	char devminor[8];
	char prefix[155];
	char pad[12];
};
_Static_assert(sizeof(struct ustar_header) == TAR_BLOCK, "ustar header is one block");

void evidence_tar_free(evidence_tar *t)
{
	if (!t)
		return;
	free(t->data);
	memset(t, 0, sizeof *t);
}

static int reserve(evidence_tar *t, size_t more, isotier_error *err)
{
	if (t->len + more <= t->cap)
		return 0;
	size_t cap = t->cap ? t->cap : 16 * TAR_BLOCK;
	while (cap < t->len + more)
		cap *= 2;
	unsigned char *d = realloc(t->data, cap);
	if (!d)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "evidence: out of memory");
	t->data = d;
	t->cap = cap;
	return 0;
}

/* Room left for entries, keeping two zero blocks for the end of archive. */
static size_t budget_left(const evidence_tar *t)
{
	size_t limit = EVIDENCE_MAX_BYTES - 2 * TAR_BLOCK;
	return t->len >= limit ? 0 : limit - t->len;
}

static void octal(char *field, size_t width, unsigned long long v)
{
	/* width-1 octal digits, zero-padded, and a NUL; values that do not fit
	 * saturate (callers bound sizes far below 8 GiB). */
	field[width - 1] = '\0';
	for (size_t i = width - 1; i-- > 0; v >>= 3)
		field[i] = (char)('0' + (v & 7));
}

/* Splits path into ustar prefix/name; false when it cannot be represented. */
static bool split_path(struct ustar_header *h, const char *path)
{
	size_t n = strlen(path);
	if (n <= sizeof h->name) {
		memcpy(h->name, path, n);
		return true;
	}
	for (size_t i = n; i-- > 0;) {
		if (path[i] != '/')
			continue;
		size_t plen = i, nlen = n - i - 1;
		if (plen <= sizeof h->prefix && nlen <= sizeof h->name && nlen > 0) {
			memcpy(h->prefix, path, plen);
			memcpy(h->name, path + i + 1, nlen);
			return true;
		}
		if (nlen > sizeof h->name)
			return false;
	}
	return false;
}

static int add_header(evidence_tar *t, const char *path, char type, unsigned mode,
                      unsigned long long size, long long mtime, const char *linkname,
                      isotier_error *err)
{
	struct ustar_header h;
	memset(&h, 0, sizeof h);
	if (!split_path(&h, path) || (linkname && strlen(linkname) > sizeof h.linkname)) {
		t->n_skipped++;
		return 1;
	}
	size_t padded = (size_t)((size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK);
	if (TAR_BLOCK + padded > budget_left(t)) {
		t->n_skipped++;
		t->truncated = true;
		return 1;
	}
	if (t->n_entries >= EVIDENCE_MAX_ENTRIES) {
		t->n_skipped++;
		t->truncated = true;
		return 1;
	}
	octal(h.mode, sizeof h.mode, mode & 07777);
	octal(h.uid, sizeof h.uid, 0);
	octal(h.gid, sizeof h.gid, 0);
	octal(h.size, sizeof h.size, size);
	octal(h.mtime, sizeof h.mtime, mtime > 0 ? (unsigned long long)mtime : 0);
	h.typeflag = type;
	if (linkname)
		memcpy(h.linkname, linkname, strlen(linkname));
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	memcpy(h.uname, "root", 4);
	memcpy(h.gname, "root", 4);
	memset(h.chksum, ' ', sizeof h.chksum);
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof h; i++)
		sum += ((unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof h.chksum, "%06o", sum);
	h.chksum[7] = ' ';
	int rc = reserve(t, TAR_BLOCK + padded, err);
	if (rc < 0)
		return rc;
	memcpy(t->data + t->len, &h, TAR_BLOCK);
	t->len += TAR_BLOCK;
	t->n_entries++;
	return 0;
}

/* Appends the file's bytes (exactly size, zero-padded if it shrank). */
static void add_data(evidence_tar *t, int fd, size_t size)
{
	size_t padded = (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	unsigned char *dst = t->data + t->len;
	size_t got = 0;
	while (fd >= 0 && got < size) {
		ssize_t n = read(fd, dst + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	memset(dst + got, 0, padded - got);
	t->len += padded;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int pack(evidence_tar *t, int dirfd, const char *rel, int depth, isotier_error *err);

static int pack_entry(evidence_tar *t, int dirfd, const char *name, const char *rel, int depth,
                      isotier_error *err)
{
	char path[TAR_PATH_MAX];
	int n = snprintf(path, sizeof path, "%s%s%s", rel, *rel ? "/" : "", name);
	if (n < 0 || (size_t)n >= sizeof path) {
		t->n_skipped++;
		return 0;
	}
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		t->n_skipped++;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		char target[101];
		ssize_t len = readlinkat(dirfd, name, target, sizeof target);
		if (len < 0 || (size_t)len >= sizeof target) {
			t->n_skipped++;
			return 0;
		}
		target[len] = '\0';
		int rc = add_header(t, path, '2', 0777, 0, st.st_mtime, target, err);
		return rc < 0 ? rc : 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (depth >= EVIDENCE_MAX_DEPTH) {
			t->n_skipped++;
			return 0;
		}
		char dpath[TAR_PATH_MAX + 2];
		snprintf(dpath, sizeof dpath, "%s/", path);
		int rc = add_header(t, dpath, '5', 0755, 0, st.st_mtime, NULL, err);
		if (rc < 0)
			return rc;
		int sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			t->n_skipped++;
			return 0;
		}
		return pack(t, sub, path, depth + 1, err); /* pack closes sub */
	}
	if (!S_ISREG(st.st_mode)) {
		t->n_skipped++;
		return 0;
	}
	cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat fst;
	if (fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
		t->n_skipped++;
		return 0;
	}
	size_t size = (size_t)fst.st_size;
	int rc = add_header(t, path, '0', (fst.st_mode & 0111) ? 0755 : 0644, size, fst.st_mtime,
	                    NULL, err);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	add_data(t, fd, size);
	return 0;
}

static int pack(evidence_tar *t, int dfd, const char *rel, int depth, isotier_error *err)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		t->n_skipped++;
		return 0;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n >= EVIDENCE_MAX_ENTRIES) {
			t->n_skipped++;
			t->truncated = true;
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			char **nn = realloc(names, ncap * sizeof *names);
			if (!nn) {
				rc = isotier__error_set(err, ISOTIER_ENOMEM, 0,
				                        "evidence: out of memory");
				break;
			}
			names = nn;
			cap = ncap;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "evidence: out of memory");
			break;
		}
		n++;
	}
	if (rc == 0 && n)
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = pack_entry(t, dirfd(d), names[i], rel, depth, err);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

int evidence_pack_dir(evidence_tar *out, const char *dir, isotier_error *err)
{
	memset(out, 0, sizeof *out);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "evidence: open %s", dir);
	int rc = pack(out, fd, "", 0, err);
	if (rc == 0)
		rc = reserve(out, 2 * TAR_BLOCK, err);
	if (rc < 0) {
		evidence_tar_free(out);
		return rc;
	}
	memset(out->data + out->len, 0, 2 * TAR_BLOCK);
	out->len += 2 * TAR_BLOCK;
	return 0;
}
