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

struct probe_vendor {
	const char *match;      /* exact (cpuid) or prefix (dmi, acpi) */
	const char *vendor;     /* the VMM; "" when the string does not tell */
	const char *hypervisor; /* the hypervisor; "" when it does not tell */
};

/* CPUID 0x40000000 EBX:ECX:EDX, 12 bytes, NUL-padded. */
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
};

/* DMI strings, prefix match (sys_vendor, product_name, board_vendor, bios_vendor). */
static const struct probe_vendor probe_dmi_vendors[] = {
    {"Cloud Hypervisor", "cloud-hypervisor", ""},
    {"cloud-hypervisor", "cloud-hypervisor", ""},
    {"Firecracker", "firecracker", "kvm"},
    {"QEMU", "qemu", ""},
    {"Bochs", "qemu", ""},
    {"KVM", "qemu", "kvm"},
    {"OpenStack", "qemu", "kvm"},
    {"KubeVirt", "qemu", "kvm"},
    {"Nutanix", "qemu", "kvm"},
    {"DigitalOcean", "qemu", "kvm"},
    {"Hetzner", "qemu", "kvm"},
    {"Linode", "qemu", "kvm"},
    {"Vultr", "qemu", "kvm"},
    {"Amazon EC2", "amazon", ""},
    {"Google Compute Engine", "google", "kvm"},
    {"Google", "google", "kvm"},
    {"Alibaba Cloud", "alibaba", "kvm"},
    {"VMware", "vmware", "vmware"},
    {"VMW", "vmware", "vmware"},
    {"innotek GmbH", "virtualbox", "virtualbox"},
    {"VirtualBox", "virtualbox", "virtualbox"},
    {"Xen", "xen", "xen"},
    {"HVM domU", "xen", "xen"},
    {"Parallels", "parallels", "parallels"},
    {"BHYVE", "bhyve", "bhyve"},
    {"Virtual Machine", "hyperv", "hyperv"}, /* Hyper-V's product_name */
    {"Hyper-V", "hyperv", "hyperv"},
    {"Apple Virtualization", "apple", "apple"},
};

/* ACPI OEM ID (6 bytes) or OEM table ID (8 bytes), prefix match. */
static const struct probe_vendor probe_acpi_vendors[] = {
    {"FIRECK", "firecracker", "kvm"},
    {"FCVM", "firecracker", "kvm"},
    {"CLOUDH", "cloud-hypervisor", ""},
    {"BOCHS", "qemu", ""},
    {"BXPC", "qemu", ""},
    {"VRTUAL", "hyperv", "hyperv"},
    {"MSFTVM", "hyperv", "hyperv"},
    {"Xen", "xen", "xen"},
    {"VMWARE", "vmware", "vmware"},
    {"VBOX", "virtualbox", "virtualbox"},
    {"AMAZON", "amazon", ""},
    {"Google", "google", "kvm"},
    {"GOOGLE", "google", "kvm"},
    {"PRLS", "parallels", "parallels"},
};

static const struct probe_vendor *probe_vendor_lookup(const struct probe_vendor *t, size_t n,
                                                      const char *s, bool exact)
{
	for (size_t i = 0; i < n; i++) {
		if (exact ? strcmp(s, t[i].match) == 0 : probe_starts_with(s, t[i].match))
			return &t[i];
	}
	return NULL;
}
#define PROBE_LOOKUP(t, s, exact) probe_vendor_lookup(t, sizeof(t) / sizeof(t[0]), s, exact)

/* "0x40000000 0x0 EAX EBX ECX EDX" lines; false when the leaf is absent. */
static bool probe_cpuid_leaf(const char *text, uint32_t leaf, uint32_t r[4])
{
	for (const char *line = text; line && *line;) {
		unsigned long long v[6];
		char *end;
		const char *p = line;
		int i;
		for (i = 0; i < 6; i++) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '-')
				break;
			/* Base 16 accepts an optional 0x: CPUID is always hex. */
			v[i] = strtoull(p, &end, 16);
			if (end == p || v[i] > 0xffffffffull)
				break;
			p = end;
		}
		if (i == 6 && (*p == '\n' || *p == '\0' || *p == ' ' || *p == '\r') &&
		    v[0] == leaf && v[1] == 0) {
			for (i = 0; i < 4; i++)
				r[i] = (uint32_t)v[i + 2];
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* The 12-byte vendor of a hypervisor leaf, NUL-trimmed, printable or "". */
static void probe_cpuid_vendor_string(const uint32_t r[4], char out[13])
{
	memcpy(out, &r[1], 4);
	memcpy(out + 4, &r[2], 4);
	memcpy(out + 8, &r[3], 4);
	out[12] = '\0';
	for (int i = 0; i < 12 && out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			out[i] = '?';
}

static void probe_virt_cpuid(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/cpuid", NULL);
	uint32_t r0[4], r1[4], rh[4];
	if (!text || !probe_cpuid_leaf(text, 0, r0) || !probe_cpuid_leaf(text, 1, r1))
		return;
	bool bit = r0[0] >= 1 && (r1[2] >> 31) & 1;
	struct probe_signal s = {
	    .id = "virt.cpuid_hypervisor_bit",
	    .family = PROBE_FAM_VIRT,
	    .source = "cpuid leaf 0x1 ecx bit 31",
	    .weight = PROBE_STRONG,
	    .supports = bit ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = PROBE_AXIS_VM,
	};
	snprintf(s.value, sizeof(s.value), "%d", bit);
	probe_add(sigs, &s);
	if (!bit || !probe_cpuid_leaf(text, 0x40000000, rh))
		return;

	char v[13], v2[13] = "";
	uint32_t rk[4];
	probe_cpuid_vendor_string(rh, v);
	const struct probe_vendor *hit = PROBE_LOOKUP(probe_cpuid_vendors, v, true);
	/* KVM shows "Microsoft Hv" first when it offers Hyper-V enlightenments
	 * and its own signature at 0x40000100. */
	if (probe_cpuid_leaf(text, 0x40000100, rk)) {
		probe_cpuid_vendor_string(rk, v2);
		const struct probe_vendor *k = PROBE_LOOKUP(probe_cpuid_vendors, v2, true);
		if (k && (!hit || strcmp(k->hypervisor, "kvm") == 0 ||
		          strcmp(k->hypervisor, "tcg") == 0))
			hit = k;
		else
			v2[0] = '\0';
	}
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

static void probe_virt_dmi(struct probe_input *in, struct probe_signals *sigs)
{
	static const struct {
		const char *id, *path;
	} files[] = {
	    {"virt.dmi_sys_vendor", "/sys/class/dmi/id/sys_vendor"},
	    {"virt.dmi_product_name", "/sys/class/dmi/id/product_name"},
	    {"virt.dmi_board_vendor", "/sys/class/dmi/id/board_vendor"},
	    {"virt.dmi_bios_vendor", "/sys/class/dmi/id/bios_vendor"},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *text = probe_read(in, files[i].path, NULL);
		char val[PROBE_VALUE_MAX];
		if (!text)
			continue;
		probe_first_line(val, sizeof(val), text);
		if (!val[0])
			continue;
		const struct probe_vendor *hit = PROBE_LOOKUP(probe_dmi_vendors, val, false);
		struct probe_signal s = {
		    .id = files[i].id,
		    .family = PROBE_FAM_VIRT,
		    .source = files[i].path,
		    .weight = PROBE_WEAK,
		    .supports = hit ? PROBE_KIND_VM : PROBE_KIND_NONE,
		    .axis = PROBE_AXIS_VM,
		    .vendor = hit ? hit->vendor : "",
		    .hypervisor = hit ? hit->hypervisor : "",
		    .kernel_reported = true,
		};
		probe_strlcpy(s.value, sizeof(s.value), val);
		probe_add(sigs, &s);
	}
}

/* OEM ID and table ID of one "ACPI: DSDT 0x... 000F53 (v02 FIRECK FCVMDSDT ..." line. */
static bool probe_acpi_from_log_line(const char *line, char oem[7], char table[9])
{
	/* Within this line only: the log reader stays linear in the log. */
	const char *eol = strchr(line, '\n');
	size_t len = eol ? (size_t)(eol - line) : strlen(line);
	const char *p = memmem(line, len, "ACPI: ", 6);
	/* The RSDP line carries no table id: the next lines name both. */
	if (!p || strncmp(p + 6, "RSDP ", 5) == 0 ||
	    !(p = memmem(p, len - (size_t)(p - line), " (v", 3)))
		return false;
	p += 3;
	if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9' && p[2] == ' '))
		return false;
	p += 3;
	size_t n;
	for (n = 0; n < 6 && p[n] && p[n] != ')' && p[n] != '\n'; n++)
		oem[n] = p[n];
	oem[n] = '\0';
	table[0] = '\0';
	if (n == 6 && p[6] == ' ') {
		for (n = 0; n < 8 && p[7 + n] && p[7 + n] != ')' && p[7 + n] != '\n'; n++)
			table[n] = p[7 + n];
		table[n] = '\0';
	}
	probe_rstrip(oem);
	probe_rstrip(table);
	return oem[0] != '\0';
}

static const struct probe_vendor *probe_acpi_match(const char *oem, const char *table)
{
	const struct probe_vendor *hit = PROBE_LOOKUP(probe_acpi_vendors, oem, false);
	return hit ? hit : PROBE_LOOKUP(probe_acpi_vendors, table, false);
}

static void probe_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

/*
 * ACPI OEM ids name the VMM that wrote the tables (Firecracker: FIRECK,
 * Cloud Hypervisor: CLOUDH, QEMU: BOCHS/BXPC). From the boot log when we may
 * read it, else from the table headers in sysfs (root only).
 */
static void probe_virt_acpi(struct probe_input *in, struct probe_signals *sigs)
{
	static const char *const tables[] = {"/sys/firmware/acpi/tables/DSDT",
	                                     "/sys/firmware/acpi/tables/FACP",
	                                     "/sys/firmware/acpi/tables/APIC"};
	char oem[7] = "", table[9] = "", first_oem[7] = "", first_table[9] = "";
	const char *source = NULL, *first_source = NULL;
	const struct probe_vendor *hit = NULL;
	const char *log = probe_read(in, "/.probe/kmsg", NULL);
	for (const char *line = log; line && *line && !hit;) {
		if (probe_acpi_from_log_line(line, oem, table)) {
			hit = probe_acpi_match(oem, table);
			if (!first_source) {
				memcpy(first_oem, oem, sizeof(oem));
				memcpy(first_table, table, sizeof(table));
				first_source = "kernel log";
			}
			source = "kernel log";
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && !hit; i++) {
		size_t len;
		const char *h = probe_read_head(in, tables[i], 36, &len);
		if (!h || len < 24)
			continue;
		memcpy(oem, h + 10, 6);
		oem[6] = '\0';
		memcpy(table, h + 16, 8);
		table[8] = '\0';
		probe_printable(oem);
		probe_printable(table);
		probe_rstrip(oem);
		probe_rstrip(table);
		hit = probe_acpi_match(oem, table);
		source = tables[i];
		if (!first_source) {
			memcpy(first_oem, oem, sizeof(oem));
			memcpy(first_table, table, sizeof(table));
			first_source = tables[i];
		}
	}
	if (!hit) {
		if (!first_source)
			return;
		memcpy(oem, first_oem, sizeof(oem));
		memcpy(table, first_table, sizeof(table));
		source = first_source;
	}
	struct probe_signal s = {
	    .id = "virt.acpi_oem",
	    .family = PROBE_FAM_VIRT,
	    .source = source,
	    .weight = PROBE_WEAK,
	    .supports = hit ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = PROBE_AXIS_VM,
	    .vendor = hit ? hit->vendor : "",
	    .hypervisor = hit ? hit->hypervisor : "",
	    .kernel_reported = true,
	};
	snprintf(s.value, sizeof(s.value), "%s %s", oem, table);
	probe_rstrip(s.value);
	probe_add(sigs, &s);
}

static void probe_virt_sys_hypervisor(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/sys/hypervisor/type", NULL);
	char val[64];
	if (!text)
		return;
	probe_first_line(val, sizeof(val), text);
	if (!val[0])
		return;
	bool xen = strcmp(val, "xen") == 0;
	struct probe_signal s = {
	    .id = "virt.sys_hypervisor",
	    .family = PROBE_FAM_VIRT,
	    .source = "/sys/hypervisor/type",
	    .weight = PROBE_WEAK,
	    .supports = PROBE_KIND_VM,
	    .axis = PROBE_AXIS_VM,
	    .vendor = xen ? "xen" : "",
	    .hypervisor = xen ? "xen" : "",
	    .kernel_reported = true,
	};
	probe_strlcpy(s.value, sizeof(s.value), val);
	probe_add(sigs, &s);
}

/* The cpuinfo "hypervisor" flag: the kernel's view of CPUID, useful in a
 * replay without .probe/cpuid. */
static void probe_virt_cpuinfo(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/proc/cpuinfo", NULL);
	const char *flags = text;
	/* "flags\t\t: fpu vme ..." on x86; the first CPU is enough. */
	while (flags && *flags && !probe_starts_with(flags, "flags")) {
		flags = strchr(flags, '\n');
		if (flags)
			flags++;
	}
	if (!flags || !*flags)
		return;
	const char *eol = strchr(flags, '\n');
	size_t n = eol ? (size_t)(eol - flags) : strlen(flags);
	bool hv = false;
	for (const char *p = flags; p && p < flags + n; p++) {
		p = strstr(p, " hypervisor");
		if (!p || p >= flags + n)
			break;
		if (p[11] == ' ' || p[11] == '\n' || p[11] == '\0') {
			hv = true;
			break;
		}
	}
	struct probe_signal s = {
	    .id = "virt.cpuinfo_hypervisor",
	    .family = PROBE_FAM_VIRT,
	    .source = "/proc/cpuinfo flags",
	    .weight = PROBE_WEAK,
	    .supports = hv ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = PROBE_AXIS_VM,
	    /* Not kernel_reported: gVisor derives it from the host's CPUID. */
	};
	probe_strlcpy(s.value, sizeof(s.value), hv ? "hypervisor" : "absent");
	probe_add(sigs, &s);
}

void probe_sig_virt(struct probe_input *in, struct probe_signals *sigs)
{
	/* Precedence for naming is in classify.c; order here is the report's. */
	probe_virt_cpuid(in, sigs);
	probe_virt_acpi(in, sigs);
	probe_virt_dmi(in, sigs);
	probe_virt_sys_hypervisor(in, sigs);
	probe_virt_cpuinfo(in, sigs);
	probe_sig_virt_bus(in, sigs);
}
