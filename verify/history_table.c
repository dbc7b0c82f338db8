/*
 * history_table.c - `isotier history`'s output: a table that fits 100
 * columns (or, --wide, shows everything), one observation with the evidence
 * behind it (`history show ID`: no raw sqlite3 needed), and the source
 * checks (`history --sources`). Every stored string is hostile: written
 * through isotier_fputs_inline (terminal-safe) or cJSON (JSON-escaped).
 */
#include "history_table.h"

#include "cli.h"
#include "report_model.h"

#include <cjson/cJSON.h>
#include <string.h>

/* Bytes of s shown in at most w columns (a cut ends in "~", at a UTF-8
 * boundary). */
static void put_cell(FILE *f, const char *s, size_t w, bool last)
{
	const char *v = s && *s ? s : "-";
	size_t n = strlen(v);
	char buf[512];
	if (n > w && w >= 1) {
		size_t k = w - 1 < sizeof buf - 2 ? w - 1 : sizeof buf - 2;
		while (k && ((unsigned char)v[k] & 0xc0) == 0x80)
			k--;
		memcpy(buf, v, k);
		buf[k] = '~';
		buf[k + 1] = '\0';
		isotier_fputs_inline(f, buf);
		n = k + 1;
	} else {
		isotier_fputs_inline(f, v);
	}
	for (; !last && n < w + 2; n++)
		fputc(' ', f);
}

void history_table(FILE *f, const char *const *hdr, const int *caps, size_t ncol,
                   const char *const *cells, size_t nrows, bool wide)
{
	size_t w[16] = {0}, used = 0;
	if (ncol > 16)
		ncol = 16;
	for (size_t c = 0; c < ncol; c++) {
		w[c] = strlen(hdr[c]);
		for (size_t r = 0; r < nrows; r++) {
			const char *v = cells[r * ncol + c];
			size_t n = v && *v ? strlen(v) : 1;
			if (n > w[c])
				w[c] = n;
		}
		if (!wide && c + 1 < ncol && caps[c] > 0 && w[c] > (size_t)caps[c])
			w[c] = (size_t)caps[c];
		if (c + 1 < ncol)
			used += w[c] + 2;
	}
	/* Narrow: the last column gets what is left, at least 8; when that is
	 * not enough, the widest columns give way, one byte at a time. */
	while (!wide && ncol > 1 && used + 8 > HISTORY_WIDTH) {
		size_t widest = 0;
		for (size_t c = 1; c + 1 < ncol; c++)
			if (w[c] > w[widest])
				widest = c;
		if (w[widest] <= 4)
			break;
		w[widest]--, used--;
	}
	if (!wide)
		w[ncol - 1] = used + 8 <= HISTORY_WIDTH ? HISTORY_WIDTH - used : 8;
	for (size_t c = 0; c < ncol; c++)
		put_cell(f, hdr[c], w[c], c + 1 == ncol);
	fputc('\n', f);
	for (size_t r = 0; r < nrows; r++) {
		for (size_t c = 0; c < ncol; c++)
			put_cell(f, cells[r * ncol + c], w[c], c + 1 == ncol);
		fputc('\n', f);
	}
}

/* ---- history show ID ----------------------------------------------------- */

static void line(const char *label, const char *value)
{
	printf("  %-12s ", label);
	isotier_fputs_inline(stdout, value && *value ? value : "-");
	fputc('\n', stdout);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

#define COL(i) ((const char *)sqlite3_column_text(st, (i)))

/* Column i's stored JSON document through the strict parser, or NULL (absent,
 * or refused: then a warning on stderr names the column and why). */
static cJSON *stored_json(sqlite3_stmt *st, int i, const char *what)
{
	if (!COL(i))
		return NULL;
	isotier_error err = {0};
	cJSON *doc = isotier_json_parse(COL(i), (size_t)sqlite3_column_bytes(st, i), what, &err);
	if (!doc) {
		fputs("isotier: warning: history show: stored ", stderr);
		isotier_fputs_inline(stderr, err.message);
		fputs(" (shown as null)\n", stderr);
	}
	return doc;
}

static void print_evidence(const report_evidence *ev)
{
	printf("evidence (probe ");
	isotier_fputs_inline(stdout, ev->probe_schema ? ev->probe_schema : "schema not stored");
	fputc(' ', stdout);
	isotier_fputs_inline(stdout, ev->probe_version ? ev->probe_version : "");
	printf("; kernel ");
	isotier_fputs_inline(stdout, ev->kernel ? ev->kernel : "not stored");
	printf("):\n");
	if (!ev->n_layers)
		printf("  no layers recorded\n");
	for (size_t i = 0; i < ev->n_layers; i++) {
		const report_layer *l = &ev->layers[i];
		printf("  layer %zu (outermost first): ", i + 1);
		isotier_fputs_inline(stdout, l->kind ? l->kind : "?");
		fputc(' ', stdout);
		isotier_fputs_inline(stdout, l->vendor ? l->vendor : "-");
		if (l->hypervisor) {
			fputs(" / ", stdout);
			isotier_fputs_inline(stdout, l->hypervisor);
		}
		fputc('\n', stdout);
		for (size_t j = 0; j < l->n_signals; j++) {
			const report_signal *s = &l->signals[j];
			fputs("    - ", stdout);
			isotier_fputs_inline(stdout, s->id ? s->id : "?");
			printf(" (");
			isotier_fputs_inline(stdout, s->family ? s->family : "?");
			printf(", ");
			isotier_fputs_inline(stdout, s->weight ? s->weight : "?");
			printf(")");
			if (s->source) {
				printf(" from ");
				isotier_fputs_inline(stdout, s->source);
			}
			if (s->value) {
				printf(": ");
				isotier_fputs_inline(stdout, s->value);
			}
			if (s->supports) {
				printf(" -> ");
				isotier_fputs_inline(stdout, s->supports);
			}
			fputc('\n', stdout);
		}
	}
	for (size_t i = 0; i < ev->n_conflicts; i++) {
		printf("  conflict: ");
		isotier_fputs_inline(stdout, ev->conflicts[i]);
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < ev->n_problems; i++) {
		printf("  could not read: ");
		isotier_fputs_inline(stdout, ev->problems[i]);
		fputc('\n', stdout);
	}
}

int history_show(isotier_history *h, long long id, bool json)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(
	        isotier_history_db(h),
	        "SELECT o.id, o.run_id, o.observed_at, o.backend, o.provider_id, o.claimed_tier,"
	        " o.claimed_mechanism, o.observed_tier, o.observed_vendor, o.confidence, o.verdict,"
	        " o.reason, o.kernel_relation, o.ceiling_tier, o.duration_ms, length(o.evidence),"
	        " o.evidence_format, r.command, r.status, r.tool_version, r.catalogue_commit, r.host,"
	        " substr(o.layers_json, 1, ?2), substr(o.probe_json, 1, ?3), o.host_id,"
	        " o.claim_digest IS NOT NULL"
	        " FROM observations o LEFT JOIN runs r ON r.id = o.run_id WHERE o.id = ?1",
	        -1, &st, NULL) != SQLITE_OK) {
		isotier_error err = {0};
		isotier_history_sql_error(h, &err, "history show");
		return cli_fail(&err);
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, REPORT_LAYERS_JSON_MAX);
	sqlite3_bind_int(st, 3, REPORT_PROBE_JSON_MAX);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		cli_error("history show: no observation %lld (`isotier history` lists them)", id);
		return EXIT_NOINPUT;
	}
	if (rc != SQLITE_ROW) {
		isotier_error err = {0};
		isotier_history_sql_error(h, &err, "history show");
		return cli_fail(&err);
	}
	report_arena a = {0};
	report_evidence *ev = report_evidence_parse(&a, COL(22), COL(23));
	if (!ev) {
		report_arena_free(&a);
		cli_error("history show: out of memory");
		return EXIT_SOFTWARE;
	}
	static const char *const keys[] = {
	    "id",          "run_id",          "observed_at",     "backend",     "provider_id",
	    "claimed_tier", "claimed_mechanism", "observed_tier", "observed_vendor", "confidence",
	    "verdict",     "reason",          "kernel_relation", "ceiling_tier", "duration_ms",
	    "evidence_bytes", "evidence_format", "run_command",  "run_status",  "tool_version",
	    "catalogue_commit", "host"};
	if (json) {
		cJSON *o = cJSON_CreateObject();
		for (int i = 0; o && i < 22; i++) {
			int t = sqlite3_column_type(st, i);
			if (t == SQLITE_INTEGER)
				cJSON_AddNumberToObject(o, keys[i], (double)sqlite3_column_int64(st, i));
			else
				add_str(o, keys[i], t == SQLITE_NULL ? NULL : COL(i));
		}
		/* The stored documents are read as strictly as they were written: a
		 * tampered one (a duplicate key, not JSON) is shown as null with a
		 * warning, never passed on with two readings. */
		cJSON *layers = stored_json(st, 22, "layers");
		cJSON *probe = stored_json(st, 23, "probe");
		if (o) {
			/* What the history gate reads (resolve.c): the machine that made
			 * it, and whether the claim it judged was recorded. */
			add_str(o, "host_id", COL(24));
			cJSON_AddBoolToObject(o, "claim_recorded", sqlite3_column_int(st, 25) != 0);
			cJSON_AddItemToObject(o, "layers", layers ? layers : cJSON_CreateNull());
			cJSON_AddItemToObject(o, "probe", probe ? probe : cJSON_CreateNull());
		}
		char *text = o ? isotier_json_print(o, true) : NULL; /* valid UTF-8 */
		cJSON_Delete(o);
		report_arena_free(&a);
		if (!text) {
			cli_error("history show: out of memory");
			return EXIT_SOFTWARE;
		}
		puts(text);
		free(text);
		return EXIT_OK;
	}
	printf("observation %lld (run %lld)\n", (long long)sqlite3_column_int64(st, 0),
	       (long long)sqlite3_column_int64(st, 1));
	char buf[512];
	line("time", COL(2));
	line("backend", COL(3));
	line("provider", COL(4) ? COL(4) : "no claim");
	snprintf(buf, sizeof buf, "%s (%s)", COL(5) ? COL(5) : "-", COL(6) ? COL(6) : "-");
	line("claimed", COL(5) ? buf : "nothing");
	snprintf(buf, sizeof buf, "%s, vendor %s, confidence %s", COL(7) ? COL(7) : "-",
	         COL(8) ? COL(8) : "-", COL(9) ? COL(9) : "-");
	line("observed", buf);
	line("verdict", COL(10));
	line("reason", COL(11));
	snprintf(buf, sizeof buf, "%s; ceiling %s", COL(12) ? COL(12) : "not compared",
	         COL(13) ? COL(13) : "none shown");
	line("kernel", buf);
	snprintf(buf, sizeof buf, "`%s`, %s; isotier %s; catalogue %s; host %s",
	         COL(17) ? COL(17) : "?", COL(18) ? COL(18) : "?", COL(19) ? COL(19) : "?",
	         COL(20) ? COL(20) : "not in git", COL(21) ? COL(21) : "not recorded");
	line("run", buf);
	snprintf(buf, sizeof buf, "%s; claim judged %s", COL(24) ? COL(24) : "not recorded",
	         sqlite3_column_int(st, 25) ? "recorded" : "not recorded (proves nothing to the gate)");
	line("machine id", buf);
	long long bytes = sqlite3_column_type(st, 15) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 15);
	if (sqlite3_column_type(st, 14) == SQLITE_NULL)
		snprintf(buf, sizeof buf, "not stored; evidence %lld byte%s", bytes,
		         cli_plural((size_t)bytes, "", "s"));
	else
		snprintf(buf, sizeof buf, "%lld ms; evidence %lld byte%s%s%s%s",
		         (long long)sqlite3_column_int64(st, 14), bytes,
		         cli_plural((size_t)bytes, "", "s"), COL(16) ? " (" : "",
		         COL(16) ? COL(16) : "", COL(16) ? ")" : "");
	line("duration", buf);
	print_evidence(ev);
	report_arena_free(&a);
	return EXIT_OK;
}

/* ---- history --sources ---------------------------------------------------- */

int history_sources(isotier_history *h, const source_filter *f, bool json, bool wide)
{
	cleanup_stmt sqlite3_stmt *st = NULL;
	isotier_error err = {0};
	if (sqlite3_prepare_v2(
	        isotier_history_db(h),
	        "SELECT id, checked_at, run_id, provider_id, status, http_status, url,"
	        " content_sha256, detail FROM source_checks"
	        " WHERE (?1 IS NULL OR provider_id = ?1) AND (?2 IS NULL OR checked_at >= ?2)"
	        " AND (?3 IS NULL OR checked_at < ?3) ORDER BY checked_at DESC, id DESC LIMIT ?4",
	        -1, &st, NULL) != SQLITE_OK) {
		isotier_history_sql_error(h, &err, "history --sources");
		return cli_fail(&err);
	}
	sqlite3_bind_text(st, 1, f->provider, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, f->since, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f->until, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, f->limit > 0 ? f->limit : -1);
	static const char *const hdr[] = {"ID",  "TIME", "RUN",  "PROVIDER", "STATUS",
	                                  "HTTP", "SHA256", "URL", "DETAIL"};
	static const int caps[] = {6, 20, 5, 16, 11, 4, 10, 30, 0};
	enum { NCOL = 9 };
	cJSON *doc = json ? cJSON_CreateObject() : NULL, *arr = NULL;
	if (doc) {
		cJSON_AddStringToObject(doc, "schema", "isotier.history.sources/1");
		arr = cJSON_AddArrayToObject(doc, "source_checks");
	}
	char **cells = NULL;
	size_t n = 0, cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (json) {
			cJSON *o = cJSON_CreateObject();
			if (!o)
				break;
			cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
			add_str(o, "checked_at", COL(1));
			cJSON_AddNumberToObject(o, "run_id", (double)sqlite3_column_int64(st, 2));
			add_str(o, "provider_id", COL(3));
			add_str(o, "status", COL(4));
			if (sqlite3_column_type(st, 5) == SQLITE_NULL)
				cJSON_AddNullToObject(o, "http_status");
			else
				cJSON_AddNumberToObject(o, "http_status",
				                        (double)sqlite3_column_int64(st, 5));
			add_str(o, "url", COL(6));
			add_str(o, "content_sha256", COL(7));
			add_str(o, "detail", COL(8));
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			char **nc = realloc(cells, ncap * NCOL * sizeof *nc);
			if (!nc)
				break;
			cells = nc, cap = ncap;
		}
		static const int from[NCOL] = {-1, 1, -1, 3, 4, -1, 7, 6, 8}; /* -1: a number */
		char **row = &cells[n++ * NCOL];
		for (int c = 0; c < NCOL; c++)
			row[c] = from[c] >= 0 && COL(from[c]) ? strdup(COL(from[c])) : NULL;
		if (asprintf(&row[0], "%lld", (long long)sqlite3_column_int64(st, 0)) < 0)
			row[0] = NULL;
		if (asprintf(&row[2], "%lld", (long long)sqlite3_column_int64(st, 2)) < 0)
			row[2] = NULL;
		if (sqlite3_column_type(st, 5) != SQLITE_NULL &&
		    asprintf(&row[5], "%lld", (long long)sqlite3_column_int64(st, 5)) < 0)
			row[5] = NULL;
	}
	int exit_code = EXIT_OK;
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		isotier_history_sql_error(h, &err, "history --sources");
		exit_code = cli_fail(&err);
	} else if (rc == SQLITE_ROW) {
		cli_error("history --sources: out of memory");
		exit_code = EXIT_SOFTWARE;
	} else if (json) {
		char *text = isotier_json_print(doc, true); /* valid UTF-8 */
		if (text)
			puts(text);
		free(text);
	} else if (!n) {
		printf("(no source checks%s)\n", f->provider || f->since || f->until
		                                     ? " match"
		                                     : "; `isotier sources check` records them");
	} else {
		history_table(stdout, hdr, caps, NCOL, (const char *const *)cells, n, wide);
	}
	cJSON_Delete(doc);
	for (size_t i = 0; i < n * NCOL; i++)
		free(cells[i]);
	free(cells);
	return exit_code;
}
