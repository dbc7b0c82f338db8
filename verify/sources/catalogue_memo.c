/* SPDX-License-Identifier: Apache-2.0 */
/*
 * catalogue_memo.c - the catalogue commit without libgit2 when nothing changed
 * (see catalogue_memo.h). The key covers what libgit2's answer depends on:
 * HEAD's commit (read here from HEAD, the loose ref or packed-refs: strict and
 * bounded, anything unusual is no key), and the identity of every file the
 * status looks at: each entry under the catalogue directory (a write changes
 * its ctime, which nobody can set back; an added or removed file changes its
 * directory's), the index (staging changes it), the ignore files and the git
 * configurations. An entry changed in the last RACY_S seconds could change
 * again within the same timestamp tick, so such a tree gets no key: libgit2
 * answers, as before. A memo entry is trusted only as far as the state cache
 * trusts its owner (paths.h).
 */
#include "catalogue_memo.h"

#include "../../reference/api/isotier_tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RACY_S          2
#define MAX_ENTRIES     20000
#define MAX_DEPTH       16
#define PACKED_REFS_MAX (16 << 20)

/* A regular file of at most max - 1 bytes, NUL-terminated into buf; its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t max)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (size_t)st.st_size >= max)
		return -1;
	ssize_t got = isotier__read_full(fd, buf, (size_t)st.st_size);
	if (got != (ssize_t)st.st_size)
		return -1;
	buf[got] = '\0';
	return got;
}

static bool hex40(const char *s)
{
	return strspn(s, "0123456789abcdef") >= 40;
}

/* refs/..., [A-Za-z0-9/._-], no "..", no "//", no trailing '/'. */
static bool valid_ref(const char *r, size_t n)
{
	if (n < 6 || n > 200 || strncmp(r, "refs/", 5) != 0 || r[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-",
		            r[i]))
			return false;
		if (i && ((r[i] == '.' && r[i - 1] == '.') || (r[i] == '/' && r[i - 1] == '/')))
			return false;
	}
	return true;
}

int isotier_git_head(char out[41], const char *gitdir)
{
	char path[PATH_MAX], head[256];
	snprintf(path, sizeof path, "%s/HEAD", gitdir);
	ssize_t n = read_small(path, head, sizeof head);
	if (n == 41 && hex40(head) && head[40] == '\n') { /* detached */
		memcpy(out, head, 40);
		out[40] = '\0';
		return 0;
	}
	if (n < 7 || strncmp(head, "ref: ", 5) != 0 || head[n - 1] != '\n')
		return ISOTIER_EDATA;
	const char *ref = head + 5;
	size_t rlen = (size_t)n - 6;
	head[n - 1] = '\0';
	if (!valid_ref(ref, rlen))
		return ISOTIER_EDATA;
	char loose[64];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", gitdir, ref) < sizeof path &&
	    read_small(path, loose, sizeof loose) == 41 && hex40(loose) && loose[40] == '\n') {
		memcpy(out, loose, 40);
		out[40] = '\0';
		return 0;
	}
	/* packed-refs: "<40 hex> <ref>" lines, '#' header, '^' peeled tags. */
	snprintf(path, sizeof path, "%s/packed-refs", gitdir);
	cleanup_free char *packed = NULL;
	size_t plen = 0;
	if (isotier__read_file(&packed, &plen, path, PACKED_REFS_MAX, NULL) != 0)
		return ISOTIER_ENOTFOUND;
	for (char *line = packed, *end; line < packed + plen; line = end + 1) {
		end = memchr(line, '\n', (size_t)(packed + plen - line));
		if (!end)
			break;
		if ((size_t)(end - line) == 41 + rlen && hex40(line) && line[40] == ' ' &&
		    !memcmp(line + 41, ref, rlen)) {
			memcpy(out, line, 40);
			out[40] = '\0';
			return 0;
		}
	}
	return ISOTIER_ENOTFOUND;
}

typedef struct walk {
	EVP_MD_CTX *md;
	time_t racy_after;
	size_t entries;
	bool refused;
} walk;

/* Adds one path's identity to the key; a missing path is part of the key too. */
static void add_stat(walk *w, const char *path, bool must_be_old)
{
	struct stat st;
	char line[PATH_MAX + 160];
	int n;
	if (lstat(path, &st) != 0) {
		n = snprintf(line, sizeof line, "%s -\n", path);
	} else {
		if (must_be_old &&
		    (st.st_mtim.tv_sec >= w->racy_after || st.st_ctim.tv_sec >= w->racy_after))
			w->refused = true;
		n = snprintf(line, sizeof line, "%s %o %llu %lld %lld.%09ld %lld.%09ld\n", path,
		             (unsigned)st.st_mode, (unsigned long long)st.st_ino,
		             (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		             st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	}
	if (n > 0 && (size_t)n < sizeof line)
		EVP_DigestUpdate(w->md, line, (size_t)n);
	else
		w->refused = true;
}

static void add_tree(walk *w, const char *dir, int depth)
{
	add_stat(w, dir, true);
	if (w->refused || depth > MAX_DEPTH)
		return (void)(w->refused = true);
	DIR *d = opendir(dir);
	if (!d)
		return (void)(w->refused = true);
	struct dirent *e;
	while (!w->refused && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++w->entries > MAX_ENTRIES) {
			w->refused = true;
			break;
		}
		char path[PATH_MAX];
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path) {
			w->refused = true;
			break;
		}
		if (e->d_type == DT_DIR)
			add_tree(w, path, depth + 1);
		else
			add_stat(w, path, true);
	}
	closedir(d);
}

/* The work tree holding dir: the nearest parent with a .git directory, on the
 * same file system (libgit2 stops at a file system boundary too). */
static int find_worktree(char *top, size_t len, const char *real)
{
	struct stat st0, st;
	if (stat(real, &st0) != 0 || (size_t)snprintf(top, len, "%s", real) >= len)
		return ISOTIER_EDATA;
	for (;;) {
		char git[PATH_MAX + 8];
		snprintf(git, sizeof git, "%s/.git", top);
		if (lstat(git, &st) == 0)
			return S_ISDIR(st.st_mode)
			           ? 0
			           : ISOTIER_EDATA; /* a worktree or submodule link */
		/* A bare repository (HEAD and objects/ in the directory): libgit2's to judge. */
		char head[PATH_MAX + 16], objects[PATH_MAX + 16];
		snprintf(head, sizeof head, "%s/HEAD", top);
		snprintf(objects, sizeof objects, "%s/objects", top);
		if (access(head, F_OK) == 0 && access(objects, F_OK) == 0)
			return ISOTIER_EDATA;
		char *slash = strrchr(top, '/');
		if (!slash || slash == top)
			return ISOTIER_ENOTFOUND;
		*slash = '\0';
		if (stat(top, &st) != 0 || st.st_dev != st0.st_dev)
			return ISOTIER_ENOTFOUND;
	}
}

int isotier_catalogue_memo_key(char *key, size_t len, const char *dir)
{
	char real[PATH_MAX], top[PATH_MAX], gitdir[PATH_MAX + 8], head[41], path[PATH_MAX + 64];
	if (len < 65 || !realpath(dir, real))
		return ISOTIER_EDATA;
	int rc = find_worktree(top, sizeof top, real);
	if (rc)
		return rc;
	snprintf(gitdir, sizeof gitdir, "%s/.git", top);
	if (isotier_git_head(head, gitdir) != 0)
		return ISOTIER_EDATA;
	walk w = {.md = EVP_MD_CTX_new(), .racy_after = time(NULL) - RACY_S};
	if (!w.md || !EVP_DigestInit_ex(w.md, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(w.md);
		return ISOTIER_ENOMEM;
	}
	char line[PATH_MAX + 64];
	int n = snprintf(line, sizeof line, "catalogue-memo/1\n%s\n%s\n", real, head);
	EVP_DigestUpdate(w.md, line, (size_t)n);
	static const char *const in_git[] = {"index", "config", "info/exclude", "commondir"};
	for (size_t i = 0; i < sizeof in_git / sizeof in_git[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", gitdir, in_git[i]);
		add_stat(&w, path, true);
	}
	/* The ignore files on the way from the work tree down to dir. */
	size_t tl = strlen(top);
	for (char *p = real + tl;; p = strchr(p + 1, '/')) {
		snprintf(path, sizeof path, "%.*s/.gitignore",
		         (int)(p ? (size_t)(p - real) : strlen(real)), real);
		add_stat(&w, path, true);
		if (!p)
			break;
	}
	/* Configurations that may name other ignore files. */
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	add_stat(&w, "/etc/gitconfig", false);
	snprintf(path, sizeof path, "%s/.gitconfig", home ? home : "");
	add_stat(&w, path, false);
	snprintf(path, sizeof path, "%s/git", xdg && *xdg ? xdg : home ? home : "");
	add_stat(&w, path, false);
	add_tree(&w, real, 0);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	bool ok = !w.refused && EVP_DigestFinal_ex(w.md, md, &mdlen) && mdlen == 32;
	EVP_MD_CTX_free(w.md);
	if (!ok)
		return ISOTIER_EDATA; /* racy or too large: libgit2 answers */
	strcpy(key, "catcommit-");
	for (int i = 0; i < 16; i++)
		snprintf(key + 10 + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int isotier_catalogue_memo_get(const char *key, char *out, size_t len)
{
	char buf[64];
	if (isotier__state_cache_get(key, buf, sizeof buf) != 0)
		return ISOTIER_ENOTFOUND;
	size_t n = strcspn(buf, "\n");
	bool dirty = n == 46 && !strncmp(buf + 40, "+dirty", 6);
	if ((n != 40 && !dirty) || buf[n] != '\n' || buf[n + 1] || !hex40(buf) || n + 1 > len)
		return ISOTIER_ENOTFOUND;
	memcpy(out, buf, n);
	out[n] = '\0';
	return 0;
}

void isotier_catalogue_memo_put(const char *key, const char *answer)
{
	char line[64];
	if ((size_t)snprintf(line, sizeof line, "%s\n", answer) < sizeof line)
		isotier__state_cache_put(key, line); /* best effort: a miss costs a libgit2 call */
}
