/* SPDX-License-Identifier: Apache-2.0 */
/*
 * init.c - /init of the qemu-microvm guest (static, libc only; built with
 * musl-gcc by the Makefile as $(BUILD)/isotier-guest-init).
 *
 * The initramfs written by backend_qemu.c holds:
 *   /init                      this program
 *   /.isotier/args             the command, NUL-separated
 *   /.isotier/mode             "min" (initramfs only) or "9p" (host view over virtio-9p)
 *   /.isotier/stdin            the command's stdin (optional; else /dev/null)
 *   /.isotier/isotier-probe    the probe (optional)
 *   /.isotier/capture/         the capture dir (empty)
 *   /.isotier/modules/         the 9p modules and "order" (mode 9p)
 *
 * It mounts /proc, /sys, /dev, /tmp; in mode 9p loads the modules, mounts the
 * 9p share "isotier-root" read-only at /.isotier/host and binds its top-level
 * directories (and recreates its top-level symlinks) into /, so the command
 * sees a read-only view of the host root beside /.isotier. It runs the
 * command and reports on the console, one framed line at a time:
 *   ISOTIER-OUT <base64>  /  ISOTIER-ERR <base64>     the command's output
 *   ISOTIER-CAPTURE-FILE <relpath> <size> + base64 lines + ... ISOTIER-CAPTURE-END
 *     (built with zlib: ISOTIER-CAPTURE-DEFLATE <raw> <compressed> + base64 lines
 *     of one zlib stream of "<relpath> <size>\n" + bytes, then ISOTIER-CAPTURE-END)
 *   ISOTIER-EXIT <status>  or  ISOTIER-FAIL <message>
 * then reboots, which ends QEMU (-no-reboot). The capture goes out after the
 * command, or earlier when the command is the probe with --capture: it streams
 * its capture on descriptor 3 ($ISOTIER_CAPTURE_FD) and closes it once whole.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifdef ISOTIER_GUEST_ZLIB
#include <zlib.h>
#endif

#define MAX_ARGS         4096
#define MAX_CAPTURE_FILE (16u << 20)

#if defined(__x86_64__) || defined(__i386__)
#define GUEST_PORT_IO 1 /* the architecture has I/O ports (QEMU's isa-debugcon) */
#include <sys/io.h>
/* The I/O port the host attached QEMU's isa-debugcon at (/.isotier/port), or 0:
 * the console. Writing the port skips the guest's tty layer and the 16550's
 * interrupt per 16 bytes, ~4 us a byte under TCG. */
static unsigned short debug_port;
#endif

static void out_all(const char *p, size_t n)
{
#ifdef GUEST_PORT_IO
	if (debug_port) {
		outsb(debug_port, p, (unsigned long)n);
		return;
	}
#endif
	while (n > 0) {
		ssize_t w = write(1, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf)
		n = sizeof buf - 1;
	out_all(buf, (size_t)n);
}

static __attribute__((noreturn)) void finish(void)
{
	sync();
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

static __attribute__((noreturn)) void fail(const char *what)
{
	say("\nISOTIER-FAIL %s: %s\n", what, strerror(errno));
	finish();
}

/* Reads /.isotier/port ("0xe9"): where the host listens instead of the console.
 * A port that cannot be opened leaves the console; the host, hearing nothing,
 * fails the run (it never reads a verdict into silence). */
static void open_debug_port(void)
{
#ifdef GUEST_PORT_IO
	char buf[16] = "";
	int fd = open("/.isotier/port", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	unsigned long port = strtoul(buf, NULL, 0);
	if (port > 0 && port < 0x400 && ioperm(port, 1, 1) == 0)
		debug_port = (unsigned short)port;
#endif
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Writes "<tag> <base64 of up to 57 bytes>\n" lines (76 base64 chars at most). */
static void emit_b64(const char *tag, const unsigned char *p, size_t n)
{
	while (n > 0) {
		size_t chunk = n > 57 ? 57 : n;
		char line[128];
		size_t o = 0;
		if (tag) {
			o = strlen(tag);
			memcpy(line, tag, o);
			line[o++] = ' ';
		}
		for (size_t i = 0; i < chunk; i += 3) {
			unsigned v = (unsigned)p[i] << 16;
			if (i + 1 < chunk)
				v |= (unsigned)p[i + 1] << 8;
			if (i + 2 < chunk)
				v |= p[i + 2];
			line[o++] = b64[(v >> 18) & 63];
			line[o++] = b64[(v >> 12) & 63];
			line[o++] = i + 1 < chunk ? b64[(v >> 6) & 63] : '=';
			line[o++] = i + 2 < chunk ? b64[v & 63] : '=';
		}
		line[o++] = '\n';
		out_all(line, o);
		p += chunk;
		n -= chunk;
	}
}

static void load_modules(void)
{
	FILE *f = fopen("/.isotier/modules/order", "r");
	if (!f)
		fail("open modules/order");
	char name[256];
	while (fgets(name, sizeof name, f)) {
		name[strcspn(name, "\r\n")] = '\0';
		if (!name[0] || strchr(name, '/'))
			continue;
		char path[320];
		snprintf(path, sizeof path, "/.isotier/modules/%s", name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fail(path);
		if (syscall(SYS_finit_module, fd, "", 0) != 0 && errno != EEXIST)
			fail(path);
		close(fd);
	}
	fclose(f);
}

/* Binds the host view: every top-level directory of /.isotier/host (but those
 * this guest provides itself), and its top-level symlinks recreated. */
static void bind_host_view(void)
{
	static const char *const skip[] = {"proc", "sys",        "dev",      "tmp",
	                                   "run",  "lost+found", ".isotier", "init"};
	DIR *d = opendir("/.isotier/host");
	if (!d)
		fail("open /.isotier/host");
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		int skipped = 0;
		for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
			skipped |= !strcmp(e->d_name, skip[i]);
		if (skipped)
			continue;
		char src[512], dst[512];
		snprintf(src, sizeof src, "/.isotier/host/%s", e->d_name);
		snprintf(dst, sizeof dst, "/%s", e->d_name);
		struct stat st;
		if (lstat(src, &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlink(src, target, sizeof target - 1);
			if (n > 0) {
				target[n] = '\0';
				if (symlink(target, dst) != 0 && errno != EEXIST)
					fail(dst);
			}
		} else if (S_ISDIR(st.st_mode)) {
			if (mkdir(dst, 0755) != 0 && errno != EEXIST)
				fail(dst);
			if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
				fail(dst);
			mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
		}
	}
	closedir(d);
}

static int safe_name(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

/* Each regular file under dir (up to 8 levels), handed to sink with its path
 * relative to the capture dir. */
typedef void capture_sink(void *ctx, const char *rel, const unsigned char *p, size_t n);

static void walk_capture(const char *dir, const char *rel, int depth, capture_sink *sink, void *ctx)
{
	DIR *d = opendir(dir);
	if (!d || depth > 8) {
		if (d)
			closedir(d);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !safe_name(e->d_name))
			continue;
		char path[1024], r[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		struct stat st;
		if (lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk_capture(path, r, depth + 1, sink, ctx);
		} else if (S_ISREG(st.st_mode) && (size_t)st.st_size <= MAX_CAPTURE_FILE) {
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			unsigned char *buf = malloc((size_t)st.st_size + 1);
			size_t len = 0;
			while (buf && len < (size_t)st.st_size) {
				ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
				if (n <= 0)
					break;
				len += (size_t)n;
			}
			close(fd);
			if (buf)
				sink(ctx, r, buf, len);
			free(buf);
		}
	}
	closedir(d);
}

/* ISOTIER-CAPTURE-FILE <rel> <size> and the bytes as base64 lines. */
static void emit_file(void *ctx, const char *rel, const unsigned char *p, size_t n)
{
	(void)ctx;
	say("ISOTIER-CAPTURE-FILE %s %zu\n", rel, n);
	emit_b64(NULL, p, n);
}

#ifdef ISOTIER_GUEST_ZLIB
/*
 * The capture as one zlib stream (ISOTIER-CAPTURE-DEFLATE <raw> <compressed>):
 * the files one after the other, each "<rel> <size>\n" then its bytes. Every
 * byte costs on the way out of the guest, and the capture's text (the kernel
 * log above all) deflates to about a third.
 */
typedef struct records {
	unsigned char *p;
	size_t len, cap;
	int failed;
} records;

/* Held in the guest's memory (128 MiB in all) with its compressed copy and
 * the files' own pages: a capture larger than this is streamed file by file
 * instead (the host bounds both the same). */
#define MAX_RECORDS ((size_t)16 << 20)

static void records_add(records *b, const void *p, size_t n)
{
	if (b->failed || n == 0)
		return;
	if (n > MAX_RECORDS - b->len) {
		b->failed = 1;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 65536;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *q = realloc(b->p, cap);
		if (!q) {
			b->failed = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void record_file(void *ctx, const char *rel, const unsigned char *p, size_t n)
{
	char header[1100];
	int hl = snprintf(header, sizeof header, "%s %zu\n", rel, n);
	records_add(ctx, header, (size_t)hl);
	records_add(ctx, p, n);
}

/* Returns 0 when the records went out compressed. */
static int emit_records_deflated(const records *b)
{
	uLongf packed = compressBound((uLong)b->len);
	unsigned char *z = b->failed ? NULL : malloc(packed);
	int rc = -1;
	if (z && compress2(z, &packed, b->p ? b->p : (const unsigned char *)"", (uLong)b->len,
	                   Z_BEST_SPEED) == Z_OK) {
		say("ISOTIER-CAPTURE-DEFLATE %zu %lu\n", b->len, (unsigned long)packed);
		emit_b64(NULL, z, packed);
		rc = 0;
	}
	free(z);
	return rc;
}

static int emit_capture_deflated(void)
{
	records b = {0};
	walk_capture("/.isotier/capture", "", 0, record_file, &b);
	int rc = emit_records_deflated(&b);
	free(b.p);
	return rc;
}
#endif

static void emit_capture(void)
{
#ifdef ISOTIER_GUEST_ZLIB
	if (emit_capture_deflated() == 0)
		return;
#endif
	walk_capture("/.isotier/capture", "", 0, emit_file, NULL);
}

static bool capture_sent;
#define CAPTURE_FD 3 /* the probe's capture stream, where there is one (below) */

/* The capture and its end line, once. */
static void send_capture(void)
{
	if (capture_sent)
		return;
	capture_sent = true;
	emit_capture();
	say("ISOTIER-CAPTURE-END\n");
}

#ifdef ISOTIER_GUEST_ZLIB
/*
 * The probe asked for a capture gets descriptor 3 ($ISOTIER_CAPTURE_FD) for it:
 * its inputs as records (probes/capture_stream.c) instead of a directory of
 * files, ~280 system calls fewer between the probe and this init under TCG.
 * The probe closes it once every input is read, before it waits out its
 * challenge's window, and the capture is compressed and sent then, at the
 * lowest priority so the sampler's readings (woken each millisecond) go
 * first. A stream that is empty, over the bound or cut off by the probe's end
 * leaves the capture directory to be sent after the exit, as any other
 * command's (empty when the probe streamed: the host then keeps none).
 */
static bool probe_with_capture(char *const *argv)
{
	if (!argv[0] || strcmp(argv[0], "/.isotier/isotier-probe"))
		return false; /* another command: nothing of init's is handed to it */
	for (size_t i = 1; argv[i] && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--capture"))
			return true;
	return false;
}

static records streamed;

static void capture_stream(int *fd)
{
	unsigned char buf[16384];
	ssize_t n = read(*fd, buf, sizeof buf);
	if (n < 0 && errno == EINTR)
		return;
	if (n > 0) {
		records_add(&streamed, buf, (size_t)n);
		return;
	}
	close(*fd);
	*fd = -1;
	if (n == 0 && streamed.len && !streamed.failed && !capture_sent) {
		setpriority(PRIO_PROCESS, 0, 19);
		if (emit_records_deflated(&streamed) == 0) {
			capture_sent = true;
			say("ISOTIER-CAPTURE-END\n");
		}
		setpriority(PRIO_PROCESS, 0, 0);
	}
	free(streamed.p);
	streamed = (records){0};
}
#endif

static void relay(int *fd, const char *tag)
{
	unsigned char buf[4096];
	ssize_t n = read(*fd, buf, sizeof buf);
	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	emit_b64(tag, buf, (size_t)n);
}

int main(void)
{
	/* The console: raw, so nothing is translated under our framed lines. */
	struct termios t;
	if (tcgetattr(1, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(1, TCSANOW, &t);
	}
	klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 1);
	open_debug_port();
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		fail("mount /proc");
	if (mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		fail("mount /sys");
	if (mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755") != 0)
		fail("mount /dev");
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
		fail("mount /tmp");

	char mode[16] = "";
	int mfd = open("/.isotier/mode", O_RDONLY | O_CLOEXEC);
	if (mfd >= 0) {
		ssize_t n = read(mfd, mode, sizeof mode - 1);
		mode[n > 0 ? n : 0] = '\0';
		mode[strcspn(mode, "\r\n")] = '\0';
		close(mfd);
	}
	if (!strcmp(mode, "trial")) {
		say("\nISOTIER-EXIT 0\n");
		finish();
	}
	if (!strcmp(mode, "9p")) {
		load_modules();
		mkdir("/.isotier/host", 0755);
		if (mount("isotier-root", "/.isotier/host", "9p", MS_RDONLY | MS_NOSUID | MS_NODEV,
		          "trans=virtio,version=9p2000.L,cache=loose,msize=262144") != 0)
			fail("mount 9p isotier-root");
		bind_host_view();
	}

	static char argbuf[131072];
	static char *argv[MAX_ARGS + 1];
	int afd = open("/.isotier/args", O_RDONLY | O_CLOEXEC);
	if (afd < 0)
		fail("open /.isotier/args");
	ssize_t alen = read(afd, argbuf, sizeof argbuf - 1);
	close(afd);
	if (alen <= 0)
		fail("read /.isotier/args");
	argbuf[alen] = '\0';
	int argc = 0;
	for (char *p = argbuf; p < argbuf + alen && argc < MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	int out[2], errp[2], cap[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0)
		fail("pipe");
#ifdef ISOTIER_GUEST_ZLIB
	bool stream = probe_with_capture(argv) && pipe2(cap, O_CLOEXEC) == 0;
#else
	bool stream = false; /* no compression here: the directory, file by file */
#endif
	char *envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	                "HOME=/", "TERM=dumb", stream ? "ISOTIER_CAPTURE_FD=3" : NULL, NULL};
	say("\nISOTIER-START\n");
	pid_t pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		setsid();
		int in = open("/.isotier/stdin", O_RDONLY);
		if (in < 0)
			in = open("/dev/null", O_RDONLY);
		dup2(in, 0);
		if (in > 2)
			close(in);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		/* dup2 onto itself keeps O_CLOEXEC: cleared apart. */
		if (stream && (cap[1] == CAPTURE_FD ? fcntl(CAPTURE_FD, F_SETFD, 0)
		                                    : dup2(cap[1], CAPTURE_FD)) < 0)
			_exit(126);
#ifdef GUEST_PORT_IO
		/* The port is init's to frame on: the command's output goes
		 * through the pipes, never raw onto the host's channel (ioperm
		 * survives fork and exec). */
		if (debug_port && ioperm(debug_port, 1, 0) != 0)
			_exit(126);
#endif
		if (chdir("/") != 0)
			_exit(127);
		execvpe(argv[0], argv, envp);
		dprintf(2, "isotier-guest-init: exec %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(out[1]);
	close(errp[1]);
	if (stream)
		close(cap[1]);
	int ofd = out[0], efd = errp[0], cfd = cap[0];
	while (ofd >= 0 || efd >= 0) {
		/* The report waits in its pipe while the capture streams (the probe
		 * closes the stream before it writes the report): the capture goes out
		 * whole and first, never interleaved with it. */
		struct pollfd pf[3] = {{.fd = cfd >= 0 ? -1 : ofd, .events = POLLIN},
		                       {.fd = efd, .events = POLLIN},
		                       {.fd = cfd, .events = POLLIN}};
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
#ifdef ISOTIER_GUEST_ZLIB
		if (cfd >= 0 && (pf[2].revents & (POLLIN | POLLHUP | POLLERR)))
			capture_stream(&cfd);
#endif
		if (ofd >= 0 && cfd < 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			relay(&ofd, "ISOTIER-OUT");
		if (efd >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
			relay(&efd, "ISOTIER-ERR");
	}
	if (cfd >= 0)
		close(cfd);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	send_capture();
	say("ISOTIER-EXIT %d\n", code);
	finish();
}
