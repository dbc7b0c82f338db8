/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_probe_hostile.c - isotier-probe's parsers on hostile replay input:
 * near misses of everything they look for, on lines longer than the read
 * bound. No crash, no unbounded read, a clean report (under ASan/UBSan).
 */
#include <check.h>
#include "check_run.h"
#include "replay_root.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probe.h"

static struct probe_result replayed;

/* Valid JSON string bytes: no raw control characters, valid UTF-8. */
static void assert_clean_json(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		ck_assert_msg(c >= 0x20 || c == '\n', "raw control byte 0x%02x at %zu", c, i);
		ck_assert_msg(c != 0x7f, "raw DEL at %zu", i);
		if (c >= 0x80) {
			size_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
			ck_assert_msg(c >= 0xc2 && c <= 0xf4, "bad lead byte 0x%02x", c);
			for (size_t j = 1; j <= k; j++)
				ck_assert_msg(i + j < n && ((unsigned char)s[i + j] & 0xc0) == 0x80,
				              "bad continuation at %zu", i + j);
			i += k;
		}
	}
}

/* Every parser on a long line that almost says what it looks for (no
 * newline for 64 KiB, a prefix repeated): bounded reads, no crash, a clean
 * report. The parsers are linear; nothing here measures time. */
START_TEST(hostile_near_misses_for_every_parser)
{
	static const struct {
		const char *rel, *unit;
	} inputs[] = {
	    {".probe/kmsg",
	     "[ 0.0] ACPI: DSDT (v0DMI: Hypervisor detected: Memory Encryption Features "
	     "active: SEV-MPTABLE: OEM ID: F"},
	    {".probe/cpuid", "0x1 0x0 eax=0x1 0x40000000 0x00: ebx="},
	    {".probe/ns", "pid -> 'pid:[40265318"},
	    {".probe/paths", "/proc/vz/proc/xen"},
	    {".probe/msr", "0xc0010131 0x"},
	    {".probe/uname", "Linux BrandZ microsoft-standard-WSL2 "},
	    {"proc/cpuinfo",
	     "vendor_id\t: User Mode Linu model name\t: QEMU Virtual CP flags hypervisor"},
	    {"proc/sysinfo", "VM00 Control Program: z/V"},
	    {"proc/self/status", "NSpid:\t1 2 VxID:\t9 "},
	    {"proc/self/mountinfo", "1 2 3:4 /x / rw - sysboxfs lxcfs kataShared "},
	    {"proc/self/cgroup", "0::/user.slice/docker"},
	    {"proc/xen/capabilities", "control_"},
	    {"proc/device-tree/hypervisor/compatible", "linux,kv"},
	    {"sys/class/dmi/id/product_name", "Virtual Machin"},
	};
	char dir[] = "/tmp/probe-nearmiss.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	size_t big = PROBE_MAX_FILE + 100;
	char *junk = malloc(big);
	ck_assert_ptr_nonnull(junk);
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		size_t ul = strlen(inputs[i].unit);
		for (size_t j = 0; j < big; j++)
			junk[j] = inputs[i].unit[j % ul];
		put(dir, inputs[i].rel, junk, big);
	}
	free(junk);
	struct probe_input in;
	probe_input_init(&in, dir, NULL);
	probe_run(&in, &replayed);
	probe_input_free(&in);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	probe_report_json(f, &replayed);
	fclose(f);
	assert_clean_json(buf, len);
	free(buf);
	rm_rf(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_hostile");
	TCase *tc = tcase_create("parsers");
	tcase_add_test(tc, hostile_near_misses_for_every_parser);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
