/* SPDX-License-Identifier: Apache-2.0 */
/* backend_qemu_console.c - parses the qemu-microvm guest's console (see the header). */
#include "backend_qemu_console.h"
#include "../evidence/host_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define MAX_LINE          ISOTIER_CONSOLE_MAX_LINE
#define MAX_CAPTURE_FILE  ISOTIER_CONSOLE_MAX_FILE
#define MAX_CAPTURE_TOTAL ISOTIER_CONSOLE_MAX_TOTAL
#define MAX_CAPTURE_FILES ISOTIER_CONSOLE_MAX_FILES

static void handle_line(isotier_console *c, char *l, size_t n);
static void capture_close(isotier_console *c);
static void deflated_broken(isotier_console *c, const char *why);

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
	if (c->z_active)
		deflated_broken(c, "cut short");
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
	/* O_EXCL: a file the guest sends twice would otherwise replace the first
	 * and leave the count of bytes taken larger than what is kept. */
	int fd = openat(dfd, seg, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	close(dfd);
	return fd;
}

/* A file's header, "<relpath> <size>" (both framings): checked, then opened
 * under the capture dir. A rejected one leaves cap_name "?" (its body is
 * dropped) and says why. */
static void capture_begin(isotier_console *c, const char *hdr)
{
	capture_close(c);
	char name[512];
	unsigned long long size;
	char extra;
	if (sscanf(hdr, "%511s %llu %c", name, &size, &extra) != 2 || !relpath_ok(name)) {
		problem(c, "capture: rejected file header '%.200s'", hdr);
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
}

/* Bytes of the open file's body; more than its header said is a problem. */
static void capture_data(isotier_console *c, const unsigned char *p, size_t n)
{
	if (c->cap_got + n > c->cap_expect) {
		problem(c, "capture %.200s: more data than its header says", c->cap_name);
		return;
	}
	c->cap_got += n;
	if (c->cap_fd >= 0)
		relay(c, c->cap_fd, p, n);
}

/* ---- the compressed capture ---------------------------------------------
 * ISOTIER-CAPTURE-DEFLATE <raw size> <compressed size>, base64 lines of one
 * zlib stream, ISOTIER-CAPTURE-END. Inflated, the stream is the files one after
 * the other, each "<relpath> <size>\n" then its bytes: the same headers and
 * checks as ISOTIER-CAPTURE-FILE. Every size is bounded before anything is
 * inflated; a stream that breaks stops being read and is a problem (the run
 * fails, it never stores half a capture as whole). */
#define Z_HEADER_MAX ISOTIER_CONSOLE_Z_HEADER_MAX

static void deflated_free(isotier_console *c)
{
	if (c->z) {
		inflateEnd(c->z);
		free(c->z);
		c->z = NULL;
	}
	c->z_active = false;
}

static void deflated_broken(isotier_console *c, const char *why)
{
	problem(c, "compressed capture: %s", why);
	capture_close(c);
	deflated_free(c);
	c->z_broken = true;
}

static void deflated_begin(isotier_console *c, const char *sizes)
{
	unsigned long long raw, packed;
	char extra;
	capture_close(c);
	if (c->z_active || c->z_broken || c->capture_ended) {
		deflated_broken(c, "a second stream");
		return;
	}
	if (sscanf(sizes, "%llu %llu %c", &raw, &packed, &extra) != 2) {
		deflated_broken(c, "bad header");
		return;
	}
	/* Every file's header is under Z_HEADER_MAX bytes: a stream larger than the
	 * capture's own limits allow is refused before it is read. */
	size_t raw_max = MAX_CAPTURE_TOTAL + (size_t)MAX_CAPTURE_FILES * Z_HEADER_MAX;
	if (raw > raw_max || packed > compressBound((uLong)raw)) {
		deflated_broken(c, "larger than the capture's limits");
		return;
	}
	c->z = calloc(1, sizeof *c->z);
	if (!c->z || inflateInit(c->z) != Z_OK) {
		deflated_broken(c, "out of memory");
		return;
	}
	c->z_active = true;
	c->z_raw_expect = (size_t)raw;
	c->z_packed_expect = (size_t)packed;
	c->z_raw_got = c->z_packed_got = 0;
	c->z_header_len = 0;
}

/* The inflated bytes: file headers and bodies, one after the other. */
static void deflated_records(isotier_console *c, const unsigned char *p, size_t n)
{
	while (n > 0 && c->z_active) {
		if (c->cap_name[0]) {
			size_t take = c->cap_expect - c->cap_got;
			take = take < n ? take : n;
			capture_data(c, p, take);
			p += take;
			n -= take;
			if (c->cap_got == c->cap_expect)
				capture_close(c);
			continue;
		}
		unsigned char ch = *p++;
		n--;
		if (ch != '\n') {
			if (c->z_header_len + 1 >= Z_HEADER_MAX) {
				deflated_broken(c, "a file header too long");
				return;
			}
			c->z_header[c->z_header_len++] = (char)ch;
			continue;
		}
		c->z_header[c->z_header_len] = '\0';
		c->z_header_len = 0;
		capture_begin(c, c->z_header);
		if (!strcmp(c->cap_name, "?")) {
			deflated_broken(c, "a rejected file header");
			return;
		}
		if (c->cap_expect == 0)
			capture_close(c);
	}
}

static void deflated_feed(isotier_console *c, const unsigned char *p, size_t n)
{
	if (c->z_packed_got + n > c->z_packed_expect) {
		deflated_broken(c, "more data than its header says");
		return;
	}
	c->z_packed_got += n;
	c->z->next_in = (unsigned char *)p;
	c->z->avail_in = (uInt)n;
	/* Until this line's bytes are in and zlib holds no output back (a full
	 * output buffer may leave some inside it). */
	bool full = true;
	while (c->z_active && !c->z_ended && (c->z->avail_in > 0 || full)) {
		unsigned char out[16384];
		c->z->next_out = out;
		c->z->avail_out = sizeof out;
		int zrc = inflate(c->z, Z_NO_FLUSH);
		size_t got = sizeof out - c->z->avail_out;
		full = c->z->avail_out == 0;
		if (zrc == Z_BUF_ERROR && got == 0 && c->z->avail_in == 0)
			break; /* wants the next line */
		if (zrc != Z_OK && zrc != Z_STREAM_END) {
			deflated_broken(c, c->z->msg ? c->z->msg : "corrupt stream");
			return;
		}
		if (c->z_raw_got + got > c->z_raw_expect) {
			deflated_broken(c, "inflates to more than its header says");
			return;
		}
		c->z_raw_got += got;
		deflated_records(c, out, got);
		if (zrc == Z_STREAM_END)
			c->z_ended = true;
	}
	if (c->z_active && c->z_ended && c->z->avail_in > 0)
		deflated_broken(c, "data after the end of the stream");
}

static void deflated_end(isotier_console *c)
{
	if (!c->z_ended || c->z_raw_got != c->z_raw_expect ||
	    c->z_packed_got != c->z_packed_expect) {
		deflated_broken(c, "cut short");
		return;
	}
	if (c->cap_name[0] || c->z_header_len) {
		deflated_broken(c, "ends inside a file");
		return;
	}
	deflated_free(c);
}

static void handle_line(isotier_console *c, char *l, size_t n)
{
	while (n > 0 && (l[n - 1] == '\r' || l[n - 1] == '\n'))
		l[--n] = '\0';
	/* Kernel noise can precede a frame on the same line: find the tag. */
	char *tag = strstr(l, "ISOTIER-");
	if (!tag && !c->cap_name[0] && !c->z_active)
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
		if (c->z_active) {
			deflated_broken(c, "a file header inside the compressed capture");
			return;
		}
		capture_begin(c, tag + 21);
	} else if (tag && !strncmp(tag, "ISOTIER-CAPTURE-DEFLATE ", 24)) {
		deflated_begin(c, tag + 24);
	} else if (tag && !strcmp(tag, "ISOTIER-CAPTURE-END")) {
		if (c->z_active)
			deflated_end(c);
		capture_close(c);
		c->capture_ended = true;
	} else if (tag && !strncmp(tag, "ISOTIER-EXIT ", 13)) {
		if (c->z_active)
			deflated_broken(c, "cut short");
		capture_close(c);
		char *end;
		long v = strtol(tag + 13, &end, 10);
		if (*end || v < 0 || v > 255 + 128)
			problem(c, "bad exit line%s", "");
		else
			c->exit_code = (int)v;
	} else if (tag && !strncmp(tag, "ISOTIER-FAIL ", 13)) {
		snprintf(c->fail, sizeof c->fail, "%s", tag + 13);
	} else if (!tag && c->z_active) {
		ssize_t d = n <= 76 ? b64decode(l, n, dec) : -1;
		if (d < 0) {
			deflated_broken(c, "bad base64 line");
			return;
		}
		deflated_feed(c, dec, (size_t)d);
	} else if (!tag && c->cap_name[0]) {
		ssize_t d = n <= 76 ? b64decode(l, n, dec) : -1;
		if (d < 0) {
			problem(c, "capture %.200s: bad base64 line", c->cap_name);
			return;
		}
		capture_data(c, dec, (size_t)d);
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
