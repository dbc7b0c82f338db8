/* SPDX-License-Identifier: Apache-2.0 */
/* churnlog.c - strict parsers for CHURN.md and CHANGELOG.md (format: CHURN.md). */
#include "churnlog.h"

#include <ctype.h>
#include <string.h>

#define EM_DASH "\xe2\x80\x94"
#define ARROW   "\xe2\x86\x92"

static int data_err(isotier_error *err, const char *name, unsigned line, const char *fmt, ...)
    ISOTIER_PRINTF(4, 5);
static int data_err(isotier_error *err, const char *name, unsigned line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return isotier__error_set(err, ISOTIER_EDATA, 0, "%s:%u: %s", name, line, msg);
}

static bool is_ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* [a-z0-9][a-z0-9-]* of at most CHURN_ID_MAX bytes, at s; returns its length (0: none). */
static size_t ident_span(const char *s)
{
	if (!is_ident_char(*s) || *s == '-')
		return 0;
	size_t n = 0;
	while (is_ident_char(s[n]))
		n++;
	return n;
}

static bool valid_date(const char *s)
{
	for (int i = 0; i < 10; i++) {
		if (i == 4 || i == 7) {
			if (s[i] != '-')
				return false;
		} else if (!isdigit((unsigned char)s[i])) {
			return false;
		}
	}
	int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (y < 1970 || m < 1 || m > 12 || d < 1)
		return false;
	int max = mdays[m - 1];
	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		max = 29;
	return d <= max;
}

/* TIER/mechanism[/scope] at *p; advances *p. */
static int claim_parse(churn_claimref *out, const char **p, const char *name, unsigned line,
                       const char *which, isotier_error *err)
{
	const char *s = *p;
	size_t t = 0;
	while (s[t] >= 'A' && s[t] <= 'Z')
		t++;
	char tier[16] = "";
	if (t == 0 || t >= sizeof tier || s[t] != '/')
		return data_err(err, name, line,
		                "%s claim: expected TIER/mechanism (e.g. GVISOR/gvisor)", which);
	memcpy(tier, s, t);
	tier[t] = '\0';
	int tv;
	for (tv = ISOTIER_UNKNOWN; tv <= ISOTIER_MICROVM; tv++)
		if (!strcmp(tier, isotier_tier_name((isotier_tier)tv)))
			break;
	if (tv > ISOTIER_MICROVM)
		return data_err(err, name, line,
		                "%s claim: unknown tier '%s' (UNKNOWN, CONTAINER, GVISOR, MICROVM)",
		                which, tier);
	out->tier = (isotier_tier)tv;
	s += t + 1;
	size_t m = ident_span(s);
	if (m == 0 || m > CHURN_ID_MAX)
		return data_err(
		    err, name, line,
		    "%s claim: mechanism must match [a-z0-9][a-z0-9-]* (at most %d bytes)", which,
		    CHURN_ID_MAX);
	memcpy(out->mechanism, s, m);
	out->mechanism[m] = '\0';
	s += m;
	if (*s == '/') { /* the scope: a word of the catalogue's vocabulary, "-" for none */
		size_t k = s[1] == '-' && (s[2] == '\0' || s[2] == ' ') ? 1 : ident_span(s + 1);
		char scope[CHURN_SCOPE_MAX] = "";
		if (k > 0 && k < sizeof scope)
			memcpy(scope, s + 1, k);
		if (strcmp(scope, "-") && !isotier__scope_valid(scope))
			return data_err(err, name, line,
			                "%s claim: scope must be per-sandbox, between-tenants, "
			                "between-accounts or - (none)",
			                which);
		snprintf(out->scope, sizeof out->scope, "%s", strcmp(scope, "-") ? scope : "");
		out->scope_given = true;
		s += 1 + k;
	}
	*p = s;
	return 0;
}

int churn_heading_parse(churn_entry *out, const char *s, const char *name, unsigned line,
                        isotier_error *err)
{
	memset(out, 0, sizeof *out);
	out->line = line;
	if (strlen(s) < 10 || !valid_date(s))
		return data_err(err, name, line,
		                "expected a date YYYY-MM-DD at the start of the entry");
	memcpy(out->date, s, 10);
	const char *p = s + 10;
	if (!strncmp(p, " " EM_DASH " ", 5))
		p += 5;
	else if (!strncmp(p, " -- ", 4))
		p += 4;
	else
		return data_err(err, name, line, "expected ' \u2014 ' (or ' -- ') after the date");
	size_t n = ident_span(p);
	if (n == 0 || n > CHURN_ID_MAX || p[n] != ':' || p[n + 1] != ' ')
		return data_err(
		    err, name, line,
		    "expected a provider id [a-z0-9][a-z0-9-]* (at most %d bytes) then ': '",
		    CHURN_ID_MAX);
	memcpy(out->id, p, n);
	out->id[n] = '\0';
	p += n + 2;
	if (claim_parse(&out->from, &p, name, line, "old", err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	if (!strncmp(p, " " ARROW " ", 5))
		p += 5;
	else if (!strncmp(p, " -> ", 4))
		p += 4;
	else
		return data_err(err, name, line,
		                "expected ' \u2192 ' (or ' -> ') between the claims");
	if (claim_parse(&out->to, &p, name, line, "new", err) < 0)
		return err ? err->code : ISOTIER_EDATA;
	if (*p)
		return data_err(err, name, line, "unexpected text after the new claim");
	if (churn_claim_eq(&out->from, &out->to))
		return data_err(err, name, line, "old and new claims are the same: not a change");
	return 0;
}

void churn_claim_spell(char *buf, size_t len, const churn_claimref *c, bool scope)
{
	snprintf(buf, len, "%s/%s%s%s", isotier_tier_name(c->tier), c->mechanism,
	         scope || c->scope[0] ? "/" : "",
	         c->scope[0] ? c->scope
	         : scope     ? "-"
	                     : "");
}

void churn_heading_format(char *buf, size_t len, const churn_entry *e)
{
	char a[128], b[128];
	churn_claim_spell(a, sizeof a, &e->from, e->from.scope_given);
	churn_claim_spell(b, sizeof b, &e->to, e->to.scope_given);
	snprintf(buf, len, "%s \u2014 %s: %s \u2192 %s", e->date, e->id, a, b);
}

bool churn_claim_eq(const churn_claimref *a, const churn_claimref *b)
{
	return a->tier == b->tier && !strcmp(a->mechanism, b->mechanism) &&
	       a->scope_given == b->scope_given && !strcmp(a->scope, b->scope);
}

bool churn_claim_matches(const churn_claimref *a, const churn_claimref *b)
{
	return a->tier == b->tier && !strcmp(a->mechanism, b->mechanism) &&
	       (!a->scope_given || !b->scope_given || !strcmp(a->scope, b->scope));
}

bool churn_entry_same_change(const churn_entry *a, const churn_entry *b)
{
	return !strcmp(a->id, b->id) && churn_claim_eq(&a->from, &b->from) &&
	       churn_claim_eq(&a->to, &b->to);
}

static void entry_clear(churn_entry *e)
{
	for (size_t i = 0; i < e->n_sources; i++)
		free(e->sources[i]);
	free(e->sources);
	free(e->note);
	e->sources = NULL;
	e->note = NULL;
	e->n_sources = 0;
}

void churn_entries_clear(churn_entries *e)
{
	for (size_t i = 0; i < e->n; i++)
		entry_clear(&e->items[i]);
	free(e->items);
	memset(e, 0, sizeof *e);
}

static int entries_push(churn_entries *e, const churn_entry *x, const char *name,
                        isotier_error *err)
{
	if (e->n >= CHURN_ENTRIES_MAX)
		return data_err(err, name, x->line, "more than %d entries", CHURN_ENTRIES_MAX);
	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 16;
		churn_entry *items = realloc(e->items, ncap * sizeof *items);
		if (!items)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory",
			                          name);
		e->items = items;
		e->cap = ncap;
	}
	e->items[e->n++] = *x;
	return 0;
}

/* A change from -> to logged by one entry, or by a chain of entries of the
 * same provider; visited bounds the search by the number of entries. */
static const churn_entry *chain_find(const churn_entries *e, const char *id,
                                     const churn_claimref *from, const churn_claimref *to,
                                     bool *visited)
{
	for (size_t i = 0; i < e->n; i++) {
		const churn_entry *x = &e->items[i];
		if (visited[i] || strcmp(x->id, id) || !churn_claim_matches(&x->from, from))
			continue;
		visited[i] = true;
		if (churn_claim_matches(&x->to, to) || chain_find(e, id, &x->to, to, visited))
			return x;
	}
	return NULL;
}

const churn_entry *churn_entries_match(const churn_entries *e, const char *id,
                                       const churn_claimref *from, const churn_claimref *to)
{
	/* A scope that changed needs an entry that writes the new one: a heading
	 * without a scope says nothing of it. */
	bool rescoped = strcmp(from->scope, to->scope) != 0;
	for (size_t i = 0; i < e->n; i++)
		if (!strcmp(e->items[i].id, id) && churn_claim_matches(&e->items[i].from, from) &&
		    churn_claim_matches(&e->items[i].to, to) &&
		    (!rescoped || e->items[i].to.scope_given))
			return &e->items[i];
	if (e->n == 0 || rescoped)
		return NULL;
	cleanup_free bool *visited = calloc(e->n, sizeof *visited);
	return visited ? chain_find(e, id, from, to, visited) : NULL;
}

/* ---- line reader: bounded, UTF-8, no control characters --------------- */

typedef struct line_reader {
	const char *text, *name;
	size_t len, pos;
	unsigned lineno;
	char buf[CHURN_LINE_MAX + 1];
} line_reader;

/* Next line into r->buf (CR and trailing blanks stripped). 1: a line, 0: end, <0: error. */
static int next_line(line_reader *r, isotier_error *err)
{
	if (r->pos >= r->len)
		return 0;
	r->lineno++;
	const char *start = r->text + r->pos;
	const char *nl = memchr(start, '\n', r->len - r->pos);
	size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;
	r->pos += n + (nl ? 1 : 0);
	if (n > CHURN_LINE_MAX)
		return data_err(err, r->name, r->lineno, "line longer than %d bytes",
		                CHURN_LINE_MAX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)start[i];
		if (c == '\0')
			return data_err(err, r->name, r->lineno, "NUL byte");
		if ((c < 0x20 && c != '\t' && !(c == '\r' && i == n - 1)) || c == 0x7f)
			return data_err(err, r->name, r->lineno, "control character 0x%02x", c);
	}
	if (!isotier__utf8_valid(start, n))
		return data_err(err, r->name, r->lineno, "invalid UTF-8");
	while (n > 0 && (start[n - 1] == '\r' || start[n - 1] == ' ' || start[n - 1] == '\t'))
		n--;
	memcpy(r->buf, start, n);
	r->buf[n] = '\0';
	return 1;
}

static int reader_init(line_reader *r, const char *text, size_t len, const char *name,
                       isotier_error *err)
{
	memset(r, 0, sizeof *r);
	r->text = text;
	r->len = len;
	r->name = name;
	if (len > CHURN_MD_MAX)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "%s: larger than %d bytes", name,
		                          CHURN_MD_MAX);
	return 0;
}

static bool is_fence(const char *s)
{
	return !strncmp(s, "```", 3) || !strncmp(s, "~~~", 3);
}

/* ---- CHURN.md ---------------------------------------------------------- */

static int finish_entry(churn_entries *out, churn_entry *cur, bool *open, const char *name,
                        isotier_error *err)
{
	if (!*open)
		return 0;
	*open = false;
	if (cur->n_sources == 0 || !cur->note) {
		int rc = data_err(err, name, cur->line,
		                  "entry for %s needs a '- Source: URL' and a '- Note: text' line",
		                  cur->id);
		entry_clear(cur);
		return rc;
	}
	for (size_t i = 0; i < out->n; i++)
		if (churn_entry_same_change(&out->items[i], cur) &&
		    !strcmp(out->items[i].date, cur->date)) {
			int rc = data_err(err, name, cur->line, "duplicate of the entry at line %u",
			                  out->items[i].line);
			entry_clear(cur);
			return rc;
		}
	if (entries_push(out, cur, name, err) < 0) {
		entry_clear(cur);
		return err ? err->code : ISOTIER_ENOMEM;
	}
	memset(cur, 0, sizeof *cur);
	return 0;
}

static int add_source(churn_entry *cur, const char *v, const char *name, unsigned line,
                      isotier_error *err)
{
	size_t n = strlen(v);
	if (n >= 2 && v[0] == '<' && v[n - 1] == '>') {
		v++;
		n -= 2;
	}
	if (strncmp(v, "https://", 8) && strncmp(v, "http://", 7))
		return data_err(err, name, line, "Source must be an http(s) URL");
	if (n > CHURN_URL_MAX)
		return data_err(err, name, line, "Source URL longer than %d bytes", CHURN_URL_MAX);
	for (size_t i = 0; i < n; i++)
		if (v[i] == ' ' || v[i] == '\t' || v[i] == '<' || v[i] == '>' || v[i] == '"')
			return data_err(err, name, line,
			                "Source URL contains a space, quote or angle bracket");
	if (cur->n_sources >= CHURN_SOURCES_MAX)
		return data_err(err, name, line, "more than %d Source lines", CHURN_SOURCES_MAX);
	char **s = realloc(cur->sources, (cur->n_sources + 1) * sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	cur->sources = s;
	if (!(s[cur->n_sources] = strndup(v, n)))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	cur->n_sources++;
	return 0;
}

static int entry_body_line(churn_entry *cur, const char *s, const char *name, unsigned line,
                           isotier_error *err)
{
	if (!strncmp(s, "- Source: ", 10))
		return add_source(cur, s + 10, name, line, err);
	if (!strncmp(s, "- Note: ", 8)) {
		if (cur->note)
			return data_err(err, name, line, "a second Note line (one per entry)");
		if (strlen(s + 8) > CHURN_NOTE_MAX)
			return data_err(err, name, line, "Note longer than %d bytes",
			                CHURN_NOTE_MAX);
		if (!(cur->note = strdup(s + 8)))
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		return 0;
	}
	return data_err(
	    err, name, line,
	    "inside an entry only '- Source: URL', '- Note: text' and blank lines are allowed");
}

int churn_md_parse(churn_entries *out, const char *text, size_t len, const char *name,
                   isotier_error *err)
{
	memset(out, 0, sizeof *out);
	line_reader r;
	if (reader_init(&r, text, len, name, err) < 0)
		return ISOTIER_EDATA;
	churn_entry cur = {0};
	bool open = false, fence = false;
	int rc;
	while ((rc = next_line(&r, err)) > 0) {
		const char *s = r.buf;
		if (fence) {
			fence = !is_fence(s);
			continue;
		}
		if (is_fence(s)) {
			if ((rc = finish_entry(out, &cur, &open, name, err)) < 0)
				break;
			fence = true;
			continue;
		}
		if (s[0] == '#') {
			if ((rc = finish_entry(out, &cur, &open, name, err)) < 0)
				break;
			if (!strncmp(s, "### ", 4)) {
				if ((rc = churn_heading_parse(&cur, s + 4, name, r.lineno, err)) <
				    0)
					break;
				open = true;
			}
			continue;
		}
		if (open && s[0] && (rc = entry_body_line(&cur, s, name, r.lineno, err)) < 0)
			break;
	}
	if (rc == 0 && fence)
		rc = data_err(err, name, r.lineno, "unterminated code fence");
	if (rc == 0)
		rc = finish_entry(out, &cur, &open, name, err);
	if (rc < 0) {
		entry_clear(&cur);
		churn_entries_clear(out);
		return rc;
	}
	return 0;
}

/* ---- CHANGELOG.md ------------------------------------------------------ */

bool churn_semver_parse(const char *s, unsigned long v[3])
{
	if (*s == 'v')
		s++;
	for (int i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*s))
			return false;
		char *end;
		v[i] = strtoul(s, &end, 10);
		if (end - s > 9)
			return false;
		s = end;
		if (i < 2 && *s++ != '.')
			return false;
	}
	return *s == '\0';
}

int churn_semver_cmp(const unsigned long a[3], const unsigned long b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

void changelog_clear(changelog *c)
{
	for (size_t i = 0; i < c->n; i++)
		churn_entries_clear(&c->items[i].churn);
	free(c->items);
	memset(c, 0, sizeof *c);
}

const changelog_section *changelog_find(const changelog *c, const char *version)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->items[i].version, version))
			return &c->items[i];
	return NULL;
}

/* "## [Unreleased]" or "## [0.1.0] - 2026-12-02". */
static int section_parse(changelog_section *sec, const char *s, const char *name, unsigned line,
                         isotier_error *err)
{
	memset(sec, 0, sizeof *sec);
	sec->line = line;
	const char *close = strchr(s, ']');
	if (s[0] != '[' || !close || (size_t)(close - s - 1) >= sizeof sec->version)
		return data_err(err, name, line,
		                "expected '## [VERSION] - YYYY-MM-DD' or '## [Unreleased]'");
	memcpy(sec->version, s + 1, (size_t)(close - s - 1));
	sec->version[close - s - 1] = '\0';
	if (!strcmp(sec->version, "Unreleased")) {
		if (close[1])
			return data_err(err, name, line, "nothing may follow '## [Unreleased]'");
		return 0;
	}
	unsigned long v[3];
	if (!churn_semver_parse(sec->version, v) || sec->version[0] == 'v')
		return data_err(err, name, line, "version '%s' is not MAJOR.MINOR.PATCH",
		                sec->version);
	if (strncmp(close + 1, " - ", 3) || strlen(close + 4) != 10 || !valid_date(close + 4))
		return data_err(err, name, line, "expected ' - YYYY-MM-DD' after [%s]",
		                sec->version);
	memcpy(sec->date, close + 4, 10);
	return 0;
}

static int sections_push(changelog *c, changelog_section *sec, const char *name, isotier_error *err)
{
	if (changelog_find(c, sec->version))
		return data_err(err, name, sec->line, "a second section for [%s]", sec->version);
	if (c->n >= 10000)
		return data_err(err, name, sec->line, "too many sections");
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 8;
		changelog_section *items = realloc(c->items, ncap * sizeof *items);
		if (!items)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory",
			                          name);
		c->items = items;
		c->cap = ncap;
	}
	c->items[c->n++] = *sec;
	return 0;
}

/* A line of a "### Churn" list: "- <entry heading>" or "- None". */
static int churn_bullet(changelog_section *sec, const char *s, const char *name, unsigned line,
                        isotier_error *err)
{
	if (!s[0])
		return 0;
	if (!strcmp(s, "- None") || !strcmp(s, "- None.")) {
		if (!sec->none_line)
			sec->none_line = line;
		return 0;
	}
	if (s[0] == '[' && strstr(s, "]: "))
		return 0; /* a link reference definition */
	if (strncmp(s, "- ", 2))
		return data_err(
		    err, name, line,
		    "a '### Churn' list holds only '- <CHURN.md entry heading>' bullets");
	churn_entry e;
	if (churn_heading_parse(&e, s + 2, name, line, err) < 0)
		return ISOTIER_EDATA;
	return entries_push(&sec->churn, &e, name, err);
}

int changelog_parse(changelog *out, const char *text, size_t len, const char *name,
                    isotier_error *err)
{
	memset(out, 0, sizeof *out);
	line_reader r;
	if (reader_init(&r, text, len, name, err) < 0)
		return ISOTIER_EDATA;
	changelog_section cur;
	bool have = false, in_churn = false, fence = false;
	int rc;
	while ((rc = next_line(&r, err)) > 0) {
		const char *s = r.buf;
		if (fence || is_fence(s)) {
			fence = fence ? !is_fence(s) : true;
			continue;
		}
		if (!strncmp(s, "## ", 3)) {
			if (have && (rc = sections_push(out, &cur, name, err)) < 0)
				break;
			have = false;
			if ((rc = section_parse(&cur, s + 3, name, r.lineno, err)) < 0)
				break;
			have = true;
			in_churn = false;
		} else if (s[0] == '#') {
			in_churn = have && !strcmp(s, "### Churn");
			if (in_churn && cur.has_churn) {
				rc = data_err(err, name, r.lineno, "a second '### Churn' in [%s]",
				              cur.version);
				break;
			}
			if (in_churn)
				cur.has_churn = true;
		} else if (in_churn && (rc = churn_bullet(&cur, s, name, r.lineno, err)) < 0) {
			break;
		}
	}
	if (rc == 0 && have)
		rc = sections_push(out, &cur, name, err), have = rc < 0;
	if (rc < 0) {
		if (have)
			churn_entries_clear(&cur.churn);
		changelog_clear(out);
		return rc;
	}
	return 0;
}
