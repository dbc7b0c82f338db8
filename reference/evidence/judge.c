/* SPDX-License-Identifier: Apache-2.0 */
/* judge.c - claim vs observation, table-driven (judge.h). */
#include "judge.h"
#include "../../catalogue/mechanism.h"
#include "host_sighting.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Vendor names a probe may print for a VMM, folded to the mechanism's name.
 * "tcg" is QEMU without KVM. Anything else ("kvm", "") names no VMM. */
static const struct vendor_alias {
	const char *vendor;
	const char *vmm;
} vendor_aliases[] = {
    {"firecracker", "firecracker"},
    {"cloud-hypervisor", "cloud-hypervisor"},
    {"cloud hypervisor", "cloud-hypervisor"},
    {"cloudhypervisor", "cloud-hypervisor"},
    {"qemu", "qemu"},
    {"qemu-tcg", "qemu"},
    {"qemu/tcg", "qemu"},
    {"tcg", "qemu"},
};

static probe_layer_kind tier_kind(isotier_tier t)
{
	return t == ISOTIER_MICROVM  ? PROBE_LAYER_VM
	       : t == ISOTIER_GVISOR ? PROBE_LAYER_GVISOR
	                             : PROBE_LAYER_CONTAINER;
}

/* What the judge needs of a claim's mechanism: the probe layer that must
 * carry it and the VMM it names (from catalogue/mechanism.h's table). */
struct mechanism_row {
	const char *mechanism;
	probe_layer_kind kind;
	const char *vmm;
};

/* The row for a mechanism of one of the four tiers' layers; false for a word
 * outside the vocabulary or one of no tier (webassembly...). Case does not
 * matter here: the validator already refused other spellings. */
static bool mechanism_row(struct mechanism_row *out, const char *mechanism)
{
	for (size_t i = 0; mechanism && i < isotier__mechanism_count; i++) {
		const isotier_mechanism *m = &isotier__mechanisms[i];
		if (strcasecmp(mechanism, m->name) != 0)
			continue;
		if (m->tier == ISOTIER_UNKNOWN)
			return false;
		out->kind = tier_kind(m->tier);
		out->mechanism = m->name;
		out->vmm = m->vmm;
		return true;
	}
	return false;
}

int isotier__judge_mechanism_kind(probe_layer_kind *kind, const char *mechanism)
{
	struct mechanism_row row;
	if (!mechanism_row(&row, mechanism))
		return ISOTIER_EINVAL;
	*kind = row.kind;
	return 0;
}

/* The VMM a vm layer names, folded; NULL when it names none we know. */
static const char *layer_vmm(const probe_layer *l)
{
	for (size_t i = 0; i < sizeof vendor_aliases / sizeof *vendor_aliases; i++)
		if (!strcasecmp(l->vendor, vendor_aliases[i].vendor))
			return vendor_aliases[i].vmm;
	return NULL;
}

static probe_tier claim_tier(isotier_tier t)
{
	switch (t) {
	case ISOTIER_CONTAINER: return PROBE_TIER_CONTAINER;
	case ISOTIER_GVISOR: return PROBE_TIER_GVISOR;
	case ISOTIER_MICROVM: return PROBE_TIER_MICROVM;
	case ISOTIER_UNKNOWN: break;
	}
	return PROBE_TIER_UNKNOWN;
}

/* "MICROVM (firecracker)" or "CONTAINER" */
static void describe_observed(char *buf, size_t len, const probe_result *p)
{
	const char *vendor = isotier__probe_result_vendor(p);
	if (*vendor)
		snprintf(buf, len, "%s (%s)", isotier__probe_tier_name(p->observed), vendor);
	else
		snprintf(buf, len, "%s", isotier__probe_tier_name(p->observed));
}

/* "vm(firecracker) > container(runc)"; layers that are not the sandbox's own
 * (own[i] false) are marked "host's" or "unproven" so a reader sees what was set aside. */
static void describe_layers(char *buf, size_t len, const probe_result *p, const bool *own,
                            isotier_kernel_relation rel)
{
	size_t off = 0;
	buf[0] = '\0';
	if (!p->n_layers) {
		snprintf(buf, len, "no layers");
		return;
	}
	for (size_t i = 0; i < p->n_layers && off < len; i++) {
		const probe_layer *l = &p->layers[i];
		const char *not_own = rel == ISOTIER_KERNEL_SHARED && l->kind == PROBE_LAYER_VM
		                          ? "host's "
		                          : "unproven ";
		int n = snprintf(buf + off, len - off, "%s%s%s%s%s%s", i ? " > " : "",
		                 own[i] ? "" : not_own, isotier__probe_layer_kind_name(l->kind),
		                 l->vendor[0] ? "(" : "", l->vendor, l->vendor[0] ? ")" : "");
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* Does layer l carry the claimed mechanism? *vendor_conflict set when it is
 * a vm layer whose named VMM differs from the claimed one. A claim that names
 * its VMM is matched exactly: a vm layer that names none (or one outside the
 * table: "kvm", "xen", "uml") matches with *unnamed set, and can never
 * confirm the claim. */
static bool layer_matches(const probe_layer *l, const struct mechanism_row *row,
                          bool *vendor_conflict, bool *unnamed)
{
	*vendor_conflict = *unnamed = false;
	if (l->kind != row->kind)
		return false;
	if (row->kind == PROBE_LAYER_VM && row->vmm) {
		const char *vmm = layer_vmm(l);
		if (!vmm) {
			/* Where the claimed VM could be: a match that can prove nothing. */
			*unnamed = true;
			return true;
		}
		if (strcmp(vmm, row->vmm) != 0) {
			*vendor_conflict = true;
			return false;
		}
	}
	return true;
}

isotier_tier isotier__judge_ceiling_tier(probe_tier ceiling)
{
	switch (ceiling) {
	case PROBE_TIER_CONTAINER: return ISOTIER_CONTAINER;
	case PROBE_TIER_GVISOR: return ISOTIER_GVISOR;
	case PROBE_TIER_MICROVM: return ISOTIER_MICROVM;
	case PROBE_TIER_NONE:
	case PROBE_TIER_UNKNOWN: break;
	}
	return ISOTIER_UNKNOWN;
}

/*
 * Which layers are the sandbox's own. Everything but vm layers is (it is
 * seen from inside the sandbox's own kernel or Sentry); a vm layer only when
 * the kernel is shown to be the sandbox's own.
 */
static isotier_kernel_relation
effective_relation(const probe_result *p, isotier_kernel_relation rel, isotier_host_evidence host)
{
	/* A trustworthy gVisor innermost: the identity read is the Sentry's.
	 * What the host itself saw is not: its SHARED stands. */
	if (p->n_layers && p->layers[p->n_layers - 1].kind == PROBE_LAYER_GVISOR &&
	    p->confidence == PROBE_CONFIDENCE_HIGH && host != ISOTIER_HOST_SHARED)
		return ISOTIER_KERNEL_UNCOMPARED;
	return rel;
}

static bool vm_is_own(isotier_kernel_relation rel)
{
	return rel == ISOTIER_KERNEL_DEDICATED || rel == ISOTIER_KERNEL_SELF;
}

/* Is layer l the sandbox's own boundary (judge.h)? */
static bool layer_is_own(const probe_layer *l, isotier_kernel_relation rel,
                         isotier_host_evidence host, unsigned saw)
{
	switch (l->kind) {
	case PROBE_LAYER_VM:
		/* The VMM the host saw run this run's sandbox must be the one the
		 * probe names: a qemu of this run does not make a Firecracker VM. */
		return vm_is_own(rel) && (host == ISOTIER_HOST_NONE ||
		                          ((saw & ISOTIER_HOST_SAW_VMM) &&
		                           (saw & isotier__host_saw_vmm_bit(l->vendor))));
	case PROBE_LAYER_GVISOR:
		/* gVisor's answers can be imitated by a seccomp filter: with a
		 * view of its own, the host must have seen runsc run the
		 * sandbox and none of its own kernel inside. */
		return host == ISOTIER_HOST_NONE ||
		       (host == ISOTIER_HOST_CLEAR && (saw & ISOTIER_HOST_SAW_GVISOR));
	case PROBE_LAYER_CONTAINER: return true;
	}
	return false;
}

/* Why the host's view kept a claimed layer from being the sandbox's own;
 * "" when it did not. */
static const char *host_gap(probe_layer_kind kind, isotier_host_evidence host, unsigned saw)
{
	if (host == ISOTIER_HOST_NONE)
		return "";
	if (host == ISOTIER_HOST_SHARED)
		return "; the host sees the workload on its own kernel";
	if (host == ISOTIER_HOST_INCOMPLETE)
		return "; the host could not complete its checks of the sandbox";
	if (kind == PROBE_LAYER_VM && !(saw & ISOTIER_HOST_SAW_VMM))
		return "; the host saw no VMM of this run run the sandbox";
	if (kind == PROBE_LAYER_VM)
		return "; the VMM of this run is not the one the sandbox names";
	if (kind == PROBE_LAYER_GVISOR && !(saw & ISOTIER_HOST_SAW_GVISOR))
		return "; the host saw no runsc of this run run the sandbox";
	return "";
}

/* The tier of the innermost own layer; NONE when there is none. */
static probe_tier own_tier(const probe_result *p, const bool *own, size_t *inner)
{
	for (size_t i = p->n_layers; i-- > 0;)
		if (own[i]) {
			*inner = i;
			return isotier__probe_layer_tier(p->layers[i].kind);
		}
	return PROBE_TIER_NONE;
}

static probe_tier ceiling_of(const probe_result *p, const bool *own, isotier_kernel_relation rel)
{
	size_t inner = 0;
	if (!p)
		return PROBE_TIER_UNKNOWN;
	if (p->confidence != PROBE_CONFIDENCE_HIGH || p->observed == PROBE_TIER_UNKNOWN)
		/* Not trustworthy; but a sandbox on the host's kernel can be no
		 * more than a container, whatever else it shows. */
		return rel == ISOTIER_KERNEL_SHARED ? PROBE_TIER_CONTAINER : PROBE_TIER_UNKNOWN;
	probe_tier t = own_tier(p, own, &inner);
	/* A container inside a VM proven its own (Kata-like) has a dedicated
	 * kernel around it: what the sandbox can defend is the VM. */
	for (size_t i = 0; i < inner && t != PROBE_TIER_NONE; i++)
		if (own[i] && p->layers[i].kind == PROBE_LAYER_VM &&
		    rel == ISOTIER_KERNEL_DEDICATED)
			return PROBE_TIER_MICROVM;
	return t;
}

/* The reason sentence; truncation is fine (every reason starts with what
 * matters), so it goes through vsnprintf. */
static void say(judge_result *out, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
static void say(judge_result *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof out->reason, fmt, ap);
	va_end(ap);
}

void isotier__judge(judge_result *out, const judge_claim *claim, const probe_result *probe,
                    const judge_kernel *kernel)
{
	char observed[160], layers[400], kdetail[300] = "";
	bool own[PROBE_RESULT_MAX_LAYERS] = {0};
	isotier_kernel_relation rel = kernel ? kernel->relation : ISOTIER_KERNEL_UNCOMPARED;
	isotier_host_evidence host = kernel ? kernel->host : ISOTIER_HOST_NONE;
	unsigned saw = kernel ? kernel->host_saw : 0;
	out->verdict = VERDICT_INCONCLUSIVE;
	out->ceiling = PROBE_TIER_UNKNOWN;
	out->unproven = false;
	out->attested = false;
	if (!probe) {
		say(out, "no usable probe output");
		return;
	}
	rel = effective_relation(probe, rel, host);
	for (size_t i = 0; i < probe->n_layers; i++)
		own[i] = layer_is_own(&probe->layers[i], rel, host, saw);
	out->ceiling = ceiling_of(probe, own, rel);
	if (kernel && kernel->detail && *kernel->detail)
		snprintf(kdetail, sizeof kdetail, "; %s", kernel->detail);
	if (probe->n_layers && probe->layers[probe->n_layers - 1].kind == PROBE_LAYER_GVISOR &&
	    probe->confidence == PROBE_CONFIDENCE_HIGH && host != ISOTIER_HOST_SHARED) {
		int n = snprintf(kdetail, sizeof kdetail,
		                 "; under gVisor the kernel identity is the Sentry's and proves "
		                 "nothing about a VM outside it");
		/* What the host saw is not the Sentry's: it stays in the reason. */
		const char *seen =
		    kernel && kernel->detail ? strstr(kernel->detail, "; the host ") : NULL;
		if (seen && n > 0 && (size_t)n < sizeof kdetail)
			snprintf(kdetail + n, sizeof kdetail - (size_t)n, "%s", seen);
	}
	describe_observed(observed, sizeof observed, probe);
	describe_layers(layers, sizeof layers, probe, own, rel);
	if (!claim || !claim->present) {
		say(out, "no claim to judge; observed %s [%s]%s", observed, layers, kdetail);
		return;
	}
	if (claim->tier == ISOTIER_UNKNOWN) {
		say(out, "the claim is UNKNOWN, nothing to judge; observed %s [%s]%s", observed,
		    layers, kdetail);
		return;
	}
	out->unproven = true; /* until a verdict below says otherwise */
	if (probe->observed == PROBE_TIER_UNKNOWN) {
		say(out, "the probe could not tell the tier (UNKNOWN) [%s]%s", layers, kdetail);
		return;
	}
	if (probe->confidence != PROBE_CONFIDENCE_HIGH) {
		say(out,
		    "the probe's confidence is %s, not high: it can confirm nothing; "
		    "observed %s [%s]%s",
		    probe->confidence_text, observed, layers, kdetail);
		return;
	}

	/* The mechanism decides which layer carries the claim; a mechanism
	 * outside the vocabulary falls back to the kind of the claimed tier. */
	const char *mech = claim->mechanism && *claim->mechanism ? claim->mechanism : NULL;
	struct mechanism_row found;
	struct mechanism_row fallback = {mech ? mech : "?", tier_kind(claim->tier), NULL};
	const struct mechanism_row *row = mechanism_row(&found, mech) ? &found : &fallback;
	probe_tier claimed = claim_tier(claim->tier);
	if (isotier__probe_layer_tier(row->kind) != claimed) {
		say(out,
		    "the claim contradicts itself: mechanism %s is not a %s mechanism; "
		    "observed %s [%s]",
		    row->mechanism, isotier_tier_name(claim->tier), observed, layers);
		return;
	}
	out->unproven = false;

	const char *claim_mech = mech ? mech : "unnamed mechanism";
	const char *tname = isotier_tier_name(claim->tier);
	size_t inner = 0;
	probe_tier own_obs = own_tier(probe, own, &inner);
	bool present_own = false, present_not_own = false, conflict = false, named_own = false;
	const char *conflict_vendor = NULL;
	for (size_t i = 0; i < probe->n_layers; i++) {
		bool c, unnamed;
		if (layer_matches(&probe->layers[i], row, &c, &unnamed)) {
			(own[i] ? &present_own : &present_not_own)[0] = true;
			named_own |= own[i] && !unnamed;
		}
		if (c && own[i]) {
			conflict = true;
			conflict_vendor = probe->layers[i].vendor;
		}
	}
	bool c_inner, unnamed_inner;
	bool inner_matches = own_obs != PROBE_TIER_NONE &&
	                     layer_matches(&probe->layers[inner], row, &c_inner, &unnamed_inner);
	if ((inner_matches && unnamed_inner) || (present_own && !named_own && !conflict)) {
		/* A VM of its own whose VMM the probe could not name: it is not
		 * the claimed one by any evidence, nor shown to be another. */
		say(out,
		    "claimed %s (%s) cannot be proven: the sandbox's own VM names no VMM isotier "
		    "can match to %s; observed %s [%s]%s",
		    tname, claim_mech, row->vmm, observed, layers, kdetail);
		out->unproven = true;
		return;
	}
	if (inner_matches) {
		say(out,
		    "claimed %s (%s); the sandbox's own innermost layer is "
		    "%s [%s]%s",
		    tname, claim_mech, observed, layers, kdetail);
		out->verdict = VERDICT_CONFIRMED;
		return;
	}
	const char *gap = host_gap(row->kind, host, saw);
	if (present_not_own && !present_own && row->kind == PROBE_LAYER_GVISOR) {
		/* gVisor's answers are there, but the host did not see gVisor. */
		if (host == ISOTIER_HOST_SHARED) {
			say(out,
			    "claimed %s (%s), but the workload runs on the host's kernel (%s): "
			    "what answers like gVisor is not gVisor; the sandbox's own boundary is "
			    "%s [%s]",
			    tname, claim_mech,
			    kernel && kernel->detail ? kernel->detail : "host view",
			    isotier__probe_tier_name(own_obs), layers);
			out->verdict = VERDICT_CONTRADICTED;
		} else {
			say(out,
			    "claimed %s (%s) cannot be proven: gVisor's answers are seen but not "
			    "shown to be gVisor's%s; the sandbox's own boundary is %s [%s]%s",
			    tname, claim_mech, gap, isotier__probe_tier_name(own_obs), layers,
			    kdetail);
			out->unproven = true;
		}
		return;
	}
	if (present_not_own && !present_own) {
		/* The claimed VM is there, but not shown to be the sandbox's. */
		if (rel == ISOTIER_KERNEL_SHARED) {
			say(out,
			    "claimed %s (%s), but the VM seen is the host's, shared by every "
			    "sandbox on it%s; the sandbox's own boundary is %s [%s]",
			    tname, claim_mech, kdetail, isotier__probe_tier_name(own_obs), layers);
			out->verdict = VERDICT_CONTRADICTED;
		} else {
			say(out,
			    "claimed %s (%s) cannot be proven: a VM is seen but not shown to be "
			    "the sandbox's own%s%s; the sandbox's own boundary is %s [%s]",
			    tname, claim_mech, gap,
			    kdetail[0] ? kdetail : "; kernel identity not compared",
			    isotier__probe_tier_name(own_obs), layers);
			out->unproven = true;
		}
		return;
	}
	if (isotier__probe_tier_rank(own_obs) > isotier__probe_tier_rank(claimed)) {
		say(out,
		    "claimed %s (%s); the sandbox's own boundary is "
		    "stronger: %s [%s]%s",
		    tname, claim_mech, observed, layers, kdetail);
		out->verdict = VERDICT_EXCEEDS;
		return;
	}
	if (present_own) {
		if (row->kind == PROBE_LAYER_VM && rel != ISOTIER_KERNEL_DEDICATED) {
			say(out,
			    "claimed %s (%s) cannot be proven: the workload runs in %s inside a "
			    "VM not shown to be dedicated to it%s [%s]",
			    tname, claim_mech, isotier__probe_tier_name(own_obs), kdetail, layers);
			out->unproven = true;
			return;
		}
		say(out,
		    "claimed %s (%s) is present and the sandbox's own, but not innermost: the "
		    "workload runs in %s [%s]%s",
		    tname, claim_mech, isotier__probe_tier_name(own_obs), layers, kdetail);
		out->verdict = VERDICT_CONSISTENT;
		return;
	}
	if (conflict)
		say(out, "claimed %s (%s) but the VM is %s; observed %s [%s]%s", tname, claim_mech,
		    conflict_vendor, observed, layers, kdetail);
	else
		say(out,
		    "claimed %s (%s) is absent; the sandbox's own boundary "
		    "is %s [%s]%s",
		    tname, claim_mech, isotier__probe_tier_name(own_obs), layers, kdetail);
	out->verdict = VERDICT_CONTRADICTED;
}
