/* SPDX-License-Identifier: Apache-2.0 */
/*
 * churn_worktree.c - `isotier churn --worktree`: the working tree's
 * provider files (catalogue/providers, *.json) and CHURN.md, read from the filesystem (what
 * is about to be committed: a pre-commit check). Hostile files: regular
 * files only (never a FIFO, a device or a symbolic link: opened O_NOFOLLOW
 * and O_NONBLOCK, checked with fstat), bounded in size and in number.
 */
#include "churn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads the regular file name (relative to dirfd) whole, at most max bytes. */
static int read_regular(char **out, size_t *len, bool *found, int dirfd, const char *name,
                        const char *where, size_t max, isotier_error *err)
{
	*found = false;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return isotier__error_set(err, errno == ELOOP ? ISOTIER_EDATA : ISOTIER_EIO, errno,
		                          "%s: %s", where,
		                          errno == ELOOP ? "a symbolic link" : strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not a regular file", where);
	}
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %zu bytes", where,
		                          max);
	}
	char *buf = malloc((size_t)st.st_size + 1);
	ssize_t got = buf ? isotier__read_full(fd, buf, (size_t)st.st_size) : 0;
	size_t n = got > 0 ? (size_t)got : 0;
	int saved = got < 0 ? errno : 0;
	close(fd);
	if (!buf)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	if (n != (size_t)st.st_size) {
		free(buf);
		return isotier__error_set(err, ISOTIER_EIO, saved, "%s: short read", where);
	}
	buf[n] = '\0';
	*out = buf, *len = n, *found = true;
	return 0;
}

int churn_read_worktree_file(char **out, size_t *len, bool *found, const char *workdir,
                             const char *path, size_t max, isotier_error *err)
{
	int dirfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "working tree %s: %s", workdir,
		                          strerror(errno));
	char where[1024];
	snprintf(where, sizeof where, "working tree: %s", path);
	int rc = read_regular(out, len, found, dirfd, path, where, max, err);
	close(dirfd);
	return rc;
}

static int cmp_claim(const void *a, const void *b)
{
	return strcmp(((const churn_claim *)a)->id, ((const churn_claim *)b)->id);
}

int churn_snapshot_load_worktree(churn_snapshot *out, const char *workdir, isotier_error *err)
{
	memset(out, 0, sizeof *out);
	char dirpath[4096];
	snprintf(dirpath, sizeof dirpath, "%s/%s", workdir, CHURN_PROVIDERS_DIR);
	int dirfd = open(dirpath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		if (errno == ENOENT)
			return 0; /* no catalogue yet: every provider is new */
		return isotier__error_set(err, ISOTIER_EDATA, errno, "working tree: %s: %s",
		                          CHURN_PROVIDERS_DIR, strerror(errno));
	}
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return isotier__error_set(err, ISOTIER_EIO, errno, "working tree: %s: %s",
		                          CHURN_PROVIDERS_DIR, strerror(errno));
	}
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		size_t nl = strlen(e->d_name);
		if (nl < 6 || strcmp(e->d_name + nl - 5, ".json"))
			continue;
		if (out->n >= CHURN_PROVIDERS_MAX) {
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "working tree: more than %d files in %s",
			                        CHURN_PROVIDERS_MAX, CHURN_PROVIDERS_DIR);
			break;
		}
		char where[1024];
		snprintf(where, sizeof where, "working tree: %s/%s", CHURN_PROVIDERS_DIR,
		         e->d_name);
		char *text = NULL;
		size_t len = 0;
		bool found = false;
		if ((rc = read_regular(&text, &len, &found, dirfd, e->d_name, where, CHURN_JSON_MAX,
		                       err)) < 0 ||
		    !found) {
			free(text);
			continue;
		}
		if (out->n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			churn_claim *items = realloc(out->items, ncap * sizeof *items);
			if (!items) {
				free(text);
				rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
				break;
			}
			out->items = items, cap = ncap;
		}
		churn_claim *c = &out->items[out->n];
		memset(c, 0, sizeof *c);
		rc = churn_claim_parse(c, text, len, where, err);
		free(text);
		if (rc < 0) {
			churn_claim_clear(c);
			break;
		}
		out->n++;
		if (asprintf(&c->path, "%s/%s", CHURN_PROVIDERS_DIR, e->d_name) < 0) {
			c->path = NULL;
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		}
	}
	closedir(d);
	if (rc == 0 && out->n)
		qsort(out->items, out->n, sizeof *out->items, cmp_claim);
	for (size_t i = 1; rc == 0 && i < out->n; i++)
		if (!strcmp(out->items[i - 1].id, out->items[i].id))
			rc = isotier__error_set(
			    err, ISOTIER_EDATA, 0, "working tree: %s and %s both have id \"%s\"",
			    out->items[i - 1].path, out->items[i].path, out->items[i].id);
	if (rc < 0)
		churn_snapshot_clear(out);
	return rc;
}
