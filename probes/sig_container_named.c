/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_container_named.c - container markers that name themselves: files a
 * runtime writes (/.dockerenv, /run/.containerenv, /.flatpak-info, /run/systemd/container,
 * container= in PID 1's environment), and boundaries the kernel names
 * without namespaces (NSpid, Linux-VServer's VxID, OpenVZ's /proc/vz,
 * Sysbox's sysboxfs, illumos LX zones' uname). Split from sig_container.c.
 */
#include "probe.h"

#include <string.h>

/* Names a runtime writes into container=, /run/systemd/container... */
static const struct probe_vendor probe_runtime_names[] = {
    {"docker", "docker", ""},
    {"podman", "podman", ""},
    {"oci", "oci", ""},
    {"lxc-libvirt", "lxc", ""},
    {"lxc", "lxc", ""},
    {"systemd-nspawn", "systemd-nspawn", ""},
    {"rkt", "rkt", ""},
    {"wsl", "wsl", ""},
    {"proot", "proot", ""},
    {"pouch", "pouch", ""},
    {"kubernetes", "kubernetes", ""},
    {"crio", "cri-o", ""},
    {"cri-o", "cri-o", ""},
    {"bubblewrap", "bubblewrap", ""},
    {"flatpak", "flatpak", ""},
    {"zone", "lx-zone", ""},
    {"sysbox", "sysbox", ""},
    {"openvz", "openvz", ""},
};

/* A runtime name from text that names it; "unknown" for a plausible but
 * unlisted name; NULL for garbage (a garbled input is no signal). */
static const char *probe_runtime_from_text(const char *text, size_t len)
{
	char name[64];
	if (len > 256)
		return NULL;
	probe_first_line(name, sizeof(name), text);
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return NULL;
	const char *rt = PROBE_VENDOR_NAME(probe_runtime_names, name, PROBE_EXACT);
	return rt ? rt : "unknown";
}

static void probe_container_files(struct probe_input *in, struct probe_signals *sigs)
{
	static const struct {
		const char *id, *path, *runtime; /* NULL runtime: read it from the file */
	} files[] = {
	    {"container.dockerenv", "/.dockerenv", "docker"},
	    {"container.containerenv", "/run/.containerenv", "podman"},
	    {"container.flatpak_info", "/.flatpak-info", "flatpak"},
	    {"container.systemd_container", "/run/systemd/container", NULL},
	    {"container.host_manager", "/run/host/container-manager", NULL},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		const char *text = probe_read(in, files[i].path, &len);
		const char *rt = files[i].runtime;
		if (!text || (!rt && !(rt = probe_runtime_from_text(text, len))))
			continue;
		struct probe_signal s = {
		    .id = files[i].id,
		    .family = PROBE_FAM_CONTAINER,
		    .source = files[i].path,
		    .weight = PROBE_WEAK,
		    .supports = PROBE_KIND_CONTAINER,
		    .axis = PROBE_AXIS_CONTAINER,
		    .vendor = rt,
		};
		if (len)
			probe_first_line(s.value, sizeof(s.value), text);
		else
			snprintf(s.value, sizeof(s.value), "present");
		probe_add(sigs, &s);
	}
	/* container= in PID 1's environment (NUL-separated). */
	size_t len;
	const char *env = probe_read(in, "/proc/1/environ", &len);
	for (size_t off = 0; env && off < len;) {
		const char *e = env + off;
		size_t n = strnlen(e, len - off);
		if (n > 10 && strncmp(e, "container=", 10) == 0) {
			char val[64];
			snprintf(val, sizeof(val), "%.*s", (int)(n - 10 < 63 ? n - 10 : 63),
			         e + 10);
			const char *rt = probe_runtime_from_text(val, n - 10);
			if (!rt)
				break;
			probe_add_signal(sigs, "container.pid1_environ",
			                 "/proc/1/environ container=", PROBE_WEAK,
			                 PROBE_KIND_CONTAINER, PROBE_AXIS_CONTAINER, rt, val);
			break;
		}
		off += n + 1;
	}
}

static void probe_container_add(struct probe_signals *sigs, const char *id, const char *source,
                                const char *value, enum probe_weight w, const char *vendor)
{
	probe_add_signal(sigs, id, source, w, PROBE_KIND_CONTAINER, PROBE_AXIS_CONTAINER, vendor,
	                 value);
}

/*
 * Boundaries the kernel itself names without namespaces: NSpid lists our
 * pid in every PID namespace from the /proc mounter's down (more than one:
 * nested); Linux-VServer's VxID is the guest context (0 = host); OpenVZ
 * has /proc/vz everywhere but /proc/bc only on the host node; Sysbox
 * mounts its sysboxfs over /proc and /sys; illumos LX zones answer uname
 * with "BrandZ virtual linux".
 */
static void probe_container_kernel_named(struct probe_input *in, struct probe_signals *sigs)
{
	const char *status = probe_read(in, "/proc/self/status", NULL);
	char v[96];
	uint64_t n;
	if (status && probe_field(v, sizeof(v), status, "NSpid")) {
		unsigned fields = 0;
		bool ok = true;
		for (const char *p = v; *p;) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			if (*p < '0' || *p > '9')
				ok = false;
			while (*p && *p != ' ' && *p != '\t')
				p++;
			fields++;
		}
		if (ok && fields > 1)
			probe_container_add(sigs, "container.nspid", "/proc/self/status NSpid", v,
			                    PROBE_STRONG, "");
	}
	if (status && probe_field(v, sizeof(v), status, "VxID") && probe_parse_u64(v, &n) && n > 0)
		probe_container_add(sigs, "container.vxid", "/proc/self/status VxID", v,
		                    PROBE_STRONG, "linux-vserver");
	if (probe_path_exists(in, "/proc/vz") && !probe_path_exists(in, "/proc/bc"))
		probe_container_add(sigs, "container.openvz", "/proc/vz",
		                    "/proc/vz without /proc/bc", PROBE_STRONG, "openvz");
	/* "comm (PID, #threads: N)": kernels before 4.14 print PID 1's pid in
	 * the initial PID namespace, so anything but 1 means a nested one. */
	const char *sched = probe_read(in, "/proc/1/sched", NULL);
	if (sched) {
		char line[96];
		probe_first_line(line, sizeof(line), sched);
		const char *open = strrchr(line, '(');
		uint64_t pid;
		char num[24];
		size_t k = 0;
		if (open)
			for (open++; *open >= '0' && *open <= '9' && k < sizeof(num) - 1; open++)
				num[k++] = *open;
		num[k] = '\0';
		if (open && *open == ',' && probe_parse_u64(num, &pid) && pid > 1)
			probe_container_add(sigs, "container.pid1_sched", "/proc/1/sched", line,
			                    PROBE_STRONG, "");
	}
	const char *mi = probe_read(in, "/proc/self/mountinfo", NULL);
	if (mi && strstr(mi, "sysboxfs"))
		probe_container_add(sigs, "container.sysboxfs", "/proc/self/mountinfo",
		                    "sysboxfs mounted", PROBE_STRONG, "sysbox");
	char a[64], b[64], c[128], e[64];
	char *const f[5] = {a, b, c, v, e};
	const size_t sz[5] = {sizeof(a), sizeof(b), sizeof(c), sizeof(v), sizeof(e)};
	probe_uname_fields(probe_read(in, "/.probe/uname", NULL), f, sz);
	if (probe_starts_with(v, "BrandZ"))
		probe_container_add(sigs, "container.kernel_brand", "uname(2) version", v,
		                    PROBE_WEAK, "lx-zone");
}

void probe_sig_container_named(struct probe_input *in, struct probe_signals *sigs)
{
	probe_container_files(in, sigs);
	probe_container_kernel_named(in, sigs);
}
