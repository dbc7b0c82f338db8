/* SPDX-License-Identifier: Apache-2.0 */
/* history_schema.c - the history's schema: one migration list per engine
 * (history_driver.h), the same versions in both. migrations[i] brings the
 * schema from version i to i+1; a released entry is never edited. Times are
 * ISO-8601 UTC text. Only the first migration is spelled per engine (types);
 * the later ones are SQL both engines read alike, except where noted. */
#include "history_driver.h"
#include "history_schema.h"

/* 6 -> 7's columns, evidence table and indexes (both engines). */
#define OBS_V7_COLUMNS                                                                             \
	"ALTER TABLE observations ADD COLUMN uuid TEXT; "                                          \
	"ALTER TABLE observations ADD COLUMN evidence_sha256 TEXT; "                               \
	"ALTER TABLE observations ADD COLUMN probe_schema TEXT; "                                  \
	"ALTER TABLE runs ADD COLUMN uuid TEXT; "                                                  \
	"ALTER TABLE runs ADD COLUMN host_id TEXT; "                                               \
	"ALTER TABLE runs ADD COLUMN kernel TEXT; "
#define V7_INDEXES                                                                                 \
	"CREATE UNIQUE INDEX observations_by_uuid ON observations(uuid);"                          \
	"CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid);"                                          \
	"CREATE INDEX observations_by_time ON observations(observed_at, id);"                      \
	"CREATE INDEX observations_by_run ON observations(run_id, id);"                            \
	"CREATE INDEX observations_by_verdict ON observations(verdict, id);"                       \
	"CREATE INDEX observations_by_host ON observations(host_id, id);"                          \
	"CREATE INDEX source_checks_by_time ON source_checks(checked_at, id);"                     \
	"CREATE INDEX source_checks_by_provider ON source_checks(provider_id, checked_at);"        \
	"CREATE INDEX runs_by_status ON runs(status, host);"                                       \
	"CREATE INDEX runs_by_time ON runs(started_at);"                                           \
	"CREATE INDEX audit_events_by_event ON audit_events(event, id);"
/* 7 -> 8's columns (both engines). */
#define OBS_V8_COLUMNS                                                                             \
	"ALTER TABLE observations ADD COLUMN sandbox_wall_ms BIGINT; "                             \
	"ALTER TABLE observations ADD COLUMN sandbox_cpu_ms BIGINT; "                              \
	"ALTER TABLE observations ADD COLUMN jobs INTEGER; "                                       \
	"ALTER TABLE observations ADD COLUMN overlap INTEGER;"
/* 8 -> 9 (both engines). */
#define V9_REPORT_INDEX                                                                            \
	"CREATE INDEX observations_for_report ON observations(id, observed_at, backend,"           \
	" provider_id, claimed_tier, observed_tier, verdict, host_id, run_id);"
/* 9 -> 10 (both engines). */
#define V10_REPORT_INDEXES                                                                         \
	"CREATE INDEX source_checks_for_report"                                                    \
	" ON source_checks(provider_id, url, checked_at, id);"                                     \
	"CREATE INDEX audit_events_for_report ON audit_events(at, id, event, decision);"
/* 10 -> 11 (both engines). */
#define V11_STATEMENTS                                                                             \
	"ALTER TABLE observations ADD COLUMN statement TEXT; "                                     \
	"ALTER TABLE audit_events ADD COLUMN host_id TEXT; "                                       \
	"ALTER TABLE audit_events ADD COLUMN uuid TEXT; "
#define V11_AUDIT_UUID_INDEX "CREATE UNIQUE INDEX audit_events_by_uuid ON audit_events(uuid);"
/* A random (version 4) UUID per row. */
#define SQLITE_UUID_V4                                                                             \
	"lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||"                 \
	" substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), " \
	"1)"                                                                                       \
	" || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))"

/*
 * SQLite: migrations in order; migrations[i] brings the schema from version i to
 * i+1. Released entries are never edited. Times are ISO-8601 UTC text.
 */
static const char *const sqlite_migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  started_at TEXT NOT NULL,"
    "  finished_at TEXT,"
    "  tool_version TEXT NOT NULL,"
    "  catalogue_commit TEXT,"
    "  command TEXT NOT NULL,"
    "  status TEXT NOT NULL DEFAULT 'running');"
    "CREATE TABLE observations ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  observed_at TEXT NOT NULL,"
    "  backend TEXT NOT NULL,"
    "  provider_id TEXT,"
    "  claimed_tier TEXT,"
    "  claimed_mechanism TEXT,"
    "  observed_tier TEXT NOT NULL,"
    "  observed_vendor TEXT,"
    "  confidence TEXT,"
    "  layers_json TEXT,"
    "  verdict TEXT NOT NULL,"
    "  reason TEXT,"
    "  probe_json TEXT,"
    "  evidence BLOB,"
    "  evidence_format TEXT,"
    "  duration_ms INTEGER);"
    "CREATE INDEX observations_by_backend ON observations(backend, observed_at);"
    "CREATE TABLE source_checks ("
    "  id INTEGER PRIMARY KEY,"
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  checked_at TEXT NOT NULL,"
    "  provider_id TEXT NOT NULL,"
    "  url TEXT NOT NULL,"
    "  quote TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  http_status INTEGER,"
    "  content_sha256 TEXT,"
    "  detail TEXT);"
    "CREATE INDEX source_checks_by_url ON source_checks(url, checked_at);"
    "CREATE TABLE audit_events ("
    "  id INTEGER PRIMARY KEY,"
    "  at TEXT NOT NULL,"
    "  event TEXT NOT NULL,"
    "  sandbox_id TEXT,"
    "  backend TEXT,"
    "  claimed_tier TEXT,"
    "  resolved_tier TEXT,"
    "  required_tier TEXT,"
    "  decision TEXT,"
    "  reason TEXT,"
    "  detail_json TEXT);"
    "CREATE INDEX audit_events_by_time ON audit_events(at);",
    /* 1 -> 2: what an observation proves about the sandbox's own boundary.
     * kernel_relation: how its kernel relates to the host's (kernel_id.h);
     * ceiling_tier: the most it lets anyone defend (NULL: nothing
     * trustworthy was shown; NONE: no boundary of its own). Rows older than
     * this have NULL in both and prove nothing. */
    "ALTER TABLE observations ADD COLUMN kernel_relation TEXT; "
    "ALTER TABLE observations ADD COLUMN ceiling_tier TEXT;"
    "", /* (three literals: clang's -Wstring-concatenation reads two as a missing comma) */
    /* 2 -> 3: provenance: the host a run ran on (its node name), so a
     * report can say where each observation was made. NULL: older runs. */
    "ALTER TABLE runs ADD COLUMN host TEXT;",
    /* 3 -> 4: the history gate (resolve.c). host_id: the machine id of the
     * host that made the observation (/etc/machine-id; NULL: unknown, or a
     * row older than this); claim_digest: the claim it judged, canonical
     * (isotier__claim_digest; NULL: no claim, or an older row). A row without
     * both proves nothing to resolve; the listings still show it. Rows are
     * ordered by id (insertion), never by their timestamp. */
    "ALTER TABLE observations ADD COLUMN host_id TEXT; "
    "ALTER TABLE observations ADD COLUMN claim_digest TEXT; "
    "CREATE INDEX observations_by_backend_id ON observations(backend, id);",
    /* 4 -> 5: the process that owns a run (its pid and start time, lease.h),
     * so a later run can tell a run still in progress from one whose process
     * died without ending it (history_stale.c). NULL: older rows. */
    ("ALTER TABLE runs ADD COLUMN owner_pid INTEGER; "
     "ALTER TABLE runs ADD COLUMN owner_start INTEGER;"), /* (): one statement list, not a missing
                                                             comma */
    /* 5 -> 6: what a source check read, beside what it found: the source's
     * own retrieved/published/publisher (as the catalogue had them when
     * checked), how the page moved against the kept baseline (change: none,
     * quote_gone, passage_changed, page_changed; NULL: no baseline) and the
     * word-level diff around the quote. NULL: older rows. */
    ("ALTER TABLE source_checks ADD COLUMN retrieved TEXT; "
     "ALTER TABLE source_checks ADD COLUMN published TEXT; "
     "ALTER TABLE source_checks ADD COLUMN publisher TEXT; "
     "ALTER TABLE source_checks ADD COLUMN change TEXT; "
     "ALTER TABLE source_checks ADD COLUMN passage_diff TEXT;"),
    /* 6 -> 7: a fleet's history (runbook/fleet.md). Every run and
     * observation gets a stable id (uuid: import/export and merging
     * histories are idempotent by it), a run its host's identity (machine
     * id, kernel release; host, tool version and catalogue commit it has),
     * an observation its probe's schema (read without parsing probe_json)
     * and its evidence stored once by content (evidence_blobs, keyed by
     * SHA-256: the same tarball from many runs takes its bytes once).
     * Indexes for every listing and the report's reads. Older rows get a
     * fresh random uuid here; their evidence stays where it was. */
    ("CREATE TABLE evidence_blobs (sha256 TEXT PRIMARY KEY, format TEXT, content BLOB NOT "
     "NULL);" OBS_V7_COLUMNS
     "UPDATE observations SET probe_schema = CASE WHEN json_valid(probe_json)"
     "  AND json_type(probe_json, '$.schema') = 'text'"
     "  THEN substr(json_extract(probe_json, '$.schema'), 1, 64) END;"
     "UPDATE observations SET uuid = " SQLITE_UUID_V4 ";"
     "UPDATE runs SET uuid = " SQLITE_UUID_V4 ";" V7_INDEXES),
    /* 7 -> 8: durations that mean something (issue #24). duration_ms is
     * the whole job as the run saw it, which under --jobs measures the
     * contention as much as the backend. sandbox_wall_ms: the sandbox's
     * own lifecycle (availability check, provisioning, the probe,
     * teardown); sandbox_cpu_ms: the CPU its process tree used, from the
     * wait4 rusage of the children that ran it (NULL where the sandbox runs
     * outside that tree: a container engine's daemon, a remote provider);
     * jobs: the run's --jobs; overlap: the most verifications running at
     * once during this one's span, itself included (1: it ran alone).
     * NULL: older rows, or not known. */
    OBS_V8_COLUMNS,
    /* 8 -> 9: what `isotier report` counts every observation by, in id
     * order, in one index (report_scan.c): a history of a million
     * observations, several KB each, is scanned in the index's ~110 bytes
     * a row, not the table's pages (issue #24). */
    V9_REPORT_INDEX,
    /* 9 -> 10: the report's other tables, bounded like its observations
     * (issue #24): each catalogue source's newest check is one walk down
     * source_checks_for_report, however many years of daily checks it
     * has; refusals are counted, and the newest found, in
     * audit_events_for_report, which holds every column the refusal test
     * reads: of the table (each event's detail_json) only the rows shown
     * are read. */
    V10_REPORT_INDEXES,
    /* 10 -> 11: verdicts that carry their own proof (issue #37).
     * statement: the observation as an in-toto statement in a DSSE
     * envelope signed by the host that made it (statement.h); the gate
     * counts a row toward a grant only when it verifies and says what the
     * row says. audit_events.host_id: the machine id of the host whose
     * isotier decided, so a merged fleet history tells hosts' refusals
     * apart; audit_events.uuid: export, import and migrate carry every
     * event, once (older events get a fresh random one here). NULL:
     * older rows (which grant nothing). */
    (V11_STATEMENTS "UPDATE audit_events SET uuid = " SQLITE_UUID_V4 ";" V11_AUDIT_UUID_INDEX),
};
/* PostgreSQL: the same tables, PostgreSQL's types (identity keys, BYTEA),
 * then the same steps. */
static const char *const pg_migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE runs ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  started_at TEXT NOT NULL,"
    "  finished_at TEXT,"
    "  tool_version TEXT NOT NULL,"
    "  catalogue_commit TEXT,"
    "  command TEXT NOT NULL,"
    "  status TEXT NOT NULL DEFAULT 'running');"
    "CREATE TABLE observations ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  run_id BIGINT NOT NULL REFERENCES runs(id),"
    "  observed_at TEXT NOT NULL,"
    "  backend TEXT NOT NULL,"
    "  provider_id TEXT,"
    "  claimed_tier TEXT,"
    "  claimed_mechanism TEXT,"
    "  observed_tier TEXT NOT NULL,"
    "  observed_vendor TEXT,"
    "  confidence TEXT,"
    "  layers_json TEXT,"
    "  verdict TEXT NOT NULL,"
    "  reason TEXT,"
    "  probe_json TEXT,"
    "  evidence BYTEA,"
    "  evidence_format TEXT,"
    "  duration_ms BIGINT);"
    "CREATE INDEX observations_by_backend ON observations(backend, observed_at);"
    "CREATE TABLE source_checks ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  run_id BIGINT NOT NULL REFERENCES runs(id),"
    "  checked_at TEXT NOT NULL,"
    "  provider_id TEXT NOT NULL,"
    "  url TEXT NOT NULL,"
    "  quote TEXT NOT NULL,"
    "  status TEXT NOT NULL,"
    "  http_status BIGINT,"
    "  content_sha256 TEXT,"
    "  detail TEXT);"
    "CREATE INDEX source_checks_by_url ON source_checks(url, checked_at);"
    "CREATE TABLE audit_events ("
    "  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
    "  at TEXT NOT NULL,"
    "  event TEXT NOT NULL,"
    "  sandbox_id TEXT,"
    "  backend TEXT,"
    "  claimed_tier TEXT,"
    "  resolved_tier TEXT,"
    "  required_tier TEXT,"
    "  decision TEXT,"
    "  reason TEXT,"
    "  detail_json TEXT);"
    "CREATE INDEX audit_events_by_time ON audit_events(at);",
    NULL, /* 1..5: SQLite's text */
    NULL,
    NULL,
    NULL,
    NULL,
    /* 6 -> 7: as SQLite's, without the backfill (nothing older exists). */
    ("CREATE TABLE evidence_blobs (sha256 TEXT PRIMARY KEY, format TEXT, content BYTEA NOT "
     "NULL);" OBS_V7_COLUMNS V7_INDEXES),
    NULL, /* 7 -> 8: SQLite's text */
    NULL, /* 8 -> 9: SQLite's text */
    NULL, /* 9 -> 10: SQLite's text */
    /* 10 -> 11: as SQLite's, PostgreSQL's random UUIDs (13 and later). */
    (V11_STATEMENTS "UPDATE audit_events SET uuid = gen_random_uuid()::text;" V11_AUDIT_UUID_INDEX),
};

_Static_assert(sizeof sqlite_migrations == sizeof pg_migrations,
               "both engines migrate through the same versions");
_Static_assert(sizeof sqlite_migrations / sizeof sqlite_migrations[0] == HISTORY_SCHEMA_VERSION,
               "HISTORY_SCHEMA_VERSION counts the migrations");

const char *isotier__history_migration(history_engine engine, int from)
{
	if (from < 0 || from >= HISTORY_SCHEMA_VERSION)
		return NULL;
	if (engine == HISTORY_POSTGRES && pg_migrations[from])
		return pg_migrations[from];
	return sqlite_migrations[from];
}
