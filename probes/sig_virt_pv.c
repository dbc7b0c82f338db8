/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_virt_pv.c - the platform naming itself to the kernel outside CPUID and
 * the firmware tables: Xen's hypervisor interface (/sys/hypervisor,
 * /proc/xen), /proc/cpuinfo of paravirtual kernels (User-mode Linux, PowerVM
 * Lx86) and QEMU's CPU models, the device tree's hypervisor node (arm), the
 * kernel's own boot lines ("Hypervisor detected", "Booting paravirtualized
 * kernel on", Firecracker's MP table) and WSL2's kernel release.
 *
 * After systemd's src/basic/virt.c (detect_vm_xen, detect_vm_uml,
 * detect_vm_device_tree) and virt-what. Xen PV, UML and Lx86 are
 * `paravirt`: user-space CPUID there is the host's, so a clear hypervisor
 * bit is no evidence against them.
 */
#include "probe.h"

#include <string.h>

static void probe_pv_add(struct probe_signals *sigs, const char *id, const char *source,
                         const char *value, bool vm, const char *vendor, const char *hv,
                         bool paravirt)
{
	struct probe_signal s = {
	    .id = id,
	    .family = PROBE_FAM_VIRT,
	    .source = source,
	    .weight = PROBE_STRONG,
	    .supports = vm ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = PROBE_AXIS_VM,
	    .vendor = vendor,
	    .hypervisor = hv,
	    .kernel_reported = true,
	    .paravirt = paravirt,
	};
	probe_strlcpy(s.value, sizeof(s.value), value);
	for (char *c = s.value; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	probe_add(sigs, &s);
}

static void probe_pv_xen(struct probe_input *in, struct probe_signals *sigs)
{
	char val[64];
	const char *text = probe_read(in, "/sys/hypervisor/type", NULL);
	probe_first_line(val, sizeof(val), text ? text : "");
	if (val[0]) {
		bool xen = strcmp(val, "xen") == 0;
		probe_pv_add(sigs, "virt.sys_hypervisor", "/sys/hypervisor/type", val, true,
		             xen ? "xen" : "", xen ? "xen" : "", xen);
	}
	size_t len;
	const char *caps = probe_read(in, "/proc/xen/capabilities", &len);
	bool dir = caps || probe_path_exists(in, "/proc/xen");
	if (!dir)
		return;
	bool dom0 = caps && probe_line_has(caps, len, "control_d");
	probe_pv_add(sigs, "virt.xen_capabilities", caps ? "/proc/xen/capabilities" : "/proc/xen",
	             dom0 ? "dom0 (control_d)" : "domU", true, "xen", "xen", true);
}

struct probe_cpuinfo_scan {
	const char *vendor, *hv, *value;
	bool paravirt;
	char line[120];
};

static bool probe_cpuinfo_line(const char *line, size_t len, void *arg)
{
	struct probe_cpuinfo_scan *c = arg;
	if (len == 0)
		return false; /* end of the first CPU */
	bool vend = len > 9 && memcmp(line, "vendor_id", 9) == 0;
	bool model = len > 10 && memcmp(line, "model name", 10) == 0;
	if (!vend && !model)
		return true;
	if (vend && probe_line_has(line, len, "User Mode Linux")) {
		c->vendor = "uml", c->hv = "uml", c->paravirt = true;
	} else if (vend && probe_line_has(line, len, "PowerVM Lx86")) {
		c->vendor = "powervm-lx86", c->hv = "powervm", c->paravirt = true;
	} else if (model && probe_line_has(line, len, "QEMU Virtual CPU") && !c->vendor) {
		c->vendor = "qemu", c->hv = "";
	} else if (model && len >= 15 && memcmp(line + len - 3, "UML", 3) == 0 && !c->vendor) {
		c->vendor = "uml", c->hv = "uml", c->paravirt = true;
	} else {
		return true;
	}
	snprintf(c->line, sizeof(c->line), "%.*s", (int)(len < 119 ? len : 119), line);
	return !c->paravirt;
}

static void probe_pv_cpuinfo(struct probe_input *in, struct probe_signals *sigs)
{
	struct probe_cpuinfo_scan c = {0};
	probe_each_line(probe_read(in, "/proc/cpuinfo", NULL), probe_cpuinfo_line, &c);
	if (!c.vendor)
		return;
	/* Collapse "vendor_id\t: X" to "vendor_id: X". */
	char *w = c.line;
	for (const char *r = c.line; *r; r++)
		if (*r != '\t' && !(*r == ' ' && r[1] == ':'))
			*w++ = *r;
	*w = '\0';
	probe_pv_add(sigs, "virt.cpuinfo_vendor", "/proc/cpuinfo", c.line, true, c.vendor, c.hv,
	             c.paravirt);
}

/* The rest of the first line of text starting with key, or NULL. */
static const char *probe_pv_dt_line(const char *text, const char *key)
{
	for (const char *line = text; line && *line;) {
		if (probe_starts_with(line, key))
			return line + strlen(key);
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

/* arm and ppc guests: /proc/device-tree/hypervisor/compatible (NUL-separated). */
static void probe_pv_device_tree(struct probe_input *in, struct probe_signals *sigs)
{
	size_t len;
	const char *dt = probe_read(in, "/proc/device-tree/hypervisor/compatible", &len);
	/* PowerVM LPARs (systemd's detect_vm_device_tree): a partition name
	 * and an HMC, and not QEMU's pseries. */
	if ((!dt || !len) && probe_path_exists(in, "/proc/device-tree/ibm,partition-name") &&
	    probe_path_exists(in, "/proc/device-tree/hmc-managed?") &&
	    !probe_path_exists(in, "/proc/device-tree/chosen/qemu,graphic-width")) {
		probe_pv_add(sigs, "virt.device_tree", "/proc/device-tree",
		             "ibm,partition-name hmc-managed?", true, "powervm", "powervm", false);
		return;
	}
	const char *src = "/proc/device-tree/hypervisor/compatible";
	if (!dt || !len) {
		/* The arm64 capture's device tree text (live_arm64.c): its
		 * "hypervisor S1 S2..." line is the same node. */
		const char *tree = probe_read(in, "/.probe/devicetree", NULL);
		dt = tree ? probe_pv_dt_line(tree, "hypervisor ") : NULL;
		len = dt ? strcspn(dt, "\n") : 0;
		src = "/sys/firmware/devicetree hypervisor/compatible";
	}
	if (!dt || !len)
		return;
	char val[64];
	size_t n = len < sizeof(val) - 1 ? len : sizeof(val) - 1;
	for (size_t i = 0; i < n; i++)
		val[i] = dt[i] ? dt[i] : ' ';
	val[n] = '\0';
	probe_rstrip(val);
	const char *vendor = "", *hv = "";
	if (probe_line_has(dt, len, "linux,kvm"))
		hv = "kvm";
	else if (probe_line_has(dt, len, "xen"))
		vendor = "xen", hv = "xen";
	else if (probe_line_has(dt, len, "vmware"))
		vendor = "vmware", hv = "vmware";
	probe_pv_add(sigs, "virt.device_tree", src, val, true, vendor, hv, false);
}

/* What the kernel printed about the platform it booted on. */
static const struct {
	const char *text, *vendor, *hv;
	bool vm;
} probe_log_lines[] = {
    {"MPTABLE: OEM ID: FC", "firecracker", "kvm", true},
    {"Hypervisor detected: KVM", "", "kvm", true},
    {"Hypervisor detected: Xen", "xen", "xen", true},
    {"Hypervisor detected: Microsoft Hyper-V", "hyperv", "hyperv", true},
    {"Hypervisor detected: VMware", "vmware", "vmware", true},
    {"Hypervisor detected: ACRN", "acrn", "acrn", true},
    {"Hypervisor detected: Jailhouse", "jailhouse", "jailhouse", true},
    {"Hypervisor detected: Bhyve", "bhyve", "bhyve", true},
    {"Booting paravirtualized kernel on KVM", "", "kvm", true},
    {"Booting paravirtualized kernel on Xen", "xen", "xen", true},
    {"Booting paravirtualized kernel on VMware", "vmware", "vmware", true},
    {"KVM: hypervisor services detected", "", "kvm", true}, /* arm64, smccc */
    {"KVM hypervisor services detected", "", "kvm", true},  /* its older spelling */
    {"Booting paravirtualized kernel on bare hardware", "", "", false},
    /* arm64: a kernel entered at EL2 owns the hardware (a guest starts at EL1). */
    {"CPU: All CPU(s) started at EL2", "", "", false},
};

struct probe_log_scan {
	int best; /* index into probe_log_lines, lowest wins; -1 none */
	int against;
};

static bool probe_log_line(const char *line, size_t len, void *arg)
{
	struct probe_log_scan *l = arg;
	/* Cheap filter: every line we want has one of these words. */
	if (!probe_line_has(line, len, "MPTABLE") && !probe_line_has(line, len, "ypervisor") &&
	    !probe_line_has(line, len, "paravirtualized") &&
	    !probe_line_has(line, len, "started at"))
		return true;
	for (int i = 0; i < (int)(sizeof(probe_log_lines) / sizeof(probe_log_lines[0])); i++) {
		if (!probe_line_has(line, len, probe_log_lines[i].text))
			continue;
		if (!probe_log_lines[i].vm)
			l->against = i;
		else if (l->best < 0 || i < l->best)
			l->best = i;
	}
	return true;
}

static void probe_pv_kernel_log(struct probe_input *in, struct probe_signals *sigs)
{
	struct probe_log_scan l = {-1, -1};
	const char *log = probe_read(in, "/.probe/kmsg", NULL);
	/* gVisor's fake log is not a kernel's: its lines are not read here. */
	if (!log || probe_starts_with(log, "[    0.000000] Starting gVisor"))
		return;
	probe_each_line(log, probe_log_line, &l);
	int i = l.best >= 0 ? l.best : l.against;
	if (i < 0)
		return;
	/* "on Xen" is printed by PV guests (and HVM ones, whose CPUID is
	 * virtualised anyway): one of Xen's paravirtual interfaces. */
	probe_pv_add(sigs, "virt.kernel_log", "kernel log", probe_log_lines[i].text,
	             probe_log_lines[i].vm, probe_log_lines[i].vendor, probe_log_lines[i].hv,
	             strcmp(probe_log_lines[i].vendor, "xen") == 0 &&
	                 probe_starts_with(probe_log_lines[i].text, "Booting"));
}

/* WSL2's kernel: "5.15.167.4-microsoft-standard-WSL2" (a Hyper-V utility VM). */
static void probe_pv_release(struct probe_input *in, struct probe_signals *sigs)
{
	char a[64], b[64], release[128], d[256], e[64];
	char *const f[5] = {a, b, release, d, e};
	const size_t sz[5] = {sizeof(a), sizeof(b), sizeof(release), sizeof(d), sizeof(e)};
	probe_uname_fields(probe_read(in, "/.probe/uname", NULL), f, sz);
	if (!probe_contains_ci(release, "microsoft-standard") &&
	    !probe_contains_ci(release, "WSL2"))
		return;
	probe_add_kernel_signal(sigs, "virt.kernel_release", "uname(2) release", PROBE_WEAK,
	                        PROBE_KIND_VM, PROBE_AXIS_VM, "wsl2", "hyperv", release);
}

/* s390x: /proc/sysinfo names the control program a guest runs under. */
struct probe_sysinfo_scan {
	const char *vendor, *hv;
	char line[96];
};

static bool probe_sysinfo_line(const char *line, size_t len, void *arg)
{
	struct probe_sysinfo_scan *z = arg;
	if (len < 22 || memcmp(line, "VM00 Control Program:", 21) != 0)
		return true;
	if (probe_line_has(line, len, "z/VM"))
		z->vendor = "zvm", z->hv = "zvm";
	else if (probe_line_has(line, len, "KVM"))
		z->vendor = "", z->hv = "kvm";
	else
		z->vendor = "", z->hv = "";
	snprintf(z->line, sizeof(z->line), "%.*s", (int)(len < 95 ? len : 95), line);
	return false;
}

static void probe_pv_sysinfo(struct probe_input *in, struct probe_signals *sigs)
{
	struct probe_sysinfo_scan z = {0};
	probe_each_line(probe_read(in, "/proc/sysinfo", NULL), probe_sysinfo_line, &z);
	if (z.vendor)
		probe_pv_add(sigs, "virt.sysinfo", "/proc/sysinfo", z.line, true, z.vendor, z.hv,
		             false);
}

void probe_sig_virt_pv(struct probe_input *in, struct probe_signals *sigs)
{
	probe_pv_sysinfo(in, sigs);
	probe_pv_xen(in, sigs);
	probe_pv_cpuinfo(in, sigs);
	probe_pv_device_tree(in, sigs);
	probe_pv_kernel_log(in, sigs);
	probe_pv_release(in, sigs);
}
