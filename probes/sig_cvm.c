/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_cvm.c - confidential VMs: is the VM around us one whose memory the host
 * cannot read (AMD SEV, SEV-ES, SEV-SNP; Intel TDX)? A confidential VM is a
 * VM, so every signal here is evidence for the vm layer, and names its
 * technology in `vendor` (the classifier reports it as the layer's "cvm").
 *
 * After systemd's src/basic/confidential-virt.c: AMD's CPUID 0x8000001F
 * EAX bit 1 says the CPU can do SEV (hosts too), the SEV_STATUS MSR
 * (0xc0010131) says which mode is active (bit 0 SEV, 1 SEV-ES, 2 SEV-SNP);
 * Intel's leaf 0x21 reads "IntelTDX    " in TDX guests; Azure's paravisor
 * hides 0x8000001F, but Hyper-V leaf 0x40000003 EBX bit 22 (isolation,
 * without bit 12, CPU management) and 0x4000000C EBX[3:0] (2 = SNP, 3 = TDX)
 * tell. The kernel prints "Memory Encryption Features active: ..." and
 * creates /dev/sev-guest or /dev/tdx_guest and configfs tsm/report.
 */
#include "probe.h"

#include <string.h>

static void probe_cvm_add(struct probe_signals *sigs, const char *id, const char *source,
                          const char *value, const char *tech, bool kernel_reported)
{
	struct probe_signal s = {
	    .id = id,
	    .family = PROBE_FAM_VIRT,
	    .source = source,
	    .weight = PROBE_STRONG,
	    .supports = tech ? PROBE_KIND_VM : PROBE_KIND_NONE,
	    .axis = tech ? PROBE_AXIS_VM : PROBE_AXIS_INFO,
	    .vendor = tech ? tech : "",
	    .kernel_reported = kernel_reported,
	};
	probe_strlcpy(s.value, sizeof(s.value), value);
	for (char *c = s.value; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	probe_add(sigs, &s);
}

static void probe_cvm_cpuid(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/cpuid", NULL);
	uint32_t r[4], e[4];
	char sig[13];
	if (!text)
		return;
	if (probe_cpuid_leaf(text, 0x21, r)) {
		/* "IntelTDX    " in EBX, EDX, ECX order. */
		uint32_t o[4] = {0, r[1], r[3], r[2]};
		probe_cpuid_signature(o, sig);
		if (strcmp(sig, "IntelTDX    ") == 0) {
			probe_cvm_add(sigs, "virt.cvm_cpuid", "cpuid leaf 0x21", "IntelTDX", "tdx",
			              false);
			return;
		}
	}
	if (probe_cpuid_leaf(text, 0x40000000, r) && r[0] >= 0x40000005 && r[0] <= 0x4000ffff) {
		probe_cpuid_signature(r, sig);
		if (strcmp(sig, "Microsoft Hv") == 0 && probe_cpuid_leaf(text, 0x40000003, e) &&
		    (e[1] & (1u << 22)) && !(e[1] & (1u << 12)) &&
		    probe_cpuid_leaf(text, 0x4000000c, r)) {
			unsigned type = r[1] & 0xf;
			const char *tech = type == 2 ? "sev-snp" : type == 3 ? "tdx" : NULL;
			char v[64];
			snprintf(v, sizeof(v), "Hyper-V isolation type %u", type);
			if (tech) {
				probe_cvm_add(sigs, "virt.cvm_cpuid",
				              "cpuid leaves 0x40000003, 0x4000000C", v, tech,
				              false);
				return;
			}
		}
	}
	/* SEV capable: hosts say so too, so this only records it. */
	if (probe_cpuid_leaf(text, 0x80000000, e) && e[0] >= 0x8000001f &&
	    probe_cpuid_leaf(text, 0x8000001f, r) && (r[0] & 2))
		probe_cvm_add(sigs, "virt.cvm_cpuid", "cpuid leaf 0x8000001F", "SEV capable", NULL,
		              false);
}

static void probe_cvm_msr(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/msr", NULL);
	char line[64];
	uint64_t v;
	if (!text || !probe_starts_with(text, "0xc0010131 "))
		return;
	probe_first_line(line, sizeof(line), text + strlen("0xc0010131 "));
	if (!probe_parse_u64(line, &v))
		return;
	const char *tech = v & 4 ? "sev-snp" : v & 2 ? "sev-es" : v & 1 ? "sev" : NULL;
	probe_cvm_add(sigs, "virt.cvm_msr", "MSR 0xc0010131", line, tech, false);
}

struct probe_cvm_log {
	const char *tech;
	char line[120];
};

static bool probe_cvm_log_line(const char *line, size_t len, void *arg)
{
	struct probe_cvm_log *c = arg;
	const char *tech = NULL;
	if (probe_line_has(line, len, "Memory Encryption Features active:")) {
		tech = probe_line_has(line, len, "SEV-SNP")  ? "sev-snp"
		       : probe_line_has(line, len, "SEV-ES") ? "sev-es"
		       : probe_line_has(line, len, "TDX")    ? "tdx"
		       : probe_line_has(line, len, "SEV")    ? "sev"
		                                             : NULL;
	} else if (probe_line_has(line, len, "tdx: Guest detected")) {
		tech = "tdx";
	} else if (c->tech && strcmp(c->tech, "sev") == 0 &&
	           probe_line_has(line, len, "SEV: Status: SEV-SNP")) {
		tech = "sev-snp";
	}
	if (!tech)
		return true;
	c->tech = tech;
	snprintf(c->line, sizeof(c->line), "%.*s", (int)(len < 119 ? len : 119), line);
	return true;
}

static void probe_cvm_kernel_log(struct probe_input *in, struct probe_signals *sigs)
{
	struct probe_cvm_log c = {0};
	probe_each_line(probe_read(in, "/.probe/kmsg", NULL), probe_cvm_log_line, &c);
	if (c.tech)
		probe_cvm_add(sigs, "virt.cvm_kernel_log", "kernel log", c.line, c.tech, true);
}

static void probe_cvm_devices(struct probe_input *in, struct probe_signals *sigs)
{
	const char *tech = NULL, *what = NULL;
	if (probe_path_exists(in, "/dev/sev-guest"))
		tech = "sev-snp", what = "/dev/sev-guest";
	else if (probe_path_exists(in, "/dev/tdx_guest"))
		tech = "tdx", what = "/dev/tdx_guest";
	else if (probe_path_exists(in, "/dev/tdx-guest"))
		tech = "tdx", what = "/dev/tdx-guest";
	/* configfs tsm/report exists wherever the TSM core is built in, guest
	 * or not: recorded, no vote. */
	else if (probe_path_exists(in, "/sys/kernel/config/tsm/report"))
		tech = NULL, what = "/sys/kernel/config/tsm/report";
	if (what)
		probe_cvm_add(sigs, "virt.cvm_device", what, what, tech, true);
}

void probe_sig_cvm(struct probe_input *in, struct probe_signals *sigs)
{
	probe_cvm_cpuid(in, sigs);
	probe_cvm_msr(in, sigs);
	probe_cvm_kernel_log(in, sigs);
	probe_cvm_devices(in, sigs);
}
