/* SPDX-License-Identifier: Apache-2.0 */
/* util.c - small helpers: time, bounded file reads, terminal-safe output. */
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct timespec isotier__time_after_ms(int clock, long ms)
{
	struct timespec ts;
	clock_gettime((clockid_t)clock, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* One step of a whole-buffer transfer: as much as the call moves at once. */
typedef ssize_t (*transfer_step)(int fd, void *buf, size_t len);

static ssize_t step_getrandom(int fd, void *buf, size_t len)
{
	(void)fd;
	return getrandom(buf, len, 0);
}

static ssize_t step_write(int fd, void *buf, size_t len)
{
	return write(fd, buf, len);
}

static ssize_t step_read(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

/*
 * The loop the three transfers below share: a step cut short by a signal is
 * taken again; an error ends it with -1. A step that moves nothing ends it
 * too: at_eof says whether that is the end (read) or an error (EIO: write,
 * getrandom). The bytes moved, or -1.
 */
static ssize_t transfer_all(transfer_step step, int fd, void *buf, size_t len, bool at_eof)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = step(fd, (char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			if (at_eof)
				break;
			errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int isotier__random_bytes(void *buf, size_t len)
{
	return transfer_all(step_getrandom, -1, buf, len, false) < 0 ? -1 : 0;
}

int isotier__write_all(int fd, const void *buf, size_t len)
{
	/* write(2) reads buf; the step's type is shared with read. */
	return transfer_all(step_write, fd, (void *)buf, len, false) < 0 ? -1 : 0;
}

ssize_t isotier__read_full(int fd, void *buf, size_t len)
{
	return transfer_all(step_read, fd, buf, len, true);
}

void isotier__strbuf_add(isotier_strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *nb = realloc(b->buf, cap);
		if (!nb) {
			b->oom = true;
			return;
		}
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void isotier__utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int isotier__read_file(char **out, size_t *out_len, const char *path, size_t max,
                       isotier_error *err)
{
	/* Non-blocking, and regular files only, checked on the open descriptor:
	 * a FIFO or a /proc file like kmsg swapped in must not hang us. */
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "open %s", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "stat %s", path);
	if (!S_ISREG(st.st_mode))
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: not a regular file", path);
	size_t cap = 4096, len = 0;
	cleanup_free char *buf = malloc(cap + 1);
	if (!buf)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "read %s: out of memory", path);
	for (;;) {
		if (len == cap) {
			if (cap >= max + 1)
				break;
			size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			char *nbuf = realloc(buf, ncap + 1);
			if (!nbuf)
				return isotier__error_set(err, ISOTIER_ENOMEM, 0,
				                          "read %s: out of memory", path);
			buf = nbuf;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return isotier__error_set(err, ISOTIER_EDATA, 0,
				                          "%s: would block (not a plain file)",
				                          path);
			return isotier__error_set(err, ISOTIER_EIO, errno, "read %s", path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %zu bytes", path,
		                          max);
	buf[len] = '\0';
	if (out_len)
		*out_len = len;
	*out = steal_pointer(&buf);
	return 0;
}

int isotier__open_append(const char *path, const char *what, isotier_error *err)
{
	/* O_NONBLOCK: opening a FIFO with no reader fails (ENXIO) instead of
	 * waiting for one forever; whatever opened, only a regular file stays.
	 * O_NOFOLLOW: a symbolic link in the last component is refused, so the
	 * records never land in whatever file a planted link names. */
	int fd = open(
	    path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW,
	    0640);
	if (fd < 0) {
		int e = errno;
		struct stat st;
		if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "%s %s: a symbolic link; not following it (name "
			                          "the file itself)",
			                          what, path);
		if ((e == ENXIO || e == EISDIR || e == ENODEV) && stat(path, &st) == 0 &&
		    !S_ISREG(st.st_mode))
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "%s %s: %s, not a regular file", what, path,
			                          isotier__file_kind(st.st_mode));
		return isotier__error_set(err, ISOTIER_EIO, e, "%s %s", what, path);
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int rc = isotier__error_set(err, ISOTIER_EIO, errno, "%s %s", what, path);
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s %s: %s, not a regular file",
		                          what, path, isotier__file_kind(st.st_mode));
	}
	return fd;
}

const char *isotier__file_kind(unsigned mode)
{
	return S_ISREG(mode)    ? "a regular file"
	       : S_ISDIR(mode)  ? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)  ? "a character device"
	       : S_ISBLK(mode)  ? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
	                        : "not a file";
}

size_t isotier__utf8_decode(const unsigned char *p, size_t avail, uint32_t *cp)
{
	size_t len;
	uint32_t min;
	if (avail == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	} else if ((p[0] & 0xe0) == 0xc0) {
		len = 2, min = 0x80, *cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3, min = 0x800, *cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4, min = 0x10000, *cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		/* A NUL terminator fails this test, so C strings never overrun. */
		if (i >= avail || (p[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (p[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

bool isotier__utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = isotier__utf8_decode(p + i, len - i, &cp);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

/* Code points that can rewrite what a terminal shows: C0/C1 controls, DEL,
 * bidirectional overrides and isolates, line/paragraph separators. */
bool isotier__unicode_unsafe(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 ||
	       cp == 0x2029;
}

static void fputs_escaped(FILE *f, const char *s, bool keep_layout)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp = 0;
		size_t n = isotier__utf8_decode(p, SIZE_MAX, &cp);
		if (n == 0) {
			fprintf(f, "\\x%02x", *p++);
			continue;
		}
		if (keep_layout && (cp == '\n' || cp == '\t'))
			fputc((int)cp, f);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp < 0x80 && isotier__unicode_unsafe(cp))
			fprintf(f, "\\x%02x", (unsigned)cp);
		else if (isotier__unicode_unsafe(cp))
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
}

void isotier__fputs_sanitized(FILE *f, const char *s)
{
	fputs_escaped(f, s, true);
}

void isotier__fputs_inline(FILE *f, const char *s)
{
	fputs_escaped(f, s, false);
}
