/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_virt.c - virtualization markers: is there a hardware VM boundary, and
 * which VMM/hypervisor draws it.
 *
 * After systemd's src/basic/virt.c: vendor strings are tables, one small
 * function per evidence source. Unlike systemd we keep every source as a
 * signal instead of stopping at the first hit, and we weigh them: CPUID is
 * read with the instruction (strong: nothing in a container image changes
 * it); DMI, ACPI, sysfs and the command line are reported by the innermost
 * kernel (weak, and meaningless inside gVisor, whose sysfs is synthetic).
 * Device and command-line markers are in sig_virt_bus.c.
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

/* CPUID 0x40000000 EBX:ECX:EDX, 12 bytes, NUL-padded (systemd's vm_table). */
static const struct probe_vendor probe_cpuid_vendors[] = {
    {"KVMKVMKVM", "", "kvm"},
    {"Linux KVM Hv", "", "kvm"}, /* KVM with Hyper-V enlightenments */
    {"TCGTCGTCGTCG", "qemu", "tcg"},
    {"Microsoft Hv", "hyperv", "hyperv"},
    {"VMwareVMware", "vmware", "vmware"},
    {"XenVMMXenVMM", "xen", "xen"},
    {"bhyve bhyve ", "bhyve", "bhyve"},
    {"BHyVE BHyVE ", "bhyve", "bhyve"},
    {"LKVMLKVMLKVM", "kvmtool", "kvm"},
    {"ACRNACRNACRN", "acrn", "acrn"},
    {"QNXQVMBSQG", "qnx", "qnx"},
    {"VirtualApple", "apple", "apple"},
    {"Apple VZ", "apple", "apple"},
    {"SRESRESRESRE", "sre", "sre"},
    {"VBoxVBoxVBox", "virtualbox", "virtualbox"},
    {"prl hyperv  ", "parallels", "parallels"},
    {" lrpepyh  vr", "parallels", "parallels"},
    {"Jailhouse", "jailhouse", "jailhouse"},
    {"xhyve xhyve ", "xhyve", "bhyve"},
    {"HAXMHAXMHAXM", "haxm", "haxm"},
    {"___ NVMM ___", "nvmm", "nvmm"},
    {"OpenBSDVMM58", "openbsd-vmm", "openbsd-vmm"},
    {"EVMMEVMMEVMM", "evmm", "evmm"},
    {"UnisysSpar64", "unisys-spar", "unisys-spar"},
};

/*
 * DMI as vendor and product tuples (systemd's dmi_vendor_table, virt-what,
 * hpc-sandbox-benchmarks' rules). The vendor is matched as a prefix of
 * sys_vendor (and, when the product does not matter, of board_vendor and
 * bios_vendor); the product as a prefix of product_name, or a suffix when it
 * starts with '*'. A vendor that also sells hardware (Microsoft, Oracle, Red
 * Hat, Amazon) only counts with its VM product. First match wins.
 */
struct probe_dmi_rule {
	const char *vendor;  /* NULL: any */
	const char *product; /* NULL: any; "*x": ends with x */
	bool vm;             /* false: a bare-metal tuple (evidence against) */
	const char *name, *hypervisor;
};
static const struct probe_dmi_rule probe_dmi_rules[] = {
    {"Amazon EC2", "*.metal", false, "amazon", ""},
    {"Amazon EC2", NULL, true, "amazon", "kvm"},
    {"Microsoft Corporation", "Virtual Machine", true, "hyperv", "hyperv"},
    {"Oracle Corporation", "VirtualBox", true, "virtualbox", "virtualbox"},
    {"Red Hat", "RHEV Hypervisor", true, "ovirt", "kvm"},
    {"Red Hat", "KVM", true, "ovirt", "kvm"},
    {"Red Hat", "OpenStack", true, "openstack", "kvm"},
    {"Apple Inc.", "Apple Virtualization", true, "apple", "apple"},
    {NULL, "Apple Virtualization", true, "apple", "apple"},
    {NULL, "OpenStack", true, "openstack", "kvm"},
    {NULL, "KVM", true, "qemu", "kvm"},
    {NULL, "VirtualBox", true, "virtualbox", "virtualbox"},
    {NULL, "Google Compute Engine", true, "google", "kvm"},
    {NULL, "cloud-hypervisor", true, "cloud-hypervisor", "kvm"},
    {NULL, "HVM domU", true, "xen", "xen"},
    {NULL, "BHYVE", true, "bhyve", "bhyve"},
    {NULL, "VMware", true, "vmware", "vmware"},
    {"Cloud Hypervisor", NULL, true, "cloud-hypervisor", "kvm"},
    {"Firecracker", NULL, true, "firecracker", "kvm"},
    {"QEMU", NULL, true, "qemu", ""},
    {"Bochs", NULL, true, "qemu", ""},
    {"KVM", NULL, true, "qemu", "kvm"},
    {"OpenStack", NULL, true, "openstack", "kvm"},
    {"RDO", "OpenStack", true, "openstack", "kvm"},
    {"KubeVirt", NULL, true, "kubevirt", "kvm"},
    {"Nutanix", "AHV", true, "nutanix", "kvm"},
    {"oVirt", NULL, true, "ovirt", "kvm"},
    {"UpCloud", NULL, true, "upcloud", "kvm"},
    {"DigitalOcean", NULL, true, "digitalocean", "kvm"},
    {"Hetzner", "vServer", true, "hetzner", "kvm"},
    {"HUAWEICLOUD", NULL, true, "huawei", "kvm"},
    {"Exoscale", NULL, true, "exoscale", "kvm"},
    {"Linode", NULL, true, "linode", "kvm"},
    {"Vultr", NULL, true, "vultr", "kvm"},
    {"Scaleway", NULL, true, "scaleway", "kvm"},
    {"Alibaba Cloud", NULL, true, "alibaba", "kvm"},
    {"Tencent Cloud", NULL, true, "tencent", "kvm"},
    {"Google", "Google", true, "google", "kvm"},
    {"VMware", NULL, true, "vmware", "vmware"},
    {"VMW", NULL, true, "vmware", "vmware"},
    {"innotek GmbH", NULL, true, "virtualbox", "virtualbox"},
    {"Xen", NULL, true, "xen", "xen"},
    {"Parallels", NULL, true, "parallels", "parallels"},
    {"BHYVE", NULL, true, "bhyve", "bhyve"},
    /* OVMF is virtual firmware; its BIOS vendor names no VMM. */
    {"EFI Development Kit II / OVMF", NULL, true, "", ""},
};

/* ACPI OEM ID (6 bytes) or OEM table ID (8 bytes), prefix match. AMAZON
 * writes the tables of metal instances too: not listed. */
static const struct probe_vendor probe_acpi_vendors[] = {
    {"FIRECK", "firecracker", "kvm"},
    {"FCVM", "firecracker", "kvm"},
    {"CLOUDH", "cloud-hypervisor", "kvm"},
    {"CROSVM", "crosvm", "kvm"},
    {"LIBKRUN", "libkrun", "kvm"},
    {"KRUN", "libkrun", "kvm"},
    {"BOCHS", "qemu", ""},
    {"BXPC", "qemu", ""},
    {"VRTUAL", "hyperv", "hyperv"},
    {"MSFTVM", "hyperv", "hyperv"},
    {"Xen", "xen", "xen"},
    {"VMWARE", "vmware", "vmware"},
    {"VBOX", "virtualbox", "virtualbox"},
    {"Google", "google", "kvm"},
    {"GOOGLE", "google", "kvm"},
    {"PRLS", "parallels", "parallels"},
    {"BHYVE", "bhyve", "bhyve"},
};

/*
 * CPUID, leaf by leaf: a capture written by another tool may lack leaf 0
 * (then its maximum is unknown, not zero) or leaf 1 (then only the vendor
 * leaf speaks). A known signature at 0x40000000 is a hypervisor whatever
 * leaf 1 says: bare metal answers hypervisor leaves with unrelated data.
 */
static void probe_virt_cpuid(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/cpuid", NULL);
	uint32_t r0[4], r1[4], rh[4], rk[4];
	if (!text)
		return;
	bool have0 = probe_cpuid_leaf(text, 0, r0);
	bool have1 = probe_cpuid_leaf(text, 1, r1) && (!have0 || r0[0] >= 1);
	bool bit = have1 && (r1[2] >> 31) & 1;

	char v[13] = "", v2[13] = "";
	const struct probe_vendor *hit = NULL;
	bool haveh = probe_cpuid_leaf(text, 0x40000000, rh);
	if (haveh && (bit || !have1)) {
		probe_cpuid_signature(rh, v);
		hit = PROBE_VENDOR(probe_cpuid_vendors, v, PROBE_EXACT);
	} else if (haveh) {
		/* Bit clear: only a known signature counts (hidden-bit VMs). */
		probe_cpuid_signature(rh, v);
		hit = PROBE_VENDOR(probe_cpuid_vendors, v, PROBE_EXACT);
		if (!hit)
			haveh = false;
	}
	/* KVM (or Xen) shows "Microsoft Hv" first when it offers Hyper-V
	 * enlightenments, and its own signature at 0x40000100. */
	if (haveh && probe_cpuid_leaf(text, 0x40000100, rk)) {
		probe_cpuid_signature(rk, v2);
		const struct probe_vendor *k = PROBE_VENDOR(probe_cpuid_vendors, v2, PROBE_EXACT);
		if (k)
			hit = k;
		else
			v2[0] = '\0';
	}
	if (have1) {
		/* A signature answers for itself when the bit is hidden (axis). */
		probe_add_signal(sigs, "virt.cpuid_hypervisor_bit", "cpuid leaf 0x1 ecx bit 31",
		                 PROBE_STRONG, bit ? PROBE_KIND_VM : PROBE_KIND_NONE,
		                 bit || !hit ? PROBE_AXIS_VM : PROBE_AXIS_INFO, NULL,
		                 bit ? "1" : "0");
	}
	if (!haveh)
		return;
	struct probe_signal t = {
	    .id = "virt.cpuid_vendor",
	    .family = PROBE_FAM_VIRT,
	    .source = "cpuid leaf 0x40000000",
	    .weight = PROBE_STRONG,
	    /* A blank leaf with the bit set is what gVisor shows: no claim. */
	    .supports = hit ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = hit ? PROBE_AXIS_VM : PROBE_AXIS_INFO,
	    .vendor = hit ? hit->vendor : "",
	    .hypervisor = hit ? hit->hypervisor : "",
	};
	if (v2[0])
		snprintf(t.value, sizeof(t.value), "%s/%s", v, v2);
	else
		probe_strlcpy(t.value, sizeof(t.value), v);
	probe_add(sigs, &t);
}

static bool probe_dmi_product_fits(const char *pattern, const char *product)
{
	if (!pattern)
		return true;
	if (pattern[0] == '*') {
		size_t pl = strlen(pattern + 1), l = strlen(product);
		return l >= pl && strcmp(product + l - pl, pattern + 1) == 0;
	}
	return probe_starts_with(product, pattern);
}

/* Does rule d recognise the fields (sys_vendor, product_name, board_vendor,
 * bios_vendor)? */
static bool probe_dmi_rule_fits(const struct probe_dmi_rule *d, char f[4][80])
{
	if (!probe_dmi_product_fits(d->product, f[1]) || (!d->vendor && !f[1][0]))
		return false;
	/* Vendor fields: sys_vendor; the others too when the product does not
	 * matter (Hyper-V's board_vendor, bhyve's bios_vendor). */
	for (size_t i = 0; i < 4; i++) {
		if (i == 1 || (i > 0 && d->product))
			continue;
		if (!d->vendor || (f[i][0] && probe_starts_with(f[i], d->vendor)))
			return true;
	}
	return false;
}

struct probe_dmi_log {
	char line[80];
};

/* "DMI: <sys_vendor> <product_name>/<board_name>, BIOS ..." as the kernel
 * prints it at boot; keeps "<sys_vendor> <product_name>". */
static bool probe_dmi_log_line(const char *line, size_t len, void *arg)
{
	struct probe_dmi_log *d = arg;
	const char *end = line + len, *p = NULL;
	for (const char *q = line; q + 5 <= end; q++)
		if (memcmp(q, "DMI: ", 5) == 0) {
			p = q + 5;
			break;
		}
	if (!p)
		return true;
	size_t n = 0;
	while (p + n < end && p[n] != '/' && !(p[n] == ',' && p + n + 1 < end && p[n + 1] == ' ') &&
	       n < sizeof(d->line) - 1) {
		d->line[n] = (unsigned char)p[n] < 0x20 || (unsigned char)p[n] > 0x7e ? '?' : p[n];
		n++;
	}
	d->line[n] = '\0';
	return false;
}

/*
 * The DMI tuple: one signal, voting only when a rule recognises it. From
 * sysfs, or else from the kernel's "DMI:" boot line, where vendor and
 * product are separated by a blank that every split point is tried at.
 */
static void probe_virt_dmi(struct probe_input *in, struct probe_signals *sigs)
{
	static const char *const paths[] = {
	    "/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name",
	    "/sys/class/dmi/id/board_vendor", "/sys/class/dmi/id/bios_vendor"};
	char f[4][80];
	bool any = false;
	for (size_t i = 0; i < 4; i++) {
		const char *text = probe_read(in, paths[i], NULL);
		probe_first_line(f[i], sizeof(f[i]), text ? text : "");
		for (char *c = f[i]; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
				*c = '?';
		any |= f[i][0] != '\0';
	}
	const struct probe_dmi_rule *hit = NULL;
	const char *source = "/sys/class/dmi/id";
	struct probe_dmi_log log = {""};
	if (!any) {
		probe_each_line(probe_read(in, "/.probe/kmsg", NULL), probe_dmi_log_line, &log);
		if (!log.line[0])
			return;
		source = "kernel log DMI line";
	}
	for (size_t r = 0; r < sizeof(probe_dmi_rules) / sizeof(probe_dmi_rules[0]) && !hit; r++) {
		if (any) {
			if (probe_dmi_rule_fits(&probe_dmi_rules[r], f))
				hit = &probe_dmi_rules[r];
			continue;
		}
		for (size_t k = 0; log.line[k] && !hit; k++) {
			if (log.line[k] != ' ')
				continue;
			char g[4][80] = {"", "", "", ""};
			memcpy(g[0], log.line, k);
			probe_strlcpy(g[1], sizeof(g[1]), log.line + k + 1);
			if (probe_dmi_rule_fits(&probe_dmi_rules[r], g))
				hit = &probe_dmi_rules[r];
		}
	}
	struct probe_signal s = {
	    .id = "virt.dmi",
	    .family = PROBE_FAM_VIRT,
	    .source = source,
	    .weight = PROBE_STRONG,
	    .supports = hit && hit->vm ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    /* An unrecognised tuple is no evidence either way. */
	    .axis = hit ? PROBE_AXIS_VM : PROBE_AXIS_INFO,
	    .vendor = hit ? hit->name : "",
	    .hypervisor = hit ? hit->hypervisor : "",
	    .kernel_reported = true,
	};
	if (any)
		snprintf(s.value, sizeof(s.value), "%.60s / %.60s / %.30s / %.30s", f[0], f[1],
		         f[2], f[3]);
	else
		probe_strlcpy(s.value, sizeof(s.value), log.line);
	probe_add(sigs, &s);
}

/* OEM ID and table ID of one "ACPI: DSDT 0x... 000F53 (v02 FIRECK FCVMDSDT ..." line
 * (len bytes, not NUL-terminated). */
static bool probe_acpi_from_log_line(const char *line, size_t len, char oem[7], char table[9])
{
	const char *end = line + len, *p = NULL;
	for (const char *q = line; q + 6 <= end; q++)
		if (memcmp(q, "ACPI: ", 6) == 0) {
			p = q;
			break;
		}
	/* The RSDP line carries no table id: the next lines name both. */
	if (!p || (p + 11 <= end && memcmp(p + 6, "RSDP ", 5) == 0))
		return false;
	const char *v = NULL;
	for (const char *q = p; q + 3 <= end; q++)
		if (memcmp(q, " (v", 3) == 0) {
			v = q + 3;
			break;
		}
	if (!v || v + 3 > end ||
	    !(v[0] >= '0' && v[0] <= '9' && v[1] >= '0' && v[1] <= '9' && v[2] == ' '))
		return false;
	p = v + 3;
	size_t n;
	for (n = 0; n < 6 && p + n < end && p[n] != ')'; n++)
		oem[n] = p[n];
	oem[n] = '\0';
	table[0] = '\0';
	if (n == 6 && p + 6 < end && p[6] == ' ') {
		for (n = 0; n < 8 && p + 7 + n < end && p[7 + n] != ')'; n++)
			table[n] = p[7 + n];
		table[n] = '\0';
	}
	for (char *c = oem; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	for (char *c = table; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	probe_rstrip(oem);
	probe_rstrip(table);
	return oem[0] != '\0';
}

static const struct probe_vendor *probe_acpi_match(const char *oem, const char *table)
{
	const struct probe_vendor *hit = PROBE_VENDOR(probe_acpi_vendors, oem, PROBE_PREFIX);
	return hit ? hit : PROBE_VENDOR(probe_acpi_vendors, table, PROBE_PREFIX);
}

struct probe_acpi_scan {
	char oem[7], table[9], first_oem[7], first_table[9];
	const struct probe_vendor *hit;
	bool any;
	unsigned lines;
};

static bool probe_acpi_line(const char *line, size_t len, void *arg)
{
	struct probe_acpi_scan *a = arg;
	if (probe_acpi_from_log_line(line, len, a->oem, a->table)) {
		a->hit = probe_acpi_match(a->oem, a->table);
		if (!a->any) {
			memcpy(a->first_oem, a->oem, sizeof(a->oem));
			memcpy(a->first_table, a->table, sizeof(a->table));
			a->any = true;
		}
	}
	return !a->hit;
}

/*
 * ACPI OEM ids name the VMM that wrote the tables (Firecracker: FIRECK,
 * Cloud Hypervisor: CLOUDH, QEMU: BOCHS/BXPC). From the boot log when we may
 * read it, else from the table headers in sysfs (root only). An OEM id we do
 * not know is recorded but does not vote.
 */
static void probe_virt_acpi(struct probe_input *in, struct probe_signals *sigs)
{
	static const char *const tables[] = {"/sys/firmware/acpi/tables/DSDT",
	                                     "/sys/firmware/acpi/tables/FACP",
	                                     "/sys/firmware/acpi/tables/APIC"};
	struct probe_acpi_scan a = {0};
	const char *source = "kernel log";
	probe_each_line(probe_read(in, "/.probe/kmsg", NULL), probe_acpi_line, &a);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !a.hit; i++) {
		size_t len;
		const char *h = probe_read_head(in, tables[i], 36, &len);
		if (!h || len < 24)
			continue;
		/* The header as the log would print it; NUL padding as blanks. */
		char line[30];
		memcpy(line, "ACPI: X (v01 ", 13);
		for (size_t j = 0; j < 6; j++)
			line[13 + j] = h[10 + j] ? h[10 + j] : ' ';
		line[19] = ' ';
		for (size_t j = 0; j < 8 && 16 + j < len; j++)
			line[20 + j] = h[16 + j] ? h[16 + j] : ' ';
		for (size_t j = len > 16 ? len - 16 : 0; j < 8; j++)
			line[20 + j] = ' ';
		line[28] = ')';
		line[29] = '\0';
		bool was_any = a.any;
		probe_acpi_line(line, 29, &a);
		if (a.hit || !was_any)
			source = tables[i];
	}
	if (!a.any)
		return;
	if (!a.hit) {
		memcpy(a.oem, a.first_oem, sizeof(a.oem));
		memcpy(a.table, a.first_table, sizeof(a.table));
	}
	struct probe_signal s = {
	    .id = "virt.acpi_oem",
	    .family = PROBE_FAM_VIRT,
	    .source = source,
	    .weight = PROBE_STRONG,
	    .supports = a.hit ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = a.hit ? PROBE_AXIS_VM : PROBE_AXIS_INFO,
	    .vendor = a.hit ? a.hit->vendor : "",
	    .hypervisor = a.hit ? a.hit->hypervisor : "",
	    .kernel_reported = true,
	};
	snprintf(s.value, sizeof(s.value), "%s %s", a.oem, a.table);
	probe_rstrip(s.value);
	probe_add(sigs, &s);
}

/* The cpuinfo "hypervisor" flag: the kernel's view of CPUID, useful in a
 * replay without .probe/cpuid. x86 only (other architectures have no such
 * flag, and its absence there says nothing). */
struct probe_flags_scan {
	bool seen, hv;
};

static bool probe_flags_line(const char *line, size_t len, void *arg)
{
	struct probe_flags_scan *f = arg;
	if (len < 6 || memcmp(line, "flags", 5) != 0 ||
	    (line[5] != ' ' && line[5] != '\t' && line[5] != ':'))
		return true;
	f->seen = true;
	for (size_t i = 0; i + 10 <= len; i++)
		if (memcmp(line + i, "hypervisor", 10) == 0 && i > 0 &&
		    (line[i - 1] == ' ' || line[i - 1] == '\t') &&
		    (i + 10 == len || line[i + 10] == ' ')) {
			f->hv = true;
			break;
		}
	return false; /* the first CPU is enough */
}

static void probe_virt_cpuinfo(struct probe_input *in, struct probe_signals *sigs)
{
	struct probe_flags_scan f = {0};
	probe_each_line(probe_read(in, "/proc/cpuinfo", NULL), probe_flags_line, &f);
	if (!f.seen)
		return;
	probe_add_signal(sigs, "virt.cpuinfo_hypervisor", "/proc/cpuinfo flags", PROBE_STRONG,
	                 f.hv ? PROBE_KIND_VM : PROBE_KIND_NONE, PROBE_AXIS_VM, NULL,
	                 f.hv ? "hypervisor" : "absent");
}

void probe_sig_virt(struct probe_input *in, struct probe_signals *sigs)
{
	/* Precedence for naming is in classify.c; order here is the report's. */
	probe_virt_cpuid(in, sigs);
	probe_virt_acpi(in, sigs);
	probe_virt_dmi(in, sigs);
	probe_sig_virt_pv(in, sigs);
	probe_virt_cpuinfo(in, sigs);
	probe_sig_cvm(in, sigs);
	probe_sig_virt_bus(in, sigs);
}
