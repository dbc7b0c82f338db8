/* SPDX-License-Identifier: Apache-2.0 */
/* resolve.c - the tier a backend can defend, and why not more. */
#include "resolve.h"
#include "../history/history.h"
#include "../history/renewal.h"
#include "../attestation/statement.h"
#include "../../base/verdict.h"
#include "../../catalogue/catalogue.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define PROVIDER_FILE_MAX (256 * 1024)

/* Days from an ISO date or timestamp to today (negative when in the future;
 * a large number for an unreadable date, so it counts as stale). */
static int days_since(const char *when, const char *today)
{
	long then, now;
	if (isotier__date_part_days(&then, when) < 0 || isotier__date_days(&now, today) < 0)
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
                         const char *today, isotier_history *h, char **digest, isotier_error *err)
{
	char path[4096], current[72];
	id = isotier__catalogue_current_id(current, sizeof current, dir, id); /* renamed_from */
	/* The operator's entry of that id, when there is one, replaces the
	 * packaged one (paths.h); a file there that cannot be read is refused,
	 * never passed over for the packaged claim. */
	const char *overlay = isotier__catalogue_overlay_dir();
	snprintf(path, sizeof path, "%s/%s.json", overlay ? overlay : "", id);
	if (!overlay || access(path, F_OK) != 0)
		snprintf(path, sizeof path, "%s/%s.json", dir, id);
	cleanup_free char *json = NULL;
	size_t len = 0;
	isotier_error ferr = {0};
	if (isotier__read_file(&json, &len, path, PROVIDER_FILE_MAX, &ferr) < 0) {
		downgrade(r, "no usable catalogue entry: %s", ferr.message);
		return 0;
	}
	isotier_findings findings = {0};
	isotier_provider p = {0};
	int ok = 1;
	if (isotier__provider_parse(&p, json, len, path, &findings) == 0) {
		snprintf(r->provider_id, sizeof r->provider_id, "%s", p.id ? p.id : id);
		r->claimed = p.tier;
		snprintf(r->mechanism, sizeof r->mechanism, "%s", p.mechanism ? p.mechanism : "");
		/* A passage the weekly sources check found unchanged renews its
		 * source (renewal.h); without a history, none is renewed. */
		if (h && isotier__provider_renew(&p, h, today, err) < 0) {
			isotier__provider_clear(&p);
			isotier__findings_free(&findings);
			return isotier__error_prefix(err, "renew catalogue sources");
		}
		isotier_catalogue one = {.dir = (char *)dir, .providers = &p, .n_providers = 1};
		isotier__catalogue_validate(&one, today, max_age, &findings);
		const isotier_source *src = isotier__provider_best_source(&p);
		const char *as_of = src ? isotier__source_as_of(src) : NULL;
		if (src && src->retrieved)
			snprintf(r->source_retrieved, sizeof r->source_retrieved, "%s",
			         src->retrieved);
		if (src && as_of && as_of != src->retrieved)
			snprintf(r->source_verified, sizeof r->source_verified, "%s", as_of);
		const char *status = isotier__provider_status(&p);
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
			downgrade(
			    r, "catalogue entry %s has no provider-published source with a quote",
			    r->provider_id);
			ok = 0;
		} else if (days_since(as_of, today) > max_age) {
			downgrade(
			    r, "provider source of %s was retrieved %s%s%s, %d days ago (max %d)",
			    r->provider_id, src->retrieved,
			    r->source_verified[0] ? ", passage re-verified " : "",
			    r->source_verified, days_since(as_of, today), max_age);
			ok = 0;
		}
	} else {
		ok = 0;
	}
	if (ok && !(*digest = isotier__claim_digest(&p))) {
		downgrade(r, "catalogue entry %s: out of memory", r->provider_id);
		ok = 0;
	}
	if (ok) {
		for (size_t i = 0; i < findings.n; i++) {
			const isotier_finding *f = &findings.items[i];
			if (f->severity == ISOTIER_FINDING_ERROR) {
				downgrade(r, "catalogue entry does not validate: %s: %s: %s",
				          f->file, f->field, f->message);
				ok = 0;
				break;
			}
		}
	} else if (r->reason[0] == '\0' && findings.n > 0) {
		const isotier_finding *f = &findings.items[0];
		downgrade(r, "catalogue entry does not validate: %s: %s: %s", f->file, f->field,
		          f->message);
	}
	isotier__provider_clear(&p);
	isotier__findings_free(&findings);
	return ok;
}

/* A row may be dated this far after now (two hosts' clocks, a slow NTP
 * step) before the gate refuses it. */
#define FUTURE_SKEW_S (5 * 60)

typedef struct gate {
	isotier_history *h;
	const char *backend;
	const char *host_id; /* NULL: every host's rows count */
	/* What a row's signed statement must verify against: this host's
	 * public key and ISOTIER_TRUSTED_KEYS (identity.h). */
	const isotier_keyring *keys;
} gate;

/* A row counts as this host's own only when its statement verifies and
 * says what the row says (statement.h): a row anyone else wrote into the
 * history, copied from another host or edited can lower, never grant. */
static bool gate_check(const void *ctx, const isotier_gate_row *row, const char *uuid,
                       const char *statement, char *why, size_t why_len)
{
	const gate *g = ctx;
	isotier_statement_row sr = {.uuid = uuid,
	                            .backend = g->backend,
	                            .verdict = row->verdict,
	                            .observed_at = row->observed_at,
	                            .ceiling_tier = row->ceiling_tier,
	                            .host_id = row->host_id,
	                            .claim_digest = row->claim_digest};
	if (isotier__statement_check(statement, g->keys, &sr, why, why_len))
		return true;
	if (!g->keys->n && g->keys->problem[0]) {
		size_t n = strlen(why);
		snprintf(why + n, why_len - n, " (no trusted key: %s)", g->keys->problem);
	}
	return false;
}

/* ", not counted: WHY" for a row this host wrote whose statement failed,
 * ", imported or naming no host" for one it did not write, "" for its own. */
static const char *row_standing(char *buf, size_t len, const isotier_gate_row *row)
{
	if (row->own)
		snprintf(buf, len, "%s", "");
	else if (row->unsigned_why && row->unsigned_why[0])
		snprintf(buf, len, ", not counted: %s", row->unsigned_why);
	else
		snprintf(buf, len, "%s", ", imported or naming no host");
	return buf;
}

/* "; N newer rows of this host were passed over (WHY)" when an own_only
 * read skipped rows whose statement failed; "" otherwise. */
static const char *skipped_note(char *buf, size_t len, const isotier_gate_buf *b)
{
	buf[0] = '\0';
	if (b->skipped)
		snprintf(buf, len, "; %d newer row%s of this host passed over: %s", b->skipped,
		         b->skipped == 1 ? "" : "s", b->unsigned_why);
	return buf;
}

/*
 * Rows are ordered by id, the order they were written in: their timestamp is
 * only what the writer's clock said. A row dated after now (or not dated at
 * all) cannot be placed: one written a year ahead would otherwise read as
 * the newest for a year. The gate refuses it and fails closed, naming it.
 */
static int resolve_future(isotier_resolution *r, const gate *g, const char *now, isotier_error *err)
{
	isotier_gate_row row;
	isotier_gate_buf buf;
	int rc = isotier__history_gate_future(g->h, g->backend, g->host_id, now, FUTURE_SKEW_S,
	                                      &row, &buf, err);
	if (rc < 0)
		return rc;
	if (rc > 0)
		downgrade(r,
		          "observation #%lld of %s is dated '%.40s', after now (%s, %d s of clock "
		          "skew allowed) or unreadable: the history cannot be ordered by it, so it "
		          "vouches for nothing until that row is explained (runbook/drift.md)",
		          (long long)row.id, g->backend, row.observed_at, now, FUTURE_SKEW_S);
	return 0;
}

/* The latest judgement (an INCONCLUSIVE or UNAVAILABLE run judges nothing
 * and must not clear a contradiction: a probe that timed out, a runtime made
 * to fail). CONTRADICTED voids the claim. Only this host's own rows clear
 * one: a CONTRADICTED row (this host's own, imported, or naming no host)
 * newer than this host's own latest judgement that was not CONTRADICTED
 * voids the claim, and an imported or hostless row that is not CONTRADICTED
 * hides nothing. */
static int resolve_against(isotier_resolution *r, const gate *g, isotier_error *err)
{
	isotier_gate_row row, against;
	isotier_gate_buf buf, abuf;
	isotier_gate_query q = {.backend = g->backend,
	                        .host_id = g->host_id,
	                        .verdict_flags = VERDICT_JUDGES,
	                        .verdict_not = VERDICT_AGAINST,
	                        .own_only = true,
	                        .check = gate_check,
	                        .check_ctx = g};
	int clear = isotier__history_gate_latest(g->h, &q, &row, &buf, err);
	if (clear < 0)
		return clear;
	isotier_gate_query qa = {.backend = g->backend,
	                         .host_id = g->host_id,
	                         .verdict_flags = VERDICT_AGAINST,
	                         .after = clear ? row.id : 0,
	                         .check = gate_check,
	                         .check_ctx = g};
	int rc = isotier__history_gate_latest(g->h, &qa, &against, &abuf, err);
	if (rc < 0)
		return rc;
	if (rc == 0 && !clear)
		return 0;
	const isotier_gate_row *latest = rc > 0 ? &against : &row;
	snprintf(r->latest_verdict, sizeof r->latest_verdict, "%s", latest->verdict);
	snprintf(r->latest_at, sizeof r->latest_at, "%s", latest->observed_at);
	char standing[600], note[700];
	if (r->resolved != ISOTIER_UNKNOWN && rc > 0)
		downgrade(r,
		          "latest judged observation of %s (#%lld, %s%s) CONTRADICTED the claim: "
		          "%s%s",
		          g->backend, (long long)against.id, r->latest_at,
		          row_standing(standing, sizeof standing, &against), against.reason,
		          skipped_note(note, sizeof note, &buf));
	return 0;
}

/*
 * The defended tier never rises above what the latest trustworthy observation
 * showed of the sandbox's own boundary (its ceiling_tier: a VM counts only when
 * proven the sandbox's own). A claim above it is not defended at all. This
 * host's own latest ceiling that reaches the claim stands until a newer row
 * (imported and hostless ones too) shows less.
 */
static int resolve_ceiling(isotier_resolution *r, const gate *g, isotier_error *err)
{
	isotier_gate_row row;
	isotier_gate_buf buf;
	isotier_gate_query q = {.backend = g->backend,
	                        .host_id = g->host_id,
	                        .ceiling_in = r->resolved,
	                        .own_only = true,
	                        .check = gate_check,
	                        .check_ctx = g};
	int ok = isotier__history_gate_latest(g->h, &q, &row, &buf, err);
	if (ok < 0)
		return ok;
	char note[700], standing[600];
	skipped_note(note, sizeof note, &buf);
	isotier_gate_query low = {.backend = g->backend,
	                          .host_id = g->host_id,
	                          .ceiling_out = r->resolved,
	                          .after = ok ? row.id : 0,
	                          .check = gate_check,
	                          .check_ctx = g};
	int rc = isotier__history_gate_latest(g->h, &low, &row, &buf, err);
	if (rc <= 0)
		return rc;
	const char *name = row.ceiling_tier;
	isotier_tier ceiling = ISOTIER_UNKNOWN;
	/* NONE (no boundary of its own) and anything unreadable allow nothing. */
	if (!name || isotier_tier_parse(&ceiling, name) < 0)
		ceiling = ISOTIER_UNKNOWN;
	if (!isotier_tier_satisfies(ceiling, r->resolved))
		downgrade(r,
		          "the latest trustworthy observation of %s (%s%s) shows at most %s of its "
		          "own, below the claimed %s: %s%s",
		          g->backend, row.observed_at,
		          row_standing(standing, sizeof standing, &row), name ? name : "?",
		          isotier_tier_name(r->claimed), row.reason, note);
	return 0;
}

/*
 * require_verified_days: the latest observation decides. It must be a proof
 * (CONFIRMED or CONSISTENT, its ceiling reaching the claim) made on this host
 * of exactly the claim the catalogue makes now (claim_digest), within the
 * days asked. A newer INCONCLUSIVE or UNAVAILABLE run of a degraded backend
 * voids an older proof; rows from before host ids and digests prove nothing.
 */
static int resolve_verified(isotier_resolution *r, const gate *g, const char *digest, int days,
                            const char *today, isotier_error *err)
{
	isotier_gate_row row;
	isotier_gate_buf buf;
	isotier_gate_query q = {
	    .backend = g->backend, .host_id = g->host_id, .check = gate_check, .check_ctx = g};
	int rc = isotier__history_gate_latest(g->h, &q, &row, &buf, err);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		downgrade(r,
		          "%s has no observation%s, and a verification within %d days is required",
		          g->backend, g->host_id ? " made on this host" : "", days);
		return 0;
	}
	long long id = (long long)row.id;
	const char *verdict = row.verdict, *at = row.observed_at;
	isotier_verdict v;
	isotier_tier ceiling = ISOTIER_UNKNOWN;
	if (isotier__verdict_parse(&v, verdict) < 0 || !isotier__verdict_is(v, VERDICT_PROVES))
		downgrade(
		    r,
		    "the latest observation of %s (#%lld, %s) is %s, not a proof of the claim; "
		    "a verification within %d days is required (the latest observation "
		    "decides: a newer INCONCLUSIVE voids an older CONFIRMED)",
		    g->backend, id, at, verdict, days);
	else if (!row.ceiling_tier || isotier_tier_parse(&ceiling, row.ceiling_tier) < 0 ||
	         !isotier_tier_satisfies(ceiling, r->claimed))
		downgrade(r,
		          "the latest observation of %s (#%lld, %s) does not prove %s of its own, "
		          "and a verification within %d days is required",
		          g->backend, id, at, isotier_tier_name(r->claimed), days);
	else if (!row.host_id || (g->host_id && strcmp(row.host_id, g->host_id)))
		downgrade(r,
		          "the latest observation of %s (#%lld, %s) names no host (recorded before "
		          "isotier kept machine ids): it proves nothing here; re-verify",
		          g->backend, id, at);
	else if (!row.own && row.unsigned_why && row.unsigned_why[0])
		downgrade(r,
		          "the latest observation of %s (#%lld, %s) does not count toward a grant, "
		          "%s: only a statement signed by this host's key (or one in "
		          "ISOTIER_TRUSTED_KEYS) that says what the row says proves anything; "
		          "re-verify",
		          g->backend, id, at, row.unsigned_why);
	else if (!row.own)
		downgrade(
		    r,
		    "the latest observation of %s (#%lld, %s) came in by history import or "
		    "migrate: only what this host's own isotier verified and signed proves "
		    "anything here (signature check: an imported row is not counted); re-verify",
		    g->backend, id, at);
	else if (!row.claim_digest || !digest || strcmp(row.claim_digest, digest))
		downgrade(r,
		          "the latest observation of %s (#%lld, %s) judged %s than the catalogue's "
		          "claim now (entry %s changed since, or the row predates claim digests): "
		          "re-verify",
		          g->backend, id, at,
		          !row.claim_digest ? "no recorded claim rather" : "another claim",
		          r->provider_id);
	else if (days_since(at, today) > days)
		downgrade(r, "%s was last CONFIRMED at %s, more than %d days ago", g->backend, at,
		          days);
	return 0;
}

/* The gate's reads, in order: what voids, what lowers, what must prove. */
static int resolve_gate(isotier_resolution *r, const gate *g, const isotier_resolve_opts *o,
                        const char *digest, const char *today, isotier_error *err)
{
	int rc;
	char now[32];
	time_t t = o->now ? o->now : time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if ((rc = resolve_against(r, g, err)) < 0)
		return rc;
	if (r->resolved != ISOTIER_UNKNOWN && (rc = resolve_future(r, g, now, err)) < 0)
		return rc;
	if (r->resolved != ISOTIER_UNKNOWN && (rc = resolve_ceiling(r, g, err)) < 0)
		return rc;
	if (o->require_verified_days > 0 && r->resolved != ISOTIER_UNKNOWN)
		return resolve_verified(r, g, digest, o->require_verified_days, today, err);
	return 0;
}

/* Applies the host's history: see resolve.h. */
static int resolve_history(isotier_resolution *r, const char *backend,
                           const isotier_resolve_opts *o, isotier_history *h, const char *digest,
                           const char *today, isotier_error *err)
{
	const char *path = o->db_path ? o->db_path : isotier__default_db_path();
	if (!h) {
		if (o->require_verified_days > 0 && r->resolved != ISOTIER_UNKNOWN)
			downgrade(r,
			          "no verification history for %s (database %s absent) but a "
			          "verification within %d days is required",
			          backend, path, o->require_verified_days);
		return 0;
	}
	int rc;
	char host[64] = "";
	if (o->host_id)
		snprintf(host, sizeof host, "%s", o->host_id);
	else
		isotier__host_id(host, sizeof host);
	/* No machine id: no row can be this host's; only rows naming no host
	 * are read (they deny, never grant). */
	isotier_keyring keys;
	isotier__keyring_load(&keys);
	gate g = {.h = h, .backend = backend, .host_id = o->any_host ? NULL : host, .keys = &keys};
	rc = resolve_gate(r, &g, o, digest, today, err);
	isotier__keyring_clear(&keys);
	return rc;
}

int isotier__resolve(isotier_resolution *out, const isotier_backend *backend,
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
		isotier__today(today, sizeof today);
	int max_age = o->max_source_age_days > 0 ? o->max_source_age_days
	                                         : ISOTIER_DEFAULT_MAX_SOURCE_AGE_DAYS;
	const char *dir = o->catalogue_dir ? o->catalogue_dir : isotier__default_catalogue_dir();

	if (!backend->catalogue_id) {
		downgrade(out, "%s has no catalogue claim (the machine's provider is not known)",
		          backend->name);
		return 0;
	}
	/* One read of the host's history for both the sources' renewals and the
	 * gate; an absent file is no history, a URI always is one. */
	const char *path = o->db_path ? o->db_path : isotier__default_db_path();
	cleanup_history isotier_history *h = NULL;
	/* Only the built-in default may be absent (not written yet): a path
	 * the caller or $ISOTIER_DB names that is not there is a typo, and
	 * anything but ENOENT (EACCES on its directory, EIO, a directory) is
	 * a history this process cannot read, never an empty one. */
	const char *named_by =
	    o->db_path ? (o->db_created ? NULL : "db_path") : isotier__default_db_named_by();
	int prc = isotier__history_present(path, named_by, err);
	if (prc > 0)
		prc = isotier__history_open_readonly(&h, path, err);
	if (prc < 0) {
		downgrade(out, "the history could not be read");
		return isotier__error_prefix(err, "resolve %s", backend->name);
	}
	cleanup_free char *digest = NULL;
	int crc = resolve_claim(out, dir, backend->catalogue_id, max_age, today, h, &digest, err);
	if (crc < 0)
		return isotier__error_prefix(err, "resolve %s", backend->name);
	if (crc) {
		out->resolved = out->claimed;
		snprintf(out->reason, sizeof out->reason,
		         "catalogue entry %s (%s), provider source retrieved %s%s%s%s%s",
		         out->provider_id, out->mechanism, out->source_retrieved,
		         out->source_verified[0] ? ", passage re-verified " : "",
		         out->source_verified, out->status[0] ? "; " : "", out->status);
	}
	int rc = resolve_history(out, backend->name, o, h, digest, today, err);
	if (rc < 0) {
		/* A history that could not be read defends nothing. */
		downgrade(out, "the history could not be read");
		return isotier__error_prefix(err, "resolve %s", backend->name);
	}
	return 0;
}
