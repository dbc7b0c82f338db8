/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_nspawn.c - CONTAINER tier: systemd-nspawn (Debian package
 * systemd-container) running argv as PID 2 under nspawn's stub init, with a
 * private network namespace, no machine registration and no unit.
 *
 * provision() makes a private temporary directory holding root/: an empty
 * tree with /usr (nspawn refuses a directory without one unless it is given
 * --boot, and then it wants os-release instead: measured with systemd 252),
 * the top-level symlinks of the root it shows and /.isotier. exec() binds the
 * top-level directories of the host root (or of spec->rootfs) read-only, the
 * probe at ISOTIER_GUEST_PROBE and the capture dir writable at
 * ISOTIER_GUEST_CAPTURE; with minimal_root only the last two (/usr stays the
 * empty directory). nspawn mounts /proc, /dev, /sys, /run and /tmp itself.
 *
 * What is not nspawn's default, and why (all measured on Debian 12, systemd
 * 252, on a host whose PID 1 is not systemd):
 * - `--register=no --keep-unit`: no systemd-machined registration and no
 *   transient scope (nspawn's documented way to allocate no unit at all); a
 *   run leaves nothing for `machinectl list` and needs no system bus.
 * - nspawn runs inside `unshare --mount --pid --fork --kill-child`: killing
 *   nspawn's process group (timeout, cancel) does not stop the container,
 *   whose stub init is in a session of its own and outlives nspawn. As PID 1
 *   of a PID namespace, nspawn's death makes the kernel kill everything in
 *   it, the container included; --kill-child kills nspawn when unshare dies.
 * - /run/systemd/nspawn is a tmpfs private to that mount namespace: nspawn
 *   leaves its lock files there when killed, and where /run is not a tmpfs
 *   it refuses to remove its propagation directory and says so on stderr
 *   (which is the command's stderr in pipe mode) after every run.
 * - `--pipe`: the caller's descriptors go to the command as they are.
 *   nspawn's own manual warns that a terminal passed so lets a payload
 *   holding CAP_SYS_ADMIN inject input (TIOCSTI): the capability is dropped.
 * - nspawn gets an environment of PATH only: its stub init (PID 1 inside)
 *   is forked from nspawn, so /proc/1/environ inside shows nspawn's own
 *   environment, and the caller's (credentials included) must not be there.
 * - `--settings=no`, `--resolv-conf=off`, `--timezone=off`,
 *   `--link-journal=no`: no .nspawn file of the host changes the container
 *   and nspawn writes nothing into the read-only views of /etc and /var.
 *
 * A command killed by a signal comes back as status 255: nspawn's stub init
 * reports only that its child did not exit (measured), not the signal.
 */
#include "backend_util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

typedef struct nspawn_state {
	isotier_spec_copy spec;
	char *dir; /* the private temporary directory; root/ is the container's root */
	isotier_root_entry *entries;
	size_t n_entries;
} nspawn_state;

static int nspawn_available(char *why, size_t why_len)
{
	char path[4096], unshare[4096];
	if (isotier__find_program(path, sizeof path, "systemd-nspawn") != 0) {
		snprintf(why, why_len,
		         "not installed: systemd-nspawn not found in PATH (Debian package "
		         "systemd-container)");
		return 0;
	}
	if (isotier__find_program(unshare, sizeof unshare, "unshare") != 0) {
		snprintf(why, why_len,
		         "unshare(1) not found in PATH (util-linux): it keeps a killed "
		         "systemd-nspawn from leaving its container running");
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, why_len,
		         "systemd-nspawn needs root for a directory container (rootless "
		         "nspawn takes only images owned by the foreign UID range)");
		return 0;
	}
	snprintf(why, why_len, "%s", path);
	return 1;
}

static void nspawn_destroy(void *p)
{
	nspawn_state *s = p;
	if (!s)
		return;
	isotier__provision_root_clear(&s->spec, s->entries, s->n_entries, s->dir);
	free(s);
}

/* Creates path (a directory, or an empty file as a mount point when file). */
static int make_node(const char *path, bool file, isotier_error *err)
{
	if (file) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return isotier__error_set(err, ISOTIER_EIO, errno, "create %s", path);
		close(fd);
		return 0;
	}
	/* The root is entered as root but read through by nspawn's helpers: 0755. */
	if (mkdir(path, 0755) != 0 || chmod(path, 0755) != 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "mkdir %s", path);
	return 0;
}

static int make_root(nspawn_state *s, isotier_error *err)
{
	char path[4096];
	static const struct {
		const char *name;
		bool file;
	} nodes[] = {
	    {"root", false},
	    {"root/usr", false},
	    {"root" ISOTIER_GUEST_DIR, false},
	    {"root" ISOTIER_GUEST_PROBE, true},
	    {"root" ISOTIER_GUEST_CAPTURE, false},
	};
	int rc = 0;
	for (size_t i = 0; i < sizeof nodes / sizeof *nodes && !rc; i++) {
		snprintf(path, sizeof path, "%s/%s", s->dir, nodes[i].name);
		rc = make_node(path, nodes[i].file, err);
	}
	snprintf(path, sizeof path, "%s/root", s->dir);
	if (!rc)
		rc = isotier__root_symlinks(path, s->entries, s->n_entries, err);
	/* nspawn's lock file goes next to root/ (".#root.lck"): in our directory. */
	if (!rc && chmod(s->dir, 0711) != 0)
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "chmod %s", s->dir);
	return rc;
}

static int nspawn_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	char why[256];
	if (!nspawn_available(why, sizeof why))
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "nspawn: %s", why);
	nspawn_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "nspawn: out of memory");
	int rc = isotier__provision_root(&s->spec, &s->entries, &s->n_entries, &s->dir,
	                                 "isotier-nspawn", spec, err);
	if (!rc)
		rc = make_root(s, err);
	if (rc) {
		nspawn_destroy(s);
		return isotier__error_prefix(err, "nspawn: provision");
	}
	*out = s;
	return 0;
}

/* "--bind[-ro]=SRC:DST" with ':' and '\' escaped: nspawn splits at ':'. */
static void push_bind(isotier_argv *a, const char *opt, const char *src, const char *dst)
{
	char buf[2 * 4096 + 64];
	size_t n = (size_t)snprintf(buf, sizeof buf, "%s=", opt);
	const char *parts[] = {src, dst};
	for (size_t p = 0; p < 2; p++) {
		for (const char *c = parts[p]; *c && n + 3 < sizeof buf; c++) {
			if (*c == ':' || *c == '\\')
				buf[n++] = '\\';
			buf[n++] = *c;
		}
		if (p == 0 && n + 2 < sizeof buf)
			buf[n++] = ':';
	}
	buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
	if (n + 3 >= sizeof buf) {
		a->oom = true; /* a path this long cannot be passed whole: refuse */
		return;
	}
	isotier__argv_push(a, buf);
}

/* A private /run/systemd/nspawn, then nspawn itself (see the top of the file). */
static const char wrapper[] =
    "mkdir -p /run/systemd/nspawn && "
    "mount -t tmpfs -o mode=0755,size=4m isotier-nspawn /run/systemd/nspawn && exec \"$@\"";

static int nspawn_exec(void *p, const isotier_exec_request *req, int *exit_status,
                       isotier_error *err)
{
	nspawn_state *s = p;
	int rc = isotier__exec_check(req, err);
	if (rc)
		return isotier__error_prefix(err, "nspawn");
	char machine[96];
	isotier__unique_id(machine, sizeof machine);
	cleanup_argv isotier_argv a = {0};
	const char *base = s->spec.rootfs ? s->spec.rootfs : "";
	isotier__argv_push(&a, "unshare");
	isotier__argv_push(&a, "--mount");
	isotier__argv_push(&a, "--pid");
	isotier__argv_push(&a, "--fork");
	/* A /proc of the new PID namespace: nspawn finds its processes by
	 * their pids there; the host's /proc numbers them otherwise, and nspawn
	 * then fails at random ("Failed to open parent network namespace"). */
	isotier__argv_push(&a, "--mount-proc");
	isotier__argv_push(&a, "--kill-child");
	isotier__argv_push(&a, "--propagation");
	isotier__argv_push(&a, "private");
	isotier__argv_push(&a, "sh");
	isotier__argv_push(&a, "-c");
	isotier__argv_push(&a, wrapper);
	isotier__argv_push(&a, "sh");
	isotier__argv_push(&a, "systemd-nspawn");
	isotier__argv_push(&a, "--quiet");
	isotier__argv_push(&a, "--register=no");
	isotier__argv_push(&a, "--keep-unit");
	isotier__argv_push(&a, "--settings=no");
	isotier__argv_push(&a, "--as-pid2");
	isotier__argv_push(&a, "--pipe");
	isotier__argv_push(&a, "--private-network");
	isotier__argv_push(&a, "--drop-capability=CAP_SYS_ADMIN");
	isotier__argv_push(&a, "--resolv-conf=off");
	isotier__argv_push(&a, "--timezone=off");
	isotier__argv_push(&a, "--link-journal=no");
	isotier__argv_pushf(&a, "--machine=%s", machine);
	isotier__argv_pushf(&a, "--directory=%s/root", s->dir);
	isotier__argv_push(&a, "--chdir=/");
	for (size_t i = 0; i < s->n_entries; i++) {
		const isotier_root_entry *e = &s->entries[i];
		if (e->link)
			continue;
		char src[4096], dst[4096];
		snprintf(src, sizeof src, "%s/%s", base, e->name);
		snprintf(dst, sizeof dst, "/%s", e->name);
		push_bind(&a, "--bind-ro", src, dst);
	}
	if (s->spec.probe_path)
		push_bind(&a, "--bind-ro", s->spec.probe_path, ISOTIER_GUEST_PROBE);
	if (s->spec.capture_dir)
		push_bind(&a, "--bind", s->spec.capture_dir, ISOTIER_GUEST_CAPTURE);
	isotier__argv_push(&a, "--");
	for (size_t i = 0; req->argv[i]; i++)
		isotier__argv_push(&a, req->argv[i]);
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "nspawn: out of memory (or a path too long to bind)");
	static const char *const envp[] = {
	    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	isotier_proc_opts o = isotier__exec_proc_opts(&s->spec, req, a.v);
	o.envp = envp;
	o.cwd = "/"; /* the wrapper's shell would export our directory as PWD */
	rc = isotier__proc_run(&o, exit_status, err);
	if (rc)
		return isotier__error_prefix(err, "nspawn: exec %s", req->argv[0]);
	return 0;
}

const isotier_backend isotier__backend_nspawn = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "nspawn",
    .catalogue_id = "systemd-nspawn",
    .description = "systemd-nspawn: PID 2 in a directory container, read-only root view, no "
                   "registration (CONTAINER)",
    .available = nspawn_available,
    .provision = nspawn_provision,
    .exec = nspawn_exec,
    .destroy = nspawn_destroy,
    .cpu_in_tree = true,
};
