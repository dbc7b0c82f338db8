/* SPDX-License-Identifier: Apache-2.0 */
/*
 * history_table.c - `isotier history`'s output: a table that fits 100
 * columns (or, --wide, shows everything), one observation with the evidence
 * behind it (`history show ID`: no SQL client needed), and the source
 * checks (`history --sources`). Every stored string is hostile: written
 * through isotier__fputs_inline (terminal-safe) or cJSON (JSON-escaped).
 */
#include "history_table.h"

#include "../cmd/cli.h"
#include "../report/report_model.h"

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
		isotier__fputs_inline(f, buf);
		n = k + 1;
	} else {
		isotier__fputs_inline(f, v);
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

/* ---- the sandbox's own times (schema 8) ---------------------------------- */

/* A stored count as JSON: null where the row holds NULL (older rows, or not
 * measured), never a made-up 0. */
static void add_count(cJSON *o, const char *k, int64_t v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, k, (double)v);
	else
		cJSON_AddNullToObject(o, k);
}

void history_json_sandbox_times(cJSON *o, const isotier_observation_listing *l)
{
	add_count(o, "sandbox_wall_ms", l->sandbox_wall_ms);
	add_count(o, "sandbox_cpu_ms", l->sandbox_cpu_ms);
	add_count(o, "jobs", l->jobs);
	add_count(o, "overlap", l->overlap);
}

static void ms_or_dash(char *buf, size_t len, int64_t v)
{
	if (v >= 0)
		snprintf(buf, len, "%lld ms", (long long)v);
	else
		snprintf(buf, len, "-");
}

void history_sandbox_times_text(char *buf, size_t len, const isotier_observation_listing *l)
{
	if (l->sandbox_wall_ms < 0 && l->sandbox_cpu_ms < 0 && l->jobs < 0 && l->overlap < 0) {
		snprintf(buf, len, "not stored (recorded before schema 8)");
		return;
	}
	char wall[32], cpu[32];
	ms_or_dash(wall, sizeof wall, l->sandbox_wall_ms);
	ms_or_dash(cpu, sizeof cpu, l->sandbox_cpu_ms);
	/* The wall time alone misleads when others ran beside it: say so. */
	snprintf(buf, len, "wall %s, CPU %s%s; --jobs %lld, %lld at once%s", wall, cpu,
	         l->sandbox_cpu_ms < 0 ? " (not measurable for this backend)" : "",
	         (long long)l->jobs, (long long)l->overlap,
	         l->overlap > 1 ? " (wall includes waiting for the others)" : "");
}

void history_cell_cpu(char *buf, size_t len, const isotier_observation_listing *l)
{
	ms_or_dash(buf, len, l->sandbox_cpu_ms);
}

void history_cell_wall(char *buf, size_t len, const isotier_observation_listing *l)
{
	ms_or_dash(buf, len, l->sandbox_wall_ms);
	if (l->sandbox_wall_ms >= 0 && l->overlap > 1) /* x2: ran with another beside it */
		snprintf(buf + strlen(buf), len - strlen(buf), " x%lld", (long long)l->overlap);
}

/* ---- history show ID ----------------------------------------------------- */

static void line(const char *label, const char *value)
{
	printf("  %-12s ", label);
	isotier__fputs_inline(stdout, value && *value ? value : "-");
	fputc('\n', stdout);
}

static void add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

/* A stored JSON document through the strict parser, or NULL (absent, or
 * refused: then a warning on stderr names the column and why). */
static cJSON *stored_json(const char *text, const char *what)
{
	if (!text)
		return NULL;
	isotier_error err = {0};
	/* The probe's reader: the bounds the judge read them with. */
	cJSON *doc =
	    isotier__probe_json_read(text, strnlen(text, PROBE_RESULT_MAX_BYTES + 1), what, &err);
	if (!doc) {
		fputs("isotier: warning: history show: stored ", stderr);
		isotier__fputs_inline(stderr, err.message);
		fputs(" (shown as null)\n", stderr);
	}
	return doc;
}

static void print_evidence(const report_evidence *ev)
{
	printf("evidence (probe ");
	isotier__fputs_inline(stdout, ev->probe_schema ? ev->probe_schema : "schema not stored");
	fputc(' ', stdout);
	isotier__fputs_inline(stdout, ev->probe_version ? ev->probe_version : "");
	printf("; kernel ");
	isotier__fputs_inline(stdout, ev->kernel ? ev->kernel : "not stored");
	printf("):\n");
	if (!ev->n_layers)
		printf("  no layers recorded\n");
	for (size_t i = 0; i < ev->n_layers; i++) {
		const report_layer *l = &ev->layers[i];
		printf("  layer %zu (outermost first): ", i + 1);
		isotier__fputs_inline(stdout, l->kind ? l->kind : "?");
		fputc(' ', stdout);
		isotier__fputs_inline(stdout, l->vendor ? l->vendor : "-");
		if (l->hypervisor) {
			fputs(" / ", stdout);
			isotier__fputs_inline(stdout, l->hypervisor);
		}
		fputc('\n', stdout);
		for (size_t j = 0; j < l->n_signals; j++) {
			const report_signal *s = &l->signals[j];
			fputs("    - ", stdout);
			isotier__fputs_inline(stdout, s->id ? s->id : "?");
			printf(" (");
			isotier__fputs_inline(stdout, s->family ? s->family : "?");
			printf(", ");
			isotier__fputs_inline(stdout, s->weight ? s->weight : "?");
			printf(")");
			if (s->source) {
				printf(" from ");
				isotier__fputs_inline(stdout, s->source);
			}
			if (s->value) {
				printf(": ");
				isotier__fputs_inline(stdout, s->value);
			}
			if (s->supports) {
				printf(" -> ");
				isotier__fputs_inline(stdout, s->supports);
			}
			fputc('\n', stdout);
		}
	}
	for (size_t i = 0; i < ev->n_conflicts; i++) {
		printf("  conflict: ");
		isotier__fputs_inline(stdout, ev->conflicts[i]);
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < ev->n_problems; i++) {
		printf("  could not read: ");
		isotier__fputs_inline(stdout, ev->problems[i]);
		fputc('\n', stdout);
	}
}

typedef struct show_ctx {
	bool json;
	int exit_code;
} show_ctx;

static int show_json(const isotier_observation_detail *d, const report_evidence *ev)
{
	(void)ev;
	const isotier_observation_listing *l = &d->l;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return -1;
	cJSON_AddNumberToObject(o, "id", (double)l->id);
	cJSON_AddNumberToObject(o, "run_id", (double)l->run_id);
	add_str(o, "observed_at", l->observed_at);
	add_str(o, "backend", l->backend);
	add_str(o, "provider_id", l->provider_id);
	add_str(o, "claimed_tier", l->claimed_tier);
	add_str(o, "claimed_mechanism", l->claimed_mechanism);
	add_str(o, "observed_tier", l->observed_tier);
	add_str(o, "observed_vendor", l->observed_vendor);
	add_str(o, "confidence", l->confidence);
	add_str(o, "verdict", l->verdict);
	add_str(o, "reason", l->reason);
	add_str(o, "kernel_relation", d->kernel_relation);
	add_str(o, "ceiling_tier", d->ceiling_tier);
	if (d->has_duration)
		cJSON_AddNumberToObject(o, "duration_ms", (double)l->duration_ms);
	else
		cJSON_AddNullToObject(o, "duration_ms");
	history_json_sandbox_times(o, l);
	if (l->evidence_bytes || d->evidence_format)
		cJSON_AddNumberToObject(o, "evidence_bytes", (double)l->evidence_bytes);
	else
		cJSON_AddNullToObject(o, "evidence_bytes");
	add_str(o, "evidence_format", d->evidence_format);
	add_str(o, "run_command", d->run_command);
	add_str(o, "run_status", l->run_status);
	add_str(o, "tool_version", l->tool_version);
	add_str(o, "catalogue_commit", l->catalogue_commit);
	add_str(o, "host", l->host);
	add_str(o, "uuid", l->uuid);
	/* The stored documents are read as strictly as they were written: a
	 * tampered one (a duplicate key, not JSON) is shown as null with a
	 * warning, never passed on with two readings. */
	cJSON *layers = stored_json(d->layers_json, "layers");
	cJSON *probe = stored_json(d->probe_json, "probe");
	/* What the history gate reads (resolve.c): the machine that made it,
	 * and whether the claim it judged was recorded. */
	add_str(o, "host_id", l->host_id);
	cJSON_AddBoolToObject(o, "claim_recorded", d->claim_recorded);
	cJSON_AddItemToObject(o, "layers", layers ? layers : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "probe", probe ? probe : cJSON_CreateNull());
	return cli_print_json(o);
}

static void show_text(const isotier_observation_detail *d, const report_evidence *ev)
{
	const isotier_observation_listing *l = &d->l;
	printf("observation %lld (run %lld)\n", (long long)l->id, (long long)l->run_id);
	char buf[512];
	line("time", l->observed_at);
	line("backend", l->backend);
	line("provider", l->provider_id ? l->provider_id : "no claim");
	snprintf(buf, sizeof buf, "%s (%s)", l->claimed_tier ? l->claimed_tier : "-",
	         l->claimed_mechanism ? l->claimed_mechanism : "-");
	line("claimed", l->claimed_tier ? buf : "nothing");
	snprintf(buf, sizeof buf, "%s, vendor %s, confidence %s",
	         l->observed_tier ? l->observed_tier : "-",
	         l->observed_vendor ? l->observed_vendor : "-",
	         l->confidence ? l->confidence : "-");
	line("observed", buf);
	line("verdict", l->verdict);
	line("reason", l->reason);
	snprintf(buf, sizeof buf, "%s; ceiling %s",
	         d->kernel_relation ? d->kernel_relation : "not compared",
	         d->ceiling_tier ? d->ceiling_tier : "none shown");
	line("kernel", buf);
	snprintf(buf, sizeof buf, "`%s`, %s; isotier %s; catalogue %s; host %s",
	         d->run_command ? d->run_command : "?", l->run_status ? l->run_status : "?",
	         l->tool_version ? l->tool_version : "?",
	         l->catalogue_commit ? l->catalogue_commit : "not in git",
	         l->host ? l->host : "not recorded");
	line("run", buf);
	snprintf(buf, sizeof buf, "%s; claim judged %s", l->host_id ? l->host_id : "not recorded",
	         d->claim_recorded ? "recorded" : "not recorded (proves nothing to the gate)");
	line("machine id", buf);
	long long bytes = l->evidence_bytes;
	if (!d->has_duration)
		snprintf(buf, sizeof buf, "not stored; evidence %lld byte%s", bytes,
		         cli_plural((size_t)bytes, "", "s"));
	else
		snprintf(buf, sizeof buf, "%lld ms; evidence %lld byte%s%s%s%s",
		         (long long)l->duration_ms, bytes, cli_plural((size_t)bytes, "", "s"),
		         d->evidence_format ? " (" : "",
		         d->evidence_format ? d->evidence_format : "",
		         d->evidence_format ? ")" : "");
	line("duration", buf);
	history_sandbox_times_text(buf, sizeof buf, l);
	line("sandbox", buf);
	print_evidence(ev);
}

static int show_row(void *ctx, const isotier_observation_detail *d)
{
	show_ctx *sc = ctx;
	report_arena a = {0};
	report_evidence *ev = report_evidence_parse(&a, d->layers_json, d->probe_json);
	if (!ev) {
		report_arena_free(&a);
		cli_error("history show: out of memory");
		sc->exit_code = EXIT_SOFTWARE;
		return 0;
	}
	if (sc->json) {
		if (show_json(d, ev) < 0) {
			cli_error("history show: out of memory");
			sc->exit_code = EXIT_SOFTWARE;
		}
	} else {
		show_text(d, ev);
	}
	report_arena_free(&a);
	return 0;
}

int history_show(isotier_history *h, long long id, bool json)
{
	show_ctx sc = {json, EXIT_OK};
	isotier_error err = {0};
	int rc = isotier__history_get_observation(h, id, REPORT_LAYERS_JSON_MAX,
	                                          REPORT_PROBE_JSON_MAX, show_row, &sc, &err);
	if (rc < 0)
		return cli_fail(&err);
	if (rc == 0) {
		cli_error("history show: no observation %lld (`isotier history` lists them)", id);
		return EXIT_NOINPUT;
	}
	return sc.exit_code;
}

/* ---- history --sources ---------------------------------------------------- */

typedef struct sources_ctx {
	bool json;
	cJSON *arr;
	char **cells;
	size_t n, cap;
	bool oom;
} sources_ctx;

enum { NCOL = 9 };

static char *num_or_null(int64_t v, bool present)
{
	char *s = NULL;
	if (present && asprintf(&s, "%lld", (long long)v) < 0)
		s = NULL;
	return s;
}

static int source_row(void *ctx, const isotier_source_check_listing *c)
{
	sources_ctx *sc = ctx;
	if (sc->json) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return sc->oom = true, 1;
		cJSON_AddNumberToObject(o, "id", (double)c->id);
		add_str(o, "checked_at", c->checked_at);
		cJSON_AddNumberToObject(o, "run_id", (double)c->run_id);
		add_str(o, "provider_id", c->provider_id);
		add_str(o, "status", c->status);
		if (c->http_status < 0)
			cJSON_AddNullToObject(o, "http_status");
		else
			cJSON_AddNumberToObject(o, "http_status", (double)c->http_status);
		add_str(o, "url", c->url);
		add_str(o, "content_sha256", c->content_sha256);
		add_str(o, "detail", c->detail);
		cJSON_AddItemToArray(sc->arr, o);
		return 0;
	}
	if (sc->n == sc->cap) {
		size_t ncap = sc->cap ? sc->cap * 2 : 64;
		char **nc = realloc(sc->cells, ncap * NCOL * sizeof *nc);
		if (!nc)
			return sc->oom = true, 1;
		sc->cells = nc, sc->cap = ncap;
	}
	char **row = &sc->cells[sc->n++ * NCOL];
	const char *from[NCOL] = {NULL, c->checked_at,     NULL,   c->provider_id, c->status,
	                          NULL, c->content_sha256, c->url, c->detail};
	for (int k = 0; k < NCOL; k++)
		row[k] = from[k] ? strdup(from[k]) : NULL;
	row[0] = num_or_null(c->id, true);
	row[2] = num_or_null(c->run_id, true);
	row[5] = num_or_null(c->http_status, c->http_status >= 0);
	return 0;
}

int history_sources(isotier_history *h, const source_filter *f, bool json, bool wide)
{
	isotier_error err = {0};
	static const char *const hdr[] = {"ID",   "TIME",   "RUN", "PROVIDER", "STATUS",
	                                  "HTTP", "SHA256", "URL", "DETAIL"};
	static const int caps[] = {6, 20, 5, 16, 11, 4, 10, 30, 0};
	sources_ctx sc = {.json = json};
	cJSON *doc = json ? cJSON_CreateObject() : NULL;
	if (doc) {
		cJSON_AddStringToObject(doc, "schema", "isotier.history.sources/1");
		sc.arr = cJSON_AddArrayToObject(doc, "source_checks");
	}
	int rc = json && !sc.arr
	             ? (sc.oom = true, 0)
	             : isotier__history_list_source_checks(
	                   h, &(isotier_source_filter){f->provider, f->since, f->until, f->limit},
	                   source_row, &sc, &err);
	int exit_code = EXIT_OK;
	if (rc < 0) {
		exit_code = cli_fail(&err);
	} else if (sc.oom) {
		cli_error("history --sources: out of memory");
		exit_code = EXIT_SOFTWARE;
	} else if (json) {
		cli_print_json(doc);
		doc = NULL;
	} else if (!sc.n) {
		printf("(no source checks%s)\n", f->provider || f->since || f->until
		                                     ? " match"
		                                     : "; `isotier sources check` records them");
	} else {
		history_table(stdout, hdr, caps, NCOL, (const char *const *)sc.cells, sc.n, wide);
	}
	cJSON_Delete(doc);
	for (size_t i = 0; i < sc.n * NCOL; i++)
		free(sc.cells[i]);
	free(sc.cells);
	return exit_code;
}
