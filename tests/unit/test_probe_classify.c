/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_probe_classify.c - isotier-probe's verdicts over replay fixtures
 * (tests/fixtures/probe/): real captures from this machine kind (native
 * Firecracker, bwrap, runc, runsc, QEMU TCG) and synthetic ones for the
 * environments it cannot host and for lying inputs. Strong evidence wins.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

struct expect {
	const char *fixture;
	const char *tier, *confidence;
	const char *layers;    /* "kind:vendor[:hypervisor]" outermost first, comma-separated */
	const char *conflicts; /* conflicting signal ids, comma-separated, in report order */
};

/*
 * Files never make a high layer alone (SIGNALS.md): the fixtures whose vm layer rests on
 * firmware-class files only (no CPUID, or a paravirtual kernel whose CPUID is the host's:
 * zvm, powervm, hyperv-dmi-kernel-log, vm-cpuinfo-flag-only, arm64-kvm-guest, wsl2-uname-a,
 * weak-only-qemu, hyperv-arm64-dmi, xen-pv-domu, xen-dom0, qemu-cpuinfo-only, powervm-lx86, uml,
 * apple-vz) keep their tier at low confidence, and so does gVisor's syscall family alone (no
 * status line: prctl's word is the filter's).
 */
static const struct expect cases[] = {
    /* Real captures. */
    {"real-firecracker-native", "MICROVM", "high", "vm:firecracker:kvm", "container.dockerenv"},
    {"real-bwrap", "CONTAINER", "high", "vm:firecracker:kvm,container:bubblewrap", ""},
    /* bwrap with /.flatpak-info bound in, as flatpak starts it: the marker names the
     * runtime ahead of PID 1's comm (bwrap). */
    {"real-bwrap-flatpak", "CONTAINER", "high", "vm:firecracker:bhyve,container:flatpak", ""},
    {"real-runc", "CONTAINER", "high", "vm:firecracker:kvm,container:runc", ""},
    {"real-runsc-ptrace", "GVISOR", "high", "vm:unknown:kvm,gvisor:gvisor", ""},
    {"real-qemu-microvm-tcg", "MICROVM", "high", "vm:qemu:tcg", ""},
    /* Environments this machine cannot host. */
    {"syn-bare-host", "NONE", "high", "", ""},
    {"syn-docker-bare-host", "CONTAINER", "high", "container:docker", "syscall.modify_ldt"},
    {"syn-kubernetes-containerd", "CONTAINER", "high", "container:kubernetes",
     "syscall.modify_ldt"},
    {"syn-kubernetes-gce", "CONTAINER", "high", "vm:google:kvm,container:kubernetes", ""},
    {"syn-cloud-hypervisor", "MICROVM", "high", "vm:cloud-hypervisor:kvm", ""},
    {"syn-hyperv", "MICROVM", "high", "vm:hyperv:hyperv", ""},
    {"syn-firecracker-mmio", "MICROVM", "high", "vm:firecracker:kvm", ""},
    {"syn-firecracker-cmdline-only", "MICROVM", "high", "vm:firecracker:kvm", ""},
    /* Kata: the workload's container inside the pod VM is the innermost layer. */
    {"syn-kata-qemu", "CONTAINER", "high", "vm:qemu:kvm,container:kubernetes", ""},
    {"syn-gvisor-bare-metal", "GVISOR", "high", "gvisor:gvisor", ""},
    {"syn-seccomp-kill", "CONTAINER", "high", "vm:unknown:kvm,container:unknown",
     "syscall.modify_ldt"},
    /* One signal family alone: strong families decide (the VM alone leaves the
     * container question open); kernel identity alone is weak. */
    {"syn-family-virt", "UNKNOWN", "none", "vm:cloud-hypervisor:kvm", ""},
    {"syn-family-kernel", "GVISOR", "low", "gvisor:gvisor", ""},
    {"syn-family-syscall", "GVISOR", "low", "gvisor:gvisor", ""},
    {"syn-family-container", "CONTAINER", "high", "container:unknown", ""},
    /* The same facts in another writer's spelling. */
    {"syn-foreign-writer", "CONTAINER", "high", "vm:unknown:kvm,container:unknown", ""},
    {"syn-foreign-cpuid-tool", "MICROVM", "high", "vm:unknown:kvm", ""},
    {"syn-zvm", "MICROVM", "low", "vm:zvm:zvm", ""},
    {"syn-powervm-lpar", "MICROVM", "low", "vm:powervm:powervm", ""},
    {"syn-hyperv-dmi-kernel-log", "MICROVM", "low", "vm:hyperv:hyperv", ""},
    {"syn-lxc-no-ns", "CONTAINER", "low", "container:lxc", ""},
    {"syn-vm-cpuinfo-flag-only", "MICROVM", "low", "vm:unknown:unknown", ""},
    {"syn-bare-metal-cpuinfo-only", "NONE", "high", "", ""},
    {"syn-old-kernel-docker", "CONTAINER", "high", "container:docker", ""},
    {"syn-arm64-kvm-guest", "MICROVM", "low", "vm:unknown:kvm", ""},
    {"syn-arm64-bare-metal", "NONE", "high", "", ""},
    {"syn-lie-sys-hypervisor-bare-metal", "NONE", "high", "", "virt.sys_hypervisor"},
    {"syn-wsl2-uname-a", "MICROVM", "low", "vm:wsl2:hyperv", ""},
    /* Lying inputs: strong evidence wins, the lies are listed. */
    {"syn-lie-container-claims-gvisor", "CONTAINER", "high", "vm:unknown:kvm,container:unknown",
     "kernel.uname_release,kernel.uname_version,kernel.proc_version,kernel.cmdline,kernel.log"},
    {"syn-lie-container-claims-gvisor-no-syscalls", "CONTAINER", "high",
     "vm:unknown:kvm,container:unknown",
     "kernel.uname_release,kernel.uname_version,kernel.proc_version,kernel.cmdline,kernel.log"},
    {"syn-lie-gvisor-claims-firecracker", "GVISOR", "high", "vm:unknown:unknown,gvisor:gvisor",
     "virt.acpi_oem,virt.dmi"},
    {"syn-bare-host-dockerenv", "NONE", "high", "", "container.dockerenv"},
    /* Not enough evidence: UNKNOWN, never a guess; weak alone: low confidence. */
    {"syn-noproc-in-vm", "UNKNOWN", "none", "vm:unknown:kvm", ""},
    /* QEMU names itself in DMI: firmware evidence, no CPUID needed. */
    {"syn-weak-only-qemu", "MICROVM", "low", "vm:qemu:unknown", ""},
    {"syn-weak-markers-qemu", "MICROVM", "low", "vm:qemu:unknown", ""},
    {"syn-garbled", "UNKNOWN", "none", "", ""},
    /* Environments nobody here built, from documented values (SOURCES). */
    {"syn-hyperv-arm64-dmi", "MICROVM", "low", "vm:hyperv:hyperv", ""},
    {"syn-surface-bare-metal", "NONE", "high", "", ""},
    {"syn-aws-metal", "NONE", "high", "", ""},
    {"syn-aws-metal-no-cpuid", "NONE", "high", "", ""},
    {"syn-aws-nitro", "MICROVM", "high", "vm:amazon:kvm", ""},
    {"syn-unknown-cloud-kvm", "MICROVM", "high", "vm:unknown:kvm", ""},
    {"syn-cpuid-no-leaf0", "MICROVM", "high", "vm:unknown:kvm", ""},
    {"syn-lie-dmi-qemu-bare-metal", "NONE", "high", "", "virt.dmi"},
    {"syn-no-ns-docker", "CONTAINER", "low", "container:docker", "syscall.modify_ldt"},
    {"syn-no-ns-bare-host", "NONE", "low", "", ""},
    {"syn-no-ns-bare-host-dockerenv", "UNKNOWN", "none", "", "container.dockerenv"},
    {"syn-no-ns-vm-no-markers", "UNKNOWN", "none", "vm:unknown:kvm", ""},
    {"syn-xen-hvm", "MICROVM", "high", "vm:xen:xen", ""},
    {"syn-xen-pv-domu", "MICROVM", "low", "vm:xen:xen", ""},
    {"syn-xen-dom0", "MICROVM", "low", "vm:xen:xen", ""},
    {"syn-qemu-tcg", "MICROVM", "high", "vm:qemu:tcg", ""},
    {"syn-qemu-cpuinfo-only", "MICROVM", "low", "vm:qemu:unknown", ""},
    {"syn-vmware", "MICROVM", "high", "vm:vmware:vmware", ""},
    {"syn-virtualbox", "MICROVM", "high", "vm:virtualbox:kvm", ""},
    {"syn-parallels", "MICROVM", "high", "vm:parallels:kvm", ""},
    {"syn-bhyve", "MICROVM", "high", "vm:bhyve:bhyve", ""},
    {"syn-nutanix-ahv", "MICROVM", "high", "vm:nutanix:kvm", ""},
    {"syn-ovirt", "MICROVM", "high", "vm:ovirt:kvm", ""},
    {"syn-rhev", "MICROVM", "high", "vm:ovirt:kvm", ""},
    {"syn-openstack", "MICROVM", "high", "vm:openstack:kvm", ""},
    {"syn-upcloud", "MICROVM", "high", "vm:upcloud:kvm", ""},
    {"syn-powervm-lx86", "MICROVM", "low", "vm:powervm-lx86:powervm", ""},
    {"syn-uml", "MICROVM", "low", "vm:uml:uml", ""},
    {"syn-wsl2", "MICROVM", "high", "vm:wsl2:hyperv", ""},
    {"syn-firecracker-mptable", "MICROVM", "high", "vm:firecracker:kvm", ""},
    {"syn-crosvm", "MICROVM", "high", "vm:crosvm:kvm", ""},
    {"syn-libkrun", "MICROVM", "high", "vm:libkrun:kvm", ""},
    {"syn-apple-vz", "MICROVM", "low", "vm:apple:apple", ""},
    {"syn-sysbox", "CONTAINER", "high", "vm:unknown:kvm,container:sysbox", ""},
    {"syn-lxc", "CONTAINER", "high", "container:lxc", ""},
    {"syn-systemd-nspawn", "CONTAINER", "high", "vm:unknown:kvm,container:systemd-nspawn", ""},
    {"syn-linux-vserver", "CONTAINER", "high", "container:linux-vserver", ""},
    {"syn-lx-zone", "CONTAINER", "low", "container:lx-zone",
     "kernel.uname_release,kernel.proc_version"},
    {"syn-openvz", "CONTAINER", "high", "container:openvz", ""},
    {"syn-podman", "CONTAINER", "high", "container:podman", "syscall.modify_ldt"},
    {"syn-kubernetes-crio", "CONTAINER", "high", "vm:unknown:kvm,container:kubernetes",
     "syscall.modify_ldt"},
    {"syn-gvisor-systrap", "GVISOR", "high", "gvisor:gvisor", ""},
    {"syn-sev-snp", "MICROVM", "high", "vm:unknown:kvm", ""},
    {"syn-tdx", "MICROVM", "high", "vm:unknown:kvm", ""},
    {"syn-azure-cvm-snp", "MICROVM", "high", "vm:hyperv:hyperv", ""},
    {"syn-sev-es-kernel-log-only", "MICROVM", "high", "vm:unknown:kvm", ""},

    {"syn-empty", "UNKNOWN", "none", "", ""},
    {"does-not-exist", "UNKNOWN", "none", "", ""},
};

static void describe_layers(char *out, size_t n, const struct probe_verdict *v)
{
	out[0] = '\0';
	for (size_t i = 0; i < v->nlayers; i++) {
		const struct probe_layer *l = &v->layers[i];
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%s:%s%s%s", i ? "," : "", probe_kind_name(l->kind),
		         l->vendor, l->kind == PROBE_KIND_VM ? ":" : "",
		         l->kind == PROBE_KIND_VM ? l->hypervisor : "");
	}
}

static void describe_conflicts(char *out, size_t n, const struct probe_result *r)
{
	out[0] = '\0';
	for (size_t i = 0; i < r->verdict.nconflicts; i++) {
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%s", i ? "," : "",
		         r->sigs.v[r->verdict.conflicts[i].signal].id);
	}
}

static struct probe_result res;

static void replay(const char *fixture)
{
	char root[4096];
	snprintf(root, sizeof(root), FIXTURES "%s", fixture);
	struct probe_input in;
	probe_input_init(&in, root, NULL);
	probe_run(&in, &res);
	probe_input_free(&in);
}

START_TEST(fixture_verdicts)
{
	const struct expect *e = &cases[_i];
	char layers[512], conflicts[1024];
	replay(e->fixture);
	describe_layers(layers, sizeof(layers), &res.verdict);
	describe_conflicts(conflicts, sizeof(conflicts), &res);
	ck_assert_msg(strcmp(res.verdict.tier, e->tier) == 0, "%s: tier %s, want %s", e->fixture,
	              res.verdict.tier, e->tier);
	ck_assert_msg(strcmp(res.verdict.confidence, e->confidence) == 0,
	              "%s: confidence %s, want %s", e->fixture, res.verdict.confidence,
	              e->confidence);
	ck_assert_msg(strcmp(layers, e->layers) == 0, "%s: layers '%s', want '%s'", e->fixture,
	              layers, e->layers);
	ck_assert_msg(strcmp(conflicts, e->conflicts) == 0, "%s: conflicts '%s', want '%s'",
	              e->fixture, conflicts, e->conflicts);
}
END_TEST

/* Every conflict names who overruled it, and those are present signals
 * supporting something else. */
START_TEST(conflicts_name_their_overrulers)
{
	replay("syn-lie-container-claims-gvisor");
	ck_assert_uint_gt(res.verdict.nconflicts, 0);
	for (size_t i = 0; i < res.verdict.nconflicts; i++) {
		const struct probe_conflict *c = &res.verdict.conflicts[i];
		ck_assert_uint_eq(res.sigs.v[c->signal].weight, PROBE_WEAK);
		ck_assert_uint_eq(res.sigs.v[c->signal].supports, PROBE_KIND_GVISOR);
		/* The six syscall checks and Linux's nsfs inode numbers. */
		ck_assert_uint_eq(c->nover, 7);
		for (size_t j = 0; j < c->nover; j++) {
			const struct probe_signal *o = &res.sigs.v[c->over[j]];
			ck_assert_uint_eq(o->weight, PROBE_STRONG);
			ck_assert(o->family == PROBE_FAM_SYSCALL ||
			          strcmp(o->id, "kernel.nsfs_inodes") == 0);
		}
		ck_assert_ptr_nonnull(c->note);
	}
}
END_TEST

/* The gVisor layer absorbs the Sentry's namespaces: no container layer. */
START_TEST(gvisor_absorbs_its_namespaces)
{
	replay("real-runsc-ptrace");
	int pid = probe_find(&res.sigs, "container.ns_pid");
	ck_assert_int_ge(pid, 0);
	ck_assert_uint_eq(res.sigs.v[pid].supports, PROBE_KIND_CONTAINER);
	const struct probe_layer *g = &res.verdict.layers[res.verdict.nlayers - 1];
	ck_assert_uint_eq(g->kind, PROBE_KIND_GVISOR);
	bool found = false;
	for (size_t i = 0; i < g->nsig; i++)
		found |= g->sig[i] == (size_t)pid;
	ck_assert(found);
	/* Only ptrace makes system calls that slow: the platform is told. */
	ck_assert_str_eq(g->platform, "ptrace");
	ck_assert_str_eq(g->confidence, "high");
	replay("syn-gvisor-systrap");
	ck_assert_ptr_null(res.verdict.layers[res.verdict.nlayers - 1].platform);
}
END_TEST

/* Each signal family is present in the real native capture, with the
 * expected weights. */
START_TEST(signal_families_and_weights)
{
	static const struct {
		const char *id;
		enum probe_family fam;
		enum probe_weight w;
		enum probe_kind k;
		const char *value;
	} want[] = {
	    {"virt.cpuid_hypervisor_bit", PROBE_FAM_VIRT, PROBE_STRONG, PROBE_KIND_VM, "1"},
	    {"virt.cpuid_vendor", PROBE_FAM_VIRT, PROBE_STRONG, PROBE_KIND_VM, "KVMKVMKVM"},
	    {"virt.acpi_oem", PROBE_FAM_VIRT, PROBE_STRONG, PROBE_KIND_VM, "FIRECK FCMVXSDT"},
	    {"kernel.uname_release", PROBE_FAM_KERNEL, PROBE_WEAK, PROBE_KIND_NONE, NULL},
	    {"syscall.setfsuid", PROBE_FAM_SYSCALL, PROBE_STRONG, PROBE_KIND_NONE, "0"},
	    {"syscall.ustat", PROBE_FAM_SYSCALL, PROBE_STRONG, PROBE_KIND_NONE, "EINVAL"},
	    {"container.ns_pid", PROBE_FAM_CONTAINER, PROBE_STRONG, PROBE_KIND_NONE,
	     "pid:[4026531836]"},
	    {"container.dockerenv", PROBE_FAM_CONTAINER, PROBE_WEAK, PROBE_KIND_CONTAINER,
	     "present"},
	};
	replay("real-firecracker-native");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int at = probe_find(&res.sigs, want[i].id);
		ck_assert_msg(at >= 0, "missing %s", want[i].id);
		const struct probe_signal *s = &res.sigs.v[at];
		ck_assert_uint_eq(s->family, want[i].fam);
		ck_assert_uint_eq(s->weight, want[i].w);
		ck_assert_uint_eq(s->supports, want[i].k);
		if (want[i].value)
			ck_assert_str_eq(s->value, want[i].value);
	}
	/* gVisor's syscall answers, from the real runsc capture. */
	replay("real-runsc-ptrace");
	ck_assert_str_eq(res.sigs.v[probe_find(&res.sigs, "syscall.setfsuid")].value, "ENOSYS");
	ck_assert_str_eq(res.sigs.v[probe_find(&res.sigs, "syscall.sched_rr_get_interval")].value,
	                 "EPERM");
	ck_assert_str_eq(
	    res.sigs.v[probe_find(&res.sigs, "kernel.log")].supports == PROBE_KIND_GVISOR ? "gvisor"
	                                                                                  : "other",
	    "gvisor");
}
END_TEST

static struct probe_signal weak_sig(const char *id, enum probe_axis ax, enum probe_kind k,
                                    const char *vendor)
{
	struct probe_signal s = {.id = id,
	                         .family = PROBE_FAM_CONTAINER,
	                         .weight = PROBE_WEAK,
	                         .supports = k,
	                         .axis = ax,
	                         .vendor = vendor};
	return s;
}

/* The evidence model on hand-made tables: no single weak marker makes a
 * layer; two agree only across independent origins and with nothing
 * contradicting; contradictory markers leave the question open; a strong
 * signal outvotes any number of markers. */
START_TEST(weight_rules_on_hand_made_tables)
{
	struct probe_signals sigs = {0};
	struct probe_verdict v;
	struct probe_signal dockerenv =
	    weak_sig("container.dockerenv", PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, "docker");
	probe_add(&sigs, &dockerenv);
	probe_classify(&sigs, &v);
	/* One weak marker alone: no layer, the question is reported open. */
	ck_assert_str_eq(v.tier, "UNKNOWN");
	ck_assert_uint_eq(v.nlayers, 0);
	bool open = false;
	for (size_t i = 0; i < v.nunanswered; i++)
		open |= strcmp(v.unanswered[i].question, "container") == 0 &&
		        strstr(v.unanswered[i].why, "container.dockerenv") != NULL;
	ck_assert(open);

	/* A second file any image can ship is the same origin: still no layer. */
	struct probe_signal containerenv = weak_sig("container.containerenv", PROBE_AXIS_CONTAINER,
	                                            PROBE_KIND_CONTAINER, "podman");
	probe_add(&sigs, &containerenv);
	probe_classify(&sigs, &v);
	ck_assert_uint_eq(v.nlayers, 0);

	/* A runtime's cgroup path is another origin: a layer, low confidence. */
	struct probe_signal cg =
	    weak_sig("container.cgroup", PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, "docker");
	probe_add(&sigs, &cg);
	probe_classify(&sigs, &v);
	ck_assert_str_eq(v.tier, "CONTAINER");
	ck_assert_str_eq(v.confidence, "low");
	ck_assert_str_eq(v.layers[0].vendor, "docker");
	ck_assert_str_eq(v.layers[0].confidence, "low");

	/* A contradicting marker (a block-device root) and nothing strong: UNKNOWN. */
	struct probe_signals mixed = sigs;
	struct probe_signal disk =
	    weak_sig("container.root_fs", PROBE_AXIS_CONTAINER, PROBE_KIND_NONE, "");
	probe_add(&mixed, &disk);
	probe_classify(&mixed, &v);
	ck_assert_str_eq(v.tier, "UNKNOWN");
	ck_assert_uint_eq(v.nlayers, 0);

	/* The initial PID namespace outvotes every marker. */
	struct probe_signal ns = {.id = "container.ns_pid",
	                          .family = PROBE_FAM_CONTAINER,
	                          .weight = PROBE_STRONG,
	                          .supports = PROBE_KIND_NONE,
	                          .axis = PROBE_AXIS_CONTAINER};
	probe_add(&sigs, &ns);
	probe_classify(&sigs, &v);
	/* Container ruled out, nothing known about VM or gVisor: UNKNOWN. */
	ck_assert_str_eq(v.tier, "UNKNOWN");
	ck_assert_uint_eq(v.nconflicts, 3);
	ck_assert_str_eq(sigs.v[v.conflicts[0].signal].id, "container.dockerenv");
	ck_assert_uint_eq(v.conflicts[0].nover, 1);

	/* Only the initial user namespace known (Docker keeps it) rules nothing
	 * out: the runtime's cgroup path and a file still make a layer. */
	struct probe_signals u = {0};
	struct probe_signal user = {.id = "container.ns_user",
	                            .weight = PROBE_STRONG,
	                            .supports = PROBE_KIND_NONE,
	                            .axis = PROBE_AXIS_CONTAINER};
	probe_add(&u, &user);
	probe_add(&u, &cg);
	probe_add(&u, &dockerenv);
	probe_classify(&u, &v);
	ck_assert_str_eq(v.tier, "CONTAINER");
	ck_assert_str_eq(v.confidence, "low");

	/* One gVisor-looking text alone: no gvisor layer. */
	struct probe_signals g = {0};
	struct probe_signal pv =
	    weak_sig("kernel.proc_version", PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR, "");
	probe_add(&g, &pv);
	probe_classify(&g, &v);
	ck_assert_uint_eq(v.nlayers, 0);

	/* An unrecognised string is no vote: a Hyper-V CPUID with a DMI tuple
	 * the tables do not know is still a VM. */
	struct probe_signals h = {0};
	struct probe_signal cpu = {.id = "virt.cpuid_vendor",
	                           .weight = PROBE_STRONG,
	                           .supports = PROBE_KIND_VM,
	                           .axis = PROBE_AXIS_VM,
	                           .vendor = "hyperv",
	                           .hypervisor = "hyperv"};
	struct probe_signal dmi = {.id = "virt.dmi",
	                           .weight = PROBE_STRONG,
	                           .supports = PROBE_KIND_NONE,
	                           .axis = PROBE_AXIS_INFO};
	probe_add(&h, &cpu);
	probe_add(&h, &dmi);
	probe_classify(&h, &v);
	ck_assert_uint_eq(v.nlayers, 1);
	ck_assert_str_eq(v.layers[0].vendor, "hyperv");
	ck_assert_str_eq(v.layers[0].confidence, "high");

	/* Duplicate ids are refused; the table never overflows. */
	ck_assert_ptr_null(probe_add(&sigs, &ns));
	struct probe_signals many = {0};
	for (int i = 0; i < PROBE_MAX_SIGNALS + 10; i++) {
		static char ids[PROBE_MAX_SIGNALS + 10][16];
		snprintf(ids[i], sizeof(ids[i]), "x.%d", i);
		struct probe_signal s = {.id = ids[i]};
		probe_add(&many, &s);
	}
	ck_assert_uint_eq(many.n, PROBE_MAX_SIGNALS);
}
END_TEST

/* Every syn-* fixture names its documented source in SOURCES. */
START_TEST(fixtures_name_their_sources)
{
	size_t len;
	char *sources = probe_slurp(FIXTURES "SOURCES", 1 << 20, &len);
	ck_assert_ptr_nonnull(sources);
	DIR *d = opendir(FIXTURES);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "syn-", 4) != 0)
			continue;
		char needle[300];
		snprintf(needle, sizeof(needle), "\n%s ", e->d_name);
		ck_assert_msg(strstr(sources, needle), "SOURCES names no source for %s", e->d_name);
	}
	closedir(d);
	free(sources);
}
END_TEST

/* The table and its naming lists: sound as shipped, and every way of getting
 * them wrong is refused (an id twice, a list naming an unknown signal or one
 * of an axis that names nothing, an id twice in one list). */
START_TEST(signal_table_is_checked)
{
	char why[256] = "";
	ck_assert_msg(probe_signal_table_check(probe_signal_table, probe_signal_table_len, why,
	                                       sizeof(why)) == 0,
	              "%s", why);
	ck_assert_msg(probe_naming_check(probe_naming, PROBE_NAMES_COUNT, probe_signal_table,
	                                 probe_signal_table_len, why, sizeof(why)) == 0,
	              "%s", why);
	const struct probe_signal_desc *dmi = probe_signal_describe("virt.dmi");
	ck_assert(dmi);
	/* One id twice in the table. */
	struct probe_signal_desc bad[2] = {*dmi, *dmi};
	ck_assert_int_eq(probe_signal_table_check(bad, 2, why, sizeof(why)), -1);
	ck_assert_ptr_nonnull(strstr(why, "listed twice"));
	/* Lists: an unknown id, one on the gvisor axis, one twice; then sound. */
	static const char *const unknown[] = {"virt.dmi", "virt.no_such"};
	static const char *const gvisor[] = {"kernel.uname_release"};
	static const char *const twice[] = {"virt.dmi", "virt.acpi_oem", "virt.dmi"};
	static const char *const sound[] = {"virt.acpi_oem", "virt.dmi"};
	struct probe_naming_list l = {"vm vendor", PROBE_AXIS_VM, "vendor", unknown, 2};
	ck_assert_int_eq(
	    probe_naming_check(&l, 1, probe_signal_table, probe_signal_table_len, why, sizeof(why)),
	    -1);
	ck_assert_ptr_nonnull(strstr(why, "virt.no_such is no signal"));
	l.ids = gvisor, l.n = 1;
	ck_assert_int_eq(
	    probe_naming_check(&l, 1, probe_signal_table, probe_signal_table_len, why, sizeof(why)),
	    -1);
	ck_assert_ptr_nonnull(strstr(why, "gvisor axis"));
	l.ids = twice, l.n = 3;
	ck_assert_int_eq(
	    probe_naming_check(&l, 1, probe_signal_table, probe_signal_table_len, why, sizeof(why)),
	    -1);
	ck_assert_ptr_nonnull(strstr(why, "virt.dmi listed twice"));
	l.ids = sound, l.n = 2;
	ck_assert_int_eq(
	    probe_naming_check(&l, 1, probe_signal_table, probe_signal_table_len, why, sizeof(why)),
	    0);
	/* Lowest place wins: the order is the precedence. */
	ck_assert_uint_eq(probe_naming_rank(&l, "virt.acpi_oem"), 1);
	ck_assert_uint_eq(probe_naming_rank(&l, "virt.dmi"), 2);
	ck_assert_uint_eq(probe_naming_rank(&l, "virt.virtio"), 0);
}
END_TEST

/* SIGNALS.md holds the signal table, in order, between its markers, as
 * `isotier-probe --list-signals` writes it: the doc cannot drift from the
 * code. ISOTIER_WRITE_SIGNALS_MD=1 rewrites it. */
START_TEST(signals_md_matches_the_table)
{
	size_t len;
	char *md = probe_slurp(ISOTIER_SOURCE_DIR "/probes/SIGNALS.md", 1 << 20, &len);
	ck_assert_ptr_nonnull(md);
	const char *begin = strstr(md, "<!-- signal-table:begin -->\n");
	const char *end = strstr(md, "<!-- signal-table:end -->");
	ck_assert_msg(begin && end && begin < end, "SIGNALS.md lacks the table markers");
	begin += strlen("<!-- signal-table:begin -->\n");
	char *want = NULL;
	size_t wlen = 0;
	FILE *f = open_memstream(&want, &wlen);
	ck_assert_ptr_nonnull(f);
	/* The writer `isotier-probe --list-signals` prints with. */
	ck_assert_int_eq(probe_signal_table_markdown(f, probe_signal_table, probe_signal_table_len),
	                 0);
	fclose(f);
	bool same = (size_t)(end - begin) == wlen && memcmp(begin, want, wlen) == 0;
	const char *w = getenv("ISOTIER_WRITE_SIGNALS_MD");
	if (!same && w && strcmp(w, "1") == 0) {
		FILE *o = fopen(ISOTIER_SOURCE_DIR "/probes/SIGNALS.md", "w");
		ck_assert_ptr_nonnull(o);
		fwrite(md, 1, (size_t)(begin - md), o);
		fwrite(want, 1, wlen, o);
		fputs(end, o);
		fclose(o);
		same = true;
	}
	ck_assert_msg(same, "SIGNALS.md's table differs from probes/signals.c; expected:\n%s",
	              want);
	free(want);
	free(md);
}
END_TEST

/* A cell holding '|' or a newline stays one cell of one row. */
START_TEST(signal_markdown_keeps_cells_whole)
{
	struct probe_signal_desc d = *probe_signal_describe("virt.dmi");
	d.source = "a|b";
	d.description = "one\ntwo";
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(probe_signal_table_markdown(f, &d, 1), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(text, "| a\\|b |"));
	ck_assert_ptr_nonnull(strstr(text, "| one two |\n"));
	ck_assert_ptr_nonnull(
	    strstr(text, "| vendor 3, hypervisor 12 |")); /* places in the lists */
	ck_assert_ptr_nonnull(
	    strstr(text, "- container runtime: `container.sysboxfs` > `container.vxid` >"));
	free(text);
}
END_TEST

/* Every signal any fixture produces is in the table, with its family, and
 * voting on its table axis (or informational). */
START_TEST(every_signal_is_in_the_table)
{
	DIR *d = opendir(FIXTURES);
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    (strncmp(e->d_name, "syn-", 4) != 0 && strncmp(e->d_name, "real-", 5) != 0))
			continue;
		replay(e->d_name);
		for (size_t i = 0; i < res.sigs.n; i++) {
			const struct probe_signal *s = &res.sigs.v[i];
			const struct probe_signal_desc *t = probe_signal_describe(s->id);
			ck_assert_msg(t, "%s: %s is not in probes/signals.c", e->d_name, s->id);
			ck_assert_uint_eq(t->family, s->family);
			ck_assert_msg(s->axis == t->axis || s->axis == PROBE_AXIS_INFO,
			              "%s: %s votes on %s", e->d_name, s->id,
			              probe_axis_name(s->axis));
			ck_assert(s->weight == PROBE_WEAK || t->strong != PROBE_CLASS_MARKER);
		}
	}
	closedir(d);
}
END_TEST

/* Confidential VMs: the technology and the signals behind it, on the vm layer. */
START_TEST(confidential_vm_axis)
{
	static const struct {
		const char *fixture, *tech;
		size_t min_evidence;
	} want[] = {
	    {"syn-sev-snp", "sev-snp", 3},
	    {"syn-tdx", "tdx", 3},
	    {"syn-azure-cvm-snp", "sev-snp", 2},
	    {"syn-sev-es-kernel-log-only", "sev-es", 1},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		replay(want[i].fixture);
		ck_assert_uint_ge(res.verdict.nlayers, 1);
		const struct probe_layer *l = &res.verdict.layers[0];
		ck_assert_uint_eq(l->kind, PROBE_KIND_VM);
		ck_assert_msg(l->cvm && strcmp(l->cvm, want[i].tech) == 0, "%s: cvm %s",
		              want[i].fixture, l->cvm ? l->cvm : "(none)");
		ck_assert_uint_ge(l->ncvm, want[i].min_evidence);
	}
	/* No confidential VM: no cvm on the layer. */
	replay("syn-hyperv");
	ck_assert_ptr_null(res.verdict.layers[0].cvm);
	/* A SEV-capable host's CPUID alone is no confidential VM. */
	replay("real-firecracker-native");
	ck_assert_ptr_null(res.verdict.layers[0].cvm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_classify");
	TCase *tc = tcase_create("fixtures");
	tcase_add_loop_test(tc, fixture_verdicts, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, conflicts_name_their_overrulers);
	tcase_add_test(tc, gvisor_absorbs_its_namespaces);
	tcase_add_test(tc, signal_families_and_weights);
	tcase_add_test(tc, weight_rules_on_hand_made_tables);
	tcase_add_test(tc, fixtures_name_their_sources);
	tcase_add_test(tc, signals_md_matches_the_table);
	tcase_add_test(tc, signal_markdown_keeps_cells_whole);
	tcase_add_test(tc, signal_table_is_checked);
	tcase_add_test(tc, every_signal_is_in_the_table);
	tcase_add_test(tc, confidential_vm_axis);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
