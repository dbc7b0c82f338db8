/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_probe_linear.c - issue 17, finding 4: every replay reader is linear in
 * its input. A capture whose .probe/ns and .probe/kmsg are 64 KiB of bare
 * newlines made the namespace, nsfs and ACPI-from-kernel-log readers search
 * to the end of the buffer once per line: about 5 CPU-seconds per replay
 * under ASan. Here twenty replays run in a child limited to 10 CPU-seconds
 * (RLIMIT_CPU, SIGXCPU past it): the quadratic readers need ~100, the linear
 * ones a fraction of one. A work bound, not a timing: load on the machine
 * does not move CPU time.
 */
#include <check.h>
#include "check_run.h"
#include "replay_root.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe.h"

#define REPLAYS     20
#define CPU_LIMIT_S 10

static void replay_in_bounded_child(const char *root)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = {CPU_LIMIT_S, CPU_LIMIT_S + 1};
		if (setrlimit(RLIMIT_CPU, &rl) != 0)
			_exit(2);
		static struct probe_result res;
		for (int i = 0; i < REPLAYS; i++) {
			struct probe_input in;
			if (probe_input_init(&in, root, NULL) != 0)
				_exit(3);
			probe_run(&in, &res);
			probe_input_free(&in);
		}
		_exit(0);
	}
	int status = 0;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(!WIFSIGNALED(status), "%d replays of %s exceeded %d CPU-seconds (signal %d)",
	              REPLAYS, root, CPU_LIMIT_S, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}

START_TEST(newline_floods_are_linear)
{
	char root[] = "/tmp/isotier-linear-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/.probe", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	size_t n = 65536;
	char *nl = malloc(n);
	ck_assert_ptr_nonnull(nl);
	memset(nl, '\n', n);
	put(root, ".probe/ns", nl, n);
	put(root, ".probe/kmsg", nl, n);
	free(nl);
	replay_in_bounded_child(root);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The readers still find what sits on the last of many lines. */
START_TEST(last_line_still_read)
{
	char root[] = "/tmp/isotier-linear-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(root));
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/.probe", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	static char buf[8192];
	memset(buf, '\n', 4096);
	size_t len = 4096;
	len += (size_t)snprintf(
	    buf + len, sizeof(buf) - len,
	    "[    0.0] ACPI: DSDT 0x0000000000000000 000F53 (v02 FIRECK FCVMDSDT 00000000)\n");
	put(root, ".probe/kmsg", buf, len);
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, root, NULL), 0);
	static struct probe_signals sigs;
	memset(&sigs, 0, sizeof(sigs));
	probe_sig_virt(&in, &sigs);
	probe_input_free(&in);
	int i = probe_find(&sigs, "virt.acpi_oem");
	ck_assert_msg(i >= 0, "the ACPI line after 4096 empty lines was not read");
	ck_assert_ptr_nonnull(strstr(sigs.v[i].value, "FIRECK"));
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_linear");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, newline_floods_are_linear);
	tcase_add_test(tc, last_line_still_read);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
