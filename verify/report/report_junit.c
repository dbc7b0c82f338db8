/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_junit.c - the report for CI systems: JUnit XML (the Jenkins/Ant
 * schema, tests/fixtures/report/junit.xsd). One testcase per tier-matrix row
 * (provider/backend); a failure when the latest verdict is CONTRADICTED or a
 * cited source is CHANGED or GONE. Stale sources and overdue re-verification
 * are reported in the testcase's output; a provider never observed and not
 * driven locally is skipped.
 */
#include "report_format.h"
#include "report_model.h"

#include <string.h>

#define E(s) report_put_xml(f, (s))

static void row_name(FILE *f, const report_row *r)
{
	E(r->provider_id ? r->provider_id : "(no claim)");
	if (r->backend) {
		fputs(" [", f);
		E(r->backend);
		fputs("]", f);
	}
}

static bool row_fails(const report_row *r)
{
	return r->contradicted || r->drifted;
}

static void failure(FILE *f, const report_model *m, const report_row *r)
{
	/* A contradiction that a later NOT_CONTRADICTED did not clear is named
	 * by the observation that made it. */
	const report_observation *o =
	    r->contradicted && r->not_proven && r->latest_judged ? r->latest_judged : r->latest;
	fputs("<failure type=\"", f);
	fputs(r->contradicted ? "CONTRADICTED" : "SOURCE_DRIFT", f);
	fputs("\" message=\"", f);
	if (r->contradicted) {
		fputs("claimed ", f);
		E(o->claimed_tier ? o->claimed_tier : r->claimed_tier);
		fputs(", observed ", f);
		E(o->observed_tier);
		fputs(": CONTRADICTED", f);
		if (r->drifted)
			fputs("; a cited source changed or is gone", f);
	} else {
		fputs("a cited source is ", f);
		E(r->provider->source_status);
	}
	fputs("\">", f);
	if (r->contradicted) {
		fprintf(f, "Observation %lld at ", (long long)o->id);
		E(o->observed_at);
		fputs(": ", f);
		E(o->reason ? o->reason : "no reason stored");
		fputs("\n", f);
	}
	for (size_t i = 0; r->provider && i < r->provider->n_sources; i++) {
		const report_source *s = &r->provider->sources[i];
		if (!s->latest ||
		    (strcmp(s->latest->status, "CHANGED") && strcmp(s->latest->status, "GONE")))
			continue;
		E(s->latest->status);
		fputs(" ", f);
		E(s->url);
		fputs(" at ", f);
		E(s->latest->checked_at);
		if (s->latest->detail) {
			fputs(": ", f);
			E(s->latest->detail);
		}
		fputs("\n", f);
	}
	/* The fix, as the report's attention list spells it. */
	for (size_t i = 0; i < m->n_attention; i++) {
		const report_attention *a = &m->attention[i];
		bool mine = a->backend ? r->backend && !strcmp(a->backend, r->backend)
		                       : a->provider_id && r->provider_id &&
		                             !strcmp(a->provider_id, r->provider_id);
		if (!mine || (a->kind != RA_CONTRADICTED && a->kind != RA_SOURCE_CHANGED &&
		              a->kind != RA_SOURCE_GONE))
			continue;
		fputs("Fix: ", f);
		E(a->remedy);
		fputs("\n", f);
	}
	fputs("Runbook: runbook/drift.md</failure>\n", f);
}

static void system_out(FILE *f, const report_model *m, const report_row *r)
{
	const report_observation *o = r->latest;
	const report_provider *p = r->provider;
	fputs("<system-out>claimed: ", f);
	E(r->claimed_tier ? r->claimed_tier : "-");
	fputs(" (", f);
	E(r->mechanism ? r->mechanism : "-");
	fputs(")\nsource: ", f);
	if (p) {
		E(p->source_status);
		if (p->source_age_days >= 0)
			fprintf(f, ", %d days old", p->source_age_days);
		if (p->source_stale)
			fprintf(f, ", STALE (max %d days)", m->max_source_age_days);
	} else {
		fputs("not in the catalogue", f);
	}
	fputs("\nlatest: ", f);
	if (o) {
		E(report_verdict_shown(o));
		fputs(", observed ", f);
		E(o->observed_tier);
		fputs(" at ", f);
		E(o->observed_at);
	} else {
		fputs("no observation", f);
	}
	if (r->not_proven)
		fputs("\nNOT PROVEN: not contradicted, not proven: no hardware attestation (a "
		      "remote claim above CONTAINER; not a failure)",
		      f);
	if (r->overdue)
		fprintf(f, "\nOVERDUE: not re-verified within %d days", m->reverify_days);
	fputs("\nstate: ", f);
	E(r->state);
	fputs("</system-out>\n", f);
}

int report_write_junit(FILE *f, const report_model *m)
{
	size_t failures = 0, skipped = 0, cat_errors = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[i];
		failures += row_fails(r);
		skipped += !row_fails(r) && !r->latest && !r->backend;
	}
	for (size_t i = 0; i < m->n_attention; i++)
		cat_errors += m->attention[i].kind == RA_CATALOGUE && m->attention[i].failing;
	size_t tests = m->n_rows + 1;
	failures += cat_errors > 0;

	/* The Ant schema wants a timestamp without a zone; the report date stands in for "now". */
	char stamp[32] = "1970-01-01T00:00:00";
	if (m->newest_record && report_valid_timestamp(m->newest_record) &&
	    strlen(m->newest_record) == 20)
		snprintf(stamp, sizeof stamp, "%.19s", m->newest_record);
	else if (m->today[0])
		snprintf(stamp, sizeof stamp, "%.10sT00:00:00", m->today);

	fprintf(
	    f,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<testsuites name=\"isotier\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"0\">\n"
	    "<testsuite name=\"isotier.tiers\" package=\"isotier\" id=\"0\" hostname=\"isotier\" "
	    "timestamp=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" "
	    "time=\"0\">\n<properties>\n",
	    tests, failures, stamp, tests, failures, skipped);
	fputs("<property name=\"report_date\" value=\"", f);
	E(m->today);
	fputs("\"/>\n<property name=\"since\" value=\"", f);
	E(m->since ? m->since : "");
	fprintf(f,
	        "\"/>\n<property name=\"max_source_age_days\" value=\"%d\"/>\n"
	        "<property name=\"reverify_days\" value=\"%d\"/>\n"
	        "<property name=\"tool_version\" value=\"%s\"/>\n</properties>\n",
	        m->max_source_age_days, m->reverify_days, ISOTIER_VERSION);

	for (size_t i = 0; i < m->n_rows; i++) {
		const report_row *r = &m->rows[i];
		fputs("<testcase classname=\"isotier.tier.", f);
		E(r->provider_id ? r->provider_id : r->backend);
		fputs("\" name=\"", f);
		row_name(f, r);
		fputs("\" time=\"0\">\n", f);
		if (row_fails(r))
			failure(f, m, r);
		else if (!r->latest && !r->backend)
			fputs("<skipped message=\"not observed: no backend drives this provider "
			      "and no "
			      "host observation names it\"/>\n",
			      f);
		system_out(f, m, r);
		fputs("</testcase>\n", f);
	}
	fputs("<testcase classname=\"isotier.catalogue\" name=\"catalogue loads\" time=\"0\">\n",
	      f);
	if (cat_errors) {
		fprintf(f, "<failure type=\"CATALOGUE\" message=\"%zu catalogue file%s skipped\">",
		        cat_errors, cat_errors == 1 ? "" : "s");
		for (size_t i = 0; i < m->n_attention; i++) {
			const report_attention *a = &m->attention[i];
			if (a->kind != RA_CATALOGUE || !a->failing)
				continue;
			E(a->subject);
			fputs(": ", f);
			E(a->detail);
			fputs("\n", f);
		}
		fputs("</failure>\n", f);
	}
	fprintf(f, "<system-out>%zu providers loaded</system-out>\n</testcase>\n", m->n_providers);
	fputs("<system-out></system-out>\n<system-err></system-err>\n</testsuite>\n</testsuites>\n",
	      f);
	return 0;
}

const report_format report_format_junit = {"junit", "xml", "application/xml",
                                           "CI: a test case per row, failing ones fail",
                                           report_write_junit};
