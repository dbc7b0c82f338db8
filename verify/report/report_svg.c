/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_svg.c - per-backend timelines for the HTML report: one row per
 * backend and offering, one mark per verdict seen in each period (the same
 * periods as the verdict chart), so a reader sees when runsc went from
 * CONFIRMED to CONTRADICTED. Inline SVG, no script; every verdict has its
 * own shape and the legend names it, so it reads in print and without
 * colour; each row ends with its latest verdict as a word, and a list under
 * the chart spells out when each row's verdict changed.
 */
#include "report_html.h"

#include <string.h>

#define TL_ROWS_MAX    200 /* rows drawn; the matrix lists them all */
#define TL_CHANGES_MAX REPORT_TL_CHANGES_MAX
#define TL_LABEL_MAX   30 /* bytes of a row label drawn */

static const char *const colour[RV_COUNT] = {
    [RV_CONFIRMED] = "#2e7d32",        [RV_CONSISTENT] = "#2e7d32",   [RV_EXCEEDS] = "#1565c0",
    [RV_NOT_CONTRADICTED] = "#00838f", [RV_CONTRADICTED] = "#c62828", [RV_INCONCLUSIVE] = "#e65100",
    [RV_UNAVAILABLE] = "#757575",      [RV_OTHER] = "#6a1b9a",
};

void rh_verdict_mark(FILE *f, report_verdict v, double x, double y)
{
	const char *c = colour[(unsigned)v < RV_COUNT ? v : RV_OTHER];
	switch (v) {
	case RV_CONFIRMED: /* filled circle */
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>", x, y, c);
		break;
	case RV_CONSISTENT: /* open circle */
		fprintf(f,
		        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#fff\" stroke=\"%s\" "
		        "stroke-width=\"2\"/>",
		        x, y, c);
		break;
	case RV_EXCEEDS: /* triangle, pointing up */
		fprintf(f, "<path d=\"M%.1f %.1fl5 9h-10z\" fill=\"%s\"/>", x, y - 5, c);
		break;
	case RV_NOT_CONTRADICTED: /* dashed open circle: looks like no proof */
		fprintf(f,
		        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"#fff\" stroke=\"%s\" "
		        "stroke-width=\"2\" stroke-dasharray=\"2 2\"/>",
		        x, y, c);
		break;
	case RV_CONTRADICTED: /* a cross */
		fprintf(f,
		        "<path d=\"M%.1f %.1fl10 10m0 -10l-10 10\" stroke=\"%s\" "
		        "stroke-width=\"3\" fill=\"none\"/>",
		        x - 5, y - 5, c);
		break;
	case RV_INCONCLUSIVE: /* open diamond */
		fprintf(f,
		        "<path d=\"M%.1f %.1fl5 5l-5 5l-5 -5z\" fill=\"#fff\" stroke=\"%s\" "
		        "stroke-width=\"2\"/>",
		        x, y - 5, c);
		break;
	case RV_UNAVAILABLE: /* small open square */
		fprintf(f,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"#fff\" "
		        "stroke=\"%s\" stroke-width=\"1.5\"/>",
		        x - 3.5, y - 3.5, c);
		break;
	default: /* a plus */
		fprintf(f,
		        "<path d=\"M%.1f %.1fh10m-5 -5v10\" stroke=\"%s\" stroke-width=\"3\" "
		        "fill=\"none\"/>",
		        x - 5, y, c);
		break;
	}
}

/* A row label cut at a UTF-8 boundary, escaped. */
static void label(FILE *f, const char *s)
{
	char buf[TL_LABEL_MAX + 4];
	size_t n = strlen(s);
	if (n <= TL_LABEL_MAX) {
		E(s);
		return;
	}
	n = TL_LABEL_MAX;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, s, n);
	memcpy(buf + n, "...", 4);
	E(buf);
}

static void row_name(FILE *f, const report_row *r)
{
	if (r->provider_id && r->backend) {
		label(f, r->provider_id);
		fputs(" (", f);
		label(f, r->backend);
		fputs(")", f);
	} else {
		label(f, r->provider_id ? r->provider_id : r->backend ? r->backend : "?");
	}
}

/* Verdict changes of one row, newest TL_CHANGES_MAX, oldest first
 * (gathered by report_scan.c). */
static void changes(FILE *f, const report_row *r)
{
	const report_observation *const *at = r->tl->changes;
	size_t n = r->tl->n_changes, total = r->tl->total_changes;
	fputs("<li><strong>", f);
	row_name(f, r);
	fputs("</strong>: ", f);
	if (total > n)
		fprintf(f, "(%zu earlier change%s) ", total - n, total - n == 1 ? "" : "s");
	for (size_t k = 0; k < n; k++) {
		if (!at[k])
			continue; /* read back from the same snapshot: cannot happen */
		fputs(k ? "; then " : "", f);
		E(at[k]->verdict);
		fputs(" from ", f);
		E(at[k]->observed_at);
	}
	fputs("</li>\n", f);
}

void rh_backend_timelines(FILE *f, const report_model *m)
{
	fputs("<section id=\"backends\">\n<h2>Backends over time</h2>\n", f);
	size_t rows = 0;
	for (size_t i = 0; i < m->n_rows; i++)
		rows += m->rows[i].n_observations > 0;
	if (!rows || !m->n_buckets) {
		fputs("<p>No observations.</p>\n</section>\n", f);
		return;
	}
	size_t drawn = rows < TL_ROWS_MAX ? rows : TL_ROWS_MAX;
	const double x0 = 230, w = 520, top = 28, rh = 22;
	double cw = w / (double)m->n_buckets, height = top + rh * (double)drawn + 70;
	fprintf(f,
	        "<p>One row per backend and offering, one mark per verdict seen in each %s; "
	        "the shapes are in the legend, the latest verdict is written at the end of each "
	        "row.%s</p>\n",
	        m->bucket_unit,
	        rows > drawn ? " Only the first rows are drawn; the matrix lists all." : "");
	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timelines\" viewBox=\"0 0 900 "
	        "%.0f\" width=\"900\" height=\"%.0f\" role=\"img\" aria-label=\"Verdicts of each "
	        "backend per %s; the list below gives the changes\">\n<title>Verdicts of each "
	        "backend per %s</title>\n",
	        height, height, m->bucket_unit, m->bucket_unit);
	fprintf(f, "<text x=\"%.1f\" y=\"16\" font-size=\"11\">", x0);
	E(m->buckets[0].period);
	fprintf(f, "</text><text x=\"%.1f\" y=\"16\" font-size=\"11\" text-anchor=\"end\">",
	        x0 + w);
	E(m->buckets[m->n_buckets - 1].period);
	fprintf(f, "</text><text x=\"%.1f\" y=\"16\" font-size=\"11\">latest</text>\n",
	        x0 + w + 12);
	size_t k = 0;
	for (size_t i = 0; i < m->n_rows && k < drawn; i++) {
		const report_row *r = &m->rows[i];
		if (!r->n_observations)
			continue;
		double y = top + rh * (double)k + rh / 2;
		fprintf(f,
		        "<g class=\"tl-row\"><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
		        "text-anchor=\"end\">",
		        x0 - 10, y + 4);
		row_name(f, r);
		fprintf(f,
		        "</text><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#ddd\"/>\n",
		        x0, y, x0 + w, y);
		/* One mark per verdict per period, in the order first seen. */
		const report_tl_slot *ring =
		    strcmp(m->bucket_unit, "day") ? r->tl->months : r->tl->days;
		for (size_t b = 0; b < m->n_buckets; b++) {
			long key = m->bucket_lo + (long)b;
			const report_tl_slot *s = &ring[key % REPORT_CHART_BUCKETS];
			for (unsigned nth = 0; s->key == key && nth < s->n; nth++) {
				report_verdict v = (report_verdict)s->order[nth];
				double x = x0 + cw * ((double)b + 0.5) + (double)nth * 4;
				double yy = y + (nth % 2 ? -3 : 0);
				fputs("<g><title>", f);
				E(m->buckets[b].period);
				fputs(": ", f);
				E(v == RV_CONFIRMED && s->attested ? "CONFIRMED (attested)"
				                                   : report_verdict_name(v));
				fputs("</title>", f);
				rh_verdict_mark(f, v, x, yy);
				fputs("</g>", f);
			}
		}
		fprintf(f, "\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\">",
		        x0 + w + 12, y + 4);
		E(r->latest ? report_verdict_shown(r->latest) : "");
		fputs("</text></g>\n", f);
		k++;
	}
	double ly = top + rh * (double)drawn + 24;
	for (int v = 0; v < RV_COUNT; v++) { /* legend: shape and word */
		double lx = 20 + (double)(v % 4) * 215, yy = ly + (double)(v / 4) * 22;
		rh_verdict_mark(f, (report_verdict)v, lx, yy);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", lx + 12,
		        yy + 4, report_verdict_name((report_verdict)v));
	}
	fputs("</svg>\n<ul class=\"transitions\">\n", f);
	k = 0;
	for (size_t i = 0; i < m->n_rows && k < drawn; i++)
		if (m->rows[i].n_observations)
			changes(f, &m->rows[i]), k++;
	fputs("</ul>\n</section>\n", f);
}
