/* SPDX-License-Identifier: Apache-2.0 */
/* report_format.c - the table of report formats (see report_format.h). */
#include "report_format.h"

#include <string.h>

const report_format report_formats[] = {
    {"html", "html", "text/html; charset=utf-8", "auditors: banner, matrix, evidence, sources, log",
     report_write_html},
    {"json", "json", "application/json", "machines: everything (runbook/report.schema.json)",
     report_write_json},
    {"junit", "xml", "application/xml", "CI: a test case per row, failing ones fail",
     report_write_junit},
    {"md", "md", "text/markdown; charset=utf-8", "pull requests: banner, attention, matrix",
     report_write_md},
    {"oscal", "json", "application/json",
     "auditors' tools: OSCAL 1.1 assessment results (a finding per backend)", report_write_oscal},
    {"text", "txt", "text/plain; charset=utf-8",
     "a terminal, a log, a mail: what needs attention,\n"
     "      each with its remedy and the command to look closer",
     report_write_text},
};
const size_t report_format_count = sizeof report_formats / sizeof report_formats[0];

const report_format *report_format_lookup(const char *name)
{
	for (size_t i = 0; name && i < report_format_count; i++)
		if (!strcmp(report_formats[i].name, name))
			return &report_formats[i];
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
		                 report_formats[i].name);
		if (n < 0 || (size_t)n >= sizeof names - used)
			break;
		used += (size_t)n;
	}
	return names;
}
