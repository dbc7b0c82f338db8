/* SPDX-License-Identifier: Apache-2.0 */
/*
 * signals_list.c - the signal table (signals.c) as a Markdown table: what
 * `isotier-probe --list-signals` prints and what probes/SIGNALS.md holds
 * between its markers. One writer for both, so the doc is the table's output
 * and not a second copy kept in step by hand (test_probe_classify compares
 * the doc with this writer's output).
 */
#include "probe.h"

#include <string.h>

/* A cell: '|' would end it early and a newline the row, so both are
 * written as Markdown reads them back. */
static void probe_md_cell(FILE *f, const char *s)
{
	fputs(" ", f);
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputs("\\|", f);
		else
			fputc(*p == '\n' ? ' ' : *p, f);
	}
	fputs(" |", f);
}

/* "vendor 15, hypervisor 1": the row's place in each naming list that holds
 * it (a container's vendor is its runtime); "-" when it names nothing. */
static void probe_md_ranks(char *out, size_t n, const struct probe_signal_desc *d)
{
	out[0] = '\0';
	for (size_t l = 0; l < PROBE_NAMES_COUNT; l++) {
		unsigned rank = probe_naming_rank(&probe_naming[l], d->id);
		size_t used = strlen(out);
		if (rank)
			snprintf(out + used, n - used, "%s%s %u", used ? ", " : "",
			         probe_naming[l].what, rank);
	}
	if (!out[0])
		probe_strlcpy(out, n, "-");
}

int probe_signal_table_markdown(FILE *f, const struct probe_signal_desc *table, size_t n)
{
	fputs("| id | family | axis | source | weight | class when strong | origin | names (rank) "
	      "| supports |\n|---|---|---|---|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct probe_signal_desc *d = &table[i];
		char id[96], ranks[64];
		snprintf(id, sizeof id, "`%s`", d->id);
		probe_md_ranks(ranks, sizeof ranks, d);
		fputs("|", f);
		probe_md_cell(f, id);
		probe_md_cell(f, probe_family_name(d->family));
		probe_md_cell(f, probe_axis_name(d->axis));
		probe_md_cell(f, d->source);
		probe_md_cell(f, d->weight);
		probe_md_cell(f, probe_class_name(d->strong));
		probe_md_cell(f, d->origin);
		probe_md_cell(f, ranks);
		probe_md_cell(f, d->description);
		fputc('\n', f);
	}
	/* The naming lists themselves, in order: the precedence a reader checks. */
	fputs("\nNaming precedence (`probes/signals.c`'s `probe_naming`; the first signal of a "
	      "layer in its list that names something names it):\n\n",
	      f);
	for (size_t l = 0; l < PROBE_NAMES_COUNT; l++) {
		fprintf(f, "- %s:", probe_naming[l].title);
		for (size_t i = 0; i < probe_naming[l].n; i++)
			fprintf(f, "%s `%s`", i ? " >" : "", probe_naming[l].ids[i]);
		fputc('\n', f);
	}
	return ferror(f) ? -1 : 0;
}
