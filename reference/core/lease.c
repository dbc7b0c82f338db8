/* SPDX-License-Identifier: Apache-2.0 */
/* lease.c - the lease registry in the host's state directory (see lease.h). */
#include "lease.h"
#include "../../base/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool isotier__lease_text_ok(const char *s)
{
	return s && strlen(s) < 256 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:=+-") ==
	           strlen(s);
}

bool isotier__lease_dir(char *buf, size_t len)
{
	const char *v = getenv("ISOTIER_STATE_DIR");
	int n;
	if (v && *v == '/')
		n = snprintf(buf, len, "%s/leases", v);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/var/lib/isotier/leases");
	else if ((v = getenv("XDG_RUNTIME_DIR")) && *v == '/')
		n = snprintf(buf, len, "%s/isotier/leases", v);
	else if ((v = getenv("HOME")) && *v == '/')
		n = snprintf(buf, len, "%s/.local/state/isotier/leases", v);
	else
		return false;
	return n > 0 && (size_t)n < len;
}

/* mkdir -p for the lease directory, its last component 0700. */
static bool make_dir(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof p, "%s", dir);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	if (mkdir(p, 0700) != 0 && errno != EEXIST)
		return false;
	struct stat st;
	return lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

/* Field 22 of /proc/PID/stat, and its state (field 3) into *state. */
static unsigned long long pid_stat(int pid, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The command name may hold spaces and ')': fields count from the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* p+2 is field 3 (state); field 22 is 19 fields further. */
	p += 2;
	*state = *p;
	for (int f = 3; f < 22 && p; f++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p ? strtoull(p, NULL, 10) : 0;
}

unsigned long long isotier__pid_start(int pid)
{
	char state;
	return pid_stat(pid, &state);
}

bool isotier__pid_alive(int pid, unsigned long long start)
{
	if (pid <= 0)
		return false;
	char state = '?';
	unsigned long long now = pid_stat(pid, &state);
	/* No /proc entry: gone, unless it is only hidden from us (no /proc, or
	 * hidepid= and another user's): kill(0) still sees it, and a process we
	 * cannot tell apart counts as alive (nothing of it is swept). */
	if (!now)
		return kill(pid, 0) == 0 || errno == EPERM;
	/* A zombie (or one being torn down) runs nothing and releases nothing. */
	return now == start && state != 'Z' && state != 'X';
}

unsigned long long isotier__pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	const char *open = strchr(link, '[');
	return open ? strtoull(open + 1, NULL, 10) : 0;
}

/* "<pid>-<start>-<kind>-<key>": the lease file of process pid (started at
 * start) for kind and key. */
static bool owner_file(char *buf, size_t len, int pid, unsigned long long start, const char *kind,
                       const char *key)
{
	char dir[4096];
	if (!isotier__lease_dir(dir, sizeof dir) || !isotier__lease_text_ok(kind) ||
	    !isotier__lease_text_ok(key) || strchr(key, '/') || !*key)
		return false;
	int n = snprintf(buf, len, "%s/%d-%llu-%s-%s", dir, pid, start, kind, key);
	return n > 0 && (size_t)n < len;
}

/* This process's lease file for kind and key. */
static bool lease_file(char *buf, size_t len, const char *kind, const char *key)
{
	return owner_file(buf, len, (int)getpid(), isotier__pid_start(getpid()), kind, key);
}

unsigned long long isotier__lease_owner_pidns(int pid, unsigned long long start)
{
	char dir[4096], prefix[64];
	if (pid <= 0 || !isotier__lease_dir(dir, sizeof dir))
		return 0;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	int plen = snprintf(prefix, sizeof prefix, "%d-%llu-", pid, start);
	unsigned long long ns = 0;
	struct dirent *e;
	/* Any lease the owner took names its namespace (the owner line). */
	while (!ns && (e = readdir(d))) {
		size_t nl = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, (size_t)plen) ||
		    (nl > 4 && !strcmp(e->d_name + nl - 4, ".tmp")))
			continue;
		char buf[128];
		int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		ssize_t n = -1;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
			n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "owner=PID:START:PIDNS\n": the same owner as the file's name. */
		char *end;
		if (strncmp(buf, "owner=", 6) || strtol(buf + 6, &end, 10) != pid || *end != ':' ||
		    strtoull(end + 1, &end, 10) != start || *end != ':')
			continue;
		unsigned long long v = strtoull(end + 1, &end, 10);
		if (*end == '\n')
			ns = v;
	}
	closedir(d);
	return ns;
}

void isotier__lease_owner_take(void)
{
	(void)isotier__lease_take(&(isotier_lease){.kind = "owner"}, "pidns"); /* best effort */
}

void isotier__lease_owner_drop(void)
{
	isotier__lease_drop("owner", "pidns");
}

/* The initial pid namespace's inode (PROC_PID_INIT_INO): a process in it sees
 * every process on this kernel, those of nested namespaces too. */
#define PIDNS_INIT 0xEFFFFFFCULL

/* True when /proc shows this process every other one: root, or /proc
 * mounted without hidepid= (which hides other users' processes). */
static bool proc_shows_all(void)
{
	if (geteuid() == 0)
		return true;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	char line[1024];
	bool all = false;
	while (fgets(line, sizeof line, f)) {
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - proc SOURCE SUPEROPTS" */
		char mp[256];
		const char *sep = strstr(line, " - proc ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %255s", mp) != 1 || strcmp(mp, "/proc"))
			continue;
		const char *h = strstr(sep, "hidepid=");
		all = !h || !strncmp(h + 8, "0", 1) || !strncmp(h + 8, "off", 3);
	}
	fclose(f);
	return all;
}

/* True when some process in a namespace nested in ours has pid as its own
 * pid (the last field of its NSpid line: its pid where it runs). */
static bool nested_pid_seen(int pid)
{
	DIR *d = opendir("/proc");
	if (!d)
		return true; /* cannot look: as if seen */
	bool seen = false;
	struct dirent *e;
	char path[64], line[256];
	while (!seen && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/status", e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof line, f)) {
			if (strncmp(line, "NSpid:", 6))
				continue;
			char *last = strrchr(line, '\t');
			/* one field: the process runs in our namespace (pid_alive's case) */
			seen = last && last != strchr(line, '\t') && atoi(last + 1) == pid;
			break;
		}
		fclose(f);
	}
	closedir(d);
	return seen;
}

int isotier__owner_gone(int pid, unsigned long long start, unsigned long long owner_pidns)
{
	unsigned long long ours = isotier__pidns();
	if (pid <= 0 || !ours)
		return -1;
	/* A process here with that pid and start time: taken as the owner
	 * (keeping a dead run 'running' a while is the safe mistake). */
	if (isotier__pid_alive(pid, start))
		return 0;
	if (owner_pidns == ours)
		return 1;
	/* The owner ran in another pid namespace, or no lease says where: its
	 * pid means nothing here. Only the initial namespace sees them all; a
	 * process of a nested one with that pid may be the owner (its start
	 * time may be counted from another boot time: not compared). */
	if (ours != PIDNS_INIT || !proc_shows_all())
		return -1;
	return nested_pid_seen(pid) ? -1 : 1;
}

/* A field as the lease file carries it: bytes outside the plain set (a space
 * in $TMPDIR, a newline, UTF-8) and '%' as %XX, so every path can be leased
 * and one line holds one field (isotier__lease_decode reverses it). */
static bool encode(char *out, size_t len, const char *s)
{
	static const char plain[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:=+-";
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (o + 4 > len)
			return false;
		if (strchr(plain, *p))
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, len - o, "%%%02X", *p);
	}
	out[o] = '\0';
	return true;
}

bool isotier__lease_decode(char *s)
{
	char *o = s;
	for (const char *p = s; *p; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		unsigned v;
		if (!isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]) ||
		    sscanf(p + 1, "%2x", &v) != 1 || v == 0)
			return false;
		*o++ = (char)v;
		p += 2;
	}
	*o = '\0';
	return true;
}

/* The file's name for key: encoded, a '/' as '_' (never a directory). */
static bool file_key(char *out, size_t len, const char *key)
{
	if (!key || !*key || strlen(key) >= 256 || !encode(out, len, key))
		return false;
	for (char *p = out; (p = strchr(p, '/'));)
		*p = '_';
	return true;
}

int isotier__lease_take(const isotier_lease *l, const char *key)
{
	char file[4096], tmp[4200], dir[4096];
	const char *f[] = {l->kind, l->backend, l->cli, l->wrap, l->name, l->path, l->global};
	enum { N_FIELDS = sizeof f / sizeof f[0] };
	/* On the heap: 86 kB of thread-local storage would be every thread's,
	 * the host pattern's hundreds of small-stacked threads included (their
	 * creation failed, and no "on" slot ever ran). */
	typedef char field[3 * 4096 + 1];
	cleanup_free field *enc = malloc(N_FIELDS * sizeof *enc);
	if (!enc)
		return errno = ENOMEM, ISOTIER_ENOMEM;
	for (size_t i = 0; i < N_FIELDS; i++)
		if (!encode(enc[i], sizeof enc[i], f[i] ? f[i] : ""))
			return errno = ENAMETOOLONG, ISOTIER_EINVAL;
	char ekey[3 * 256 + 1];
	if (!file_key(ekey, sizeof ekey, key))
		return errno = EINVAL, ISOTIER_EINVAL;
	if (!isotier__lease_dir(dir, sizeof dir))
		return errno = ENOENT, ISOTIER_EIO; /* no state directory */
	if (!lease_file(file, sizeof file, l->kind, ekey) || !make_dir(dir))
		return errno ? errno : (errno = EIO), ISOTIER_EIO;
	size_t cap = 64 + N_FIELDS * sizeof enc[0];
	cleanup_free char *body = malloc(cap);
	if (!body)
		return errno = ENOMEM, ISOTIER_ENOMEM;
	int n = snprintf(body, cap,
	                 "owner=%d:%llu:%llu\nkind=%s\nbackend=%s\ncli=%s\nwrap=%s\nname=%s\n"
	                 "path=%s\nglobal=%s\n",
	                 (int)getpid(), isotier__pid_start(getpid()), isotier__pidns(), enc[0],
	                 enc[1], enc[2], enc[3], enc[4], enc[5], enc[6]);
	if (n <= 0 || (size_t)n >= cap || n >= ISOTIER_LEASE_MAX)
		return errno = ENAMETOOLONG, ISOTIER_EINVAL;
	/* Written whole, synced, then renamed: a sweep never reads half a lease. */
	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return ISOTIER_EIO;
	bool ok = write(fd, body, (size_t)n) == n;
	int e = errno;
	close(fd);
	if (!ok || rename(tmp, file) != 0) {
		e = ok ? errno : e;
		unlink(tmp);
		return errno = e ? e : EIO, ISOTIER_EIO;
	}
	return 0;
}

void isotier__lease_drop(const char *kind, const char *key)
{
	char file[4096], ekey[3 * 256 + 1];
	if (file_key(ekey, sizeof ekey, key) && lease_file(file, sizeof file, kind, ekey))
		unlink(file);
}
