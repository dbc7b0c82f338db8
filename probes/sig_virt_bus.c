/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_virt_bus.c - VM markers from devices and the boot command line: virtio
 * transports, the PCI host bridge, virtio_mmio.device= windows, Kata hints.
 * All reported by the innermost kernel (weak; synthetic inside gVisor).
 * Split from sig_virt.c, which holds CPUID, DMI and ACPI.
 */
#include "probe.h"

#include <string.h>

/* PCI host bridge (00:00.0) vendor:device; only ids no real board uses. */
static const struct probe_vendor probe_pci_hosts[] = {
    {"0x8086:0x29c0", "qemu", ""}, /* Q35 MCH as emulated by QEMU */
    {"0x8086:0x1237", "", ""},     /* i440FX: QEMU, VirtualBox, Xen HVM */
    {"0x8086:0x0d57", "", "kvm"},  /* virtual PCIe host of Firecracker/Cloud Hypervisor */
    {"0x1414:", "hyperv", "hyperv"}, {"0x15ad:", "vmware", "vmware"},
    {"0x5853:", "xen", "xen"},       {"0x80ee:", "virtualbox", "virtualbox"},
    {"0x1ae0:", "google", "kvm"},    {"0x1d0f:", "amazon", ""},
};

/*
 * virtio devices exist only under a VMM (or vhost/VDUSE tricks). The
 * transport is a hint: virtio-mmio is the microVM way (Firecracker, QEMU
 * microvm); the MMIO vendor register names QEMU ("QEMU" = 0x554d4551).
 */
static void probe_virt_virtio(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/virtio", NULL);
	unsigned pci = 0, mmio = 0, other = 0;
	char first_mmio[64] = "";
	for (const char *line = text; line && *line;) {
		char name[64] = "";
		size_t n = 0;
		while (line[n] && line[n] != ' ' && line[n] != '\n' && n < sizeof(name) - 1) {
			name[n] = line[n];
			n++;
		}
		name[n] = '\0';
		const char *eol = strchr(line, '\n');
		size_t linelen = eol ? (size_t)(eol - line) : strlen(line);
		char target[512];
		snprintf(target, sizeof(target), "%.*s", (int)(linelen < 511 ? linelen : 511),
		         line);
		if (strstr(target, "virtio-mmio") || strstr(target, "virtio_mmio") ||
		    strstr(target, "LNRO0005")) {
			mmio++;
			if (!first_mmio[0] && probe_starts_with(name, "virtio"))
				snprintf(first_mmio, sizeof(first_mmio), "%s", name);
		} else if (strstr(target, "/pci")) {
			pci++;
		} else if (name[0]) {
			other++;
		}
		line = eol ? eol + 1 : NULL;
	}
	if (!pci && !mmio && !other)
		return;
	const char *vendor = "";
	if (first_mmio[0]) {
		char path[128], val[32];
		snprintf(path, sizeof(path), "/sys/bus/virtio/devices/%s/vendor", first_mmio);
		const char *v = probe_read(in, path, NULL);
		probe_first_line(val, sizeof(val), v ? v : "");
		if (strcmp(val, "0x554d4551") == 0)
			vendor = "qemu";
		/* Firecracker leaves the MMIO vendor register at 0 (and has no DMI). */
		else if (strcmp(val, "0x0000") == 0 &&
		         !probe_read(in, "/sys/class/dmi/id/sys_vendor", NULL))
			vendor = "firecracker";
	}
	char sv[PROBE_VALUE_MAX];
	snprintf(sv, sizeof(sv), "mmio=%u pci=%u other=%u", mmio, pci, other);
	probe_add_kernel_signal(sigs, "virt.virtio", "/sys/bus/virtio/devices", PROBE_WEAK,
	                        PROBE_KIND_VM, PROBE_AXIS_VM, vendor, NULL, sv);
}

static void probe_virt_pci_host(struct probe_input *in, struct probe_signals *sigs)
{
	char ven[16], dev[16], id[40];
	const char *v = probe_read(in, "/sys/bus/pci/devices/0000:00:00.0/vendor", NULL);
	const char *d = probe_read(in, "/sys/bus/pci/devices/0000:00:00.0/device", NULL);
	if (!v || !d)
		return;
	probe_first_line(ven, sizeof(ven), v);
	probe_first_line(dev, sizeof(dev), d);
	if (!ven[0] || !dev[0])
		return;
	snprintf(id, sizeof(id), "%s:%s", ven, dev);
	const struct probe_vendor *hit = PROBE_VENDOR(probe_pci_hosts, id, PROBE_PREFIX);
	/*
	 * Firecracker and Cloud Hypervisor share the 0x0d57 host bridge; Cloud
	 * Hypervisor always writes SMBIOS tables, Firecracker never does. This
	 * names Firecracker where the ACPI headers are root-only.
	 */
	const char *vendor = hit ? hit->vendor : "";
	if (hit && strcmp(id, "0x8086:0x0d57") == 0 &&
	    !probe_read(in, "/sys/class/dmi/id/sys_vendor", NULL))
		vendor = "firecracker";
	probe_add_kernel_signal(sigs, "virt.pci_host_bridge", "/sys/bus/pci/devices/0000:00:00.0",
	                        PROBE_WEAK, hit ? PROBE_KIND_VM : PROBE_KIND_NONE,
	                        hit ? PROBE_AXIS_VM : PROBE_AXIS_INFO, vendor,
	                        hit ? hit->hypervisor : "", id);
}

/*
 * Kernel command line and mount hints. virtio_mmio.device= is how
 * Firecracker (and QEMU microvm without ACPI) hand devices to the guest.
 * Kata Containers: agent.* parameters, the kata-containers target, or the
 * kataShared virtio-fs/9p share as the root.
 */
static void probe_virt_cmdline(struct probe_input *in, struct probe_signals *sigs)
{
	const char *cmd = probe_read(in, "/proc/cmdline", NULL);
	const char *mi = probe_read(in, "/proc/self/mountinfo", NULL);
	const char *mmio = cmd ? strstr(cmd, "virtio_mmio.device=") : NULL;
	if (mmio) {
		/*
		 * The device window tells the VMMs apart: Firecracker maps its
		 * MMIO devices from 0xd0000000 in 4K slots, QEMU microvm (without
		 * ACPI) from 0xfeb00000 in 512-byte slots.
		 */
		const char *dev = mmio + strlen("virtio_mmio.device=");
		const char *vendor = probe_starts_with(dev, "4K@0xd")      ? "firecracker"
		                     : probe_starts_with(dev, "512@0xfeb") ? "qemu"
		                                                           : "";
		size_t n = strcspn(mmio, " \n");
		char sv[PROBE_VALUE_MAX];
		snprintf(sv, sizeof(sv), "%.*s", (int)(n < 120 ? n : 120), mmio);
		probe_add_kernel_signal(sigs, "virt.cmdline_virtio_mmio", "/proc/cmdline",
		                        PROBE_WEAK, PROBE_KIND_VM, PROBE_AXIS_VM, vendor, NULL, sv);
	}
	/* libkrun boots its kernel with init=/init.krun (and tsi_hijack for
	 * its transparent socket impersonation); console=hvc0 is a virtio
	 * console (Cloud Hypervisor, libkrun, Kata, Xen PV). */
	const char *vmm = NULL, *vmm_vendor = "";
	if (cmd && (strstr(cmd, "init=/init.krun") || strstr(cmd, "tsi_hijack")))
		vmm = "libkrun", vmm_vendor = "libkrun";
	else if (cmd && strstr(cmd, "console=hvc0"))
		vmm = "console=hvc0";
	if (vmm) {
		probe_add_kernel_signal(sigs, "virt.cmdline_vmm", "/proc/cmdline", PROBE_WEAK,
		                        PROBE_KIND_VM, PROBE_AXIS_VM, vmm_vendor, NULL, vmm);
	}
	const char *why = NULL;
	if (cmd && (strstr(cmd, "kata-containers") || strstr(cmd, " agent.") ||
	            probe_starts_with(cmd, "agent.")))
		why = "kernel command line";
	else if (mi && strstr(mi, "kataShared"))
		why = "kataShared mount";
	if (why) {
		probe_add_kernel_signal(sigs, "virt.kata",
		                        mi && strstr(why, "mount") ? "/proc/self/mountinfo"
		                                                   : "/proc/cmdline",
		                        PROBE_WEAK, PROBE_KIND_VM, PROBE_AXIS_VM, NULL, NULL, why);
	}
}

void probe_sig_virt_bus(struct probe_input *in, struct probe_signals *sigs)
{
	probe_virt_virtio(in, sigs);
	probe_virt_pci_host(in, sigs);
	probe_virt_cmdline(in, sigs);
}
