/* SPDX-License-Identifier: Apache-2.0 */
/* findings.c - what the parser and the validator found, with file and field. */
#include "catalogue.h"

#include <string.h>

void isotier__findings_add(isotier_findings *f, isotier_finding_severity sev, const char *file,
                           const char *field, const char *fmt, ...)
{
	/* Count first: a finding lost to out-of-memory must still fail the check. */
	if (sev == ISOTIER_FINDING_ERROR)
		f->n_errors++;
	else
		f->n_warnings++;
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 16;
		isotier_finding *ni = realloc(f->items, ncap * sizeof *ni);
		if (!ni)
			return;
		f->items = ni;
		f->cap = ncap;
	}
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	isotier_finding *it = &f->items[f->n];
	it->severity = sev;
	it->file = strdup(file ? file : "");
	it->field = strdup(field ? field : "");
	it->message = strdup(buf);
	if (!it->file || !it->field || !it->message) {
		free(it->file);
		free(it->field);
		free(it->message);
		return;
	}
	f->n++;
}

void isotier__findings_free(isotier_findings *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->items[i].file);
		free(f->items[i].field);
		free(f->items[i].message);
	}
	free(f->items);
	memset(f, 0, sizeof *f);
}
