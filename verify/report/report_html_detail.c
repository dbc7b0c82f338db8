/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html_detail.c - the HTML report's reference sections: evidence
 * behind observations, refusals, sources and their latest checks, and the
 * observation log with each observation's provenance. Every stored string
 * goes through report_put_xml().
 */
#include "report_html.h"

#include <string.h>

void rh_verdict_cell(FILE *f, const char *word, report_verdict v)
{
	if (!word) {
		fputs("<td>not observed</td>", f);
		return;
	}
	static const char *const cls[RV_COUNT] = {
	    [RV_CONFIRMED] = "confirmed",       [RV_CONSISTENT] = "consistent",
	    [RV_EXCEEDS] = "exceeds",           [RV_NOT_CONTRADICTED] = "not-contradicted",
	    [RV_CONTRADICTED] = "contradicted", [RV_INCONCLUSIVE] = "inconclusive",
	    [RV_UNAVAILABLE] = "unavailable",   [RV_OTHER] = "other"};
	fprintf(f, "<td class=\"v v-%s\">", cls[v]);
	E(word);
	fputs("</td>", f);
}

void rh_td(FILE *f, const char *s)
{
	fputs("<td>", f);
	if (s)
		E(s);
	else
		fputs("\xe2\x80\x94", f); /* em dash */
	fputs("</td>", f);
}

void rh_td_num(FILE *f, long long v)
{
	if (v < 0)
		fputs("<td class=\"num\">\xe2\x80\x94</td>", f);
	else
		fprintf(f, "<td class=\"num\">%lld</td>", v);
}

/* A link only for http(s) URLs; anything else (javascript:, data:) is text. */
void rh_url(FILE *f, const char *u)
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
	E(report_verdict_shown(o));
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
	verdict_cell(f, report_verdict_shown(o), o->v);
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
	fputs("</td></tr>\n<tr><th>Provenance</th><td colspan=\"3\">", f);
	rh_provenance(f, o);
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

void rh_evidence(FILE *f, const report_model *m)
{
	fprintf(f,
	        "<section id=\"evidence\">\n<h2>Evidence</h2>\n<p>The latest observation of each "
	        "backend, and the %d most recent that did not back their claim, newest first. The "
	        "JSON report and the database hold the rest.</p>\n",
	        REPORT_EVIDENCE_MAX);
	for (size_t i = m->n_held; i-- > 0;)
		if (m->observations[i].evidence)
			evidence_block(f, &m->observations[i]);
	if (!m->n_evidence)
		fputs("<p>No observations.</p>\n", f);
	fputs("</section>\n", f);
}

void rh_refusals(FILE *f, const report_model *m)
{
	fputs("<section id=\"refusals\">\n<h2>Refusals</h2>\n", f);
	if (!m->n_refusals) {
		fputs("<p>No refusals recorded.</p>\n</section>\n", f);
		return;
	}
	size_t shown = m->n_refusals_held;
	fprintf(
	    f,
	    "<p>%zu refusal%s by <code>isotier_create()</code>; newest %zu shown, newest first."
	    "</p>\n<table>\n<thead><tr><th>When</th><th>Event</th><th>Backend</th><th>Claimed</th>"
	    "<th>Resolved</th><th>Required</th><th>Decision</th><th>Reason</th></tr></thead>\n"
	    "<tbody>\n",
	    m->n_refusals, m->n_refusals == 1 ? "" : "s", shown);
	for (size_t k = 0; k < shown; k++) {
		const report_audit *a = &m->refusals[m->n_refusals_held - 1 - k];
		fputs("<tr>", f);
		td(f, a->at), td(f, a->event), td(f, a->backend), td(f, a->claimed_tier);
		td(f, a->resolved_tier), td(f, a->required_tier), td(f, a->decision),
		    td(f, a->reason);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

void rh_sources(FILE *f, const report_model *m)
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
		if (p->scope) {
			fputs(", scope <strong>", f);
			E(p->scope);
			fputs("</strong>", f);
		}
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
			if (s->verified) {
				fputs(", passage re-verified ", f);
				E(s->verified);
			}
			if (s->expires) {
				fputs(", expires ", f);
				E(s->expires);
			}
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
				if (s->latest->change) { /* against the kept baseline */
					fputs("; ", f);
					E(report_change_words(s->latest->change));
				}
				if (s->latest->passage_diff && s->latest->passage_diff[0]) {
					fputs("<pre class=\"diff\">", f);
					E(s->latest->passage_diff);
					fputs("</pre>", f);
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

void rh_provenance(FILE *f, const report_observation *o)
{
	fprintf(f, "run %lld on ", (long long)o->run_id);
	E(o->host ? o->host : "an unrecorded host");
	fputs("; isotier ", f);
	E(o->tool_version ? o->tool_version : "?");
	fputs("; catalogue ", f);
	E(o->catalogue_commit ? o->catalogue_commit : "not in git");
	fputs("; probe ", f);
	const char *schema = o->probe_schema ? o->probe_schema
	                     : o->evidence   ? o->evidence->probe_schema
	                                     : NULL;
	E(schema ? schema : "schema not stored");
}

void rh_observation_log(FILE *f, const report_model *m)
{
	/* The held observations end with the newest REPORT_LOG_MAX (report_scan.c). */
	size_t shown = m->n_observations < REPORT_LOG_MAX ? m->n_observations : REPORT_LOG_MAX;
	fprintf(f,
	        "<section id=\"log\">\n<h2>Observation log</h2>\n<p>%zu observation%s; the newest "
	        "%zu shown, newest first.</p>\n<table>\n<thead><tr><th>#</th><th>When</th>"
	        "<th>Backend</th><th>Provider</th><th>Claimed</th><th>Observed</th><th>Verdict</th>"
	        "<th>ms</th><th>Reason</th><th>Provenance</th></tr></thead>\n<tbody>\n",
	        m->n_observations, m->n_observations == 1 ? "" : "s", shown);
	for (size_t k = 0; k < shown; k++) {
		const report_observation *o = &m->observations[m->n_held - 1 - k];
		if (o->evidence)
			fprintf(f, "<tr><td class=\"num\"><a href=\"#o-%lld\">%lld</a></td>",
			        (long long)o->id, (long long)o->id);
		else
			fprintf(f, "<tr><td class=\"num\">%lld</td>", (long long)o->id);
		td(f, o->observed_at), td(f, o->backend), td(f, o->provider_id),
		    td(f, o->claimed_tier);
		td(f, o->observed_tier);
		verdict_cell(f, report_verdict_shown(o), o->v);
		td_num(f, o->duration_ms);
		td(f, o->reason);
		fputs("<td class=\"prov\">", f);
		rh_provenance(f, o);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}
