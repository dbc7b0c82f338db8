/* SPDX-License-Identifier: Apache-2.0 */
/* test_host_sighting.c - a VMM or runsc counts only as the host's own program,
 * started for this run (reference/evidence/host_sighting.c), with real processes: a
 * copy of sleep installed as "firecracker" in a root-only directory made the
 * trusted one counts when this run spawned it, and not when it was started
 * beside the run, through a shell the run started, from a directory others can
 * write, or first on PATH; an engine's process that names this run's container
 * id binds its runsc-named child. */
#include <check.h>
#include "check_run.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../reference/evidence/host_sighting.h"
#include "../../reference/evidence/host_watch.h"

static char trusted[256], loose[256];

static void nap_ms(int ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

/* A copy of sleep as dir/name; 0, or -1 (before any test runs: no ck_assert). */
static int install(const char *dir, mode_t dir_mode, const char *name)
{
	char path[512];
	mkdir(dir, dir_mode);
	if (chmod(dir, dir_mode) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp /bin/sleep '%s' && chmod 0755 '%s'", path, path);
	return system(cmd) == 0 ? 0 : -1;
}

/* Runs argv in a child; the child waits briefly first, so the caller can bind
 * it before it starts what it runs. */
static pid_t start(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	nap_ms(150); /* exec'd, and a shell had time to start its child */
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The pid of pid's first child, or -1. */
static pid_t child_of(pid_t pid)
{
	char path[96], buf[256] = "";
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int c = -1;
	if (fgets(buf, sizeof buf, f))
		sscanf(buf, "%d", &c);
	fclose(f);
	return c;
}

static unsigned check(isotier_run_binding *b, pid_t pid, char *why, size_t why_len)
{
	char detail[120] = "";
	why[0] = '\0';
	return isotier__sighting_check(b, pid, 0, detail, sizeof detail, why, why_len);
}

START_TEST(this_runs_own_program_counts)
{
	char exe[512], why[200];
	snprintf(exe, sizeof exe, "%s/firecracker", trusted);
	isotier_run_binding b;
	isotier__binding_init(&b);
	pid_t p = start((char *const[]){exe, "5", NULL});
	isotier__binding_add_root(&b, p);
	unsigned saw = check(&b, p, why, sizeof why);
	ck_assert_msg(saw & ISOTIER_HOST_SAW_VMM, "not counted: %s", why);
	ck_assert(saw & ISOTIER_HOST_SAW_FIRECRACKER);
	ck_assert(!(saw & ISOTIER_HOST_SAW_QEMU));
	ck_assert_uint_eq(isotier__host_saw_vmm_bit("firecracker"), ISOTIER_HOST_SAW_FIRECRACKER);
	ck_assert_uint_eq(isotier__host_saw_vmm_bit("qemu"), ISOTIER_HOST_SAW_QEMU);
	ck_assert_uint_eq(isotier__host_saw_vmm_bit("bhyve"), 0);
	/* Once its kind is credited (the watch asks again every few ms) it is
	 * not checked again; a kind not yet credited still is. */
	char detail[120] = "";
	ck_assert_uint_eq(isotier__sighting_check(&b, p, saw, detail, sizeof detail, NULL, 0), 0);
	ck_assert_uint_eq(isotier__sighting_check(&b, p,
	                                          ISOTIER_HOST_SAW_VMM | ISOTIER_HOST_SAW_QEMU,
	                                          detail, sizeof detail, NULL, 0),
	                  saw);
	stop(p);
	isotier__binding_destroy(&b);
}
END_TEST

START_TEST(beside_the_run_does_not_count)
{
	char exe[512], why[200];
	snprintf(exe, sizeof exe, "%s/firecracker", trusted);
	isotier_run_binding b;
	isotier__binding_init(&b);
	pid_t mine = start((char *const[]){"/bin/sleep", "5", NULL});
	isotier__binding_add_root(&b, mine);
	pid_t decoy = start((char *const[]){exe, "5", NULL}); /* another job's, a decoy */
	ck_assert_uint_eq(check(&b, decoy, why, sizeof why), 0);
	ck_assert_ptr_nonnull(strstr(why, "not started for this run"));
	stop(decoy);
	stop(mine);
	isotier__binding_destroy(&b);
}
END_TEST

START_TEST(through_a_shell_does_not_count)
{
	char cmd[600], why[200];
	snprintf(cmd, sizeof cmd, "%s/firecracker 5; :", trusted);
	isotier_run_binding b;
	isotier__binding_init(&b);
	/* The run's root is a shell (a wrapper a runtime configuration could
	 * name): what it starts is not the runtime isotier started. */
	pid_t sh = start((char *const[]){"/bin/sh", "-c", cmd, NULL});
	isotier__binding_add_root(&b, sh);
	pid_t vmm = child_of(sh);
	ck_assert_int_gt(vmm, 0);
	ck_assert_uint_eq(check(&b, vmm, why, sizeof why), 0);
	ck_assert_ptr_nonnull(strstr(why, "not started for this run"));
	stop(vmm);
	stop(sh);
	isotier__binding_destroy(&b);
}
END_TEST

START_TEST(writable_directory_or_path_does_not_count)
{
	char exe[512], why[200];
	snprintf(exe, sizeof exe, "%s/firecracker", loose);
	isotier_run_binding b;
	isotier__binding_init(&b);
	pid_t p = start((char *const[]){exe, "5", NULL});
	isotier__binding_add_root(&b, p);
	/* The trusted directories: the copy in a world-writable one is not the host's. */
	setenv("ISOTIER_TRUSTED_PATH", loose, 1);
	ck_assert_uint_eq(check(&b, p, why, sizeof why), 0);
	ck_assert_ptr_nonnull(strstr(why, "trusted directories"));
	/* PATH is never read: first on PATH is nothing. */
	setenv("ISOTIER_TRUSTED_PATH", trusted, 1);
	char path[600];
	snprintf(path, sizeof path, "%s:%s", loose, getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", path, 1);
	ck_assert_uint_eq(check(&b, p, why, sizeof why), 0);
	ck_assert_ptr_nonnull(strstr(why, "not the host's own file"));
	stop(p);
	isotier__binding_destroy(&b);
}
END_TEST

START_TEST(engine_container_id_binds)
{
	char cidfile[300], why[200], cmd[700];
	const char *cid = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	snprintf(cidfile, sizeof cidfile, "%s/cid", loose);
	FILE *f = fopen(cidfile, "w");
	ck_assert_ptr_nonnull(f);
	fputs(cid, f);
	fclose(f);
	isotier_run_binding b;
	isotier__binding_init(&b);
	isotier__binding_add_cidfile(&b, cidfile);
	/* A shim that names the container (as containerd's -id does) starts the runtime. */
	snprintf(cmd, sizeof cmd, "%s/runsc 5; : -id %s", trusted, cid);
	pid_t shim = start((char *const[]){"/bin/sh", "-c", cmd, NULL});
	pid_t rt = child_of(shim);
	ck_assert_int_gt(rt, 0);
	unsigned saw = check(&b, rt, why, sizeof why);
	ck_assert_msg(saw & ISOTIER_HOST_SAW_GVISOR, "not counted: %s", why);
	/* Another container's shim: not this run's. */
	isotier_run_binding other;
	isotier__binding_init(&other);
	ck_assert_uint_eq(check(&other, rt, why, sizeof why), 0);
	stop(rt);
	stop(shim);
	isotier__binding_destroy(&other);
	isotier__binding_destroy(&b);
	unlink(cidfile);
}
END_TEST

int main(void)
{
	if (geteuid() != 0) {
		puts("test_host_sighting: needs root (a root-only directory of trusted programs); "
		     "skipped");
		return 0;
	}
	/* /run is root's 0755: a directory under it is trusted when root-only. */
	snprintf(trusted, sizeof trusted, "/run/isotier-test-trusted-%d", (int)getpid());
	snprintf(loose, sizeof loose, "/tmp/isotier-test-loose-%d", (int)getpid());
	if (install(trusted, 0755, "firecracker") || install(trusted, 0755, "runsc") ||
	    install(loose, 0777, "firecracker")) {
		fprintf(stderr, "test_host_sighting: cannot install the test programs\n");
		return 1;
	}
	setenv("ISOTIER_TRUSTED_PATH", trusted, 1);
	Suite *s = suite_create("host_sighting");
	TCase *tc = tcase_create("host_sighting");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, this_runs_own_program_counts);
	tcase_add_test(tc, beside_the_run_does_not_count);
	tcase_add_test(tc, through_a_shell_does_not_count);
	tcase_add_test(tc, writable_directory_or_path_does_not_count);
	tcase_add_test(tc, engine_container_id_binds);
	suite_add_tcase(s, tc);
	int rc = run_suite(s);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", trusted, loose);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
