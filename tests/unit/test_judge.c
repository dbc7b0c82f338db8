/* test_judge.c - the verdict table: claim (tier + mechanism) against the
 * probe's layers, over many cases, through the real probe JSON parser. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../verify/judge.h"

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
	ck_assert_msg(probe_result_parse(out, json, strlen(json), &err) == 0, "%s: %s", json,
	              err.message);
}

static const struct judge_case {
	const char *name;
	bool present;
	isotier_tier tier;
	const char *mechanism;
	const char *layers;
	const char *observed;
	const char *confidence;
	judge_verdict want;
	const char *reason_has;
} cases[] = {
    /* This machine's sandboxes: a Firecracker VM around everything. */
    {"bwrap here", true, ISOTIER_CONTAINER, "bubblewrap", "vm/firecracker>container", NULL, NULL,
     VERDICT_CONFIRMED, "innermost layer is CONTAINER"},
    {"runc here", true, ISOTIER_CONTAINER, "runc", "vm/firecracker>container", NULL, NULL,
     VERDICT_CONFIRMED, "claimed CONTAINER (runc)"},
    {"runsc here", true, ISOTIER_GVISOR, "gvisor", "vm/firecracker>gvisor", NULL, NULL,
     VERDICT_CONFIRMED, "GVISOR"},
    {"runsc, vm unseen", true, ISOTIER_GVISOR, "gvisor", "gvisor", NULL, NULL, VERDICT_CONFIRMED,
     ""},
    {"qemu tcg vendor", true, ISOTIER_MICROVM, "qemu", "vm/tcg", NULL, NULL, VERDICT_CONFIRMED,
     "MICROVM (tcg)"},
    {"qemu vendor + hypervisor", true, ISOTIER_MICROVM, "qemu", "vm/qemu:tcg", NULL, NULL,
     VERDICT_CONFIRMED, ""},
    {"firecracker host", true, ISOTIER_MICROVM, "firecracker", "vm/firecracker", NULL, NULL,
     VERDICT_CONFIRMED, "MICROVM (firecracker)"},
    {"cloud-hypervisor", true, ISOTIER_MICROVM, "cloud-hypervisor", "vm/cloud-hypervisor", NULL,
     NULL, VERDICT_CONFIRMED, ""},
    {"vm mechanism, any vendor", true, ISOTIER_MICROVM, "vm", "vm/qemu", NULL, NULL,
     VERDICT_CONFIRMED, ""},
    {"kata, any vendor", true, ISOTIER_MICROVM, "kata", "vm/cloud-hypervisor", NULL, NULL,
     VERDICT_CONFIRMED, ""},
    {"libkrun, unnamed", true, ISOTIER_MICROVM, "libkrun", "vm", NULL, NULL, VERDICT_CONFIRMED, ""},
    {"firecracker, vendor unnamed (kvm)", true, ISOTIER_MICROVM, "firecracker", "vm/kvm", NULL,
     NULL, VERDICT_CONFIRMED, ""},
    {"mechanism case-insensitive", true, ISOTIER_MICROVM, "Firecracker", "vm/FIRECRACKER", NULL,
     NULL, VERDICT_CONFIRMED, ""},
    {"crun", true, ISOTIER_CONTAINER, "crun", "container", NULL, NULL, VERDICT_CONFIRMED, ""},
    {"container", true, ISOTIER_CONTAINER, "container", "container/docker", NULL, NULL,
     VERDICT_CONFIRMED, ""},
    {"no mechanism: tier decides", true, ISOTIER_GVISOR, NULL, "gvisor", NULL, NULL,
     VERDICT_CONFIRMED, "unnamed mechanism"},
    /* Vendor contradictions. */
    {"firecracker claimed, qemu seen", true, ISOTIER_MICROVM, "firecracker", "vm/qemu", NULL, NULL,
     VERDICT_CONTRADICTED, "the VM is qemu"},
    {"qemu claimed, firecracker seen", true, ISOTIER_MICROVM, "qemu", "vm/firecracker", NULL, NULL,
     VERDICT_CONTRADICTED, "firecracker"},
    {"cloud-hypervisor claimed, tcg seen", true, ISOTIER_MICROVM, "cloud-hypervisor", "vm/tcg",
     NULL, NULL, VERDICT_CONTRADICTED, ""},
    {"firecracker claimed, nested qemu in fc", true, ISOTIER_MICROVM, "firecracker",
     "vm/firecracker>vm/qemu", NULL, NULL, VERDICT_CONSISTENT, "not innermost"},
    /* Present but not innermost. */
    {"microVM running a container", true, ISOTIER_MICROVM, "firecracker",
     "vm/firecracker>container", NULL, NULL, VERDICT_CONSISTENT, "present but not innermost"},
    {"kata with container inside", true, ISOTIER_MICROVM, "kata", "vm>container", NULL, NULL,
     VERDICT_CONSISTENT, ""},
    {"gvisor claimed, container inside gvisor", true, ISOTIER_GVISOR, "gvisor", "gvisor>container",
     NULL, NULL, VERDICT_CONSISTENT, ""},
    {"firecracker claimed, qemu vm + container", true, ISOTIER_MICROVM, "firecracker",
     "vm/qemu>container", NULL, NULL, VERDICT_CONTRADICTED, "the VM is qemu"},
    /* Stronger than claimed. */
    {"container claimed, gvisor seen", true, ISOTIER_CONTAINER, "runc", "gvisor", NULL, NULL,
     VERDICT_EXCEEDS, "observed stronger"},
    {"container claimed, vm only", true, ISOTIER_CONTAINER, "container", "vm/firecracker", NULL,
     NULL, VERDICT_EXCEEDS, ""},
    {"gvisor claimed, vm seen", true, ISOTIER_GVISOR, "gvisor", "vm/qemu", NULL, NULL,
     VERDICT_EXCEEDS, ""},
    {"container claimed, gvisor inside container", true, ISOTIER_CONTAINER, "runc",
     "container>gvisor", NULL, NULL, VERDICT_EXCEEDS, ""},
    /* Absent. */
    {"container claimed, bare host", true, ISOTIER_CONTAINER, "runc", "", "NONE", NULL,
     VERDICT_CONTRADICTED, "is absent"},
    {"microvm claimed, container seen", true, ISOTIER_MICROVM, "firecracker", "container", NULL,
     NULL, VERDICT_CONTRADICTED, "absent"},
    {"microvm claimed, gvisor seen", true, ISOTIER_MICROVM, "vm", "gvisor", NULL, NULL,
     VERDICT_CONTRADICTED, ""},
    {"gvisor claimed, container seen", true, ISOTIER_GVISOR, "gvisor", "vm/firecracker>container",
     NULL, NULL, VERDICT_CONTRADICTED, "absent"},
    {"gvisor claimed, bare host", true, ISOTIER_GVISOR, "gvisor", "", "NONE", NULL,
     VERDICT_CONTRADICTED, ""},
    /* Inconclusive. */
    {"no claim", false, ISOTIER_UNKNOWN, NULL, "vm/firecracker", NULL, NULL, VERDICT_INCONCLUSIVE,
     "no claim"},
    {"claim UNKNOWN", true, ISOTIER_UNKNOWN, "webassembly", "container", NULL, NULL,
     VERDICT_INCONCLUSIVE, "UNKNOWN"},
    {"probe UNKNOWN", true, ISOTIER_CONTAINER, "runc", "", "UNKNOWN", NULL, VERDICT_INCONCLUSIVE,
     "could not tell"},
    {"probe UNKNOWN with layers", true, ISOTIER_CONTAINER, "runc", "container", "UNKNOWN", NULL,
     VERDICT_INCONCLUSIVE, "could not tell"},
    {"low confidence", true, ISOTIER_CONTAINER, "runc", "container", NULL, "low",
     VERDICT_INCONCLUSIVE, "confidence is low, not high"},
    {"confidence none", true, ISOTIER_CONTAINER, "runc", "container", NULL, "none",
     VERDICT_INCONCLUSIVE, "confidence is none"},
    {"probe UNKNOWN, confidence none (what the probe prints)", true, ISOTIER_GVISOR, "gvisor", "",
     "UNKNOWN", "none", VERDICT_INCONCLUSIVE, "could not tell"},
    {"low confidence even when it would contradict", true, ISOTIER_MICROVM, "firecracker",
     "container", NULL, "low", VERDICT_INCONCLUSIVE, ""},
    {"claim contradicts itself", true, ISOTIER_MICROVM, "runc", "vm", NULL, NULL,
     VERDICT_INCONCLUSIVE, "contradicts itself"},
    {"unknown mechanism falls back to tier", true, ISOTIER_CONTAINER, "lxc", "container", NULL,
     NULL, VERDICT_CONFIRMED, ""},
};

START_TEST(verdict_table)
{
	const struct judge_case *c = &cases[_i];
	probe_result p;
	make_probe(&p, c->layers, c->observed, c->confidence);
	judge_claim claim = {.present = c->present, .tier = c->tier, .mechanism = c->mechanism};
	char reason[JUDGE_REASON_MAX];
	reason[0] = '\0';
	judge_verdict v = judge(&claim, &p, reason, sizeof reason);
	ck_assert_msg(v == c->want, "%s: want %s, got %s (%s)", c->name,
	              judge_verdict_name(c->want), judge_verdict_name(v), reason);
	ck_assert_msg(reason[0], "%s: empty reason", c->name);
	ck_assert_msg(strstr(reason, c->reason_has), "%s: '%s' not in '%s'", c->name, c->reason_has,
	              reason);
	probe_result_clear(&p);
}
END_TEST

START_TEST(no_probe_is_inconclusive)
{
	judge_claim claim = {.present = true, .tier = ISOTIER_CONTAINER, .mechanism = "runc"};
	char reason[JUDGE_REASON_MAX];
	ck_assert_int_eq(judge(&claim, NULL, reason, sizeof reason), VERDICT_INCONCLUSIVE);
	ck_assert_ptr_nonnull(strstr(reason, "no usable probe output"));
	ck_assert_int_eq(judge(NULL, NULL, reason, sizeof reason), VERDICT_INCONCLUSIVE);
}
END_TEST

START_TEST(small_reason_buffer_is_terminated)
{
	probe_result p;
	make_probe(&p, "vm/firecracker>container", NULL, NULL);
	judge_claim claim = {.present = true, .tier = ISOTIER_CONTAINER, .mechanism = "runc"};
	char reason[8];
	memset(reason, 'x', sizeof reason);
	ck_assert_int_eq(judge(&claim, &p, reason, sizeof reason), VERDICT_CONFIRMED);
	ck_assert_uint_eq(strlen(reason), sizeof reason - 1);
	probe_result_clear(&p);
}
END_TEST

START_TEST(names_round_trip)
{
	for (int v = VERDICT_CONFIRMED; v <= VERDICT_UNAVAILABLE; v++) {
		judge_verdict back;
		ck_assert_int_eq(judge_verdict_parse(&back, judge_verdict_name((judge_verdict)v)),
		                 0);
		ck_assert_int_eq(back, v);
	}
	judge_verdict back;
	ck_assert_int_eq(judge_verdict_parse(&back, "MAYBE"), ISOTIER_EINVAL);
	ck_assert_int_eq(judge_verdict_parse(&back, NULL), ISOTIER_EINVAL);
	ck_assert_str_eq(judge_verdict_name((judge_verdict)99), "?");
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
		ck_assert_int_eq(judge_mechanism_kind(&k, rows[i].m), rows[i].rc);
		if (!rows[i].rc)
			ck_assert_int_eq(k, rows[i].k);
	}
	probe_layer_kind k;
	ck_assert_int_eq(judge_mechanism_kind(&k, NULL), ISOTIER_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("judge");
	TCase *tc = tcase_create("judge");
	tcase_add_loop_test(tc, verdict_table, 0, (int)(sizeof cases / sizeof *cases));
	tcase_add_test(tc, no_probe_is_inconclusive);
	tcase_add_test(tc, small_reason_buffer_is_terminated);
	tcase_add_test(tc, names_round_trip);
	tcase_add_test(tc, mechanism_kinds);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
