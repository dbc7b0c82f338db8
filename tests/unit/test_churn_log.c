/* SPDX-License-Identifier: Apache-2.0 */
/* test_churn_log.c - `churn log` as a stream (issue #24): the first-parent
 * walk over a real repository longer than one walk segment, with a --since
 * on the chain and one on a merged branch; the text grouped by provider
 * through its temporary file; the streamed JSON byte for byte against the
 * whole document printed at once. */
#include <check.h>
#include "check_run.h"
#include <cjson/cJSON.h>
#include <git2/sys/mempack.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../verify/churn/churn_log_print.h"
#include "../../verify/churn/churn_report.h"

#define CHAIN 2100 /* commits: more than two walk segments of 1024 */

static void must(int rc)
{
	const git_error *e = git_error_last();
	ck_assert_msg(rc >= 0, "libgit2: %s", e && e->message ? e->message : "?");
}

/* A commit whose catalogue/providers holds p0..p6, provider n % 7 at tier
 * n % 4 (so every commit after the first changes one). */
static void commit_at(git_oid *out, git_repository *repo, unsigned n, const git_oid *parents,
                      size_t n_parents)
{
	static const char *const tiers[] = {"UNKNOWN", "CONTAINER", "GVISOR", "MICROVM"};
	git_treebuilder *dir, *cat, *root;
	git_oid oid;
	must(git_treebuilder_new(&dir, repo, NULL));
	for (unsigned p = 0; p < 7; p++) {
		char doc[200], name[16];
		unsigned tier = p == n % 7 ? n % 4 : p % 4;
		snprintf(doc, sizeof doc,
		         "{\"id\": \"p%u\", \"tier\": \"%s\", \"mechanism\": \"m%u\"}", p,
		         tiers[tier], tier);
		snprintf(name, sizeof name, "p%u.json", p);
		must(git_blob_create_from_buffer(&oid, repo, doc, strlen(doc)));
		must(git_treebuilder_insert(NULL, dir, name, &oid, GIT_FILEMODE_BLOB));
	}
	must(git_treebuilder_write(&oid, dir));
	must(git_treebuilder_new(&cat, repo, NULL));
	must(git_treebuilder_insert(NULL, cat, "providers", &oid, GIT_FILEMODE_TREE));
	must(git_treebuilder_write(&oid, cat));
	must(git_treebuilder_new(&root, repo, NULL));
	must(git_treebuilder_insert(NULL, root, "catalogue", &oid, GIT_FILEMODE_TREE));
	must(git_treebuilder_write(&oid, root));
	git_tree *tree;
	must(git_tree_lookup(&tree, repo, &oid));
	git_signature *sig;
	must(git_signature_new(&sig, "t", "t@example.org", 1700000000 + n * 60, 0));
	const git_commit *ps[2] = {NULL, NULL};
	for (size_t i = 0; i < n_parents; i++)
		must(git_commit_lookup((git_commit **)&ps[i], repo, &parents[i]));
	must(git_commit_create(out, repo, NULL, sig, sig, NULL, "c", tree, n_parents, ps));
	for (size_t i = 0; i < n_parents; i++)
		git_commit_free((git_commit *)ps[i]);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(dir);
	git_treebuilder_free(cat);
	git_treebuilder_free(root);
}

/* The repository's objects are made in memory and written as one pack (libgit2's
 * mempack, as bulk importers do): a loose file each, 2100 commits were ~20k
 * files and most of the suite's 16 s. The walk then reads the pack from disk. */
static git_odb_backend *objects_in_memory(git_repository *repo)
{
	git_odb *odb;
	git_odb_backend *mempack;
	must(git_repository_odb(&odb, repo));
	must(git_mempack_new(&mempack));
	must(git_odb_add_backend(odb, mempack, 999));
	git_odb_free(odb);
	return mempack;
}

static void objects_to_pack(git_repository *repo, git_odb_backend *mempack)
{
	git_buf pack = {0};
	git_odb *odb;
	git_odb_writepack *w;
	git_indexer_progress progress = {0};
	must(git_mempack_dump(&pack, repo, mempack));
	must(git_repository_odb(&odb, repo));
	must(git_odb_write_pack(&w, odb, NULL, NULL));
	must(w->append(w, pack.ptr, pack.size, &progress));
	must(w->commit(w, &progress));
	w->free(w);
	git_buf_dispose(&pack);
	must(git_mempack_reset(mempack));
	git_odb_free(odb);
}

typedef struct seen {
	size_t n;
	int64_t last_time;
	bool ordered;
	char first_commit[GIT_OID_HEXSZ + 1];
} seen;

static int on_change(void *ctx, const churn_change *c, isotier_error *err)
{
	(void)err;
	seen *s = ctx;
	if (s->n++ == 0)
		memcpy(s->first_commit, c->commit, sizeof s->first_commit);
	s->ordered &= c->time >= s->last_time;
	s->last_time = c->time;
	return 0;
}

START_TEST(walk_across_segments_and_since)
{
	char dir[] = "/tmp/isotier-test-churn-log.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	git_libgit2_init();
	git_repository *repo;
	must(git_repository_init(&repo, dir, true));
	git_odb_backend *mempack = objects_in_memory(repo);
	static git_oid chain[CHAIN];
	git_oid side, merge_parents[2];
	for (unsigned n = 0; n < CHAIN; n++) {
		if (n == 1500) { /* a merge: side branches off at 1000 */
			commit_at(&side, repo, 100000, &chain[1000], 1);
			merge_parents[0] = chain[1499];
			merge_parents[1] = side;
			commit_at(&chain[n], repo, n, merge_parents, 2);
			continue;
		}
		commit_at(&chain[n], repo, n, n ? &chain[n - 1] : NULL, n ? 1 : 0);
	}
	objects_to_pack(repo, mempack);
	git_commit *head, *since;
	must(git_commit_lookup(&head, repo, &chain[CHAIN - 1]));
	isotier_error err = {0};
	seen s = {.ordered = true};
	churn_log_sink sink = {.change = on_change, .ctx = &s};
	ck_assert_int_eq(churn_log(&sink, repo, head, NULL, &err), 0);
	/* 7 additions at the root, then each provider whose tier differs from
	 * the previous commit of the chain. */
	size_t want = 7;
	for (unsigned n = 1; n < CHAIN; n++)
		for (unsigned p = 0; p < 7; p++)
			want += (p == n % 7 ? n % 4 : p % 4) !=
			        (p == (n - 1) % 7 ? (n - 1) % 4 : p % 4);
	ck_assert_uint_eq(s.n, want);
	ck_assert(s.ordered);
	char hex[GIT_OID_HEXSZ + 1];
	ck_assert_str_eq(s.first_commit, git_oid_tostr(hex, sizeof hex, &chain[0]));
	/* --since on the chain, in another segment: what comes after it only. */
	must(git_commit_lookup(&since, repo, &chain[CHAIN - 3]));
	seen tail = {.ordered = true};
	sink.ctx = &tail;
	ck_assert_int_eq(churn_log(&sink, repo, head, since, &err), 0);
	ck_assert_str_eq(tail.first_commit, git_oid_tostr(hex, sizeof hex, &chain[CHAIN - 2]));
	git_commit_free(since);
	/* --since on the merged branch: the chain up to its fork point (1000) is
	 * its ancestry; the walk starts at 1001, found by bisection. */
	must(git_commit_lookup(&since, repo, &side));
	seen merged = {.ordered = true};
	sink.ctx = &merged;
	ck_assert_int_eq(churn_log(&sink, repo, head, since, &err), 0);
	ck_assert_str_eq(merged.first_commit, git_oid_tostr(hex, sizeof hex, &chain[1001]));
	ck_assert(merged.ordered && merged.n < s.n);
	git_commit_free(since);
	/* head itself as since: nothing. */
	seen none = {.ordered = true};
	sink.ctx = &none;
	ck_assert_int_eq(churn_log(&sink, repo, head, head, &err), 0);
	ck_assert_uint_eq(none.n, 0);
	git_commit_free(head);
	git_repository_free(repo);
	git_libgit2_shutdown();
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Change i: provider ids[i % n_ids], commit "seq i" in hex. */
static void change_of(churn_change *c, size_t i, const char *const *ids, size_t n_ids)
{
	memset(c, 0, sizeof *c);
	c->kind = CHURN_CHANGED;
	c->id = (char *)ids[i % n_ids];
	c->old_path = c->new_path = (char *)"catalogue/providers/x\xff.json";
	c->from = (churn_claimref){ISOTIER_CONTAINER, "runc", "", true};
	c->to = (churn_claimref){ISOTIER_MICROVM, "kata", "", true};
	c->tier_changed = c->mechanism_changed = true;
	snprintf(c->commit, sizeof c->commit, "%012x%028d", (unsigned)(i & 0xfffffff), 0);
	c->time = 1700000000 + (int64_t)i;
}

START_TEST(text_grouped_through_the_file)
{
	static const char *const ids[] = {"zeta", "alpha", "m-1", "beta", "a0"};
	enum { N = 5000 }; /* ~400 KB of lines: the write buffer is flushed often */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	churn_log_out *o;
	isotier_error err = {0};
	ck_assert_int_eq(churn_log_out_open(&o, f, false, &err), 0);
	for (size_t i = 0; i < N; i++) {
		churn_change c;
		change_of(&c, i, ids, 5);
		ck_assert_int_eq(churn_log_out_change(o, &c, &err), 0);
	}
	ck_assert_int_eq(churn_log_out_finish(o, &err), 0);
	churn_log_out_free(o);
	fclose(f);
	/* Providers sorted, each one's lines in the order given. */
	static const char *const sorted[] = {"a0", "alpha", "beta", "m-1", "zeta"};
	size_t k = 0, lines = 0, last = 0;
	const char *id = NULL;
	bool first = true;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] != ' ') {
			ck_assert_uint_lt(k, 5);
			ck_assert_str_eq(line, sorted[k++]);
			id = line;
			first = true;
			continue;
		}
		ck_assert_ptr_nonnull(id);
		size_t seq = strtoul(line + 2, NULL, 16);
		ck_assert_str_eq(ids[seq % 5], id);
		ck_assert(first || seq > last);
		first = false;
		ck_assert_msg(strstr(line, "tier+mechanism CONTAINER/runc \u2192 MICROVM/kata"),
		              "%s", line);
		last = seq;
		lines++;
	}
	ck_assert_uint_eq(k, 5);
	ck_assert_uint_eq(lines, N);
	free(buf);
	/* Nothing found: the sentence, as before. */
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(churn_log_out_open(&o, f, false, &err), 0);
	ck_assert_int_eq(churn_log_out_finish(o, &err), 0);
	churn_log_out_free(o);
	fclose(f);
	ck_assert_str_eq(buf, "no catalogue changes in this range\n");
	free(buf);
	/* No temporary file to be had: an error, not a timeline cut short. */
	const char *tmpdir = getenv("TMPDIR");
	char *saved = tmpdir ? strdup(tmpdir) : NULL;
	setenv("TMPDIR", "/nonexistent/isotier", 1);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(churn_log_out_open(&o, f, false, &err), 0);
	churn_change c;
	change_of(&c, 0, ids, 5);
	ck_assert_int_eq(churn_log_out_change(o, &c, &err), ISOTIER_EIO);
	ck_assert_msg(strstr(err.message, "temporary file in $TMPDIR"), "%s", err.message);
	churn_log_out_free(o);
	fclose(f);
	ck_assert_uint_eq(len, 0);
	free(buf);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}
END_TEST

/* The streamed document against the one cJSON prints whole (what `churn log
 * --json` printed before), invalid UTF-8 in a path and a reason included. */
static void json_same(size_t n_events, size_t n_skips)
{
	static const char *const ids[] = {"b", "a"};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	churn_log_out *o;
	isotier_error err = {0};
	cJSON *root = cJSON_CreateObject(), *events = cJSON_AddArrayToObject(root, "events");
	cJSON *skips = cJSON_AddArrayToObject(root, "skipped");
	ck_assert_int_eq(churn_log_out_open(&o, f, true, &err), 0);
	for (size_t i = 0; i < n_events || i < n_skips; i++) {
		if (i < n_skips) {
			churn_skip k = {.time = 1700000000, .reason = "bad \xc3 file"};
			snprintf(k.commit, sizeof k.commit, "%040zu", i);
			ck_assert_int_eq(churn_log_out_skip(o, &k, &err), 0);
			cJSON *j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "commit", k.commit);
			cJSON_AddStringToObject(j, "date", "2023-11-14T22:13:20Z");
			cJSON_AddStringToObject(j, "reason", k.reason);
			cJSON_AddItemToArray(skips, j);
		}
		if (i < n_events) {
			churn_change c;
			change_of(&c, i, ids, 2);
			ck_assert_int_eq(churn_log_out_change(o, &c, &err), 0);
			cJSON_AddItemToArray(events, churn_change_json(&c, true));
		}
	}
	ck_assert_int_eq(churn_log_out_finish(o, &err), 0);
	churn_log_out_free(o);
	fclose(f);
	char *whole = isotier__json_print(root, true);
	cJSON_Delete(root);
	ck_assert_ptr_nonnull(whole);
	ck_assert_uint_eq(len, strlen(whole) + 1);
	ck_assert_int_eq(memcmp(buf, whole, len - 1), 0);
	ck_assert_int_eq(buf[len - 1], '\n');
	free(whole);
	free(buf);
}

START_TEST(json_streamed_as_printed_whole)
{
	json_same(0, 0);
	json_same(1, 0);
	json_same(0, 2);
	json_same(300, 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("churn_log");
	TCase *tc = tcase_create("churn_log");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, walk_across_segments_and_since);
	tcase_add_test(tc, text_grouped_through_the_file);
	tcase_add_test(tc, json_streamed_as_printed_whole);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
