/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_transfer.c - a history out and in as JSON Lines (history.h):
 * `isotier history export`, `import` and `migrate`. One line per record,
 * streamed (a row at a time, whatever the history's size): every run, every
 * evidence blob once, every observation, with the stored documents
 * (layers_json, probe_json) verbatim as strings. Import is idempotent by
 * uuid: a run or observation already present is skipped, so importing the
 * same file twice, or two histories that share rows, adds nothing twice.
 * An import file is hostile: bounded lines, checked types, evidence checked
 * against its hash.
 */
#include "history_driver.h"
#include "../core/paths.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <string.h>
#include <time.h>

#define EXPORT_SCHEMA  "isotier.history.export/1"
#define LINE_MAX_BYTES (64u << 20) /* evidence is 23-61 KB; far above any real line */

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static int put_line(FILE *out, cJSON *o, isotier_error *err)
{
	char *text = o ? isotier__json_print(o, false) : NULL;
	cJSON_Delete(o);
	if (!text)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "export: out of memory");
	int bad = fputs(text, out) == EOF || fputc('\n', out) == EOF;
	free(text);
	return bad ? isotier__error_set(err, ISOTIER_EIO, errno, "export: write") : 0;
}

static char *base64(const void *data, size_t len)
{
	if (len > INT32_MAX / 2)
		return NULL;
	char *out = malloc(4 * ((len + 2) / 3) + 1);
	if (out)
		EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	return out;
}

static int export_runs(isotier_history *h, FILE *out, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "SELECT uuid, started_at, finished_at, tool_version, catalogue_commit,"
	    " command, status, host, host_id, kernel FROM runs ORDER BY id",
	    err, "export runs");
	static const char *const keys[] = {
	    "uuid",    "started_at", "finished_at", "tool_version", "catalogue_commit",
	    "command", "status",     "host",        "host_id",      "kernel"};
	while (rc == 0 && (rc = hq_step(s, err)) > 0) {
		cJSON *o = cJSON_CreateObject();
		if (o) {
			cJSON_AddStringToObject(o, "type", "run");
			for (int i = 0; i < 10; i++)
				add_str(o, keys[i], hq_col(s, i));
		}
		rc = put_line(out, o, err);
	}
	return rc;
}

static int export_evidence(isotier_history *h, FILE *out, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s, "SELECT sha256, format, content FROM evidence_blobs ORDER BY sha256", err,
	    "export evidence");
	while (rc == 0 && (rc = hq_step(s, err)) > 0) {
		size_t len = 0;
		const void *blob = HDRV(s)->blob(s, 2, &len);
		char *b64 = base64(blob ? blob : "", len);
		cJSON *o = b64 ? cJSON_CreateObject() : NULL;
		if (o) {
			cJSON_AddStringToObject(o, "type", "evidence");
			add_str(o, "sha256", hq_col(s, 0));
			add_str(o, "format", hq_col(s, 1));
			cJSON_AddStringToObject(o, "content_base64", b64);
		}
		free(b64);
		rc = put_line(out, o, err);
	}
	return rc;
}

static const char *const obs_keys[] = {"uuid",
                                       "run_uuid",
                                       "observed_at",
                                       "backend",
                                       "provider_id",
                                       "claimed_tier",
                                       "claimed_mechanism",
                                       "observed_tier",
                                       "observed_vendor",
                                       "confidence",
                                       "layers_json",
                                       "verdict",
                                       "reason",
                                       "probe_json",
                                       "evidence_format",
                                       "kernel_relation",
                                       "ceiling_tier",
                                       "host_id",
                                       "claim_digest",
                                       "evidence_sha256",
                                       "probe_schema"};
#define N_OBS_TEXT 21
/* Schema 8's integer columns, in this order after the others. */
static const char *const obs_counts[] = {"sandbox_wall_ms", "sandbox_cpu_ms", "jobs", "overlap"};
#define N_OBS_COUNTS 4

static int export_observations(isotier_history *h, FILE *out, isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "SELECT o.uuid, r.uuid, o.observed_at, o.backend, o.provider_id, o.claimed_tier,"
	    " o.claimed_mechanism, o.observed_tier, o.observed_vendor, o.confidence, o.layers_json,"
	    " o.verdict, o.reason, o.probe_json, o.evidence_format, o.kernel_relation,"
	    " o.ceiling_tier, o.host_id, o.claim_digest, o.evidence_sha256, o.probe_schema,"
	    " o.duration_ms, o.evidence, o.sandbox_wall_ms, o.sandbox_cpu_ms, o.jobs, o.overlap,"
	    " o.statement"
	    " FROM observations o JOIN runs r ON r.id = o.run_id ORDER BY o.id",
	    err, "export observations");
	while (rc == 0 && (rc = hq_step(s, err)) > 0) {
		cJSON *o = cJSON_CreateObject();
		if (o) {
			cJSON_AddStringToObject(o, "type", "observation");
			for (int i = 0; i < N_OBS_TEXT; i++)
				add_str(o, obs_keys[i], hq_col(s, i));
			if (hq_null(s, 21))
				cJSON_AddNullToObject(o, "duration_ms");
			else
				cJSON_AddNumberToObject(o, "duration_ms",
				                        (double)hq_col_int(s, 21));
			/* Schema 8's; null where NULL (older rows, not measured). */
			for (int i = 0; i < N_OBS_COUNTS; i++)
				if (hq_null(s, 23 + i))
					cJSON_AddNullToObject(o, obs_counts[i]);
				else
					cJSON_AddNumberToObject(o, obs_counts[i],
					                        (double)hq_col_int(s, 23 + i));
			/* Evidence stored in the row (before schema 7) travels with it. */
			size_t len = 0;
			const void *blob = hq_null(s, 22) ? NULL : HDRV(s)->blob(s, 22, &len);
			char *b64 = blob && len ? base64(blob, len) : NULL;
			if (b64)
				cJSON_AddStringToObject(o, "evidence_base64", b64);
			free(b64);
			/* Schema 11's signed statement travels verbatim (an auditor
			 * checks it anywhere; the gate never counts an imported row). */
			add_str(o, "statement", hq_col(s, 27));
		}
		rc = put_line(out, o, err);
	}
	return rc;
}

int isotier__history_export(isotier_history *h, FILE *out, isotier_error *err)
{
	int rc = isotier__history_read_begin(h, err);
	if (rc < 0)
		return rc;
	cJSON *head = cJSON_CreateObject();
	if (head) {
		cJSON_AddStringToObject(head, "type", "header");
		cJSON_AddStringToObject(head, "schema", EXPORT_SCHEMA);
		cJSON_AddNumberToObject(head, "history_schema", isotier__history_schema_version(h));
		cJSON_AddStringToObject(head, "tool_version", ISOTIER_VERSION);
	}
	if ((rc = put_line(out, head, err)) == 0 && (rc = export_runs(h, out, err)) == 0 &&
	    (rc = export_evidence(h, out, err)) == 0 &&
	    (rc = export_observations(h, out, err)) == 0)
		rc = isotier__history_export_audit(h, out, err);
	isotier__history_read_end(h);
	if (rc == 0 && fflush(out) != 0)
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "export: write");
	return rc;
}

/* ---- import -------------------------------------------------------------- */

static const char *field(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int bad(isotier_error *err, const char *file, size_t line, const char *why)
{
	return isotier__error_set(err, ISOTIER_EDATA, 0, "import %s:%zu: %s", file, line, why);
}

/* How far past this host's clock an imported time may be (another host's
 * clock drifts): the history gate's allowance (resolve.c). */
#define IMPORT_FUTURE_SKEW_S (5 * 60)

/* The number in the len digits at p (checked to be digits). */
static int num(const char *p, int len)
{
	int v = 0;
	for (int i = 0; i < len; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

/* t read by position as YYYY-MM-DDTHH:MM:SS[.digits]Z (every digit where
 * one belongs: strptime skips spaces and takes one-digit fields, forms that
 * SQLite's julianday() and the report cannot read), a real date and time
 * (Feb 30 or 24:00 refused), as seconds since the epoch; (time_t)-1 if not. */
static time_t utc_time(const char *t)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	size_t n = sizeof form - 1;
	for (size_t i = 0; i < n; i++)
		if (form[i] == 'd' ? !isdigit((unsigned char)t[i]) : t[i] != form[i])
			return (time_t)-1;
	const char *end = t + n;
	if (*end == '.' && isdigit((unsigned char)end[1]))
		for (end++; isdigit((unsigned char)*end); end++)
			;
	if (strcmp(end, "Z") != 0)
		return (time_t)-1;
	struct tm tm = {.tm_year = num(t, 4) - 1900,
	                .tm_mon = num(t + 5, 2) - 1,
	                .tm_mday = num(t + 8, 2),
	                .tm_hour = num(t + 11, 2),
	                .tm_min = num(t + 14, 2),
	                .tm_sec = num(t + 17, 2)};
	struct tm asked = tm; /* timegm normalises its argument: Feb 30 would be Mar 2 */
	time_t when = timegm(&tm);
	if (when == (time_t)-1 || tm.tm_year != asked.tm_year || tm.tm_mon != asked.tm_mon ||
	    tm.tm_mday != asked.tm_mday || tm.tm_hour != asked.tm_hour ||
	    tm.tm_min != asked.tm_min || tm.tm_sec != asked.tm_sec)
		return (time_t)-1;
	return when;
}

/*
 * A time the file gives (field k of o; NULL allowed when optional): isotier's
 * own form, YYYY-MM-DDTHH:MM:SS[.fraction]Z, a real date, and no later than
 * this host's clock plus IMPORT_FUTURE_SKEW_S. A record's time decides which
 * observation a report shows as a backend's latest and whether it is overdue,
 * and the report reads no clock (the newest record is its "today"): a row
 * dated in the future would stand as the latest, over the verdicts recorded
 * after it, for as long as that future lasts. The whole file is refused.
 */
static int check_time(const cJSON *o, const char *k, bool optional, const char *file, size_t line,
                      isotier_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (optional && (!v || cJSON_IsNull(v)))
		return 0;
	const char *t = cJSON_IsString(v) ? v->valuestring : NULL;
	if (!t)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "import %s:%zu: %s: not a time",
		                          file, line, k);
	time_t when = utc_time(t);
	if (when == (time_t)-1)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "import %s:%zu: %s '%.40s': not a UTC time as isotier "
		                          "writes it (YYYY-MM-DDTHH:MM:SSZ)",
		                          file, line, k, t);
	time_t now = time(NULL);
	if (when > now + IMPORT_FUTURE_SKEW_S)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "import %s:%zu: %s %.40s is later than this host's clock "
		                          "(more than %d s ahead): a record from the future would "
		                          "stand as the latest in every report; nothing imported",
		                          file, line, k, t, IMPORT_FUTURE_SKEW_S);
	return 0;
}

/* Steps s to its end; > 0 when it returned a row (then *id is column 0). */
static int step_id(hstmt *s, int64_t *id, isotier_error *err)
{
	int rc = hq_step(s, err), first = rc;
	if (rc > 0 && id)
		*id = hq_col_int(s, 0);
	while (rc > 0)
		rc = hq_step(s, err);
	return rc < 0 ? rc : first;
}

static int import_run(isotier_history *h, const cJSON *o, isotier_transfer_counts *n,
                      isotier_error *err)
{
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO runs(uuid, started_at, finished_at, tool_version,"
	    " catalogue_commit, command, status, host, host_id, kernel)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, COALESCE(?7, 'unknown'), ?8, ?9, ?10)"
	    " ON CONFLICT (uuid) DO NOTHING RETURNING id",
	    err, "import run");
	static const char *const keys[] = {
	    "uuid",    "started_at", "finished_at", "tool_version", "catalogue_commit",
	    "command", "status",     "host",        "host_id",      "kernel"};
	for (int i = 0; rc == 0 && i < 10; i++)
		hq_text(s, i + 1, field(o, keys[i]));
	/* Whatever the file says the run was, here it is an import: its rows
	 * may lower what the history gate grants, never grant (history_gate.c). */
	if (rc == 0)
		hq_text(s, 6, HISTORY_IMPORTED_COMMAND);
	if (rc == 0 && (rc = step_id(s, NULL, err)) > 0)
		n->runs++, rc = 0;
	else if (rc == 0)
		n->skipped++;
	return rc;
}

static int import_evidence(isotier_history *h, const cJSON *o, const char *file, size_t line,
                           isotier_error *err)
{
	const char *sha = field(o, "sha256"), *b64 = field(o, "content_base64");
	if (!sha || strlen(sha) != 64 || !b64)
		return bad(err, file, line, "evidence without sha256 or content_base64");
	size_t len = strlen(b64);
	unsigned char *raw = len < INT32_MAX ? malloc(len / 4 * 3 + 3) : NULL;
	int n = raw ? EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)len) : -1;
	if (n < 0) {
		free(raw);
		return bad(err, file, line, "evidence content is not base64");
	}
	while (len && b64[len - 1] == '=' && n > 0) /* EVP_DecodeBlock counts the padding */
		len--, n--;
	char hex[65];
	if (isotier__sha256_hex(raw, (size_t)n, hex) < 0 || strcmp(hex, sha)) {
		free(raw);
		return bad(err, file, line, "evidence content does not match its sha256");
	}
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO evidence_blobs(sha256, format, content) VALUES (?1, ?2, ?3)"
	    " ON CONFLICT (sha256) DO NOTHING",
	    err, "import evidence");
	if (rc == 0) {
		hq_text(s, 1, sha);
		hq_text(s, 2, field(o, "format"));
		hq_blob(s, 3, raw, (size_t)n);
		rc = step_id(s, NULL, err);
	}
	free(raw);
	return rc < 0 ? rc : 0;
}

static int import_observation(isotier_history *h, const cJSON *o, const char *file, size_t line,
                              isotier_transfer_counts *n, isotier_error *err)
{
	const char *uuid = field(o, "uuid"), *run_uuid = field(o, "run_uuid");
	if (!uuid || !run_uuid || !field(o, "backend") || !field(o, "verdict") ||
	    !field(o, "observed_at"))
		return bad(err, file, line,
		           "observation without uuid, run_uuid, backend, verdict or time");
	int bad_time = check_time(o, "observed_at", false, file, line, err);
	if (bad_time < 0)
		return bad_time;
	int64_t run_id = 0, imported = 0;
	cleanup_hstmt hstmt *q = NULL;
	int rc = isotier__hq_prepare(h, &q,
	                             "SELECT id, CASE WHEN command = ?2 THEN 1 ELSE 0 END FROM runs"
	                             " WHERE uuid = ?1",
	                             err, "import observation");
	if (rc < 0)
		return rc;
	hq_text(q, 1, run_uuid);
	hq_text(q, 2, HISTORY_IMPORTED_COMMAND);
	int found = rc = hq_step(q, err);
	if (found > 0) {
		run_id = hq_col_int(q, 0);
		imported = hq_col_int(q, 1);
		while ((rc = hq_step(q, err)) > 0)
			;
		rc = rc < 0 ? rc : found;
	}
	if (rc <= 0)
		return rc < 0 ? rc
		              : bad(err, file, line, "observation of a run the file does not hold");
	if (!imported) {
		/* A run this history recorded itself (the file holds a copy of
		 * it): its observations are here already, or the file would
		 * slip a row into one of this host's own runs. */
		cleanup_hstmt hstmt *e = NULL;
		if ((rc = isotier__hq_prepare(h, &e, "SELECT id FROM observations WHERE uuid = ?1",
		                              err, "import observation")) < 0)
			return rc;
		hq_text(e, 1, uuid);
		if ((rc = step_id(e, NULL, err)) < 0)
			return rc;
		if (rc > 0) {
			n->skipped++;
			return 0;
		}
		return bad(
		    err, file, line,
		    "observation of a run this history recorded itself (not imported): an import "
		    "may not add rows to it");
	}
	/* Evidence once more by content: an old row's inline bytes move to
	 * evidence_blobs like a new row's. */
	const char *sha = field(o, "evidence_sha256"), *inline_b64 = field(o, "evidence_base64");
	cJSON *ev = NULL;
	char hex[65];
	if (inline_b64) {
		size_t len = strlen(inline_b64);
		unsigned char *raw = len < INT32_MAX ? malloc(len / 4 * 3 + 3) : NULL;
		int k =
		    raw ? EVP_DecodeBlock(raw, (const unsigned char *)inline_b64, (int)len) : -1;
		while (k > 0 && len && inline_b64[len - 1] == '=')
			len--, k--;
		if (k >= 0 && isotier__sha256_hex(raw, (size_t)k, hex) == 0) {
			sha = hex;
			ev = cJSON_CreateObject();
			if (ev) {
				cJSON_AddStringToObject(ev, "sha256", hex);
				add_str(ev, "format", field(o, "evidence_format"));
				cJSON_AddStringToObject(ev, "content_base64", inline_b64);
			}
		}
		free(raw);
		if (!ev)
			return bad(err, file, line, "evidence_base64 is not base64");
		rc = import_evidence(h, ev, file, line, err);
		cJSON_Delete(ev);
		if (rc < 0)
			return rc;
	}
	cleanup_hstmt hstmt *s = NULL;
	rc = isotier__hq_prepare(
	    h, &s,
	    "INSERT INTO observations(uuid, run_id, observed_at, backend, provider_id,"
	    " claimed_tier, claimed_mechanism, observed_tier, observed_vendor, confidence,"
	    " layers_json, verdict, reason, probe_json, evidence_format, kernel_relation,"
	    " ceiling_tier, host_id, claim_digest, evidence_sha256, probe_schema, duration_ms,"
	    " sandbox_wall_ms, sandbox_cpu_ms, jobs, overlap, statement)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
	    " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27) ON CONFLICT (uuid) DO NOTHING "
	    "RETURNING id",
	    err, "import observation");
	if (rc < 0)
		return rc;
	hq_text(s, 1, uuid);
	hq_int(s, 2, run_id);
	for (int i = 2; i < N_OBS_TEXT; i++)
		if (i != 19)
			hq_text(s, i + 1, field(o, obs_keys[i]));
	hq_text(s, 8, field(o, "observed_tier") ? field(o, "observed_tier") : "UNKNOWN");
	hq_text(s, 20, sha && strlen(sha) == 64 ? sha : NULL);
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "duration_ms");
	if (cJSON_IsNumber(d))
		hq_int(s, 22, (int64_t)d->valuedouble);
	/* A count that is not a whole number in range is not one: NULL. */
	for (int i = 0; i < N_OBS_COUNTS; i++) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, obs_counts[i]);
		if (cJSON_IsNumber(c) && c->valuedouble >= 0 &&
		    c->valuedouble < 9007199254740992.0 &&
		    c->valuedouble == (double)(int64_t)c->valuedouble)
			hq_int(s, 23 + i, (int64_t)c->valuedouble);
	}
	hq_text(s, 27, field(o, "statement"));
	if ((rc = step_id(s, NULL, err)) > 0)
		n->observations++, rc = 0;
	else if (rc == 0)
		n->skipped++;
	return rc;
}

/* One line of in into *buf (grown as needed, never past max + 2 bytes, so a
 * hostile file cannot make it allocate more): its length (the newline kept),
 * -1 at the end of the file, -2 when the line is longer than max (the rest
 * is left unread), -3 out of memory. */
static ssize_t read_line(FILE *in, char **buf, size_t *cap, size_t max)
{
	size_t len = 0;
	int c = 0;
	while ((c = getc_unlocked(in)) != EOF) {
		if (len + 2 > *cap) {
			if (len > max)
				return -2;
			size_t want = *cap ? *cap * 2 : 4096;
			if (want > max + 2)
				want = max + 2;
			char *grown = realloc(*buf, want);
			if (!grown)
				return -3;
			*buf = grown, *cap = want;
		}
		(*buf)[len++] = (char)c;
		if (c == '\n')
			break;
	}
	if (len > max)
		return -2;
	if (len == 0 && c == EOF)
		return -1;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

int isotier__history_import_jsonl(isotier_history *h, FILE *in, const char *name,
                                  isotier_transfer_counts *n, isotier_error *err)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int rc = isotier__history_begin(h, err);
	while (rc == 0 && (len = read_line(in, &line, &cap, LINE_MAX_BYTES)) != -1) {
		lineno++;
		if (len == -2) {
			rc = bad(err, name, lineno, "line too long (more than 64 MiB)");
			break;
		}
		if (len < 0) {
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0,
			                        "import %s:%zu: out of memory", name, lineno);
			break;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		cJSON *o = isotier__json_parse(line, (size_t)len, name, err);
		if (!o) {
			rc = isotier__error_prefix(err, "import %s:%zu", name, lineno);
			break;
		}
		const char *type = field(o, "type");
		if (lineno == 1 && (!type || strcmp(type, "header") || !field(o, "schema") ||
		                    strcmp(field(o, "schema"), EXPORT_SCHEMA)))
			rc = bad(err, name, lineno,
			         "not an isotier history export (" EXPORT_SCHEMA ")");
		else if (!type)
			rc = bad(err, name, lineno, "a record without a type");
		else if (!strcmp(type, "run")) {
			if (!field(o, "uuid") || !field(o, "started_at") || !field(o, "command") ||
			    !field(o, "tool_version"))
				rc = bad(err, name, lineno,
				         "run without uuid, started_at, command or tool_version");
			else if ((rc = check_time(o, "started_at", false, name, lineno, err)) ==
			             0 &&
			         (rc = check_time(o, "finished_at", true, name, lineno, err)) == 0)
				rc = import_run(h, o, n, err);
		} else if (!strcmp(type, "evidence"))
			rc = import_evidence(h, o, name, lineno, err);
		else if (!strcmp(type, "observation"))
			rc = import_observation(h, o, name, lineno, n, err);
		else if (!strcmp(type, "audit_event"))
			rc = isotier__history_import_audit(h, o, name, lineno, n, err);
		else if (strcmp(type, "header") || lineno != 1) {
			/* A record this isotier does not know (a newer export, a
			 * hand edit) is not skipped: the file is refused whole, as
			 * "0 observations added" would hide what it held. */
			char why[160];
			snprintf(why, sizeof why,
			         "%s record type '%.40s' (run, evidence, observation, "
			         "audit_event): the file is "
			         "refused whole",
			         strcmp(type, "header") ? "unknown" : "a second header; expected a",
			         type);
			rc = bad(err, name, lineno, why);
		}
		cJSON_Delete(o);
	}
	free(line);
	if (rc == 0 && ferror(in))
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "import %s: read", name);
	if (rc == 0 && lineno == 0)
		rc = bad(err, name, 0, "empty file");
	if (rc < 0) {
		isotier__history_rollback(h);
		return rc;
	}
	/* SQLite commits do not sync (history_sqlite.c): what is reported
	 * added survives a power loss first. */
	if ((rc = isotier__history_commit(h, err)) < 0 || !h->drv->sync)
		return rc;
	return h->drv->sync(h, err) < 0 ? isotier__error_prefix(err, "import %s", name) : 0;
}

int isotier__history_import(isotier_history *h, const char *path, isotier_transfer_counts *n,
                            isotier_error *err)
{
	/* An SQLite history: exported to a temporary file (streamed, on disk),
	 * then imported like any export. */
	char head[16] = "";
	FILE *f = fopen(path, "rb");
	if (!f)
		return isotier__error_set(err, ISOTIER_EIO, errno, "import %s", path);
	size_t got = fread(head, 1, sizeof head, f);
	int rc;
	if (got == sizeof head && !memcmp(head, "SQLite format 3", 16)) {
		fclose(f);
		isotier_history *src = NULL;
		if ((rc = isotier__history_open_readonly(&src, path, err)) < 0)
			return isotier__error_prefix(err, "import");
		FILE *tmp = tmpfile();
		if (!tmp) {
			isotier__history_close(src);
			return isotier__error_set(err, ISOTIER_EIO, errno,
			                          "import %s: temporary file", path);
		}
		rc = isotier__history_export(src, tmp, err);
		isotier__history_close(src);
		if (rc == 0 && fseek(tmp, 0, SEEK_SET) != 0)
			rc = isotier__error_set(err, ISOTIER_EIO, errno, "import %s", path);
		if (rc == 0)
			rc = isotier__history_import_jsonl(h, tmp, path, n, err);
		fclose(tmp);
		return rc;
	}
	rewind(f);
	rc = isotier__history_import_jsonl(h, f, path, n, err);
	fclose(f);
	return rc;
}
