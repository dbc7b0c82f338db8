/* SPDX-License-Identifier: Apache-2.0 */
/* report_format.c - the table of report formats (see report_format.h). */
#include "report_format.h"

#include <string.h>

/*
 * One line per format: report_format_<name> is its row, defined in its
 * writer's file (verify/report/report_<name>.c) beside the writer. The order
 * is --list-formats' and the usage text's.
 */
#define REPORT_FORMATS(X) X(csv) X(html) X(json) X(junit) X(md) X(oscal) X(text)

#define DECLARE(n) extern const report_format report_format_##n;
REPORT_FORMATS(DECLARE)
#undef DECLARE

#define REFERENCE(n) &report_format_##n,
const report_format *const report_formats[] = {REPORT_FORMATS(REFERENCE)};
#undef REFERENCE
const size_t report_format_count = sizeof report_formats / sizeof report_formats[0];

const report_format *report_format_lookup(const char *name)
{
	for (size_t i = 0; name && i < report_format_count; i++)
		if (!strcmp(report_formats[i]->name, name))
			return report_formats[i];
	return NULL;
}

const char *report_format_names(void)
{
	static char names[256];
	if (names[0])
		return names;
	size_t used = 0;
	for (size_t i = 0; i < report_format_count; i++) {
		const char *sep = !i ? "" : i + 1 == report_format_count ? " or " : ", ";
		int n = snprintf(names + used, sizeof names - used, "%s%s", sep,
		                 report_formats[i]->name);
		if (n < 0 || (size_t)n >= sizeof names - used)
			break;
		used += (size_t)n;
	}
	return names;
}
