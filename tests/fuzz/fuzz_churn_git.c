/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_churn_git.c - the libgit2 churn reader over hostile history: provider
 * files and CHURN.md as a repository's commits hold them. Input: records of
 * one byte (file: 0-3 provider p<n>.json, else CHURN.md), two bytes of
 * big-endian length, content; the first half of the records is the old
 * commit, the second the new. The repository lives in memory (libgit2's
 * mempack backend). Properties: a snapshot differs from itself in nothing;
 * every change found names a provider on at least one side; old->new and
 * new->old find the same providers. */
#include "fuzz.h"

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

#include "../../verify/churn/churn.h"

static git_repository *repo;
static git_odb_backend *mempack;

static void must(int rc)
{
	if (rc < 0) {
		const git_error *e = git_error_last();
		fprintf(stderr, "libgit2: %s\n", e ? e->message : "?");
		abort();
	}
}

static void setup(void)
{
	git_libgit2_init();
	/* No object cache: the mempack is emptied after every input, and a
	 * cached object must not outlive it. */
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
	git_odb *odb = NULL;
	must(git_odb_new(&odb));
	must(git_mempack_new(&mempack));
	must(git_odb_add_backend(odb, mempack, 1));
	must(git_repository_wrap_odb(&repo, odb));
	git_odb_free(odb);
}

/* A commit whose tree holds the records [from, to) of the input. */
static git_commit *commit_of(const uint8_t *data, size_t size, size_t *off, size_t records)
{
	git_treebuilder *providers = NULL, *cat = NULL, *top = NULL;
	must(git_treebuilder_new(&providers, repo, NULL));
	must(git_treebuilder_new(&cat, repo, NULL));
	must(git_treebuilder_new(&top, repo, NULL));
	for (size_t r = 0; r < records && *off + 3 <= size; r++) {
		unsigned which = data[*off] % 5;
		size_t n = (size_t)data[*off + 1] << 8 | data[*off + 2];
		*off += 3;
		if (n > size - *off)
			n = size - *off;
		git_oid blob;
		must(git_blob_create_from_buffer(&blob, repo, data + *off, n));
		*off += n;
		char name[32];
		snprintf(name, sizeof name, "p%u.json", which);
		must(git_treebuilder_insert(NULL, which < 4 ? providers : top,
		                            which < 4 ? name : "CHURN.md", &blob,
		                            GIT_FILEMODE_BLOB));
	}
	git_oid tp, tc, tt, c;
	must(git_treebuilder_write(&tp, providers));
	must(git_treebuilder_insert(NULL, cat, "providers", &tp, GIT_FILEMODE_TREE));
	must(git_treebuilder_write(&tc, cat));
	must(git_treebuilder_insert(NULL, top, "catalogue", &tc, GIT_FILEMODE_TREE));
	must(git_treebuilder_write(&tt, top));
	git_tree *tree = NULL;
	must(git_tree_lookup(&tree, repo, &tt));
	git_signature *sig = NULL;
	must(git_signature_new(&sig, "fuzz", "fuzz@example.org", 1700000000, 0));
	must(git_commit_create(&c, repo, NULL, sig, sig, NULL, "fuzz", tree, 0, NULL));
	git_commit *commit = NULL;
	must(git_commit_lookup(&commit, repo, &c));
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(providers);
	git_treebuilder_free(cat);
	git_treebuilder_free(top);
	return commit;
}

static size_t ids(const churn_changes *c, char out[][64], size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n && n < max; i++)
		snprintf(out[n++], 64, "%s", c->items[i].id ? c->items[i].id : "");
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!repo)
		setup();
	size_t records = 0;
	for (size_t off = 0; off + 3 <= size; records++)
		off += 3 + ((size_t)data[off + 1] << 8 | data[off + 2]);
	size_t off = 0;
	git_commit *old = commit_of(data, size, &off, (records + 1) / 2);
	git_commit *new_ = commit_of(data, size, &off, records);
	churn_snapshot so = {0}, sn = {0};
	isotier_error err = {0};
	int ro = churn_snapshot_load(&so, repo, old, "old", &err);
	int rn = churn_snapshot_load(&sn, repo, new_, "new", &err);
	FUZZ_ASSERT(ro == 0 || ro == ISOTIER_EDATA || ro == ISOTIER_ENOMEM, "old: rc %d", ro);
	FUZZ_ASSERT(rn == 0 || rn == ISOTIER_EDATA || rn == ISOTIER_ENOMEM, "new: rc %d", rn);
	if (ro == 0 && rn == 0) {
		churn_changes self = {0}, fwd = {0}, back = {0};
		FUZZ_ASSERT(churn_diff(&self, &sn, &sn, &err) == 0, "diff: %s", err.message);
		FUZZ_ASSERT(self.n == 0, "a snapshot differs from itself in %zu changes", self.n);
		FUZZ_ASSERT(churn_diff(&fwd, &so, &sn, &err) == 0, "diff: %s", err.message);
		FUZZ_ASSERT(churn_diff(&back, &sn, &so, &err) == 0, "diff: %s", err.message);
		FUZZ_ASSERT(fwd.n == back.n, "old->new %zu changes, new->old %zu", fwd.n, back.n);
		static char a[64][64], b[64][64];
		size_t na = ids(&fwd, a, 64), nb = ids(&back, b, 64);
		for (size_t i = 0; i < na && i < nb; i++)
			FUZZ_ASSERT(!strcmp(a[i], b[i]), "change %zu: %s vs %s", i, a[i], b[i]);
		churn_changes_clear(&self);
		churn_changes_clear(&fwd);
		churn_changes_clear(&back);
	}
	/* CHURN.md as the release gate reads it from the new revision. */
	char *text = NULL;
	size_t len = 0;
	bool found = false;
	if (churn_read_blob(&text, &len, &found, repo, new_, "CHURN.md", 1 << 20, &err) == 0 &&
	    found) {
		churn_entries e = {0};
		if (churn_md_parse(&e, text, len, "CHURN.md", &err) == 0 && ro == 0 && rn == 0) {
			churn_changes fwd = {0};
			if (churn_diff(&fwd, &so, &sn, &err) == 0)
				for (size_t i = 0; i < fwd.n; i++)
					(void)churn_entries_match(&e, fwd.items[i].id,
					                          &fwd.items[i].from,
					                          &fwd.items[i].to);
			churn_changes_clear(&fwd);
		}
		churn_entries_clear(&e);
	}
	free(text);
	churn_snapshot_clear(&so);
	churn_snapshot_clear(&sn);
	git_commit_free(old);
	git_commit_free(new_);
	must(git_mempack_reset(mempack));
	return 0;
}
