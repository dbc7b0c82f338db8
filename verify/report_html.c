/*
 * report_html.c - the auditor's report: one self-contained HTML file (inline
 * CSS, no scripts, no network), printable, readable without colour (every
 * verdict is a word; colour only repeats it). Polyglot markup: it parses as
 * HTML and as XML. Everything from the database or the catalogue goes through
 * report_put_xml().
 */
#include "report_model.h"

#include <string.h>

#define E(s) report_put_xml(f, (s))

static const char *const css =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;margin:2em auto;"
    "max-width:78em;padding:0 1em}"
    "h1{font-size:1.6em;margin:0}h2{border-bottom:2px solid "
    "#333;padding-bottom:.2em;margin-top:2em}"
    "h3{margin:1.4em 0 .4em}"
    "table{border-collapse:collapse;width:100%;margin:.5em 0}"
    "th,td{border:1px solid #999;padding:.25em .45em;text-align:left;vertical-align:top}"
    "th{background:#eee}tbody tr:nth-child(even){background:#fafafa}"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".v{font-weight:bold;white-space:nowrap}"
    ".v-confirmed{color:#1b5e20}.v-consistent{color:#2e7d32}.v-exceeds{color:#0d47a1}"
    ".v-contradicted{color:#fff;background:#b71c1c}.v-inconclusive{color:#6d4c00;background:#"
    "fff3c4}"
    ".v-unavailable{color:#555}.v-other{color:#4a148c}"
    ".bad{color:#b71c1c;font-weight:bold}.ok{color:#1b5e20;font-weight:bold}.note{color:#6d4c00}"
    ".overall{font-size:1.2em;padding:.5em .8em;border:3px solid #1b5e20}"
    ".overall.fail{border-color:#b71c1c}"
    "blockquote{margin:.3em 0 .6em 1em;padding:.2em .8em;border-left:4px solid #999;"
    "white-space:pre-wrap;font-style:italic}"
    "code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em;"
    "word-break:break-all}"
    ".meta{color:#333}nav a{margin-right:1em}"
    "svg{max-width:100%;height:auto;border:1px solid #ccc}"
    "@media print{body{margin:0;max-width:none;font-size:10pt;color:#000}nav{display:none}"
    "h2{page-break-after:avoid}tr,blockquote,.evidence{page-break-inside:avoid}"
    "a{color:#000;text-decoration:none}"
    ".v-contradicted{background:none;color:#000;text-decoration:underline}"
    ".v-inconclusive{background:none}}";

static const char *const verdict_colour[RV_COUNT] = {
    "#2e7d32", "#81c784", "#1565c0", "#c62828", "#f9a825", "#9e9e9e", "#6a1b9a",
};

static void verdict_cell(FILE *f, const char *word, report_verdict v)
{
	if (!word) {
		fputs("<td>not observed</td>", f);
		return;
	}
	static const char *const cls[RV_COUNT] = {"confirmed",    "consistent",   "exceeds",
	                                          "contradicted", "inconclusive", "unavailable",
	                                          "other"};
	fprintf(f, "<td class=\"v v-%s\">", cls[v]);
	E(word);
	fputs("</td>", f);
}

static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	if (s)
		E(s);
	else
		fputs("\xe2\x80\x94", f); /* em dash */
	fputs("</td>", f);
}

static void td_num(FILE *f, long long v)
{
	if (v < 0)
		fputs("<td class=\"num\">\xe2\x80\x94</td>", f);
	else
		fprintf(f, "<td class=\"num\">%lld</td>", v);
}

/* A link only for http(s) URLs; anything else (javascript:, data:) is text. */
static void url(FILE *f, const char *u)
{
	if (u && (!strncmp(u, "https://", 8) || !strncmp(u, "http://", 7))) {
		fputs("<a class=\"mono\" href=\"", f);
		E(u);
		fputs("\">", f);
		E(u);
		fputs("</a>", f);
	} else {
		fputs("<span class=\"mono\">", f);
		E(u);
		fputs("</span>", f);
	}
}

static void header(FILE *f, const report_model *m)
{
	fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
	      "<meta charset=\"utf-8\"/>\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
	      "<title>isotier isolation report ",
	      f);
	E(m->today);
	fprintf(f,
	        "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n"
	        "<h1>isotier isolation report</h1>\n<p class=\"meta\">Report date <strong>",
	        css);
	E(m->today[0] ? m->today : "unknown");
	fputs("</strong> (", f);
	E(report_date_source_text(m));
	fputs("). Newest record: ", f);
	E(m->newest_record ? m->newest_record : "none");
	fputs(". Covers ", f);
	if (m->since) {
		fputs("history since ", f);
		E(m->since);
	} else {
		fputs("the whole history", f);
	}
	fprintf(
	    f,
	    ": %lld runs, %zu observations, %zu source checks, %zu refusals (database schema %d)."
	    "</p>\n<p class=\"meta\">Policy: a tier is defended by a provider-published source at "
	    "most %d days old; each local backend is re-verified at least every %d days "
	    "(runbook/cadence.md).</p>\n",
	    (long long)m->n_runs, m->n_observations, m->n_checks, m->n_refusals, m->schema_version,
	    m->max_source_age_days, m->reverify_days);
	if (m->n_failing)
		fprintf(f,
		        "<p class=\"overall fail\"><strong>ATTENTION:</strong> %zu finding%s need "
		        "action "
		        "(see <a href=\"#attention\">Needs attention</a>).</p>\n",
		        m->n_failing, m->n_failing == 1 ? "" : "s");
	else
		fputs("<p class=\"overall\"><strong>OK:</strong> nothing contradicted, drifted, "
		      "stale or "
		      "overdue.</p>\n",
		      f);
	fputs("<nav><a href=\"#attention\">Needs attention</a><a href=\"#matrix\">Tier matrix</a>"
	      "<a href=\"#timeline\">Verdicts over time</a><a href=\"#evidence\">Evidence</a>"
	      "<a href=\"#refusals\">Refusals</a><a href=\"#sources\">Sources</a>"
	      "<a href=\"#log\">Observation log</a></nav>\n</header>\n",
	      f);
}

static void attention(FILE *f, const report_model *m)
{
	fputs("<section id=\"attention\">\n<h2>Needs attention</h2>\n", f);
	if (!m->n_attention) {
		fputs("<p>Nothing.</p>\n</section>\n", f);
		return;
	}
	fputs("<table>\n<thead><tr><th>Alert</th><th>Kind</th><th>Subject</th><th>Detail</th></"
	      "tr></thead>\n"
	      "<tbody>\n",
	      f);
	for (size_t i = 0; i < m->n_attention; i++) {
		const report_attention *a = &m->attention[i];
		fprintf(f, "<tr><td class=\"%s\">%s</td>", a->failing ? "bad" : "",
		        a->failing ? "ALERT" : "note");
		td(f, report_attention_name(a->kind));
		td(f, a->subject);
		td(f, a->detail);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void matrix(FILE *f, const report_model *m)
{
	fputs(
	    "<section id=\"matrix\">\n<h2>Tier matrix</h2>\n<p>One row per provider and backend. "
	    "The claim is the catalogue's; the verdict is the latest observation's.</p>\n<table>\n"
	    "<thead><tr><th>Provider</th><th>Backend</th><th>Claimed tier</th><th>Mechanism</th>"
	    "<th>Source age (days)</th><th>Source check</th><th>Observed tier</th><th>Verdict</th>"
	    "<th>When</th><th>Obs.</th><th>State</th></tr></thead>\n<tbody>\n",
	    f);
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[i];
		const report_observation *o = r->latest;
		fputs("<tr>", f);
		if (r->provider) {
			fputs("<td><a href=\"#p-", f);
			E(r->provider_id);
			fputs("\">", f);
			E(r->provider_id);
			fputs("</a></td>", f);
		} else {
			td(f, r->provider_id ? r->provider_id : "(no claim)");
		}
		td(f, r->backend);
		td(f, r->claimed_tier);
		td(f, r->mechanism);
		td_num(f, r->provider ? r->provider->source_age_days : -1);
		td(f, r->provider ? r->provider->source_status : NULL);
		td(f, o ? o->observed_tier : NULL);
		verdict_cell(f, o ? o->verdict : NULL, o ? o->v : RV_OTHER);
		td(f, o ? o->observed_at : NULL);
		td_num(f, (long long)r->n_observations);
		bool alert = r->contradicted || r->drifted || r->overdue ||
		             (r->provider && r->provider->source_stale);
		fprintf(f, "<td class=\"%s\">",
		        alert                    ? "bad"
		        : strcmp(r->state, "ok") ? "note"
		                                 : "ok");
		E(r->state);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void timeline(FILE *f, const report_model *m)
{
	fputs("<section id=\"timeline\">\n<h2>Verdicts over time</h2>\n", f);
	if (!m->n_buckets) {
		fputs("<p>No observations.</p>\n</section>\n", f);
		return;
	}
	size_t max = 1;
	for (size_t i = 0; i < m->n_buckets; i++)
		if (m->buckets[i].total > max)
			max = m->buckets[i].total;
	const double x0 = 50, y0 = 10, w = 700, h = 150;
	double bw = w / (double)m->n_buckets;
	fprintf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 760 230\" width=\"760\" "
	    "height=\"230\" role=\"img\" aria-label=\"Verdicts per %s; the table below gives the "
	    "numbers\">\n<title>Verdicts per %s</title>\n",
	    m->bucket_unit, m->bucket_unit);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", x0,
	        y0 + h, x0 + w, y0 + h);
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%zu</text>\n"
	        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">0</text>\n",
	        x0 - 4, y0 + 9, max, x0 - 4, y0 + h);
	for (size_t i = 0; i < m->n_buckets; i++) {
		const report_bucket *b = &m->buckets[i];
		double y = y0 + h;
		for (int v = 0; v < RV_COUNT; v++) {
			if (!b->counts[v])
				continue;
			double bh = h * (double)b->counts[v] / (double)max;
			y -= bh;
			fprintf(f,
			        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			        "fill=\"%s\">"
			        "<title>",
			        x0 + bw * (double)i + bw * 0.1, y, bw * 0.8, bh, verdict_colour[v]);
			E(b->period);
			fprintf(f, " %s: %zu</title></rect>\n",
			        report_verdict_name((report_verdict)v), b->counts[v]);
		}
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x0, y0 + h + 14);
	E(m->buckets[0].period);
	fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">",
	        x0 + w, y0 + h + 14);
	E(m->buckets[m->n_buckets - 1].period);
	fputs("</text>\n", f);
	for (int v = 0; v < RV_COUNT; v++) { /* legend: colour and word */
		double lx = x0 + (double)(v % 4) * 175, ly = y0 + h + 32 + (double)(v / 4) * 18;
		fprintf(f,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n",
		        lx, ly - 10, verdict_colour[v], lx + 16, ly,
		        report_verdict_name((report_verdict)v));
	}
	fputs("</svg>\n<table>\n<thead><tr><th>Period</th><th>Total</th>", f);
	for (int v = 0; v < RV_COUNT; v++)
		fprintf(f, "<th>%s</th>", report_verdict_name((report_verdict)v));
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = m->n_buckets; i-- > 0;) {
		const report_bucket *b = &m->buckets[i];
		fputs("<tr>", f);
		td(f, b->period);
		td_num(f, (long long)b->total);
		for (int v = 0; v < RV_COUNT; v++)
			td_num(f, (long long)b->counts[v]);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void evidence_block(FILE *f, const report_observation *o)
{
	const report_evidence *ev = o->evidence;
	fprintf(f,
	        "<div class=\"evidence\" id=\"o-%lld\">\n<h3>Observation %lld: ", (long long)o->id,
	        (long long)o->id);
	E(o->backend);
	if (o->provider_id) {
		fputs(" / ", f);
		E(o->provider_id);
	}
	fputs(" \xe2\x80\x94 ", f);
	E(o->verdict);
	fputs("</h3>\n<table>\n<tbody>\n<tr><th>When</th>", f);
	td(f, o->observed_at);
	fprintf(f, "<th>Run</th><td class=\"num\">%lld</td></tr>\n<tr><th>Claimed</th>",
	        (long long)o->run_id);
	td(f, o->claimed_tier);
	fputs("<th>Claimed mechanism</th>", f);
	td(f, o->claimed_mechanism);
	fputs("</tr>\n<tr><th>Observed</th>", f);
	td(f, o->observed_tier);
	fputs("<th>Vendor</th>", f);
	td(f, o->observed_vendor);
	fputs("</tr>\n<tr><th>Verdict</th>", f);
	verdict_cell(f, o->verdict, o->v);
	fputs("<th>Confidence</th>", f);
	td(f, o->confidence);
	fputs("</tr>\n<tr><th>Reason</th><td colspan=\"3\">", f);
	E(o->reason ? o->reason : "\xe2\x80\x94");
	fputs("</td></tr>\n<tr><th>Probe</th><td colspan=\"3\">", f);
	E(ev->probe_schema ? ev->probe_schema : "?");
	fputs(" ", f);
	E(ev->probe_version ? ev->probe_version : "");
	fputs("; kernel: ", f);
	E(ev->kernel ? ev->kernel : "?");
	fputs("</td></tr>\n</tbody>\n</table>\n", f);
	if (ev->n_layers) {
		fputs("<table>\n<thead><tr><th>Layer (outermost "
		      "first)</th><th>Kind</th><th>Vendor</th>"
		      "<th>Signals that decided it</th></tr></thead>\n<tbody>\n",
		      f);
		for (size_t i = 0; i < ev->n_layers; i++) {
			const report_layer *l = &ev->layers[i];
			fprintf(f, "<tr><td class=\"num\">%zu</td>", i + 1);
			td(f, l->kind);
			fputs("<td>", f);
			E(l->vendor ? l->vendor : "\xe2\x80\x94");
			if (l->hypervisor) {
				fputs(" / ", f);
				E(l->hypervisor);
			}
			fputs("</td>", f);
			fputs("<td>", f);
			if (!l->n_signals)
				fputs("none recorded", f);
			else
				fputs("<ul>", f);
			for (size_t j = 0; j < l->n_signals; j++) {
				const report_signal *s = &l->signals[j];
				fputs("<li><code>", f);
				E(s->id ? s->id : "?");
				fputs("</code>", f);
				if (s->family || s->weight) {
					fputs(" (", f);
					E(s->family ? s->family : "?");
					fputs(", ", f);
					E(s->weight ? s->weight : "?");
					fputs(")", f);
				}
				if (s->source) {
					fputs(" from ", f);
					E(s->source);
				}
				if (s->value) {
					fputs(": <code>", f);
					E(s->value);
					fputs("</code>", f);
				}
				if (s->supports) {
					fputs(" \xe2\x86\x92 ", f);
					E(s->supports);
				}
				fputs("</li>", f);
			}
			fputs(l->n_signals ? "</ul></td></tr>\n" : "</td></tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	} else {
		fputs("<p>No layers recorded.</p>\n", f);
	}
	if (ev->n_conflicts) {
		fputs("<p><strong>Conflicts</strong> (weak evidence overruled by "
		      "strong):</p>\n<ul>\n",
		      f);
		for (size_t i = 0; i < ev->n_conflicts; i++) {
			fputs("<li>", f);
			E(ev->conflicts[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	if (ev->n_problems) {
		fputs("<p><strong>Could not read all stored evidence:</strong></p>\n<ul>\n", f);
		for (size_t i = 0; i < ev->n_problems; i++) {
			fputs("<li>", f);
			E(ev->problems[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("</div>\n", f);
}

static void evidence(FILE *f, const report_model *m)
{
	fprintf(f,
	        "<section id=\"evidence\">\n<h2>Evidence</h2>\n<p>The latest observation of each "
	        "backend, and the %d most recent that did not back their claim, newest first. The "
	        "JSON report and the database hold the rest.</p>\n",
	        REPORT_EVIDENCE_MAX);
	for (size_t i = m->n_observations; i-- > 0;)
		if (m->observations[i].evidence)
			evidence_block(f, &m->observations[i]);
	if (!m->n_evidence)
		fputs("<p>No observations.</p>\n", f);
	fputs("</section>\n", f);
}

static void refusals(FILE *f, const report_model *m)
{
	fputs("<section id=\"refusals\">\n<h2>Refusals</h2>\n", f);
	if (!m->n_refusals) {
		fputs("<p>No refusals recorded.</p>\n</section>\n", f);
		return;
	}
	size_t shown = m->n_refusals < REPORT_REFUSALS_MAX ? m->n_refusals : REPORT_REFUSALS_MAX;
	fprintf(
	    f,
	    "<p>%zu refusal%s by <code>isotier_create()</code>; newest %zu shown, newest first."
	    "</p>\n<table>\n<thead><tr><th>When</th><th>Event</th><th>Backend</th><th>Claimed</th>"
	    "<th>Resolved</th><th>Required</th><th>Decision</th><th>Reason</th></tr></thead>\n"
	    "<tbody>\n",
	    m->n_refusals, m->n_refusals == 1 ? "" : "s", shown);
	for (size_t k = 0; k < shown; k++) {
		const report_audit *a = &m->refusals[m->n_refusals - 1 - k];
		fputs("<tr>", f);
		td(f, a->at), td(f, a->event), td(f, a->backend), td(f, a->claimed_tier);
		td(f, a->resolved_tier), td(f, a->required_tier), td(f, a->decision),
		    td(f, a->reason);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void sources(FILE *f, const report_model *m)
{
	fputs("<section id=\"sources\">\n<h2>Sources</h2>\n", f);
	if (!m->n_providers)
		fputs("<p>No catalogue loaded.</p>\n", f);
	for (size_t i = 0; i < m->n_providers; i++) {
		const report_provider *p = &m->providers[i];
		if (!i || strcmp(m->providers[i - 1].group, p->group)) /* offerings by provider */
			fputs("<h3 class=\"provider\" id=\"g-", f), E(p->group),
			    fputs("\">Provider ", f), E(p->group), fputs("</h3>\n", f);
		fputs("<h4 id=\"p-", f);
		E(p->id);
		fputs("\">", f);
		E(p->id);
		fputs(": ", f);
		E(p->name);
		if (p->offering) {
			fputs(" (", f);
			E(p->offering);
			fputs(")", f);
		}
		fputs("</h4>\n<p>Claimed <strong>", f);
		E(p->tier);
		fputs("</strong> (", f);
		E(p->mechanism);
		fputs(") since ", f);
		E(p->since ? p->since : "?");
		fputs("; ", f);
		E(p->kind);
		if (p->backend) {
			fputs(", backend <code>", f);
			E(p->backend);
			fputs("</code>", f);
		}
		fputs("; file <code>", f);
		E(p->file);
		fputs("</code>.", f);
		if (p->source_stale)
			fputs(" <span class=\"bad\">SOURCE STALE: the tier is not defended by a "
			      "source "
			      "within the max age.</span>",
			      f);
		if (strcmp(p->status, "current")) { /* the URL is shown, never linked */
			fputs(" <span class=\"bad\">", f), E(p->status), fputs("</span> ", f);
			E(p->status_date), fputs(": \xe2\x80\x9c", f), E(p->status_quote);
			fputs("\xe2\x80\x9d (", f), E(p->status_url), fputs(")", f);
		}
		fputs("</p>\n", f);
		if (p->notes) {
			fputs("<p>", f);
			E(p->notes);
			fputs("</p>\n", f);
		}
		fputs("<ul>\n", f);
		for (size_t j = 0; j < p->n_sources; j++) {
			const report_source *s = &p->sources[j];
			fputs("<li>", f);
			if (s->title) {
				E(s->title);
				fputs(": ", f);
			}
			url(f, s->url);
			fputs(" \xe2\x80\x94 ", f);
			E(s->publisher);
			fputs(", retrieved ", f);
			E(s->retrieved);
			if (s->age_days >= 0)
				fprintf(f, " (%d days)", s->age_days);
			if (s->stale)
				fputs(" <span class=\"bad\">STALE</span>", f);
			if ((int)j == p->best_source)
				fputs(" <strong>defends the tier</strong>", f);
			fputs("; latest check: ", f);
			if (s->latest) {
				fprintf(f, "<strong class=\"%s\">",
				        !strcmp(s->latest->status, "PRESENT") ? "ok" : "bad");
				E(s->latest->status);
				fputs("</strong> at ", f);
				E(s->latest->checked_at);
				if (s->latest->http_status >= 0)
					fprintf(f, " (HTTP %lld)",
					        (long long)s->latest->http_status);
				if (s->latest->detail) {
					fputs(": ", f);
					E(s->latest->detail);
				}
			} else {
				fputs("never checked", f);
			}
			fputs("<blockquote>", f);
			E(s->quote);
			fputs("</blockquote></li>\n", f);
		}
		fputs("</ul>\n", f);
		if (p->n_history) {
			fputs("<p>Earlier claims:</p>\n<ul>\n", f);
			for (size_t j = 0; j < p->n_history; j++) {
				const report_prior *r = &p->history[j];
				fputs("<li>", f);
				E(r->tier);
				fputs(" (", f);
				E(r->mechanism);
				fputs(") until ", f);
				E(r->until);
				fputs(": ", f);
				E(r->note);
				fputs("</li>\n", f);
			}
			fputs("</ul>\n", f);
		}
	}
	fputs("</section>\n", f);
}

static void observation_log(FILE *f, const report_model *m)
{
	size_t shown = m->n_observations < REPORT_LOG_MAX ? m->n_observations : REPORT_LOG_MAX;
	fprintf(f,
	        "<section id=\"log\">\n<h2>Observation log</h2>\n<p>%zu observation%s; the newest "
	        "%zu shown, newest first.</p>\n<table>\n<thead><tr><th>#</th><th>When</th>"
	        "<th>Backend</th><th>Provider</th><th>Claimed</th><th>Observed</th><th>Verdict</th>"
	        "<th>ms</th><th>Reason</th></tr></thead>\n<tbody>\n",
	        m->n_observations, m->n_observations == 1 ? "" : "s", shown);
	for (size_t k = 0; k < shown; k++) {
		const report_observation *o = &m->observations[m->n_observations - 1 - k];
		if (o->evidence)
			fprintf(f, "<tr><td class=\"num\"><a href=\"#o-%lld\">%lld</a></td>",
			        (long long)o->id, (long long)o->id);
		else
			fprintf(f, "<tr><td class=\"num\">%lld</td>", (long long)o->id);
		td(f, o->observed_at), td(f, o->backend), td(f, o->provider_id),
		    td(f, o->claimed_tier);
		td(f, o->observed_tier);
		verdict_cell(f, o->verdict, o->v);
		td_num(f, o->duration_ms);
		td(f, o->reason);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

int report_write_html(FILE *f, const report_model *m)
{
	header(f, m);
	fputs("<main>\n", f);
	attention(f, m);
	matrix(f, m);
	timeline(f, m);
	evidence(f, m);
	refusals(f, m);
	sources(f, m);
	observation_log(f, m);
	fprintf(
	    f,
	    "</main>\n<footer><p class=\"meta\">Written by isotier %s from the history database "
	    "and the catalogue. The same database, catalogue and report date give the same "
	    "bytes.</p></footer>\n</body>\n</html>\n",
	    ISOTIER_VERSION);
	return 0;
}
