/* SPDX-License-Identifier: Apache-2.0 */
/*
 * live.c - producers of the non-file inputs, written as the text that
 * /.probe/<name> holds in a capture (CAPTURE.md). Nothing here classifies:
 * the sig_*.c parsers read this text exactly as they read a replay, so the
 * live verdict and the replay verdict come from the same bytes.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* A growable text buffer, bounded by PROBE_MAX_FILE. */
struct probe_buf {
	char *s;
	size_t len, cap;
};

static void probe_buf_printf(struct probe_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void probe_buf_printf(struct probe_buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t add = (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1;
	if (b->len + add > PROBE_MAX_FILE)
		return;
	if (b->len + add + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		while (cap < b->len + add + 1)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (!s)
			return;
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, tmp, add);
	b->len += add;
	b->s[b->len] = '\0';
}

/* An empty but existing input is "" rather than NULL. */
static char *probe_buf_take(struct probe_buf *b)
{
	return b->s ? b->s : strdup("");
}

static char *probe_live_uname(void)
{
	struct utsname u;
	struct probe_buf b = {0};
	if (uname(&u) < 0)
		return NULL;
	probe_buf_printf(&b, "%s\n%s\n%s\n%s\n%s\n", u.sysname, u.nodename, u.release, u.version,
	                 u.machine);
	return probe_buf_take(&b);
}

/*
 * CPUID read with the instruction itself: a container image cannot change
 * it. The leaves: 0 (max leaf), 1 (ECX bit 31 = hypervisor present),
 * 0x40000000 (hypervisor vendor) and 0x40000100 (where KVM sits when it
 * shows Hyper-V enlightenments at 0x40000000).
 */
static char *probe_live_cpuid(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static const unsigned leaves[] = {
	    0x0, 0x1, 0x21, 0x40000000, 0x40000003, 0x4000000c, 0x40000100, 0x80000000, 0x8000001f};
	struct probe_buf b = {0};
	unsigned max = 0, maxext = 0, maxhv = 0;
	for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]); i++) {
		unsigned a = 0, bx = 0, c = 0, d = 0;
		unsigned l = leaves[i];
		/* Leaves past a range's maximum return unrelated data: skip. */
		if ((l > 1 && l < 0x40000000 && l > max) ||
		    (l > 0x40000000 && l < 0x40000100 && l > maxhv) ||
		    (l > 0x80000000 && l > maxext))
			continue;
		__cpuid_count(l, 0, a, bx, c, d);
		if (l == 0)
			max = a;
		else if (l == 0x40000000)
			maxhv = a;
		else if (l == 0x80000000)
			maxext = a;
		probe_buf_printf(&b, "0x%x 0x0 0x%x 0x%x 0x%x 0x%x\n", l, a, bx, c, d);
	}
	return probe_buf_take(&b);
#else
	return NULL;
#endif
}

/*
 * The kernel log as dmesg prints it. klogctl first: one system call; then
 * /dev/kmsg (record by record). Containers usually get EPERM for both.
 * The oldest lines matter most (ACPI table lines are printed at boot), so
 * the text is cut at PROBE_MAX_FILE from the start.
 */
static char *probe_live_kmsg(void)
{
	struct probe_buf b = {0};
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size > 0) {
		if (size > 4 * 1024 * 1024)
			size = 4 * 1024 * 1024;
		char *raw = malloc((size_t)size + 1);
		int n = raw ? klogctl(3 /* SYSLOG_ACTION_READ_ALL */, raw, size) : -1;
		if (n > 0) {
			raw[n] = '\0';
			/* Stop once the kept text is full: the log may be megabytes. */
			for (char *line = raw; line && *line && b.len < PROBE_MAX_FILE - 1024;) {
				char *nl = strchr(line, '\n');
				if (nl)
					*nl = '\0';
				/* Strip the "<6>" priority prefix that dmesg hides. */
				char *t = line;
				if (*t == '<') {
					char *e = strchr(t, '>');
					if (e && e - t <= 5)
						t = e + 1;
				}
				probe_buf_printf(&b, "%s\n", t);
				line = nl ? nl + 1 : NULL;
			}
		}
		free(raw);
		if (n > 0)
			return probe_buf_take(&b);
	}
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char rec[2048];
	while (b.len < PROBE_MAX_FILE) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue; /* overwritten records: keep reading */
		if (n <= 0)
			break;
		rec[n] = '\0';
		/* "prio,seq,usec,flags;message\n" followed by " KEY=value" lines. */
		unsigned long long usec = 0;
		char *semi = strchr(rec, ';');
		if (!semi)
			continue;
		char *comma = strchr(rec, ',');
		if (comma && comma < semi) {
			comma = strchr(comma + 1, ',');
			if (comma && comma < semi)
				usec = strtoull(comma + 1, NULL, 10);
		}
		char *msg = semi + 1;
		char *nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		probe_buf_printf(&b, "[%5llu.%06llu] %s\n", usec / 1000000, usec % 1000000, msg);
	}
	close(fd);
	if (!b.s && errno != EAGAIN)
		return NULL;
	return probe_buf_take(&b);
}

static char *probe_live_ns(void)
{
	static const char *const names[] = {"pid",    "user", "uts", "ipc",
	                                    "cgroup", "mnt",  "net", "time"};
	struct probe_buf b = {0};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[64], target[128];
		snprintf(path, sizeof(path), "/proc/self/ns/%s", names[i]);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strchr(target, '\n'))
			continue;
		probe_buf_printf(&b, "%s\n", target);
	}
	return probe_buf_take(&b);
}

static const char *probe_errno_name(int e)
{
	static const struct {
		int e;
		const char *name;
	} table[] = {
	    {EPERM, "EPERM"},   {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"},           {EINTR, "EINTR"},
	    {EIO, "EIO"},       {EBADF, "EBADF"},   {EAGAIN, "EAGAIN"},         {ENOMEM, "ENOMEM"},
	    {EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"},           {ENODEV, "ENODEV"},
	    {EINVAL, "EINVAL"}, {ENOSYS, "ENOSYS"}, {EOPNOTSUPP, "EOPNOTSUPP"},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].e == e)
			return table[i].name;
	return NULL;
}

/* A call this architecture does not have (sysfs, ustat, modify_ldt on arm64):
 * not made and not reported, so its ENOSYS cannot pass for gVisor's. */
#define PROBE_CALL_NONE (-(1L << 30))

/*
 * The calls gVisor does not implement the Linux way (measured against runsc
 * here: see the notes). Each returns 0 on success or -errno.
 */
static long probe_call(size_t i)
{
	long r = -ENOSYS;
	char buf[64];
	struct timespec ts;
	errno = 0;
	switch (i) {
	case 0: r = syscall(SYS_setfsuid, -1); break;
	case 1: r = syscall(SYS_setfsgid, -1); break;
#ifdef SYS_sysfs
	case 2: r = syscall(SYS_sysfs, 3); break;
#else
	case 2: return PROBE_CALL_NONE;
#endif
#ifdef SYS_ustat
	case 3: r = syscall(SYS_ustat, 0, buf); break;
#else
	case 3: return PROBE_CALL_NONE;
#endif
	case 4: r = syscall(SYS_sched_rr_get_interval, 0, &ts); break;
#ifdef SYS_modify_ldt
	case 5: r = syscall(SYS_modify_ldt, 0, buf, 0); break;
#else
	case 5: return PROBE_CALL_NONE;
#endif
	/* Strict mode (1) would kill us here: the child takes that risk. */
	case 6: r = prctl(PR_GET_SECCOMP, 0, 0, 0, 0); break;
	default: return -ENOSYS;
	}
	(void)buf;
	return r < 0 ? -errno : r;
}

static const char *const probe_call_names[] = {
    "setfsuid",   "setfsgid",      "sysfs", "ustat", "sched_rr_get_interval",
    "modify_ldt", "prctl_seccomp",
};
#define PROBE_NCALLS (sizeof(probe_call_names) / sizeof(probe_call_names[0]))

/* What the child shares with the parent (CLONE_VM): one result per call. */
struct probe_calls_shared {
	volatile long result[PROBE_NCALLS];
	volatile size_t done; /* calls completed, in order */
	size_t start;
};

static int probe_calls_child(void *arg)
{
	struct probe_calls_shared *sh = arg;
	alarm(5);
	for (size_t i = sh->start; i < PROBE_NCALLS; i++) {
		sh->result[i] = probe_call(i);
		sh->done = i + 1;
	}
	return 0;
}

/*
 * Runs the calls in a child process that shares our memory (CLONE_VM |
 * CLONE_VFORK: no address-space copy, which under gVisor's ptrace platform is
 * the difference between ~1 ms and ~20 ms). A seccomp filter may kill on any
 * call: then the call in flight is recorded with the signal's name and a new
 * child carries on from the next, so one fatal filter costs one signal, not
 * the probe.
 */
static char *probe_live_syscalls(void)
{
	static struct probe_calls_shared sh;
	static char stack[16384] __attribute__((aligned(16)));
	struct probe_buf b = {0};
	size_t next = 0;
	while (next < PROBE_NCALLS) {
		sh.start = next;
		sh.done = next;
		pid_t pid = clone(probe_calls_child, stack + sizeof(stack),
		                  CLONE_VM | CLONE_VFORK | SIGCHLD, &sh);
		if (pid < 0)
			break;
		int status = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		for (size_t i = next; i < sh.done && i < PROBE_NCALLS; i++) {
			long r = sh.result[i];
			const char *en = probe_errno_name((int)-r);
			if (r == PROBE_CALL_NONE)
				continue;
			if (r >= 0 && i == 6) /* the seccomp mode itself */
				probe_buf_printf(&b, "%s %ld\n", probe_call_names[i], r);
			else if (r >= 0) /* setfsuid returns the old id: success */
				probe_buf_printf(&b, "%s 0\n", probe_call_names[i]);
			else if (en)
				probe_buf_printf(&b, "%s %s\n", probe_call_names[i], en);
			else
				probe_buf_printf(&b, "%s E%ld\n", probe_call_names[i], -r);
		}
		next = sh.done;
		if (next >= PROBE_NCALLS)
			break;
		/* The call in flight died with the child. */
		if (WIFSIGNALED(status)) {
			const char *sn = WTERMSIG(status) == SIGSYS    ? "SIGSYS"
			                 : WTERMSIG(status) == SIGKILL ? "SIGKILL"
			                 : WTERMSIG(status) == SIGALRM ? "SIGALRM"
			                                               : "SIGNAL";
			probe_buf_printf(&b, "%s %s\n", probe_call_names[next], sn);
			next++;
		} else {
			break;
		}
	}
	return b.s;
}

static uint64_t probe_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int probe_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Median round trip of getppid: ~75 ns natively, ~67 us under gVisor's ptrace
 * platform. Short on purpose (15 samples of 4 calls): under ptrace every call
 * costs tens of microseconds and the whole probe must stay fast.
 */
static char *probe_live_timing(void)
{
	enum { SAMPLES = 15, CALLS = 4 };
	uint64_t s[SAMPLES];
	struct probe_buf b = {0};
	for (int i = 0; i < SAMPLES; i++) {
		uint64_t t0 = probe_now_ns();
		for (int j = 0; j < CALLS; j++)
			syscall(SYS_getppid);
		s[i] = (probe_now_ns() - t0) / CALLS;
	}
	qsort(s, SAMPLES, sizeof(s[0]), probe_cmp_u64);
	probe_buf_printf(&b, "syscall_ns %llu\n", (unsigned long long)s[SAMPLES / 2]);
	return probe_buf_take(&b);
}

/* Where each virtio device hangs: under a PCI function or a virtio-mmio
 * platform device. A symlink target is not a file, hence this input. */
static char *probe_live_virtio(void)
{
	char *names[64];
	struct probe_buf b = {0};
	size_t n = probe_list_live("/sys/bus/virtio/devices", names, 64);
	for (size_t i = 0; i < n; i++) {
		char path[512], target[512];
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s", names[i]);
		ssize_t l = readlink(path, target, sizeof(target) - 1);
		if (l > 0 && !strpbrk(names[i], " \n")) {
			target[l] = '\0';
			if (!strchr(target, '\n'))
				probe_buf_printf(&b, "%s %s\n", names[i], target);
		}
		free(names[i]);
	}
	return b.s;
}

/* Marker paths whose existence is the fact (directories, device nodes). */
static char *probe_live_paths(void)
{
	static const char *const paths[] = {
	    "/proc/xen",
	    "/proc/vz",
	    "/proc/bc",
	    "/dev/sev-guest",
	    "/dev/tdx_guest",
	    "/dev/tdx-guest",
	    "/sys/kernel/config/tsm/report",
	    "/proc/device-tree/ibm,partition-name",
	    "/proc/device-tree/hmc-managed?",
	    "/proc/device-tree/chosen/qemu,graphic-width",
	};
	struct probe_buf b = {0};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], F_OK) == 0)
			probe_buf_printf(&b, "%s\n", paths[i]);
	return probe_buf_take(&b);
}

/* The SEV status MSR, when the msr driver lets us (root, AMD guests). */
static char *probe_live_msr(void)
{
	int fd = open("/dev/cpu/0/msr", O_RDONLY | O_CLOEXEC);
	uint64_t v = 0;
	if (fd < 0)
		return NULL;
	ssize_t n = pread(fd, &v, sizeof(v), 0xc0010131);
	close(fd);
	if (n != (ssize_t)sizeof(v))
		return NULL;
	struct probe_buf b = {0};
	probe_buf_printf(&b, "0xc0010131 0x%llx\n", (unsigned long long)v);
	return b.s;
}

char *probe_live_generate(const char *name)
{
	if (strcmp(name, "paths") == 0)
		return probe_live_paths();
	if (strcmp(name, "msr") == 0)
		return probe_live_msr();
	if (strcmp(name, "uname") == 0)
		return probe_live_uname();
	if (strcmp(name, "cpuid") == 0)
		return probe_live_cpuid();
	if (strcmp(name, "kmsg") == 0)
		return probe_live_kmsg();
	if (strcmp(name, "ns") == 0)
		return probe_live_ns();
	if (strcmp(name, "identity") == 0)
		return probe_live_identity();
	if (strcmp(name, "syscalls") == 0)
		return probe_live_syscalls();
	if (strcmp(name, "timing") == 0)
		return probe_live_timing();
	if (strcmp(name, "virtio") == 0)
		return probe_live_virtio();
	if (strcmp(name, "midr") == 0)
		return probe_live_midr();
	if (strcmp(name, "devicetree") == 0)
		return probe_live_devicetree();
	if (strcmp(name, "pid") == 0) {
		char *s = malloc(32);
		if (s)
			snprintf(s, 32, "%d\n", (int)getpid());
		return s;
	}
	return NULL;
}
