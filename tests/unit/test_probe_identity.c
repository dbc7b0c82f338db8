/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_probe_identity.c - the probe's checks of its own inputs: the kernel
 * identity (boot_id, btime) checked live and never trusted from a replay;
 * forged /proc or namespace files leave the container question open; files
 * (firmware class) never make a high-confidence layer; gVisor's evidence is
 * cross-checked against uname(2) and the kernel's seccomp status.
 */
#include <check.h>
#include "check_run.h"
#include "replay_root.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

static struct probe_result res;

/* A copy of fixture `name` in a fresh temporary root (returned in dir). */
static void copy_fixture(char dir[64], const char *name)
{
	snprintf(dir, 64, "/tmp/probe-identity.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp -a '%s%s/.' '%s/'", FIXTURES, name, dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void put_s(const char *root, const char *rel, const char *text)
{
	put(root, rel, text, strlen(text));
}

static void replay(const char *root)
{
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, root, NULL), 0);
	probe_run(&in, &res);
	probe_input_free(&in);
}

static const char *value_of(const char *id)
{
	int i = probe_find(&res.sigs, id);
	return i < 0 ? NULL : res.sigs.v[i].value;
}

static const char all_ok[] = "proc_fs ok procfs\n"
                             "files_mount ok boot_id and stat are /proc's own procfs\n"
                             "proc_mounts ok nothing mounted\n"
                             "boot_id_reads ok boot_id stable, random/uuid fresh\n"
                             "ns_stat ok readlink and stat agree, on nsfs\n"
                             "time_ns ok the initial time namespace\n";

static const char boot_id[] = "0c4a1b2e-3d4f-4a5b-8c6d-7e8f9a0b1c2d\n";

/* The live checks on the machine running the suite: every check reports, and
 * trusted is exactly "every check passed and boot_id and btime were read". */
START_TEST(live_checks_report_and_decide_trust)
{
	char *text = probe_live_identity();
	ck_assert_ptr_nonnull(text);
	static const char *const checks[] = {"proc_fs ",       "files_mount ", "proc_mounts ",
	                                     "boot_id_reads ", "ns_stat ",     "time_ns "};
	for (size_t i = 0; i < 6; i++)
		ck_assert_msg(strstr(text, checks[i]), "no %s line in:\n%s", checks[i], text);
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, NULL, NULL), 0);
	probe_run(&in, &res);
	probe_input_free(&in);
	bool fine =
	    !strstr(text, " fail ") && !strstr(text, "files_mount skip") &&
	    !strstr(text, "proc_mounts skip") && !strstr(text, "boot_id_reads skip") &&
	    !strstr(text, "ns_stat skip") && !strstr(text, "proc_fs skip") &&
	    (!strstr(text, "time_ns skip") || strstr(text, "time_ns skip no time namespace"));
	ck_assert_int_eq(res.kernel.identity_trusted,
	                 fine && res.kernel.boot_id[0] && res.kernel.btime != 0);
	ck_assert_int_eq(res.kernel.identity_nproblems == 0, res.kernel.identity_trusted);
	free(text);
}
END_TEST

/* A capture claiming every check passed is still a capture: never trusted. */
START_TEST(replay_is_never_trusted)
{
	char dir[64];
	copy_fixture(dir, "real-firecracker-native");
	put_s(dir, ".probe/identity", all_ok);
	put_s(dir, "proc/sys/kernel/random/boot_id", boot_id);
	put_s(dir, "proc/stat", "cpu 1 2 3\nbtime 1700000000\n");
	replay(dir);
	ck_assert(!res.kernel.identity_trusted);
	ck_assert_uint_eq(res.kernel.identity_nproblems, 1);
	ck_assert_ptr_nonnull(strstr(res.kernel.identity_problems[0], "replayed input"));
	ck_assert_str_eq(value_of("kernel.identity_proc_fs"), "ok: procfs");
	ck_assert_str_eq(res.verdict.tier, "MICROVM");
	ck_assert_str_eq(res.verdict.confidence, "high");
	rm_rf(dir);
}
END_TEST

/* Each failing check is a problem; a missing btime never counts as identity;
 * the list is bounded for the verifier. */
START_TEST(problems_are_listed_and_bounded)
{
	char dir[64];
	copy_fixture(dir, "real-firecracker-native");
	char text[4096];
	snprintf(
	    text, sizeof(text),
	    "proc_fs ok procfs\n"
	    "files_mount fail /proc/sys/kernel/random/boot_id is not on procfs (magic 0xef53)\n"
	    "proc_mounts fail identity a mount at /proc/sys/kernel/random/boot_id %0300d\n"
	    "boot_id_reads fail boot_id changed between two reads\n"
	    "ns_stat ok readlink and stat agree, on nsfs\n"
	    "time_ns fail a private time namespace shifts btime\n",
	    0);
	put_s(dir, ".probe/identity", text);
	put_s(dir, "proc/stat", "cpu 1 2 3\n"); /* no btime */
	replay(dir);
	ck_assert(!res.kernel.identity_trusted);
	ck_assert_uint_le(res.kernel.identity_nproblems, PROBE_IDENTITY_MAX_PROBLEMS);
	bool files = false, mounts = false, reads = false, btime = false, timens = false;
	for (size_t i = 0; i < res.kernel.identity_nproblems; i++) {
		const char *p = res.kernel.identity_problems[i];
		ck_assert_uint_le(strlen(p), PROBE_IDENTITY_PROBLEM_MAX - 1);
		files = files || strstr(p, "not on procfs");
		mounts = mounts || strstr(p, "a mount at /proc/sys/kernel/random/boot_id");
		reads = reads || strstr(p, "changed between two reads");
		btime = btime || strstr(p, "no btime");
		timens = timens || strstr(p, "time namespace");
	}
	ck_assert(files && mounts && reads && btime && timens);
	/* An identity file bound over procfs's says nothing about namespaces:
	 * an honest nspawn container stays a container. */
	ck_assert_str_eq(res.verdict.tier, "MICROVM");
	ck_assert_int_eq(res.kernel.btime, 0);
	rm_rf(dir);
}
END_TEST

/* A /proc that is not procfs, namespace files that are not nsfs, or a mount
 * over a process directory forge the namespace readings: the initial
 * namespaces they show must not make a microVM. */
START_TEST(forged_proc_leaves_the_container_question_open)
{
	static const char *const forged[] = {
	    "proc_fs fail not procfs (magic 0x1021994)\n",
	    "proc_fs ok procfs\nns_stat fail pid: readlink works but the file cannot be opened\n",
	    "proc_fs ok procfs\nproc_mounts fail pid a mount at /proc/self/ns\n",
	};
	for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		char dir[64];
		copy_fixture(dir, "real-firecracker-native");
		put_s(dir, ".probe/identity", forged[i]);
		replay(dir);
		ck_assert_msg(strcmp(res.verdict.tier, "UNKNOWN") == 0, "%s: tier %s", forged[i],
		              res.verdict.tier);
		bool said = false;
		for (size_t u = 0; u < res.verdict.nunanswered; u++)
			said =
			    said || (strcmp(res.verdict.unanswered[u].question, "container") == 0 &&
			             strstr(res.verdict.unanswered[u].why, "forged"));
		ck_assert_msg(said, "%s: the container question is not said to be forged",
		              forged[i]);
		rm_rf(dir);
	}
	/* The same capture with its /proc checked: a microVM, high. */
	char dir[64];
	copy_fixture(dir, "real-firecracker-native");
	put_s(dir, ".probe/identity", all_ok);
	replay(dir);
	ck_assert_str_eq(res.verdict.tier, "MICROVM");
	ck_assert_str_eq(res.verdict.confidence, "high");
	rm_rf(dir);
}
END_TEST

/* gVisor's Sentry writes uname(2) and /proc/version from one utsname; a
 * container behind a gVisor-like filter shows the host's uname. */
START_TEST(gvisor_uname_must_agree_with_proc_version)
{
	char dir[64];
	copy_fixture(dir, "real-runsc-ptrace");
	replay(dir);
	ck_assert_str_eq(value_of("kernel.uname_proc_version"), "agree");
	ck_assert_str_eq(res.verdict.tier, "GVISOR");
	ck_assert_str_eq(res.verdict.confidence, "high");
	put_s(dir, ".probe/uname",
	      "Linux\nbox\n6.1.0-18-amd64\n#1 SMP PREEMPT_DYNAMIC Debian "
	      "6.1.76-1 (2024-02-01)\nx86_64\n");
	replay(dir);
	ck_assert_ptr_nonnull(strstr(value_of("kernel.uname_proc_version"), "disagree"));
	ck_assert_str_eq(res.verdict.tier, "GVISOR"); /* lowered, never raised */
	ck_assert_str_eq(res.verdict.confidence, "low");
	ck_assert_str_eq(res.verdict.layers[res.verdict.nlayers - 1].confidence, "low");
	rm_rf(dir);
}
END_TEST

/* The no-filter guard rests on the kernel's status line, never on prctl's
 * answer alone; a disagreement lowers a gvisor layer. */
START_TEST(seccomp_guard_does_not_rest_on_prctl)
{
	char dir[64];
	copy_fixture(dir, "real-runsc-ptrace");
	char path[128];
	/* The status line says a filter is there; prctl (the filter) says none. */
	snprintf(path, sizeof(path), "%s/proc/self/status", dir);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "sed -i 's/^Seccomp:.*/Seccomp:\t2/' '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	replay(dir);
	ck_assert_ptr_nonnull(strstr(value_of("syscall.seccomp_agree"), "disagree"));
	ck_assert_int_eq(res.sigs.v[probe_find(&res.sigs, "syscall.modify_ldt")].weight,
	                 PROBE_WEAK);
	ck_assert_str_ne(res.verdict.confidence, "high");
	/* No status file at all: prctl's 0 is the filter's word, not evidence. */
	ck_assert_int_eq(remove(path), 0);
	replay(dir);
	ck_assert_int_eq(res.sigs.v[probe_find(&res.sigs, "syscall.setfsuid")].weight, PROBE_WEAK);
	ck_assert_str_ne(res.verdict.confidence, "high");
	rm_rf(dir);
	/* A forged /proc makes its status line no guard either. */
	copy_fixture(dir, "real-runsc-ptrace");
	put_s(dir, ".probe/identity", "proc_fs fail not procfs (magic 0x1021994)\n");
	replay(dir);
	ck_assert_int_eq(res.sigs.v[probe_find(&res.sigs, "syscall.sysfs")].weight, PROBE_WEAK);
	ck_assert_str_ne(res.verdict.confidence, "high");
	rm_rf(dir);
}
END_TEST

/* Files never outvote the CPU, and never make a high layer alone. */
START_TEST(files_never_make_a_high_vm_layer)
{
	char dir[64];
	/* Bare metal (CPUID: no hypervisor) with one file naming a VM: no vm layer. */
	copy_fixture(dir, "syn-bare-host");
	put_s(dir, "sys/class/dmi/id/sys_vendor", "QEMU\n");
	put_s(dir, "sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
	replay(dir);
	ck_assert_str_eq(res.verdict.tier, "NONE");
	rm_rf(dir);
	/* A paravirtual claim in files silences CPUID's "no": the honest guest
	 * keeps its tier, but it rests on files alone and is low. */
	static const char *const pv[][2] = {
	    {"proc/cpuinfo", "processor\t: 0\nvendor_id\t: User Mode Linux\nmodel name\t: UML\n"},
	    {"sys/hypervisor/type", "xen\n"},
	};
	for (size_t i = 0; i < 2; i++) {
		copy_fixture(dir, "syn-bare-host");
		put_s(dir, pv[i][0], pv[i][1]);
		if (i == 1)
			put_s(dir, "proc/xen/capabilities", "");
		replay(dir);
		ck_assert_msg(strcmp(res.verdict.confidence, "high") != 0, "%s made a high %s",
		              pv[i][0], res.verdict.tier);
		for (size_t l = 0; l < res.verdict.nlayers; l++)
			ck_assert_str_eq(res.verdict.layers[l].confidence, "low");
		rm_rf(dir);
	}
	/* Without CPUID, DMI naming QEMU makes a vm layer, low. */
	copy_fixture(dir, "syn-weak-only-qemu");
	replay(dir);
	ck_assert_str_eq(res.verdict.tier, "MICROVM");
	ck_assert_str_eq(res.verdict.layers[0].confidence, "low");
	ck_assert_str_eq(res.verdict.layers[0].cls, "firmware");
	rm_rf(dir);
}
END_TEST

/* kernel.identity in the JSON report: the contract the verifier parses. */
START_TEST(report_carries_identity)
{
	char dir[64];
	copy_fixture(dir, "real-bwrap");
	replay(dir);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	probe_report_json(f, &res);
	fclose(f);
	ck_assert_ptr_nonnull(
	    strstr(buf, "\"identity\": {\"trusted\": false, \"problems\": [\"replayed input"));
	free(buf);
	rm_rf(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_identity");
	TCase *tc = tcase_create("identity");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, live_checks_report_and_decide_trust);
	tcase_add_test(tc, replay_is_never_trusted);
	tcase_add_test(tc, problems_are_listed_and_bounded);
	tcase_add_test(tc, forged_proc_leaves_the_container_question_open);
	tcase_add_test(tc, gvisor_uname_must_agree_with_proc_version);
	tcase_add_test(tc, seccomp_guard_does_not_rest_on_prctl);
	tcase_add_test(tc, files_never_make_a_high_vm_layer);
	tcase_add_test(tc, report_carries_identity);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
