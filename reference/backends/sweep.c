/* SPDX-License-Identifier: Apache-2.0 */
/* sweep.c - releasing what dead runs left behind (see sweep.h). */
#include "sweep.h"
#include "backend.h"
#include "engine.h"
#include "oci.h"
#include "backend_util.h"
#include "../core/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A lease as read back; the strings point into text. */
typedef struct lease_rec {
	char text[ISOTIER_LEASE_MAX];
	int pid;
	unsigned long long start, pidns;
	isotier_lease l;
} lease_rec;

/* Parses a lease file; false when it is not one (hostile or torn: left alone). */
static bool read_lease(lease_rec *r, int dfd, const char *file)
{
	int fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	ssize_t n = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		n = read(fd, r->text, sizeof r->text - 1);
	close(fd);
	if (n <= 0)
		return false;
	r->text[n] = '\0';
	memset(&r->l, 0, sizeof r->l);
	const char **slot[] = {&r->l.kind, &r->l.backend, &r->l.cli,   &r->l.wrap,
	                       &r->l.name, &r->l.path,    &r->l.global};
	static const char *const keys[] = {"kind", "backend", "cli",   "wrap",
	                                   "name", "path",    "global"};
	const char *owner = NULL;
	for (char *line = r->text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			return false; /* every line ends: a torn lease is no lease */
		*next++ = '\0';
		char *eq = strchr(line, '=');
		if (!eq)
			return false;
		*eq = '\0';
		if (!strcmp(line, "owner"))
			owner = eq + 1;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (!strcmp(line, keys[i]))
				*slot[i] = eq + 1;
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!*slot[i] || !isotier__lease_decode((char *)*slot[i]))
			return false;
	if (!isotier__lease_text_ok(r->l.kind))
		return false;
	char *end;
	long pid = owner ? strtol(owner, &end, 10) : 0;
	if (pid <= 0 || pid > INT32_MAX || *end != ':')
		return false;
	r->pid = (int)pid;
	r->start = strtoull(end + 1, &end, 10);
	if (*end != ':')
		return false;
	r->pidns = strtoull(end + 1, &end, 10);
	return *end == '\0';
}

/* Up to max process ids whose command line has an argument containing needle
 * (not this process). For conmon, its container id (-c ID) goes to cid. */
static size_t find_mentions(const char *needle, pid_t *pids, size_t max, char *cid, size_t cid_len)
{
	size_t n = 0;
	DIR *d = opendir("/proc");
	if (!d || !*needle) {
		if (d)
			closedir(d);
		return 0;
	}
	struct dirent *e;
	const size_t cap = 65536;
	char *buf = malloc(cap);
	while (buf && (e = readdir(d)) && n < max) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 1 || pid == getpid())
			continue;
		char path[64];
		snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, cap - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		bool hit = false, conmon = false;
		const char *prev = "", *id = NULL;
		for (const char *a = buf; a < buf + len; a += strlen(a) + 1) {
			if (a == buf) {
				const char *slash = strrchr(a, '/');
				conmon = !strcmp(slash ? slash + 1 : a, "conmon");
			}
			if (strstr(a, needle))
				hit = true;
			if (conmon && (!strcmp(prev, "-c") || !strcmp(prev, "--cid")))
				id = a;
			prev = a;
		}
		if (hit)
			pids[n++] = (pid_t)pid;
		if (hit && id && cid)
			snprintf(cid, cid_len, "%s", id);
	}
	closedir(d);
	free(buf);
	return n;
}

/* Kills every process mentioning needle; how many. cid as find_mentions. */
static size_t kill_mentions(const char *needle, char *cid, size_t cid_len)
{
	pid_t pids[64];
	size_t n = find_mentions(needle, pids, 64, cid, cid_len);
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	if (n) { /* the kernel reaps them (their parent is gone or init): give it a moment */
		struct timespec ts = {0, 200 * 1000000L};
		nanosleep(&ts, NULL);
	}
	return n;
}

/* `RUNTIME delete -f ID` for a container podman never listed (its client was
 * killed mid-create): the runtime's own state outlives conmon. */
static void runtime_delete(const isotier_lease *l, const char *cid)
{
	cleanup_argv isotier_argv a = {0};
	if (l->wrap && *l->wrap)
		isotier__argv_unmounted(&a, l->wrap);
	isotier__argv_push(&a, l->global && *l->global ? l->global : "crun");
	isotier__argv_push(&a, "delete");
	isotier__argv_push(&a, "-f");
	isotier__argv_push(&a, cid);
	if (a.oom)
		return;
	isotier__proc_cleanup((const char *const *)a.v, 15);
}

static void sweep_container(const isotier_lease *l, char *done, size_t len)
{
	/* The engine first: a client killed mid-create leaves the container behind. */
	isotier__engine_sweep(l);
	char cid[128] = "";
	/* Again until none is left: a client killed mid-create may have forked
	 * conmon, which forks `crun create`, while the last round looked. */
	size_t k = 0, kc = 0, round;
	for (int i = 0; i < 5 && (round = kill_mentions(l->name, cid, sizeof cid)); i++)
		k += round;
	if (cid[0] && isotier__lease_text_ok(cid)) {
		/* conmon named it by id: `crun create` and the container's own processes. */
		for (int i = 0; i < 5 && (round = kill_mentions(cid, NULL, 0)); i++)
			kc += round;
		isotier_lease byid = *l;
		byid.name = cid;
		isotier__engine_sweep(&byid);
		if (!strcmp(l->cli, "podman"))
			runtime_delete(l, cid);
	}
	isotier__engine_sweep(l);
	snprintf(done, len, "removed (%s rm -f; %zu process%s killed)", l->cli, k + kc,
	         k + kc == 1 ? "" : "es");
}

/* A temp dir isotier__mkdtemp made: its basename starts with one of the
 * backends' prefixes (a lease naming anything else is not followed). */
static bool our_temp_dir(const char *path)
{
	static const char *const prefixes[] = {"isotier-capture-", "isotier-engine.", "isotier-vm.",
	                                       "isotier-bundle.", "isotier-nspawn."};
	const char *base = strrchr(path, '/');
	if (*path != '/' || strstr(path, "/..") || !base)
		return false;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(base + 1, prefixes[i], strlen(prefixes[i])) &&
		    base[1 + strlen(prefixes[i])])
			return true;
	return false;
}

/* -1 when a sandbox may still exist: the lease stays for a later sweep; 0
 * (kept, silently) when this process cannot ask: the backend is not
 * configured here, or with another endpoint than the dead run's. */
static int sweep_remote(const isotier_lease *l, char *done, size_t len)
{
	const isotier_backend *b = isotier__backend_lookup(l->backend);
	char why[256];
	if (!b || !b->sweep_run || !b->available || !b->available(why, sizeof why))
		return 0;
	isotier_error err = {0};
	int rc = b->sweep_run(l->name, l->path, &err);
	if (rc == ISOTIER_EUNAVAILABLE)
		return 0;
	if (rc < 0) {
		snprintf(done, len, "NOT deleted (kept for the next sweep): %.400s", err.message);
		return -1;
	}
	snprintf(done, len, "deleted (sandboxes labelled isotier-nonce=%s)", l->name);
	return 1;
}

/* A container or image name isotier makes (isotier__unique_id: "isotier-PID-
 * and 16 hex digits", an image tagged with it): processes whose arguments
 * mention it are killed, so a short or foreign name in a damaged lease must
 * match nothing else. */
static bool our_name(const char *name)
{
	const char *id = strstr(name, "isotier-");
	return id && strlen(id) >= 24;
}

/* 1 released, -1 tried and failed (the lease stays), 0 no lease this knows. */
/*
 * The cgroups a killed runtime left: runc names a container's cgroup after its
 * id, "isotier-PID-<16 hex>" (isotier__unique_id, PID the owner's), under each
 * hierarchy's root; a runc killed while creating the container leaves them
 * empty, and `delete -f` does not know the container yet. Each one of the dead
 * owner's is removed: rmdir(2) refuses a cgroup that still has tasks or
 * children, so a live one is never touched. Returns how many.
 */
static size_t sweep_cgroups(int owner_pid)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f || owner_pid <= 0) {
		if (f)
			fclose(f);
		return 0;
	}
	char prefix[32], line[4096];
	int plen = snprintf(prefix, sizeof prefix, "isotier-%d-", owner_pid);
	size_t n = 0;
	while (fgets(line, sizeof line, f)) {
		char *sep = strstr(line, " - ");
		if (!sep || (strncmp(sep, " - cgroup ", 10) && strncmp(sep, " - cgroup2 ", 11)))
			continue;
		char mnt[1024];
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 || strchr(mnt, '\\'))
			continue;
		DIR *d = opendir(mnt);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			const char *hex = e->d_name + plen;
			if (strncmp(e->d_name, prefix, (size_t)plen) || strlen(hex) != 16 ||
			    strspn(hex, "0123456789abcdef") != 16)
				continue;
			char path[1400];
			snprintf(path, sizeof path, "%s/%s", mnt, e->d_name);
			if (rmdir(path) == 0)
				n++;
		}
		closedir(d);
	}
	fclose(f);
	return n;
}

static int sweep_one(const lease_rec *r, char *done, size_t len)
{
	const isotier_lease *l = &r->l;
	if (!strcmp(l->kind, "container") && our_name(l->name) && *l->cli) {
		sweep_container(l, done, len);
	} else if (!strcmp(l->kind, "image") && our_name(l->name) && !strcmp(l->cli, "docker")) {
		/* An orphaned `docker import ... TAG` is let finish within 10 s, then
		 * killed; the engine then watches for the daemon to finish the import. */
		pid_t pids[4];
		for (int i = 0; i < 100 && find_mentions(l->name, pids, 4, NULL, 0); i++) {
			struct timespec ts = {0, 100 * 1000000L};
			nanosleep(&ts, NULL);
		}
		kill_mentions(l->name, NULL, 0);
		isotier__engine_sweep(l);
		snprintf(done, len, "removed (docker rmi -f)");
	} else if (!strcmp(l->kind, "oci") && our_temp_dir(l->path) && *l->cli) {
		kill_mentions(l->path, NULL, 0); /* `RUNTIME run --bundle PATH` */
		isotier__oci_sweep(l);
		size_t cg = sweep_cgroups(r->pid);
		snprintf(done, len, "deleted (%s delete -f)%s%zu empty cgroup%s removed", l->cli,
		         cg ? "; " : "", cg, cg == 1 ? "" : "s");
		if (!cg)
			snprintf(done, len, "deleted (%s delete -f)", l->cli);
	} else if (!strcmp(l->kind, "remote") && *l->name) {
		return sweep_remote(l, done, len);
	} else if (!strcmp(l->kind, "dir") && our_temp_dir(l->path)) {
		size_t k = kill_mentions(l->path, NULL, 0); /* a QEMU naming its initramfs */
		isotier__rmtree(l->path);
		snprintf(done, len, "removed%s", k ? " (and the processes using it killed)" : "");
	} else {
		return 0;
	}
	return 1;
}

int isotier__sweep(isotier_sweep_report report, void *ctx)
{
	char dir[4096];
	if (!isotier__lease_dir(dir, sizeof dir))
		return ISOTIER_EIO; /* no state directory: no lease could be read */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) /* none yet is nothing to sweep; anything else hides leases */
		return errno == ENOENT ? 0 : ISOTIER_EIO;
	int swept = 0;
	unsigned long long pidns = isotier__pidns();
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	/* Two passes: what runs in a temp dir goes before the dir itself. */
	for (int pass = 0; pass < 2; pass++) {
		rewinddir(d);
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			lease_rec r;
			bool tmp = strlen(e->d_name) > 4 &&
			           !strcmp(e->d_name + strlen(e->d_name) - 4, ".tmp");
			struct stat st;
			bool old = fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			           st.st_mtime < time(NULL) - 30 * 86400;
			if (tmp) { /* a lease torn mid-write: its owner's pid leads the name */
				const char *dash = strchr(e->d_name, '-');
				int pid = atoi(e->d_name);
				unsigned long long start = dash ? strtoull(dash + 1, NULL, 10) : 0;
				/* Its owner may be of another pid namespace (its pid
				 * means nothing here) and still writing: a minute on,
				 * a .tmp is one whose write failed. */
				bool stale =
				    fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    st.st_mtime < time(NULL) - 60;
				if (pass == 1 && stale && !isotier__pid_alive(pid, start))
					unlinkat(dfd, e->d_name, 0);
				continue;
			}
			/* Another pid namespace's owner cannot be looked up from here. */
			if (!read_lease(&r, dfd, e->d_name) || r.pidns != pidns ||
			    isotier__pid_alive(r.pid, r.start))
				continue;
			/* An owner lease names nothing to release: it tells the
			 * stale-run check where its dead owner ran (lease.h), for a
			 * month, in case a history that process wrote to is opened. */
			if (!strcmp(r.l.kind, "owner")) {
				if (pass == 1 && old)
					unlinkat(dfd, e->d_name, 0);
				continue;
			}
			if ((pass == 0) != (strcmp(r.l.kind, "dir") != 0))
				continue;
			char done[600];
			int rc = sweep_one(&r, done, sizeof done);
			if (!rc)
				continue;
			if (rc > 0) {
				unlinkat(dfd, e->d_name, 0);
				swept++;
			}
			if (report)
				report(ctx, r.l.kind, r.l.backend, *r.l.name ? r.l.name : r.l.path,
				       r.pid, done);
		}
	}
	closedir(d);
	return swept;
}
