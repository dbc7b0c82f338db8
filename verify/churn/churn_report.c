/* SPDX-License-Identifier: Apache-2.0 */
/* churn_report.c - text, JSON and JUnit renderings of a churn check and of
 * the churn log. Ids and mechanisms are validated identifiers; file names
 * from the object database are hostile and are escaped everywhere. */
#include "churn_report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <string.h>
#include <time.h>

void churn_claim_format(char *buf, size_t len, const churn_claimref *c)
{
	churn_claim_spell(buf, len, c, false);
}

void churn_report_clear(churn_report *r)
{
	churn_changes_clear(&r->changes);
	churn_entries_clear(&r->entries);
	for (size_t i = 0; i < r->n_checks; i++) {
		free(r->checks[i].name);
		free(r->checks[i].failure);
	}
	free(r->checks);
	r->checks = NULL;
	r->n_checks = r->n_failed = 0;
}

int churn_report_add_check(churn_report *r, const char *name, const char *failure)
{
	churn_check *c = realloc(r->checks, (r->n_checks + 1) * sizeof *c);
	if (!c)
		return ISOTIER_ENOMEM;
	r->checks = c;
	c[r->n_checks].name = strdup(name);
	c[r->n_checks].failure = failure ? strdup(failure) : NULL;
	if (!c[r->n_checks].name || (failure && !c[r->n_checks].failure)) {
		free(c[r->n_checks].name);
		free(c[r->n_checks].failure);
		return ISOTIER_ENOMEM;
	}
	r->n_checks++;
	if (failure)
		r->n_failed++;
	return 0;
}

void churn_report_match(churn_report *r)
{
	r->unlogged = 0;
	for (size_t i = 0; i < r->changes.n; i++) {
		churn_change *c = &r->changes.items[i];
		if (!churn_change_needs_entry(c))
			continue;
		c->entry = churn_entries_match(&r->entries, c->id, &c->from, &c->to);
		if (!c->entry && c->old_id) /* a rename: logged under either id */
			c->entry = churn_entries_match(&r->entries, c->old_id, &c->from, &c->to);
		if (!c->entry)
			r->unlogged++;
	}
}

const char *churn_kind_name(const churn_change *c)
{
	if (c->kind == CHURN_ADDED)
		return "added";
	if (c->kind == CHURN_REMOVED)
		return "removed";
	if (c->tier_changed && c->mechanism_changed)
		return "tier+mechanism";
	if (c->tier_changed || c->mechanism_changed)
		return c->tier_changed ? "tier" : "mechanism";
	if (c->scope_changed)
		return "scope";
	return c->old_id ? "renamed" : "status";
}

void churn_offering_note(char *buf, size_t len, const churn_change *c)
{
	int n = snprintf(buf, len, "%s%s", c->old_id ? "; renamed from " : "",
	                 c->old_id ? c->old_id : "");
	if (c->status_changed && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; status %s \u2192 %s", c->old_status,
		         c->new_status);
}

/* "modal: GVISOR/gvisor -> MICROVM/firecracker" and friends. */
static void change_format(char *buf, size_t len, const churn_change *c)
{
	char a[128], b[128];
	churn_claim_spell(a, sizeof a, &c->from, c->scope_changed);
	churn_claim_spell(b, sizeof b, &c->to, c->scope_changed);
	if (c->kind == CHURN_ADDED)
		snprintf(buf, len, "%s: added as %s", c->id, b);
	else if (c->kind == CHURN_REMOVED)
		snprintf(buf, len, "%s: removed (was %s)", c->id, a);
	else if (churn_change_needs_entry(c))
		snprintf(buf, len, "%s: %s \u2192 %s", c->id, a, b);
	else {
		char note[160];
		churn_offering_note(note, sizeof note, c);
		snprintf(buf, len, "%s: %s (%s)", c->id, b, note[0] ? note + 2 : "unchanged");
	}
}

static void put_sanitized(FILE *f, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
static void put_sanitized(FILE *f, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	isotier__fputs_sanitized(f, buf);
}

void churn_report_text(FILE *f, const churn_report *r)
{
	if (r->version[0])
		put_sanitized(f, "release %s: ", r->version);
	if (r->since_spec[0])
		put_sanitized(f, "catalogue churn %s (%.12s) .. %s%s%.12s%s\n", r->since_spec,
		              r->since_id, r->until_spec, r->until_id[0] ? " (" : "", r->until_id,
		              r->until_id[0] ? ")" : "");
	else
		put_sanitized(f, "catalogue churn (empty catalogue) .. %s%s%.12s%s\n",
		              r->until_spec, r->until_id[0] ? " (" : "", r->until_id,
		              r->until_id[0] ? ")" : "");
	if (r->churn_md_from[0])
		put_sanitized(f, "CHURN.md read from %s%s\n", r->churn_md_from,
		              r->entries_found ? "" : ": not there");
	size_t n_changed = 0;
	for (size_t i = 0; i < r->changes.n; i++) {
		const churn_change *c = &r->changes.items[i];
		char what[512];
		change_format(what, sizeof what, c);
		if (c->kind != CHURN_CHANGED) {
			char claim[96];
			churn_claim_format(claim, sizeof claim,
			                   c->kind == CHURN_ADDED ? &c->to : &c->from);
			put_sanitized(f, "  %-8s %s: %s (%s)\n", churn_kind_name(c), c->id, claim,
			              c->new_path ? c->new_path : c->old_path);
			continue;
		}
		if (!churn_change_needs_entry(c)) {
			put_sanitized(f, "  %-8s %s\n", churn_kind_name(c), what);
			continue;
		}
		n_changed++;
		if (c->old_id || c->status_changed) {
			char note[160];
			churn_offering_note(note, sizeof note, c);
			put_sanitized(f, "  (%s)\n", note + 2);
		}
		if (strcmp(c->old_path, c->new_path))
			put_sanitized(f, "  (renamed %s -> %s)\n", c->old_path, c->new_path);
		if (c->entry)
			put_sanitized(f, "  logged   %s (CHURN.md:%u)\n", what, c->entry->line);
		else
			put_sanitized(f,
			              "  UNLOGGED %s: add to CHURN.md \"### YYYY-MM-DD \u2014 %s\" "
			              "with '- Source: URL' and '- Note: text'\n",
			              what, what);
		/* Entries for the same provider that do not match: likely a typo. */
		for (size_t k = 0; !c->entry && k < r->entries.n; k++) {
			const churn_entry *e = &r->entries.items[k];
			if (strcmp(e->id, c->id))
				continue;
			char a[128], b[128];
			churn_claim_spell(a, sizeof a, &e->from, e->from.scope_given);
			churn_claim_spell(b, sizeof b, &e->to, e->to.scope_given);
			put_sanitized(
			    f, "           (CHURN.md:%u logs %s: %s \u2192 %s, not this change)\n",
			    e->line, e->id, a, b);
		}
	}
	for (size_t i = 0; i < r->n_checks; i++)
		if (r->checks[i].failure)
			put_sanitized(f, "  FAILED   %s: %s\n", r->checks[i].name,
			              r->checks[i].failure);
	put_sanitized(f, "%zu provider change%s, %zu tier/mechanism/scope change%s, %zu unlogged",
	              r->changes.n, r->changes.n == 1 ? "" : "s", n_changed,
	              n_changed == 1 ? "" : "s", r->unlogged);
	if (r->version[0])
		put_sanitized(f, "; %zu changelog check%s, %zu failed", r->n_checks,
		              r->n_checks == 1 ? "" : "s", r->n_failed);
	if (!r->entries_found)
		put_sanitized(f, "; no CHURN.md at %s", r->until_spec);
	fputc('\n', f);
}

static cJSON *claim_json(const churn_claimref *c, const char *path, const char *status)
{
	if (!path)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "tier", isotier_tier_name(c->tier));
	cJSON_AddStringToObject(o, "mechanism", c->mechanism);
	if (c->scope[0])
		cJSON_AddStringToObject(o, "scope", c->scope);
	else
		cJSON_AddNullToObject(o, "scope");
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddStringToObject(o, "status", status[0] ? status : "current");
	return o;
}

cJSON *churn_change_json(const churn_change *c, bool with_commit)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "id", c->id);
	cJSON_AddStringToObject(o, "kind", churn_kind_name(c));
	if (c->old_id)
		cJSON_AddStringToObject(o, "renamed_from", c->old_id);
	cJSON_AddItemToObject(o, "old", claim_json(&c->from, c->old_path, c->old_status));
	cJSON_AddItemToObject(o, "new", claim_json(&c->to, c->new_path, c->new_status));
	if (with_commit) {
		char date[32];
		time_t t = (time_t)c->time;
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
		cJSON_AddStringToObject(o, "commit", c->commit);
		cJSON_AddStringToObject(o, "date", date);
	} else if (churn_change_needs_entry(c)) {
		cJSON_AddBoolToObject(o, "logged", c->entry != NULL);
		if (c->entry)
			cJSON_AddNumberToObject(o, "churn_md_line", c->entry->line);
	}
	return o;
}

static int print_json(FILE *f, cJSON *root)
{
	char *s = root ? isotier__json_print(root, true) : NULL;
	cJSON_Delete(root);
	if (!s)
		return ISOTIER_ENOMEM;
	fputs(s, f);
	fputc('\n', f);
	free(s);
	return 0;
}

int churn_report_json(FILE *f, const churn_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *list = cJSON_CreateArray();
	if (!o || !list) {
		cJSON_Delete(o);
		cJSON_Delete(list);
		return ISOTIER_ENOMEM;
	}
	if (r->version[0])
		cJSON_AddStringToObject(o, "version", r->version);
	if (r->since_spec[0]) {
		cJSON_AddStringToObject(o, "since", r->since_spec);
		cJSON_AddStringToObject(o, "since_commit", r->since_id);
	} else {
		cJSON_AddNullToObject(o, "since");
	}
	cJSON_AddStringToObject(o, "until", r->until_spec);
	if (r->until_id[0]) /* --worktree: no commit */
		cJSON_AddStringToObject(o, "until_commit", r->until_id);
	else
		cJSON_AddNullToObject(o, "until_commit");
	cJSON_AddBoolToObject(o, "churn_md_found", r->entries_found);
	cJSON_AddStringToObject(o, "churn_md_from", r->churn_md_from);
	cJSON_AddNumberToObject(o, "churn_md_entries", (double)r->entries.n);
	for (size_t i = 0; i < r->changes.n; i++)
		cJSON_AddItemToArray(list, churn_change_json(&r->changes.items[i], false));
	cJSON_AddItemToObject(o, "changes", list);
	cJSON_AddNumberToObject(o, "unlogged", (double)r->unlogged);
	if (r->version[0]) {
		cJSON *checks = cJSON_AddArrayToObject(o, "checks");
		for (size_t i = 0; checks && i < r->n_checks; i++) {
			cJSON *c = cJSON_CreateObject();
			if (!c)
				break;
			cJSON_AddStringToObject(c, "name", r->checks[i].name);
			if (r->checks[i].failure)
				cJSON_AddStringToObject(c, "failure", r->checks[i].failure);
			else
				cJSON_AddNullToObject(c, "failure");
			cJSON_AddItemToArray(checks, c);
		}
	}
	cJSON_AddBoolToObject(o, "ok", r->unlogged == 0 && r->n_failed == 0);
	return print_json(f, o);
}

/* XML attribute/text: markup escaped, characters XML 1.0 forbids dropped. */
static void put_xml(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (*p >= 0x20 || *p == '\t' || *p == '\n')
				fputc(*p, f);
			else
				fprintf(f, "\\x%02x", *p);
		}
	}
}

static void junit_case(FILE *f, const char *classname, const char *name, const char *failure)
{
	fputs("    <testcase classname=\"", f);
	put_xml(f, classname);
	fputs("\" name=\"", f);
	put_xml(f, name);
	if (!failure) {
		fputs("\"/>\n", f);
		return;
	}
	fputs("\">\n      <failure message=\"", f);
	put_xml(f, failure);
	fputs("\"/>\n    </testcase>\n", f);
}

int churn_report_junit(FILE *f, const void *report)
{
	const churn_report *r = report;
	size_t tests = r->changes.n + r->n_checks;
	fprintf(
	    f,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
	    "  <testsuite name=\"isotier churn\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n",
	    tests, r->unlogged + r->n_failed);
	for (size_t i = 0; i < r->changes.n; i++) {
		const churn_change *c = &r->changes.items[i];
		char name[512], failure[1400];
		change_format(name, sizeof name, c);
		const char *fail = NULL;
		if (churn_change_needs_entry(c) && !c->entry) {
			snprintf(
			    failure, sizeof failure,
			    "unlogged %s change: no CHURN.md entry for %s; add to CHURN.md "
			    "\"### YYYY-MM-DD \u2014 %s\" with '- Source: URL' and '- Note: text'",
			    churn_kind_name(c), name, name);
			fail = failure;
		}
		junit_case(f, "churn", name, fail);
	}
	for (size_t i = 0; i < r->n_checks; i++)
		junit_case(f, "release", r->checks[i].name, r->checks[i].failure);
	fputs("  </testsuite>\n</testsuites>\n", f);
	return 0;
}
