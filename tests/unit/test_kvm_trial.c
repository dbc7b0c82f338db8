/* SPDX-License-Identifier: Apache-2.0 */
/* test_kvm_trial.c - the accelerator decision's cache (kvm_trial.h) and the
 * state directory's small caches (paths.h: state_cache.c): the key changes
 * with the host boot, the kernel's content and the VMM; a stale, garbage or
 * foreign entry is a miss; the ioctl trial's child is gone by its bound. Real
 * files in a temporary state directory, the real /dev/kvm when there is one. */
#include <check.h>
#include "check_run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reference/backends/kvm_trial.h"
#include "../../reference/core/paths.h"
#include "../../reference/core/proc.h"

static char root[256], kernel[300];
static const char boot_a[] = "0f0e0d0c-0b0a-4908-8706-050403020100";
static const char boot_b[] = "0f0e0d0c-0b0a-4908-8706-050403020101";
static const char sha_a[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/isotier-test-kvm.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	char state[300];
	snprintf(state, sizeof state, "%s/state", root);
	setenv("ISOTIER_STATE_DIR", state, 1);
	snprintf(kernel, sizeof kernel, "%s/vmlinux", root);
	ck_assert_int_eq(isotier__write_file(kernel, "abc", 3, 0644, NULL), 0);
}

static void teardown(void)
{
	isotier__rmtree(root);
}

static void entry(char *path, size_t len, const char *name)
{
	char state[300];
	ck_assert_int_eq(isotier__state_dir(state, sizeof state), 0);
	snprintf(path, len, "%s/cache/%s", state, name);
}

START_TEST(key_changes_with_each_part)
{
	char a[64], b[64], c[64], d[64];
	ck_assert_int_eq(isotier__kvm_cache_name(a, sizeof a, boot_a, sha_a, "qemu 1 2"), 0);
	ck_assert_int_eq(isotier__kvm_cache_name(b, sizeof b, boot_b, sha_a, "qemu 1 2"), 0);
	char sha_b[65];
	memcpy(sha_b, sha_a, sizeof sha_b);
	sha_b[0] = 'c';
	ck_assert_int_eq(isotier__kvm_cache_name(c, sizeof c, boot_a, sha_b, "qemu 1 2"), 0);
	ck_assert_int_eq(isotier__kvm_cache_name(d, sizeof d, boot_a, sha_a, "qemu 1 3"), 0);
	ck_assert_str_ne(a, b);
	ck_assert_str_ne(a, c);
	ck_assert_str_ne(a, d);
	char again[64];
	ck_assert_int_eq(isotier__kvm_cache_name(again, sizeof again, boot_a, sha_a, "qemu 1 2"),
	                 0);
	ck_assert_str_eq(a, again);
	/* Malformed parts make no key (nothing cached), never a shared one. */
	ck_assert_int_lt(isotier__kvm_cache_name(a, sizeof a, "short", sha_a, "q"), 0);
	ck_assert_int_lt(isotier__kvm_cache_name(a, sizeof a, boot_a, "abc", "q"), 0);
	ck_assert_int_lt(isotier__kvm_cache_name(a, sizeof a, boot_a, sha_a, "q\nkvm"), 0);
	char id[37];
	ck_assert_int_eq(isotier__kvm_boot_id(id), 0);
	ck_assert_uint_eq(strlen(id), 36);
}
END_TEST

START_TEST(kernel_digest_follows_content)
{
	char hex[65], hex2[65];
	ck_assert_int_eq(isotier__file_sha256(kernel, hex, NULL), 0);
	ck_assert_str_eq(hex, sha_a); /* SHA-256("abc") */
	/* The memo answers the second time; a rewrite is another identity. */
	ck_assert_int_eq(isotier__file_sha256(kernel, hex2, NULL), 0);
	ck_assert_str_eq(hex2, sha_a);
	ck_assert_int_eq(isotier__write_file(kernel, "abd", 3, 0644, NULL), 0);
	ck_assert_int_eq(isotier__file_sha256(kernel, hex2, NULL), 0);
	ck_assert_str_ne(hex2, sha_a);
	ck_assert_int_lt(isotier__file_sha256(root, hex2, NULL), 0); /* a directory */
}
END_TEST

/* A garbage memo, or one anyone could have written, is recomputed, never
 * believed (the memo is trusted only as far as its owner). */
START_TEST(garbage_memo_is_recomputed)
{
	char hex[65];
	ck_assert_int_eq(isotier__file_sha256(kernel, hex, NULL), 0);
	char state[300], cmd[700];
	ck_assert_int_eq(isotier__state_dir(state, sizeof state), 0);
	snprintf(
	    cmd, sizeof cmd,
	    "for f in %s/cache/sha256-*; do printf '%%064d\\n' 7 >\"$f\"; chmod 666 \"$f\"; done",
	    state);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(isotier__file_sha256(kernel, hex, NULL), 0);
	ck_assert_str_eq(hex, sha_a);
	snprintf(cmd, sizeof cmd,
	         "for f in %s/cache/sha256-*; do printf 'Z%%063d\\n' 7 >\"$f\"; done", state);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(isotier__file_sha256(kernel, hex, NULL), 0);
	ck_assert_str_eq(hex, sha_a);
}
END_TEST

START_TEST(hostile_entries_are_misses)
{
	char buf[16], path[400];
	ck_assert_int_eq(isotier__state_cache_put("t-ok", "kvm\n"), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-ok", buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "kvm\n");
	/* Too large for the reader's buffer: bounded, a miss. */
	ck_assert_int_eq(isotier__state_cache_put("t-big", "kvm\nkvm\nkvm\nkvm\nkvm\n"), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-big", buf, sizeof buf), ISOTIER_ENOTFOUND);
	/* Another user's entry (root can make one): not ours to believe. */
	if (geteuid() == 0) {
		ck_assert_int_eq(isotier__state_cache_put("t-other", "kvm\n"), 0);
		entry(path, sizeof path, "t-other");
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		ck_assert_int_eq(isotier__state_cache_get("t-other", buf, sizeof buf),
		                 ISOTIER_ENOTFOUND);
	}
	/* Writable by others: anyone could have said "kvm". */
	entry(path, sizeof path, "t-ok");
	ck_assert_int_eq(chmod(path, 0666), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-ok", buf, sizeof buf), ISOTIER_ENOTFOUND);
	/* A FIFO is never waited on, a symbolic link never followed, a NUL refused. */
	entry(path, sizeof path, "t-fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-fifo", buf, sizeof buf), ISOTIER_ENOTFOUND);
	entry(path, sizeof path, "t-link");
	ck_assert_int_eq(symlink(kernel, path), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-link", buf, sizeof buf), ISOTIER_ENOTFOUND);
	entry(path, sizeof path, "t-nul");
	ck_assert_int_eq(isotier__write_file(path, "kvm\0\n", 5, 0644, NULL), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-nul", buf, sizeof buf), ISOTIER_ENOTFOUND);
	/* Names are ours: no path in them. */
	ck_assert_int_lt(isotier__state_cache_put("../x", "kvm\n"), 0);
	ck_assert_int_lt(isotier__state_cache_put(".hidden", "kvm\n"), 0);
	/* A state directory others may write is refused outright. */
	char state[300];
	ck_assert_int_eq(isotier__state_dir(state, sizeof state), 0);
	ck_assert_int_eq(chmod(state, 0777), 0);
	ck_assert_int_lt(isotier__state_dir(state, sizeof state), 0);
	ck_assert_int_eq(isotier__state_cache_get("t-big", buf, sizeof buf), ISOTIER_ENOTFOUND);
	ck_assert_int_eq(chmod(state, 0700), 0);
}
END_TEST

static int boots;
static int boot_result;
static int fake_boot(void *ctx, int timeout_s)
{
	(void)ctx;
	ck_assert_int_eq(timeout_s, ISOTIER_KVM_BOOT_S);
	boots++;
	return boot_result;
}

/* The cache entry decide() uses for this host, kernel and VMM. */
static void decide_entry(char *name, size_t len, const char *vmm)
{
	char id[37], sha[65];
	ck_assert_int_eq(isotier__kvm_boot_id(id), 0);
	ck_assert_int_eq(isotier__file_sha256(kernel, sha, NULL), 0);
	ck_assert_int_eq(isotier__kvm_cache_name(name, len, id, sha, vmm), 0);
}

START_TEST(decision_cached_and_garbage_ignored)
{
	bool kvm = true;
	char name[64], path[400], buf[16];
	decide_entry(name, sizeof name, "vmm-a");
	if (access("/dev/kvm", R_OK | W_OK) != 0) {
		/* No KVM: false at once, nothing tried, nothing cached. */
		ck_assert_int_eq(isotier__kvm_decide(kernel, "vmm-a", fake_boot, NULL, &kvm, NULL),
		                 0);
		ck_assert(!kvm);
		ck_assert_int_eq(boots, 0);
		return;
	}
	/* Cached answers are used as they are... */
	ck_assert_int_eq(isotier__state_cache_put(name, "tcg\n"), 0);
	ck_assert_int_eq(isotier__kvm_decide(kernel, "vmm-a", fake_boot, NULL, &kvm, NULL), 0);
	ck_assert(!kvm);
	ck_assert_int_eq(boots, 0);
	ck_assert_int_eq(isotier__state_cache_put(name, "kvm\n"), 0);
	ck_assert_int_eq(isotier__kvm_decide(kernel, "vmm-a", fake_boot, NULL, &kvm, NULL), 0);
	ck_assert(kvm);
	/* ...garbage is a miss: the trial runs and its answer replaces it. */
	ck_assert_int_eq(isotier__state_cache_put(name, "KVM!\n"), 0);
	boot_result = 1; /* the guest does not come up under KVM */
	int ioctl_ok = isotier__kvm_ioctl_trial(1000, false);
	ck_assert_int_eq(isotier__kvm_decide(kernel, "vmm-a", fake_boot, NULL, &kvm, NULL), 0);
	ck_assert(!kvm);
	ck_assert_int_eq(boots, ioctl_ok);
	ck_assert_int_eq(isotier__state_cache_get(name, buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "tcg\n");
	/* Asked again: the cached answer, no second trial. */
	ck_assert_int_eq(isotier__kvm_decide(kernel, "vmm-a", fake_boot, NULL, &kvm, NULL), 0);
	ck_assert_int_eq(boots, ioctl_ok);
	/* Another VMM is another entry: a cancelled trial caches nothing. */
	decide_entry(name, sizeof name, "vmm-b");
	boot_result = ISOTIER_EINTR;
	int rc = isotier__kvm_decide(kernel, "vmm-b", fake_boot, NULL, &kvm, NULL);
	ck_assert(!kvm);
	ck_assert_int_eq(rc, ioctl_ok ? ISOTIER_EINTR : 0);
	entry(path, sizeof path, name);
	ck_assert_int_eq(access(path, F_OK) == 0, !ioctl_ok);
	if (ioctl_ok) {
		/* A guest that boots under KVM: kvm, cached. */
		boot_result = 0;
		ck_assert_int_eq(isotier__kvm_decide(kernel, "vmm-b", fake_boot, NULL, &kvm, NULL),
		                 0);
		ck_assert(kvm);
		ck_assert_int_eq(isotier__state_cache_get(name, buf, sizeof buf), 0);
		ck_assert_str_eq(buf, "kvm\n");
	}
}
END_TEST

/* A vCPU that never comes back cannot hold the run: the child is killed at
 * the bound and the answer is "no" (the call returning is the assertion). */
START_TEST(ioctl_trial_is_bounded)
{
	ck_assert_int_eq(isotier__kvm_ioctl_trial(200, true), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kvm_trial");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, key_changes_with_each_part);
	tcase_add_test(tc, kernel_digest_follows_content);
	tcase_add_test(tc, garbage_memo_is_recomputed);
	tcase_add_test(tc, hostile_entries_are_misses);
	tcase_add_test(tc, decision_cached_and_garbage_ignored);
	tcase_add_test(tc, ioctl_trial_is_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
