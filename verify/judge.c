/* judge.c - claim vs observation, table-driven. */
#include "judge.h"

#include <string.h>
#include <strings.h>

static const char *const verdict_names[] = {"CONFIRMED",    "CONSISTENT",   "EXCEEDS",
                                            "CONTRADICTED", "INCONCLUSIVE", "UNAVAILABLE"};

const char *judge_verdict_name(judge_verdict v)
{
	return (unsigned)v < sizeof verdict_names / sizeof *verdict_names ? verdict_names[v] : "?";
}

int judge_verdict_parse(judge_verdict *out, const char *name)
{
	for (size_t i = 0; name && i < sizeof verdict_names / sizeof *verdict_names; i++)
		if (!strcasecmp(name, verdict_names[i])) {
			*out = (judge_verdict)i;
			return 0;
		}
	return ISOTIER_EINVAL;
}

/* Mechanisms -> layer kinds; vmm is the VMM a probe can name (NULL: the
 * mechanism does not say which hypervisor runs it). */
static const struct mechanism_row {
	const char *mechanism;
	probe_layer_kind kind;
	const char *vmm;
} mechanisms[] = {
    {"firecracker", PROBE_LAYER_VM, "firecracker"},
    {"cloud-hypervisor", PROBE_LAYER_VM, "cloud-hypervisor"},
    {"qemu", PROBE_LAYER_VM, "qemu"},
    {"kata", PROBE_LAYER_VM, NULL},
    {"libkrun", PROBE_LAYER_VM, NULL},
    {"vm", PROBE_LAYER_VM, NULL},
    {"gvisor", PROBE_LAYER_GVISOR, NULL},
    {"runc", PROBE_LAYER_CONTAINER, NULL},
    {"crun", PROBE_LAYER_CONTAINER, NULL},
    {"bubblewrap", PROBE_LAYER_CONTAINER, NULL},
    {"container", PROBE_LAYER_CONTAINER, NULL},
};

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

static const struct mechanism_row *mechanism_row(const char *mechanism)
{
	for (size_t i = 0; mechanism && i < sizeof mechanisms / sizeof *mechanisms; i++)
		if (!strcasecmp(mechanism, mechanisms[i].mechanism))
			return &mechanisms[i];
	return NULL;
}

int judge_mechanism_kind(probe_layer_kind *kind, const char *mechanism)
{
	const struct mechanism_row *row = mechanism_row(mechanism);
	if (!row)
		return ISOTIER_EINVAL;
	*kind = row->kind;
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

static probe_layer_kind tier_kind(isotier_tier t)
{
	return t == ISOTIER_MICROVM  ? PROBE_LAYER_VM
	       : t == ISOTIER_GVISOR ? PROBE_LAYER_GVISOR
	                             : PROBE_LAYER_CONTAINER;
}

/* "MICROVM (firecracker)" or "CONTAINER" */
static void describe_observed(char *buf, size_t len, const probe_result *p)
{
	const char *vendor = probe_result_vendor(p);
	if (*vendor)
		snprintf(buf, len, "%s (%s)", probe_tier_name(p->observed), vendor);
	else
		snprintf(buf, len, "%s", probe_tier_name(p->observed));
}

static void describe_layers(char *buf, size_t len, const probe_result *p)
{
	size_t off = 0;
	buf[0] = '\0';
	if (!p->n_layers) {
		snprintf(buf, len, "no layers");
		return;
	}
	for (size_t i = 0; i < p->n_layers && off < len; i++) {
		const probe_layer *l = &p->layers[i];
		int n = snprintf(buf + off, len - off, "%s%s%s%s%s", i ? " > " : "",
		                 probe_layer_kind_name(l->kind), l->vendor[0] ? "(" : "", l->vendor,
		                 l->vendor[0] ? ")" : "");
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* Does layer l carry the claimed mechanism? *vendor_conflict set when it is
 * a vm layer whose named VMM differs from the claimed one. */
static bool layer_matches(const probe_layer *l, const struct mechanism_row *row,
                          bool *vendor_conflict)
{
	*vendor_conflict = false;
	if (l->kind != row->kind)
		return false;
	if (row->kind == PROBE_LAYER_VM && row->vmm) {
		const char *vmm = layer_vmm(l);
		if (vmm && strcmp(vmm, row->vmm) != 0) {
			*vendor_conflict = true;
			return false;
		}
	}
	return true;
}

judge_verdict judge(const judge_claim *claim, const probe_result *probe, char *reason,
                    size_t reason_len)
{
	char observed[160], layers[400];
	if (!probe) {
		snprintf(reason, reason_len, "no usable probe output");
		return VERDICT_INCONCLUSIVE;
	}
	describe_observed(observed, sizeof observed, probe);
	describe_layers(layers, sizeof layers, probe);
	if (!claim || !claim->present) {
		snprintf(reason, reason_len, "no claim to judge; observed %s [%s]", observed,
		         layers);
		return VERDICT_INCONCLUSIVE;
	}
	if (claim->tier == ISOTIER_UNKNOWN) {
		snprintf(reason, reason_len,
		         "the claim is UNKNOWN, nothing to judge; observed %s [%s]", observed,
		         layers);
		return VERDICT_INCONCLUSIVE;
	}
	if (probe->observed == PROBE_TIER_UNKNOWN) {
		snprintf(reason, reason_len, "the probe could not tell the tier (UNKNOWN) [%s]",
		         layers);
		return VERDICT_INCONCLUSIVE;
	}
	if (probe->confidence != PROBE_CONFIDENCE_HIGH) {
		snprintf(reason, reason_len,
		         "the probe's confidence is %s, not high; observed %s [%s]",
		         probe->confidence_text, observed, layers);
		return VERDICT_INCONCLUSIVE;
	}

	/* The mechanism decides which layer carries the claim; a mechanism
	 * outside the vocabulary falls back to the kind of the claimed tier. */
	const char *mech = claim->mechanism && *claim->mechanism ? claim->mechanism : NULL;
	const struct mechanism_row *row = mechanism_row(mech);
	struct mechanism_row fallback = {mech ? mech : "?", tier_kind(claim->tier), NULL};
	if (!row)
		row = &fallback;
	probe_tier claimed = claim_tier(claim->tier);
	if (probe_layer_tier(row->kind) != claimed) {
		snprintf(reason, reason_len,
		         "the claim contradicts itself: mechanism %s is not a %s mechanism; "
		         "observed %s [%s]",
		         row->mechanism, isotier_tier_name(claim->tier), observed, layers);
		return VERDICT_INCONCLUSIVE;
	}

	const char *claim_mech = mech ? mech : "unnamed mechanism";
	int rank_obs = probe_tier_rank(probe->observed), rank_claim = probe_tier_rank(claimed);
	size_t inner = probe->n_layers ? probe->n_layers - 1 : 0;
	bool conflict = false, any_conflict = false, present = false;
	const char *conflict_vendor = NULL;
	for (size_t i = 0; i < probe->n_layers; i++) {
		bool c;
		if (layer_matches(&probe->layers[i], row, &c))
			present = true;
		if (c) {
			any_conflict = true;
			conflict_vendor = probe->layers[i].vendor;
			if (i == inner)
				conflict = true;
		}
	}

	if (probe->n_layers && layer_matches(&probe->layers[inner], row, &conflict)) {
		snprintf(reason, reason_len, "claimed %s (%s); innermost layer is %s [%s]",
		         isotier_tier_name(claim->tier), claim_mech, observed, layers);
		return VERDICT_CONFIRMED;
	}
	if (rank_obs > rank_claim) {
		snprintf(reason, reason_len, "claimed %s (%s); observed stronger: %s [%s]",
		         isotier_tier_name(claim->tier), claim_mech, observed, layers);
		return VERDICT_EXCEEDS;
	}
	if (present) {
		snprintf(
		    reason, reason_len,
		    "claimed %s (%s) is present but not innermost: the workload runs in %s [%s]",
		    isotier_tier_name(claim->tier), claim_mech, observed, layers);
		return VERDICT_CONSISTENT;
	}
	if (any_conflict || conflict)
		snprintf(reason, reason_len, "claimed %s (%s) but the VM is %s; observed %s [%s]",
		         isotier_tier_name(claim->tier), claim_mech, conflict_vendor, observed,
		         layers);
	else
		snprintf(reason, reason_len, "claimed %s (%s) is absent; observed %s [%s]",
		         isotier_tier_name(claim->tier), claim_mech, observed, layers);
	return VERDICT_CONTRADICTED;
}
