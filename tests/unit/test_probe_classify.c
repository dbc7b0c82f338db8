/*
 * test_probe_classify.c - isotier-probe's verdicts over replay fixtures
 * (tests/fixtures/probe/): real captures from this machine kind (native
 * Firecracker, bwrap, runc, runsc, QEMU TCG) and synthetic ones for the
 * environments it cannot host and for lying inputs. Strong evidence wins.
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
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

static const struct expect cases[] = {
    /* Real captures. */
    {"real-firecracker-native", "MICROVM", "high", "vm:firecracker:kvm", "container.dockerenv"},
    {"real-bwrap", "CONTAINER", "high", "vm:firecracker:kvm,container:bubblewrap", ""},
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
    {"syn-family-syscall", "GVISOR", "high", "gvisor:gvisor", ""},
    {"syn-family-container", "CONTAINER", "high", "container:unknown", ""},
    /* The same facts in another writer's spelling. */
    {"syn-foreign-writer", "CONTAINER", "high", "vm:unknown:kvm,container:unknown", ""},
    /* Lying inputs: strong evidence wins, the lies are listed. */
    {"syn-lie-container-claims-gvisor", "CONTAINER", "high", "vm:unknown:kvm,container:unknown",
     "kernel.uname_release,kernel.uname_version,kernel.proc_version,kernel.cmdline,kernel.log"},
    {"syn-lie-container-claims-gvisor-no-syscalls", "CONTAINER", "high",
     "vm:unknown:kvm,container:unknown",
     "kernel.uname_release,kernel.uname_version,kernel.proc_version,kernel.cmdline,kernel.log"},
    {"syn-lie-gvisor-claims-firecracker", "GVISOR", "high", "vm:unknown:unknown,gvisor:gvisor",
     "virt.acpi_oem,virt.dmi_sys_vendor"},
    {"syn-bare-host-dockerenv", "NONE", "high", "", "container.dockerenv"},
    /* Not enough evidence: UNKNOWN, never a guess; weak alone: low confidence. */
    {"syn-noproc-in-vm", "UNKNOWN", "none", "vm:unknown:kvm", ""},
    {"syn-weak-only-qemu", "MICROVM", "low", "vm:qemu:unknown", ""},
    {"syn-garbled", "UNKNOWN", "none", "", ""},
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
	    {"virt.acpi_oem", PROBE_FAM_VIRT, PROBE_WEAK, PROBE_KIND_VM, "FIRECK FCMVXSDT"},
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

/* Weak evidence alone decides only with low confidence, and a single weak
 * marker never outvotes strong namespaces. */
START_TEST(weight_rules_on_hand_made_tables)
{
	struct probe_signals sigs = {0};
	struct probe_verdict v;
	struct probe_signal weak_docker = {.id = "container.dockerenv",
	                                   .family = PROBE_FAM_CONTAINER,
	                                   .weight = PROBE_WEAK,
	                                   .supports = PROBE_KIND_CONTAINER,
	                                   .axis = PROBE_AXIS_CONTAINER,
	                                   .vendor = "docker"};
	probe_add(&sigs, &weak_docker);
	probe_classify(&sigs, &v);
	/* Only a weak container claim: CONTAINER, low. */
	ck_assert_str_eq(v.tier, "CONTAINER");
	ck_assert_str_eq(v.confidence, "low");
	ck_assert_str_eq(v.layers[0].vendor, "docker");

	struct probe_signal ns = {.id = "container.ns_pid",
	                          .family = PROBE_FAM_CONTAINER,
	                          .weight = PROBE_STRONG,
	                          .supports = PROBE_KIND_NONE,
	                          .axis = PROBE_AXIS_CONTAINER};
	probe_add(&sigs, &ns);
	probe_classify(&sigs, &v);
	/* Container ruled out, nothing known about VM or gVisor: UNKNOWN. */
	ck_assert_str_eq(v.tier, "UNKNOWN");
	ck_assert_uint_eq(v.nconflicts, 1);
	ck_assert_str_eq(sigs.v[v.conflicts[0].signal].id, "container.dockerenv");

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

int main(void)
{
	Suite *s = suite_create("probe_classify");
	TCase *tc = tcase_create("fixtures");
	tcase_add_loop_test(tc, fixture_verdicts, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, conflicts_name_their_overrulers);
	tcase_add_test(tc, gvisor_absorbs_its_namespaces);
	tcase_add_test(tc, signal_families_and_weights);
	tcase_add_test(tc, weight_rules_on_hand_made_tables);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
