/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_probe_arm64.c - isotier-probe's arm64 evidence (sig_virt_arm64.c) over
 * replay fixtures: a real capture from an aarch64 QEMU virt guest under TCG
 * (real-qemu-virt-aarch64-tcg) and synthetic ones written by
 * tests/fixtures/probe/make-arm64.py from the device trees Firecracker, Cloud
 * Hypervisor and QEMU write (make-arm64.py names the sources), plus the
 * parsers on hostile text. One rule, one case, each signal with the evidence
 * class probes/signals.c gives it (SIGNALS.md): MIDR implementer 0 is
 * hardware; the device tree's root, its /hypervisor node (virt.device_tree),
 * KVM's services and its PTP clock are the platform naming itself (firmware);
 * the PSCI conduit and the node layout are markers that name the VMM; PSCI
 * "smc" is a marker against a VM.
 */
#include <check.h>
#include "check_run.h"
#include "replay_root.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probe.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

struct expect {
	const char *fixture;
	const char *tier, *confidence;
	const char *layers;  /* kind:vendor[:hypervisor], outermost first */
	const char *signals; /* the arm64 signals present, in report order, with their weight */
};

static const struct expect cases[] = {
    /* Real: MIDR implementer 0 (QEMU's emulated "max" CPU) is the hardware signal. */
    {"real-qemu-virt-aarch64-tcg", "MICROVM", "high", "vm:qemu:tcg",
     "virt.midr=strong/vm/hardware virt.dt_compatible=strong/vm/firmware "
     "virt.dt_psci=weak/vm/marker virt.dt_layout=weak/vm/marker"},
    /* Under KVM the host's MIDR shows through (no vote); the platform names itself in
     * firmware (the device tree's root, KVM's SMCCC answer as the kernel logged it): files
     * the sandbox could have written, so the vm layer is low. */
    {"syn-arm64-firecracker", "MICROVM", "low", "vm:firecracker:kvm",
     "virt.midr=weak/none/marker virt.dt_compatible=strong/vm/firmware "
     "virt.dt_psci=weak/vm/marker virt.kernel_log=strong/vm/firmware "
     "virt.dt_layout=weak/vm/marker virt.kvm_services=strong/vm/firmware"},
    {"syn-arm64-cloud-hypervisor", "MICROVM", "low", "vm:cloud-hypervisor:kvm",
     "virt.midr=weak/none/marker virt.dt_compatible=strong/vm/firmware "
     "virt.dt_psci=weak/vm/marker virt.kernel_log=strong/vm/firmware "
     "virt.dt_layout=weak/vm/marker virt.kvm_services=strong/vm/firmware "
     "virt.ptp_kvm=strong/vm/firmware"},
    {"syn-arm64-qemu-kvm", "MICROVM", "low", "vm:qemu:kvm",
     "virt.midr=weak/none/marker virt.dt_compatible=strong/vm/firmware "
     "virt.dt_psci=weak/vm/marker virt.kernel_log=strong/vm/firmware "
     "virt.dt_layout=weak/vm/marker virt.kvm_services=strong/vm/firmware "
     "virt.ptp_kvm=strong/vm/firmware"},
    /* Xen names itself in a /hypervisor node (virt.device_tree); its root is no dummy-virt. */
    {"syn-arm64-xen", "MICROVM", "low", "vm:xen:xen",
     "virt.midr=weak/none/marker virt.dt_compatible=weak/none/marker "
     "virt.dt_psci=weak/vm/marker virt.device_tree=strong/vm/firmware"},
    /* A board, EL3 firmware, the kernel entered at EL2: no VM. */
    {"syn-arm64-bare-metal", "NONE", "high", "",
     "virt.midr=weak/none/marker virt.dt_compatible=weak/none/marker "
     "virt.dt_psci=weak/none/marker virt.kernel_log=strong/none/firmware"},
    /* A device tree alone: the root names a virtual board (firmware, as DMI alone would),
     * but no VMM. */
    {"syn-arm64-dt-only", "MICROVM", "low", "vm:unknown:unknown",
     "virt.dt_compatible=strong/vm/firmware virt.dt_psci=weak/vm/marker"},
};

static struct probe_result res;

static void replay(const char *root)
{
	struct probe_input in;
	probe_input_init(&in, root, NULL);
	probe_run(&in, &res);
	probe_input_free(&in);
}

static void describe_layers(char *out, size_t n)
{
	out[0] = '\0';
	for (size_t i = 0; i < res.verdict.nlayers; i++) {
		const struct probe_layer *l = &res.verdict.layers[i];
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%s:%s%s%s", i ? "," : "", probe_kind_name(l->kind),
		         l->vendor, l->kind == PROBE_KIND_VM ? ":" : "",
		         l->kind == PROBE_KIND_VM ? l->hypervisor : "");
	}
}

static void describe_arm64(char *out, size_t n)
{
	static const char *const ids[] = {
	    "virt.midr",       "virt.dt_compatible", "virt.dt_psci",      "virt.device_tree",
	    "virt.kernel_log", "virt.dt_layout",     "virt.kvm_services", "virt.ptp_kvm"};
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		int k = probe_find(&res.sigs, ids[i]);
		if (k < 0)
			continue;
		const struct probe_signal *s = &res.sigs.v[k];
		size_t len = strlen(out);
		snprintf(out + len, n - len, "%s%s=%s/%s/%s", len ? " " : "", s->id,
		         probe_weight_name(s->weight),
		         s->axis == PROBE_AXIS_INFO ? "none" : probe_kind_name(s->supports),
		         probe_class_name(s->cls));
	}
}

START_TEST(arm64_fixtures)
{
	const struct expect *e = &cases[_i];
	char root[4096], layers[256], sigs[1024];
	snprintf(root, sizeof(root), FIXTURES "%s", e->fixture);
	replay(root);
	describe_layers(layers, sizeof(layers));
	describe_arm64(sigs, sizeof(sigs));
	ck_assert_msg(strcmp(res.verdict.tier, e->tier) == 0, "%s: tier %s, want %s", e->fixture,
	              res.verdict.tier, e->tier);
	ck_assert_msg(strcmp(res.verdict.confidence, e->confidence) == 0,
	              "%s: confidence %s, want %s", e->fixture, res.verdict.confidence,
	              e->confidence);
	ck_assert_msg(strcmp(layers, e->layers) == 0, "%s: layers '%s', want '%s'", e->fixture,
	              layers, e->layers);
	ck_assert_msg(strcmp(sigs, e->signals) == 0, "%s: signals '%s', want '%s'", e->fixture,
	              sigs, e->signals);
}
END_TEST

/* Writes files under a fresh temp dir: the hostile-input cases. */
static char tmp[64];

static void put_tmp(const char *rel, const char *data, size_t len)
{
	put(tmp, rel, data, len);
}

static void cleanup_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	ck_assert_int_eq(system(cmd), 0);
}

/* Garbage, overlong lines, NULs and unparsable MIDRs: no signal, no crash. */
START_TEST(arm64_hostile_inputs)
{
	snprintf(tmp, sizeof(tmp), "/tmp/isotier-arm64.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	put_tmp(".probe/midr", "midr_el1 0xzz\n", 14);
	char big[PROBE_MAX_FILE + 100];
	memset(big, 'A', sizeof(big));
	memcpy(big, "node virtio_mmio@", 17);
	put_tmp(".probe/devicetree", big, sizeof(big));
	put_tmp("sys/class/ptp/ptp0/clock_name", "KVM virtual PTP plus\n", 21);
	replay(tmp);
	ck_assert_int_lt(probe_find(&res.sigs, "virt.midr"), 0);
	ck_assert_int_lt(probe_find(&res.sigs, "virt.ptp_kvm"), 0);
	ck_assert_int_lt(probe_find(&res.sigs, "virt.dt_compatible"), 0);
	/* A MIDR beyond 32 bits and a NUL-laden tree. */
	put_tmp(".probe/midr", "midr_el1 0x1000000000\n", 22);
	put_tmp(".probe/devicetree", "compatible linux,dummy-virt\0node x\npsci-method smc\n", 51);
	replay(tmp);
	ck_assert_int_lt(probe_find(&res.sigs, "virt.midr"), 0);
	int c = probe_find(&res.sigs, "virt.dt_compatible");
	ck_assert_int_ge(c, 0);
	ck_assert_int_eq(res.sigs.v[c].supports, PROBE_KIND_VM);
	/* Implementer 0 in the other spelling (no 0x) is still read. */
	put_tmp(".probe/midr", "midr_el1 000f0510\n", 18);
	replay(tmp);
	c = probe_find(&res.sigs, "virt.midr");
	ck_assert_int_ge(c, 0);
	ck_assert_int_eq(res.sigs.v[c].weight, PROBE_STRONG);
	cleanup_tmp();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_arm64");
	TCase *tc = tcase_create("arm64");
	tcase_add_loop_test(tc, arm64_fixtures, 0, (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, arm64_hostile_inputs);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
