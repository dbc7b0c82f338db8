/* SPDX-License-Identifier: Apache-2.0 */
/* backend_util.c - helpers shared by the backend implementations. */
#include "backend_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <time.h>

static int abs_opt(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = realpath(s, NULL);
	return *out ? 0 : -1;
}

static int check_path(const char *path, mode_t type, const char *what, isotier_error *err)
{
	struct stat st;
	if (!path)
		return 0;
	if (stat(path, &st) != 0)
		return isotier__error_set(err, ISOTIER_EINVAL, errno, "%s %s", what, path);
	if ((st.st_mode & S_IFMT) != type)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s %s: not a %s", what, path,
		                          type == S_IFDIR ? "directory" : "regular file");
	return 0;
}

int isotier__spec_copy_init(isotier_spec_copy *out, const isotier_backend_spec *spec,
                            isotier_error *err)
{
	memset(out, 0, sizeof *out);
	if (!spec)
		return 0;
	out->timeout_s = spec->timeout_s;
	out->minimal_root = spec->minimal_root;
	out->cancel_fd = spec->cancel_fd;
	if (isotier__cancelled(spec->cancel_fd))
		return isotier__error_set(err, ISOTIER_EINTR, 0, "cancelled");
	int rc = check_path(spec->rootfs, S_IFDIR, "rootfs", err);
	if (!rc)
		rc = check_path(spec->probe_path, S_IFREG, "probe", err);
	if (!rc)
		rc = check_path(spec->capture_dir, S_IFDIR, "capture dir", err);
	/* Absolute, symlink-free paths: they become bind mount sources. */
	if (!rc &&
	    (abs_opt(&out->rootfs, spec->rootfs) || abs_opt(&out->probe_path, spec->probe_path) ||
	     abs_opt(&out->capture_dir, spec->capture_dir)))
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "resolve path");
	if (rc)
		isotier__spec_copy_clear(out);
	return rc;
}

void isotier__spec_copy_clear(isotier_spec_copy *c)
{
	free(c->rootfs);
	free(c->probe_path);
	free(c->capture_dir);
	memset(c, 0, sizeof *c);
}

int isotier__exec_timeout(const isotier_spec_copy *c, const isotier_exec_request *req)
{
	if (req && req->timeout_s > 0)
		return req->timeout_s;
	if (c && c->timeout_s > 0)
		return c->timeout_s;
	return ISOTIER_PROC_DEFAULT_TIMEOUT_S;
}

int isotier__exec_cancel_fd(const isotier_spec_copy *c, const isotier_exec_request *req)
{
	if (req && req->cancel_fd > 0)
		return req->cancel_fd;
	return c && c->cancel_fd > 0 ? c->cancel_fd : -1;
}

int isotier__provision_root(isotier_spec_copy *c, isotier_root_entry **entries, size_t *n_entries,
                            char **dir, const char *dir_prefix, const isotier_backend_spec *spec,
                            isotier_error *err)
{
	int rc = isotier__spec_copy_init(c, spec, err);
	if (!rc && !c->minimal_root)
		rc = isotier__root_entries(entries, n_entries, c->rootfs ? c->rootfs : "/", err);
	if (!rc && dir_prefix)
		rc = isotier__mkdtemp(dir, dir_prefix, err);
	return rc;
}

void isotier__provision_root_clear(isotier_spec_copy *c, isotier_root_entry *entries,
                                   size_t n_entries, char *dir)
{
	if (dir) {
		isotier__rmtree(dir);
		free(dir);
	}
	isotier__root_entries_free(entries, n_entries);
	isotier__spec_copy_clear(c);
}

int isotier__root_symlinks(const char *root, const isotier_root_entry *entries, size_t n_entries,
                           isotier_error *err)
{
	char path[4096];
	for (size_t i = 0; i < n_entries; i++) {
		if (!entries[i].link)
			continue;
		snprintf(path, sizeof path, "%s/%s", root, entries[i].name);
		if (symlink(entries[i].link, path) != 0)
			return isotier__error_set(err, ISOTIER_EIO, errno, "symlink %s", path);
	}
	return 0;
}

isotier_proc_opts isotier__exec_proc_opts(const isotier_spec_copy *c,
                                          const isotier_exec_request *req, char *const *argv)
{
	return (isotier_proc_opts){.argv = (const char *const *)argv,
	                           .stdin_fd = req->stdin_fd,
	                           .stdout_fd = req->stdout_fd,
	                           .stderr_fd = req->stderr_fd,
	                           .timeout_s = isotier__exec_timeout(c, req),
	                           .cancel_fd = isotier__exec_cancel_fd(c, req)};
}

int isotier__exec_check(const isotier_exec_request *req, isotier_error *err)
{
	if (!req || !req->argv || !req->argv[0] || !req->argv[0][0])
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "exec: empty command");
	size_t n = 0;
	for (; req->argv[n]; n++)
		if (n >= 4096)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "exec: too many arguments");
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const isotier_root_entry *)a)->name, ((const isotier_root_entry *)b)->name);
}

int isotier__root_entries(isotier_root_entry **out, size_t *n_out, const char *root,
                          isotier_error *err)
{
	static const char *const skip[] = {
	    "proc", "sys", "dev", "tmp", "run", "lost+found", ISOTIER_GUEST_DIR + 1};
	*out = NULL;
	*n_out = 0;
	DIR *d = opendir(root);
	if (!d)
		return isotier__error_set(err, ISOTIER_EIO, errno, "open %s", root);
	isotier_root_entry *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		bool skipped = false;
		for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
			skipped |= !strcmp(e->d_name, skip[i]);
		if (skipped)
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		char target[4096];
		ssize_t tl = 0;
		if (S_ISLNK(st.st_mode)) {
			tl = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
			if (tl <= 0)
				continue;
			target[tl] = '\0';
		} else if (!S_ISDIR(st.st_mode)) {
			continue; /* files at the top (/.dockerenv...) are not part of the view */
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			isotier_root_entry *nv = realloc(v, ncap * sizeof *nv);
			if (!nv) {
				rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[n].name = strdup(e->d_name);
		v[n].link = S_ISLNK(st.st_mode) ? strdup(target) : NULL;
		if (!v[n].name || (S_ISLNK(st.st_mode) && !v[n].link)) {
			free(v[n].name);
			free(v[n].link);
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		isotier__root_entries_free(v, n);
		return rc;
	}
	if (n)
		qsort(v, n, sizeof *v, entry_cmp);
	*out = v;
	*n_out = n;
	return 0;
}

void isotier__root_entries_free(isotier_root_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].link);
	}
	free(e);
}

int isotier__relay_sink(void *ctx, const char *buf, size_t len)
{
	const isotier_relay *r = ctx;
	while (len > 0) {
		struct pollfd pf[2] = {
		    {.fd = r->fd, .events = POLLOUT},
		    {.fd = r->cancel_fd > 0 ? r->cancel_fd : -1, .events = POLLIN}};
		int64_t wait = 1000;
		if (r->deadline_ms) {
			int64_t left = r->deadline_ms - isotier__now_ms();
			if (left <= 0)
				return ISOTIER_ETIMEDOUT;
			if (left < wait)
				wait = left;
		}
		int pr = poll(pf, 2, (int)wait);
		if (pr < 0 && errno != EINTR)
			return 0;
		if (pr > 0 && pf[1].revents)
			return ISOTIER_EINTR;
		if (pr <= 0 || !pf[0].revents)
			continue;
		if (pf[0].revents & (POLLERR | POLLNVAL))
			return 0; /* a closed reader must not kill the sandbox: drop the rest */
		/* POLLOUT on a pipe means PIPE_BUF bytes fit: this write cannot block. */
		ssize_t w = write(r->fd, buf, len > PIPE_BUF ? PIPE_BUF : len);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return 0;
		}
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

void isotier__unique_id(char *out, size_t len)
{
	/* 64 random bits: unique without a process-wide counter. */
	uint64_t r = 0;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
		    ((uint64_t)gettid() << 40);
	}
	snprintf(out, len, "isotier-%d-%016llx", (int)getpid(), (unsigned long long)r);
}

void isotier__argv_push(isotier_argv *a, const char *s)
{
	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 64;
		char **nv = realloc(a->v, ncap * sizeof *nv);
		if (!nv) {
			a->oom = true;
			return;
		}
		a->v = nv;
		a->cap = ncap;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n]) {
		a->oom = true;
		return;
	}
	a->v[++a->n] = NULL;
}

void isotier__argv_pushf(isotier_argv *a, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		a->oom = true;
		return;
	}
	isotier__argv_push(a, s);
	free(s);
}

void isotier__argv_free(isotier_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}

bool isotier__cgroup_hybrid(char *out, size_t len)
{
	static const char *const dirs[] = {"/sys/fs/cgroup/unified", "/sys/fs/cgroup/cgroup2"};
	struct statfs fs;
	if (statfs("/sys/fs/cgroup", &fs) != 0 || fs.f_type != TMPFS_MAGIC)
		return false; /* pure v2 (cgroup2 at /sys/fs/cgroup) or no cgroups */
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (statfs(dirs[i], &fs) != 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
			continue;
		char path[256];
		snprintf(path, sizeof path, "%s/cgroup.controllers", dirs[i]);
		cleanup_free char *c = NULL;
		if (isotier__read_file(&c, NULL, path, 4096, NULL) != 0)
			continue;
		if (c[strspn(c, " \t\n")] == '\0')
			continue; /* no controller on cgroup2: crun accepts that */
		snprintf(out, len, "%s", dirs[i]);
		return true;
	}
	return false;
}

void isotier__argv_unmounted(isotier_argv *a, const char *dir)
{
	static const char *const pre[] = {"unshare",
	                                  "-m",
	                                  "--propagation",
	                                  "private",
	                                  "sh",
	                                  "-c",
	                                  "umount -l -- \"$0\" && exec \"$@\""};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		isotier__argv_push(a, pre[i]);
	isotier__argv_push(a, dir);
}

static char *map_prefix(const char *arg, const char *guest, const char *host)
{
	size_t gl = strlen(guest);
	if (!host || strncmp(arg, guest, gl) != 0 || (arg[gl] != '\0' && arg[gl] != '/'))
		return NULL;
	char *out = NULL;
	if (asprintf(&out, "%s%s", host, arg + gl) < 0)
		return NULL;
	return out;
}

char *isotier__map_guest_path(const char *arg, const isotier_spec_copy *c)
{
	const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
	const char *path = eq ? eq + 1 : arg;
	char *m = map_prefix(path, ISOTIER_GUEST_PROBE, c->probe_path);
	if (!m)
		m = map_prefix(path, ISOTIER_GUEST_CAPTURE, c->capture_dir);
	if (!m || !eq)
		return m;
	char *out = NULL;
	if (asprintf(&out, "%.*s%s", (int)(eq + 1 - arg), arg, m) < 0)
		out = NULL;
	free(m);
	return out;
}
