/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_container.c - container markers: is there a namespace boundary
 * between us and the kernel, and which runtime drew it.
 *
 * Strong: namespace inode numbers. The kernel gives its initial namespaces
 * fixed inodes (include/linux/proc_ns.h), so a different number means we are
 * in a namespace someone created. Weak: everything an image or a runtime
 * writes as a file (/.dockerenv, /run/.containerenv, container= ...), and
 * cgroup paths, root filesystem type, PID 1's name, uid_map, capabilities.
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

/* The initial namespaces' fixed inode numbers (PROC_*_INIT_INO). */
static const struct {
	const char *name, *id;
	uint64_t init_ino;
} probe_ns_initial[] = {
    {"pid", "container.ns_pid", 0xEFFFFFFCull},       {"user", "container.ns_user", 0xEFFFFFFDull},
    {"uts", "container.ns_uts", 0xEFFFFFFEull},       {"ipc", "container.ns_ipc", 0xEFFFFFFFull},
    {"cgroup", "container.ns_cgroup", 0xEFFFFFFBull},
};

/* Substrings of /proc/self/cgroup paths. */
static const struct probe_vendor probe_cgroup_runtimes[] = {
    {"kubepods", "kubernetes", ""},
    {"/docker/", "docker", ""},
    {"/docker-", "docker", ""},
    {"libpod-", "podman", ""},
    {"/libpod", "podman", ""},
    {"crio-", "cri-o", ""},
    {"/lxc/", "lxc", ""},
    {"lxc.payload", "lxc", ""},
    {"/machine.slice/", "systemd-nspawn", ""},
    {"/actions_job/", "docker", ""},
    {"/ecs/", "ecs", ""},
    {"/garden/", "garden", ""},
    {"/buildkit/", "buildkit", ""},
    {"cri-containerd", "containerd", ""},
    {"containerd", "containerd", ""},
    {"/system.slice/runc-", "runc", ""},
    {"sysbox", "sysbox", ""},
    {"/lxc.monitor", "lxc", ""},
};

/* PID 1's comm in common runtimes. Our own name means we are PID 1. */
static const struct probe_vendor probe_pid1_runtimes[] = {
    {"docker-init", "docker", ""},
    {"tini", "docker", ""},
    {"catatonit", "podman", ""},
    {"pause", "kubernetes", ""},
    {"bwrap", "bubblewrap", ""},
    {"runc:[2:INIT]", "runc", ""},
    {"runc", "runc", ""},
    {"conmon", "podman", ""},
    {"dumb-init", "", ""},
    {"s6-svscan", "", ""},
    {"containerd-shim", "containerd", ""},
};

static void probe_container_ns(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/ns", NULL);
	for (size_t i = 0; text && i < sizeof(probe_ns_initial) / sizeof(probe_ns_initial[0]);
	     i++) {
		size_t nl = strlen(probe_ns_initial[i].name);
		for (const char *line = text; line && *line;) {
			const char *eol = strchr(line, '\n');
			uint64_t ino;
			char num[32];
			size_t n = 0;
			/* "pid:[4026531836]", also inside "pid -> pid:[...]" from ls -l. */
			const char *at = line;
			while (*at == ' ' || *at == '\t')
				at++;
			if (!(strncmp(at, probe_ns_initial[i].name, nl) == 0 && at[nl] == ':')) {
				size_t len = eol ? (size_t)(eol - line) : strlen(line);
				for (size_t j = 0; j + 3 <= len; j++)
					if (memcmp(line + j, "-> ", 3) == 0) {
						/* ls quotes the target: 'pid:[N]' */
						at = line + j + 3 + (line[j + 3] == '\'');
						break;
					}
			}
			if (strncmp(at, probe_ns_initial[i].name, nl) == 0 && at[nl] == ':' &&
			    at[nl + 1] == '[') {
				const char *p = at + nl + 2;
				while (*p >= '0' && *p <= '9' && n < sizeof(num) - 1)
					num[n++] = *p++;
				num[n] = '\0';
				if (*p == ']' && probe_parse_u64(num, &ino)) {
					bool init = ino == probe_ns_initial[i].init_ino;
					char sv[PROBE_VALUE_MAX];
					snprintf(sv, sizeof(sv), "%s:[%s]",
					         probe_ns_initial[i].name, num);
					probe_add_signal(sigs, probe_ns_initial[i].id,
					                 "/proc/self/ns", PROBE_STRONG,
					                 init ? PROBE_KIND_NONE
					                      : PROBE_KIND_CONTAINER,
					                 PROBE_AXIS_CONTAINER, NULL, sv);
					break;
				}
			}
			line = eol ? eol + 1 : NULL;
		}
	}
}

/* Host-side slices: our own cgroup path as a host's service manager names it
 * (a cgroup namespace shows "/" instead). */
static const struct probe_vendor probe_cgroup_host[] = {
    {"/user.slice/", "", ""},
    {"/system.slice/", "", ""},
    {"/init.scope", "", ""},
};

static void probe_container_cgroup(struct probe_input *in, struct probe_signals *sigs)
{
	/* Another tool's capture may hold only PID 1's (the same without a
	 * cgroup namespace, and as telling with one). */
	const char *src = "/proc/self/cgroup";
	const char *text = probe_read(in, src, NULL);
	if (!text)
		text = probe_read(in, src = "/proc/1/cgroup", NULL);
	char host[PROBE_VALUE_MAX] = "";
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		char buf[PROBE_VALUE_MAX];
		snprintf(buf, sizeof(buf), "%.*s", (int)(eol ? eol - line : (long)strlen(line)),
		         line);
		probe_rstrip(buf);
		const char *rt = PROBE_VENDOR_NAME(probe_cgroup_runtimes, buf, PROBE_SUBSTR);
		if (rt) {
			probe_add_signal(sigs, "container.cgroup", src, PROBE_WEAK,
			                 PROBE_KIND_CONTAINER, PROBE_AXIS_CONTAINER, rt, buf);
			return;
		}
		if (!host[0] && PROBE_VENDOR(probe_cgroup_host, buf, PROBE_SUBSTR))
			probe_strlcpy(host, sizeof(host), buf);
		line = eol ? eol + 1 : NULL;
	}
	if (!host[0])
		return;
	probe_add_signal(sigs, "container.cgroup", src, PROBE_WEAK, PROBE_KIND_NONE,
	                 PROBE_AXIS_CONTAINER, NULL, host);
}

/*
 * Where the runtime's per-container files come from: /etc/hostname, hosts and
 * resolv.conf are bind mounts whose root field names the runtime's state
 * directory (kernel-reported, so better than files in the image). Only mounts
 * on those files count: a host's own mount table lists its containers' state
 * directories too.
 */
static const struct probe_vendor probe_mount_runtimes[] = {
    {"/var/lib/kubelet/pods/", "kubernetes", ""},
    {"/var/lib/docker/containers/", "docker", ""},
    {"/overlay-containers/", "podman", ""},
    {"/var/lib/lxc/", "lxc", ""},
    {"/var/lib/lxd/", "lxc", ""},
    {"/var/lib/incus/", "lxc", ""},
    {"/run/containerd/io.containerd", "containerd", ""},
    {"/var/lib/containerd/", "containerd", ""},
};

static void probe_container_mounts(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/proc/self/mountinfo", NULL);
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		char buf[1024], *f[5] = {0}, *save = NULL;
		snprintf(buf, sizeof(buf), "%.*s", (int)(eol ? eol - line : (long)strlen(line)),
		         line);
		line = eol ? eol + 1 : NULL;
		/* id parent maj:min root mountpoint ... */
		char *tok = strtok_r(buf, " ", &save);
		for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save))
			f[i] = tok;
		if (!f[4])
			continue;
		const char *rt = NULL;
		if (probe_starts_with(f[4], "/var/run/secrets/kubernetes.io/") ||
		    probe_starts_with(f[4], "/run/secrets/kubernetes.io/"))
			rt = "kubernetes";
		else if (probe_starts_with(f[4], "/etc/") ||
		         probe_starts_with(f[4], "/run/secrets"))
			rt = PROBE_VENDOR_NAME(probe_mount_runtimes, f[3], PROBE_SUBSTR);
		/* LXC (and Incus) mount lxcfs over /proc files of a container. */
		else if (probe_starts_with(f[4], "/proc/") && save && strstr(save, "lxcfs"))
			rt = "lxc";
		if (!rt)
			continue;
		char sv[PROBE_VALUE_MAX];
		snprintf(sv, sizeof(sv), "%.90s on %.90s", f[3], f[4]);
		probe_add_signal(sigs, "container.mounts", "/proc/self/mountinfo bind mounts",
		                 PROBE_WEAK, PROBE_KIND_CONTAINER, PROBE_AXIS_CONTAINER, rt, sv);
		return;
	}
}

/* The filesystem type of the last mount on "/" in mountinfo. */
static void probe_container_rootfs(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/proc/self/mountinfo", NULL);
	char fstype[64] = "", source[128] = "", rootf[128] = "";
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		char buf[1024];
		snprintf(buf, sizeof(buf), "%.*s", (int)(eol ? eol - line : (long)strlen(line)),
		         line);
		/* id parent maj:min root mountpoint opts... - fstype source superopts */
		char *f[5] = {0};
		char *save = NULL, *tok = strtok_r(buf, " ", &save);
		for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save))
			f[i] = tok;
		if (f[4] && strcmp(f[4], "/") == 0) {
			char *sep = tok;
			while (sep && strcmp(sep, "-") != 0)
				sep = strtok_r(NULL, " ", &save);
			char *t = sep ? strtok_r(NULL, " ", &save) : NULL;
			char *src = t ? strtok_r(NULL, " ", &save) : NULL;
			if (t) {
				snprintf(fstype, sizeof(fstype), "%s", t);
				snprintf(source, sizeof(source), "%s", src ? src : "");
				snprintf(rootf, sizeof(rootf), "%s", f[3] ? f[3] : "");
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	if (!fstype[0])
		return;
	static const struct probe_vendor container_fs[] = {
	    {"overlay", "", ""},
	    {"aufs", "docker", ""},
	    {"fuse-overlayfs", "podman", ""},
	    {"fuse.fuse-overlayfs", "podman", ""},
	    {"sysboxfs", "sysbox", ""},
	    {"shiftfs", "", ""},
	    {"fuse.sysboxfs", "sysbox", ""},
	    {"9p", "", ""}, /* gVisor's gofer root, Kata's 9p share */
	};
	static const struct probe_vendor disk_fs[] = {
	    {"ext4", "", ""},  {"ext3", "", ""}, {"ext2", "", ""}, {"xfs", "", ""},
	    {"btrfs", "", ""}, {"f2fs", "", ""}, {"jfs", "", ""},  {"reiserfs", "", ""},
	};
	const char *rt = PROBE_VENDOR_NAME(container_fs, fstype, PROBE_EXACT);
	/* A root that is a subdirectory of its filesystem (runc's bundle, LXC's
	 * rootfs) was bind-mounted there; a whole disk as "/" is a machine's. */
	bool bound = rootf[0] && strcmp(rootf, "/") != 0;
	bool disk = !rt && !bound && PROBE_VENDOR(disk_fs, fstype, PROBE_EXACT) &&
	            probe_starts_with(source, "/dev/");
	if (!rt && bound)
		rt = "";
	char sv[PROBE_VALUE_MAX];
	if (bound)
		snprintf(sv, sizeof(sv), "%.40s %.60s root %.80s", fstype, source, rootf);
	else
		snprintf(sv, sizeof(sv), "%s %s", fstype, source);
	probe_rstrip(sv);
	probe_add_signal(sigs, "container.root_fs", "/proc/self/mountinfo", PROBE_WEAK,
	                 rt ? PROBE_KIND_CONTAINER : PROBE_KIND_NONE,
	                 rt || disk ? PROBE_AXIS_CONTAINER : PROBE_AXIS_INFO, rt ? rt : "", sv);
}

static void probe_container_pid1(struct probe_input *in, struct probe_signals *sigs)
{
	const char *pid = probe_read(in, "/.probe/pid", NULL);
	const char *comm = probe_read(in, "/proc/1/comm", NULL);
	char name[64];
	if (!comm)
		return;
	probe_first_line(name, sizeof(name), comm);
	if (!name[0])
		return;
	/* When we are PID 1 the name is ours and says nothing. */
	bool self = pid && strtol(pid, NULL, 10) == 1;
	const char *rt = self ? NULL : PROBE_VENDOR_NAME(probe_pid1_runtimes, name, PROBE_EXACT);
	probe_add_signal(sigs, "container.pid1_comm", "/proc/1/comm", PROBE_WEAK,
	                 rt ? PROBE_KIND_CONTAINER : PROBE_KIND_NONE,
	                 rt ? PROBE_AXIS_CONTAINER : PROBE_AXIS_INFO, rt ? rt : "", name);
}

/* "inside outside count" lines; the initial user namespace maps 0 0 4294967295. */
static void probe_container_uid_map(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/proc/self/uid_map", NULL);
	unsigned lines = 0;
	bool full = false;
	for (const char *line = text; line && *line && lines < 340;) {
		const char *eol = strchr(line, '\n');
		char buf[128], x[32], y[32], z[32], extra[2];
		uint64_t a, b, c;
		snprintf(buf, sizeof(buf), "%.*s", (int)(eol ? eol - line : (long)strlen(line)),
		         line);
		if (sscanf(buf, "%31s %31s %31s %1s", x, y, z, extra) != 3 ||
		    !probe_parse_u64(x, &a) || !probe_parse_u64(y, &b) || !probe_parse_u64(z, &c))
			return; /* garbled: no signal */
		full = lines == 0 && a == 0 && b == 0 && c == 4294967295ull;
		lines++;
		line = eol ? eol + 1 : NULL;
	}
	if (!lines)
		return;
	full = full && lines == 1;
	char sv[PROBE_VALUE_MAX];
	probe_first_line(sv, sizeof(sv), text);
	/* Collapse the column padding. */
	char *w = sv;
	for (const char *r = sv; *r; r++)
		if (*r != ' ' || (w > sv && w[-1] != ' '))
			*w++ = *r;
	*w = '\0';
	/* A full map is also what Docker shows (no user namespace): only a
	 * partial map says something. */
	probe_add_signal(sigs, "container.uid_map", "/proc/self/uid_map", PROBE_WEAK,
	                 full ? PROBE_KIND_NONE : PROBE_KIND_CONTAINER,
	                 full ? PROBE_AXIS_INFO : PROBE_AXIS_CONTAINER, NULL, sv);
}

static void probe_container_capbnd(struct probe_input *in, struct probe_signals *sigs)
{
	const char *status = probe_read(in, "/proc/self/status", NULL);
	char v[32];
	uint64_t cap;
	if (!status || !probe_field(v, sizeof(v), status, "CapBnd"))
		return;
	char hex[40];
	snprintf(hex, sizeof(hex), "0x%s", v);
	if (!probe_parse_u64(hex, &cap))
		return;
	/* Runtimes drop CAP_SYS_ADMIN (21) from the bounding set; a full set
	 * proves nothing (privileged containers keep it). Some default sets
	 * name their runtime. */
	static const struct {
		uint64_t set;
		const char *runtime;
	} defaults[] = {
	    {0x20000420ull, "runc"},   /* `runc spec`: KILL, NET_BIND_SERVICE, AUDIT_WRITE */
	    {0xa80425fbull, "docker"}, /* Docker's (and containerd's) default set */
	    {0x800405fbull, "podman"}, /* Podman's default set */
	};
	const char *rt = "";
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (cap == defaults[i].set)
			rt = defaults[i].runtime;
	bool no_admin = !(cap & (1ull << 21));
	probe_add_signal(sigs, "container.cap_bounding", "/proc/self/status CapBnd", PROBE_WEAK,
	                 no_admin ? PROBE_KIND_CONTAINER : PROBE_KIND_NONE,
	                 no_admin ? PROBE_AXIS_CONTAINER : PROBE_AXIS_INFO, no_admin ? rt : "", v);
}

void probe_sig_container(struct probe_input *in, struct probe_signals *sigs)
{
	probe_container_ns(in, sigs);
	probe_container_cgroup(in, sigs);
	probe_container_mounts(in, sigs);
	probe_container_rootfs(in, sigs);
	probe_container_pid1(in, sigs);
	probe_container_uid_map(in, sigs);
	probe_container_capbnd(in, sigs);
	probe_sig_container_named(in, sigs);
}
