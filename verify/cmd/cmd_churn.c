/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_churn.c - `isotier churn`: tier churn of the catalogue's git history.
 *
 *   isotier churn --since REF [--until REF] [--repo PATH] [--json] [--junit FILE]
 *       Diff catalogue/providers/<id>.json between two revisions (keyed by
 *       provider id); every tier or mechanism change needs a CHURN.md entry
 *       at --until. Exit 0, 1 listing every unlogged change, 65 when a ref
 *       is missing or a historical file unparsable, 64 on usage errors.
 *   isotier churn log [--since REF] [--until REF] [--repo PATH] [--json]
 *       First-parent timeline of every provider change, per provider.
 *   isotier churn release-check [--tag TAG | --unreleased] [--repo PATH]
 *                               [--json] [--junit FILE]
 *       The release gate (runbook/release-gate.md): churn since the previous
 *       release tag is logged in CHURN.md, and CHANGELOG.md's section for the
 *       release lists every such entry under "### Churn".
 *
 * --json (check and release-check) prints one object:
 *   {"version": "0.2.0" (release-check only), "since": REF|null, "since_commit": OID,
 *    "until": REF, "until_commit": OID|null (--worktree: "until" is
 *    "the working tree (PATH)"), "churn_md_found": BOOL, "churn_md_entries": N,
 *    "changes": [{"id", "kind": "added"|"removed"|"tier"|"mechanism"|"tier+mechanism",
 *                 "old": {"tier", "mechanism", "path"}|null, "new": {...}|null,
 *                 "logged": BOOL, "churn_md_line": N (changes only)}...],
 *    "unlogged": N, "checks": [{"name", "failure": TEXT|null}...] (release-check),
 *    "ok": BOOL}
 * `churn log --json`: {"events": [{"id", "kind", "old", "new", "commit": OID,
 *                                  "date": "YYYY-MM-DDTHH:MM:SSZ"}...], oldest first,
 *                       "skipped": [{"commit": OID, "date", "reason"}...]}: revisions
 *   whose catalogue could not be read (also warned on stderr); the timeline
 *   continues across them and the exit is 0 unless no revision was readable.
 */
#include "cli.h"
#include "cli_options.h"
#include "../churn/churn_log_print.h"
#include "../churn/churn_report.h"

#include <string.h>

static const struct cli_option options[] = {
    CLI_TEXT_OPTION("since", 's', "REF", "older revision: tag, branch or commit id"),
    CLI_TEXT_OPTION("until", 'u', "REF", "newer revision (default HEAD); CHURN.md is read from it"),
    CLI_FLAG_OPTION("worktree", 'W',
                    "the working tree's catalogue and CHURN.md instead of --until\n"
                    "(a pre-commit check; --since defaults to HEAD)"),
    CLI_TEXT_OPTION("repo", 'r', "PATH",
                    "repository (default: discovered from the working directory)"),
    CLI_FLAG_OPTION("json", 'J', "machine-readable report on stdout"),
    CLI_TEXT_OPTION("junit", 'j', "FILE",
                    "JUnit XML, one testcase per change (and per release check)"),
    CLI_TEXT_OPTION("tag", 't', "TAG",
                    "release-check: the release tag vMAJOR.MINOR.PATCH (default:\n"
                    "the one v* tag at HEAD); the previous release is the highest\n"
                    "lower v* tag"),
    CLI_FLAG_OPTION("unreleased", 'U',
                    "release-check: HEAD against the newest release tag, with\n"
                    "CHANGELOG.md's [Unreleased] section"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "churn",
    .synopsis =
        "usage: isotier churn --since REF [--until REF | --worktree] [--repo PATH] [--json]\n"
        "                     [--junit FILE]\n"
        "       isotier churn log [--since REF] [--until REF] [--repo PATH] [--json]\n"
        "       isotier churn release-check [--tag TAG | --unreleased] [--repo PATH]\n"
        "                                   [--json] [--junit FILE]",
    .about = "Reads catalogue/providers/*.json from git history (libgit2, no checkout).",
    .options = options,
    .epilogue = "Exit: 0 ok, 1 unlogged churn or changelog gap, 64 usage, 65 bad ref or data\n"
                "(`churn log` warns about an unreadable revision and goes on; 65 only when\n"
                "none is readable).",
};

static void usage(FILE *f)
{
	cli_usage(&spec, f);
}

struct opts {
	const char *since, *until, *repo, *junit, *tag;
	bool json, unreleased, worktree;
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	struct opts *o = ctx;
	(void)number;
	switch (key) {
	case 's': o->since = value; break;
	case 'u': o->until = value; break;
	case 'r': o->repo = value; break;
	case 'j': o->junit = value; break;
	case 't': o->tag = value; break;
	case 'J': o->json = true; break;
	case 'U': o->unreleased = true; break;
	case 'W': o->worktree = true; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

static int parse_opts(struct opts *o, int argc, char **argv, bool release)
{
	memset(o, 0, sizeof *o);
	o->until = "HEAD";
	int rc = cli_parse(&spec, argc, argv, on_option, o, NULL);
	if (rc)
		return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
	if (!release && (o->tag || o->unreleased)) {
		cli_error("churn: --tag and --unreleased belong to `churn release-check`");
		return EXIT_USAGE;
	}
	if (release && (o->since || strcmp(o->until, "HEAD"))) {
		cli_error("churn release-check: the range is the previous release tag .. --tag");
		return EXIT_USAGE;
	}
	if (o->worktree && (release || strcmp(o->until, "HEAD"))) {
		cli_error("churn: --worktree reads the working tree in place of --until, for the "
		          "check (not log or release-check)");
		return EXIT_USAGE;
	}
	if (o->tag && o->unreleased) {
		cli_error("churn release-check: --tag and --unreleased exclude each other");
		return EXIT_USAGE;
	}
	return -1; /* go on */
}

/* CHURN.md at commit into r->entries. */
static int load_entries(churn_entries *out, bool *found, git_repository *repo, git_commit *commit,
                        const char *label, isotier_error *err)
{
	cleanup_free char *text = NULL;
	size_t len = 0;
	if (churn_read_blob(&text, &len, found, repo, commit, "CHURN.md", CHURN_MD_MAX, err) < 0)
		return isotier__error_prefix(err, "revision %s", label);
	memset(out, 0, sizeof *out);
	if (!*found)
		return 0;
	char name[512];
	snprintf(name, sizeof name, "%s:CHURN.md", label);
	return churn_md_parse(out, text, len, name, err);
}

/* The working tree against since: the catalogue and CHURN.md as they are
 * on disk, before they are committed. */
static int run_worktree(churn_report *r, git_repository *repo, const char *since,
                        isotier_error *err)
{
	const char *wd = git_repository_workdir(repo);
	if (!wd)
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "churn --worktree: a bare repository has no working tree");
	cleanup_git_commit git_commit *s = NULL;
	if (churn_resolve(&s, repo, since, err) < 0)
		return err->code;
	snprintf(r->since_spec, sizeof r->since_spec, "%s", since);
	git_oid_tostr(r->since_id, sizeof r->since_id, git_commit_id(s));
	/* No commit: until_id stays "" (text shows no hash, JSON null), the
	 * path goes in full into the description. */
	size_t wl = strlen(wd);
	snprintf(r->until_spec, sizeof r->until_spec, "the working tree (%.*s)",
	         (int)(wl > 1 && wd[wl - 1] == '/' ? wl - 1 : wl), wd);
	r->until_id[0] = '\0';
	snprintf(r->churn_md_from, sizeof r->churn_md_from, "the working tree (%sCHURN.md)", wd);
	churn_snapshot a = {0}, b = {0};
	char la[300];
	snprintf(la, sizeof la, "%s (%.12s)", r->since_spec, r->since_id);
	int rc = churn_snapshot_load(&a, repo, s, la, err);
	if (rc == 0)
		rc = churn_snapshot_load_worktree(&b, wd, err);
	if (rc == 0)
		rc = churn_diff(&r->changes, &a, &b, err);
	churn_snapshot_clear(&a);
	churn_snapshot_clear(&b);
	cleanup_free char *text = NULL;
	size_t len = 0;
	if (rc == 0)
		rc = churn_read_worktree_file(&text, &len, &r->entries_found, wd, "CHURN.md",
		                              CHURN_MD_MAX, err);
	memset(&r->entries, 0, sizeof r->entries);
	if (rc == 0 && r->entries_found)
		rc = churn_md_parse(&r->entries, text, len, "working tree:CHURN.md", err);
	if (rc == 0)
		churn_report_match(r);
	return rc;
}

/* since NULL: compare against an empty catalogue (the first release). */
static int run_check(churn_report *r, git_repository *repo, const char *since, const char *until,
                     isotier_error *err)
{
	cleanup_git_commit git_commit *s = NULL;
	cleanup_git_commit git_commit *u = NULL;
	if (churn_resolve(&u, repo, until, err) < 0 ||
	    (since && churn_resolve(&s, repo, since, err) < 0))
		return err->code;
	snprintf(r->until_spec, sizeof r->until_spec, "%s", until);
	git_oid_tostr(r->until_id, sizeof r->until_id, git_commit_id(u));
	snprintf(r->since_spec, sizeof r->since_spec, "%s", since ? since : "");
	if (s)
		git_oid_tostr(r->since_id, sizeof r->since_id, git_commit_id(s));
	churn_snapshot a = {0}, b = {0};
	char la[300], lb[300];
	snprintf(la, sizeof la, "%s (%.12s)", r->since_spec, r->since_id);
	snprintf(lb, sizeof lb, "%s (%.12s)", r->until_spec, r->until_id);
	int rc = s ? churn_snapshot_load(&a, repo, s, la, err) : 0;
	if (rc == 0)
		rc = churn_snapshot_load(&b, repo, u, lb, err);
	if (rc == 0)
		rc = churn_diff(&r->changes, &a, &b, err);
	churn_snapshot_clear(&a);
	churn_snapshot_clear(&b);
	if (rc == 0 && s && !git_oid_equal(git_commit_id(s), git_commit_id(u)) &&
	    git_graph_descendant_of(repo, git_commit_id(u), git_commit_id(s)) != 1)
		cli_error("warning: %s is not an ancestor of %s: comparing the two trees anyway",
		          r->since_spec, r->until_spec);
	snprintf(r->churn_md_from, sizeof r->churn_md_from, "%s", lb);
	if (rc == 0)
		rc = load_entries(&r->entries, &r->entries_found, repo, u, lb, err);
	if (rc == 0)
		churn_report_match(r);
	return rc;
}

static int finish(churn_report *r, const struct opts *o)
{
	if (o->junit) {
		int rc = cli_write_output("--junit", o->junit, NULL, churn_report_junit, r);
		if (rc != EXIT_OK)
			return rc;
	}
	if (o->json ? churn_report_json(stdout, r) < 0 : (churn_report_text(stdout, r), 0)) {
		cli_error("churn: out of memory");
		return EXIT_SOFTWARE;
	}
	return r->unlogged || r->n_failed ? EXIT_FINDING : EXIT_OK;
}

static int cmd_check(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(&o, argc, argv, false);
	if (rc >= 0)
		return rc;
	if (!o.since && o.worktree)
		o.since = "HEAD";
	if (!o.since) {
		cli_error("churn: --since REF is required (a tag, branch or commit id)");
		return EXIT_USAGE;
	}
	isotier_error err = {0};
	cleanup_git_repo git_repository *repo = NULL;
	churn_report r = {0};
	if (churn_repo_open(&repo, o.repo, &err) < 0 ||
	    (o.worktree ? run_worktree(&r, repo, o.since, &err)
	                : run_check(&r, repo, o.since, o.until, &err)) < 0) {
		churn_report_clear(&r);
		return cli_fail(&err);
	}
	rc = finish(&r, &o);
	churn_report_clear(&r);
	return rc;
}

static int log_change(void *ctx, const churn_change *c, isotier_error *err)
{
	return churn_log_out_change(ctx, c, err);
}

/* History cannot be rewritten: an unreadable revision is a warning here (the
 * check and the release gate stay strict about their two). */
static int log_skip(void *ctx, const churn_skip *s, isotier_error *err)
{
	cli_error("warning: skipped revision %.12s: %s", s->commit, s->reason);
	return churn_log_out_skip(ctx, s, err);
}

static int cmd_log(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(&o, argc, argv, false);
	if (rc >= 0)
		return rc;
	if (o.junit) {
		cli_error("churn log: --junit belongs to the check, not the timeline");
		return EXIT_USAGE;
	}
	isotier_error err = {0};
	cleanup_git_repo git_repository *repo = NULL;
	cleanup_git_commit git_commit *head = NULL;
	cleanup_git_commit git_commit *since = NULL;
	if (churn_repo_open(&repo, o.repo, &err) < 0 ||
	    churn_resolve(&head, repo, o.until, &err) < 0 ||
	    (o.since && churn_resolve(&since, repo, o.since, &err) < 0))
		return cli_fail(&err);
	churn_log_out *out = NULL;
	if (churn_log_out_open(&out, stdout, o.json, &err) < 0)
		return cli_fail(&err);
	churn_log_sink sink = {.change = log_change, .skip = log_skip, .ctx = out};
	rc = churn_log(&sink, repo, head, since, &err) < 0 || churn_log_out_finish(out, &err) < 0
	         ? cli_fail(&err)
	         : EXIT_OK;
	churn_log_out_free(out);
	return rc;
}

/* ---- release-check ------------------------------------------------------ */

/* The highest v* release tag below `below` (NULL: the highest of all). */
static int previous_tag(char *out, size_t len, git_repository *repo, const unsigned long *below,
                        isotier_error *err)
{
	cleanup_git_strarray git_strarray tags = {0};
	out[0] = '\0';
	if (git_tag_list_match(&tags, "v*", repo) < 0)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "list tags: %s",
		                          git_error_last() ? git_error_last()->message
		                                           : "libgit2 error");
	unsigned long best[3] = {0, 0, 0};
	for (size_t i = 0; i < tags.count; i++) {
		unsigned long v[3];
		if (!churn_semver_parse(tags.strings[i], v) ||
		    (below && churn_semver_cmp(v, below) >= 0))
			continue;
		if (!out[0] || churn_semver_cmp(v, best) > 0) {
			memcpy(best, v, sizeof best);
			snprintf(out, len, "%s", tags.strings[i]);
		}
	}
	return 0;
}

/* The single v* tag whose commit is HEAD's. */
static int tag_at_head(char *out, size_t len, git_repository *repo, isotier_error *err)
{
	cleanup_git_strarray git_strarray tags = {0};
	cleanup_git_commit git_commit *head = NULL;
	if (churn_resolve(&head, repo, "HEAD", err) < 0)
		return err->code;
	if (git_tag_list_match(&tags, "v*", repo) < 0)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "list tags: %s",
		                          git_error_last() ? git_error_last()->message
		                                           : "libgit2 error");
	size_t found = 0;
	for (size_t i = 0; i < tags.count; i++) {
		unsigned long v[3];
		cleanup_git_commit git_commit *c = NULL;
		if (!churn_semver_parse(tags.strings[i], v) ||
		    churn_resolve(&c, repo, tags.strings[i], NULL) < 0 ||
		    !git_oid_equal(git_commit_id(c), git_commit_id(head)))
			continue;
		if (found++ == 0)
			snprintf(out, len, "%s", tags.strings[i]);
	}
	if (found != 1)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "churn release-check: %s v* release tag at HEAD; pass "
		                          "--tag TAG or --unreleased",
		                          found ? "more than one" : "no");
	return 0;
}

static int changelog_checks(churn_report *r, git_repository *repo, const churn_entries *before,
                            isotier_error *err)
{
	cleanup_git_commit git_commit *u = NULL;
	cleanup_free char *text = NULL;
	size_t len = 0;
	bool found;
	char label[300], section[96];
	snprintf(label, sizeof label, "%s:CHANGELOG.md", r->until_spec);
	snprintf(section, sizeof section, "CHANGELOG.md has a section [%s]", r->version);
	if (churn_resolve(&u, repo, r->until_spec, err) < 0 ||
	    churn_read_blob(&text, &len, &found, repo, u, "CHANGELOG.md", CHURN_MD_MAX, err) < 0)
		return err->code;
	/* The heading the gate looks for, spelled out in every failure. */
	char expected[160], fix[300];
	if (!strcmp(r->version, "Unreleased"))
		snprintf(expected, sizeof expected, "## [Unreleased]");
	else
		snprintf(expected, sizeof expected, "## [%s] - YYYY-MM-DD", r->version);
	if (!found) {
		snprintf(fix, sizeof fix,
		         "no CHANGELOG.md at this revision: add one with a section '%s' and its "
		         "'### Churn' list",
		         expected);
		return churn_report_add_check(r, section, fix);
	}
	changelog cl;
	if (changelog_parse(&cl, text, len, label, err) < 0)
		return err->code;
	const changelog_section *sec = changelog_find(&cl, r->version);
	snprintf(fix, sizeof fix,
	         "section missing: expected the heading '%s', then '### Churn' listing each "
	         "CHURN.md entry of the release as '- <entry heading>' (or '- None')",
	         expected);
	int rc = churn_report_add_check(r, section, sec ? NULL : fix);
	bool listed_any = false;
	/* The release's churn: entries new since the previous release, and those logging a change.
	 */
	for (size_t i = 0; rc == 0 && sec && i < r->entries.n; i++) {
		const churn_entry *e = &r->entries.items[i];
		bool is_new = true, used = false;
		for (size_t j = 0; j < before->n && is_new; j++)
			if (churn_entry_same_change(e, &before->items[j]) &&
			    !strcmp(e->date, before->items[j].date))
				is_new = false;
		for (size_t j = 0; j < r->changes.n && !used; j++)
			used = r->changes.items[j].entry == e;
		if (!is_new && !used)
			continue;
		bool listed = false;
		for (size_t j = 0; j < sec->churn.n && !listed; j++)
			listed = churn_entry_same_change(e, &sec->churn.items[j]);
		char heading[512], name[700], missing[900];
		churn_heading_format(heading, sizeof heading, e);
		snprintf(name, sizeof name, "[%s] ### Churn lists %s", r->version, heading);
		snprintf(missing, sizeof missing,
		         "not listed: add '- %s' under '### Churn' in '%s'", heading, expected);
		rc = churn_report_add_check(r, name, listed ? NULL : missing);
		listed_any = true;
	}
	/* "- None" says the release changed no claim: not beside real entries. */
	if (rc == 0 && sec && sec->none_line && (sec->churn.n || listed_any)) {
		char name[400], failure[400];
		snprintf(name, sizeof name, "%s line %u: '- None' only when nothing churned", label,
		         sec->none_line);
		snprintf(failure, sizeof failure,
		         "'- None' beside real entries in '%s': remove the '- None' line",
		         expected);
		rc = churn_report_add_check(r, name, failure);
	}
	for (size_t j = 0; rc == 0 && sec && j < sec->churn.n; j++) {
		const churn_entry *b = &sec->churn.items[j];
		bool known = false;
		for (size_t i = 0; i < r->entries.n && !known; i++)
			known = churn_entry_same_change(b, &r->entries.items[i]);
		if (known)
			continue;
		char heading[512], name[700], failure[600];
		churn_heading_format(heading, sizeof heading, b);
		snprintf(name, sizeof name, "%s line %u has a CHURN.md entry", label, b->line);
		snprintf(failure, sizeof failure, "%s is listed but CHURN.md has no such entry",
		         heading);
		rc = churn_report_add_check(r, name, failure);
	}
	changelog_clear(&cl);
	return rc < 0 ? isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory") : 0;
}

static int cmd_release(int argc, char **argv)
{
	struct opts o;
	int rc = parse_opts(&o, argc, argv, true);
	if (rc >= 0)
		return rc;
	isotier_error err = {0};
	cleanup_git_repo git_repository *repo = NULL;
	char tag[256] = "", prev[256] = "";
	unsigned long v[3];
	if (churn_repo_open(&repo, o.repo, &err) < 0)
		return cli_fail(&err);
	if (!o.unreleased && !o.tag && tag_at_head(tag, sizeof tag, repo, &err) < 0)
		return cli_fail(&err);
	if (o.tag)
		snprintf(tag, sizeof tag, "%s", o.tag);
	if (!o.unreleased && !churn_semver_parse(tag, v)) {
		cli_error("churn release-check: tag '%s' is not vMAJOR.MINOR.PATCH", tag);
		return EXIT_USAGE;
	}
	if (previous_tag(prev, sizeof prev, repo, o.unreleased ? NULL : v, &err) < 0)
		return cli_fail(&err);
	churn_report r = {0};
	churn_entries before = {0};
	bool found = false;
	cleanup_git_commit git_commit *pc = NULL;
	rc = run_check(&r, repo, prev[0] ? prev : NULL, o.unreleased ? "HEAD" : tag, &err);
	snprintf(r.version, sizeof r.version, "%s",
	         o.unreleased ? "Unreleased" : tag + (tag[0] == 'v'));
	if (rc == 0 && prev[0]) {
		char label[300];
		snprintf(label, sizeof label, "%s (%.12s)", prev, r.since_id);
		rc = churn_resolve(&pc, repo, prev, &err);
		if (rc == 0)
			rc = load_entries(&before, &found, repo, pc, label, &err);
	}
	if (rc == 0)
		rc = changelog_checks(&r, repo, &before, &err);
	churn_entries_clear(&before);
	rc = rc < 0 ? cli_fail(&err) : finish(&r, &o);
	churn_report_clear(&r);
	return rc;
}

static void libgit2_shutdownp(int *n)
{
	if (*n > 0)
		git_libgit2_shutdown();
}

static int churn_main(int argc, char **argv)
{
	isotier_error err = ISOTIER_ERROR_INIT;
	if (isotier__dl_git_open(&err) < 0)
		return cli_fail(&err);
	__attribute__((cleanup(libgit2_shutdownp))) int git_up = git_libgit2_init();
	if (git_up < 0) {
		cli_error("churn: libgit2 failed to initialise");
		return EXIT_SOFTWARE;
	}
	churn_git_limits();
	if (argc >= 2 && !strcmp(argv[1], "log"))
		return cmd_log(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "release-check"))
		return cmd_release(argc - 1, argv + 1);
	if (argc >= 2 && argv[1][0] != '-') {
		cli_error("churn: unknown subcommand '%s'", argv[1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return cmd_check(argc, argv);
}

const struct cli_command cli_churn = {
    .name = "churn",
    .summary = "tier churn in the catalogue's git history; the release gate",
    .main = churn_main,
};
