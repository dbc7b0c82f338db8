/* SPDX-License-Identifier: Apache-2.0 */
/* test_churn.c - the CHURN.md and CHANGELOG.md parsers (hostile input, line
 * numbers in errors), change matching, semver ordering, and the catalogue
 * diff per offering (renames through renamed_from, status changes). */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../verify/churn/churn.h"

#define ENTRY(h, src, note) "### " h "\n- Source: " src "\n- Note: " note "\n"

static int parse(churn_entries *e, const char *text, isotier_error *err)
{
	return churn_md_parse(e, text, strlen(text), "CHURN.md", err);
}

/* Parsing must fail with EDATA and a message starting "CHURN.md:<line>:". */
static void expect_error(const char *text, unsigned line, const char *needle)
{
	churn_entries e;
	isotier_error err = {0};
	char prefix[32];
	ck_assert_int_eq(parse(&e, text, &err), ISOTIER_EDATA);
	snprintf(prefix, sizeof prefix, "CHURN.md:%u: ", line);
	ck_assert_msg(!strncmp(err.message, prefix, strlen(prefix)), "want '%s', got '%s'", prefix,
	              err.message);
	ck_assert_msg(strstr(err.message, needle), "'%s' not in '%s'", needle, err.message);
	ck_assert_ptr_null(e.items);
}

START_TEST(the_real_churn_md_parses)
{
	char *text = NULL;
	size_t len = 0;
	isotier_error err = {0};
	ck_assert_int_eq(
	    isotier__read_file(&text, &len, ISOTIER_SOURCE_DIR "/CHURN.md", CHURN_MD_MAX, &err), 0);
	churn_entries e;
	ck_assert_msg(churn_md_parse(&e, text, len, "CHURN.md", &err) == 0, "%s", err.message);
	churn_entries_clear(&e);
	free(text);
}
END_TEST

START_TEST(entries_parse)
{
	const char *text =
	    "# Churn log\n\nProse, and an example in a fence:\n\n```\n"
	    "### not an entry\n```\n\n## Entries\n\n" ENTRY(
	        "2026-11-30 \u2014 modal: GVISOR/gvisor \u2192 MICROVM/firecracker",
	        "<https://modal.com/blog/x>",
	        "Moved to microVMs.") "- Source: https://example.org/second\n\n"
	                              "### 2024-02-29 -- e2b: CONTAINER/runc -> GVISOR/gvisor\r\n"
	                              "- Note: CRLF and ASCII spellings.\r\n- Source: "
	                              "http://e2b.dev/a\r\n";
	churn_entries e;
	isotier_error err = {0};
	ck_assert_msg(parse(&e, text, &err) == 0, "%s", err.message);
	ck_assert_uint_eq(e.n, 2);
	ck_assert_str_eq(e.items[0].id, "modal");
	ck_assert_str_eq(e.items[0].date, "2026-11-30");
	ck_assert_uint_eq(e.items[0].line, 11);
	ck_assert_int_eq(e.items[0].from.tier, ISOTIER_GVISOR);
	ck_assert_str_eq(e.items[0].from.mechanism, "gvisor");
	ck_assert_int_eq(e.items[0].to.tier, ISOTIER_MICROVM);
	ck_assert_str_eq(e.items[0].to.mechanism, "firecracker");
	ck_assert_uint_eq(e.items[0].n_sources, 2);
	ck_assert_str_eq(e.items[0].sources[0], "https://modal.com/blog/x");
	ck_assert_str_eq(e.items[0].note, "Moved to microVMs.");
	ck_assert_str_eq(e.items[1].id, "e2b");
	ck_assert_str_eq(e.items[1].note, "CRLF and ASCII spellings.");
	char buf[256];
	churn_heading_format(buf, sizeof buf, &e.items[1]);
	ck_assert_str_eq(buf, "2024-02-29 \u2014 e2b: CONTAINER/runc \u2192 GVISOR/gvisor");
	churn_entries_clear(&e);
}
END_TEST

START_TEST(empty_and_prose_only)
{
	churn_entries e;
	isotier_error err = {0};
	ck_assert_int_eq(parse(&e, "", &err), 0);
	ck_assert_uint_eq(e.n, 0);
	ck_assert_int_eq(parse(&e, "# Churn\n\n## Entries\n\nNone yet.\n#### not an entry\n", &err),
	                 0);
	ck_assert_uint_eq(e.n, 0);
}
END_TEST

START_TEST(malformed_headings)
{
	expect_error("x\n### 2026-13-01 \u2014 a: GVISOR/gvisor \u2192 MICROVM/kata\n", 2, "date");
	expect_error("### 2026-02-30 \u2014 a: GVISOR/gvisor \u2192 MICROVM/kata\n", 1, "date");
	expect_error("### 2026-01-01 - a: GVISOR/gvisor \u2192 MICROVM/kata\n", 1,
	             "after the date");
	expect_error("### 2026-01-01 \u2014 Modal: GVISOR/gvisor \u2192 MICROVM/kata\n", 1,
	             "provider id");
	expect_error("### 2026-01-01 \u2014 a:GVISOR/gvisor \u2192 MICROVM/kata\n", 1,
	             "provider id");
	expect_error("### 2026-01-01 \u2014 a: gvisor/gvisor \u2192 MICROVM/kata\n", 1,
	             "old claim");
	expect_error("### 2026-01-01 \u2014 a: VM/vm \u2192 MICROVM/kata\n", 1,
	             "unknown tier 'VM'");
	expect_error("### 2026-01-01 \u2014 a: GVISOR/ \u2192 MICROVM/kata\n", 1, "mechanism");
	expect_error("### 2026-01-01 \u2014 a: GVISOR/gvisor => MICROVM/kata\n", 1,
	             "between the claims");
	expect_error("### 2026-01-01 \u2014 a: GVISOR/gvisor \u2192 MICROVM/kata (maybe)\n", 1,
	             "unexpected text");
	expect_error("### 2026-01-01 \u2014 a: GVISOR/gvisor \u2192 MICROVM/Kata\n", 1,
	             "new claim: mechanism");
	expect_error("### 2026-01-01 \u2014 a: GVISOR/gvisor \u2192 MICROVM\n", 1, "new claim");
	expect_error("### 2026-01-01 \u2014 a: GVISOR/gvisor \u2192 GVISOR/gvisor\n", 1,
	             "not a change");
}
END_TEST

START_TEST(malformed_bodies)
{
	const char *h = "### 2026-01-01 \u2014 a: GVISOR/gvisor \u2192 MICROVM/kata\n";
	char buf[1024];
	snprintf(buf, sizeof buf, "%s- Note: no source\n\n## Next\n", h);
	expect_error(buf, 1, "needs a '- Source: URL'");
	snprintf(buf, sizeof buf, "%s- Source: https://a.example/\n", h);
	expect_error(buf, 1, "'- Note: text'");
	snprintf(buf, sizeof buf, "%s- Source: ftp://a.example/\n- Note: x\n", h);
	expect_error(buf, 2, "http(s) URL");
	snprintf(buf, sizeof buf, "%s- Source: https://a.example/ x\n- Note: x\n", h);
	expect_error(buf, 2, "space");
	snprintf(buf, sizeof buf, "%s- Source: https://a.example/\n- Note: x\n- Note: y\n", h);
	expect_error(buf, 4, "second Note");
	snprintf(buf, sizeof buf, "%s- Source: https://a.example/\n- Note: x\nstray prose\n", h);
	expect_error(buf, 4, "only '- Source: URL'");
	snprintf(buf, sizeof buf,
	         "%s- Source: https://a.example/\n- Note: x\n\n%s- Source: https://b/\n- Note: y\n",
	         h, h);
	expect_error(buf, 5, "duplicate of the entry at line 1");
	expect_error("intro\n```\n### 2026-01-01\n", 3, "unterminated code fence");
}
END_TEST

START_TEST(hostile_bytes_and_sizes)
{
	expect_error("ok\nbell \a here\n", 2, "control character 0x07");
	expect_error("ok\n\x1b[31mred\n", 2, "control character 0x1b");
	expect_error("ok\nbad \xff utf-8\n", 2, "invalid UTF-8");
	expect_error("ok\ntruncated \xe2\x80\n", 2, "invalid UTF-8");
	/* An embedded NUL: the length says there is more text after it. */
	churn_entries e;
	isotier_error err = {0};
	ck_assert_int_eq(churn_md_parse(&e, "a\nb\0c\n", 6, "CHURN.md", &err), ISOTIER_EDATA);
	ck_assert_msg(strstr(err.message, "CHURN.md:2: NUL byte"), "%s", err.message);
	/* An over-long line, and an over-large file. */
	char *big = malloc(CHURN_MD_MAX + 2);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', CHURN_LINE_MAX + 1);
	big[CHURN_LINE_MAX + 1] = '\0';
	expect_error(big, 1, "longer than 4096 bytes");
	memset(big, '\n', CHURN_MD_MAX + 1);
	ck_assert_int_eq(churn_md_parse(&e, big, CHURN_MD_MAX + 1, "CHURN.md", &err),
	                 ISOTIER_EDATA);
	ck_assert_msg(strstr(err.message, "larger than"), "%s", err.message);
	free(big);
	/* A 2001-byte note. */
	char note[4096];
	int n = snprintf(note, sizeof note,
	                 "### 2026-01-01 \u2014 a: GVISOR/gvisor \u2192 MICROVM/kata\n"
	                 "- Source: https://a/\n- Note: ");
	memset(note + n, 'x', CHURN_NOTE_MAX + 1);
	note[n + CHURN_NOTE_MAX + 1] = '\0';
	expect_error(note, 3, "Note longer than");
}
END_TEST

START_TEST(matching_exact_and_chains)
{
	const char *text =
	    ENTRY("2026-01-01 \u2014 p: CONTAINER/runc \u2192 GVISOR/gvisor", "https://a/", "one")
	        ENTRY("2026-02-01 \u2014 p: GVISOR/gvisor \u2192 MICROVM/firecracker", "https://a/",
	              "two") ENTRY("2026-03-01 \u2014 p: MICROVM/firecracker \u2192 CONTAINER/runc",
	                           "https://a/", "loop")
	            ENTRY("2026-01-01 \u2014 q: GVISOR/gvisor \u2192 MICROVM/firecracker",
	                  "https://a/", "q");
	churn_entries e;
	isotier_error err = {0};
	ck_assert_msg(parse(&e, text, &err) == 0, "%s", err.message);
	/* As a catalogue file gives them: the scope always said ("" when none). */
	churn_claimref runc = {ISOTIER_CONTAINER, "runc", "", true},
	               gv = {ISOTIER_GVISOR, "gvisor", "", true},
	               fc = {ISOTIER_MICROVM, "firecracker", "", true},
	               kata = {ISOTIER_MICROVM, "kata", "", true};
	const churn_entry *m = churn_entries_match(&e, "p", &gv, &fc);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->line, 4);
	m = churn_entries_match(&e, "p", &runc, &fc); /* two moves between releases */
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->line, 1);
	ck_assert_ptr_nonnull(churn_entries_match(&e, "p", &gv, &runc)); /* through a cycle */
	ck_assert_ptr_null(churn_entries_match(&e, "p", &fc, &kata));
	ck_assert_ptr_null(churn_entries_match(&e, "q", &runc, &fc)); /* another provider's chain */
	ck_assert_ptr_null(churn_entries_match(&e, "r", &gv, &fc));
	/* A scope that changed: no heading without a scope logs it, nor a chain. */
	churn_claimref fc_acct = {ISOTIER_MICROVM, "firecracker", "between-accounts", true};
	ck_assert_ptr_null(churn_entries_match(&e, "p", &gv, &fc_acct));
	ck_assert_ptr_null(churn_entries_match(&e, "p", &runc, &fc_acct));
	churn_entries_clear(&e);
}
END_TEST

START_TEST(scope_in_headings)
{
	churn_entry x;
	isotier_error err = {0};
	ck_assert_int_eq(churn_heading_parse(&x,
	                                     "2026-12-03 \u2014 l: MICROVM/firecracker/- \u2192 "
	                                     "MICROVM/firecracker/between-accounts",
	                                     "CHURN.md", 3, &err),
	                 0);
	ck_assert(x.from.scope_given && !x.from.scope[0]);
	ck_assert(x.to.scope_given);
	ck_assert_str_eq(x.to.scope, "between-accounts");
	char buf[256];
	churn_heading_format(buf, sizeof buf, &x);
	ck_assert_str_eq(buf, "2026-12-03 \u2014 l: MICROVM/firecracker/- \u2192 "
	                      "MICROVM/firecracker/between-accounts");
	/* Only the scope differs: a change; the same scope on both sides is not. */
	ck_assert_int_eq(churn_heading_parse(&x,
	                                     "2026-12-03 -- l: MICROVM/vm/per-sandbox -> "
	                                     "MICROVM/vm/per-sandbox",
	                                     "CHURN.md", 3, &err),
	                 ISOTIER_EDATA);
	static const char *const bad[] = {
	    "2026-12-03 -- l: MICROVM/vm/everyone -> MICROVM/vm",
	    "2026-12-03 -- l: MICROVM/vm/ -> MICROVM/vm/per-sandbox",
	    "2026-12-03 -- l: MICROVM/vm/per-sandbox-x -> MICROVM/vm",
	    "2026-12-03 -- l: MICROVM/vm/--> MICROVM/vm/per-sandbox",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(churn_heading_parse(&x, bad[i], "CHURN.md", 3, &err) == ISOTIER_EDATA,
		              "%s", bad[i]);
	/* Matching: a side without a scope matches any scope left as it was. */
	churn_claimref acct = {ISOTIER_MICROVM, "vm", "between-accounts", true},
	               none = {ISOTIER_MICROVM, "vm", "", true},
	               any = {ISOTIER_MICROVM, "vm", "", false};
	ck_assert(churn_claim_matches(&any, &acct));
	ck_assert(!churn_claim_matches(&none, &acct));
	ck_assert(!churn_claim_eq(&any, &none));
}
END_TEST

START_TEST(changelog_sections)
{
	const char *text = "# Changelog\n\n## [Unreleased]\n\n### Added\n- things\n\n"
	                   "## [0.2.0] - 2027-01-15\n### Churn\n"
	                   "- 2026-12-20 \u2014 modal: GVISOR/gvisor \u2192 MICROVM/firecracker\n\n"
	                   "### Fixed\n- prose - with dashes\n\n"
	                   "## [0.1.0] - 2026-12-02\n### Churn\n- None\n\n"
	                   "[Unreleased]: https://example.org/compare/v0.2.0...HEAD\n";
	changelog c;
	isotier_error err = {0};
	ck_assert_msg(changelog_parse(&c, text, strlen(text), "CHANGELOG.md", &err) == 0, "%s",
	              err.message);
	ck_assert_uint_eq(c.n, 3);
	const changelog_section *s = changelog_find(&c, "0.2.0");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->date, "2027-01-15");
	ck_assert(s->has_churn);
	ck_assert_uint_eq(s->churn.n, 1);
	ck_assert_str_eq(s->churn.items[0].id, "modal");
	ck_assert_uint_eq(s->churn.items[0].line, 10);
	ck_assert_uint_eq(changelog_find(&c, "0.1.0")->churn.n, 0);
	ck_assert(!changelog_find(&c, "Unreleased")->has_churn);
	ck_assert_ptr_null(changelog_find(&c, "0.3.0"));
	changelog_clear(&c);

	static const struct {
		const char *text, *needle;
	} bad[] = {
	    {"## [0.1.0]\n", "CHANGELOG.md:1: expected ' - YYYY-MM-DD'"},
	    {"## 0.1.0 - 2026-12-02\n", "CHANGELOG.md:1: expected '## [VERSION]"},
	    {"## [v0.1.0] - 2026-12-02\n", "not MAJOR.MINOR.PATCH"},
	    {"## [0.1.0] - 2026-12-02\n## [0.1.0] - 2026-12-03\n",
	     "CHANGELOG.md:2: a second section"},
	    {"## [0.1.0] - 2026-12-02\n### Churn\nmodal moved\n",
	     "CHANGELOG.md:3: a '### Churn' list"},
	    {"## [0.1.0] - 2026-12-02\n### Churn\n- modal moved\n",
	     "CHANGELOG.md:3: expected a date"},
	    {"## [0.1.0] - 2026-12-02\n### Churn\n### Churn\n",
	     "CHANGELOG.md:3: a second '### Churn'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_int_eq(
		    changelog_parse(&c, bad[i].text, strlen(bad[i].text), "CHANGELOG.md", &err),
		    ISOTIER_EDATA);
		ck_assert_msg(strstr(err.message, bad[i].needle), "'%s' not in '%s'", bad[i].needle,
		              err.message);
	}
}
END_TEST

START_TEST(semver)
{
	unsigned long a[3], b[3];
	ck_assert(churn_semver_parse("v0.10.2", a));
	ck_assert(churn_semver_parse("0.9.12", b));
	ck_assert_int_gt(churn_semver_cmp(a, b), 0);
	ck_assert_int_eq(churn_semver_cmp(a, a), 0);
	ck_assert(!churn_semver_parse("v1.2", a));
	ck_assert(!churn_semver_parse("v1.2.3-rc1", a));
	ck_assert(!churn_semver_parse("release", a));
	ck_assert(!churn_semver_parse("1.2.9999999999", a));
}
END_TEST

/* One offering of an in-memory snapshot (items must be added in id order). */
static void offering(churn_snapshot *s, const char *id, isotier_tier tier, const char *mech,
                     const char *status, const char *renamed_from)
{
	s->items = realloc(s->items, (s->n + 1) * sizeof *s->items);
	ck_assert_ptr_nonnull(s->items);
	churn_claim *c = &s->items[s->n++];
	memset(c, 0, sizeof *c);
	c->id = strdup(id);
	ck_assert_int_ge(asprintf(&c->path, "catalogue/providers/%s.json", id), 0);
	c->claim.tier = tier;
	snprintf(c->claim.mechanism, sizeof c->claim.mechanism, "%s", mech);
	snprintf(c->status, sizeof c->status, "%s", status);
	if (renamed_from) {
		c->renamed_from = calloc(1, sizeof *c->renamed_from);
		c->renamed_from[0] = strdup(renamed_from);
		c->n_renamed_from = 1;
	}
}

static const churn_change *change_of(const churn_changes *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->items[i].id, id))
			return &c->items[i];
	return NULL;
}

START_TEST(diff_per_offering)
{
	churn_snapshot old = {0}, new_ = {0};
	offering(&old, "a", ISOTIER_MICROVM, "firecracker", "current", NULL);
	offering(&old, "b", ISOTIER_CONTAINER, "runc", "current", NULL);
	offering(&old, "c", ISOTIER_GVISOR, "gvisor", "current", NULL);
	offering(&old, "x", ISOTIER_UNKNOWN, "unknown", "current", NULL);
	offering(&new_, "b", ISOTIER_CONTAINER, "runc", "deprecated", NULL);
	offering(&new_, "c2", ISOTIER_GVISOR, "gvisor", "current", "c");
	offering(&new_, "d", ISOTIER_MICROVM, "vm", "current", "a");
	offering(&new_, "e", ISOTIER_UNKNOWN, "unknown", "current", "b"); /* b still exists */
	offering(&new_, "f1", ISOTIER_UNKNOWN, "unknown", "retired", "x");
	offering(&new_, "f2", ISOTIER_UNKNOWN, "unknown", "current", "x"); /* x taken by f1 */
	churn_changes ch = {0};
	isotier_error err = {0};
	ck_assert_int_eq(churn_diff(&ch, &old, &new_, &err), 0);
	/* No removal for a renamed id; every other id exactly once, sorted. */
	ck_assert_uint_eq(ch.n, 6);
	ck_assert_ptr_null(change_of(&ch, "a"));
	ck_assert_ptr_null(change_of(&ch, "c"));
	ck_assert_ptr_null(change_of(&ch, "x"));
	for (size_t i = 1; i < ch.n; i++)
		ck_assert_int_lt(strcmp(ch.items[i - 1].id, ch.items[i].id), 0);
	const churn_change *b = change_of(&ch, "b");
	ck_assert_int_eq(b->kind, CHURN_CHANGED);
	ck_assert(b->status_changed && !churn_change_needs_entry(b) && !b->old_id);
	ck_assert_str_eq(b->old_status, "current");
	ck_assert_str_eq(b->new_status, "deprecated");
	const churn_change *c2 = change_of(&ch, "c2");
	ck_assert_int_eq(c2->kind, CHURN_CHANGED);
	ck_assert_str_eq(c2->old_id, "c");
	ck_assert_str_eq(c2->old_path, "catalogue/providers/c.json");
	ck_assert(!churn_change_needs_entry(c2) && !c2->status_changed);
	/* A rename that also changes the mechanism is churn that must be logged. */
	const churn_change *d = change_of(&ch, "d");
	ck_assert_str_eq(d->old_id, "a");
	ck_assert(d->mechanism_changed && !d->tier_changed && churn_change_needs_entry(d));
	ck_assert_str_eq(d->from.mechanism, "firecracker");
	ck_assert_int_eq(change_of(&ch, "e")->kind, CHURN_ADDED);
	const churn_change *f1 = change_of(&ch, "f1");
	ck_assert_str_eq(f1->old_id, "x");
	ck_assert(f1->status_changed);
	ck_assert_int_eq(change_of(&ch, "f2")->kind, CHURN_ADDED);
	churn_changes_clear(&ch);
	/* Reversed: the renamed ids come back as additions, the new ones are removals. */
	ck_assert_int_eq(churn_diff(&ch, &new_, &old, &err), 0);
	ck_assert_int_eq(change_of(&ch, "a")->kind, CHURN_ADDED);
	ck_assert_int_eq(change_of(&ch, "d")->kind, CHURN_REMOVED);
	churn_changes_clear(&ch);
	churn_snapshot_clear(&old);
	churn_snapshot_clear(&new_);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("churn");
	TCase *tc = tcase_create("churnlog");
	tcase_add_test(tc, the_real_churn_md_parses);
	tcase_add_test(tc, entries_parse);
	tcase_add_test(tc, scope_in_headings);
	tcase_add_test(tc, empty_and_prose_only);
	tcase_add_test(tc, malformed_headings);
	tcase_add_test(tc, malformed_bodies);
	tcase_add_test(tc, hostile_bytes_and_sizes);
	tcase_add_test(tc, matching_exact_and_chains);
	tcase_add_test(tc, changelog_sections);
	tcase_add_test(tc, semver);
	tcase_add_test(tc, diff_per_offering);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
