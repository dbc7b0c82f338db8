/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fs.c - bounded reads of real files, shared by the input cache (input.c)
 * and the live producers (live.c, live_arm64.c). Kept apart so that neither
 * calls back into the other: input.c asks live.c for generated inputs, and
 * the producers only need a safe read.
 */
#include "probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t probe_transfer(int fd, void *buf, size_t len, bool writing)
{
	char *p = buf;
	size_t n = 0;
	while (n < len) {
		ssize_t r = writing ? write(fd, p + n, len - n) : read(fd, p + n, len - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	return n;
}

static char *probe_read_fd(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	if (!buf)
		return NULL;
	size_t n = probe_transfer(fd, buf, max, false);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/*
 * Only regular files: a replay directory is hostile and could hold a FIFO
 * (which would block) or a device. O_NONBLOCK makes the open itself safe.
 */
char *probe_slurp_fd(int fd, size_t max, size_t *len)
{
	struct stat st;
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
	return probe_slurp_fd(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), max, len);
}

static int probe_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t probe_list_fd(int fd, char **names, size_t max)
{
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
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

size_t probe_list_live(const char *path, char **names, size_t max)
{
	return probe_list_fd(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), names, max);
}
