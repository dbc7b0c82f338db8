/* report_change.c - a source check's change against its kept baseline, in
 * words for the report (report_model.h). */
#include "report_model.h"

#include <string.h>

const char *report_change_words(const char *change)
{
	static const struct {
		const char *word, *words;
	} w[] = {
	    {"none", "unchanged since the baseline"},
	    {"quote_gone", "quote gone since the baseline"},
	    {"passage_changed", "passage around the quote changed since the baseline"},
	    {"page_changed", "page changed elsewhere since the baseline (passage the same)"},
	};
	for (size_t i = 0; change && i < sizeof w / sizeof w[0]; i++)
		if (!strcmp(change, w[i].word))
			return w[i].words;
	return change ? change : "";
}

struct change_ctx {
	report_model *m;
	size_t next; /* checks come in the same order: a cursor, not a search */
	bool oom;
};

static int add_change(void *ctx, int64_t id, const char *change, const char *passage_diff)
{
	struct change_ctx *c = ctx;
	report_model *m = c->m;
	while (c->next < m->n_checks && m->checks[c->next].id != id)
		c->next++;
	if (c->next >= m->n_checks)
		return 0; /* a row stored after the checks were read */
	report_check *k = &m->checks[c->next++];
	k->change = change ? report_arena_strndup(&m->arena, change, REPORT_FIELD_MAX) : NULL;
	k->passage_diff =
	    passage_diff ? report_arena_strndup(&m->arena, passage_diff, REPORT_FIELD_MAX) : NULL;
	if ((change && !k->change) || (passage_diff && !k->passage_diff))
		return c->oom = true, 1;
	return 0;
}

int report_load_check_changes(report_model *m, isotier_history *h, isotier_error *err)
{
	struct change_ctx c = {.m = m};
	int rc = isotier__history_scan_check_changes(h, m->since, add_change, &c, err);
	if (c.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "report: out of memory");
	return rc < 0 ? rc : 0;
}
