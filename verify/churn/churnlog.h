/* SPDX-License-Identifier: Apache-2.0 */
/*
 * churnlog.h - the two human-first, machine-checked logs of tier churn:
 * CHURN.md (one entry per tier or mechanism change of a provider) and the
 * "### Churn" lists of CHANGELOG.md's release sections. Formats: the top of
 * CHURN.md and runbook/release-gate.md. Both are hostile input: size-bounded,
 * strictly parsed, every error names the file and line.
 */
#ifndef ISOTIER_CHURNLOG_H
#define ISOTIER_CHURNLOG_H

#include "../../reference/api/isotier_tool.h"

#include <stdbool.h>

#define CHURN_MD_MAX      (1024 * 1024) /* bytes of CHURN.md or CHANGELOG.md */
#define CHURN_LINE_MAX    4096          /* bytes per line */
#define CHURN_ENTRIES_MAX 10000         /* entries per file */
#define CHURN_ID_MAX      64            /* provider id, mechanism */
#define CHURN_URL_MAX     2048
#define CHURN_NOTE_MAX    2000
#define CHURN_SOURCES_MAX 16 /* "- Source:" lines per entry */

#define CHURN_SCOPE_MAX 24 /* the longest scope word (catalogue.h's ISOTIER_SCOPES) and NUL */

/* One claim: a tier, the mechanism that builds it, and between whom its
 * boundary holds (the catalogue's `scope`: part of the claim, so a change of
 * it is churn). scope "" is "the sources do not say". In a catalogue file
 * the scope is always given; in a CHURN.md heading only when written
 * (TIER/mechanism/scope, "-" for none): a side without one says nothing of
 * the scope, and matches only a change that leaves it as it was. */
typedef struct churn_claimref {
	isotier_tier tier;
	char mechanism[CHURN_ID_MAX + 1];
	char scope[CHURN_SCOPE_MAX];
	bool scope_given;
} churn_claimref;

typedef struct churn_entry {
	unsigned line; /* 1-based line of the heading (or changelog bullet) */
	char date[11]; /* YYYY-MM-DD */
	char id[CHURN_ID_MAX + 1];
	churn_claimref from, to;
	char **sources; /* URLs; empty for changelog bullets */
	size_t n_sources;
	char *note; /* NULL for changelog bullets */
} churn_entry;

typedef struct churn_entries {
	churn_entry *items;
	size_t n, cap;
} churn_entries;

/*
 * Parses "2026-11-30 — modal: GVISOR/gvisor → MICROVM/firecracker" (also
 * "--" for the dash and "->" for the arrow). name:line go into errors.
 * Returns 0 or ISOTIER_EDATA.
 */
int churn_heading_parse(churn_entry *out, const char *s, const char *name, unsigned line,
                        isotier_error *err);

/* "TIER/mechanism", with "/scope" when c has one, or "/-" when it has none
 * and scope is asked for (a heading's side that writes the scope, a change
 * of scope). */
void churn_claim_spell(char *buf, size_t len, const churn_claimref *c, bool scope);

/* Formats an entry's heading text (the canonical spelling) into buf. */
void churn_heading_format(char *buf, size_t len, const churn_entry *e);

/* Parses a whole CHURN.md. Returns 0, ISOTIER_EDATA or ISOTIER_ENOMEM. */
int churn_md_parse(churn_entries *out, const char *text, size_t len, const char *name,
                   isotier_error *err);
void churn_entries_clear(churn_entries *e);

/* Same provider, same old and new claim (date, sources, note ignored). */
bool churn_entry_same_change(const churn_entry *a, const churn_entry *b);
bool churn_claim_eq(const churn_claimref *a, const churn_claimref *b);
/* Same tier and mechanism, and the same scope unless either side leaves it
 * unsaid (a heading written without one). */
bool churn_claim_matches(const churn_claimref *a, const churn_claimref *b);

/*
 * Finds the entry that logs id going from -> to: an entry with exactly that
 * change, else the first entry of a chain of entries for id leading from
 * `from` to `to` (a provider that moved twice between the two revisions).
 * A change of scope is logged only by one entry that writes the new scope.
 * NULL when the change is unlogged.
 */
const churn_entry *churn_entries_match(const churn_entries *e, const char *id,
                                       const churn_claimref *from, const churn_claimref *to);

/* ---- CHANGELOG.md (Keep a Changelog) ---------------------------------- */

typedef struct changelog_section {
	char version[64]; /* "Unreleased" or "0.1.0" */
	char date[11];    /* "" for Unreleased */
	unsigned line;
	bool has_churn;     /* a "### Churn" subsection is present */
	unsigned none_line; /* a "- None" bullet in it (0: none) */
	churn_entries churn;
} changelog_section;

typedef struct changelog {
	changelog_section *items;
	size_t n, cap;
} changelog;

int changelog_parse(changelog *out, const char *text, size_t len, const char *name,
                    isotier_error *err);
const changelog_section *changelog_find(const changelog *c, const char *version);
void changelog_clear(changelog *c);

/* "0.1.0" / "v0.1.0" -> numbers; false when not MAJOR.MINOR.PATCH. */
bool churn_semver_parse(const char *s, unsigned long v[3]);
int churn_semver_cmp(const unsigned long a[3], const unsigned long b[3]);

#endif
