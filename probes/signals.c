/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signals.c - the one table of every signal the probe can emit. Collectors
 * (sig_*.c) supply values and what each value supports; the family, the
 * evidence class a strong value rests on and the independence group
 * (origin) come from here, and so does its precedence when a layer is named
 * (probe_naming below: per list, the ids that may name, best first).
 * SIGNALS.md holds this table, as `isotier-probe --list-signals` prints it
 * (signals_list.c), between its markers, and tests/unit/test_probe_classify.c
 * fails when the two drift or when probe_signal_table_check refuses the table. A new signal is one
 * row here plus its collector, and one line in a naming list when it names its layer.
 */
#include "probe.h"

#include <string.h>

#define V    PROBE_FAM_VIRT
#define K    PROBE_FAM_KERNEL
#define S    PROBE_FAM_SYSCALL
#define C    PROBE_FAM_CONTAINER
#define A_VM PROBE_AXIS_VM
#define A_GV PROBE_AXIS_GVISOR
#define A_CT PROBE_AXIS_CONTAINER
#define A_IN PROBE_AXIS_INFO
#define HW   PROBE_CLASS_HARDWARE
#define BH   PROBE_CLASS_BEHAVIOUR
#define FW   PROBE_CLASS_FIRMWARE
#define MK   PROBE_CLASS_MARKER

const struct probe_signal_desc probe_signal_table[] = {
    /* ---- is there a hardware VM ---- */
    {"virt.cpuid_hypervisor_bit", V, "cpuid leaf 0x1 ecx bit 31", "strong", A_VM, HW, "cpuid",
     "vm when set; against when clear (x86), except under a paravirtual kernel that names itself "
     "or a known signature at 0x40000000"},
    {"virt.cpuid_vendor", V, "cpuid leaf 0x40000000 (0x40000100)", "strong", A_VM, HW, "cpuid",
     "vm for a known hypervisor signature (KVMKVMKVM, Linux KVM Hv, TCGTCGTCGTCG, Microsoft Hv, "
     "VMwareVMware, XenVMMXenVMM, bhyve, xhyve, LKVM, ACRN, QNX, Apple VZ, SRE, VBox, "
     "Parallels, Jailhouse, HAXM, NVMM, OpenBSD vmm, EVMM, Unisys s-Par); a known one at "
     "0x40000100 wins (KVM or Xen behind Hyper-V enlightenments); "
     "blank or unknown: informational"},
    {"virt.cpuinfo_vendor", V, "/proc/cpuinfo vendor_id, model name", "strong", A_VM, FW, "cpuinfo",
     "vm for User Mode Linux, PowerVM Lx86 (paravirtual) and QEMU's `QEMU Virtual CPU` models; "
     "else not emitted"},
    {"virt.cpuinfo_hypervisor", V, "/proc/cpuinfo flags", "strong", A_VM, FW, "cpuinfo",
     "vm when the x86 flags list `hypervisor` (the kernel's reading of CPUID.1:ECX[31]), else "
     "against"},
    {"virt.dmi", V, "/sys/class/dmi/id/{sys_vendor,product_name,board_vendor,bios_vendor}",
     "strong", A_VM, FW, "dmi",
     "vm for a known vendor+product tuple (Microsoft Corporation + Virtual Machine, QEMU, KVM, "
     "VMware, innotek/Oracle + VirtualBox, Xen, Parallels, BHYVE, Nutanix AHV, oVirt/RHEV, "
     "OpenStack, Amazon EC2, Google, Cloud Hypervisor, Apple Virtualization, ...); against for "
     "Amazon EC2 with a `.metal` product; unrecognised: informational (no vote)"},
    {"virt.acpi_oem", V, "ACPI OEM id in the kernel log or table headers", "strong", A_VM, FW,
     "acpi",
     "vm for FIRECK (firecracker), CLOUDH (cloud-hypervisor), CROSVM, KRUN/LIBKRUN, BOCHS/BXPC "
     "(qemu), VRTUAL/MSFTVM (hyperv), Xen, VMWARE, VBOX, PRLS, BHYVE, Google; others "
     "(AMAZON: metal too) informational"},
    {"virt.sys_hypervisor", V, "/sys/hypervisor/type", "strong", A_VM, FW, "xen",
     "vm (xen: paravirtual, its CPUID is not virtualised for user space)"},
    {"virt.xen_capabilities", V, "/proc/xen/capabilities, /proc/xen", "strong", A_VM, FW, "xen",
     "vm (Xen domU; `control_d` = dom0, still on Xen); paravirtual"},
    {"virt.device_tree", V,
     "/proc/device-tree/hypervisor/compatible (or .probe/devicetree's `hypervisor` line)", "strong",
     A_VM, FW, "dt",
     "vm for a /hypervisor node (linux,kvm = kvm; xen = xen; vmware; a PowerVM partition: "
     "ibm,partition-name with "
     "hmc-managed? and no qemu,graphic-width)"},
    {"virt.sysinfo", V, "/proc/sysinfo", "strong", A_VM, FW, "sysinfo",
     "vm for s390x guests: `VM00 Control Program: z/VM` (zvm) or `KVM/Linux` (kvm)"},
    {"virt.kernel_log", V, "kernel log", "strong", A_VM, FW, "kmsg",
     "vm for `Hypervisor detected: X`, `Booting paravirtualized kernel on X`, arm64's `KVM "
     "hypervisor services detected`, Firecracker's `MPTABLE: OEM ID: FC`; against for `... on "
     "bare hardware` and arm64's `All CPU(s) started at EL2`"},
    /* arm64 (sig_virt_arm64.c): no CPUID leaf, microVMs without DMI */
    {"virt.midr", V, "MIDR_EL1 (mrs)", "strong (implementer 0), else informational", A_VM, HW,
     "midr",
     "vm for implementer 0x00 (\"reserved for software use\": QEMU's emulated CPU under TCG; "
     "vendor qemu, hypervisor tcg); any other implementer is informational (KVM shows the "
     "host's)"},
    {"virt.dt_compatible", V, "/sys/firmware/devicetree compatible (.probe/devicetree)", "strong",
     A_VM, FW, "dt",
     "vm for a root `linux,dummy-virt` (QEMU virt, Firecracker, Cloud Hypervisor); a board's "
     "own name: informational"},
    {"virt.kvm_services", V, "kernel log (smccc)", "strong", A_VM, FW, "kmsg",
     "vm, hypervisor kvm (`KVM: hypervisor services detected`: KVM answered the SMCCC "
     "vendor-hypervisor call)"},
    {"virt.ptp_kvm", V, "/sys/class/ptp/ptp0/clock_name", "strong", A_VM, FW, "ptp",
     "vm, hypervisor kvm (`KVM virtual PTP`: the clock ptp_kvm registers once KVM answers its "
     "hypercall)"},
    {"virt.dt_psci", V, "/sys/firmware/devicetree psci/method", "weak", A_VM, MK, "dt",
     "vm for PSCI method `hvc` (firmware calls to a hypervisor at EL2); against for `smc` "
     "(firmware at EL3)"},
    {"virt.dt_layout", V, "/sys/firmware/devicetree nodes", "weak", A_VM, MK, "dt",
     "vm naming the VMM from its node names: `memory@ram` or virtio_mmio from 1 GiB with an "
     "ns16550a `uart@` = firecracker; `platform-bus@`, `pcie@` ECAM or virtio_mmio@a000000 = "
     "qemu; a `pci@` ECAM host without those = cloud-hypervisor"},
    {"virt.pci_host_bridge", V, "/sys/bus/pci/devices/0000:00:00.0", "weak", A_VM, MK, "pci",
     "vm for virtual host bridges (Q35, i440FX, 0x8086:0x0d57 of Firecracker/Cloud Hypervisor, "
     "Hyper-V, VMware, Xen, VirtualBox, Google, Amazon); else informational"},
    {"virt.virtio", V, "/sys/bus/virtio/devices", "weak", A_VM, MK, "devices",
     "vm (virtio devices; mmio vs pci counted; MMIO vendor 0x554d4551 = qemu, 0x0000 without DMI "
     "= firecracker)"},
    {"virt.cmdline_virtio_mmio", V, "/proc/cmdline", "weak", A_VM, MK, "cmdline",
     "vm (`virtio_mmio.device=`; 4K@0xd... = firecracker, 512@0xfeb... = qemu)"},
    {"virt.cmdline_vmm", V, "/proc/cmdline", "weak", A_VM, MK, "cmdline",
     "vm for a VMM's boot arguments (`init=/init.krun`, `tsi_hijack` = libkrun; `console=hvc0`)"},
    {"virt.kata", V, "/proc/cmdline, /proc/self/mountinfo", "weak", A_VM, MK, "kata",
     "vm (Kata: `agent.*`/`kata-containers` on the command line, `kataShared` mount)"},
    {"virt.kernel_release", V, "uname(2) release", "weak", A_VM, MK, "uname",
     "vm for `*-microsoft-standard-WSL2` (wsl2 on hyperv)"},
    {"virt.cvm_cpuid", V, "cpuid 0x21, 0x40000003/0x4000000C, 0x8000001F", "strong", A_VM, HW,
     "cpuid",
     "vm with a confidential technology: `IntelTDX` at 0x21 (tdx), Hyper-V isolation type 2/3 "
     "(sev-snp/tdx); 0x8000001F alone (SEV capable, hosts too) is informational"},
    {"virt.cvm_msr", V, "MSR 0xc0010131 (SEV_STATUS)", "strong", A_VM, HW, "msr",
     "vm with sev / sev-es / sev-snp (bits 0/1/2); 0: informational"},
    {"virt.cvm_kernel_log", V, "kernel log", "strong", A_VM, FW, "kmsg-cvm",
     "vm with the technology of `Memory Encryption Features active: ...` or `tdx: Guest "
     "detected`"},
    {"virt.cvm_device", V, "/dev/sev-guest, /dev/tdx_guest, /sys/kernel/config/tsm/report",
     "strong", A_VM, FW, "dev",
     "vm with sev-snp (sev-guest) or tdx (tdx_guest); the TSM report directory alone (any kernel "
     "with the TSM core built in): informational"},
    /* Not in `signals`: the report it asks for binds the rendered report,
     * signals included, so its status can only follow them (attest_tsm.c). */
    {"virt.attestation", V, "configfs-tsm report under /sys/kernel/config/tsm/report (--attest)",
     "never votes", A_IN, HW, "tsm",
     "the report's `attestation` member, not a `signals` entry: `ok` (a provider-signed report "
     "over this run's nonce and report, for the verifier to check), `absent` (no configfs-tsm), "
     "`unsupported` (only the older ioctl device), `refused` (no report entry could be made or "
     "read) or `race` (another writer changed the entry on every attempt)"},
    /* ---- does gVisor's Sentry answer ---- */
    {"kernel.uname_release", K, "uname(2) release", "weak", A_GV, MK, "uname",
     "gvisor for `4.4.0` or `*gvisor*`, else against"},
    {"kernel.uname_version", K, "uname(2) version", "weak", A_GV, MK, "uname",
     "gvisor for `#1 SMP Sun Jan 10 15:06:54 PST 2016`, else against"},
    {"kernel.proc_version", K, "/proc/version", "weak", A_GV, MK, "proc-version",
     "gvisor without the `(user@host) (gcc ...)` fields, else against"},
    {"kernel.cmdline", K, "/proc/cmdline", "weak", A_GV, MK, "cmdline",
     "gvisor for `...-gvisor`, else against"},
    {"kernel.log", K, "kernel log", "weak", A_GV, MK, "kmsg",
     "gvisor when the log starts with `Starting gVisor...`, else against"},
    {"kernel.nsfs_inodes", K, "/proc/self/ns/* inode numbers", "strong against, weak for", A_GV, BH,
     "nsfs", "Linux-range numbers: strong against gvisor; small ones: weak gvisor"},
    {"kernel.uname_proc_version", K, "uname(2) vs /proc/version", "weak", A_IN, MK, "uname",
     "informational; `disagree` (the release or version uname(2) gives is not the one "
     "/proc/version names: a filter or a copied /proc, gVisor's Sentry answers both alike) "
     "makes a gvisor layer low confidence"},
    /* ---- the identity inputs checked (sig_identity.c, live only) ---- */
    {"kernel.identity_proc_fs", K, "fstatfs(/proc)", "never votes", A_IN, BH, "identity",
     "`ok` when /proc is procfs (PROC_SUPER_MAGIC); `fail`: every /proc reading, namespaces "
     "included, is forged (the container question is left open, a gvisor layer is low)"},
    {"kernel.identity_files_mount", K,
     "fstatfs, fstat, statx mnt_id (or fdinfo) of boot_id "
     "and /proc/stat",
     "never votes", A_IN, BH, "identity",
     "`ok` when both are on procfs, on /proc's device and served by /proc's mount (or a "
     "read-only rebind of procfs at its own path); `fail`: a file was put over them"},
    {"kernel.identity_proc_mounts", K, "/proc/self/mountinfo (checked to be /proc's own)",
     "never votes", A_IN, BH, "identity",
     "`fail identity` for a mount over /proc/stat, boot_id, random/uuid, /proc/version; "
     "`fail pid` for one over /proc/<pid>, self or thread-self (forges the namespace "
     "readings); procfs rebound at its own path and masks elsewhere are fine"},
    {"kernel.identity_boot_id_reads", K, "boot_id and random/uuid, each read twice", "never votes",
     A_IN, BH, "identity",
     "`ok` when boot_id reads the same twice and random/uuid differs (procfs's generator); "
     "`fail`: a file, or uuid bound over boot_id"},
    {"kernel.identity_ns_stat", K, "readlink vs stat/fstatfs of /proc/self/ns/*", "never votes",
     A_IN, BH, "identity",
     "`ok` when every namespace file is on nsfs (NSFS_MAGIC) with the inode readlink shows; "
     "`fail`: the namespace readings are forged (the container question is left open)"},
    {"kernel.identity_time_ns", K, "/proc/self/ns/time inode", "never votes", A_IN, BH, "identity",
     "`ok` in the initial time namespace; `fail`: a private one shifts /proc/stat's btime"},
    {"syscall.setfsuid", S, "setfsuid(-1)", "strong (weak under seccomp)", A_GV, BH, "syscalls",
     "gvisor for ENOSYS, against for success"},
    {"syscall.setfsgid", S, "setfsgid(-1)", "strong (weak under seccomp)", A_GV, BH, "syscalls",
     "gvisor for ENOSYS, against for success"},
    {"syscall.sysfs", S, "sysfs(3)", "strong (weak under seccomp)", A_GV, BH, "syscalls",
     "gvisor for ENOSYS, against for success"},
    {"syscall.ustat", S, "ustat(0, buf)", "strong (weak under seccomp)", A_GV, BH, "syscalls",
     "gvisor for ENOSYS, against for EINVAL"},
    {"syscall.sched_rr_get_interval", S, "sched_rr_get_interval(0, &ts)",
     "strong (weak under seccomp)", A_GV, BH, "syscalls", "gvisor for EPERM, against for success"},
    {"syscall.modify_ldt", S, "modify_ldt(0, buf, 0)", "strong (weak under seccomp)", A_GV, BH,
     "syscalls", "gvisor for EPERM, against for success; other answers informational"},
    {"syscall.roundtrip_ns", S, "median getppid round trip", "weak", A_GV, MK, "timing",
     "gvisor above 10 us (ptrace platform) unless traced; else informational"},
    {"syscall.seccomp_status", S, "/proc/self/status Seccomp", "weak", A_CT, MK, "status",
     "container for mode 2, else informational"},
    {"syscall.seccomp_prctl", S, "prctl(PR_GET_SECCOMP)", "weak", A_IN, MK, "syscalls",
     "informational (a filter can answer it: never the no-filter guard)"},
    {"syscall.seccomp_agree", S, "prctl(PR_GET_SECCOMP) vs /proc/self/status Seccomp", "weak", A_IN,
     MK, "status",
     "informational; `disagree` (the filter answers prctl for itself) makes a gvisor layer "
     "low confidence"},
    {"syscall.tracer_pid", S, "/proc/self/status TracerPid", "weak", A_IN, MK, "status",
     "informational (read with the timing)"},
    /* ---- is there a namespace boundary ---- */
    {"container.ns_pid", C, "/proc/self/ns/pid", "strong", A_CT, BH, "ns",
     "container for a private PID namespace; against for the kernel's initial one"},
    {"container.ns_user", C, "/proc/self/ns/user", "strong", A_CT, BH, "ns",
     "container unless initial (two private namespaces make a container)"},
    {"container.ns_uts", C, "/proc/self/ns/uts", "strong", A_CT, BH, "ns",
     "container unless initial (two private namespaces make a container)"},
    {"container.ns_ipc", C, "/proc/self/ns/ipc", "strong", A_CT, BH, "ns",
     "container unless initial (two private namespaces make a container)"},
    {"container.ns_cgroup", C, "/proc/self/ns/cgroup", "strong", A_CT, BH, "ns",
     "container unless initial (two private namespaces make a container)"},
    {"container.nspid", C, "/proc/self/status NSpid", "strong", A_CT, BH, "status",
     "container when our pid is listed in more than one PID namespace"},
    {"container.pid1_sched", C, "/proc/1/sched", "strong", A_CT, BH, "pid1-sched",
     "container when PID 1's line names another pid (kernels before 4.14 print the initial "
     "namespace's)"},
    {"container.vxid", C, "/proc/self/status VxID", "strong", A_CT, BH, "status",
     "container (Linux-VServer guest context) for a non-zero VxID"},
    {"container.openvz", C, "/proc/vz without /proc/bc", "strong", A_CT, FW, "procfs-dirs",
     "container (OpenVZ/Virtuozzo guest)"},
    {"container.sysboxfs", C, "/proc/self/mountinfo", "strong", A_CT, FW, "mountinfo",
     "container (Sysbox mounts sysboxfs over /proc and /sys)"},
    {"container.cgroup", C, "/proc/self/cgroup (or /proc/1/cgroup)", "weak", A_CT, MK, "cgroup",
     "container for runtime paths (docker, kubepods, libpod, crio, cri-containerd, lxc, "
     "machine.slice, ...); against for host slices (user.slice, system.slice services, "
     "init.scope)"},
    {"container.mounts", C, "/proc/self/mountinfo bind mounts", "weak", A_CT, MK, "mountinfo",
     "container (runtime state directories behind `/etc/hosts` & co; service-account mounts)"},
    {"container.root_fs", C, "/proc/self/mountinfo", "weak", A_CT, MK, "mountinfo",
     "container for overlay, aufs, fuse-overlayfs, shiftfs, 9p, virtiofs or a bind-mounted "
     "root; against for a block-device root; else informational"},
    {"container.pid1_comm", C, "/proc/1/comm", "weak", A_CT, MK, "pid1",
     "container for runtime inits (docker-init, tini, catatonit, pause, bwrap, ...); else "
     "informational"},
    {"container.uid_map", C, "/proc/self/uid_map", "weak", A_CT, MK, "userns",
     "container for a partial map; the full map is informational"},
    {"container.cap_bounding", C, "/proc/self/status CapBnd", "weak", A_CT, MK, "status",
     "container without CAP_SYS_ADMIN (default sets name runc, docker, podman); else "
     "informational"},
    {"container.kernel_brand", C, "uname(2) version", "weak", A_CT, MK, "uname",
     "container for illumos LX zones (`BrandZ virtual linux`)"},
    {"container.dockerenv", C, "/.dockerenv", "weak", A_CT, MK, "image-files", "container"},
    {"container.containerenv", C, "/run/.containerenv", "weak", A_CT, MK, "image-files",
     "container"},
    {"container.flatpak_info", C, "/.flatpak-info", "weak", A_CT, MK, "image-files",
     "container (flatpak writes it into every sandbox it starts with bwrap)"},
    {"container.systemd_container", C, "/run/systemd/container", "weak", A_CT, MK, "image-files",
     "container (content names the runtime)"},
    {"container.host_manager", C, "/run/host/container-manager", "weak", A_CT, MK, "image-files",
     "container (content names the runtime)"},
    {"container.pid1_environ", C, "/proc/1/environ container=", "weak", A_CT, MK, "pid1",
     "container (`container=` names the runtime: lxc, systemd-nspawn, podman, zone, ...)"},
};
const size_t probe_signal_table_len = sizeof(probe_signal_table) / sizeof(probe_signal_table[0]);

const struct probe_signal_desc *probe_signal_describe(const char *id)
{
	for (size_t i = 0; id && i < probe_signal_table_len; i++)
		if (strcmp(probe_signal_table[i].id, id) == 0)
			return &probe_signal_table[i];
	return NULL;
}

const char *probe_class_name(enum probe_class c)
{
	static const char *const names[] = {"marker", "firmware", "behaviour", "hardware"};
	return (unsigned)c < 4 ? names[c] : "marker";
}

const char *probe_axis_name(enum probe_axis a)
{
	static const char *const names[] = {"info", "vm", "gvisor", "container"};
	return (unsigned)a < 4 ? names[a] : "info";
}

/*
 * Naming precedence: who names a layer, best first. Each list is asked in
 * order and the first signal of the layer whose value names something wins
 * (classify.c's probe_pick); a signal in no list never names. A new naming
 * signal is one line, put where it belongs: nothing else is renumbered.
 * SIGNALS.md shows these lists as `--list-signals` prints them.
 */
static const char *const names_vm_vendor[] = {
    /* The VMM names itself in what it builds: firmware tables, boot arguments. */
    "virt.kernel_release",
    "virt.acpi_oem",
    "virt.dmi",
    "virt.cmdline_vmm",
    "virt.kernel_log",
    "virt.cpuinfo_vendor",
    "virt.device_tree",
    "virt.dt_layout",
    "virt.sysinfo",
    "virt.xen_capabilities",
    "virt.sys_hypervisor",
    "virt.pci_host_bridge",
    "virt.virtio",
    "virt.cmdline_virtio_mmio",
    "virt.cpuid_vendor",
    "virt.midr",
};
static const char *const names_vm_hypervisor[] = {
    /* CPUID names the hypervisor (the one the VMM runs on), firmware after. */
    "virt.cpuid_vendor",   "virt.midr",
    "virt.sys_hypervisor", "virt.xen_capabilities",
    "virt.device_tree",    "virt.sysinfo",
    "virt.cpuinfo_vendor", "virt.kernel_log",
    "virt.kvm_services",   "virt.ptp_kvm",
    "virt.acpi_oem",       "virt.dmi",
    "virt.kernel_release", "virt.pci_host_bridge",
};
static const char *const names_container[] = {
    /* Kernel-provided facts first, files any image can carry last. */
    "container.sysboxfs",
    "container.vxid",
    "container.openvz",
    "container.cgroup",
    "container.mounts",
    /* flatpak's file names the frontend of the bwrap pid1_comm sees. */
    "container.flatpak_info",
    "container.pid1_comm",
    "container.systemd_container",
    "container.host_manager",
    "container.pid1_environ",
    "container.kernel_brand",
    "container.containerenv",
    "container.dockerenv",
    "container.root_fs",
    "container.cap_bounding",
};

#define NAMING(list, t, ax, what)                                                                  \
	{                                                                                          \
		t, ax, what, list, sizeof(list) / sizeof(list[0])                                  \
	}
const struct probe_naming_list probe_naming[PROBE_NAMES_COUNT] = {
    [PROBE_NAMES_VM_VENDOR] = NAMING(names_vm_vendor, "vm vendor", PROBE_AXIS_VM, "vendor"),
    [PROBE_NAMES_VM_HYPERVISOR] =
        NAMING(names_vm_hypervisor, "vm hypervisor", PROBE_AXIS_VM, "hypervisor"),
    [PROBE_NAMES_CONTAINER] =
        NAMING(names_container, "container runtime", PROBE_AXIS_CONTAINER, "runtime"),
};
#undef NAMING

unsigned probe_naming_rank(const struct probe_naming_list *list, const char *id)
{
	for (size_t i = 0; id && i < list->n; i++)
		if (strcmp(list->ids[i], id) == 0)
			return (unsigned)i + 1;
	return 0;
}

int probe_signal_table_check(const struct probe_signal_desc *table, size_t n, char *why,
                             size_t why_len)
{
	for (size_t i = 0; i < n; i++) {
		const struct probe_signal_desc *d = &table[i];
		const char *id = d->id ? d->id : "?";
		if (!d->id || !d->source || !d->weight || !d->origin || !d->description) {
			snprintf(why, why_len, "%s: a text is missing", id);
			return -1;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(table[j].id, d->id) == 0) {
				snprintf(why, why_len, "%s: listed twice", id);
				return -1;
			}
		}
	}
	return 0;
}

int probe_naming_check(const struct probe_naming_list *lists, size_t nlists,
                       const struct probe_signal_desc *table, size_t n, char *why, size_t why_len)
{
	for (size_t l = 0; l < nlists; l++) {
		for (size_t i = 0; i < lists[l].n; i++) {
			const char *id = lists[l].ids[i];
			const struct probe_signal_desc *d = NULL;
			for (size_t k = 0; id && !d && k < n; k++)
				if (strcmp(table[k].id, id) == 0)
					d = &table[k];
			if (!d) {
				snprintf(why, why_len, "%s naming: %s is no signal of the table",
				         lists[l].title, id ? id : "?");
				return -1;
			}
			if (d->axis != lists[l].axis) {
				snprintf(why, why_len,
				         "%s naming: %s answers the %s axis, which names no %s",
				         lists[l].title, id, probe_axis_name(d->axis),
				         lists[l].title);
				return -1;
			}
			if (probe_naming_rank(&lists[l], id) != i + 1) {
				snprintf(why, why_len, "%s naming: %s listed twice", lists[l].title,
				         id);
				return -1;
			}
		}
	}
	return 0;
}
