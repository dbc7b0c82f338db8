/* SPDX-License-Identifier: Apache-2.0 */
/*
 * classify.c - from the signal table to layers and an observed tier.
 *
 * Three questions (axes), each answered on its own: is there a hardware VM
 * (vm), does gVisor's Sentry answer our system calls (gvisor), is there a
 * namespace boundary (container)? Evidence is ranked by the class it rests
 * on (SIGNALS.md): hardware and behaviour, then the platform naming itself
 * in firmware, then markers. The highest rank that speaks decides by
 * majority (an even split passes the question down). Markers alone decide
 * only when at least two of independent origins agree and none
 * contradicts; contradictory markers leave the question open. A signal that
 * claims a layer its axis denies is a conflict, listed with the signals
 * that overruled it. No vote from ignorance: collectors give a string they
 * do not recognise no vote at all. Files never outvote hardware or behaviour:
 * a layer that only firmware-class files make is low confidence, and /proc
 * or namespace files the kernel disowns (kernel.identity_*) answer nothing.
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
	PROBE_UNKNOWN,  /* nothing speaks */
	PROBE_HINT,     /* one kind of marker for, nothing against: not enough */
	PROBE_CONFLICT, /* markers disagree, nothing stronger speaks */
	PROBE_ABSENT_WEAK,
	PROBE_ABSENT,
	PROBE_PRESENT_WEAK,
	PROBE_PRESENT
};

struct probe_axis_result {
	enum probe_state st;
	int rank; /* the rank that decided (2 hardware/behaviour, 1 firmware, 0 markers) */
};

static bool probe_present(enum probe_state s)
{
	return s == PROBE_PRESENT || s == PROBE_PRESENT_WEAK;
}

static bool probe_absent(enum probe_state s)
{
	return s == PROBE_ABSENT || s == PROBE_ABSENT_WEAK;
}

static int probe_rank(const struct probe_signal *s)
{
	switch (s->cls) {
	case PROBE_CLASS_HARDWARE:
	case PROBE_CLASS_BEHAVIOUR: return 2;
	case PROBE_CLASS_FIRMWARE: return 1;
	default: return 0;
	}
}

struct probe_ctx {
	const struct probe_signals *sigs;
	bool in_gvisor; /* kernel-reported VM files are the Sentry's: no vote */
	bool paravirt;  /* a paravirtual kernel names itself: CPUID "no" is no vote */
	/* The kernel says /proc or its namespace files are not its own
	 * (kernel.identity_*): what they show is what the sandbox wrote. */
	bool proc_forged;
};

/* Does signal s vote on axis ax? */
static bool probe_votes(const struct probe_ctx *x, const struct probe_signal *s, enum probe_axis ax)
{
	if (s->axis != ax)
		return false;
	if (x->proc_forged && strcmp(s->id, "kernel.nsfs_inodes") == 0)
		return false;
	if (ax == PROBE_AXIS_VM && x->in_gvisor && s->kernel_reported)
		return false;
	/* Under Xen PV, UML or Lx86 user-space CPUID is the host's. */
	if (ax == PROBE_AXIS_VM && x->paravirt && s->supports == PROBE_KIND_NONE &&
	    (strcmp(s->origin, "cpuid") == 0 || strcmp(s->origin, "cpuinfo") == 0))
		return false;
	return true;
}

/* Distinct origins among the voting markers supporting (or not) kind. */
static unsigned probe_origins(const struct probe_ctx *x, enum probe_axis ax, bool for_kind,
                              enum probe_kind kind)
{
	const char *seen[PROBE_MAX_SIGNALS];
	unsigned n = 0;
	for (size_t i = 0; i < x->sigs->n; i++) {
		const struct probe_signal *s = &x->sigs->v[i];
		if (!probe_votes(x, s, ax) || probe_rank(s) != 0 ||
		    (s->supports == kind) != for_kind)
			continue;
		bool dup = false;
		for (unsigned j = 0; j < n && !dup; j++)
			dup = strcmp(seen[j], s->origin) == 0;
		if (!dup)
			seen[n++] = s->origin;
	}
	return n;
}

static struct probe_axis_result probe_axis_state(const struct probe_ctx *x, enum probe_axis ax,
                                                 enum probe_kind kind)
{
	unsigned f[3] = {0}, a[3] = {0}, ns_for = 0, ns_against = 0, other_for = 0;
	bool pid_private = false, pid_known = false;
	for (size_t i = 0; i < x->sigs->n; i++) {
		const struct probe_signal *s = &x->sigs->v[i];
		if (!probe_votes(x, s, ax))
			continue;
		int r = probe_rank(s);
		bool yes = s->supports == kind;
		yes ? f[r]++ : a[r]++;
		if (ax == PROBE_AXIS_CONTAINER && r == 2) {
			bool ns = probe_starts_with(s->id, "container.ns_");
			if (ns)
				yes ? ns_for++ : ns_against++;
			else if (yes)
				other_for++;
			if (strcmp(s->id, "container.ns_pid") == 0)
				pid_known = true, pid_private = yes;
		}
	}
	if (ax == PROBE_AXIS_CONTAINER && (f[2] || a[2])) {
		/*
		 * Partial namespace sets are normal (Docker keeps the initial user
		 * namespace; a service may only get its own UTS namespace). A
		 * private PID namespace, two private namespaces, or a boundary the
		 * kernel names otherwise (NSpid, VxID) is a container.
		 */
		bool yes = pid_private || ns_for >= 2 || other_for > 0;
		/* Without the PID namespace, one initial namespace (Docker keeps
		 * the user one) does not rule a container out. */
		if (yes || pid_known || ns_against >= 2)
			return (struct probe_axis_result){yes ? PROBE_PRESENT : PROBE_ABSENT, 2};
		f[2] = a[2] = 0; /* no answer from namespaces: the markers may speak */
	}
	for (int r = 2; r >= 1; r--) {
		/* Files never make a high-confidence layer: firmware-class evidence
		 * (DMI, ACPI, /sys/hypervisor, the device tree, the kernel log) is
		 * what the sandbox's files say, so a layer it alone makes is low. A
		 * "no" may rest on it: that only lowers what is claimed. */
		if (f[r] > a[r])
			return (struct probe_axis_result){
			    r == 2 ? PROBE_PRESENT : PROBE_PRESENT_WEAK, r};
		if (a[r] > f[r])
			return (struct probe_axis_result){PROBE_ABSENT, r};
	}
	if (f[0] && a[0])
		return (struct probe_axis_result){PROBE_CONFLICT, 0};
	if (a[0])
		return (struct probe_axis_result){PROBE_ABSENT_WEAK, 0};
	if (f[0])
		return (struct probe_axis_result){
		    probe_origins(x, ax, true, kind) >= 2 ? PROBE_PRESENT_WEAK : PROBE_HINT, 0};
	return (struct probe_axis_result){PROBE_UNKNOWN, 0};
}

static void probe_conflict_add(struct probe_verdict *v, const struct probe_ctx *x, size_t idx,
                               enum probe_axis over_axis, enum probe_kind over_kind, int min_rank,
                               const char *note)
{
	if (v->nconflicts >= PROBE_MAX_CONFLICTS)
		return;
	struct probe_conflict *c = &v->conflicts[v->nconflicts++];
	c->signal = idx;
	c->nover = 0;
	c->note = note;
	for (size_t i = 0; i < x->sigs->n; i++) {
		const struct probe_signal *s = &x->sigs->v[i];
		if (i == idx || !probe_votes(x, s, over_axis) || s->supports != over_kind ||
		    probe_rank(s) < min_rank)
			continue;
		c->over[c->nover++] = i;
	}
}

/* Claims of a layer on an axis that came out absent, or left open by
 * contradicting markers. */
static void probe_axis_conflicts(struct probe_verdict *v, const struct probe_ctx *x,
                                 enum probe_axis ax, enum probe_kind kind,
                                 struct probe_axis_result r, const char *strong_note)
{
	const char *note = r.st == PROBE_CONFLICT      ? "weak markers contradict it and nothing "
	                                                 "stronger decides: no answer"
	                   : r.st == PROBE_ABSENT_WEAK ? "weak evidence against it outweighs it"
	                   : r.rank == 2               ? strong_note
	                                               : "the platform's firmware says otherwise";
	if (!probe_absent(r.st) && r.st != PROBE_CONFLICT)
		return;
	for (size_t i = 0; i < x->sigs->n; i++) {
		const struct probe_signal *s = &x->sigs->v[i];
		if (probe_votes(x, s, ax) && s->supports == kind)
			probe_conflict_add(v, x, i, ax, PROBE_KIND_NONE, r.rank, note);
	}
}

static void probe_layer_add_signals(struct probe_layer *l, const struct probe_ctx *x,
                                    enum probe_axis ax, enum probe_kind kind)
{
	for (size_t i = 0; i < x->sigs->n && l->nsig < PROBE_MAX_SIGNALS; i++)
		if (probe_votes(x, &x->sigs->v[i], ax) && x->sigs->v[i].supports == kind)
			l->sig[l->nsig++] = i;
}

static bool probe_named(const char *name)
{
	return name[0] && strcmp(name, "unknown") != 0;
}

/*
 * The name the layer's signal first in list (signals.c's probe_naming: best
 * first) gives, of those that name something. Files (firmware, markers) may
 * name the VMM of a layer; they never make one high on their own
 * (probe_axis_state), so a forged name cannot raise a tier.
 */
static const char *probe_pick(const struct probe_layer *l, const struct probe_signals *sigs,
                              enum probe_naming_kind list)
{
	const struct probe_naming_list *names = &probe_naming[list];
	const char *best = "unknown";
	unsigned best_rank = 0;
	for (size_t i = 0; i < l->nsig; i++) {
		const struct probe_signal *s = &sigs->v[l->sig[i]];
		unsigned rank = probe_naming_rank(names, s->id);
		const char *name = list == PROBE_NAMES_VM_HYPERVISOR ? s->hypervisor : s->vendor;
		if (rank && (!best_rank || rank < best_rank) && probe_named(name))
			best = name, best_rank = rank;
	}
	return best;
}

/* The layer's confidence and the best class it rests on. */
static void probe_layer_grade(struct probe_layer *l, const struct probe_signals *sigs,
                              enum probe_state st)
{
	enum probe_class best = PROBE_CLASS_MARKER;
	for (size_t i = 0; i < l->nsig; i++)
		if (sigs->v[l->sig[i]].cls > best)
			best = sigs->v[l->sig[i]].cls;
	l->cls = probe_class_name(best);
	l->confidence = st == PROBE_PRESENT ? "high" : "low";
}

/* The most specific confidential-VM technology among the layer's signals. */
static void probe_layer_cvm(struct probe_layer *l, const struct probe_signals *sigs)
{
	static const char *const rank[] = {"", "sev", "sev-es", "tdx", "sev-snp"};
	int best = -1;
	for (size_t i = 0; i < l->nsig; i++) {
		const struct probe_signal *s = &sigs->v[l->sig[i]];
		if (!probe_starts_with(s->id, "virt.cvm_"))
			continue;
		if (l->ncvm < PROBE_MAX_CVM_EVIDENCE)
			l->cvm_sig[l->ncvm++] = l->sig[i];
		for (int r = 0; r < 5; r++)
			if (strcmp(s->vendor, rank[r]) == 0 && r > best)
				best = r;
	}
	l->cvm = best > 0 ? rank[best] : NULL;
	if (!l->cvm)
		l->ncvm = 0;
}

static void probe_layer_vm(struct probe_layer *l, const struct probe_ctx *x, enum probe_state st)
{
	/* Firmware and the VMM's own boot arguments name the VMM best; CPUID
	 * names the hypervisor (the naming lists in signals.c). */
	memset(l, 0, sizeof(*l));
	l->kind = PROBE_KIND_VM;
	probe_layer_add_signals(l, x, PROBE_AXIS_VM, PROBE_KIND_VM);
	snprintf(l->vendor, sizeof(l->vendor), "%s", probe_pick(l, x->sigs, PROBE_NAMES_VM_VENDOR));
	snprintf(l->hypervisor, sizeof(l->hypervisor), "%s",
	         probe_pick(l, x->sigs, PROBE_NAMES_VM_HYPERVISOR));
	probe_layer_grade(l, x->sigs, st);
	probe_layer_cvm(l, x->sigs);
}

static void probe_layer_container(struct probe_layer *l, const struct probe_ctx *x,
                                  enum probe_state st)
{
	/* Kernel-provided facts first, files any image can carry last (the
	 * naming list in signals.c). */
	memset(l, 0, sizeof(*l));
	l->kind = PROBE_KIND_CONTAINER;
	probe_layer_add_signals(l, x, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER);
	snprintf(l->vendor, sizeof(l->vendor), "%s", probe_pick(l, x->sigs, PROBE_NAMES_CONTAINER));
	probe_layer_grade(l, x->sigs, st);
}

static void probe_unanswered_add(struct probe_verdict *v, const struct probe_ctx *x,
                                 const char *question, enum probe_axis ax, enum probe_kind kind,
                                 enum probe_state st)
{
	static const struct {
		enum probe_axis ax;
		const char *none;
	} why_none[] = {
	    {PROBE_AXIS_VM, "no CPUID, no recognised firmware or hypervisor naming, no VM devices "
	                    "(inputs absent, or strings not recognised: no vote)"},
	    {PROBE_AXIS_GVISOR, "no system call results, namespace inode numbers or kernel "
	                        "identity"},
	    {PROBE_AXIS_CONTAINER, "no namespace identities (.probe/ns) and no container marker "
	                           "or host-side cgroup or root mount"},
	};
	if (v->nunanswered >= sizeof(v->unanswered) / sizeof(v->unanswered[0]))
		return;
	struct probe_unanswered *u = &v->unanswered[v->nunanswered];
	u->question = question;
	if (st == PROBE_UNKNOWN) {
		for (size_t i = 0; i < sizeof(why_none) / sizeof(why_none[0]); i++)
			if (why_none[i].ax == ax)
				probe_strlcpy(u->why, sizeof(u->why), why_none[i].none);
	} else if (st == PROBE_HINT) {
		const char *id = "";
		for (size_t i = 0; i < x->sigs->n && !id[0]; i++)
			if (probe_votes(x, &x->sigs->v[i], ax) && x->sigs->v[i].supports == kind)
				id = x->sigs->v[i].id;
		snprintf(u->why, sizeof(u->why),
		         "only weak markers of one origin (%s): a layer needs a strong signal or "
		         "two independent markers",
		         id);
	} else if (st == PROBE_CONFLICT) {
		probe_strlcpy(u->why, sizeof(u->why),
		              "weak markers contradict each other and nothing stronger speaks");
	} else {
		return;
	}
	v->nunanswered++;
}

void probe_classify(const struct probe_signals *sigs, struct probe_verdict *out)
{
	memset(out, 0, sizeof(*out));
	struct probe_ctx x = {.sigs = sigs};
	/* A gVisor reading a file or a filter can forge: uname(2) disagreeing
	 * with /proc/version, prctl disagreeing with the kernel's status. */
	bool gv_doubt = false;
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		x.proc_forged = x.proc_forged || s->forges_proc;
		if ((strcmp(s->id, "kernel.uname_proc_version") == 0 ||
		     strcmp(s->id, "syscall.seccomp_agree") == 0) &&
		    probe_starts_with(s->value, "disagree"))
			gv_doubt = true;
	}
	gv_doubt = gv_doubt || x.proc_forged;
	struct probe_axis_result g = probe_axis_state(&x, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR);
	x.in_gvisor = probe_present(g.st);
	/*
	 * A paravirtual kernel silences CPUID's "no" when it names itself in
	 * /proc/cpuinfo (UML, Lx86: no CPUID of their own by design), or through
	 * at least two of Xen's interfaces (/sys/hypervisor, /proc/xen, the boot
	 * line): one lying file does not outvote the CPU.
	 */
	unsigned pv = 0;
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		if (!s->paravirt || s->supports != PROBE_KIND_VM || s->axis != PROBE_AXIS_VM ||
		    (x.in_gvisor && s->kernel_reported))
			continue;
		pv += strcmp(s->id, "virt.cpuinfo_vendor") == 0 ? 2 : 1;
	}
	x.paravirt = pv >= 2;
	struct probe_axis_result vm = probe_axis_state(&x, PROBE_AXIS_VM, PROBE_KIND_VM);
	struct probe_axis_result c =
	    probe_axis_state(&x, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER);
	/* Forged /proc or namespace files answer the namespace question with
	 * whatever the sandbox wrote: open, never "no boundary". */
	if (x.proc_forged)
		c = (struct probe_axis_result){PROBE_CONFLICT, 0};

	/* ---- conflicts ---- */
	probe_axis_conflicts(out, &x, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR, g,
	                     "system calls behave like Linux, not like gVisor's Sentry");
	probe_axis_conflicts(out, &x, PROBE_AXIS_VM, PROBE_KIND_VM, vm,
	                     "CPUID reports no hypervisor");
	if (!x.proc_forged)
		probe_axis_conflicts(out, &x, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER, c,
		                     "namespaces are the kernel's initial ones: no container "
		                     "boundary");
	if (x.in_gvisor) {
		struct probe_ctx all = {.sigs = sigs};
		for (size_t i = 0; i < sigs->n; i++) {
			const struct probe_signal *s = &sigs->v[i];
			if (s->axis == PROBE_AXIS_VM && s->kernel_reported &&
			    s->supports == PROBE_KIND_VM)
				probe_conflict_add(
				    out, &all, i, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR,
				    g.st == PROBE_PRESENT ? 2 : 0,
				    "inside gVisor, sysfs, the kernel log and the command "
				    "line are the Sentry's, not the hardware's");
		}
	}

	/* ---- layers, outermost first ---- */
	if (probe_present(vm.st))
		probe_layer_vm(&out->layers[out->nlayers++], &x, vm.st);
	if (x.in_gvisor) {
		struct probe_layer *l = &out->layers[out->nlayers++];
		memset(l, 0, sizeof(*l));
		l->kind = PROBE_KIND_GVISOR;
		snprintf(l->vendor, sizeof(l->vendor), "gvisor");
		probe_layer_add_signals(l, &x, PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR);
		size_t own = l->nsig;
		probe_layer_add_signals(l, &x, PROBE_AXIS_CONTAINER, PROBE_KIND_CONTAINER);
		size_t all = l->nsig;
		l->nsig = own; /* grade on the gVisor evidence, not the absorbed namespaces */
		probe_layer_grade(l, sigs, gv_doubt ? PROBE_PRESENT_WEAK : g.st);
		l->nsig = all;
		/* Only the ptrace platform makes a system call this slow. */
		int rt = probe_find(sigs, "syscall.roundtrip_ns");
		if (rt >= 0 && sigs->v[rt].supports == PROBE_KIND_GVISOR)
			l->platform = "ptrace";
	} else if (probe_present(c.st)) {
		probe_layer_container(&out->layers[out->nlayers++], &x, c.st);
	}

	/* ---- unanswered questions ---- */
	probe_unanswered_add(out, &x, "vm", PROBE_AXIS_VM, PROBE_KIND_VM, vm.st);
	probe_unanswered_add(out, &x, "gvisor", PROBE_AXIS_GVISOR, PROBE_KIND_GVISOR, g.st);
	if (!x.in_gvisor && x.proc_forged && out->nunanswered < 4) {
		struct probe_unanswered *u = &out->unanswered[out->nunanswered++];
		u->question = "container";
		probe_strlcpy(u->why, sizeof(u->why),
		              "/proc or its namespace files are not the kernel's own "
		              "(kernel.identity_*): the namespace readings are forged");
	} else if (!x.in_gvisor) {
		probe_unanswered_add(out, &x, "container", PROBE_AXIS_CONTAINER,
		                     PROBE_KIND_CONTAINER, c.st);
	}

	/* ---- tier: the innermost layer, or NONE when every axis says no ---- */
	bool high;
	if (x.in_gvisor) {
		out->tier = "GVISOR";
		high = g.st == PROBE_PRESENT && !gv_doubt;
	} else if (probe_present(c.st)) {
		/* Not ruling gVisor out only means the truth may be stronger. */
		out->tier = "CONTAINER";
		high = c.st == PROBE_PRESENT && g.st != PROBE_CONFLICT;
	} else if (!probe_absent(c.st) || g.st == PROBE_CONFLICT) {
		/* A VM or a bare host could still hide a container (or gVisor):
		 * no guess. */
		out->tier = "UNKNOWN";
		high = false;
	} else if (probe_present(vm.st)) {
		out->tier = "MICROVM";
		high = vm.st == PROBE_PRESENT && c.st == PROBE_ABSENT && g.st == PROBE_ABSENT;
	} else if (probe_absent(vm.st)) {
		out->tier = "NONE";
		high = vm.st == PROBE_ABSENT && c.st == PROBE_ABSENT && g.st == PROBE_ABSENT;
	} else {
		out->tier = "UNKNOWN";
		high = false;
	}
	out->confidence = strcmp(out->tier, "UNKNOWN") == 0 ? "none" : high ? "high" : "low";
}
