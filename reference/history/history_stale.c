/* SPDX-License-Identifier: Apache-2.0 */
/* history_stale.c - runs left 'running' by a process that is gone (see
 * history.h), sweep notes and audit events in the history. */
#include "history_driver.h"
#include "../core/lease.h"

#include <sys/utsname.h>
#include <unistd.h>

int isotier__history_mark_stale(isotier_history *h, int64_t *ids, size_t max, size_t *n,
                                isotier_error *err)
{
	*n = 0;
	struct utsname u;
	if (uname(&u) != 0)
		return 0; /* no host name: no run here can be told from one elsewhere */
	/* Only this host's runs: a pid means nothing on another host sharing the history. */
	cleanup_hstmt hstmt *q = NULL;
	int rc = isotier__hq_prepare(
	    h, &q,
	    "SELECT id, owner_pid, owner_start FROM runs WHERE status = 'running'"
	    " AND host = ?1 AND owner_pid IS NOT NULL ORDER BY id",
	    err, "stale runs");
	if (rc < 0)
		return rc;
	hq_text(q, 1, u.nodename);
	int64_t dead[64];
	size_t n_dead = 0;
	while ((rc = hq_step(q, err)) > 0) {
		int64_t pid = hq_col_int(q, 1), start = hq_col_int(q, 2);
		/* Gone only where this process can tell (lease.h): a pid of another
		 * pid namespace (a container sharing the history) is no pid here. */
		if (n_dead < 64 && pid > 0 && pid < INT32_MAX && pid != getpid() &&
		    isotier__owner_gone(
		        (int)pid, (unsigned long long)start,
		        isotier__lease_owner_pidns((int)pid, (unsigned long long)start)) == 1)
			dead[n_dead++] = hq_col_int(q, 0);
	}
	if (rc < 0)
		return isotier__error_prefix(err, "stale runs");
	char now[32];
	isotier__utc_now(now, sizeof now);
	for (size_t i = 0; i < n_dead; i++) {
		cleanup_hstmt hstmt *up = NULL;
		/* Still 'running': another run may have marked it meanwhile. */
		if ((rc = isotier__hq_prepare(
		         h, &up,
		         "UPDATE runs SET status = 'interrupted', finished_at = ?1"
		         " WHERE id = ?2 AND status = 'running' RETURNING id",
		         err, "mark stale run")) < 0)
			return rc;
		hq_text(up, 1, now);
		hq_int(up, 2, dead[i]);
		int changed = hq_step(up, err);
		if (changed < 0)
			return isotier__error_prefix(err, "mark stale run");
		while ((rc = hq_step(up, err)) > 0)
			;
		if (rc < 0)
			return isotier__error_prefix(err, "mark stale run");
		if (!changed)
			continue;
		char reason[160];
		snprintf(reason, sizeof reason,
		         "run %lld was left running by a process that is gone (killed, or the "
		         "host stopped): marked interrupted",
		         (long long)dead[i]);
		if ((rc = isotier__history_add_audit_event(
		         h,
		         &(isotier_audit_row){.at = now,
		                              .event = "run_interrupted",
		                              .decision = "interrupted",
		                              .reason = reason},
		         err)) < 0)
			return isotier__error_prefix(err, "mark stale run");
		if (*n < max)
			ids[*n] = dead[i];
		(*n)++;
	}
	return 0;
}

int isotier__history_note_swept(isotier_history *h, const char *backend, const char *reason,
                                isotier_error *err)
{
	char now[32];
	isotier__utc_now(now, sizeof now);
	int rc = isotier__history_add_audit_event(h,
	                                          &(isotier_audit_row){.at = now,
	                                                               .event = "leftover_swept",
	                                                               .backend = backend,
	                                                               .decision = "removed",
	                                                               .reason = reason},
	                                          err);
	return rc < 0 ? isotier__error_prefix(err, "record sweep") : 0;
}

int isotier__history_add_audit_event(isotier_history *h, const isotier_audit_row *a,
                                     isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO audit_events(at, event, sandbox_id, backend, claimed_tier,"
	    " resolved_tier, required_tier, decision, reason, detail_json, host_id,"
	    " uuid)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	    err, "store audit event");
	if (rc < 0)
		return rc;
	hq_text(s, 1, a->at);
	hq_text(s, 2, a->event);
	hq_text(s, 3, a->sandbox_id);
	hq_text(s, 4, a->backend);
	hq_text(s, 5, a->claimed_tier);
	hq_text(s, 6, a->resolved_tier);
	hq_text(s, 7, a->required_tier);
	hq_text(s, 8, a->decision);
	hq_text(s, 9, a->reason);
	hq_text(s, 10, a->detail_json);
	/* The host whose isotier decided (schema 11): a fleet's merged history
	 * tells its hosts' refusals apart. NULL: no machine id. */
	char host[64];
	isotier__host_id(host, sizeof host);
	hq_text(s, 11, host[0] ? host : NULL);
	char uuid[ISOTIER_UUID_LEN + 1];
	if (isotier__history_uuid(uuid) < 0)
		return isotier__error_set(err, ISOTIER_EIO, 0,
		                          "store audit event: no random bytes for its id");
	hq_text(s, 12, uuid);
	return hq_step(s, err) < 0 ? isotier__error_prefix(err, "store audit event") : 0;
}
