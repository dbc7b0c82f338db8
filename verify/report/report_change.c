/* SPDX-License-Identifier: Apache-2.0 */
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
