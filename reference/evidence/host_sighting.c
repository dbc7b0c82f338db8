/* SPDX-License-Identifier: Apache-2.0 */
/* host_sighting.c - a VMM or runsc counts only when it is the host's own program
 * and this run's (host_sighting.h). */
#include "host_sighting.h"
#include "host_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIGHT_CMDLINE_MAX    4096
#define SIGHT_MAX_DEPTH      64 /* ancestors walked: deeper than any runtime's tree */
#define TRUSTED_PATH_DEFAULT "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The executables that run a sandbox outside the host's kernel, and what a
 * sighting of each earns. */
static const struct runtime_exe {
	const char *name;
	bool prefix; /* qemu-system-<arch> */
	unsigned flags;
	const char *vmm; /* the name a probe's vm layer gives it; NULL: not a VMM */
} runtime_exes[] = {
    {"qemu-system-", true, ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_QEMU, "qemu"},
    {"firecracker", false, ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_FIRECRACKER, "firecracker"},
    {"cloud-hypervisor", false, ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_CLOUD_HYPERVISOR,
     "cloud-hypervisor"},
    {"crosvm", false, ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_CROSVM, "crosvm"},
    {"runsc", false, ISOTIER_HOST_SAW_GVISOR, NULL},
};

unsigned isotier__host_saw_vmm_bit(const char *vmm)
{
	for (size_t i = 0; vmm && *vmm && i < sizeof runtime_exes / sizeof *runtime_exes; i++)
		if (runtime_exes[i].vmm && !strcmp(runtime_exes[i].vmm, vmm))
			return runtime_exes[i].flags & ~(unsigned)ISOTIER_HOST_SAW_VMM;
	return 0;
}

/* ---- the host's own programs ------------------------------------------- */

/* Root's, and writable by no one else: a file or directory only root could
 * have put there. */
static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* path (absolute) and every directory above it are root_only. */
static bool trusted_chain(const char *path)
{
	char p[PATH_MAX];
	if (path[0] != '/' || snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
		return false;
	for (;;) {
		struct stat st;
		if (lstat(p, &st) != 0)
			return false;
		/* A symlink: its target must hold too (/bin -> usr/bin on merged /usr). */
		if (S_ISLNK(st.st_mode)) {
			char real[PATH_MAX];
			if (!realpath(p, real) || !trusted_chain(real))
				return false;
		} else if (!root_only(&st)) {
			return false;
		}
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	struct stat root;
	return stat("/", &root) == 0 && root_only(&root);
}

int isotier__trusted_program(char *out, size_t out_len, const char *name)
{
	if (!name || !*name || strchr(name, '/'))
		return -1;
	const char *dirs = getenv("ISOTIER_TRUSTED_PATH");
	if (!dirs || !*dirs)
		dirs = TRUSTED_PATH_DEFAULT;
	while (*dirs) {
		const char *colon = strchr(dirs, ':');
		size_t n = colon ? (size_t)(colon - dirs) : strlen(dirs);
		char cand[PATH_MAX], real[PATH_MAX];
		struct stat st;
		/* Absolute directories only: a relative one is the cwd's. */
		if (n > 0 && dirs[0] == '/' && n + strlen(name) + 2 <= sizeof cand) {
			memcpy(cand, dirs, n);
			cand[n] = '/';
			strcpy(cand + n + 1, name);
			if (realpath(cand, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
			    (st.st_mode & S_IXUSR) && trusted_chain(cand) && trusted_chain(real)) {
				if ((size_t)snprintf(out, out_len, "%s", real) >= out_len)
					return -1;
				return 0;
			}
		}
		if (!colon)
			break;
		dirs = colon + 1;
	}
	return -1;
}

/* ---- this run's processes ---------------------------------------------- */

void isotier__binding_init(isotier_run_binding *b)
{
	memset(b, 0, sizeof *b);
	pthread_mutex_init(&b->lock, NULL);
}

void isotier__binding_destroy(isotier_run_binding *b)
{
	pthread_mutex_destroy(&b->lock);
}

void isotier__binding_add_root(isotier_run_binding *b, pid_t pid)
{
	pthread_mutex_lock(&b->lock);
	if (b->n_roots < ISOTIER_BINDING_MAX_ROOTS)
		b->roots[b->n_roots++] = pid;
	else
		b->roots_full = true;
	pthread_mutex_unlock(&b->lock);
}

void isotier__binding_add_cidfile(isotier_run_binding *b, const char *path)
{
	pthread_mutex_lock(&b->lock);
	if (b->n_cidfiles < ISOTIER_BINDING_MAX_CIDFILES && strlen(path) < sizeof b->cidfiles[0]) {
		snprintf(b->cidfiles[b->n_cidfiles], sizeof b->cidfiles[0], "%s", path);
		b->cids[b->n_cidfiles][0] = '\0';
		b->n_cidfiles++;
	}
	pthread_mutex_unlock(&b->lock);
}

/* A container id as engines write it: 12 to 64 lowercase hex digits. */
static bool is_cid(const char *s)
{
	size_t n = strlen(s);
	if (n < 12 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Reads the cidfiles not read yet (the engine writes one when it creates
 * the container). Called with b->lock held. */
static void load_cids(isotier_run_binding *b)
{
	for (size_t i = 0; i < b->n_cidfiles; i++) {
		if (b->cids[i][0])
			continue;
		int fd = open(b->cidfiles[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		char buf[80];
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		buf[strcspn(buf, "\r\n")] = '\0';
		if (is_cid(buf))
			snprintf(b->cids[i], sizeof b->cids[i], "%s", buf);
	}
}

/* pid's parent, from /proc/PID/stat (after the last ')': a name may hold one). */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *rp = strrchr(buf, ')');
	char state;
	int ppid;
	if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2)
		return -1;
	return (pid_t)ppid;
}

/* Whether one of pid's arguments names a container id of this run. */
static bool names_cid(pid_t pid, char (*cids)[72], size_t n_cids)
{
	char path[64], buf[SIGHT_CMDLINE_MAX + 1];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t len = read(fd, buf, SIGHT_CMDLINE_MAX);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	for (char *a = buf; a < buf + len; a += strlen(a) + 1)
		for (size_t i = 0; i < n_cids; i++)
			if (cids[i][0] && strstr(a, cids[i]))
				return true;
	return false;
}

/* Whether pid's executable is one of runtime_exes or a launcher (unshare,
 * which a backend may put before its runtime), as the host's own file. */
static bool runs_runtime_program(pid_t pid)
{
	static const char *const launchers[] = {"unshare"};
	char path[64], exe[512], host[PATH_MAX];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	bool named = false;
	for (size_t i = 0; !named && i < sizeof runtime_exes / sizeof *runtime_exes; i++)
		named = runtime_exes[i].prefix
		            ? !strncmp(base, runtime_exes[i].name, strlen(runtime_exes[i].name))
		            : !strcmp(base, runtime_exes[i].name);
	for (size_t i = 0; !named && i < sizeof launchers / sizeof *launchers; i++)
		named = !strcmp(base, launchers[i]);
	struct stat a, h;
	return named && isotier__trusted_program(host, sizeof host, base) == 0 &&
	       stat(path, &a) == 0 && stat(host, &h) == 0 && a.st_dev == h.st_dev &&
	       a.st_ino == h.st_ino;
}

/*
 * Whether pid is this run's: one of the run's roots, or a descendant of one
 * through runtime programs only (runsc re-executing runsc, unshare before
 * it): a wrapper, a shell or a script between the root and the VMM is not
 * the runtime isotier started and could start anything it likes. Or, for an
 * engine's daemon, it or an ancestor names one of this run's container ids.
 * Walked now, while pid runs: a process that has gone proves nothing.
 */
static bool bound_to_run(isotier_run_binding *b, pid_t pid)
{
	pid_t roots[ISOTIER_BINDING_MAX_ROOTS];
	char cids[ISOTIER_BINDING_MAX_CIDFILES][72];
	pthread_mutex_lock(&b->lock);
	load_cids(b);
	size_t n_roots = b->n_roots, n_cids = b->n_cidfiles;
	memcpy(roots, b->roots, n_roots * sizeof *roots);
	memcpy(cids, b->cids, sizeof cids);
	pthread_mutex_unlock(&b->lock);
	bool chain_ok = true; /* every process so far runs a runtime program */
	pid_t p = pid;
	for (int depth = 0; p > 1 && depth < SIGHT_MAX_DEPTH; depth++) {
		if (n_cids && names_cid(p, cids, n_cids))
			return true;
		if (p != pid && !runs_runtime_program(p))
			chain_ok = false;
		for (size_t i = 0; i < n_roots; i++)
			if (roots[i] == p)
				return chain_ok;
		p = parent_of(p);
	}
	return false;
}

unsigned isotier__sighting_check(isotier_run_binding *b, pid_t pid, unsigned credited, char *detail,
                                 size_t len, char *why, size_t why_len)
{
	char path[64], exe[512];
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	const char *base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	for (size_t i = 0; i < sizeof runtime_exes / sizeof *runtime_exes; i++) {
		const struct runtime_exe *r = &runtime_exes[i];
		bool named =
		    r->prefix ? !strncmp(base, r->name, strlen(r->name)) : !strcmp(base, r->name);
		if (!named)
			continue;
		if ((r->flags & credited) == r->flags)
			return 0;
		char host[PATH_MAX];
		struct stat a, h;
		const char *refusal = NULL;
		/* The same file as the host's own: a process cannot run the host's
		 * inode without running the real program. */
		if (isotier__trusted_program(host, sizeof host, base) != 0)
			refusal = "not a program in isotier's trusted directories";
		else if (stat(path, &a) != 0 || stat(host, &h) != 0 || a.st_dev != h.st_dev ||
		         a.st_ino != h.st_ino)
			refusal = "not the host's own file of that name";
		else if (!bound_to_run(b, pid))
			refusal = "not started for this run";
		if (refusal) {
			if (why && why_len && !why[0])
				snprintf(why, why_len, "%.60s (pid %d): %s", base, (int)pid,
				         refusal);
			return 0;
		}
		snprintf(detail, len, "%.60s (pid %d)", base, (int)pid);
		return r->flags;
	}
	return 0;
}
