/* SPDX-License-Identifier: Apache-2.0 */
/* test_judge.c - the verdict table: claim (tier + mechanism) against the
 * probe's layers, over many cases, through the real probe JSON parser. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/evidence/judge.h"

/* layers: "vm/firecracker>container" outermost first, "" for none; a vendor
 * "vm/qemu:tcg" also sets the hypervisor. observed: NULL = the innermost
 * layer's tier (NONE when there are no layers). */
static void make_probe(probe_result *out, const char *layers, const char *observed,
                       const char *confidence)
{
	char json[4096], arr[2048] = "";
	size_t off = 0;
	const char *inner = "NONE";
	char spec[256];
	snprintf(spec, sizeof spec, "%s", layers);
	for (char *save = NULL, *tok = strtok_r(spec, ">", &save); tok;
	     tok = strtok_r(NULL, ">", &save)) {
		char kind[32] = "", vendor[64] = "", hyper[32] = "";
		char *slash = strchr(tok, '/');
		if (slash) {
			*slash = '\0';
			char *colon = strchr(slash + 1, ':');
			if (colon) {
				*colon = '\0';
				snprintf(hyper, sizeof hyper, "%s", colon + 1);
			}
			snprintf(vendor, sizeof vendor, "%s", slash + 1);
		}
		snprintf(kind, sizeof kind, "%s", tok);
		char hyper_member[64] = "";
		if (*hyper)
			snprintf(hyper_member, sizeof hyper_member, ",\"hypervisor\":\"%s\"",
			         hyper);
		off += (size_t)snprintf(
		    arr + off, sizeof arr - off,
		    "%s{\"kind\":\"%s\",\"vendor\":\"%s\"%s,\"signals\":[\"s1\"]}", off ? "," : "",
		    kind, *vendor ? vendor : "unknown", hyper_member);
		inner = !strcmp(kind, "vm")       ? "MICROVM"
		        : !strcmp(kind, "gvisor") ? "GVISOR"
		                                  : "CONTAINER";
	}
	snprintf(
	    json, sizeof json,
	    "{\"schema\":\"isotier.probe/1\",\"probe_version\":\"t\",\"observed_tier\":\"%s\","
	    "\"confidence\":\"%s\",\"layers\":[%s],\"signals\":[],\"conflicts\":[],\"kernel\":{},"
	    "\"duration_us\":5}",
	    observed ? observed : inner, confidence ? confidence : "high", arr);
	isotier_error err = {0};
	ck_assert_msg(isotier__probe_result_parse(out, json, strlen(json), &err) == 0, "%s: %s",
	              json, err.message);
}

/* Kernel relations: S the host's kernel, D a kernel of its own, U not
 * comparable, H the backend observes the host itself. */
#define S      ISOTIER_KERNEL_SHARED
#define D      ISOTIER_KERNEL_DEDICATED
#define U      ISOTIER_KERNEL_UNCOMPARED
#define H      ISOTIER_KERNEL_SELF
#define C_NONE PROBE_TIER_NONE
#define C_CONT PROBE_TIER_CONTAINER
#define C_GVI  PROBE_TIER_GVISOR
#define C_VM   PROBE_TIER_MICROVM
#define C_UNK  PROBE_TIER_UNKNOWN

static const struct judge_case {
	const char *name;
	bool present;
	isotier_tier tier;
	const char *mechanism;
	const char *layers;
	const char *observed;
	const char *confidence;
	isotier_kernel_relation rel;
	judge_verdict want;
	probe_tier ceiling;
	bool unproven;
	const char *reason_has;
} cases[] = {
    /* This machine's sandboxes: a Firecracker VM (the host's) around everything. */
    {"bwrap here", true, ISOTIER_CONTAINER, "bubblewrap", "vm/firecracker>container", NULL, NULL, S,
     VERDICT_CONFIRMED, C_CONT, false, "own innermost layer is CONTAINER"},
    {"runc here", true, ISOTIER_CONTAINER, "runc", "vm/firecracker>container", NULL, NULL, S,
     VERDICT_CONFIRMED, C_CONT, false, "host's vm(firecracker) > container"},
    {"runsc here", true, ISOTIER_GVISOR, "gvisor", "vm/firecracker>gvisor", NULL, NULL, U,
     VERDICT_CONFIRMED, C_GVI, false, "Sentry"},
    {"runsc, vm unseen", true, ISOTIER_GVISOR, "gvisor", "gvisor", NULL, NULL, U, VERDICT_CONFIRMED,
     C_GVI, false, ""},
    {"qemu tcg vendor", true, ISOTIER_MICROVM, "qemu", "vm/tcg", NULL, NULL, D, VERDICT_CONFIRMED,
     C_VM, false, "MICROVM (tcg)"},
    {"qemu vendor + hypervisor", true, ISOTIER_MICROVM, "qemu", "vm/qemu:tcg", NULL, NULL, D,
     VERDICT_CONFIRMED, C_VM, false, ""},
    {"firecracker host, observed as itself", true, ISOTIER_MICROVM, "firecracker", "vm/firecracker",
     NULL, NULL, H, VERDICT_CONFIRMED, C_VM, false, "MICROVM (firecracker)"},
    {"cloud-hypervisor", true, ISOTIER_MICROVM, "cloud-hypervisor", "vm/cloud-hypervisor", NULL,
     NULL, D, VERDICT_CONFIRMED, C_VM, false, ""},
    {"vm mechanism, any vendor", true, ISOTIER_MICROVM, "vm", "vm/qemu", NULL, NULL, D,
     VERDICT_CONFIRMED, C_VM, false, ""},
    {"kata, any vendor", true, ISOTIER_MICROVM, "kata", "vm/cloud-hypervisor", NULL, NULL, D,
     VERDICT_CONFIRMED, C_VM, false, ""},
    {"libkrun, unnamed", true, ISOTIER_MICROVM, "libkrun", "vm", NULL, NULL, D, VERDICT_CONFIRMED,
     C_VM, false, ""},
    /* A claimed VMM is matched exactly: a VM that names none confirms none. */
    {"firecracker, vendor unnamed (kvm)", true, ISOTIER_MICROVM, "firecracker", "vm/kvm", NULL,
     NULL, D, VERDICT_INCONCLUSIVE, C_VM, true, "names no VMM"},
    {"firecracker, vendor xen", true, ISOTIER_MICROVM, "firecracker", "vm/xen", NULL, NULL, D,
     VERDICT_INCONCLUSIVE, C_VM, true, "names no VMM"},
    {"firecracker, vendor unknown", true, ISOTIER_MICROVM, "firecracker", "vm", NULL, NULL, D,
     VERDICT_INCONCLUSIVE, C_VM, true, "names no VMM"},
    {"mechanism case-insensitive", true, ISOTIER_MICROVM, "Firecracker", "vm/FIRECRACKER", NULL,
     NULL, D, VERDICT_CONFIRMED, C_VM, false, ""},
    {"crun", true, ISOTIER_CONTAINER, "crun", "container", NULL, NULL, S, VERDICT_CONFIRMED, C_CONT,
     false, ""},
    {"container", true, ISOTIER_CONTAINER, "container", "container/docker", NULL, NULL, U,
     VERDICT_CONFIRMED, C_CONT, false, ""},
    {"no mechanism: tier decides", true, ISOTIER_GVISOR, NULL, "gvisor", NULL, NULL, U,
     VERDICT_CONFIRMED, C_GVI, false, "unnamed mechanism"},
    /* Vendor contradictions. */
    {"firecracker claimed, qemu seen", true, ISOTIER_MICROVM, "firecracker", "vm/qemu", NULL, NULL,
     D, VERDICT_CONTRADICTED, C_VM, false, "the VM is qemu"},
    {"qemu claimed, firecracker seen", true, ISOTIER_MICROVM, "qemu", "vm/firecracker", NULL, NULL,
     D, VERDICT_CONTRADICTED, C_VM, false, "firecracker"},
    {"cloud-hypervisor claimed, tcg seen", true, ISOTIER_MICROVM, "cloud-hypervisor", "vm/tcg",
     NULL, NULL, D, VERDICT_CONTRADICTED, C_VM, false, ""},
    {"firecracker claimed, nested qemu in fc", true, ISOTIER_MICROVM, "firecracker",
     "vm/firecracker>vm/qemu", NULL, NULL, D, VERDICT_CONSISTENT, C_VM, false, "not innermost"},
    {"firecracker claimed, qemu vm + container", true, ISOTIER_MICROVM, "firecracker",
     "vm/qemu>container", NULL, NULL, D, VERDICT_CONTRADICTED, C_VM, false, "the VM is qemu"},
    /* A VM around a container: only a VM proven the sandbox's own counts. */
    {"kata-like: dedicated VM around a container", true, ISOTIER_MICROVM, "kata", "vm>container",
     NULL, NULL, D, VERDICT_CONSISTENT, C_VM, false, "a kernel of its own"},
    {"microVM claim over the host's VM (firecracker)", true, ISOTIER_MICROVM, "firecracker",
     "vm/firecracker>container", NULL, NULL, S, VERDICT_CONTRADICTED, C_CONT, false,
     "the VM seen is the host's"},
    {"microVM claim over the host's VM (generic vm)", true, ISOTIER_MICROVM, "vm",
     "vm/firecracker>container", NULL, NULL, S, VERDICT_CONTRADICTED, C_CONT, false,
     "the VM seen is the host's"},
    {"microVM claim, VM around a container, identity unknown", true, ISOTIER_MICROVM, "vm",
     "vm/firecracker>container", NULL, NULL, U, VERDICT_INCONCLUSIVE, C_CONT, true,
     "cannot be proven"},
    {"microVM claim, the host's VM only (no boundary of its own)", true, ISOTIER_MICROVM, "vm",
     "vm/firecracker", NULL, NULL, S, VERDICT_CONTRADICTED, C_NONE, false, "host's"},
    {"microVM claim, VM only, identity unknown", true, ISOTIER_MICROVM, "firecracker",
     "vm/firecracker", NULL, NULL, U, VERDICT_INCONCLUSIVE, C_NONE, true, "not shown"},
    {"microVM claim over vm > gvisor (identity is the Sentry's)", true, ISOTIER_MICROVM, "vm",
     "vm/firecracker>gvisor", NULL, NULL, D, VERDICT_INCONCLUSIVE, C_GVI, true, "Sentry"},
    {"microVM claim over vm > gvisor, even a shared-looking identity", true, ISOTIER_MICROVM,
     "firecracker", "vm/firecracker>gvisor", NULL, NULL, S, VERDICT_INCONCLUSIVE, C_GVI, true,
     "Sentry"},
    {"host observed as itself, container inside its VM", true, ISOTIER_MICROVM, "firecracker",
     "vm/firecracker>container", NULL, NULL, H, VERDICT_INCONCLUSIVE, C_CONT, true,
     "not shown to be dedicated"},
    {"gvisor claimed, container inside gvisor", true, ISOTIER_GVISOR, "gvisor", "gvisor>container",
     NULL, NULL, U, VERDICT_CONSISTENT, C_CONT, false, ""},
    /* Stronger than claimed. */
    {"container claimed, gvisor seen", true, ISOTIER_CONTAINER, "runc", "gvisor", NULL, NULL, U,
     VERDICT_EXCEEDS, C_GVI, false, "stronger"},
    {"container claimed, own vm only", true, ISOTIER_CONTAINER, "container", "vm/firecracker", NULL,
     NULL, D, VERDICT_EXCEEDS, C_VM, false, ""},
    {"container claimed, the host's vm only", true, ISOTIER_CONTAINER, "container",
     "vm/firecracker", NULL, NULL, S, VERDICT_CONTRADICTED, C_NONE, false, "absent"},
    {"gvisor claimed, own vm seen", true, ISOTIER_GVISOR, "gvisor", "vm/qemu", NULL, NULL, D,
     VERDICT_EXCEEDS, C_VM, false, ""},
    {"container claimed, gvisor inside container", true, ISOTIER_CONTAINER, "runc",
     "container>gvisor", NULL, NULL, U, VERDICT_EXCEEDS, C_GVI, false, ""},
    /* Absent. */
    {"container claimed, bare host", true, ISOTIER_CONTAINER, "runc", "", "NONE", NULL, H,
     VERDICT_CONTRADICTED, C_NONE, false, "is absent"},
    {"microvm claimed, container seen", true, ISOTIER_MICROVM, "firecracker", "container", NULL,
     NULL, S, VERDICT_CONTRADICTED, C_CONT, false, "absent"},
    {"microvm claimed, gvisor seen", true, ISOTIER_MICROVM, "vm", "gvisor", NULL, NULL, U,
     VERDICT_CONTRADICTED, C_GVI, false, ""},
    {"gvisor claimed, container seen", true, ISOTIER_GVISOR, "gvisor", "vm/firecracker>container",
     NULL, NULL, S, VERDICT_CONTRADICTED, C_CONT, false, "absent"},
    {"gvisor claimed, bare host", true, ISOTIER_GVISOR, "gvisor", "", "NONE", NULL, H,
     VERDICT_CONTRADICTED, C_NONE, false, ""},
    /* Inconclusive. */
    {"no claim", false, ISOTIER_UNKNOWN, NULL, "vm/firecracker", NULL, NULL, H,
     VERDICT_INCONCLUSIVE, C_VM, false, "no claim"},
    {"claim UNKNOWN", true, ISOTIER_UNKNOWN, "webassembly", "container", NULL, NULL, S,
     VERDICT_INCONCLUSIVE, C_CONT, false, "UNKNOWN"},
    {"probe UNKNOWN", true, ISOTIER_CONTAINER, "runc", "", "UNKNOWN", NULL, U, VERDICT_INCONCLUSIVE,
     C_UNK, true, "could not tell"},
    {"probe UNKNOWN with layers", true, ISOTIER_CONTAINER, "runc", "container", "UNKNOWN", NULL, U,
     VERDICT_INCONCLUSIVE, C_UNK, true, "could not tell"},
    {"low confidence", true, ISOTIER_CONTAINER, "runc", "container", NULL, "low", U,
     VERDICT_INCONCLUSIVE, C_UNK, true, "confidence is low, not high"},
    {"low confidence on the host's kernel: at most a container", true, ISOTIER_MICROVM, "vm", "vm",
     NULL, "low", S, VERDICT_INCONCLUSIVE, C_CONT, true, "confirm nothing"},
    {"low confidence cannot confirm a dedicated VM", true, ISOTIER_MICROVM, "qemu", "vm/qemu", NULL,
     "low", D, VERDICT_INCONCLUSIVE, C_UNK, true, "confidence is low"},
    {"confidence none", true, ISOTIER_CONTAINER, "runc", "container", NULL, "none", U,
     VERDICT_INCONCLUSIVE, C_UNK, true, "confidence is none"},
    {"probe UNKNOWN, confidence none (what the probe prints)", true, ISOTIER_GVISOR, "gvisor", "",
     "UNKNOWN", "none", U, VERDICT_INCONCLUSIVE, C_UNK, true, "could not tell"},
    {"low confidence even when it would contradict", true, ISOTIER_MICROVM, "firecracker",
     "container", NULL, "low", U, VERDICT_INCONCLUSIVE, C_UNK, true, ""},
    {"claim contradicts itself", true, ISOTIER_MICROVM, "runc", "vm", NULL, NULL, D,
     VERDICT_INCONCLUSIVE, C_VM, true, "contradicts itself"},
    {"unknown mechanism falls back to tier", true, ISOTIER_CONTAINER, "lxc", "container", NULL,
     NULL, S, VERDICT_CONFIRMED, C_CONT, false, ""},
};

START_TEST(verdict_table)
{
	const struct judge_case *c = &cases[_i];
	probe_result p;
	make_probe(&p, c->layers, c->observed, c->confidence);
	judge_claim claim = {.present = c->present, .tier = c->tier, .mechanism = c->mechanism};
	const char *detail = c->rel == D   ? "a kernel of its own: boot_id x"
	                     : c->rel == S ? "the sandbox runs on the host's kernel"
	                                   : NULL;
	judge_kernel kernel = {.relation = c->rel, .detail = detail};
	judge_result r;
	isotier__judge(&r, &claim, &p, &kernel);
	ck_assert_msg(r.verdict == c->want, "%s: want %s, got %s (%s)", c->name,
	              isotier__verdict_name(c->want), isotier__verdict_name(r.verdict), r.reason);
	ck_assert_msg(r.ceiling == c->ceiling, "%s: want ceiling %s, got %s (%s)", c->name,
	              isotier__probe_tier_name(c->ceiling), isotier__probe_tier_name(r.ceiling),
	              r.reason);
	ck_assert_msg(r.unproven == c->unproven, "%s: unproven %d (%s)", c->name, r.unproven,
	              r.reason);
	ck_assert_msg(r.reason[0], "%s: empty reason", c->name);
	ck_assert_msg(strstr(r.reason, c->reason_has), "%s: '%s' not in '%s'", c->name,
	              c->reason_has, r.reason);
	/* CONFIRMED and CONSISTENT never rest on a VM that is not the sandbox's own. */
	if ((r.verdict == VERDICT_CONFIRMED || r.verdict == VERDICT_CONSISTENT) &&
	    c->tier == ISOTIER_MICROVM)
		ck_assert_msg(c->rel == D || c->rel == H, "%s: a VM not proven its own confirmed",
		              c->name);
	isotier__probe_result_clear(&p);
}
END_TEST

START_TEST(no_probe_is_inconclusive)
{
	judge_claim claim = {.present = true, .tier = ISOTIER_CONTAINER, .mechanism = "runc"};
	judge_result r;
	isotier__judge(&r, &claim, NULL, NULL);
	ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_UNKNOWN);
	ck_assert_ptr_nonnull(strstr(r.reason, "no usable probe output"));
	isotier__judge(&r, NULL, NULL, NULL);
	ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
}
END_TEST

/* Without a kernel comparison (NULL) a VM is never the sandbox's own. */
START_TEST(no_kernel_relation_fails_closed)
{
	probe_result p;
	make_probe(&p, "vm/qemu", NULL, NULL);
	judge_claim claim = {.present = true, .tier = ISOTIER_MICROVM, .mechanism = "qemu"};
	judge_result r;
	isotier__judge(&r, &claim, &p, NULL);
	ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
	ck_assert(r.unproven);
	ck_assert_int_eq(r.ceiling, PROBE_TIER_NONE);
	ck_assert_int_eq(isotier__judge_ceiling_tier(r.ceiling), ISOTIER_UNKNOWN);
	isotier__probe_result_clear(&p);
}
END_TEST

START_TEST(names_round_trip)
{
	for (int v = VERDICT_CONFIRMED; v <= VERDICT_UNAVAILABLE; v++) {
		judge_verdict back;
		ck_assert_int_eq(
		    isotier__verdict_parse(&back, isotier__verdict_name((judge_verdict)v)), 0);
		ck_assert_int_eq(back, v);
	}
	judge_verdict back;
	ck_assert_int_eq(isotier__verdict_parse(&back, "MAYBE"), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__verdict_parse(&back, NULL), ISOTIER_EINVAL);
	ck_assert_str_eq(isotier__verdict_name((judge_verdict)99), "?");
}
END_TEST

START_TEST(mechanism_kinds)
{
	static const struct {
		const char *m;
		int rc;
		probe_layer_kind k;
	} rows[] = {
	    {"firecracker", 0, PROBE_LAYER_VM},
	    {"cloud-hypervisor", 0, PROBE_LAYER_VM},
	    {"qemu", 0, PROBE_LAYER_VM},
	    {"kata", 0, PROBE_LAYER_VM},
	    {"libkrun", 0, PROBE_LAYER_VM},
	    {"vm", 0, PROBE_LAYER_VM},
	    {"gvisor", 0, PROBE_LAYER_GVISOR},
	    {"runc", 0, PROBE_LAYER_CONTAINER},
	    {"crun", 0, PROBE_LAYER_CONTAINER},
	    {"bubblewrap", 0, PROBE_LAYER_CONTAINER},
	    {"container", 0, PROBE_LAYER_CONTAINER},
	    {"webassembly", ISOTIER_EINVAL, 0},
	    {"v8-isolate", ISOTIER_EINVAL, 0},
	    {"unknown", ISOTIER_EINVAL, 0},
	    {"", ISOTIER_EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		probe_layer_kind k = PROBE_LAYER_CONTAINER;
		ck_assert_int_eq(isotier__judge_mechanism_kind(&k, rows[i].m), rows[i].rc);
		if (!rows[i].rc)
			ck_assert_int_eq(k, rows[i].k);
	}
	probe_layer_kind k;
	ck_assert_int_eq(isotier__judge_mechanism_kind(&k, NULL), ISOTIER_EINVAL);
}
END_TEST

/* What the verifier's host saw decides before what the sandbox prints. */
static const struct host_case {
	const char *name;
	isotier_tier tier;
	const char *mechanism, *layers;
	isotier_kernel_relation rel;
	isotier_host_evidence host;
	unsigned saw;
	judge_verdict want;
	const char *reason_has;
} host_cases[] = {
    /* gVisor: only with runsc seen and the host's kernel not seen inside. */
    {"runsc seen, clear", ISOTIER_GVISOR, "gvisor", "vm/firecracker>gvisor", U, ISOTIER_HOST_CLEAR,
     ISOTIER_HOST_SAW_GVISOR, VERDICT_CONFIRMED, "own innermost layer is GVISOR"},
    {"gvisor answers, workload on the host", ISOTIER_GVISOR, "gvisor", "vm/firecracker>gvisor", S,
     ISOTIER_HOST_SHARED, 0, VERDICT_CONTRADICTED, "not gVisor"},
    {"gvisor answers, no runsc seen", ISOTIER_GVISOR, "gvisor", "gvisor", U, ISOTIER_HOST_CLEAR, 0,
     VERDICT_INCONCLUSIVE, "saw no runsc of this run"},
    {"gvisor answers, checks incomplete", ISOTIER_GVISOR, "gvisor", "gvisor", U,
     ISOTIER_HOST_INCOMPLETE, ISOTIER_HOST_SAW_GVISOR, VERDICT_INCONCLUSIVE,
     "could not complete its checks"},
    /* A VM: its kernel its own and a VMM seen running it. */
    {"qemu seen, dedicated", ISOTIER_MICROVM, "qemu", "vm/qemu", D, ISOTIER_HOST_CLEAR,
     ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_QEMU, VERDICT_CONFIRMED, "MICROVM (qemu)"},
    /* The VMM of this run must be the one the sandbox names. */
    {"firecracker seen, qemu named", ISOTIER_MICROVM, "qemu", "vm/qemu", D, ISOTIER_HOST_CLEAR,
     ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_FIRECRACKER, VERDICT_INCONCLUSIVE,
     "not the one the sandbox names"},
    {"a VMM with no name seen", ISOTIER_MICROVM, "qemu", "vm/qemu", D, ISOTIER_HOST_CLEAR,
     ISOTIER_HOST_SAW_VMM, VERDICT_INCONCLUSIVE, "not the one the sandbox names"},
    {"dedicated but no VMM seen", ISOTIER_MICROVM, "qemu", "vm/qemu", D, ISOTIER_HOST_CLEAR, 0,
     VERDICT_INCONCLUSIVE, "saw no VMM of this run"},
    {"the host's VM, workload on the host", ISOTIER_MICROVM, "firecracker",
     "vm/firecracker>container", S, ISOTIER_HOST_SHARED, 0, VERDICT_CONTRADICTED, "host's"},
    {"containers are containers whatever the host saw", ISOTIER_CONTAINER, "runc",
     "vm/firecracker>container", S, ISOTIER_HOST_SHARED, 0, VERDICT_CONFIRMED, "CONTAINER"},
};

START_TEST(host_view_decides)
{
	const struct host_case *c = &host_cases[_i];
	probe_result p;
	make_probe(&p, c->layers, NULL, NULL);
	judge_claim claim = {.present = true, .tier = c->tier, .mechanism = c->mechanism};
	judge_kernel k = {
	    .relation = c->rel, .detail = "host detail", .host = c->host, .host_saw = c->saw};
	judge_result r;
	isotier__judge(&r, &claim, &p, &k);
	ck_assert_msg(r.verdict == c->want, "%s: %s, want %s (%s)", c->name,
	              isotier__verdict_name(r.verdict), isotier__verdict_name(c->want), r.reason);
	ck_assert_msg(strstr(r.reason, c->reason_has), "%s: reason '%s' lacks '%s'", c->name,
	              r.reason, c->reason_has);
	isotier__probe_result_clear(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("judge");
	TCase *tc = tcase_create("judge");
	tcase_add_loop_test(tc, verdict_table, 0, (int)(sizeof cases / sizeof *cases));
	tcase_add_loop_test(tc, host_view_decides, 0,
	                    (int)(sizeof host_cases / sizeof *host_cases));
	tcase_add_test(tc, no_probe_is_inconclusive);
	tcase_add_test(tc, no_kernel_relation_fails_closed);
	tcase_add_test(tc, names_round_trip);
	tcase_add_test(tc, mechanism_kinds);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
