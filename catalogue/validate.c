/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate.c - the validator's rules over a loaded catalogue (FORMAT.md):
 * vocabulary, mechanism against tier, calendar dates never in the future,
 * source age, provider evidence for every tier above UNKNOWN, unique ids that
 * match their file names; per offering (v2): provider id, status with the
 * provider's words, renamed_from ids that are no longer in use.
 */
#include "catalogue.h"
#include "mechanism.h"

#include <string.h>
#include <time.h>

int isotier__mechanism_tier(isotier_tier *out, const char *mechanism)
{
	const isotier_mechanism *m = isotier__mechanism_find(mechanism);
	if (!m)
		return ISOTIER_EINVAL;
	*out = m->tier;
	return 0;
}

void isotier__today(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%d", &tm);
}

static bool id_valid(const char *id)
{
	if (!id || !((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= '0' && id[0] <= '9')))
		return false;
	size_t n = 0;
	for (const char *p = id; *p; p++, n++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return n <= 64;
}

static bool url_valid(const char *url)
{
	if (strncmp(url, "https://", 8) && strncmp(url, "http://", 7))
		return false;
	const char *host = url + (url[4] == 's' ? 8 : 7);
	if (!*host || *host == '/' || strlen(url) > 2048)
		return false;
	for (const unsigned char *p = (const unsigned char *)url; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '"' || *p == '<' || *p == '>' || *p == '\\')
			return false;
	return true;
}

struct vctx {
	isotier_findings *findings;
	const char *file;
	long today;
	int max_age;
};

/* Reports a malformed or future date; returns true when the date is usable. */
static bool check_date(struct vctx *v, const char *field, const char *date, long *days)
{
	if (!date) /* missing or mistyped: already reported by the parser */
		return false;
	if (isotier__date_days(days, date) < 0) {
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
		                      "'%.32s' is not a calendar date (YYYY-MM-DD)",
		                      date ? date : "");
		return false;
	}
	if (*days > v->today) {
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
		                      "%s is in the future", date);
		return false;
	}
	return true;
}

static void check_mechanism(struct vctx *v, const char *field, const char *mechanism,
                            isotier_tier tier)
{
	isotier_tier supports;
	if (!mechanism)
		return;
	if (isotier__mechanism_tier(&supports, mechanism) < 0) {
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
		                      "'%.40s' is not a mechanism in the vocabulary (FORMAT.md)",
		                      mechanism ? mechanism : "");
		return;
	}
	if (tier != ISOTIER_UNKNOWN && supports != tier)
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
		                      "mechanism '%s' contradicts tier %s (it supports %s)",
		                      mechanism, isotier_tier_name(tier),
		                      isotier_tier_name(supports));
}

/* Catalogue v2: provider grouping, status and its source, renamed_from. */
static void validate_offering(struct vctx *v, const isotier_provider *p)
{
	if (p->provider && !id_valid(p->provider))
		isotier__findings_add(
		    v->findings, ISOTIER_FINDING_ERROR, v->file, "provider",
		    "'%.64s' is not a provider id (^[a-z0-9][a-z0-9-]*$, at most 64)", p->provider);
	else if (!p->provider)
		isotier__findings_add(v->findings, ISOTIER_FINDING_WARNING, v->file, "provider",
		                      "no provider: the offering is grouped on its own");
	const char *st = p->status;
	bool inactive = st && (!strcmp(st, "deprecated") || !strcmp(st, "retired"));
	if (st && !inactive && strcmp(st, "current"))
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "status",
		                      "'%.40s' is not 'current', 'deprecated' or 'retired'", st);
	if (inactive && !p->has_status_source)
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "status_source",
		                      "required for status '%s': the provider's words, their date "
		                      "and URL",
		                      st);
	else if (!inactive && p->has_status_source && (!st || !strcmp(st, "current")))
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "status_source",
		                      "only a deprecated or retired offering has one");
	if (p->has_status_source) {
		const isotier_status_source *s = &p->status_source;
		long days;
		check_date(v, "status_source.date", s->date, &days);
		if (s->url && !url_valid(s->url))
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file,
			                      "status_source.url", "'%.80s' is not an http(s) URL",
			                      s->url);
		if (s->quote && !s->quote[0])
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file,
			                      "status_source.quote",
			                      "empty: the provider's own words are required");
	}
	for (size_t i = 0; i < p->n_renamed_from; i++) {
		const char *old = p->renamed_from[i];
		char field[64];
		snprintf(field, sizeof field, "renamed_from[%zu]", i);
		if (!old)
			continue;
		if (!id_valid(old))
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
			                      "'%.64s' is not an id", old);
		else if (p->id && !strcmp(old, p->id))
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
			                      "'%s' is this offering's own id", old);
		for (size_t j = 0; j < i; j++)
			if (p->renamed_from[j] && !strcmp(p->renamed_from[j], old))
				isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file,
				                      field, "'%.64s' is listed twice", old);
	}
}

/* An earlier id must not be in use again, nor claimed by two offerings: a
 * rename has to stay unambiguous for churn and for create(). */
static void validate_renames(const isotier_catalogue *c, isotier_findings *findings)
{
	for (size_t i = 0; i < c->n_providers; i++) {
		const isotier_provider *p = &c->providers[i];
		for (size_t k = 0; k < p->n_renamed_from; k++) {
			const char *old = p->renamed_from[k];
			char field[64];
			snprintf(field, sizeof field, "renamed_from[%zu]", k);
			const isotier_provider *now = old ? isotier__catalogue_find(c, old) : NULL;
			if (now && now != p)
				isotier__findings_add(findings, ISOTIER_FINDING_ERROR, p->file,
				                      field, "'%s' is still the id of %s", old,
				                      now->file);
			const isotier_provider *first =
			    old ? isotier__catalogue_find_renamed(c, old) : NULL;
			if (first && first != p)
				isotier__findings_add(findings, ISOTIER_FINDING_ERROR, p->file,
				                      field, "'%s' is also renamed_from of %s", old,
				                      first->file);
		}
	}
}

static void validate_provider(struct vctx *v, const isotier_provider *p)
{
	validate_offering(v, p);
	/* id: pattern, and equal to the file name stem. */
	if (!p->id) {
		/* reported by the parser */
	} else if (!id_valid(p->id)) {
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "id",
		                      "'%.64s' does not match ^[a-z0-9][a-z0-9-]*$ (at most 64)",
		                      p->id);
	} else {
		const char *base = strrchr(p->file, '/');
		base = base ? base + 1 : p->file;
		size_t stem = strlen(base) > 5 ? strlen(base) - 5 : strlen(base);
		if (strlen(p->id) != stem || strncmp(base, p->id, stem))
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "id",
			                      "'%s' does not match the file name '%.80s'", p->id,
			                      base);
	}
	if (p->kind && strcmp(p->kind, "remote") && strcmp(p->kind, "local"))
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "kind",
		                      "'%.40s' is not 'remote' or 'local'", p->kind);
	/* The link between a backend and its claim is the backend descriptor's
	 * catalogue_id, one way: a "backend" field is read (older catalogues
	 * load) and ignored. */
	if (p->backend)
		isotier__findings_add(
		    v->findings, ISOTIER_FINDING_WARNING, v->file, "backend",
		    "ignored: a backend names its catalogue entry (catalogue_id), "
		    "not the other way round");
	check_mechanism(v, "mechanism", p->mechanism, p->tier);
	long since;
	check_date(v, "since", p->since, &since);

	bool provider_evidence = false, any_provider = false;
	for (size_t i = 0; i < p->n_sources; i++) {
		const isotier_source *s = &p->sources[i];
		char field[64];
		snprintf(field, sizeof field, "sources[%zu].url", i);
		if (s->url && !url_valid(s->url))
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
			                      "'%.80s' is not an http(s) URL", s->url);
		bool is_provider = s->publisher && !strcmp(s->publisher, "provider");
		if (s->publisher && !is_provider && strcmp(s->publisher, "third-party")) {
			snprintf(field, sizeof field, "sources[%zu].publisher", i);
			isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, field,
			                      "'%.40s' is not 'provider' or 'third-party'",
			                      s->publisher);
		}
		long days;
		snprintf(field, sizeof field, "sources[%zu].published", i);
		if (s->published)
			check_date(v, field, s->published, &days);
		snprintf(field, sizeof field, "sources[%zu].retrieved", i);
		bool fresh = false;
		if (check_date(v, field, s->retrieved, &days)) {
			/* A sources check that found the passage unchanged renews
			 * the source as of that check (isotier__catalogue_renew). */
			const char *as_of = isotier__source_as_of(s);
			long age = v->today - days;
			char how[64] = "", expires[16] = "";
			if (as_of != s->retrieved && isotier__date_days(&days, as_of) == 0) {
				age = v->today - days;
				snprintf(how, sizeof how, " (passage re-verified %s)", as_of);
			}
			if (isotier__source_expires(s, v->max_age, expires, sizeof expires) < 0)
				snprintf(expires, sizeof expires, "?");
			if (age > v->max_age)
				isotier__findings_add(
				    v->findings, ISOTIER_FINDING_ERROR, v->file, field,
				    "retrieved %s%s, %ld days ago: older than the "
				    "maximum age of %d days (expired %s); re-verify the source",
				    s->retrieved, how, age, v->max_age, expires);
			else
				fresh = true;
			if (fresh && age > v->max_age - ISOTIER_EXPIRY_WARNING_DAYS)
				isotier__findings_add(
				    v->findings, ISOTIER_FINDING_WARNING, v->file, field,
				    "expires %s, in %ld days (retrieved %s%s, maximum age %d "
				    "days): a sources check that finds the passage unchanged "
				    "renews it, else re-verify the source",
				    expires, v->max_age - age, s->retrieved, how, v->max_age);
		}
		bool quoted = s->quote && s->quote[0];
		if (s->quote && !quoted) {
			snprintf(field, sizeof field, "sources[%zu].quote", i);
			isotier__findings_add(v->findings, ISOTIER_FINDING_WARNING, v->file, field,
			                      "empty quote: this source cannot be re-verified");
		}
		any_provider |= is_provider;
		provider_evidence |= is_provider && quoted && fresh;
	}
	if (p->tier != ISOTIER_UNKNOWN && !provider_evidence)
		isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file, "sources",
		                      "tier %s needs a source with publisher 'provider', a quote, "
		                      "retrieved within %d days",
		                      isotier_tier_name(p->tier), v->max_age);
	else if (p->n_sources && !any_provider)
		isotier__findings_add(
		    v->findings, ISOTIER_FINDING_WARNING, v->file, "sources",
		    "third-party-only evidence: it cannot lift the tier above UNKNOWN");

	long prev_until = 0;
	for (size_t i = 0; i < p->n_history; i++) {
		const isotier_prior_claim *h = &p->history[i];
		char field[64];
		snprintf(field, sizeof field, "history[%zu].mechanism", i);
		check_mechanism(v, field, h->mechanism, h->tier);
		snprintf(field, sizeof field, "history[%zu].until", i);
		long until;
		if (check_date(v, field, h->until, &until)) {
			if (i > 0 && prev_until && until > prev_until)
				isotier__findings_add(v->findings, ISOTIER_FINDING_ERROR, v->file,
				                      field, "history is not newest first");
			prev_until = until;
		}
	}
}

void isotier__catalogue_validate(const isotier_catalogue *c, const char *today, int max_age_days,
                                 isotier_findings *findings)
{
	char now[16];
	if (!today) {
		isotier__today(now, sizeof now);
		today = now;
	}
	struct vctx v = {.findings = findings,
	                 .max_age =
	                     max_age_days > 0 ? max_age_days : ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS};
	if (isotier__date_days(&v.today, today) < 0) {
		isotier__findings_add(findings, ISOTIER_FINDING_ERROR, c->dir, "",
		                      "today '%.32s' is not a calendar date", today);
		return;
	}
	for (size_t i = 0; i < c->n_providers; i++) {
		const isotier_provider *p = &c->providers[i];
		v.file = p->file;
		validate_provider(&v, p);
		/* Providers are sorted by id: collisions are neighbours. */
		if (!p->id)
			continue;
		for (size_t j = i;
		     j > 0 && c->providers[j - 1].id && !strcmp(c->providers[j - 1].id, p->id); j--)
			isotier__findings_add(findings, ISOTIER_FINDING_ERROR, p->file, "id",
			                      "'%s' is also the id of %s", p->id,
			                      c->providers[j - 1].file);
		for (size_t j = i + 1;
		     j < c->n_providers && c->providers[j].id && !strcmp(c->providers[j].id, p->id);
		     j++)
			isotier__findings_add(findings, ISOTIER_FINDING_ERROR, p->file, "id",
			                      "'%s' is also the id of %s", p->id,
			                      c->providers[j].file);
	}
	validate_renames(c, findings);
}
