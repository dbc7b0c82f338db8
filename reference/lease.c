/* lease.c - the lease registry in the host's state directory (see lease.h). */
#include "lease.h"
#include "../base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool isotier_lease_text_ok(const char *s)
{
	return s && strlen(s) < 256 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:=+-") ==
	           strlen(s);
}

bool isotier_lease_dir(char *buf, size_t len)
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

unsigned long long isotier_pid_start(int pid)
{
	char state;
	return pid_stat(pid, &state);
}

bool isotier_pid_alive(int pid, unsigned long long start)
{
	if (pid <= 0)
		return false;
	char state = '?';
	unsigned long long now = pid_stat(pid, &state);
	if (!now) /* no /proc entry: gone, unless /proc is missing altogether */
		return access("/proc/self/stat", R_OK) != 0 && kill(pid, 0) == 0;
	/* A zombie (or one being torn down) runs nothing and releases nothing. */
	return now == start && state != 'Z' && state != 'X';
}

unsigned long long isotier_pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	const char *open = strchr(link, '[');
	return open ? strtoull(open + 1, NULL, 10) : 0;
}

/* "<pid>-<start>-<kind>-<key>": this process's lease file for kind and key. */
static bool lease_file(char *buf, size_t len, const char *kind, const char *key)
{
	char dir[4096];
	if (!isotier_lease_dir(dir, sizeof dir) || !isotier_lease_text_ok(kind) || !isotier_lease_text_ok(key) ||
	    strchr(key, '/') || !*key)
		return false;
	int n = snprintf(buf, len, "%s/%d-%llu-%s-%s", dir, (int)getpid(),
	                 isotier_pid_start(getpid()), kind, key);
	return n > 0 && (size_t)n < len;
}

void isotier_lease_take(const isotier_lease *l, const char *key)
{
	char file[4096], tmp[4200], dir[4096];
	const char *f[] = {l->kind, l->backend, l->cli, l->wrap, l->name, l->path, l->global};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i] && !isotier_lease_text_ok(f[i]))
			return;
	if (!lease_file(file, sizeof file, l->kind, key) || !isotier_lease_dir(dir, sizeof dir) ||
	    !make_dir(dir))
		return;
	char body[2048];
	int n = snprintf(body, sizeof body,
	                 "owner=%d:%llu:%llu\nkind=%s\nbackend=%s\ncli=%s\nwrap=%s\nname=%s\n"
	                 "path=%s\nglobal=%s\n",
	                 (int)getpid(), isotier_pid_start(getpid()), isotier_pidns(), l->kind,
	                 l->backend ? l->backend : "", l->cli ? l->cli : "", l->wrap ? l->wrap : "",
	                 l->name ? l->name : "", l->path ? l->path : "",
	                 l->global ? l->global : "");
	if (n <= 0 || (size_t)n >= sizeof body)
		return;
	/* Written whole, then renamed: a sweep never reads half a lease. */
	snprintf(tmp, sizeof tmp, "%s.tmp", file);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	bool ok = write(fd, body, (size_t)n) == n;
	close(fd);
	if (!ok || rename(tmp, file) != 0)
		unlink(tmp);
}

void isotier_lease_drop(const char *kind, const char *key)
{
	char file[4096];
	if (lease_file(file, sizeof file, kind, key))
		unlink(file);
}
