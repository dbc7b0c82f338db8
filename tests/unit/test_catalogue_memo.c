/* SPDX-License-Identifier: Apache-2.0 */
/* test_catalogue_memo.c - reading HEAD's commit without libgit2 (catalogue_memo.h):
 * loose refs, packed-refs, a detached HEAD, and hostile repositories (a ref that
 * leaves the git directory, short or long ids, a FIFO, oversized files) that give
 * no answer rather than a wrong one; the memo's key follows the tree. Real files. */
#include <check.h>
#include "check_run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reference/core/proc.h"
#include "../../verify/sources/catalogue_memo.h"

static char root[256], git[300];
static const char id1[] = "0123456789abcdef0123456789abcdef01234567";
static const char id2[] = "fedcba9876543210fedcba9876543210fedcba98";

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", git, rel);
	ck_assert_int_eq(isotier__write_file(path, text, strlen(text), 0644, NULL), 0);
}

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/isotier-test-memo.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(git, sizeof git, "%s/.git", root);
	char path[512];
	snprintf(path, sizeof path, "%s/refs/heads", git);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "mkdir -p %s %s/cat", path, root);
	ck_assert_int_eq(system(cmd), 0);
	setenv("ISOTIER_STATE_DIR", root, 1);
}

static void teardown(void)
{
	isotier__rmtree(root);
}

START_TEST(head_from_each_place)
{
	char out[41], line[64];
	put("HEAD", "ref: refs/heads/main\n");
	snprintf(line, sizeof line, "%s\n", id1);
	put("refs/heads/main", line);
	ck_assert_int_eq(isotier_git_head(out, git), 0);
	ck_assert_str_eq(out, id1);
	/* packed: the loose ref gone, the line for this ref (not another) counts. */
	char packed[512], path[512];
	snprintf(packed, sizeof packed,
	         "# pack-refs with: peeled fully-peeled sorted \n%s refs/heads/mai\n%s "
	         "refs/heads/main\n^%s\n",
	         id1, id2, id1);
	put("packed-refs", packed);
	snprintf(path, sizeof path, "%s/refs/heads/main", git);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(isotier_git_head(out, git), 0);
	ck_assert_str_eq(out, id2);
	snprintf(line, sizeof line, "%s\n", id1);
	put("HEAD", line); /* detached */
	ck_assert_int_eq(isotier_git_head(out, git), 0);
	ck_assert_str_eq(out, id1);
}
END_TEST

START_TEST(hostile_repositories_give_no_answer)
{
	char out[41], line[128];
	snprintf(line, sizeof line, "%s\n", id1);
	put("refs/heads/main", line);
	static const char *const heads[] = {
	    "ref: refs/heads/../../../etc/passwd\n",
	    "ref: /etc/passwd\n",
	    "ref: refs/heads/main",
	    "ref: refs/heads//main\n",
	    "ref: refs/heads/m\001in\n",
	    "0123456789abcdef0123456789abcdef0123456\n",
	    "0123456789ABCDEF0123456789abcdef01234567\n",
	    "",
	};
	for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
		put("HEAD", heads[i]);
		ck_assert_msg(isotier_git_head(out, git) < 0, "HEAD %zu taken", i);
	}
	/* A ref file holding a short id, or more than an id. */
	put("HEAD", "ref: refs/heads/main\n");
	put("refs/heads/main", "0123456789abcdef\n");
	ck_assert_int_lt(isotier_git_head(out, git), 0);
	snprintf(line, sizeof line, "%s\n%s\n", id1, id2);
	put("refs/heads/main", line);
	ck_assert_int_lt(isotier_git_head(out, git), 0);
	/* A FIFO as HEAD is never waited on. */
	char path[512];
	snprintf(path, sizeof path, "%s/HEAD", git);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_lt(isotier_git_head(out, git), 0);
}
END_TEST

START_TEST(key_follows_the_tree)
{
	char line[64], cat[300], file[400], k1[80], k2[80], out[64];
	put("HEAD", "ref: refs/heads/main\n");
	snprintf(line, sizeof line, "%s\n", id1);
	put("refs/heads/main", line);
	snprintf(cat, sizeof cat, "%s/cat", root);
	snprintf(file, sizeof file, "%s/a.json", cat);
	ck_assert_int_eq(isotier__write_file(file, "{}", 2, 0644, NULL), 0);
	/* Just written: inside the racy window, no key. */
	ck_assert_int_lt(isotier_catalogue_memo_key(k1, sizeof k1, cat), 0);
	sleep(3);
	ck_assert_int_eq(isotier_catalogue_memo_key(k1, sizeof k1, cat), 0);
	ck_assert_int_eq(isotier_catalogue_memo_key(k2, sizeof k2, cat), 0);
	ck_assert_str_eq(k1, k2);
	isotier_catalogue_memo_put(k1, id1);
	ck_assert_int_eq(isotier_catalogue_memo_get(k1, out, sizeof out), 0);
	ck_assert_str_eq(out, id1);
	/* A new HEAD is a new key. */
	snprintf(line, sizeof line, "%s\n", id2);
	put("refs/heads/main", line);
	ck_assert_int_eq(isotier_catalogue_memo_key(k2, sizeof k2, cat), 0);
	ck_assert_str_ne(k1, k2);
	/* Outside any repository: ISOTIER_ENOTFOUND (the answer is "" without libgit2). */
	ck_assert_int_eq(isotier_catalogue_memo_key(k2, sizeof k2, "/proc/self"),
	                 ISOTIER_ENOTFOUND);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("catalogue_memo");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, head_from_each_place);
	tcase_add_test(tc, hostile_repositories_give_no_answer);
	tcase_add_test(tc, key_follows_the_tree);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(suite());
}
