/* SPDX-License-Identifier: Apache-2.0 */
/* test_catalogue.c - the catalogue parser and validator (hostile input, every
 * rule with file and field), quote normalisation, page text extraction and
 * SHA-256. */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../catalogue/catalogue.h"
#include "../../verify/sources/sha256.h"
#include "../../verify/sources/htmltext.h"

#define GOOD                                                                                       \
	"{\"id\": \"e2b\", \"provider\": \"e2b\", \"name\": \"E2B\", \"kind\": \"remote\","        \
	" \"tier\": \"MICROVM\","                                                                  \
	" \"mechanism\": \"firecracker\", \"since\": \"2024-02-29\","                              \
	" \"sources\": [{\"url\": \"https://e2b.dev/docs\", \"quote\": \"Firecracker microVM\","   \
	" \"publisher\": \"provider\", \"retrieved\": \"2026-11-20\"}],"                           \
	" \"history\": [{\"tier\": \"CONTAINER\", \"mechanism\": \"runc\", \"until\": "            \
	"\"2024-01-01\","                                                                          \
	" \"note\": \"before\"}], \"notes\": \"n\"}"

static bool has(const isotier_findings *f, isotier_finding_severity sev, const char *field,
                const char *needle)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].severity == sev && !strcmp(f->items[i].field, field) &&
		    strstr(f->items[i].message, needle))
			return true;
	return false;
}

static void dump(const isotier_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		fprintf(stderr, "  %s: %s: %s\n", f->items[i].file, f->items[i].field,
		        f->items[i].message);
}

/* Parses text as "dir/<id>.json" and validates a one-entry catalogue against
 * 2026-12-01; expects a finding at field containing needle. */
static void expect_finding(const char *json, const char *file, isotier_finding_severity sev,
                           const char *field, const char *needle)
{
	isotier_findings f = {0};
	isotier_provider p;
	if (isotier__provider_parse(&p, json, strlen(json), file, &f) == 0) {
		isotier_catalogue c = {.dir = "dir", .providers = &p, .n_providers = 1};
		isotier__catalogue_validate(&c, "2026-12-01", 0, &f);
		isotier__provider_clear(&p);
	}
	if (!has(&f, sev, field, needle))
		dump(&f);
	ck_assert_msg(has(&f, sev, field, needle), "no finding at '%s' with '%s'", field, needle);
	for (size_t i = 0; i < f.n; i++)
		ck_assert_str_eq(f.items[i].file, file);
	isotier__findings_free(&f);
}

/* GOOD with one substring replaced. */
static char *variant(const char *from, const char *to)
{
	const char *at = strstr(GOOD, from);
	ck_assert_ptr_nonnull(at);
	size_t n = strlen(GOOD) - strlen(from) + strlen(to) + 1;
	char *s = malloc(n);
	snprintf(s, n, "%.*s%s%s", (int)(at - GOOD), GOOD, to, at + strlen(from));
	return s;
}

static void expect_variant(const char *from, const char *to, isotier_finding_severity sev,
                           const char *field, const char *needle)
{
	char *s = variant(from, to);
	expect_finding(s, "dir/e2b.json", sev, field, needle);
	free(s);
}

START_TEST(good_entry_parses_and_validates)
{
	isotier_findings f = {0};
	isotier_provider p;
	ck_assert_int_eq(isotier__provider_parse(&p, GOOD, strlen(GOOD), "dir/e2b.json", &f), 0);
	ck_assert_str_eq(p.id, "e2b");
	ck_assert_int_eq(p.tier, ISOTIER_MICROVM);
	ck_assert_uint_eq(p.n_sources, 1);
	ck_assert_uint_eq(p.n_history, 1);
	ck_assert_int_eq(p.history[0].tier, ISOTIER_CONTAINER);
	ck_assert_ptr_null(p.offering);
	isotier_catalogue c = {.dir = "dir", .providers = &p, .n_providers = 1};
	isotier__catalogue_validate(&c, "2026-12-01", 0, &f);
	if (f.n)
		dump(&f);
	ck_assert_uint_eq(f.n, 0);
	ck_assert_ptr_eq(isotier__catalogue_find(&c, "e2b"), &p);
	ck_assert_ptr_null(isotier__catalogue_find(&c, "e2c"));
	ck_assert_ptr_eq(isotier__provider_best_source(&p), &p.sources[0]);
	isotier__provider_clear(&p);
}
END_TEST

START_TEST(hostile_documents_are_rejected)
{
	expect_finding("", "x.json", ISOTIER_FINDING_ERROR, "", "not valid JSON");
	expect_finding("[1, 2]", "x.json", ISOTIER_FINDING_ERROR, "", "must be an object");
	expect_finding("{\"id\": \"x\"} trailing", "x.json", ISOTIER_FINDING_ERROR, "",
	               "not valid JSON");
	expect_finding("{\"id\": \"a\xff\"}", "x.json", ISOTIER_FINDING_ERROR, "", "UTF-8");
	expect_finding("{\"id\": \"\xed\xa0\x80\"}", "x.json", ISOTIER_FINDING_ERROR, "", "UTF-8");
	const char nul[] = "{\"id\": \"a\"}\0junk";
	isotier_findings f = {0};
	isotier_provider p;
	ck_assert_int_eq(isotier__provider_parse(&p, nul, sizeof nul - 1, "x.json", &f),
	                 ISOTIER_EDATA);
	ck_assert(has(&f, ISOTIER_FINDING_ERROR, "", "UTF-8"));
	isotier__findings_free(&f);
	/* Over the size cap: refused before parsing. */
	size_t big = 300 * 1024;
	char *s = malloc(big + 1);
	memset(s, ' ', big);
	s[big] = '\0';
	expect_finding(s, "x.json", ISOTIER_FINDING_ERROR, "", "larger than");
	/* Deep nesting (within the size cap) does not crash the parser. */
	big = 200 * 1024;
	for (size_t i = 0; i < big; i++)
		s[i] = i < big / 2 ? '[' : ']';
	s[big] = '\0';
	expect_finding(s, "x.json", ISOTIER_FINDING_ERROR, "", "not valid JSON");
	free(s);
}
END_TEST

START_TEST(every_rule_names_its_field)
{
	const isotier_finding_severity E = ISOTIER_FINDING_ERROR, W = ISOTIER_FINDING_WARNING;
	expect_variant("\"retrieved\": \"2026-11-20\"", "\"retrieved\": \"2026-11-20\", \"x\": 1",
	               E, "sources[0].x", "unknown field");
	expect_variant("\"retrieved\": \"2026-11-20\"", "\"retrieved\": 20261120", E,
	               "sources[0].retrieved", "must be a string, not a number");
	expect_variant("\"name\": \"E2B\"", "\"name\": [\"E2B\"]", E, "name",
	               "must be a string, not an array");
	expect_variant("\"name\": \"E2B\"", "\"name\": \"\"", E, "name", "must not be empty");
	expect_variant("\"name\": \"E2B\"", "\"name\": \"E\\u001b[31m\"", E, "name",
	               "control characters");
	expect_variant("\"name\": \"E2B\", ", "", E, "name", "required field missing");
	expect_variant("\"name\": \"E2B\"", "\"name\": \"E2B\", \"name\": \"E\"", E, "name",
	               "duplicate field");
	expect_variant("\"sources\": [{", "\"sources\": [7, {", E, "sources[0]",
	               "must be an object, not a number");
	expect_variant("\"tier\": \"MICROVM\"", "\"tier\": \"microvm\"", E, "tier", "not a tier");
	expect_variant("\"tier\": \"MICROVM\"", "\"tier\": 3", E, "tier", "must be a string");
	expect_variant("\"mechanism\": \"firecracker\"", "\"mechanism\": \"docker\"", E,
	               "mechanism", "not a mechanism in the vocabulary");
	expect_variant("\"mechanism\": \"firecracker\"", "\"mechanism\": \"gvisor\"", E,
	               "mechanism", "contradicts tier MICROVM");
	expect_variant("\"mechanism\": \"runc\"", "\"mechanism\": \"kata\"", E,
	               "history[0].mechanism", "contradicts tier CONTAINER");
	expect_variant("\"kind\": \"remote\"", "\"kind\": \"cloud\"", E, "kind", "'cloud'");
	expect_variant("\"publisher\": \"provider\"", "\"publisher\": \"third-party\"", E,
	               "sources", "tier MICROVM needs a source with publisher 'provider'");
	expect_variant("\"quote\": \"Firecracker microVM\"", "\"quote\": \"\"", E, "sources",
	               "needs a source");
	expect_variant("\"quote\": \"Firecracker microVM\"", "\"quote\": \"\"", W,
	               "sources[0].quote", "empty quote");
	expect_variant("\"retrieved\": \"2026-11-20\"", "\"retrieved\": \"2026-12-02\"", E,
	               "sources[0].retrieved", "in the future");
	expect_variant("\"retrieved\": \"2026-11-20\"", "\"retrieved\": \"2026-09-01\"", E,
	               "sources[0].retrieved", "91 days ago");
	expect_variant("\"since\": \"2024-02-29\"", "\"since\": \"2023-02-29\"", E, "since",
	               "not a calendar date");
	expect_variant("\"since\": \"2024-02-29\"", "\"since\": \"24-02-29\"", E, "since",
	               "not a calendar date");
	expect_variant("\"until\": \"2024-01-01\"", "\"until\": \"2024-13-01\"", E,
	               "history[0].until", "not a calendar date");
	expect_variant("\"url\": \"https://e2b.dev/docs\"", "\"url\": \"javascript:alert(1)\"", E,
	               "sources[0].url", "not an http(s) URL");
	expect_variant("\"url\": \"https://e2b.dev/docs\"", "\"url\": \"https://e2b.dev/a b\"", E,
	               "sources[0].url", "not an http(s) URL");
	expect_variant("\"id\": \"e2b\"", "\"id\": \"E2B\"", E, "id", "does not match ^[a-z0-9]");
	expect_variant("\"id\": \"e2b\"", "\"id\": \"e2b-x\"", E, "id",
	               "does not match the file name 'e2b.json'");
	/* Third-party-only evidence on an UNKNOWN entry is a warning, not an error. */
	char *s = variant("\"publisher\": \"provider\"", "\"publisher\": \"third-party\"");
	char *u = NULL;
	const char *at = strstr(s, "\"tier\": \"MICROVM\"");
	ck_assert_ptr_nonnull(at);
	size_t n = strlen(s) + 8;
	u = malloc(n);
	snprintf(u, n, "%.*s\"tier\": \"UNKNOWN\"%s", (int)(at - s), s,
	         at + strlen("\"tier\": \"MICROVM\""));
	isotier_findings f = {0};
	isotier_provider p;
	ck_assert_int_eq(isotier__provider_parse(&p, u, strlen(u), "d/e2b.json", &f), 0);
	isotier_catalogue c = {.dir = "d", .providers = &p, .n_providers = 1};
	isotier__catalogue_validate(&c, "2026-12-01", 0, &f);
	ck_assert_uint_eq(f.n_errors, 0);
	ck_assert_uint_eq(f.n_warnings, 1);
	ck_assert(has(&f, W, "sources", "third-party-only"));
	isotier__provider_clear(&p);
	isotier__findings_free(&f);
	free(s);
	free(u);
}
END_TEST

START_TEST(max_age_is_configurable)
{
	char *s = variant("\"retrieved\": \"2026-11-20\"", "\"retrieved\": \"2026-09-01\"");
	isotier_findings f = {0};
	isotier_provider p;
	ck_assert_int_eq(isotier__provider_parse(&p, s, strlen(s), "d/e2b.json", &f), 0);
	isotier_catalogue c = {.dir = "d", .providers = &p, .n_providers = 1};
	isotier__catalogue_validate(&c, "2026-12-01", 91, &f);
	ck_assert_uint_eq(f.n_errors, 0);
	isotier__catalogue_validate(&c, "2026-12-01", 90, &f);
	ck_assert_uint_eq(f.n_errors, 2); /* the stale source, and the tier it no longer defends */
	isotier__provider_clear(&p);
	isotier__findings_free(&f);
	free(s);
}
END_TEST

/* A source re-verified by a sources check (verified, set from the history)
 * ages from that day; a warning comes ISOTIER_EXPIRY_WARNING_DAYS ahead; a
 * verified date before the retrieval, or unreadable, changes nothing. */
START_TEST(renewal_moves_the_expiry)
{
	char *s = variant("\"retrieved\": \"2026-11-20\"", "\"retrieved\": \"2026-08-01\"");
	isotier_findings f = {0};
	isotier_provider p;
	ck_assert_int_eq(isotier__provider_parse(&p, s, strlen(s), "d/e2b.json", &f), 0);
	isotier_catalogue c = {.dir = "d", .providers = &p, .n_providers = 1};
	char exp[16];
	ck_assert_int_eq(isotier__source_expires(&p.sources[0], 90, exp, sizeof exp), 0);
	ck_assert_str_eq(exp, "2026-10-30");
	isotier__catalogue_validate(&c, "2026-12-01", 0, &f);
	ck_assert_uint_eq(f.n_errors, 2); /* expired, and the tier it no longer defends */
	ck_assert(has(&f, ISOTIER_FINDING_ERROR, "sources[0].retrieved", "expired 2026-10-30"));
	isotier__findings_free(&f);

	p.sources[0].verified = strdup("2026-11-15");
	ck_assert_ptr_eq(isotier__source_as_of(&p.sources[0]), p.sources[0].verified);
	ck_assert_int_eq(isotier__source_expires(&p.sources[0], 90, exp, sizeof exp), 0);
	ck_assert_str_eq(exp, "2027-02-13");
	isotier__catalogue_validate(&c, "2026-12-01", 0, &f);
	ck_assert_uint_eq(f.n_errors, 0);
	ck_assert_uint_eq(f.n_warnings, 0);
	isotier__catalogue_validate(&c, "2027-01-20", 0, &f); /* 24 days ahead */
	ck_assert_uint_eq(f.n_errors, 0);
	ck_assert(has(&f, ISOTIER_FINDING_WARNING, "sources[0].retrieved",
	              "expires 2027-02-13, in 24 days"));
	isotier__findings_free(&f);
	isotier__catalogue_validate(&c, "2027-02-14", 0, &f);
	ck_assert(has(&f, ISOTIER_FINDING_ERROR, "sources[0].retrieved",
	              "passage re-verified 2026-11-15"));
	isotier__findings_free(&f);

	/* Earlier than the retrieval, or not a date: the retrieval counts. */
	free(p.sources[0].verified);
	p.sources[0].verified = strdup("2026-07-01");
	ck_assert_ptr_eq(isotier__source_as_of(&p.sources[0]), p.sources[0].retrieved);
	free(p.sources[0].verified);
	p.sources[0].verified = strdup("2026-13-01");
	ck_assert_ptr_eq(isotier__source_as_of(&p.sources[0]), p.sources[0].retrieved);
	isotier__provider_clear(&p);
	free(s);
}
END_TEST

START_TEST(calendar_dates)
{
	long d;
	ck_assert_int_eq(isotier__date_days(&d, "1970-01-01"), 0);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(isotier__date_days(&d, "2000-02-29"), 0); /* divisible by 400 */
	ck_assert_int_eq(d, 11016);
	ck_assert_int_eq(isotier__date_days(&d, "2024-02-29"), 0);
	long a, b;
	isotier__date_days(&a, "2026-12-01");
	isotier__date_days(&b, "2026-08-01");
	ck_assert_int_eq(a - b, 122);
	const char *bad[] = {"1900-02-29",  "2100-02-29", "2025-02-29",  "2025-04-31",
	                     "2025-00-10",  "2025-13-01", "2025-01-00",  "2025-01-32",
	                     "2025-1-01",   "2025/01/01", "2025-01-01T", " 2025-01-01",
	                     "２025-01-01", "",           "1969-12-31"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(isotier__date_days(&d, bad[i]) == ISOTIER_EINVAL, "accepted '%s'",
		              bad[i]);
}
END_TEST

START_TEST(mechanism_vocabulary)
{
	isotier_tier t;
	ck_assert_int_eq(isotier__mechanism_tier(&t, "firecracker"), 0);
	ck_assert_int_eq(t, ISOTIER_MICROVM);
	ck_assert_int_eq(isotier__mechanism_tier(&t, "gvisor"), 0);
	ck_assert_int_eq(t, ISOTIER_GVISOR);
	ck_assert_int_eq(isotier__mechanism_tier(&t, "bubblewrap"), 0);
	ck_assert_int_eq(t, ISOTIER_CONTAINER);
	ck_assert_int_eq(isotier__mechanism_tier(&t, "webassembly"), 0);
	ck_assert_int_eq(t, ISOTIER_UNKNOWN);
	ck_assert_int_eq(isotier__mechanism_tier(&t, "Firecracker"), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__mechanism_tier(&t, NULL), ISOTIER_EINVAL);
}
END_TEST

START_TEST(offering_fields_are_hostile_input)
{
	const isotier_finding_severity E = ISOTIER_FINDING_ERROR, W = ISOTIER_FINDING_WARNING;
	expect_variant("\"provider\": \"e2b\"", "\"provider\": 7", E, "provider",
	               "must be a string, not a number");
	expect_variant("\"provider\": \"e2b\"", "\"provider\": \"E2B Inc\"", E, "provider",
	               "is not a provider id");
	expect_variant("\"provider\": \"e2b\", ", "", W, "provider", "grouped on its own");
	expect_variant("\"notes\": \"n\"", "\"notes\": \"n\", \"status\": \"gone\"", E, "status",
	               "is not 'current', 'deprecated' or 'retired'");
	expect_variant("\"notes\": \"n\"", "\"notes\": \"n\", \"status\": \"deprecated\"", E,
	               "status_source", "required for status 'deprecated'");
	expect_variant("\"notes\": \"n\"",
	               "\"notes\": \"n\", \"status\": \"retired\", \"status_source\": []", E,
	               "status_source", "must be an object, not an array");
	expect_variant("\"notes\": \"n\"",
	               "\"notes\": \"n\", \"status_source\": {\"date\": \"2026-01-01\", \"url\": "
	               "\"https://e2b.dev/d\", \"quote\": \"q\"}",
	               E, "status_source", "only a deprecated or retired offering has one");
	expect_variant(
	    "\"notes\": \"n\"",
	    "\"notes\": \"n\", \"status\": \"deprecated\", \"status_source\": {\"date\": "
	    "\"2027-01-01\", \"url\": \"https://e2b.dev/d\", \"quote\": \"q\"}",
	    E, "status_source.date", "is in the future");
	expect_variant("\"notes\": \"n\"", "\"notes\": \"n\", \"renamed_from\": {}", E,
	               "renamed_from", "must be an array, not an object");
	expect_variant("\"notes\": \"n\"", "\"notes\": \"n\", \"renamed_from\": [\"a\", 3]", E,
	               "renamed_from[1]", "must be a string, not a number");
	expect_variant("\"notes\": \"n\"", "\"notes\": \"n\", \"renamed_from\": [\"\"]", E,
	               "renamed_from[0]", "must not be empty");
	/* A source's own page date is a real date, never in the future. */
	expect_variant("\"retrieved\": \"2026-11-20\"",
	               "\"retrieved\": \"2026-11-20\", \"published\": \"2026-13-01\"", E,
	               "sources[0].published", "is not a calendar date");
	expect_variant("\"retrieved\": \"2026-11-20\"",
	               "\"retrieved\": \"2026-11-20\", \"published\": \"2026-12-24\"", E,
	               "sources[0].published", "is in the future");
	/* More than 16 earlier ids is refused before any is copied. */
	char many[512] = "\"notes\": \"n\", \"renamed_from\": [";
	for (int i = 0; i < 17; i++)
		snprintf(many + strlen(many), sizeof many - strlen(many), "%s\"old-%d\"",
		         i ? ", " : "", i);
	strcat(many, "]");
	expect_variant("\"notes\": \"n\"", many, E, "renamed_from", "more than 16 entries");
	/* A deprecated offering with the provider's words validates cleanly. */
	char *ok = variant("\"notes\": \"n\"",
	                   "\"notes\": \"n\", \"status\": \"deprecated\", \"renamed_from\": "
	                   "[\"e2b-old\"], \"status_source\": {\"date\": \"2026-06-01\", \"url\": "
	                   "\"https://e2b.dev/d\", \"quote\": \"deprecated\"}");
	isotier_findings f = {0};
	isotier_provider p;
	ck_assert_int_eq(isotier__provider_parse(&p, ok, strlen(ok), "dir/e2b.json", &f), 0);
	isotier_catalogue c = {.dir = "dir", .providers = &p, .n_providers = 1};
	isotier__catalogue_validate(&c, "2026-12-01", 0, &f);
	if (f.n)
		dump(&f);
	ck_assert_uint_eq(f.n, 0);
	ck_assert_str_eq(isotier__provider_status(&p), "deprecated");
	ck_assert_str_eq(isotier__provider_group(&p), "e2b");
	ck_assert_str_eq(p.status_source.date, "2026-06-01");
	ck_assert_ptr_eq(isotier__catalogue_find_renamed(&c, "e2b-old"), &p);
	ck_assert_ptr_null(isotier__catalogue_find_renamed(&c, "e2b"));
	isotier__provider_clear(&p);
	isotier__findings_free(&f);
	free(ok);
}
END_TEST

START_TEST(renamed_ids_resolve_to_the_current_offering)
{
	const char *dir = ISOTIER_SOURCE_DIR "/tests/fixtures/catalogue/valid";
	char id[72];
	/* An id that was renamed resolves to the entry that lists it. */
	ck_assert_str_eq(isotier__catalogue_current_id(id, sizeof id, dir, "old-offering-id"),
	                 "renamed-offering");
	/* A current id, an unknown id and a path-like id stay as they are. */
	ck_assert_str_eq(isotier__catalogue_current_id(id, sizeof id, dir, "ok"), "ok");
	ck_assert_str_eq(isotier__catalogue_current_id(id, sizeof id, dir, "nope"), "nope");
	ck_assert_str_eq(isotier__catalogue_current_id(id, sizeof id, dir, "../ok"), "../ok");
	ck_assert_str_eq(isotier__catalogue_current_id(id, sizeof id, "/nonexistent", "x"), "x");
	isotier_findings f = {0};
	isotier_catalogue *c = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__catalogue_load(&c, dir, &f, &err), 0);
	const isotier_provider *p = isotier__catalogue_find(c, "deprecated-sdk");
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(isotier__provider_status(p), "deprecated");
	ck_assert_str_eq(isotier__provider_status(isotier__catalogue_find(c, "ok")), "current");
	ck_assert_str_eq(isotier__provider_group(p), "example");
	isotier__catalogue_free(c);
	isotier__findings_free(&f);
}
END_TEST

START_TEST(real_catalogue_loads_and_validates)
{
	isotier_findings f = {0};
	isotier_catalogue *c = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(
	    isotier__catalogue_load(&c, ISOTIER_SOURCE_DIR "/catalogue/providers", &f, &err), 0);
	isotier__catalogue_validate(c, NULL, 0, &f);
	if (f.n_errors)
		dump(&f);
	ck_assert_uint_eq(f.n_errors, 0);
	for (size_t i = 1; i < c->n_providers; i++)
		ck_assert_int_lt(strcmp(c->providers[i - 1].id, c->providers[i].id), 0);
	for (size_t i = 0; i < c->n_providers; i++) {
		ck_assert_ptr_eq(isotier__catalogue_find(c, c->providers[i].id), &c->providers[i]);
		if (c->providers[i].tier != ISOTIER_UNKNOWN)
			ck_assert_ptr_nonnull(isotier__provider_best_source(&c->providers[i]));
	}
	isotier__catalogue_free(c);
	isotier__findings_free(&f);
	ck_assert_int_eq(isotier__catalogue_load(&c, "/nonexistent/dir", &f, &err),
	                 ISOTIER_ENOTFOUND);
	ck_assert(strstr(err.message, "/nonexistent/dir"));
}
END_TEST

START_TEST(fixture_catalogue_partial_load_reports_everything)
{
	/* A file with a field error is skipped by _load but validated by _load_partial. */
	const char *dir = ISOTIER_SOURCE_DIR "/tests/fixtures/catalogue/mistyped-field";
	isotier_findings f = {0};
	isotier_catalogue *c = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__catalogue_load(&c, dir, &f, &err), 0);
	ck_assert_uint_eq(c->n_providers, 0);
	ck_assert_uint_eq(f.n_errors, 3);
	isotier__catalogue_free(c);
	isotier__findings_free(&f);
	ck_assert_int_eq(isotier__catalogue_load_partial(&c, dir, &f, &err), 0);
	ck_assert_uint_eq(c->n_providers, 1);
	isotier__catalogue_validate(c, "2026-12-01", 0, &f);
	ck_assert(has(&f, ISOTIER_FINDING_ERROR, "sources", "needs a source"));
	isotier__catalogue_free(c);
	isotier__findings_free(&f);
}
END_TEST

static void expect_normal(const char *in, const char *want)
{
	char *got = isotier_text_normalise(in, strlen(in));
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(normalisation)
{
	expect_normal("  Hello \t\n World  ", "hello world");
	expect_normal("\xe2\x80\x98quoted\xe2\x80\x99 \xe2\x80\x9c"
	              "double\xe2\x80\x9d",
	              "'quoted' \"double\"");
	expect_normal("a\xe2\x80\x93"
	              "b\xe2\x80\x94"
	              "c\xe2\x88\x92"
	              "d",
	              "a-b-c-d");
	expect_normal("non\xc2\xa0"
	              "breaking\xe2\x80\xaf"
	              "narrow",
	              "non breaking narrow");
	expect_normal("zero\xe2\x80\x8bwidth soft\xc2\xadhyphen", "zerowidth softhyphen");
	expect_normal("wait\xe2\x80\xa6", "wait...");
	expect_normal("\xc3\x89T\xc3\x89", "\xc3\xa9t\xc3\xa9"); /* ÉTÉ -> été */
	expect_normal("bad\xff\xfe bytes", "bad bytes");
	expect_normal("", "");
	ck_assert_int_eq(
	    isotier_text_has_quote("each sandbox runs in its own firecracker microvm",
	                           "Each  sandbox runs in its own\nFirecracker microVM"),
	    1);
	ck_assert_int_eq(isotier_text_has_quote("runs in a container", "Firecracker"), 0);
}
END_TEST

static char *text_of(const char *html)
{
	char *raw = NULL;
	ck_assert_int_eq(isotier_html_text(&raw, html, strlen(html), NULL), 0);
	char *n = isotier_text_normalise(raw, strlen(raw));
	free(raw);
	return n;
}

START_TEST(html_text_extraction)
{
	char *t = text_of("<html><head><title>T</title><style>.a{}</style>"
	                  "<script>var secret = 'hidden quote';</script></head><body>"
	                  "<p>Runs in <b>gVisor</b>,<!-- hidden quote --> Google&rsquo;s"
	                  " <a href=x>app<em>lication</em></a> kernel.</p><div>Next</div>"
	                  "<noscript>hidden quote</noscript><template>hidden quote</template>"
	                  "</body></html>");
	ck_assert_str_eq(t, "runs in gvisor, google's application kernel. next");
	free(t);
	/* Malformed markup: unclosed tags, stray brackets, bogus entities. */
	t = text_of("<p>Each <b>sandbox<i> runs</b> in</i> its <div>own<td>microVM &bogus; <<x");
	ck_assert(strstr(t, "each sandbox runs in its own microvm"));
	free(t);
	/* Block boundaries separate words. */
	t = text_of("<ul><li>one</li><li>two</li></ul><p>three<br>four</p>");
	ck_assert_str_eq(t, "one two three four");
	free(t);
	/* Deep nesting is parsed whole (past libxml2's default limit of 256
	 * levels, which silently drops the rest: false drift) and walked
	 * without recursion. */
	size_t depth = 20000;
	char *deep = malloc(depth * 5 + 16);
	char *p = deep;
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "<div>");
	strcpy(p, "bottom");
	char *raw = NULL;
	ck_assert_int_eq(isotier_html_text(&raw, deep, strlen(deep), NULL), 0);
	ck_assert_ptr_nonnull(strstr(raw, "bottom"));
	free(raw);
	p = deep + 300 * 5; /* just past the old limit */
	strcpy(p, "<p>bottom</p>");
	ck_assert_int_eq(isotier_html_text(&raw, deep, strlen(deep), NULL), 0);
	ck_assert_ptr_nonnull(strstr(raw, "bottom"));
	free(raw);
	free(deep);
	/* Latin-1 declared by the server is decoded. */
	const char latin1[] = "<p>caf\xe9</p>";
	ck_assert_int_eq(isotier_html_text(&raw, latin1, strlen(latin1), "ISO-8859-1"), 0);
	ck_assert(strstr(raw, "caf\xc3\xa9"));
	free(raw);
	/* An unknown charset name falls back to detection, not failure. */
	ck_assert_int_eq(isotier_html_text(&raw, "<p>x</p>", 8, "no-such-charset"), 0);
	free(raw);
	/* Empty input is empty text. */
	ck_assert_int_eq(isotier_html_text(&raw, "", 0, NULL), 0);
	free(raw);
}
END_TEST

START_TEST(sha256_vectors)
{
	char hex[65];
	isotier__sha256_hex("", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	isotier__sha256_hex("abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	isotier__sha256_hex(two, strlen(two), hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* One million 'a', fed in uneven pieces. */
	isotier_sha256 c;
	unsigned char d[32];
	char block[997];
	memset(block, 'a', sizeof block);
	isotier_sha256_init(&c);
	size_t left = 1000000;
	while (left) {
		size_t n = left < sizeof block ? left : sizeof block;
		isotier_sha256_update(&c, block, n);
		left -= n;
	}
	isotier_sha256_final(&c, d);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("catalogue");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, good_entry_parses_and_validates);
	tcase_add_test(tc, hostile_documents_are_rejected);
	tcase_add_test(tc, every_rule_names_its_field);
	tcase_add_test(tc, max_age_is_configurable);
	tcase_add_test(tc, renewal_moves_the_expiry);
	tcase_add_test(tc, calendar_dates);
	tcase_add_test(tc, mechanism_vocabulary);
	tcase_add_test(tc, offering_fields_are_hostile_input);
	tcase_add_test(tc, renamed_ids_resolve_to_the_current_offering);
	tcase_add_test(tc, real_catalogue_loads_and_validates);
	tcase_add_test(tc, fixture_catalogue_partial_load_reports_everything);
	tcase_add_test(tc, normalisation);
	tcase_add_test(tc, html_text_extraction);
	tcase_add_test(tc, sha256_vectors);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
