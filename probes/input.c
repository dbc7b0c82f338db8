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

void probe_input_init(struct probe_input *in, const char *root, const char *capture)
{
	memset(in, 0, sizeof(*in));
	in->root = root;
	in->capture = capture;
}

void probe_input_free(struct probe_input *in)
{
	for (size_t i = 0; i < in->ncache; i++) {
		free(in->cache[i].path);
		free(in->cache[i].data);
	}
	in->ncache = 0;
}

static char *probe_read_fd(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	size_t n = 0;
	if (!buf)
		return NULL;
	while (n < max) {
		ssize_t r = read(fd, buf + n, max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/*
 * Only regular files: a replay directory is hostile and could hold a FIFO
 * (which would block) or a device. O_NONBLOCK makes the open itself safe.
 */
static char *probe_slurp_flags(const char *path, size_t max, size_t *len, int extra)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	char *buf = probe_read_fd(fd, max, len);
	close(fd);
	return buf;
}

char *probe_slurp(const char *path, size_t max, size_t *len)
{
	return probe_slurp_flags(path, max, len, 0);
}

int probe_mkdir_parents(const char *path)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -1;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

static void probe_capture_write(const char *capture, const char *path, const char *data, size_t len)
{
	char full[4096];
	if (snprintf(full, sizeof(full), "%s%s", capture, path) >= (int)sizeof(full))
		return;
	if (probe_mkdir_parents(full) < 0)
		return;
	int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return;
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
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

/* A replay path must stay inside the root: refuse "..", relative paths. */
static bool probe_path_ok(const char *path)
{
	return path[0] == '/' && !strstr(path, "/..") && !strstr(path, "//");
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
	if (!probe_path_ok(path) || in->ncache >= PROBE_MAX_INPUTS)
		return NULL;

	char *data = NULL;
	size_t n = 0;
	if (in->root) {
		char full[4096];
		if (snprintf(full, sizeof(full), "%s%s", in->root, path) < (int)sizeof(full))
			data = probe_slurp_flags(full, max, &n, O_NOFOLLOW);
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
		if (data && strcmp(path, "/proc/1/environ") == 0)
			n = probe_redact_environ(data, n);
	}

	struct probe_cached *c = &in->cache[in->ncache];
	c->path = strdup(path);
	if (!c->path) {
		free(data);
		return NULL;
	}
	in->ncache++;
	c->data = data;
	c->len = data ? (ssize_t)n : -1;
	if (data && in->capture)
		probe_capture_write(in->capture, path, data, n);
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

static int probe_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t probe_list_dir(struct probe_input *in, const char *path, char **names, size_t max)
{
	char full[4096];
	if (!probe_path_ok(path))
		return 0;
	if (snprintf(full, sizeof(full), "%s%s", in->root ? in->root : "", path) >=
	    (int)sizeof(full))
		return 0;
	DIR *d = opendir(full);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while (n < max && (e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		names[n] = strdup(e->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), probe_cmp_str);
	return n;
}
