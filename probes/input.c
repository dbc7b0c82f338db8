/* SPDX-License-Identifier: Apache-2.0 */
/*
 * input.c - where the probe's raw inputs come from: the live system or a
 * replay directory (--root), and where they go: the capture directory
 * (--capture). See CAPTURE.md for the layout.
 *
 * Every input is read once and cached, so the live run, its capture and the
 * report all see the same bytes; that is what makes replay give the same
 * verdict as the run that made the capture.
 */
#include "probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Every path under the replay root or the capture directory is resolved one
 * component at a time from the directory's fd: openat(O_NOFOLLOW|O_DIRECTORY)
 * for each directory, O_NOFOLLOW for the last one. A symlink anywhere (proc ->
 * /proc, proc/self -> /var/lib/dpkg) stops the walk, so nothing outside the
 * directory is ever read or written.
 */

/* The live path, minus its leading '/': components that are neither empty,
 * "." nor ".."; NULL when the path is not like that. */
static const char *probe_rel(const char *path)
{
	if (!path || path[0] != '/' || strlen(path) >= 4096)
		return NULL;
	const char *rel = path + 1;
	for (const char *seg = rel;;) {
		const char *slash = strchr(seg, '/');
		size_t l = slash ? (size_t)(slash - seg) : strlen(seg);
		if (l == 0 || (l == 1 && seg[0] == '.') ||
		    (l == 2 && seg[0] == '.' && seg[1] == '.'))
			return NULL;
		if (!slash)
			return rel;
		seg = slash + 1;
	}
}

/*
 * Opens path (absolute, as live) under dirfd, never following a symlink and
 * never leaving dirfd; flags are those of the last component. With `create`,
 * missing directories are made (0755) and every directory on the way must be
 * owned by us (a capture directory is ours alone). Returns an fd or -1.
 */
static int probe_open_beneath(int dirfd, const char *path, int flags, bool create)
{
	char buf[4096];
	const char *rel = probe_rel(path);
	if (!rel) {
		errno = EINVAL;
		return -1;
	}
	probe_strlcpy(buf, sizeof(buf), rel);
	int dfd = dirfd, fd = -1, saved;
	char *seg = buf;
	for (char *slash; (slash = strchr(seg, '/')); seg = slash + 1) {
		*slash = '\0';
		if (create && mkdirat(dfd, seg, 0755) < 0 && errno != EEXIST)
			goto fail;
		int nfd = openat(dfd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0)
			goto fail;
		if (dfd != dirfd)
			close(dfd);
		dfd = nfd;
		struct stat st;
		if (create && (fstat(dfd, &st) < 0 || st.st_uid != geteuid())) {
			errno = EPERM;
			goto fail;
		}
	}
	fd = openat(dfd, seg, flags | O_NOFOLLOW | O_CLOEXEC, 0644);
fail:
	saved = errno;
	if (dfd != dirfd)
		close(dfd);
	errno = saved;
	return fd;
}

/* The capture directory: created fresh (0700), or an existing one that is
 * empty, a real directory (not a symlink) and ours. Returns an fd or -1. */
static int probe_capture_open(const char *dir, const char **why)
{
	*why = "cannot create it";
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat lst;
		int saved = errno;
		if (lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode))
			*why = "is a symlink, not a directory";
		else if (saved == ENOTDIR)
			*why = "exists and is not a directory";
		else
			*why = "cannot open it";
		errno = saved;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		*why = "exists and is not owned by the current user";
		close(fd);
		errno = EPERM;
		return -1;
	}
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		*why = "cannot list it";
		close(fd);
		return -1;
	}
	struct dirent *e;
	bool empty = true;
	while (empty && (e = readdir(d)))
		if (!(e->d_name[0] == '.' &&
		      (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))))
			empty = false;
	closedir(d);
	if (!empty) {
		*why = "exists and is not empty";
		close(fd);
		errno = ENOTEMPTY;
		return -1;
	}
	return fd;
}

int probe_input_init(struct probe_input *in, const char *root, const char *capture)
{
	memset(in, 0, sizeof(*in));
	in->root = root;
	in->capture = capture;
	in->root_fd = -1;
	in->capture_fd = -1;
	in->stream.fd = -1;
	if (root) {
		in->root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (in->root_fd < 0) {
			in->error = errno == ENOTDIR ? "not a directory" : "cannot open it";
			return -1;
		}
	}
	if (capture) {
		const char *why;
		in->capture_fd = probe_capture_open(capture, &why);
		if (in->capture_fd < 0) {
			in->error = why;
			in->capture = NULL;
			return -1;
		}
	}
	return 0;
}

void probe_input_free(struct probe_input *in)
{
	for (size_t i = 0; i < in->ncache; i++) {
		free(in->cache[i].path);
		free(in->cache[i].data);
	}
	in->ncache = 0;
	for (size_t i = 0; i < in->ncapture_dirs; i++)
		close(in->capture_dirs[i].fd);
	in->ncapture_dirs = 0;
	if (in->root_fd >= 0)
		close(in->root_fd);
	if (in->capture_fd >= 0)
		close(in->capture_fd);
	in->root_fd = in->capture_fd = -1;
	if (in->stream.fd >= 0)
		close(in->stream.fd);
	in->stream.fd = -1;
	free(in->stream.buf);
	in->stream.buf = NULL;
}

/* The directory dir (relative to the capture directory, "" for itself),
 * made when missing (0755, ours, never a symlink), its fd kept in
 * in->capture_dirs; -1 when it cannot be made or the table is full. */
static int probe_capture_dir(struct probe_input *in, const char *dir)
{
	if (!*dir)
		return in->capture_fd;
	for (size_t i = 0; i < in->ncapture_dirs; i++)
		if (strcmp(in->capture_dirs[i].path, dir) == 0)
			return in->capture_dirs[i].fd;
	if (in->ncapture_dirs == PROBE_CAPTURE_DIRS ||
	    strlen(dir) >= sizeof in->capture_dirs[0].path)
		return -1;
	char parent[sizeof in->capture_dirs[0].path];
	probe_strlcpy(parent, sizeof parent, dir);
	char *slash = strrchr(parent, '/');
	const char *name = slash ? slash + 1 : dir;
	if (slash)
		*slash = '\0';
	else
		parent[0] = '\0';
	int pfd = probe_capture_dir(in, parent);
	if (pfd < 0 || (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST))
		return -1;
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid())) {
		close(fd);
		return -1;
	}
	if (fd < 0 || in->ncapture_dirs == PROBE_CAPTURE_DIRS) { /* a parent took the last row */
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct probe_capture_dir *d = &in->capture_dirs[in->ncapture_dirs++];
	probe_strlcpy(d->path, sizeof d->path, dir);
	d->fd = fd;
	return fd;
}

/* Writes one input under the capture directory (a file of its own: O_EXCL);
 * false on any failure. Its directory comes from the table above; a path
 * the table cannot hold is walked component by component instead. */
static bool probe_capture_write(struct probe_input *in, const char *path, const char *data,
                                size_t len)
{
	const char *rel = probe_rel(path);
	if (!rel)
		return false;
	char dir[sizeof in->capture_dirs[0].path] = "";
	const char *base = strrchr(rel, '/');
	int dfd = -1;
	if (!base || (size_t)(base - rel) < sizeof dir) {
		if (base) {
			memcpy(dir, rel, (size_t)(base - rel));
			dir[base - rel] = '\0';
		}
		dfd = probe_capture_dir(in, dir);
	}
	int fd = dfd >= 0
	             ? openat(dfd, base ? base + 1 : rel,
	                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)
	             : probe_open_beneath(in->capture_fd, path, O_WRONLY | O_CREAT | O_EXCL, true);
	if (fd < 0)
		return false;
	/* write(2) only reads data; the loop is shared with reading. */
	size_t off = probe_transfer(fd, (char *)data, len, true);
	return close(fd) == 0 && off == len;
}

/*
 * PID 1's environment may hold secrets (API keys passed to a container), and
 * captures end up in histories and reports: keep only the container=
 * entries the probe reads. Returns the new length.
 */
size_t probe_redact_environ(char *data, size_t len)
{
	size_t out = 0;
	for (size_t off = 0; off < len;) {
		size_t n = strnlen(data + off, len - off);
		if (n >= 10 && strncmp(data + off, "container=", 10) == 0) {
			memmove(data + out, data + off, n);
			out += n;
			if (out < len) /* a cut last entry has no NUL of its own */
				data[out++] = '\0';
		}
		off += n + 1;
	}
	data[out] = '\0';
	return out;
}

static const char *probe_read_max(struct probe_input *in, const char *path, size_t max, size_t *len)
{
	size_t dummy;
	if (!len)
		len = &dummy;
	*len = 0;
	for (size_t i = 0; i < in->ncache; i++) {
		if (strcmp(in->cache[i].path, path) == 0) {
			*len = in->cache[i].len < 0 ? 0 : (size_t)in->cache[i].len;
			return in->cache[i].data;
		}
	}
	if (!probe_rel(path) || in->ncache >= PROBE_MAX_INPUTS)
		return NULL;

	char *data = NULL;
	size_t n = 0;
	if (in->root) {
		if (in->root_fd >= 0)
			data = probe_slurp_fd(probe_open_beneath(in->root_fd, path,
			                                         O_RDONLY | O_NONBLOCK | O_NOCTTY,
			                                         false),
			                      max, &n);
	} else if (probe_starts_with(path, "/.probe/")) {
		data = probe_live_generate(path + strlen("/.probe/"));
		if (data) {
			n = strlen(data);
			if (n > max) {
				n = max;
				data[n] = '\0';
			}
		}
	} else {
		data = probe_slurp(path, max, &n);
	}
	/* Live or replayed (a capture written by another tool, or by hand): the
	 * secrets go before anything (report, capture, --emit-capture) sees it. */
	if (data && strcmp(path, "/proc/1/environ") == 0)
		n = probe_redact_environ(data, n);

	struct probe_cached *c = &in->cache[in->ncache];
	c->path = strdup(path);
	if (!c->path) {
		free(data);
		return NULL;
	}
	in->ncache++;
	c->data = data;
	c->len = data ? (ssize_t)n : -1;
	if (data && in->stream.fd >= 0 && !probe_capture_stream_put(in, probe_rel(path), data, n))
		in->capture_failed++;
	else if (data && in->capture_fd >= 0 && !probe_capture_write(in, path, data, n))
		in->capture_failed++;
	*len = n;
	return data;
}

const char *probe_read(struct probe_input *in, const char *path, size_t *len)
{
	return probe_read_max(in, path, PROBE_MAX_FILE, len);
}

const char *probe_read_head(struct probe_input *in, const char *path, size_t max, size_t *len)
{
	return probe_read_max(in, path, max, len);
}

size_t probe_list_dir(struct probe_input *in, const char *path, char **names, size_t max)
{
	if (!probe_rel(path))
		return 0;
	if (!in->root)
		return probe_list_live(path, names, max);
	int fd = in->root_fd < 0 ? -1
	                         : probe_open_beneath(in->root_fd, path,
	                                              O_RDONLY | O_DIRECTORY | O_NONBLOCK, false);
	return probe_list_fd(fd, names, max);
}

/* A line of text (lines of paths) equal to path, or to its last component
 * for the /dev/ names of a .probe/dev list. */
static bool probe_listed(const char *text, const char *path)
{
	const char *base = strrchr(path, '/');
	bool dev = probe_starts_with(path, "/dev/");
	size_t pl = strlen(path), bl = base ? strlen(base + 1) : 0;
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len && line[len - 1] == '\r')
			len--;
		if ((len == pl && memcmp(line, path, pl) == 0) ||
		    (dev && base && len == bl && memcmp(line, base + 1, bl) == 0))
			return true;
		line = eol ? eol + 1 : NULL;
	}
	return false;
}

bool probe_path_exists(struct probe_input *in, const char *path)
{
	const char *paths = probe_read(in, "/.probe/paths", NULL);
	if (paths && probe_listed(paths, path))
		return true;
	if (!in->root)
		return false; /* live: .probe/paths is the answer */
	if (probe_starts_with(path, "/dev/")) {
		const char *dev = probe_read(in, "/.probe/dev", NULL);
		if (dev && probe_listed(dev, path))
			return true;
	}
	/* A root written by another tool may hold the path itself. */
	if (in->root_fd < 0)
		return false;
	int fd = probe_open_beneath(in->root_fd, path, O_PATH, false);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}
