/* SPDX-License-Identifier: Apache-2.0 */
/* test_lease.c - the lease registry and the sweep of dead runs' leftovers
 * (lease.h, sweep.h), and proc.h's on_cancel hook: real files, real
 * processes, a real directory of leases. */
#include <check.h>
#include "check_run.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../reference/core/lease.h"
#include <linux/magic.h>
#include <sys/vfs.h>
#include "../../reference/core/proc.h"
#include "../../reference/backends/sweep.h"

static char root[256];

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/isotier-test-lease.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	char state[300], tmp[300];
	snprintf(state, sizeof state, "%s/state", root);
	snprintf(tmp, sizeof tmp, "%s/tmp", root);
	ck_assert_int_eq(mkdir(tmp, 0755), 0);
	setenv("ISOTIER_STATE_DIR", state, 1);
	setenv("TMPDIR", tmp, 1);
}

static void teardown(void)
{
	isotier__rmtree(root);
}

static size_t count_leases(void)
{
	char dir[4096];
	ck_assert(isotier__lease_dir(dir, sizeof dir));
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

START_TEST(pid_alive_needs_the_same_start_time)
{
	unsigned long long me = isotier__pid_start(getpid());
	ck_assert_uint_gt(me, 0);
	ck_assert(isotier__pid_alive(getpid(), me));
	ck_assert(!isotier__pid_alive(getpid(), me + 1)); /* a reused pid is not the owner */
	pid_t c = fork();
	if (c == 0)
		_exit(0);
	unsigned long long cs = isotier__pid_start(c);
	int st;
	/* A zombie releases nothing: dead already. */
	for (int i = 0; i < 100 && isotier__pid_alive(c, cs); i++)
		usleep(10000);
	ck_assert(!isotier__pid_alive(c, cs));
	waitpid(c, &st, 0);
	ck_assert(!isotier__pid_alive(c, cs));
}
END_TEST

START_TEST(mkdtemp_leases_and_rmtree_drops)
{
	char *dir = NULL;
	ck_assert_int_eq(isotier__mkdtemp(&dir, "isotier-vm", NULL), 0);
	ck_assert_uint_eq(count_leases(), 1);
	/* A live owner's leftovers are never swept. */
	ck_assert_int_eq(isotier__sweep(NULL, NULL), 0);
	ck_assert_int_eq(access(dir, F_OK), 0);
	isotier__rmtree(dir);
	ck_assert_uint_eq(count_leases(), 0);
	free(dir);
}
END_TEST

struct seen {
	int n;
	char what[4096];
	int owner;
};

static void report(void *ctx, const char *kind, const char *backend, const char *what, int owner,
                   const char *done)
{
	(void)backend;
	(void)done;
	struct seen *s = ctx;
	s->n++;
	snprintf(s->what, sizeof s->what, "%s %s", kind, what);
	s->owner = owner;
}

START_TEST(a_dead_runs_dir_and_its_process_are_swept)
{
	/* A child takes the lease for a temp dir, starts a process naming it (as
	 * QEMU names its initramfs) and dies without releasing either. */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t owner = fork();
	if (owner == 0) {
		char *dir = NULL;
		if (isotier__mkdtemp(&dir, "isotier-vm", NULL) != 0)
			_exit(1);
		pid_t user = fork();
		if (user == 0) {
			setsid(); /* outlives its parent, as a VM does */
			/* sh keeps dir in its command line ($0), as QEMU does its initrd */
			execlp("sh", "sh", "-c", "sleep 30; :", dir, (char *)NULL);
			_exit(127);
		}
		dprintf(p[1], "%d %s\n", (int)user, dir);
		_exit(0); /* SIGKILL-like: nothing released */
	}
	close(p[1]);
	char buf[4200] = "";
	ck_assert_int_gt(read(p[0], buf, sizeof buf - 1), 0);
	close(p[0]);
	int st;
	waitpid(owner, &st, 0);
	int user = 0;
	char dir[4096];
	ck_assert_int_eq(sscanf(buf, "%d %4095s", &user, dir), 2);
	usleep(100000); /* the sleeper has exec'd */
	ck_assert_int_eq(access(dir, F_OK), 0);
	ck_assert_uint_eq(count_leases(), 1);

	struct seen s = {0};
	ck_assert_int_eq(isotier__sweep(report, &s), 1);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.owner, owner);
	ck_assert_str_eq(s.what + 4, dir);
	ck_assert_int_ne(access(dir, F_OK), 0);
	ck_assert_uint_eq(count_leases(), 0);
	/* The process that named the dir was killed (it is the test's grandchild:
	 * reaped by init, or a zombie here, never still sleeping). */
	char stat[64], line[512] = "";
	snprintf(stat, sizeof stat, "/proc/%d/stat", user);
	FILE *f = fopen(stat, "r");
	if (f) {
		ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
		fclose(f);
		ck_assert_ptr_nonnull(strstr(line, ") Z"));
	}
	ck_assert_int_eq(isotier__sweep(report, &s), 0); /* nothing twice */
}
END_TEST

/* A lease for every temp dir (issue 36): a $TMPDIR with a space and bytes
 * outside the plain set is encoded in the lease (%XX), not skipped, and a
 * dead run's dir there is swept; a state directory that cannot hold a lease
 * means no dir is created at all. */
START_TEST(awkward_paths_are_leased_or_not_created)
{
	char tmp[400];
	snprintf(tmp, sizeof tmp, "%s/tmp dir %%\xc3\xa9", root);
	ck_assert_int_eq(mkdir(tmp, 0755), 0);
	setenv("TMPDIR", tmp, 1);
	pid_t owner = fork();
	if (owner == 0) {
		char *dir = NULL;
		_exit(isotier__mkdtemp(&dir, "isotier-vm", NULL) == 0 ? 0
		                                                      : 1); /* nothing released */
	}
	int st;
	waitpid(owner, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_uint_eq(count_leases(), 1);
	char cmd[600];
	snprintf(cmd, sizeof cmd,
	         "grep -q '^path=.*tmp%%20dir%%20%%25%%C3%%A9/isotier-vm' %s/state/leases/*", root);
	ck_assert_int_eq(system(cmd), 0);
	struct seen s = {0};
	ck_assert_int_eq(isotier__sweep(report, &s), 1);
	ck_assert_ptr_nonnull(strstr(s.what, tmp)); /* decoded */
	snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -q .", tmp);
	ck_assert_int_ne(system(cmd), 0); /* the dir is gone */
	ck_assert_uint_eq(count_leases(), 0);

	/* No usable state directory (a file where it should be): no lease, so
	 * no temp dir either, and an error saying why. */
	char file[400];
	snprintf(file, sizeof file, "%s/not-a-dir", root);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	setenv("ISOTIER_STATE_DIR", file, 1);
	char *dir = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__mkdtemp(&dir, "isotier-vm", &err), ISOTIER_EIO);
	ck_assert_ptr_null(dir);
	ck_assert_ptr_nonnull(strstr(err.message, "lease could not be written"));
	ck_assert_int_ne(system(cmd), 0); /* nothing left in TMPDIR */
}
END_TEST

/* A runc killed while creating its container leaves an empty cgroup named
 * after the container id (isotier-PID-HEX) in each hierarchy: the sweep of
 * the dead run's OCI lease removes them (issue 36), and leaves a live run's. */
START_TEST(a_killed_runtimes_empty_cgroups_are_swept)
{
	if (geteuid() != 0)
		return; /* creating cgroups needs root */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t owner = fork();
	if (owner == 0) {
		char *dir = NULL;
		if (isotier__mkdtemp(&dir, "isotier-bundle", NULL) != 0)
			_exit(1);
		isotier_lease l = {.kind = "oci", .backend = "runc", .cli = "runc", .path = dir};
		if (isotier__lease_take(&l, strrchr(dir, '/') + 1) != 0)
			_exit(1);
		char c;
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1); /* dies once its cgroups exist */
	}
	close(p[0]);
	/* The cgroups runc would have made for the child's container, and one of
	 * a live run (this process's). */
	static const char *const roots[] = {"/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory",
	                                    "/sys/fs/cgroup/unified", "/sys/fs/cgroup"};
	char dead[4][512], live[512] = "";
	size_t made = 0;
	for (size_t i = 0; i < 4; i++) {
		snprintf(dead[made], sizeof dead[made], "%s/isotier-%d-0123456789abcdef", roots[i],
		         (int)owner);
		struct statfs fs;
		if (statfs(roots[i], &fs) != 0 ||
		    (fs.f_type != CGROUP_SUPER_MAGIC && fs.f_type != CGROUP2_SUPER_MAGIC))
			continue; /* a tmpfs holding the hierarchies is none */
		if (mkdir(dead[made], 0755) == 0) {
			if (!live[0]) {
				snprintf(live, sizeof live, "%s/isotier-%d-fedcba9876543210",
				         roots[i], (int)getpid());
				if (mkdir(live, 0755) != 0)
					live[0] = '\0';
			}
			made++;
		}
	}
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	close(p[1]);
	int st;
	waitpid(owner, &st, 0);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!made)
		return; /* no writable cgroup hierarchy here */
	struct seen s = {0};
	ck_assert_int_eq(isotier__sweep(report, &s), 2); /* the bundle's dir and its OCI lease */
	for (size_t i = 0; i < made; i++)
		ck_assert_msg(access(dead[i], F_OK) != 0, "%s left", dead[i]);
	if (live[0]) {
		ck_assert_int_eq(access(live, F_OK), 0); /* a live owner's: untouched */
		ck_assert_int_eq(rmdir(live), 0);
	}
}
END_TEST

START_TEST(a_hostile_lease_is_left_alone)
{
	char dir[4096], file[4200];
	ck_assert(isotier__lease_dir(dir, sizeof dir));
	char *tmp = NULL;
	ck_assert_int_eq(isotier__mkdtemp(&tmp, "isotier-vm", NULL), 0); /* makes the lease dir */
	/* A dead owner, but a path outside any isotier temp dir, and a torn one. */
	snprintf(file, sizeof file, "%s/1-1-dir-evil", dir);
	FILE *f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
	        "owner=999999:1:%llu\nkind=dir\nbackend=\ncli=\nwrap=\nname=\npath=%s\nglobal=\n",
	        isotier__pidns(), root);
	fclose(f);
	snprintf(file, sizeof file, "%s/1-1-dir-torn", dir);
	f = fopen(file, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "owner=999999:1:%llu\nkind=dir\npath=/tmp/isotier-vm.torn", isotier__pidns());
	fclose(f);
	ck_assert_int_eq(isotier__sweep(NULL, NULL), 0);
	ck_assert_int_eq(access(root, F_OK), 0);
	isotier__rmtree(tmp);
	free(tmp);
}
END_TEST

static int hook_calls;
static void hook(void *ctx)
{
	(void)ctx;
	hook_calls++;
}

START_TEST(on_cancel_asks_the_owner_and_waits_for_the_child)
{
	/* The child ends by itself 1.5 s after the cancel (as `podman run` does
	 * once its container is removed): it is waited for, not killed, and
	 * the hook was asked again meanwhile; the call still says cancelled. */
	char mark[300];
	snprintf(mark, sizeof mark, "%s/ended", root);
	char script[600];
	snprintf(script, sizeof script, "trap '' TERM; sleep 1.5; : > %s", mark);
	const char *argv[] = {"sh", "-c", script, NULL};
	isotier_proc_opts o = {.argv = argv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .timeout_s = 30,
	                       .on_cancel = hook};
	/* Cancelled after it started: the descriptor hangs up 0.2 s in, when
	 * the last holder of its write end exits. */
	int q[2];
	ck_assert_int_eq(pipe(q), 0);
	o.cancel_fd = q[0];
	pid_t closer = fork();
	if (closer == 0) {
		usleep(200000);
		_exit(0);
	}
	close(q[1]);
	int st = -1;
	hook_calls = 0;
	ck_assert_int_eq(isotier__proc_run(&o, &st, NULL), ISOTIER_EINTR);
	ck_assert_int_ge(hook_calls, 2);
	ck_assert_int_eq(access(mark, F_OK), 0); /* it ran to its end */
	waitpid(closer, NULL, 0);
	close(q[0]);
}
END_TEST

/* The owner lease says where a process's pid means something: read back by
 * pid and start time, kept by the sweep after its owner died (a stale-run
 * check of any history needs it), and a dead owner of this namespace is
 * gone, a live one is not. */
START_TEST(the_owner_lease_names_the_pid_namespace)
{
	unsigned long long me = isotier__pid_start(getpid()), ns = isotier__pidns();
	ck_assert_uint_gt(ns, 0);
	ck_assert_uint_eq(isotier__lease_owner_pidns(getpid(), me), 0);
	isotier__lease_owner_take();
	ck_assert_uint_eq(isotier__lease_owner_pidns(getpid(), me), ns);
	ck_assert_uint_eq(isotier__lease_owner_pidns(getpid(), me + 1), 0); /* another start */
	ck_assert_int_eq(isotier__owner_gone(getpid(), me, ns), 0);
	isotier__lease_owner_drop();
	ck_assert_uint_eq(isotier__lease_owner_pidns(getpid(), me), 0);

	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t c = fork();
	if (c == 0) {
		isotier__lease_owner_take();
		_exit(write(p[1], "x", 1) == 1 ? 0 : 1);
	}
	char x;
	ck_assert_int_eq(read(p[0], &x, 1), 1);
	close(p[0]);
	close(p[1]);
	int st;
	waitpid(c, &st, 0);
	/* Reaped: its start time is read back from its lease's name. */
	char dir[4096], prefix[64];
	ck_assert(isotier__lease_dir(dir, sizeof dir));
	snprintf(prefix, sizeof prefix, "%d-", (int)c);
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned long long start = 0;
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			start = strtoull(e->d_name + strlen(prefix), NULL, 10);
	if (d)
		closedir(d);
	ck_assert_uint_gt(start, 0);
	ck_assert_uint_eq(isotier__lease_owner_pidns(c, start), ns);
	ck_assert_int_eq(isotier__owner_gone(c, start, ns), 1);
	/* A sweep releases nothing for it and keeps it (a month). */
	ck_assert_int_eq(isotier__sweep(NULL, NULL), 0);
	ck_assert_uint_eq(isotier__lease_owner_pidns(c, start), ns);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("lease");
	TCase *tc = tcase_create("lease");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pid_alive_needs_the_same_start_time);
	tcase_add_test(tc, mkdtemp_leases_and_rmtree_drops);
	tcase_add_test(tc, a_dead_runs_dir_and_its_process_are_swept);
	tcase_add_test(tc, a_hostile_lease_is_left_alone);
	tcase_add_test(tc, a_killed_runtimes_empty_cgroups_are_swept);
	tcase_add_test(tc, awkward_paths_are_leased_or_not_created);
	tcase_add_test(tc, on_cancel_asks_the_owner_and_waits_for_the_child);
	tcase_add_test(tc, the_owner_lease_names_the_pid_namespace);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
