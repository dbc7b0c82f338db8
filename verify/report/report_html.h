/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html.h - what the HTML report's files share: cell writers (every
 * string through report_put_xml) and the sections each file renders.
 */
#ifndef ISOTIER_REPORT_HTML_H
#define ISOTIER_REPORT_HTML_H

#include "report_model.h"

#define E(s) report_put_xml(f, (s))

void rh_verdict_cell(FILE *f, const char *word, report_verdict v);
void rh_td(FILE *f, const char *s);   /* NULL: an em dash */
void rh_td_num(FILE *f, long long v); /* negative: an em dash */
void rh_url(FILE *f, const char *u);  /* a link only for http(s) */
#define verdict_cell(f, w, v) rh_verdict_cell(f, w, v)
#define td(f, s)              rh_td(f, s)
#define td_num(f, v)          rh_td_num(f, v)
#define url(f, u)             rh_url(f, u)

/* report_html_detail.c */
void rh_evidence(FILE *f, const report_model *m);
void rh_refusals(FILE *f, const report_model *m);
void rh_sources(FILE *f, const report_model *m);
void rh_observation_log(FILE *f, const report_model *m);
/* run, host, tool version, catalogue commit (+dirty), probe schema */
void rh_provenance(FILE *f, const report_observation *o);
/* report_svg.c: one row per backend and offering, one mark per verdict seen
 * in each period; shapes and words, not colour alone. */
void rh_backend_timelines(FILE *f, const report_model *m);
/* The mark for a verdict at (x, y): its shape, its colour, its title. */
void rh_verdict_mark(FILE *f, report_verdict v, double x, double y);

#endif
