/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html.c - the auditor's report: one self-contained HTML file (inline
 * CSS, no scripts, no network), printable, readable without colour (every
 * verdict is a word; colour only repeats it). Polyglot markup: it parses as
 * HTML and as XML. Everything from the database or the catalogue goes through
 * report_put_xml().
 */
#include "report_format.h"
#include "report_html.h"

#include <stdlib.h>
#include <string.h>

static const char *const css =
    /* Latin first, then fonts that cover CJK, Hangul, Arabic, Devanagari... */
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI','Noto Sans','Noto Sans CJK JP',"
    "'Noto Sans JP','Source Han Sans','Hiragino Sans','Hiragino Kaku Gothic ProN','Yu Gothic',"
    "Meiryo,'Microsoft YaHei','PingFang SC','WenQuanYi Micro Hei','Apple SD Gothic Neo',"
    "'Malgun Gothic','Noto Sans Arabic','Noto Sans Devanagari','DejaVu Sans',sans-serif;"
    "color:#111;margin:2em auto;max-width:78em;padding:0 1em}"
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
    /* Not contradicted, not proven: never the green of a proof. */
    ".v-not-contradicted{color:#006064;font-style:italic}"
    ".bad{color:#b71c1c;font-weight:bold}.ok{color:#1b5e20;font-weight:bold}.note{color:#6d4c00}"
    ".overall{font-size:1.2em;padding:.2em .8em;border:3px solid #1b5e20;margin:.6em 0}"
    ".overall.fail{border-color:#b71c1c;background:#fdecea}"
    ".overall.warn{border-color:#e65100;border-style:dashed;background:#fff3e0}"
    ".overall.pass{background:#e8f5e9}.overall ul{font-size:.85em}"
    "td.sev{font-weight:bold;white-space:nowrap}.sev-alert td.sev{color:#b71c1c}"
    ".sev-warn td.sev{color:#e65100}.sev-note td.sev{color:#555;font-weight:normal}"
    "tr.group th{background:#dde;text-align:left}summary{cursor:pointer}"
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
    [RV_CONFIRMED] = "#2e7d32",        [RV_CONSISTENT] = "#81c784",   [RV_EXCEEDS] = "#1565c0",
    [RV_NOT_CONTRADICTED] = "#00838f", [RV_CONTRADICTED] = "#c62828", [RV_INCONCLUSIVE] = "#f9a825",
    [RV_UNAVAILABLE] = "#9e9e9e",      [RV_OTHER] = "#6a1b9a",
};

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
	        "<h1>isotier isolation report</h1>\n",
	        css);
	/* The banner first: green only when every required check ran and passed. */
	const char *cls = !strcmp(m->status, "ALERT")        ? "fail"
	                  : !strcmp(m->status, "INCOMPLETE") ? "warn"
	                                                     : "pass";
	fprintf(f, "<div class=\"overall %s\" id=\"banner\"><p><strong>", cls);
	E(m->status);
	fputs(":</strong> ", f);
	E(m->summary);
	if (m->n_severity[RSEV_ALERT] || m->n_severity[RSEV_WARN])
		fputs(" (see <a href=\"#attention\">Needs attention</a>)", f);
	fputs(".</p>\n", f);
	if (m->n_missing) {
		fputs("<p>", f);
		E(m->missing_heading);
		fputs(":</p>\n<ul class=\"missing\">\n", f);
		for (size_t i = 0; i < m->n_missing; i++) {
			fputs("<li>", f);
			E(m->missing[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("</div>\n<p class=\"meta\" id=\"provenance\">Report date <strong>", f);
	E(m->today[0] ? m->today : "unknown");
	fputs("</strong> (", f);
	E(report_date_source_text(m));
	fputs(") from the history <code>", f);
	E(m->db_path);
	fprintf(f, "</code> (schema %d); newest record ", m->schema_version);
	E(m->newest_record ? m->newest_record : "none");
	fputs(". Covers ", f);
	if (m->since) {
		fputs("history since ", f);
		E(m->since);
	} else {
		fputs("the whole history", f);
	}
	fprintf(f,
	        ": %lld run%s, %zu observation%s, %zu source check%s, %zu refusal%s.</p>\n"
	        "<p class=\"meta\">Policy: a tier is defended by a provider-published source at "
	        "most %d days old; each local backend is re-verified at least every %d days "
	        "(runbook/cadence.md).</p>\n",
	        (long long)m->n_runs, m->n_runs == 1 ? "" : "s", m->n_observations,
	        m->n_observations == 1 ? "" : "s", m->n_checks, m->n_checks == 1 ? "" : "s",
	        m->n_refusals, m->n_refusals == 1 ? "" : "s", m->max_source_age_days,
	        m->reverify_days);
	fputs("<nav><a href=\"#attention\">Needs attention</a><a href=\"#matrix\">Tier matrix</a>",
	      f);
	if (m->n_host_names > 1)
		fputs("<a href=\"#hosts\">Hosts</a>", f);
	fputs("<a href=\"#backends\">Backends over time</a><a href=\"#timeline\">Verdicts over "
	      "time</a><a href=\"#evidence\">Evidence</a><a href=\"#refusals\">Refusals</a>"
	      "<a href=\"#sources\">Sources</a><a href=\"#log\">Observation log</a></nav>\n"
	      "</header>\n",
	      f);
}

/* Items of one severity and kind beyond this many collapse into one line. */

static void attention_row(FILE *f, const report_attention *a)
{
	fprintf(f, "<tr class=\"sev-%s\"><td class=\"sev\">%s</td>",
	        a->severity == RSEV_ALERT  ? "alert"
	        : a->severity == RSEV_WARN ? "warn"
	                                   : "note",
	        report_severity_name(a->severity));
	td(f, report_attention_name(a->kind));
	td(f, a->subject);
	td(f, a->detail);
	td(f, a->remedy);
	fputs("</tr>\n", f);
}

static void attention(FILE *f, const report_model *m)
{
	fputs("<section id=\"attention\">\n<h2>Needs attention</h2>\n", f);
	if (!m->n_attention) {
		fputs("<p>Nothing.</p>\n</section>\n", f);
		return;
	}
	fputs("<p>Most severe first: ALERT (act), WARN (a check did not happen), note.</p>\n"
	      "<table class=\"attention\">\n<thead><tr><th>Severity</th><th>Kind</th>"
	      "<th>Subject</th><th>Detail</th><th>What to do</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < m->n_attention;) {
		const report_attention *a = &m->attention[i];
		size_t n = 1;
		while (i + n < m->n_attention && m->attention[i + n].kind == a->kind &&
		       m->attention[i + n].severity == a->severity)
			n++;
		if (n <= REPORT_COLLAPSE_OVER) {
			for (size_t k = 0; k < n; k++)
				attention_row(f, &m->attention[i + k]);
		} else { /* one line with a count; the items behind a toggle */
			fprintf(f, "<tr class=\"sev-%s collapsed\"><td class=\"sev\">%s</td><td>",
			        a->severity == RSEV_ALERT  ? "alert"
			        : a->severity == RSEV_WARN ? "warn"
			                                   : "note",
			        report_severity_name(a->severity));
			E(report_attention_name(a->kind));
			fprintf(f, "</td><td colspan=\"2\"><details><summary>%zu items", n);
			fputs("</summary>\n<ul>", f);
			for (size_t k = 0; k < n; k++) {
				fputs("<li><strong>", f);
				E(m->attention[i + k].subject);
				fputs("</strong>: ", f);
				E(m->attention[i + k].detail);
				fputs("</li>", f);
			}
			fputs("</ul></details></td>", f);
			td(f, report_group_remedy(a));
			fputs("</tr>\n", f);
		}
		i += n;
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

static void matrix_row(FILE *f, const report_row *r)
{
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
	td(f, r->provider ? r->provider->declared_on : NULL);
	if (r->provider && r->provider->scope) { /* between whom the tier holds */
		fputs("<td>", f), E(r->mechanism ? r->mechanism : "-"), fputs(", scope ", f);
		E(r->provider->scope), fputs("</td>", f);
	} else {
		td(f, r->mechanism);
	}
	td_num(f, r->provider ? r->provider->source_age_days : -1);
	td(f, r->provider ? r->provider->source_status : NULL);
	td(f, o ? o->observed_tier : NULL);
	verdict_cell(f, report_verdict_shown(o), o ? o->v : RV_OTHER);
	td(f, o ? o->observed_at : NULL);
	td_num(f, (long long)r->n_observations);
	bool alert = r->contradicted || r->unproven || r->drifted || r->overdue ||
	             (r->provider && r->provider->source_stale);
	fprintf(f, "<td class=\"%s\">", alert ? "bad" : strcmp(r->state, "ok") ? "note" : "ok");
	E(r->state);
	fputs("</td></tr>\n", f);
}

/* < 0 when out of memory: the report then fails, never half a matrix. */
static int matrix(FILE *f, const report_model *m)
{
	fputs(
	    "<section id=\"matrix\">\n<h2>Tier matrix</h2>\n<p>One row per provider and "
	    "backend, grouped by provider. The declared tier is the catalogue's, as of the day its "
	    "defending source was read or last found unchanged; the observed tier and verdict are "
	    "the latest observation's, as of the day it ran.</p>\n",
	    f);
	size_t *idx = report_matrix_order(m);
	if (!idx)
		return ISOTIER_ENOMEM;
	for (int s = 0; s < RS_COUNT; s++) {
		size_t n = 0;
		for (size_t i = 0; i < m->n_rows; i++)
			n += m->rows[idx[i]].section == s;
		fprintf(f, "<h3 id=\"matrix-%s\">%s (%zu)</h3>\n", report_section_name(s),
		        report_section_title(s), n);
		if (!n) {
			fputs("<p>None.</p>\n", f);
			continue;
		}
		fputs("<table>\n<thead><tr><th>Provider</th><th>Backend</th><th>Declared tier</th>"
		      "<th>Declared on</th><th>Mechanism</th><th>Source age (days)</th><th>Source "
		      "check</th>"
		      "<th>Observed tier</th><th>Verdict</th><th>Observed on</th><th>Obs.</th>"
		      "<th>State</th></tr></thead>\n<tbody>\n",
		      f);
		const char *group = NULL;
		for (size_t i = 0; i < m->n_rows; i++) {
			const report_row *r = &m->rows[idx[i]];
			if (r->section != s)
				continue;
			if (!group || strcmp(group, r->group)) {
				group = r->group;
				fputs("<tr class=\"group\"><th colspan=\"12\">", f);
				E(group);
				/* The provider's own name, as its first offering gives it. */
				if (r->provider && r->provider->name &&
				    strcmp(r->provider->name, group))
					fputs(" \xe2\x80\x94 ", f), E(r->provider->name);
				fputs("</th></tr>\n", f);
			}
			matrix_row(f, r);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	free(idx);
	fputs("</section>\n", f);
	return 0;
}

/* The fleet's host x backend matrix: only when more than one host shares
 * the history (one host's would repeat the tier matrix). */
static void hosts(FILE *f, const report_model *m)
{
	if (m->n_host_names < 2)
		return;
	fputs("<section id=\"hosts\">\n<h2>", f);
	E(m->hosts_heading);
	fputs("</h2>\n<p>", f);
	E(m->hosts_note);
	fputs("</p>\n<table class=\"hosts\">\n<thead><tr><th>Backend</th><th>Host</th>"
	      "<th>Machine id</th><th>Observed tier</th><th>Verdict</th><th>Observation</th>"
	      "<th>When</th><th>State</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < m->n_hosts; i++) {
		const report_host_cell *c = &m->hosts[i];
		const report_observation *o = c->latest;
		fputs(c->disagrees ? "<tr class=\"disagrees\">" : "<tr>", f);
		td(f, o->backend);
		td(f, c->host);
		fputs("<td class=\"mono\">", f), E(c->host_id ? c->host_id : "-"),
		    fputs("</td>", f);
		td(f, o->observed_tier);
		verdict_cell(f, report_verdict_shown(o), o->v);
		fprintf(f, "<td class=\"num\">#%lld</td>", (long long)o->id);
		td(f, o->observed_at);
		fprintf(f, "<td class=\"%s\">%s</td></tr>\n", c->disagrees ? "bad" : "ok",
		        c->disagrees ? "DISAGREES" : "agrees");
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

int report_write_html(FILE *f, const report_model *m)
{
	header(f, m);
	fputs("<main>\n", f);
	attention(f, m);
	int rc = matrix(f, m);
	if (rc < 0)
		return rc;
	hosts(f, m);
	rh_backend_timelines(f, m);
	timeline(f, m);
	rh_evidence(f, m);
	rh_refusals(f, m);
	rh_sources(f, m);
	rh_observation_log(f, m);
	fprintf(
	    f,
	    "</main>\n<footer><p class=\"meta\">Written by isotier %s from the history database "
	    "and the catalogue. The same database, catalogue and report date give the same "
	    "bytes.</p></footer>\n</body>\n</html>\n",
	    ISOTIER_VERSION);
	return 0;
}

const report_format report_format_html = {"html", "html", "text/html; charset=utf-8",
                                          "auditors: banner, matrix, evidence, sources, log",
                                          report_write_html};
