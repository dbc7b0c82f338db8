/* SPDX-License-Identifier: Apache-2.0 */
/* backend_qemu_console.c - parses the qemu-microvm guest's serial console (see the header). */
#include "backend_qemu_console.h"
#include "../evidence/host_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LINE          ISOTIER_CONSOLE_MAX_LINE
#define MAX_CAPTURE_FILE  ISOTIER_CONSOLE_MAX_FILE
#define MAX_CAPTURE_TOTAL ISOTIER_CONSOLE_MAX_TOTAL
#define MAX_CAPTURE_FILES ISOTIER_CONSOLE_MAX_FILES

static void handle_line(isotier_console *c, char *l, size_t n);
static void capture_close(isotier_console *c);

static void problem(isotier_console *c, const char *fmt, const char *arg)
{
	if (!c->problem[0])
		snprintf(c->problem, sizeof c->problem, fmt, arg);
}

static int b64val(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -1;
}

/* Decodes one base64 line (no whitespace inside); returns bytes or -1. */
static ssize_t b64decode(const char *s, size_t n, unsigned char *out)
{
	if (n % 4)
		return -1;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		for (int k = 0; k < 4; k++) {
			v[k] = s[i + k] == '=' && i + 4 == n && k >= 2
			           ? 0
			           : b64val((unsigned char)s[i + k]);
			if (v[k] < 0)
				return -1;
		}
		if (s[i + 2] == '=' && s[i + 3] != '=')
			return -1;
		unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 |
		             (unsigned)v[3];
		out[o++] = (unsigned char)(w >> 16);
		if (s[i + 2] != '=')
			out[o++] = (unsigned char)(w >> 8);
		if (s[i + 3] != '=')
			out[o++] = (unsigned char)w;
	}
	return (ssize_t)o;
}

int isotier__console_write(int fd, int64_t deadline_ms, int cancel_fd, const unsigned char *p,
                           size_t n)
{
	isotier_relay r = {.fd = fd, .deadline_ms = deadline_ms, .cancel_fd = cancel_fd};
	return isotier__relay_sink(&r, (const char *)p, n);
}

static void relay(isotier_console *c, int fd, const unsigned char *p, size_t n)
{
	int rc = isotier__console_write(fd, c->deadline_ms, c->cancel_fd, p, n);
	if (rc && !c->fatal)
		c->fatal = rc;
}

void isotier__console_finish(isotier_console *c)
{
	if (c->len && !c->overlong) { /* a last line without newline */
		c->line[c->len] = '\0';
		handle_line(c, c->line, c->len);
		c->len = 0;
	}
	capture_close(c);
}

static void capture_close(isotier_console *c)
{
	if (c->cap_fd >= 0) {
		close(c->cap_fd);
		c->cap_fd = -1;
		if (c->cap_got != c->cap_expect)
			problem(c, "capture file %.200s: size differs from its header",
			        c->cap_name);
	}
	c->cap_name[0] = '\0';
}

static bool relpath_ok(const char *p)
{
	if (!*p || *p == '/' || strlen(p) >= 400)
		return false;
	int depth = 0;
	for (const char *seg = p; seg; depth++) {
		const char *slash = strchr(seg, '/');
		size_t l = slash ? (size_t)(slash - seg) : strlen(seg);
		if (l == 0 || (l == 1 && seg[0] == '.') ||
		    (l == 2 && seg[0] == '.' && seg[1] == '.'))
			return false;
		seg = slash ? slash + 1 : NULL;
	}
	for (const unsigned char *q = (const unsigned char *)p; *q; q++)
		if (*q <= ' ' || *q == 0x7f || *q == '\\')
			return false;
	return depth <= 8;
}

/* Opens relpath under the capture dir for writing, creating parents, never
 * following a symlink. */
static int capture_open(const char *dir, const char *rel)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	char buf[512];
	snprintf(buf, sizeof buf, "%s", rel);
	char *seg = buf;
	for (char *slash; (slash = strchr(seg, '/')); seg = slash + 1) {
		*slash = '\0';
		if (mkdirat(dfd, seg, 0755) != 0 && errno != EEXIST) {
			close(dfd);
			return -1;
		}
		int nfd = openat(dfd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dfd);
		if (nfd < 0)
			return -1;
		dfd = nfd;
	}
	int fd = openat(dfd, seg, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	close(dfd);
	return fd;
}

static void handle_line(isotier_console *c, char *l, size_t n)
{
	while (n > 0 && (l[n - 1] == '\r' || l[n - 1] == '\n'))
		l[--n] = '\0';
	/* Kernel noise can precede a frame on the same line: find the tag. */
	char *tag = strstr(l, "ISOTIER-");
	if (!tag && !c->cap_name[0])
		return; /* not ours, and not the base64 body of a capture file */
	unsigned char dec[MAX_LINE];
	if (tag && !strncmp(tag, "ISOTIER-OUT ", 12)) {
		ssize_t d = b64decode(tag + 12, strlen(tag + 12), dec);
		if (d < 0)
			problem(c, "bad output line%s", "");
		else
			relay(c, c->out_fd, dec, (size_t)d);
	} else if (tag && !strncmp(tag, "ISOTIER-ERR ", 12)) {
		ssize_t d = b64decode(tag + 12, strlen(tag + 12), dec);
		if (d < 0)
			problem(c, "bad output line%s", "");
		else
			relay(c, c->err_fd, dec, (size_t)d);
	} else if (tag && !strcmp(tag, "ISOTIER-START")) {
		/* Said before the guest starts its probe: the host's pattern
		 * starts now (host_watch.h), ahead of the probe's sampler. */
		if (!c->started)
			isotier__host_watch_probe_starting();
		c->started = true;
	} else if (tag && !strncmp(tag, "ISOTIER-CAPTURE-FILE ", 21)) {
		capture_close(c);
		char name[512];
		unsigned long long size;
		char extra;
		if (sscanf(tag + 21, "%511s %llu %c", name, &size, &extra) != 2 ||
		    !relpath_ok(name)) {
			problem(c, "capture: rejected file header '%.200s'", tag + 21);
			snprintf(c->cap_name, sizeof c->cap_name, "%s", "?");
			return;
		}
		if (size > MAX_CAPTURE_FILE || c->cap_total + size > MAX_CAPTURE_TOTAL ||
		    c->cap_files >= MAX_CAPTURE_FILES) {
			problem(c, "capture: %.200s over the size or count limit", name);
			snprintf(c->cap_name, sizeof c->cap_name, "%s", "?");
			return;
		}
		snprintf(c->cap_name, sizeof c->cap_name, "%s", name);
		c->cap_expect = (size_t)size;
		c->cap_got = 0;
		c->cap_files++;
		c->cap_total += (size_t)size;
		if (c->spec->capture_dir) {
			c->cap_fd = capture_open(c->spec->capture_dir, name);
			if (c->cap_fd < 0)
				problem(c, "capture: cannot write %.200s", name);
		}
	} else if (tag && !strcmp(tag, "ISOTIER-CAPTURE-END")) {
		capture_close(c);
		c->capture_ended = true;
	} else if (tag && !strncmp(tag, "ISOTIER-EXIT ", 13)) {
		capture_close(c);
		char *end;
		long v = strtol(tag + 13, &end, 10);
		if (*end || v < 0 || v > 255 + 128)
			problem(c, "bad exit line%s", "");
		else
			c->exit_code = (int)v;
	} else if (tag && !strncmp(tag, "ISOTIER-FAIL ", 13)) {
		snprintf(c->fail, sizeof c->fail, "%s", tag + 13);
	} else if (!tag && c->cap_name[0]) {
		ssize_t d = n <= 76 ? b64decode(l, n, dec) : -1;
		if (d < 0) {
			problem(c, "capture %.200s: bad base64 line", c->cap_name);
			return;
		}
		if (c->cap_got + (size_t)d > c->cap_expect) {
			problem(c, "capture %.200s: more data than its header says", c->cap_name);
			return;
		}
		c->cap_got += (size_t)d;
		if (c->cap_fd >= 0)
			relay(c, c->cap_fd, dec, (size_t)d);
	}
}

int isotier__console_sink(void *ctx, const char *buf, size_t len)
{
	isotier_console *c = ctx;
	if (c->debug)
		isotier__console_write(STDERR_FILENO, 0, c->cancel_fd, (const unsigned char *)buf,
		                       len);
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];
		if (ch == '\n') {
			if (!c->overlong) {
				c->line[c->len] = '\0';
				handle_line(c, c->line, c->len);
			}
			c->len = 0;
			c->overlong = false;
		} else if (c->len < MAX_LINE) {
			c->line[c->len++] = ch;
		} else {
			c->overlong = true;
		}
	}
	return c->fatal;
}
