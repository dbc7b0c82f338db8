/*
 * classify.c - from the signal table to layers and an observed tier.
 *
 * Three questions (axes), each answered on its own: is there a hardware VM
 * (vm), does gVisor's Sentry answer our system calls (gvisor), is there a
 * namespace boundary (container)? Per axis, strong signals decide by
 * majority; weak signals decide only when no strong signal speaks, and then
 * only with low confidence. A signal that claims a layer its axis denies is
 * a conflict, listed with the signals that overruled it.
 *
 * Layers are stacked outermost first: vm, gvisor, container. The innermost
 * decides the tier. One absorption: the Sentry's namespaces belong to the
 * gvisor layer, because gVisor fabricates them itself rather than a kernel
 * drawing a boundary. A container inside a VM (Kata's agent, a Kubernetes
 * node) is a layer of its own: the workload's innermost boundary is the
 * container, and the judge calls a claimed microVM around it CONSISTENT.
 */
#include "probe.h"

#include <string.h>

enum probe_state {
	PROBE_UNKNOWN,
	PROBE_ABSENT_WEAK,
	PROBE_ABSENT,
	PROBE_PRESENT_WEAK,
	PROBE_PRESENT
};

static bool probe_present(enum probe_state s)
{
	return s == PROBE_PRESENT || s == PROBE_PRESENT_WEAK;
}

static bool probe_absent(enum probe_state s)
{
	return s == PROBE_ABSENT || s == PROBE_ABSENT_WEAK;
}

/* Does signal s vote on axis ax? Inside gVisor, kernel-reported VM files
 * are the Sentry's inventions and do not vote. */
static bool probe_votes(const struct probe_signal *s, enum probe_axis ax, bool drop_kernel_reported)
{
	return s->axis == ax && !(drop_kernel_reported && s->kernel_reported);
}

static enum probe_state probe_axis_state(const struct probe_signals *sigs, enum probe_axis ax,
                                         enum probe_kind kind, bool drop_kr)
{
	unsigned sf = 0, sa = 0, wf = 0, wa = 0;
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		if (!probe_votes(s, ax, drop_kr))
			continue;
		bool strong = s->weight == PROBE_STRONG;
		if (s->supports == kind)
			strong ? sf++ : wf++;
		else
			strong ? sa++ : wa++;
	}
	if (ax == PROBE_AXIS_CONTAINER && (sf || sa)) {
		/*
		 * Partial namespace sets are normal (Docker keeps the initial user
		 * namespace; a service may only get its own UTS namespace). A
		 * private PID namespace, or two private namespaces, is a boundary.
		 */
		int pid = probe_find(sigs, "container.ns_pid");
		bool pid_private = pid >= 0 && sigs->v[pid].supports == PROBE_KIND_CONTAINER;
		return pid_private || sf >= 2 ? PROBE_PRESENT : PROBE_ABSENT;
	}
	if (sf > sa)
		return PROBE_PRESENT;
	if (sa > sf)
		return PROBE_ABSENT;
	/* Strong evidence split evenly (a newer gVisor implementing some of the
	 * calls?): weak evidence may break the tie, with low confidence. */
	if (wf > wa)
		return PROBE_PRESENT_WEAK;
	if (wa > wf)
		return PROBE_ABSENT_WEAK;
	return PROBE_UNKNOWN;
}

static void probe_conflict_add(struct probe_verdict *v, const struct probe_signals *sigs,
                               size_t idx, enum probe_axis over_axis, enum probe_kind over_kind,
                               bool strong_only, bool drop_kr, const char *note)
{
	if (v->nconflicts >= PROBE_MAX_CONFLICTS)
		return;
	struct probe_conflict *c = &v->conflicts[v->nconflicts++];
	c->signal = idx;
	c->nover = 0;
	c->note = note;
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		if (i == idx || !probe_votes(s, over_axis, drop_kr) || s->supports != over_kind)
			continue;
		if (strong_only && s->weight != PROBE_STRONG)
			continue;
		c->over[c->nover++] = i;
	}
}

/* Claims of a layer on an axis that came out absent. */
static void probe_axis_conflicts(struct probe_verdict *v, const struct probe_signals *sigs,
                                 enum probe_axis ax, enum probe_kind kind, enum probe_state st,
                                 bool drop_kr, const char *strong_note, const char *weak_note)
{
	if (!probe_absent(st))
		return;
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		if (probe_votes(s, ax, drop_kr) && s->supports == kind)
			probe_conflict_add(v, sigs, i, ax, PROBE_KIND_NONE, st == PROBE_ABSENT,
			                   drop_kr, st == PROBE_ABSENT ? strong_note : weak_note);
	}
}

static void probe_layer_add_signals(struct probe_layer *l, const struct probe_signals *sigs,
                                    enum probe_axis ax, enum probe_kind kind, bool drop_kr)
{
	for (size_t i = 0; i < sigs->n && l->nsig < PROBE_MAX_SIGNALS; i++)
		if (probe_votes(&sigs->v[i], ax, drop_kr) && sigs->v[i].supports == kind)
			l->sig[l->nsig++] = i;
}

/* The first layer signal, in `order`, that names something. */
static const char *probe_pick(const struct probe_layer *l, const struct probe_signals *sigs,
                              const char *const *order, size_t n, bool hypervisor)
{
	for (size_t o = 0; o < n; o++) {
		for (size_t i = 0; i < l->nsig; i++) {
			const struct probe_signal *s = &sigs->v[l->sig[i]];
			const char *name = hypervisor ? s->hypervisor : s->vendor;
			if (strcmp(s->id, order[o]) == 0 && name[0] && strcmp(name, "unknown") != 0)
				return name;
		}
	}
	return "unknown";
}

static void probe_layer_vm(struct probe_layer *l, const struct probe_signals *sigs, bool in_gvisor)
{
	/* Firmware tables name the VMM best; CPUID names the hypervisor. */
	static const char *const vendor_order[] = {
	    "virt.acpi_oem",
	    "virt.dmi_sys_vendor",
	    "virt.dmi_product_name",
	    "virt.dmi_board_vendor",
	    "virt.dmi_bios_vendor",
	    "virt.pci_host_bridge",
	    "virt.virtio",
	    "virt.cmdline_virtio_mmio",
	    "virt.cpuid_vendor",
	    "virt.sys_hypervisor",
	    "virt.dt_layout",
	    "virt.dt_hypervisor",
	    "virt.midr",
	};
	static const char *const hv_order[] = {
	    "virt.cpuid_vendor",    "virt.sys_hypervisor",   "virt.acpi_oem",
	    "virt.dmi_sys_vendor",  "virt.dmi_product_name", "virt.dmi_board_vendor",
	    "virt.dmi_bios_vendor", "virt.pci_host_bridge",  "virt.midr",
	    "virt.kvm_services",    "virt.ptp_kvm",          "virt.dt_hypervisor",
	};
	memset(l, 0, sizeof(*l));
	l->kind = PROBE_KIND_VM;
	probe_layer_add_signals(l, sigs, PROBE_AXIS_VM, PROBE_KIND_VM, in_gvisor);
	snprintf(
	    l->vendor, sizeof(l->vendor), "%s",
	    probe_pick(l, sigs, vendor_order, sizeof(vendor_order) / sizeof(*vendor_order), false));
	snprintf(l->hypervisor, sizeof(l->hypervisor), "%s",
	         probe_pick(l, sigs, hv_order, sizeof(hv_order) / sizeof(*hv_order), true));
}

static void probe_layer_container(struct probe_layer *l, const struct probe_signals *sigs)
{
	/* Kernel-provided paths first, files any image can carry last. */
	static const char *const order[] = {
	    "container.cgroup",       "container.mounts",
	    "container.pid1_comm",    "container.systemd_container",
	    "container.host_manager", "container.pid1_environ",
	    "container.containerenv", "container.dockerenv",
	    "container.root_fs",      "container.cap_bounding",
	};
	memset(l, 0, sizeof(*l));
	l->kind = PROBE_KIND_CONTAINER;
	probe_layer_add_signals(l, sigs, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, false);
	snprintf(l->vendor, sizeof(l->vendor), "%s",
	         probe_pick(l, sigs, order, sizeof(order) / sizeof(*order), false));
}

void probe_classify(const struct probe_signals *sigs, struct probe_verdict *out)
{
	memset(out, 0, sizeof(*out));
	enum probe_state g = probe_axis_state(sigs, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR, false);
	bool in_gvisor = probe_present(g);
	enum probe_state vm = probe_axis_state(sigs, PROBE_AXIS_VM, PROBE_KIND_VM, in_gvisor);
	enum probe_state c =
	    probe_axis_state(sigs, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, false);

	/* ---- conflicts ---- */
	probe_axis_conflicts(out, sigs, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR, g, false,
	                     "system calls behave like Linux, not like gVisor's Sentry",
	                     "weak evidence against gVisor outweighs it");
	probe_axis_conflicts(out, sigs, PROBE_AXIS_VM, PROBE_KIND_VM, vm, in_gvisor,
	                     "CPUID reports no hypervisor",
	                     "weak evidence against a VM outweighs it");
	probe_axis_conflicts(out, sigs, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, c, false,
	                     "namespaces are the kernel's initial ones: no container boundary",
	                     "weak evidence against a container outweighs it");
	if (in_gvisor) {
		for (size_t i = 0; i < sigs->n; i++) {
			const struct probe_signal *s = &sigs->v[i];
			if (s->axis == PROBE_AXIS_VM && s->kernel_reported &&
			    s->supports == PROBE_KIND_VM)
				probe_conflict_add(
				    out, sigs, i, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR,
				    g == PROBE_PRESENT, false,
				    "inside gVisor, sysfs, the kernel log and the command "
				    "line are the Sentry's, not the hardware's");
		}
	}

	/* ---- layers, outermost first ---- */
	if (probe_present(vm))
		probe_layer_vm(&out->layers[out->nlayers++], sigs, in_gvisor);
	if (in_gvisor) {
		struct probe_layer *l = &out->layers[out->nlayers++];
		memset(l, 0, sizeof(*l));
		l->kind = PROBE_KIND_GVISOR;
		snprintf(l->vendor, sizeof(l->vendor), "gvisor");
		probe_layer_add_signals(l, sigs, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR, false);
		probe_layer_add_signals(l, sigs, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, false);
	} else if (probe_present(c)) {
		probe_layer_container(&out->layers[out->nlayers++], sigs);
	}

	/* ---- tier: the innermost layer, or NONE when every axis says no ---- */
	bool high;
	if (in_gvisor) {
		out->tier = "GVISOR";
		high = g == PROBE_PRESENT;
	} else if (probe_present(c)) {
		/* Not ruling gVisor out only means the truth may be stronger. */
		out->tier = "CONTAINER";
		high = c == PROBE_PRESENT;
	} else if (c == PROBE_UNKNOWN) {
		/* Without the namespace question answered, a VM or a bare host
		 * could still hide a container: no guess. */
		out->tier = "UNKNOWN";
		high = false;
	} else if (probe_present(vm)) {
		out->tier = "MICROVM";
		high = vm == PROBE_PRESENT && c == PROBE_ABSENT && g == PROBE_ABSENT;
	} else if (probe_absent(vm)) {
		out->tier = "NONE";
		high = vm == PROBE_ABSENT && c == PROBE_ABSENT && g == PROBE_ABSENT;
	} else {
		out->tier = "UNKNOWN";
		high = false;
	}
	out->confidence = strcmp(out->tier, "UNKNOWN") == 0 ? "none" : high ? "high" : "low";
}
