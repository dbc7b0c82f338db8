/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cli_help.c - what helps a user: "did you mean" suggestions,
 * singular/plural, errors that never end in ": ", and the report's
 * severities, remedies and banner over a model built in memory (green only
 * when every required check ran).
 */
#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../verify/cmd/cli.h"
#include "../../verify/report/report_model.h"

START_TEST(suggestions)
{
	static const char *const cmds[] = {"verify",   "history", "catalogue", "sources",
	                                   "backends", "run",     "churn",     "report"};
	size_t n = sizeof cmds / sizeof *cmds;
	ck_assert_str_eq(cli_suggest("histroy", cmds, n), "history"); /* transposition */
	ck_assert_str_eq(cli_suggest("verfy", cmds, n), "verify");    /* deletion */
	ck_assert_str_eq(cli_suggest("reprot", cmds, n), "report");
	ck_assert_str_eq(cli_suggest("cat", cmds, n), "catalogue"); /* unique prefix */
	ck_assert_ptr_null(cli_suggest("r", cmds, n));              /* run, report: ambiguous */
	ck_assert_ptr_null(cli_suggest("frobnicate", cmds, n));     /* nothing close */
	ck_assert_ptr_null(cli_suggest("", cmds, n));
	ck_assert_ptr_null(cli_suggest(NULL, cmds, n));
	char longword[200];
	memset(longword, 'a', sizeof longword - 1);
	longword[sizeof longword - 1] = '\0';
	ck_assert_ptr_null(cli_suggest(longword, cmds, n)); /* bounded, no overflow */
	ck_assert_str_eq(cli_suggest_backend("bwarp"), "bwrap");
	ck_assert_str_eq(cli_suggest_backend("rnsc"), "runsc");
}
END_TEST

START_TEST(plurals)
{
	ck_assert_str_eq(cli_plural(1, "error", "errors"), "error");
	ck_assert_str_eq(cli_plural(0, "error", "errors"), "errors");
	ck_assert_str_eq(cli_plural(2, "error", "errors"), "errors");
}
END_TEST

/* What cli_error printed for fmt and arg. */
static char *error_text(const char *fmt, const char *arg)
{
	fflush(stderr);
	int saved = dup(2);
	FILE *tmp = tmpfile();
	ck_assert_ptr_nonnull(tmp);
	dup2(fileno(tmp), 2);
	cli_error(fmt, arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	char *buf = calloc(1, 4096);
	ck_assert_uint_gt(fread(buf, 1, 4095, tmp), 0);
	fclose(tmp);
	return buf;
}

START_TEST(errors_never_end_in_colon)
{
	char *s = error_text("history database x.db: %s", "");
	ck_assert_str_eq(s, "isotier: history database x.db\n");
	free(s);
	s = error_text("catalogue: a.json: %s: bad", "");
	ck_assert_str_eq(s, "isotier: catalogue: a.json: bad\n");
	free(s);
	s = error_text("open %s: No such file", "f");
	ck_assert_str_eq(s, "isotier: open f: No such file\n");
	free(s);
}
END_TEST

/* A model with the given attention items, finished as the loader does. */
static report_model *model(const char *today)
{
	report_model *m = calloc(1, sizeof *m);
	ck_assert_ptr_nonnull(m);
	m->today = today;
	m->today_source = "--today";
	m->reverify_days = 7;
	m->n_observations = 1; /* something was checked */
	return m;
}

START_TEST(severities_remedies_banner)
{
	report_model *m = model("2026-12-02");
	ck_assert_int_eq(report_attention_add(m, RA_SOURCE_UNREACHABLE, false, "far", "refused"),
	                 0);
	ck_assert_int_eq(report_attention_add(m, RA_OVERDUE, true, "runc (runc)", "never"), 0);
	m->attention[1].backend = "runc";
	ck_assert_int_eq(report_attention_add(m, RA_UNPROVEN, true, "runsc (runsc)", "vm"), 0);
	m->attention[2].backend = "runsc";
	ck_assert_int_eq(report_finish(m), 0);
	report_sort_attention(m);
	ck_assert_str_eq(m->status, "ALERT");
	ck_assert_uint_eq(m->n_severity[RSEV_ALERT], 2);
	ck_assert_uint_eq(m->n_severity[RSEV_WARN], 1);
	/* ALERT before WARN; within ALERT, by kind (unproven before overdue). */
	ck_assert_int_eq(m->attention[0].kind, RA_UNPROVEN);
	ck_assert_int_eq(m->attention[1].kind, RA_OVERDUE);
	ck_assert_int_eq(m->attention[2].severity, RSEV_WARN);
	ck_assert_ptr_nonnull(strstr(m->attention[0].remedy, "runbook/drift.md#an-unproven-claim"));
	ck_assert_str_eq(m->attention[1].remedy, "re-verify runc: `isotier verify --backend runc`");
	ck_assert_uint_eq(m->n_missing, 2);
	ck_assert_str_eq(m->missing[0], "1 backend not verified within 7 days");
	ck_assert_str_eq(m->missing[1], "1 source could not be reached");
	report_model_free(m);

	/* No alert, but a source could not be reached: amber, never green. */
	m = model("2026-12-02");
	ck_assert_int_eq(report_attention_add(m, RA_SOURCE_UNREACHABLE, false, "a", "x"), 0);
	ck_assert_int_eq(report_attention_add(m, RA_SOURCE_UNREACHABLE, false, "b", "x"), 0);
	ck_assert_int_eq(report_finish(m), 0);
	ck_assert_str_eq(m->status, "INCOMPLETE");
	ck_assert_str_eq(m->missing[0], "2 sources could not be reached");
	report_model_free(m);

	/* Nothing dates the report: the cadence was not checked. */
	m = model("");
	ck_assert_int_eq(report_finish(m), 0);
	ck_assert_str_eq(m->status, "INCOMPLETE");
	report_model_free(m);

	/* Nothing at all was stored: not OK either. */
	m = model("2026-12-02");
	m->n_observations = 0;
	ck_assert_int_eq(report_finish(m), 0);
	ck_assert_str_eq(m->status, "INCOMPLETE");
	report_model_free(m);

	/* Every required check ran and passed: the only green. */
	m = model("2026-12-02");
	ck_assert_int_eq(report_finish(m), 0);
	ck_assert_str_eq(m->status, "OK");
	ck_assert_uint_eq(m->n_missing, 0);
	report_model_free(m);
}
END_TEST

START_TEST(every_kind_has_a_remedy)
{
	report_arena a = {0};
	for (int k = 0; k < RA_COUNT; k++) {
		report_attention at = {.kind = (report_attention_kind)k,
		                       .subject = "s",
		                       .backend = k % 2 ? "bwrap" : NULL,
		                       .provider_id = "p"};
		const char *r = report_remedy(&a, &at);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_gt(strlen(r), 10);
		ck_assert_ptr_null(strchr(r, '\n')); /* one line */
	}
	report_arena_free(&a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli_help");
	TCase *tc = tcase_create("help");
	tcase_add_test(tc, suggestions);
	tcase_add_test(tc, plurals);
	tcase_add_test(tc, errors_never_end_in_colon);
	tcase_add_test(tc, severities_remedies_banner);
	tcase_add_test(tc, every_kind_has_a_remedy);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
