/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_json.c - the report for machines: one JSON document, schema
 * "isotier.report/1" (runbook/report.schema.json). Keys in a fixed order,
 * lists in the model's order: the same model gives the same bytes.
 */
#include "report_format.h"
#include "report_model.h"

#define KEY(name)        fputs("\"" name "\":", f)
#define STR(name, v)     (KEY(name), report_put_json(f, (v)))
#define INT(name, v)     fprintf(f, "\"" name "\":%lld", (long long)(v))
#define OPT_INT(name, v) ((v) < 0 ? fputs("\"" name "\":null", f) : INT(name, v))
#define BOOL(name, v)    fprintf(f, "\"" name "\":%s", (v) ? "true" : "false")
#define SEP              fputc(',', f)

static void put_check(FILE *f, const report_check *c)
{
	if (!c) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	INT("id", c->id), SEP, INT("run_id", c->run_id), SEP;
	STR("checked_at", c->checked_at), SEP, STR("provider_id", c->provider_id), SEP;
	STR("url", c->url), SEP, STR("status", c->status), SEP;
	OPT_INT("http_status", c->http_status), SEP, STR("content_sha256", c->content_sha256), SEP;
	STR("quote", c->quote), SEP, STR("detail", c->detail), SEP;
	STR("change", c->change), SEP, STR("passage_diff", c->passage_diff);
	fputc('}', f);
}

static void put_evidence(FILE *f, const report_evidence *ev)
{
	if (!ev) {
		fputs("null", f);
		return;
	}
	fputs("{\"layers\":[", f);
	for (size_t i = 0; i < ev->n_layers; i++) {
		const report_layer *l = &ev->layers[i];
		if (i)
			SEP;
		fputc('{', f);
		STR("kind", l->kind), SEP, STR("vendor", l->vendor), SEP;
		STR("hypervisor", l->hypervisor), SEP;
		fputs("\"signals\":[", f);
		for (size_t j = 0; j < l->n_signals; j++) {
			const report_signal *s = &l->signals[j];
			if (j)
				SEP;
			fputc('{', f);
			STR("id", s->id), SEP, STR("family", s->family), SEP,
			    STR("source", s->source), SEP;
			STR("value", s->value), SEP;
			STR("weight", s->weight), SEP, STR("supports", s->supports);
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("],\"conflicts\":[", f);
	for (size_t i = 0; i < ev->n_conflicts; i++) {
		if (i)
			SEP;
		report_put_json(f, ev->conflicts[i]);
	}
	fputs("],", f);
	STR("probe_schema", ev->probe_schema), SEP, STR("probe_version", ev->probe_version), SEP;
	STR("kernel", ev->kernel), SEP;
	fputs("\"problems\":[", f);
	for (size_t i = 0; i < ev->n_problems; i++) {
		if (i)
			SEP;
		report_put_json(f, ev->problems[i]);
	}
	fputs("]}", f);
}

static void put_observation(FILE *f, const report_observation *o)
{
	fputc('{', f);
	INT("id", o->id), SEP, INT("run_id", o->run_id), SEP, STR("observed_at", o->observed_at),
	    SEP;
	STR("backend", o->backend), SEP, STR("provider_id", o->provider_id), SEP;
	STR("claimed_tier", o->claimed_tier), SEP, STR("claimed_mechanism", o->claimed_mechanism),
	    SEP;
	STR("observed_tier", o->observed_tier), SEP, STR("observed_vendor", o->observed_vendor),
	    SEP;
	STR("confidence", o->confidence), SEP, STR("verdict", o->verdict), SEP;
	BOOL("attested", o->attested), SEP;
	BOOL("imported", o->imported), SEP, BOOL("unsigned", o->unsigned_row), SEP;
	STR("evidence_sha256", o->evidence_sha256), SEP;
	STR("reason", o->reason), SEP, OPT_INT("duration_ms", o->duration_ms), SEP;
	OPT_INT("sandbox_wall_ms", o->sandbox_wall_ms), SEP;
	OPT_INT("sandbox_cpu_ms", o->sandbox_cpu_ms), SEP, OPT_INT("jobs", o->jobs), SEP;
	OPT_INT("overlap", o->overlap), SEP;
	fputs("\"provenance\":{", f);
	STR("host", o->host), SEP, STR("tool_version", o->tool_version), SEP;
	STR("catalogue_commit", o->catalogue_commit), SEP;
	STR("probe_schema", o->probe_schema ? o->probe_schema
	                    : o->evidence   ? o->evidence->probe_schema
	                                    : NULL);
	fputs("},", f);
	KEY("evidence"), put_evidence(f, o->evidence);
	fputc('}', f);
}

typedef struct json_list_ctx {
	FILE *f;
	size_t n;
} json_list_ctx;

static int json_observation(void *ctx, const report_observation *o)
{
	json_list_ctx *c = ctx;
	FILE *f = c->f;
	if (c->n++)
		SEP;
	fputc('\n', f); /* one observation a line: greppable, diffable */
	put_observation(f, o);
	return 0;
}

static int json_check(void *ctx, const report_check *c)
{
	json_list_ctx *x = ctx;
	FILE *f = x->f;
	if (x->n++)
		SEP;
	fputc('\n', f);
	put_check(f, c);
	return 0;
}

static int json_refusal(void *ctx, const report_audit *a)
{
	json_list_ctx *x = ctx;
	FILE *f = x->f;
	fputs(x->n++ ? ",\n{" : "\n{", f);
	INT("id", a->id), SEP, STR("at", a->at), SEP, STR("event", a->event), SEP;
	STR("sandbox_id", a->sandbox_id), SEP, STR("backend", a->backend), SEP;
	STR("claimed_tier", a->claimed_tier), SEP, STR("resolved_tier", a->resolved_tier), SEP;
	STR("required_tier", a->required_tier), SEP, STR("decision", a->decision), SEP;
	STR("reason", a->reason);
	fputc('}', f);
	return 0;
}

static void put_provider(FILE *f, const report_model *m, const report_provider *p)
{
	(void)m;
	fputc('{', f);
	STR("id", p->id), SEP, STR("provider", p->group), SEP, STR("name", p->name), SEP;
	STR("offering", p->offering), SEP, STR("status", p->status), SEP;
	STR("status_date", p->status_date), SEP, STR("status_url", p->status_url), SEP;
	STR("status_quote", p->status_quote), SEP;
	STR("kind", p->kind), SEP, STR("tier", p->tier), SEP, STR("mechanism", p->mechanism), SEP;
	STR("scope", p->scope), SEP;
	STR("since", p->since), SEP, STR("backend", p->backend), SEP, STR("file", p->file), SEP;
	STR("notes", p->notes), SEP, OPT_INT("source_age_days", p->source_age_days), SEP;
	STR("declared_on", p->declared_on), SEP;
	BOOL("source_stale", p->source_stale), SEP, STR("source_status", p->source_status), SEP;
	fputs("\"sources\":[", f);
	for (size_t i = 0; i < p->n_sources; i++) {
		const report_source *s = &p->sources[i];
		if (i)
			SEP;
		fputc('{', f);
		STR("url", s->url), SEP, STR("title", s->title), SEP,
		    STR("publisher", s->publisher), SEP;
		STR("retrieved", s->retrieved), SEP, STR("verified", s->verified), SEP,
		    STR("expires", s->expires), SEP, OPT_INT("age_days", s->age_days), SEP;
		BOOL("stale", s->stale), SEP, BOOL("defends_tier", (int)i == p->best_source), SEP;
		STR("quote", s->quote), SEP, KEY("latest_check"), put_check(f, s->latest);
		fputc('}', f);
	}
	fputs("],\"history\":[", f);
	for (size_t i = 0; i < p->n_history; i++) {
		const report_prior *r = &p->history[i];
		if (i)
			SEP;
		fputc('{', f);
		STR("tier", r->tier), SEP, STR("mechanism", r->mechanism), SEP;
		STR("until", r->until), SEP, STR("note", r->note);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void put_row(FILE *f, const report_row *r)
{
	const report_provider *p = r->provider;
	const report_observation *o = r->latest;
	fputc('{', f);
	STR("provider_id", r->provider_id), SEP, STR("backend", r->backend), SEP;
	BOOL("in_catalogue", p != NULL), SEP, STR("claimed_tier", r->claimed_tier), SEP;
	STR("declared_on", p ? p->declared_on : NULL), SEP;
	STR("mechanism", r->mechanism), SEP;
	OPT_INT("source_age_days", p ? p->source_age_days : -1), SEP;
	BOOL("source_stale", p && p->source_stale), SEP;
	STR("source_status", p ? p->source_status : NULL), SEP;
	OPT_INT("latest_observation_id", o ? o->id : -1), SEP;
	STR("observed_at", o ? o->observed_at : NULL), SEP;
	STR("observed_tier", o ? o->observed_tier : NULL), SEP;
	STR("observed_vendor", o ? o->observed_vendor : NULL), SEP;
	STR("verdict", o ? o->verdict : NULL), SEP, BOOL("attested", o && o->attested), SEP;
	/* Observed beside declared even when the latest run judged nothing
	 * (UNAVAILABLE, INCONCLUSIVE): the newest judged tier and its day. */
	STR("judged_tier", r->latest_judged ? r->latest_judged->observed_tier : NULL), SEP;
	STR("judged_at", r->latest_judged ? r->latest_judged->observed_at : NULL), SEP;
	INT("observations", r->n_observations), SEP;
	BOOL("overdue", r->overdue), SEP, BOOL("unproven", r->unproven), SEP,
	    BOOL("not_proven", r->not_proven), SEP, BOOL("contradicted", r->contradicted), SEP;
	BOOL("drifted", r->drifted), SEP, STR("state", r->state), SEP;
	STR("section", report_section_name((report_section)r->section)), SEP;
	STR("group", r->group);
	fputc('}', f);
}

int report_write_json(FILE *f, const report_model *m)
{
	fputs("{\"schema\":\"isotier.report/1\",", f);
	STR("tool_version", ISOTIER_VERSION), SEP;
	STR("report_date", m->today[0] ? m->today : NULL), SEP;
	STR("report_date_from", m->today_source), SEP;
	STR("newest_record", m->newest_record), SEP, STR("since", m->since), SEP;
	STR("history", m->db_path), SEP;
	fputs("\"policy\":{", f);
	INT("max_source_age_days", m->max_source_age_days), SEP;
	INT("reverify_days", m->reverify_days), fputs("},", f);
	fputs("\"database\":{", f);
	INT("schema_version", m->schema_version), SEP, INT("runs", m->n_runs), SEP;
	INT("observations", m->n_observations), SEP, INT("source_checks", m->n_checks), SEP;
	INT("refusals", m->n_refusals), fputs("},", f);

	fputs("\"summary\":{", f);
	INT("rows", m->n_rows), SEP, INT("failing", m->n_failing), SEP;
	BOOL("ok", m->n_failing == 0), SEP;
	STR("status", m->status), SEP;
	fputs("\"missing_checks\":[", f);
	for (size_t i = 0; i < m->n_missing; i++) {
		if (i)
			SEP;
		report_put_json(f, m->missing[i]);
	}
	fputs("],\"severities\":{", f);
	for (int k = 0; k < RSEV_COUNT; k++)
		fprintf(f, "%s\"%s\":%zu", k ? "," : "", report_severity_name((report_severity)k),
		        m->n_severity[k]);
	fputs("},", f);
	fputs("\"latest_verdicts\":{", f);
	for (int v = 0; v < RV_COUNT; v++)
		fprintf(f, "%s\"%s\":%zu", v ? "," : "", report_verdict_name((report_verdict)v),
		        m->latest_counts[v]);
	fputs("},\"attention\":{", f);
	for (int k = 0; k < RA_COUNT; k++) {
		size_t n = 0;
		for (size_t i = 0; i < m->n_attention; i++)
			n += m->attention[i].kind == (report_attention_kind)k;
		fprintf(f, "%s\"%s\":%zu", k ? "," : "",
		        report_attention_name((report_attention_kind)k), n);
	}
	fputs("}},", f);

	fputs("\"attention\":[", f);
	for (size_t i = 0; i < m->n_attention; i++) {
		const report_attention *a = &m->attention[i];
		fputs(i ? ",{" : "{", f);
		STR("kind", report_attention_name(a->kind)), SEP, BOOL("failing", a->failing), SEP;
		STR("severity", report_severity_name(a->severity)), SEP;
		STR("subject", a->subject), SEP, STR("detail", a->detail), SEP;
		STR("backend", a->backend), SEP, STR("provider_id", a->provider_id), SEP;
		STR("remedy", a->remedy);
		fputc('}', f);
	}
	fputs("],\"matrix\":[", f);
	for (size_t i = 0; i < m->n_rows; i++) {
		if (i)
			SEP;
		put_row(f, &m->rows[i]);
	}
	fputs("],\"providers\":[", f);
	for (size_t i = 0; i < m->n_providers; i++) {
		if (i)
			SEP;
		put_provider(f, m, &m->providers[i]);
	}
	fputs("],\"observations\":[", f);
	/* Every observation, streamed from the history as it is written: the
	 * model holds only those shown in full (report_scan.c). */
	json_list_ctx oc = {.f = f};
	int rc = report_each_observation(m, json_observation, &oc);
	if (rc < 0)
		return rc;
	/* Every source check and refusal streamed the same way: the model
	 * holds only those the other formats show (report_tables.c). */
	fputs("],\"source_checks\":[", f);
	json_list_ctx cc = {.f = f};
	if ((rc = report_each_check(m, json_check, &cc)) < 0)
		return rc;
	fputs("],\"refusals\":[", f);
	json_list_ctx rf = {.f = f};
	if ((rc = report_each_refusal(m, json_refusal, &rf)) < 0)
		return rc;
	fputs("],\"hosts\":[", f);
	for (size_t i = 0; i < m->n_hosts; i++) {
		const report_host_cell *c = &m->hosts[i];
		fputs(i ? ",\n{" : "\n{", f);
		STR("backend", c->latest->backend), SEP, STR("host", c->host), SEP;
		STR("host_id", c->host_id), SEP, INT("observation_id", c->latest->id), SEP;
		STR("observed_at", c->latest->observed_at), SEP;
		STR("observed_tier", c->latest->observed_tier), SEP,
		    STR("verdict", c->latest->verdict);
		SEP, BOOL("attested", c->latest->attested), SEP, BOOL("disagrees", c->disagrees);
		fputc('}', f);
	}
	fputs("],\"timeline\":{", f);
	STR("unit", m->bucket_unit), fputs(",\"buckets\":[", f);
	for (size_t i = 0; i < m->n_buckets; i++) {
		const report_bucket *b = &m->buckets[i];
		fputs(i ? ",{" : "{", f);
		STR("period", b->period), SEP, INT("total", b->total), fputs(",\"verdicts\":{", f);
		for (int v = 0; v < RV_COUNT; v++)
			fprintf(f, "%s\"%s\":%zu", v ? "," : "",
			        report_verdict_name((report_verdict)v), b->counts[v]);
		fputs("}}", f);
	}
	fputs("]}}\n", f);
	return 0;
}

const report_format report_format_json = {"json", "json", "application/json",
                                          "machines: everything (runbook/report.schema.json)",
                                          report_write_json};
