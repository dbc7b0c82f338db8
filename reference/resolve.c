/* resolve.c - the tier a backend can defend, and why not more. */
#include "resolve.h"
#include "history.h"
#include "../base/verdict.h"
#include "../catalogue/catalogue.h"

#include <errno.h>
#include <string.h>

#define PROVIDER_FILE_MAX (256 * 1024)

/* Days from an ISO date or timestamp to today (negative when in the future;
 * a large number for an unreadable date, so it counts as stale). */
static int days_since(const char *when, const char *today)
{
	long then, now;
	if (isotier_date_part_days(&then, when) < 0 || isotier_date_days(&now, today) < 0)
		return 1 << 20;
	return (int)(now - then);
}

static void downgrade(isotier_resolution *r, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
static void downgrade(isotier_resolution *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof r->reason, fmt, ap);
	va_end(ap);
	r->resolved = ISOTIER_UNKNOWN;
}

/* Reads and validates the backend's own catalogue entry only: one small file,
 * so a refusal stays cheap. Returns 1 when the claim stands. */
static int resolve_claim(isotier_resolution *r, const char *dir, const char *id, int max_age,
			 const char *today)
{
	char path[4096], current[72];
	id = isotier_catalogue_current_id(current, sizeof current, dir, id); /* renamed_from */
	snprintf(path, sizeof path, "%s/%s.json", dir, id);
	cleanup_free char *json = NULL;
	size_t len = 0;
	isotier_error ferr = {0};
	if (isotier_read_file(&json, &len, path, PROVIDER_FILE_MAX, &ferr) < 0) {
		downgrade(r, "no usable catalogue entry: %s", ferr.message);
		return 0;
	}
	isotier_findings findings = {0};
	isotier_provider p = {0};
	int ok = 1;
	if (isotier_provider_parse(&p, json, len, path, &findings) == 0) {
		snprintf(r->provider_id, sizeof r->provider_id, "%s", p.id ? p.id : id);
		r->claimed = p.tier;
		snprintf(r->mechanism, sizeof r->mechanism, "%s", p.mechanism ? p.mechanism : "");
		isotier_catalogue one = {.dir = (char *)dir, .providers = &p, .n_providers = 1};
		isotier_catalogue_validate(&one, today, max_age, &findings);
		const isotier_source *src = isotier_provider_best_source(&p);
		if (src && src->retrieved)
			snprintf(r->source_retrieved, sizeof r->source_retrieved, "%s", src->retrieved);
		const char *status = isotier_provider_status(&p);
		if (!strcmp(status, "deprecated"))
			snprintf(r->status, sizeof r->status, "deprecated since %.16s",
				 p.status_source.date ? p.status_source.date : "?");
		if (!strcmp(status, "retired")) {
			downgrade(r, "catalogue offering %s is retired", r->provider_id);
			ok = 0;
		} else if (r->claimed == ISOTIER_UNKNOWN) {
			downgrade(r, "the catalogue claims UNKNOWN for %s", r->provider_id);
			ok = 0;
		} else if (!src) {
			downgrade(r, "catalogue entry %s has no provider-published source with a quote",
				  r->provider_id);
			ok = 0;
		} else if (days_since(src->retrieved, today) > max_age) {
			downgrade(r, "provider source of %s was retrieved %s, %d days ago (max %d)",
				  r->provider_id, src->retrieved, days_since(src->retrieved, today),
				  max_age);
			ok = 0;
		}
	} else {
		ok = 0;
	}
	if (ok) {
		for (size_t i = 0; i < findings.n; i++) {
			const isotier_finding *f = &findings.items[i];
			if (f->severity == ISOTIER_FINDING_ERROR) {
				downgrade(r, "catalogue entry does not validate: %s: %s: %s", f->file,
					  f->field, f->message);
				ok = 0;
				break;
			}
		}
	} else if (r->reason[0] == '\0' && findings.n > 0) {
		const isotier_finding *f = &findings.items[0];
		downgrade(r, "catalogue entry does not validate: %s: %s: %s", f->file, f->field,
			  f->message);
	}
	isotier_provider_clear(&p);
	isotier_findings_free(&findings);
	return ok;
}

/*
 * The defended tier never rises above what the latest trustworthy observation
 * showed of the sandbox's own boundary (its ceiling_tier: a VM counts only when
 * proven the sandbox's own). A claim above it is not defended at all.
 */
static int resolve_ceiling(isotier_resolution *r, isotier_history *h, const char *backend,
			   isotier_error *err)
{
	if (r->resolved == ISOTIER_UNKNOWN)
		return 0;
	cleanup_stmt sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
			       "SELECT ceiling_tier, observed_at, COALESCE(reason, '') FROM observations"
			       " WHERE backend = ?1 AND ceiling_tier IS NOT NULL"
			       " ORDER BY observed_at DESC, id DESC LIMIT 1",
			       -1, &s, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "read latest trustworthy observation");
	sqlite3_bind_text(s, 1, backend, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_ROW)
		return 0;
	const char *name = (const char *)sqlite3_column_text(s, 0);
	isotier_tier ceiling = ISOTIER_UNKNOWN;
	/* NONE (no boundary of its own) and anything unreadable allow nothing. */
	if (!name || isotier_tier_parse(&ceiling, name) < 0)
		ceiling = ISOTIER_UNKNOWN;
	if (!isotier_tier_satisfies(ceiling, r->resolved))
		downgrade(r, "the latest trustworthy observation of %s (%s) shows at most %s of its "
			     "own, below the claimed %s: %s",
			  backend, (const char *)sqlite3_column_text(s, 1), name ? name : "?",
			  isotier_tier_name(r->claimed), (const char *)sqlite3_column_text(s, 2));
	return 0;
}

/* A verdict set in SQL: "verdict IN " VERDICT_SET binds one parameter per
 * verdict from ?2 on (bind_verdicts), so the set comes from the verdict
 * table, never from a literal list kept here. */
#define VERDICT_SET "(?2, ?3, ?4, ?5, ?6, ?7)"
_Static_assert(VERDICT_COUNT == 6, "VERDICT_SET holds one parameter per verdict");

/* The names of the verdicts carrying flags; NULL (never IN) for the others. */
static void bind_verdicts(sqlite3_stmt *st, unsigned flags)
{
	for (int i = 0; i < VERDICT_COUNT; i++) {
		if (isotier_verdict_is((isotier_verdict)i, flags))
			sqlite3_bind_text(st, 2 + i, isotier_verdicts[i].name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 2 + i);
	}
}

/* Applies the history: a CONTRADICTED latest observation, or (when demanded)
 * the lack of a recent CONFIRMED/CONSISTENT one, voids the claim. */
static int resolve_history(isotier_resolution *r, const char *backend, const isotier_resolve_opts *o,
			   const char *today, isotier_error *err)
{
	if (!o->db_path || access(o->db_path, F_OK) != 0) {
		if (o->require_verified_days > 0)
			downgrade(r, "no verification history for %s (database %s absent) but a "
				     "verification within %d days is required",
				  backend, o->db_path ? o->db_path : "(none)", o->require_verified_days);
		return 0;
	}
	cleanup_history isotier_history *h = NULL;
	int rc = isotier_history_open_readonly(&h, o->db_path, err);
	if (rc < 0)
		return rc;
	cleanup_stmt sqlite3_stmt *latest = NULL;
	if (sqlite3_prepare_v2(isotier_history_db(h),
			       "SELECT verdict, observed_at, COALESCE(reason, '') FROM observations"
			       " WHERE backend = ?1"
			       /* Only a judgement counts: an INCONCLUSIVE or UNAVAILABLE run
				* (a probe that timed out, a runtime made to fail) must not
				* clear a contradiction. */
			       " AND verdict IN " VERDICT_SET
			       " ORDER BY observed_at DESC, id DESC LIMIT 1",
			       -1, &latest, NULL) != SQLITE_OK)
		return isotier_history_sql_error(h, err, "read latest observation");
	sqlite3_bind_text(latest, 1, backend, -1, SQLITE_STATIC);
	bind_verdicts(latest, VERDICT_JUDGES);
	if (sqlite3_step(latest) == SQLITE_ROW) {
		snprintf(r->latest_verdict, sizeof r->latest_verdict, "%s",
			 (const char *)sqlite3_column_text(latest, 0));
		snprintf(r->latest_at, sizeof r->latest_at, "%s",
			 (const char *)sqlite3_column_text(latest, 1));
		isotier_verdict latest_v;
		bool against = isotier_verdict_parse(&latest_v, r->latest_verdict) == 0 &&
			       isotier_verdict_is(latest_v, VERDICT_AGAINST);
		if (r->resolved != ISOTIER_UNKNOWN && against) {
			downgrade(r, "latest judged observation of %s (%s) CONTRADICTED the claim: %s", backend,
				  r->latest_at, (const char *)sqlite3_column_text(latest, 2));
			return 0;
		}
	}
	if ((rc = resolve_ceiling(r, h, backend, err)) < 0)
		return rc;
	if (o->require_verified_days > 0 && r->resolved != ISOTIER_UNKNOWN) {
		cleanup_stmt sqlite3_stmt *verified = NULL;
		/* Only an observation that proved the claimed tier counts: a
		 * CONFIRMED or CONSISTENT verdict whose ceiling reaches it (rows
		 * older than ceilings prove nothing). */
		if (sqlite3_prepare_v2(isotier_history_db(h),
				       "SELECT observed_at, ceiling_tier FROM observations WHERE backend = ?1"
				       " AND verdict IN " VERDICT_SET
				       " AND ceiling_tier IS NOT NULL"
				       " ORDER BY observed_at DESC, id DESC LIMIT 1",
				       -1, &verified, NULL) != SQLITE_OK)
			return isotier_history_sql_error(h, err, "read verified observation");
		sqlite3_bind_text(verified, 1, backend, -1, SQLITE_STATIC);
		bind_verdicts(verified, VERDICT_PROVES);
		isotier_tier ceiling = ISOTIER_UNKNOWN;
		bool found = sqlite3_step(verified) == SQLITE_ROW;
		if (found && isotier_tier_parse(&ceiling, (const char *)sqlite3_column_text(verified, 1)) < 0)
			ceiling = ISOTIER_UNKNOWN;
		if (!found || !isotier_tier_satisfies(ceiling, r->claimed))
			downgrade(r, "%s has never been CONFIRMED by an observation that proves %s, and a "
				     "verification within %d days is required",
				  backend, isotier_tier_name(r->claimed), o->require_verified_days);
		else if (days_since((const char *)sqlite3_column_text(verified, 0), today) >
			 o->require_verified_days)
			downgrade(r, "%s was last CONFIRMED at %s, more than %d days ago",
				  backend, (const char *)sqlite3_column_text(verified, 0),
				  o->require_verified_days);
	}
	return 0;
}

int isotier_resolve(isotier_resolution *out, const isotier_backend *backend,
		    const isotier_resolve_opts *opts, isotier_error *err)
{
	static const isotier_resolve_opts defaults = {0};
	const isotier_resolve_opts *o = opts ? opts : &defaults;
	memset(out, 0, sizeof *out);
	out->claimed = out->resolved = ISOTIER_UNKNOWN;
	char today[16];
	if (o->today)
		snprintf(today, sizeof today, "%s", o->today);
	else
		isotier_today(today, sizeof today);
	int max_age = o->max_source_age_days > 0 ? o->max_source_age_days
						 : ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS;
	const char *dir = o->catalogue_dir ? o->catalogue_dir : isotier_default_catalogue_dir();

	if (!backend->catalogue_id) {
		downgrade(out, "%s has no catalogue claim (the machine's provider is not known)",
			  backend->name);
		return 0;
	}
	if (resolve_claim(out, dir, backend->catalogue_id, max_age, today)) {
		out->resolved = out->claimed;
		snprintf(out->reason, sizeof out->reason,
			 "catalogue entry %s (%s), provider source retrieved %s%s%s", out->provider_id,
			 out->mechanism, out->source_retrieved, out->status[0] ? "; " : "", out->status);
	}
	int rc = resolve_history(out, backend->name, o, today, err);
	return rc < 0 ? isotier_error_prefix(err, "resolve %s", backend->name) : 0;
}
