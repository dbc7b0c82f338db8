/* SPDX-License-Identifier: Apache-2.0 */
/* history_fleet_init.c - `isotier history init`: a fleet's PostgreSQL
 * history set up by its owner (runbook/fleet.md): the schema migrated, one
 * role per runner host with row-level security on the host id (a runner
 * inserts and updates only rows naming its own machine id), and read-only
 * auditor roles. Idempotent: run it again to add a host or after an upgrade. */
#include "history_driver.h"

#include <ctype.h>
#include <string.h>

/* Role names are identifiers, not parameters (GRANT takes no $1): only
 * lower-case letters, digits and '_' are accepted, then quoted. */
static bool role_ok(const char *r)
{
	size_t n = r ? strlen(r) : 0;
	if (!n || n > 63 || !(islower((unsigned char)r[0]) || r[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(islower((unsigned char)r[i]) || isdigit((unsigned char)r[i]) || r[i] == '_'))
			return false;
	return true;
}

static bool host_ok(const char *h)
{
	if (!h || strlen(h) != 32)
		return false;
	for (int i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)h[i]) || isupper((unsigned char)h[i]))
			return false;
	return true;
}

/* The host a session's role runs for (NULL: none: it inserts nothing). */
#define MY_HOST "(SELECT m.host_id FROM isotier_hosts m WHERE m.role = current_user)"
#define MY_RUNS "(SELECT r.id FROM runs r WHERE r.host_id = " MY_HOST ")"

/* The policies: everyone who may read reads every row (the gate reads this
 * host's, a report every host's); writes only for the role's own host. */
static const char *const fleet_sql =
    "CREATE TABLE IF NOT EXISTS isotier_hosts (role TEXT PRIMARY KEY, host_id TEXT NOT NULL);"
    "REVOKE ALL ON isotier_hosts FROM PUBLIC;"
    "ALTER TABLE runs ENABLE ROW LEVEL SECURITY;"
    "ALTER TABLE observations ENABLE ROW LEVEL SECURITY;"
    "ALTER TABLE audit_events ENABLE ROW LEVEL SECURITY;"
    "ALTER TABLE source_checks ENABLE ROW LEVEL SECURITY;"
    "DROP POLICY IF EXISTS isotier_read ON runs;"
    "DROP POLICY IF EXISTS isotier_insert ON runs;"
    "DROP POLICY IF EXISTS isotier_update ON runs;"
    "DROP POLICY IF EXISTS isotier_read ON observations;"
    "DROP POLICY IF EXISTS isotier_insert ON observations;"
    "DROP POLICY IF EXISTS isotier_read ON audit_events;"
    "DROP POLICY IF EXISTS isotier_insert ON audit_events;"
    "DROP POLICY IF EXISTS isotier_read ON source_checks;"
    "DROP POLICY IF EXISTS isotier_insert ON source_checks;"
    "CREATE POLICY isotier_read ON runs FOR SELECT USING (true);"
    "CREATE POLICY isotier_insert ON runs FOR INSERT WITH CHECK (host_id = " MY_HOST ");"
    "CREATE POLICY isotier_update ON runs FOR UPDATE USING (host_id = " MY_HOST ")"
    " WITH CHECK (host_id = " MY_HOST ");"
    "CREATE POLICY isotier_read ON observations FOR SELECT USING (true);"
    "CREATE POLICY isotier_insert ON observations FOR INSERT WITH CHECK (host_id = " MY_HOST
    " AND run_id IN " MY_RUNS ");"
    "CREATE POLICY isotier_read ON audit_events FOR SELECT USING (true);"
    "CREATE POLICY isotier_insert ON audit_events FOR INSERT WITH CHECK (host_id = " MY_HOST ");"
    "CREATE POLICY isotier_read ON source_checks FOR SELECT USING (true);"
    "CREATE POLICY isotier_insert ON source_checks FOR INSERT WITH CHECK (run_id IN " MY_RUNS ");";

int isotier__history_fleet_init(isotier_history *h, const char *const *runners,
                                const char *const *hosts, size_t n, const char *const *auditors,
                                size_t n_auditors, isotier_error *err)
{
	if (h->drv->engine != HISTORY_POSTGRES)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "history init: roles and row-level security are "
		                          "PostgreSQL's (an SQLite file is one host's)");
	for (size_t i = 0; i < n; i++)
		if (!role_ok(runners[i]) || !host_ok(hosts[i]))
			return isotier__error_set(
			    err, ISOTIER_EINVAL, 0,
			    "history init: --runner '%.64s=%.40s': ROLE (a-z, 0-9, _) = the host's "
			    "machine id (32 lower-case hex digits)",
			    runners[i], hosts[i] ? hosts[i] : "");
	for (size_t i = 0; i < n_auditors; i++)
		if (!role_ok(auditors[i]))
			return isotier__error_set(
			    err, ISOTIER_EINVAL, 0,
			    "history init: --auditor '%.64s': a role name (a-z, "
			    "0-9, _)",
			    auditors[i]);
	int rc = h->drv->exec(h, "BEGIN", err, "history init");
	if (rc < 0)
		return rc;
	rc = h->drv->exec(h, fleet_sql, err, "history init: row-level security");
	char sql[2048];
	for (size_t i = 0; rc == 0 && i < n; i++) {
		cleanup_hstmt hstmt *s = NULL;
		rc = isotier__hq_prepare(
		    h, &s,
		    "INSERT INTO isotier_hosts(role, host_id) VALUES (?1, ?2)"
		    " ON CONFLICT (role) DO UPDATE SET host_id = EXCLUDED.host_id",
		    err, "history init: map the runner to its host");
		if (rc == 0) {
			hq_text(s, 1, runners[i]);
			hq_text(s, 2, hosts[i]);
			rc = hq_step(s, err) < 0 ? ISOTIER_EDB : 0;
		}
		snprintf(
		    sql, sizeof sql,
		    "GRANT USAGE ON SCHEMA public TO \"%s\";"
		    "GRANT SELECT, INSERT ON runs, observations, evidence_blobs, source_checks,"
		    " audit_events TO \"%s\";"
		    "GRANT UPDATE (finished_at, status) ON runs TO \"%s\";"
		    "GRANT SELECT ON isotier_schema, isotier_hosts TO \"%s\";"
		    "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \"%s\";",
		    runners[i], runners[i], runners[i], runners[i], runners[i]);
		if (rc == 0)
			rc = h->drv->exec(h, sql, err, "history init: grant the runner");
	}
	for (size_t i = 0; rc == 0 && i < n_auditors; i++) {
		snprintf(sql, sizeof sql,
		         "GRANT USAGE ON SCHEMA public TO \"%s\";"
		         "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \"%s\";",
		         auditors[i], auditors[i]);
		rc = h->drv->exec(h, sql, err, "history init: grant the auditor");
	}
	if (rc < 0) {
		h->drv->exec(h, "ROLLBACK", NULL, "rollback");
		return rc;
	}
	return h->drv->exec(h, "COMMIT", err, "history init");
}
