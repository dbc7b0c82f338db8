/* SPDX-License-Identifier: Apache-2.0 */
/* resolve_api.c - isotier_resolve: resolve.h's answer through the public API,
 * the same call isotier_create makes before it provisions, so a program can ask
 * without creating a sandbox. The request and the result are versioned
 * (ADR-0021); the internal isotier_resolution stays free to change. */
#include "../backends/backend.h"
#include "../history/history.h"
#include "resolve.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int isotier_resolve(isotier_resolved *out, const isotier_resolve_request *req, isotier_error *err)
{
	if (!out || !req || !req->backend)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "resolve: a backend name is required");
	if (req->version < 1 || req->version > ISOTIER_RESOLVE_REQUEST_VERSION)
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "resolve: request version %u is not one this library (libisotier %s) "
		    "reads: 1 to %d (start from ISOTIER_RESOLVE_REQUEST_INIT)",
		    req->version, ISOTIER_VERSION, ISOTIER_RESOLVE_REQUEST_VERSION);
	/* A result newer than ours has fields we cannot fill: refused, not left unwritten. */
	if (out->version > ISOTIER_RESOLVED_VERSION)
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "resolve: result version %u is not one this library (libisotier %s) "
		    "writes: 1 to %d (start from ISOTIER_RESOLVED_INIT)",
		    out->version, ISOTIER_VERSION, ISOTIER_RESOLVED_VERSION);
	if (req->max_source_age_days < 0 || req->require_verified_days < 0)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "resolve: a negative number of days");
	const isotier_backend *backend = isotier__backend_lookup(req->backend);
	if (!backend)
		return isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                          "resolve: no backend named '%s'", req->backend);
	/* As create(): a history named that is not there is a wrong path, not an
	 * empty history (resolving without it would drop its contradictions). */
	if (req->db_path && !isotier__history_is_uri(req->db_path)) {
		struct stat st;
		if (stat(req->db_path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
			return isotier__error_set(err, ISOTIER_ENOTFOUND, ENOENT,
			                          "resolve: history database %s does not exist",
			                          req->db_path);
	}
	isotier_resolve_opts ro = {.catalogue_dir = req->catalogue_dir,
	                           .db_path = req->db_path,
	                           .max_source_age_days = req->max_source_age_days,
	                           .require_verified_days = req->require_verified_days};
	isotier_resolution r;
	int rc = isotier__resolve(&r, backend, &ro, err);
	if (rc < 0)
		return rc;
	/* Version 1's fields (0 reads as 1): the only version so far. */
	out->tier = r.resolved;
	out->claimed = r.claimed;
	snprintf(out->provider_id, sizeof out->provider_id, "%s", r.provider_id);
	snprintf(out->mechanism, sizeof out->mechanism, "%s", r.mechanism);
	snprintf(out->status, sizeof out->status, "%s", r.status);
	snprintf(out->latest_verdict, sizeof out->latest_verdict, "%s", r.latest_verdict);
	snprintf(out->latest_at, sizeof out->latest_at, "%s", r.latest_at);
	snprintf(out->reason, sizeof out->reason, "%s", r.reason);
	return 0;
}
