/* SPDX-License-Identifier: Apache-2.0 */
/*
 * live_identity.c - the producer of .probe/identity: checks, made with system
 * calls on the live system, that the files the probe reads its kernel
 * identity and namespaces from are the kernel's own.
 *
 * A provider controls every file in its sandbox: it can bind a file of its
 * choosing over /proc/sys/kernel/random/boot_id or /proc/stat, or replace
 * /proc with a directory of static files. What a file cannot change is what
 * the kernel answers about the file itself: its filesystem's magic
 * (fstatfs), its device (fstat), the mount serving it (statx STATX_MNT_ID),
 * and procfs's own behaviour (random/uuid differs on every read). Each
 * check is one line, "<check> ok|fail|skip <detail>", parsed by
 * sig_identity.c exactly as a replayed capture would be.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROBE_PROC_SUPER_MAGIC 0x9fa0u
#define PROBE_NSFS_MAGIC       0x6e736673u
#define PROBE_STATX_MNT_ID     0x1000u
#define PROBE_AT_EMPTY_PATH    0x1000
#define PROBE_MOUNTINFO_MAX    (256 * 1024)

/* The statx ABI (include/uapi/linux/stat.h): musl's headers may lack it. */
struct probe_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	uint64_t times[8]; /* atime, btime, ctime, mtime: 16 bytes each */
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint64_t spare[14];
};

struct probe_out {
	char *s;
	size_t len;
};

static void probe_line(struct probe_out *o, const char *check, const char *res, const char *detail)
{
	char line[400];
	int n = snprintf(line, sizeof(line), "%s %s %s\n", check, res, detail);
	if (n <= 0)
		return;
	size_t add = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	char *s = realloc(o->s, o->len + add + 1);
	if (!s)
		return;
	memcpy(s + o->len, line, add);
	o->len += add;
	s[o->len] = '\0';
	o->s = s;
}

/* The mount id serving fd: statx (Linux 5.8), else the fdinfo line read
 * through /proc (procfd). 0 when neither tells. */
static uint64_t probe_mnt_id(int procfd, int fd)
{
#ifdef SYS_statx
	struct probe_statx sx;
	memset(&sx, 0, sizeof(sx));
	if (syscall(SYS_statx, fd, "", PROBE_AT_EMPTY_PATH, PROBE_STATX_MNT_ID, &sx) == 0 &&
	    (sx.mask & PROBE_STATX_MNT_ID) && sx.mnt_id)
		return sx.mnt_id;
#endif
	char path[64], v[32];
	snprintf(path, sizeof(path), "self/fdinfo/%d", fd);
	size_t n;
	char *text = probe_slurp_fd(openat(procfd, path, O_RDONLY | O_CLOEXEC), 4096, &n);
	uint64_t id = 0;
	if (text && probe_field(v, sizeof(v), text, "mnt_id") && !probe_parse_u64(v, &id))
		id = 0;
	free(text);
	return id;
}

/* One mountinfo entry (proc(5)): the fields the checks need, unescaped not. */
struct probe_mnt {
	uint64_t id;
	char dev[32], root[1024], point[1024], fstype[32];
};

/* Copies the next space-separated field of [*p, end) into out (at most
 * size - 1 bytes); false when it is missing or longer. */
static bool probe_mnt_field(const char **p, const char *end, char *out, size_t size)
{
	const char *f = *p;
	while (f < end && *f == ' ')
		f++;
	const char *e = f;
	while (e < end && *e != ' ')
		e++;
	if (e == f || (size_t)(e - f) >= size)
		return false;
	memcpy(out, f, (size_t)(e - f));
	out[e - f] = '\0';
	*p = e;
	return true;
}

/* A mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - FSTYPE ...".
 * False for a line the probe cannot read whole: the caller fails closed. */
static bool probe_mnt_parse(const char *line, size_t len, struct probe_mnt *m)
{
	const char *p = line, *end = line + len;
	char id[24], parent[24], tag[sizeof(m->point)];
	if (!probe_mnt_field(&p, end, id, sizeof(id)) ||
	    !probe_mnt_field(&p, end, parent, sizeof(parent)) ||
	    !probe_mnt_field(&p, end, m->dev, sizeof(m->dev)) ||
	    !probe_mnt_field(&p, end, m->root, sizeof(m->root)) ||
	    !probe_mnt_field(&p, end, m->point, sizeof(m->point)) || !probe_parse_u64(id, &m->id))
		return false;
	/* Options and optional tags up to the lone "-", then the type. */
	for (int i = 0; i < 64; i++) {
		if (!probe_mnt_field(&p, end, tag, sizeof(tag)))
			return false;
		if (strcmp(tag, "-") == 0)
			return probe_mnt_field(&p, end, m->fstype, sizeof(m->fstype));
	}
	return false;
}

/* Does mount point `mp` cover `path` (equal, or an ancestor of it)? */
static bool probe_covers(const char *mp, const char *path)
{
	size_t l = strlen(mp);
	return strncmp(mp, path, l) == 0 && (path[l] == '\0' || path[l] == '/');
}

/* A mount that shows procfs's own tree at its own place (runc's read-only
 * /proc/sys, /proc/bus): same superblock, root = mount point minus /proc. */
static bool probe_self_rebind(const struct probe_mnt *m, const struct probe_mnt *proc)
{
	return strcmp(m->fstype, "proc") == 0 && strcmp(m->dev, proc->dev) == 0 &&
	       probe_starts_with(m->point, "/proc/") && strcmp(m->root, m->point + 5) == 0;
}

struct probe_mountinfo {
	struct probe_mnt proc; /* the last (topmost) mount at /proc */
	bool have_proc;
	uint64_t file_mnt[2]; /* the mounts serving boot_id and stat */
	bool file_ok[2];      /* ... are /proc's or a self-rebind of it */
	char ident[300];      /* first mount over an identity file, "" when none */
	char pid[300];        /* first mount over a per-process directory */
	bool unreadable;      /* a line could not be read: what it hides is unknown */
};

struct probe_mi_arg {
	struct probe_mountinfo *mi;
	bool pass2;
};

static bool probe_mi_line(const char *line, size_t len, void *arg)
{
	struct probe_mi_arg *a = arg;
	struct probe_mountinfo *mi = a->mi;
	static struct probe_mnt m; /* 2 KiB: not on the stack of every line */
	if (!probe_mnt_parse(line, len, &m)) {
		mi->unreadable = true;
		return true;
	}
	if (!a->pass2) {
		if (strcmp(m.point, "/proc") == 0) {
			mi->proc = m;
			mi->have_proc = true;
		}
		return true;
	}
	for (int i = 0; i < 2; i++)
		if (m.id == mi->file_mnt[i] && mi->have_proc &&
		    (m.id == mi->proc.id || probe_self_rebind(&m, &mi->proc)))
			mi->file_ok[i] = true;
	if (!probe_starts_with(m.point, "/proc/") ||
	    (mi->have_proc && probe_self_rebind(&m, &mi->proc)))
		return true;
	static const char *const ident[] = {"/proc/stat", "/proc/sys/kernel/random/boot_id",
	                                    "/proc/sys/kernel/random/uuid", "/proc/version"};
	for (size_t i = 0; i < sizeof(ident) / sizeof(ident[0]) && !mi->ident[0]; i++)
		if (probe_covers(m.point, ident[i]))
			probe_strlcpy(mi->ident, sizeof(mi->ident), m.point);
	/* /proc/<pid>/..., self, thread-self: where ns/, status and mountinfo live. */
	const char *rest = m.point + 6;
	if (!mi->pid[0] && ((*rest >= '0' && *rest <= '9') || probe_starts_with(rest, "self") ||
	                    probe_starts_with(rest, "thread-self")))
		probe_strlcpy(mi->pid, sizeof(mi->pid), m.point);
	return true;
}

/* Reads a procfs file twice through fresh opens; false when unreadable. */
static bool probe_read_twice(int procfd, const char *rel, char a[64], char b[64])
{
	for (int i = 0; i < 2; i++) {
		size_t n;
		char *t = probe_slurp_fd(openat(procfd, rel, O_RDONLY | O_CLOEXEC), 128, &n);
		if (!t)
			return false;
		probe_first_line(i ? b : a, 64, t);
		free(t);
	}
	return true;
}

static void probe_check_ns(struct probe_out *o, int procfd)
{
	static const char *const names[] = {"pid",    "user", "uts", "ipc",
	                                    "cgroup", "mnt",  "net", "time"};
	char bad[200] = "";
	unsigned seen = 0, on_proc = 0;
	uint64_t time_ino = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !bad[0]; i++) {
		char rel[32], target[128];
		snprintf(rel, sizeof(rel), "self/ns/%s", names[i]);
		ssize_t n = readlinkat(procfd, rel, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		const char *br = strchr(target, '[');
		uint64_t shown = 0;
		char num[32];
		snprintf(num, sizeof(num), "%s", br ? br + 1 : "");
		num[strcspn(num, "]")] = '\0';
		int fd = openat(procfd, rel, O_RDONLY | O_CLOEXEC);
		struct stat st;
		struct statfs sf;
		bool stat_ok = fd >= 0 && fstat(fd, &st) == 0 && fstatfs(fd, &sf) == 0;
		if (fd >= 0)
			close(fd);
		if (!br || !probe_parse_u64(num, &shown))
			snprintf(bad, sizeof(bad), "%s: readlink shows %.60s, not type:[inode]",
			         names[i], target);
		else if (!stat_ok)
			snprintf(bad, sizeof(bad),
			         "%s: readlink works but the file cannot be opened", names[i]);
		/*
		 * gVisor's Sentry serves its namespace files from its own procfs.
		 * (its inode is not the number shown). Linux never does: its procfs
		 * symlinks name paths, not "pid:[N]", so a procfs file reached
		 * through "type:[N]" is a user-space kernel's; anything else is not
		 * a namespace.
		 */
		else if ((uint32_t)sf.f_type != PROBE_NSFS_MAGIC &&
		         (uint32_t)sf.f_type != PROBE_PROC_SUPER_MAGIC)
			snprintf(bad, sizeof(bad), "%s: not on nsfs (magic 0x%lx)", names[i],
			         (unsigned long)sf.f_type);
		else if ((uint32_t)sf.f_type == PROBE_NSFS_MAGIC && (uint64_t)st.st_ino != shown)
			snprintf(bad, sizeof(bad), "%s: readlink shows %llu, stat %llu", names[i],
			         (unsigned long long)shown, (unsigned long long)st.st_ino);
		else if (strcmp(names[i], "time") == 0)
			time_ino = shown;
		if ((uint32_t)sf.f_type == PROBE_PROC_SUPER_MAGIC)
			on_proc++;
		seen++;
	}
	if (bad[0])
		probe_line(o, "ns_stat", "fail", bad);
	else if (!seen)
		probe_line(o, "ns_stat", "skip", "no /proc/self/ns");
	else if (on_proc)
		probe_line(o, "ns_stat", "ok",
		           "namespace files on a user-space kernel's procfs (gVisor's)");
	else
		probe_line(o, "ns_stat", "ok", "readlink and stat agree, on nsfs");
	/* A private time namespace shifts /proc/stat's btime (fs/proc/stat.c). */
	if (bad[0] || !time_ino)
		probe_line(o, "time_ns", "skip",
		           bad[0] ? "namespaces not verified" : "no time namespace");
	else if (time_ino == 0xEFFFFFFAull)
		probe_line(o, "time_ns", "ok", "the initial time namespace");
	else
		probe_line(o, "time_ns", "fail", "a private time namespace shifts btime");
}

static void probe_check_files(struct probe_out *o, int procfd, const struct stat *pst,
                              uint64_t proc_mnt)
{
	static const char *const files[2] = {"sys/kernel/random/boot_id", "stat"};
	struct probe_mountinfo mi;
	memset(&mi, 0, sizeof(mi));
	char bad[300] = "";
	for (int i = 0; i < 2; i++) {
		int fd = openat(procfd, files[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		struct statfs sf;
		if (fd < 0 || fstat(fd, &st) < 0 || fstatfs(fd, &sf) < 0) {
			if (!bad[0])
				snprintf(bad, sizeof(bad), "skip /proc/%s cannot be opened",
				         files[i]);
		} else if ((uint32_t)sf.f_type != PROBE_PROC_SUPER_MAGIC) {
			if (!bad[0])
				snprintf(bad, sizeof(bad),
				         "fail /proc/%s is not on procfs (magic 0x%lx)", files[i],
				         (unsigned long)sf.f_type);
		} else if (st.st_dev != pst->st_dev) {
			if (!bad[0])
				snprintf(bad, sizeof(bad),
				         "fail /proc/%s is on another device than /proc", files[i]);
		}
		mi.file_mnt[i] = fd >= 0 ? probe_mnt_id(procfd, fd) : 0;
		if (fd >= 0)
			close(fd);
	}
	size_t n = 0;
	int mfd = openat(procfd, "self/mountinfo", O_RDONLY | O_CLOEXEC);
	uint64_t mi_mnt = mfd >= 0 ? probe_mnt_id(procfd, mfd) : 0;
	char *text = probe_slurp_fd(mfd, PROBE_MOUNTINFO_MAX, &n);
	bool have_text = text != NULL;
	/* A mountinfo cut at the bound could hide the last mounts (a bind made
	 * after many others): as unreadable as a line too long to read. */
	mi.unreadable = have_text && n >= PROBE_MOUNTINFO_MAX;
	if (text) {
		struct probe_mi_arg a = {&mi, false};
		probe_each_line(text, probe_mi_line, &a);
		a.pass2 = true;
		probe_each_line(text, probe_mi_line, &a);
	}
	free(text);
	bool mounts_known = have_text && mi.have_proc && proc_mnt && mi.proc.id == proc_mnt &&
	                    mi_mnt == proc_mnt && strcmp(mi.proc.fstype, "proc") == 0;
	if (!bad[0] && !mounts_known)
		snprintf(bad, sizeof(bad), "skip the mounts serving /proc cannot be told");
	for (int i = 0; i < 2 && !bad[0]; i++)
		if (!mi.file_ok[i])
			snprintf(bad, sizeof(bad),
			         "fail /proc/%s is served by another mount than /proc", files[i]);
	if (bad[0]) {
		char res[8];
		snprintf(res, sizeof(res), "%.4s", bad);
		probe_line(o, "files_mount", res, bad + 5);
	} else {
		probe_line(o, "files_mount", "ok", "boot_id and stat are /proc's own procfs");
	}
	char detail[340];
	if (!mounts_known) {
		probe_line(o, "proc_mounts", "skip", "mountinfo is not /proc's own");
	} else if (mi.pid[0]) {
		snprintf(detail, sizeof(detail), "pid a mount at %s", mi.pid);
		probe_line(o, "proc_mounts", "fail", detail);
	} else if (mi.unreadable) {
		/* What an unread line hides may be a mount over /proc/<pid>/ns. */
		probe_line(o, "proc_mounts", "fail", "pid mountinfo has a line too long to read");
	} else if (mi.ident[0]) {
		snprintf(detail, sizeof(detail), "identity a mount at %s", mi.ident);
		probe_line(o, "proc_mounts", "fail", detail);
	} else {
		probe_line(o, "proc_mounts", "ok",
		           "nothing mounted over identity or process files");
	}
}

char *probe_live_identity(void)
{
	struct probe_out o = {0};
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat pst;
	struct statfs psf;
	if (procfd < 0 || fstat(procfd, &pst) < 0 || fstatfs(procfd, &psf) < 0) {
		probe_line(&o, "proc_fs", "skip", "no /proc");
		if (procfd >= 0)
			close(procfd);
		return o.s ? o.s : strdup("");
	}
	char detail[64];
	if ((uint32_t)psf.f_type == PROBE_PROC_SUPER_MAGIC) {
		probe_line(&o, "proc_fs", "ok", "procfs");
	} else {
		snprintf(detail, sizeof(detail), "not procfs (magic 0x%lx)",
		         (unsigned long)psf.f_type);
		probe_line(&o, "proc_fs", "fail", detail);
	}
	probe_check_files(&o, procfd, &pst, probe_mnt_id(procfd, procfd));
	char a[64], b[64];
	if (!probe_read_twice(procfd, "sys/kernel/random/boot_id", a, b))
		probe_line(&o, "boot_id_reads", "skip", "boot_id unreadable");
	else if (strcmp(a, b) != 0)
		probe_line(&o, "boot_id_reads", "fail", "boot_id changed between two reads");
	else if (!probe_read_twice(procfd, "sys/kernel/random/uuid", a, b))
		probe_line(&o, "boot_id_reads", "skip", "random/uuid unreadable");
	else if (strcmp(a, b) == 0)
		probe_line(&o, "boot_id_reads", "fail", "random/uuid did not change between reads");
	else
		probe_line(&o, "boot_id_reads", "ok", "boot_id stable, random/uuid fresh");
	probe_check_ns(&o, procfd);
	close(procfd);
	return o.s ? o.s : strdup("");
}
