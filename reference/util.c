/* util.c - small helpers: time, bounded file reads, terminal-safe output. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>

void isotier_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int isotier_read_file(char **out, size_t *out_len, const char *path, size_t max, isotier_error *err)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return isotier_error_set(err, ISOTIER_EIO, errno, "open %s", path);
	size_t cap = 4096, len = 0;
	cleanup_free char *buf = malloc(cap + 1);
	if (!buf)
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "read %s: out of memory", path);
	for (;;) {
		if (len == cap) {
			if (cap >= max + 1)
				break;
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nbuf = realloc(buf, ncap + 1);
			if (!nbuf)
				return isotier_error_set(err, ISOTIER_ENOMEM, 0, "read %s: out of memory", path);
			buf = nbuf;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return isotier_error_set(err, ISOTIER_EIO, errno, "read %s", path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max)
		return isotier_error_set(err, ISOTIER_EDATA, 0, "%s: larger than %zu bytes", path, max);
	buf[len] = '\0';
	if (out_len)
		*out_len = len;
	*out = steal_pointer(&buf);
	return 0;
}

void isotier_fputs_sanitized(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}
