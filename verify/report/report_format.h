/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_format.h - the one table of `isotier report` formats. Usage text,
 * `report --list-formats`, the man page and every test that loops over
 * formats read it: a new format is its writer's file, which defines its
 * row (`const report_format report_format_<name>`), plus one word in
 * report_format.c's REPORT_FORMATS.
 */
#ifndef ISOTIER_REPORT_FORMAT_H
#define ISOTIER_REPORT_FORMAT_H

#include "report_model.h"

/* Renders m into f; < 0 (an ISOTIER_E* code) when it could not, and the
 * command then fails: a half-written report is never a success. */
typedef int (*report_writer_fn)(FILE *f, const report_model *m);

typedef struct report_format {
	const char *name;       /* --format's word: "html" */
	const char *extension;  /* of a file holding it: "html" */
	const char *media_type; /* "text/html; charset=utf-8" */
	const char *audience;   /* one help line: who reads it and what it holds */
	report_writer_fn write;
} report_format;

/* Pointers to each writer file's row (report_format.c's REPORT_FORMATS). */
extern const report_format *const report_formats[];
extern const size_t report_format_count;

/* The format named name, or NULL. */
const report_format *report_format_lookup(const char *name);
/* "csv, html, json, ... or text": for an error message. */
const char *report_format_names(void);

#endif
