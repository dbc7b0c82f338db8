/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_virt_arm64.c - VM evidence on arm64, where there is no CPUID leaf
 * 0x40000000 and the microVMs (Firecracker, Cloud Hypervisor) expose no DMI
 * and often no ACPI: the CPU's MIDR, the flattened device tree the VMM wrote,
 * and what the guest kernel found of KVM's hypervisor services. Each id's
 * family, evidence class and origin are in signals.c (SIGNALS.md).
 *
 * - virt.midr (hardware): MIDR_EL1 read with the instruction. Implementer
 *   0x00 is "reserved for software use" (Arm ARM, MIDR_EL1.Implementer);
 *   QEMU's emulated "max" CPU reports it so guests do not apply errata for a
 *   real core. No silicon uses it: an emulated CPU, QEMU under TCG. Any other
 *   implementer is recorded and does not vote (KVM passes the host's through).
 * - virt.dt_compatible (firmware): root compatible "linux,dummy-virt" (QEMU
 *   virt, Firecracker and Cloud Hypervisor all write it; boards name
 *   themselves, and an unrecognised name has no vote).
 * - virt.dt_psci (marker): PSCI method "hvc": firmware calls go to a
 *   hypervisor at EL2 (KVM, Xen, Firecracker, Cloud Hypervisor, QEMU virt all
 *   write "hvc"); "smc" is firmware at EL3: a marker against a VM.
 * - virt.dt_layout (marker): which VMM laid the tree out, from its node
 *   names: Firecracker "memory@ram" and virtio_mmio at >= 1 GiB; QEMU virt
 *   "platform-bus@", virtio_mmio@a000000 and "pcie@"; Cloud Hypervisor a
 *   "pci@" ECAM host without QEMU's nodes.
 * - virt.kvm_services (firmware): the kernel log line "KVM: hypervisor
 *   services detected" (the SMCCC vendor-hypervisor UID call answered by KVM).
 * - virt.ptp_kvm (firmware): a PTP clock named "KVM virtual PTP" (ptp_kvm).
 * The /hypervisor node (Xen's "xen,xen") is virt.device_tree (sig_virt_pv.c).
 * The device tree, the log and sysfs are reported by the innermost kernel
 * (kernel_reported: the Sentry's inside gVisor); only MIDR is read from the CPU.
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

/* strong: the table's class applies (signals.c caps a marker row at weak). */
static struct probe_signal *probe_arm64_add(struct probe_signals *sigs, const char *id,
                                            const char *source, bool vm, bool strong,
                                            const char *vendor, const char *hv, const char *value)
{
	return probe_add_kernel_signal(sigs, id, source, strong ? PROBE_STRONG : PROBE_WEAK,
	                               vm ? PROBE_KIND_VM : PROBE_KIND_NONE,
	                               vm ? PROBE_AXIS_VM : PROBE_AXIS_INFO, vendor, hv, value);
}

static void probe_arm64_midr(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/midr", NULL);
	char v[64];
	uint64_t midr;
	if (!text || !probe_starts_with(text, "midr_el1 "))
		return;
	/* A register is hex: "0x000f0510" as we write it, or bare "000f0510". */
	v[0] = '0';
	v[1] = 'x';
	const char *val = text + strlen("midr_el1 ");
	if (val[0] == '0' && (val[1] == 'x' || val[1] == 'X'))
		val += 2;
	probe_first_line(v + 2, sizeof(v) - 2, val);
	probe_rstrip(v);
	if (!probe_parse_u64(v, &midr) || midr > 0xffffffffu)
		return;
	bool emulated = ((midr >> 24) & 0xff) == 0;
	struct probe_signal s = {
	    .id = "virt.midr",
	    .family = PROBE_FAM_VIRT,
	    .source = "MIDR_EL1 (mrs)",
	    .weight = emulated ? PROBE_STRONG : PROBE_WEAK,
	    .supports = emulated ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = emulated ? PROBE_AXIS_VM : PROBE_AXIS_INFO,
	    .vendor = emulated ? "qemu" : "",
	    .hypervisor = emulated ? "tcg" : "",
	};
	snprintf(s.value, sizeof(s.value), "0x%08llx%s", (unsigned long long)midr,
	         emulated ? " (implementer 0x00: software)" : "");
	probe_add(sigs, &s);
}

/* The value after "KEY " on the first line starting so, into out; false when none. */
static bool probe_dt_line(const char *text, const char *key, char *out, size_t outsz)
{
	size_t kl = strlen(key);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, key, kl) == 0 && (line[kl] == ' ' || line[kl] == '\n')) {
			probe_first_line(out, outsz, line[kl] == ' ' ? line + kl + 1 : "");
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* Has a word (space-separated token) equal to w. */
static bool probe_has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = s; (p = strstr(p, w)); p += n)
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* Root compatible strings a VMM writes (the one vendor lookup; the
 * layout, not the root, tells the VMMs apart). */
static const struct probe_vendor probe_dt_roots[] = {
    {"linux,dummy-virt", "", ""},
};

/* Does any word of the root compatible list name a virtual board? */
static bool probe_dt_root_known(const char *compat)
{
	char w[PROBE_VALUE_MAX];
	for (const char *p = compat; *p;) {
		size_t n = strcspn(p, " ");
		if (n > 0 && n < sizeof(w)) {
			memcpy(w, p, n);
			w[n] = '\0';
			if (PROBE_VENDOR(probe_dt_roots, w, PROBE_EXACT))
				return true;
		}
		p += n;
		p += strspn(p, " ");
	}
	return false;
}

struct probe_dt_facts {
	unsigned virtio_mmio, nodes;
	uint64_t mmio_low;
	bool memory_ram, uart_16550, platform_bus, pcie, pci_ecam, fw_cfg;
};

static void probe_dt_scan(const char *text, struct probe_dt_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->mmio_low = UINT64_MAX;
	for (const char *line = text; line && *line;) {
		char l[PROBE_VALUE_MAX * 2];
		probe_first_line(l, sizeof(l), line);
		if (probe_starts_with(l, "node ")) {
			const char *name = l + 5;
			const char *compat = strchr(name, ' ');
			compat = compat ? compat + 1 : "";
			f->nodes++;
			uint64_t addr;
			if (probe_starts_with(name, "virtio_mmio@")) {
				char a[32];
				snprintf(a, sizeof(a), "0x%.*s", (int)strcspn(name + 12, " "),
				         name + 12);
				f->virtio_mmio++;
				if (probe_parse_u64(a, &addr) && addr < f->mmio_low)
					f->mmio_low = addr;
			}
			f->memory_ram |= probe_starts_with(name, "memory@ram");
			f->uart_16550 |=
			    probe_starts_with(name, "uart@") && probe_has_word(compat, "ns16550a");
			f->platform_bus |= probe_starts_with(name, "platform-bus@") ||
			                   probe_starts_with(name, "platform@");
			f->pcie |= probe_starts_with(name, "pcie@") &&
			           probe_has_word(compat, "pci-host-ecam-generic");
			f->pci_ecam |= probe_starts_with(name, "pci@") &&
			               probe_has_word(compat, "pci-host-ecam-generic");
			f->fw_cfg |= probe_has_word(compat, "qemu,fw-cfg-mmio");
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

static void probe_arm64_devicetree(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/devicetree", NULL);
	if (!text || !*text)
		return;
	char v[PROBE_VALUE_MAX];
	if (probe_dt_line(text, "compatible", v, sizeof(v))) {
		bool vm = probe_dt_root_known(v);
		probe_arm64_add(sigs, "virt.dt_compatible", "/sys/firmware/devicetree compatible",
		                vm, vm, "", "", v);
	}
	if (probe_dt_line(text, "psci-method", v, sizeof(v))) {
		struct probe_signal *p =
		    probe_arm64_add(sigs, "virt.dt_psci", "/sys/firmware/devicetree psci/method",
		                    strcmp(v, "hvc") == 0, false, "", "", v);
		if (p && strcmp(v, "smc") == 0) /* a vote against a VM, not just a note */
			p->axis = PROBE_AXIS_VM;
	}
	struct probe_dt_facts f;
	probe_dt_scan(text, &f);
	const char *vendor = "";
	if (f.memory_ram || (f.virtio_mmio && f.mmio_low >= 0x40000000u && f.uart_16550))
		vendor = "firecracker";
	else if (f.platform_bus || f.pcie || (f.virtio_mmio && f.mmio_low == 0xa000000u))
		vendor = "qemu";
	else if (f.pci_ecam)
		vendor = "cloud-hypervisor";
	if (!*vendor)
		return;
	char mmio[40] = "none";
	if (f.virtio_mmio)
		snprintf(mmio, sizeof(mmio), "%u from 0x%llx", f.virtio_mmio,
		         (unsigned long long)f.mmio_low);
	snprintf(v, sizeof(v), "virtio_mmio %s%s%s%s%s%s%s", mmio,
	         f.memory_ram ? ", memory@ram" : "", f.uart_16550 ? ", uart ns16550a" : "",
	         f.platform_bus ? ", platform-bus" : "", f.pcie ? ", pcie ecam" : "",
	         f.pci_ecam ? ", pci ecam" : "", f.fw_cfg ? ", fw-cfg" : "");
	probe_arm64_add(sigs, "virt.dt_layout", "/sys/firmware/devicetree nodes", true, false,
	                vendor, "", v);
}

static void probe_arm64_kvm(struct probe_input *in, struct probe_signals *sigs)
{
	const char *log = probe_read(in, "/.probe/kmsg", NULL);
	const char *hit = log ? strstr(log, "KVM: hypervisor services detected") : NULL;
	if (hit) {
		char v[PROBE_VALUE_MAX];
		probe_first_line(v, sizeof(v), hit);
		probe_arm64_add(sigs, "virt.kvm_services", "kernel log (smccc)", true, true, "",
		                "kvm", v);
	}
	const char *ptp = probe_read(in, "/sys/class/ptp/ptp0/clock_name", NULL);
	char name[64];
	probe_first_line(name, sizeof(name), ptp ? ptp : "");
	if (strcmp(name, "KVM virtual PTP") == 0)
		probe_arm64_add(sigs, "virt.ptp_kvm", "/sys/class/ptp/ptp0/clock_name", true, true,
		                "", "kvm", name);
}

void probe_sig_virt_arm64(struct probe_input *in, struct probe_signals *sigs)
{
	probe_arm64_midr(in, sigs);
	probe_arm64_devicetree(in, sigs);
	probe_arm64_kvm(in, sigs);
}
