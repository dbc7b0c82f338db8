/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_churn_md.c - CHURN.md and CHANGELOG.md (the release gate's inputs).
 * Properties: every parsed entry's heading, formatted canonically, parses
 * back to the same change; entries' lines are within the text. */
#include "fuzz.h"

#include "../../verify/churn/churnlog.h"

static void check_entries(const churn_entries *e, unsigned max_line)
{
	for (size_t i = 0; i < e->n; i++) {
		const churn_entry *x = &e->items[i];
		FUZZ_ASSERT(x->line >= 1 && x->line <= max_line, "line %u of %u", x->line,
		            max_line);
		char h[512];
		churn_heading_format(h, sizeof h, x);
		churn_entry back;
		memset(&back, 0, sizeof back);
		isotier_error err = {0};
		FUZZ_ASSERT(churn_heading_parse(&back, h, "fuzz", 1, &err) == 0,
		            "canonical heading '%s' does not parse: %s", h, err.message);
		FUZZ_ASSERT(churn_entry_same_change(x, &back),
		            "heading '%s' reads as another change", h);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	churn_entries e = {0};
	isotier_error err = {0};
	if (churn_md_parse(&e, (const char *)data, size, "CHURN.md", &err) == 0)
		check_entries(&e, lines);
	else
		FUZZ_ASSERT(err.code == ISOTIER_EDATA || err.code == ISOTIER_ENOMEM, "code %d",
		            err.code);
	churn_entries_clear(&e);
	changelog c = {0};
	if (changelog_parse(&c, (const char *)data, size, "CHANGELOG.md", &err) == 0) {
		for (size_t i = 0; i < c.n; i++) {
			FUZZ_ASSERT(changelog_find(&c, c.items[i].version), "section %s not found",
			            c.items[i].version);
			check_entries(&c.items[i].churn, lines);
		}
	}
	changelog_clear(&c);
	return 0;
}
