/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - the probe's output: one JSON document (schema isotier.probe/1,
 * see probe.schema.json) or a human summary. Every string in it came from a
 * hostile environment: JSON strings are escaped and kept valid UTF-8; the
 * human summary shows control and non-ASCII bytes as \xNN.
 */
#include "probe.h"

#include <stddef.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t probe_utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong 3- and 4-byte forms, surrogates, beyond U+10FFFF. */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

void probe_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	fputc('"', f);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s == '\n') {
			fputs("\\n", f);
			s++;
		} else if (*s == '\t') {
			fputs("\\t", f);
			s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else {
			size_t n = probe_utf8_len(s);
			if (!n) {
				fputs("\\ufffd", f);
				s++;
			} else {
				fwrite(s, 1, n, f);
				s += n;
			}
		}
	}
	fputc('"', f);
}

static void probe_human_string(FILE *f, const char *str)
{
	for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
		if (*s < 0x20 || *s >= 0x7f || *s == '\\')
			fprintf(f, "\\x%02x", *s);
		else
			fputc(*s, f);
	}
}

static void probe_json_ids(FILE *f, const struct probe_signals *sigs, const size_t *idx, size_t n)
{
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		probe_json_string(f, sigs->v[idx[i]].id);
	}
	fputc(']', f);
}

/* ",\n  \"run\": {...}": the verifier's nonce, the challenge samples and
 * the pattern this sandbox played (--pattern), when asked for. */
static void probe_report_run(FILE *f, const struct probe_challenge *c,
                             const struct probe_pattern *p)
{
	if (!c->nonce[0] && !c->asked && !p->bits[0])
		return;
	fputs(",\n  \"run\": {\"nonce\": ", f);
	if (c->nonce[0])
		probe_json_string(f, c->nonce);
	else
		fputs("null", f);
	if (c->asked) {
		fputs(",\n    \"challenge\": {\"counter\": \"sysinfo.procs\", \"clock\": "
		      "\"monotonic\"",
		      f);
		if (c->error) {
			fputs(", \"error\": ", f);
			probe_json_string(f, strerror(c->error));
		}
		fprintf(
		    f,
		    ", \"start_us\": %llu, \"end_us\": %llu, \"samples\": %zu, \"truncated\": %s,\n"
		    "      \"stopped\": %s, \"max_gap_us\": %llu, \"changes\": [",
		    (unsigned long long)c->start_us, (unsigned long long)c->end_us, c->samples,
		    c->truncated ? "true" : "false", c->stopped ? "true" : "false",
		    (unsigned long long)c->max_gap_us);
		for (size_t i = 0; i < c->n; i++)
			fprintf(f, "%s[%llu, %lu]", i ? (i % 8 ? ", " : ",\n        ") : "",
			        (unsigned long long)c->t_us[i], c->procs[i]);
		fprintf(f, "],\n      \"gaps_truncated\": %s, \"gaps\": [",
		        c->gaps_truncated ? "true" : "false");
		for (size_t i = 0; i < c->n_gaps; i++)
			fprintf(f, "%s[%llu, %llu]", i ? (i % 8 ? ", " : ",\n        ") : "",
			        (unsigned long long)c->gap_from[i],
			        (unsigned long long)c->gap_to[i]);
		fputs("]}", f);
	}
	if (p->bits[0]) {
		fputs(",\n    \"pattern\": {\"bits\": ", f);
		probe_json_string(f, p->bits);
		fprintf(f, ", \"slot_ms\": %d, \"clock\": \"monotonic\"", PROBE_PATTERN_SLOT_MS);
		if (p->error) {
			fputs(", \"error\": ", f);
			probe_json_string(f, strerror(p->error));
		} else if (p->cut_short) {
			fputs(", \"error\": \"cut short: a slot overran 1 s or the 10 s window ran "
			      "out\"",
			      f);
		}
		fputs(",\n      \"segments\": [", f);
		for (size_t i = 0; i < p->n; i++)
			fprintf(f, "%s[%llu, %llu, %d]", i ? (i % 4 ? ", " : ",\n        ") : "",
			        (unsigned long long)p->start_us[i],
			        (unsigned long long)p->end_us[i], p->tasks[i]);
		fputs("]}", f);
	}
	fputs("}", f);
}

void probe_report_json(FILE *f, const struct probe_result *res)
{
	const struct probe_verdict *v = &res->verdict;
	const struct probe_signals *sigs = &res->sigs;
	fprintf(f, "{\n  \"schema\": \"%s\",\n  \"probe_version\": \"%s\",\n", PROBE_SCHEMA,
	        PROBE_VERSION);
	fprintf(f, "  \"observed_tier\": \"%s\",\n  \"confidence\": \"%s\",\n", v->tier,
	        v->confidence);
	fputs("  \"layers\": [", f);
	for (size_t i = 0; i < v->nlayers; i++) {
		const struct probe_layer *l = &v->layers[i];
		fprintf(f, "%s\n    {\"kind\": \"%s\", \"vendor\": ", i ? "," : "",
		        probe_kind_name(l->kind));
		probe_json_string(f, l->vendor);
		if (l->kind == PROBE_KIND_VM) {
			fputs(", \"hypervisor\": ", f);
			probe_json_string(f, l->hypervisor);
		}
		fprintf(f, ", \"confidence\": \"%s\", \"evidence\": \"%s\"",
		        l->confidence ? l->confidence : "low", l->cls ? l->cls : "marker");
		if (l->cvm) {
			fputs(", \"cvm\": {\"technology\": ", f);
			probe_json_string(f, l->cvm);
			fputs(", \"evidence\": ", f);
			probe_json_ids(f, sigs, l->cvm_sig, l->ncvm);
			fputc('}', f);
		}
		if (l->platform)
			fprintf(f, ", \"platform\": \"%s\"", l->platform);
		fputs(", \"signals\": ", f);
		probe_json_ids(f, sigs, l->sig, l->nsig);
		fputc('}', f);
	}
	fputs(v->nlayers ? "\n  ],\n" : "],\n", f);
	fputs("  \"signals\": [", f);
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		fprintf(f, "%s\n    {\"id\": ", i ? "," : "");
		probe_json_string(f, s->id);
		fprintf(f, ", \"family\": \"%s\", \"source\": ", probe_family_name(s->family));
		probe_json_string(f, s->source);
		fputs(", \"value\": ", f);
		probe_json_string(f, s->value);
		fprintf(f, ", \"weight\": \"%s\", \"supports\": \"%s\", \"class\": \"%s\"}",
		        probe_weight_name(s->weight), probe_kind_name(s->supports),
		        probe_class_name(s->cls));
	}
	fputs(sigs->n ? "\n  ],\n" : "],\n", f);
	fputs("  \"conflicts\": [", f);
	for (size_t i = 0; i < v->nconflicts; i++) {
		const struct probe_conflict *c = &v->conflicts[i];
		const struct probe_signal *s = &sigs->v[c->signal];
		fprintf(f, "%s\n    {\"signal\": ", i ? "," : "");
		probe_json_string(f, s->id);
		fprintf(f,
		        ", \"supports\": \"%s\", \"overruled_by\": ", probe_kind_name(s->supports));
		probe_json_ids(f, sigs, c->over, c->nover);
		fputs(", \"note\": ", f);
		probe_json_string(f, c->note);
		fputc('}', f);
	}
	fputs(v->nconflicts ? "\n  ],\n" : "],\n", f);
	fputs("  \"unanswered\": [", f);
	for (size_t i = 0; i < v->nunanswered; i++) {
		fprintf(f, "%s\n    {\"question\": \"%s\", \"why\": ", i ? "," : "",
		        v->unanswered[i].question);
		probe_json_string(f, v->unanswered[i].why);
		fputc('}', f);
	}
	fputs(v->nunanswered ? "\n  ],\n" : "],\n", f);
	const struct probe_kernel *k = &res->kernel;
	/* The kernel's text fields, each after what precedes its value. */
	static const struct {
		const char *before;
		size_t off;
	} texts[] = {
	    {"  \"kernel\": {\"sysname\": ", offsetof(struct probe_kernel, sysname)},
	    {", \"release\": ", offsetof(struct probe_kernel, release)},
	    {", \"version\": ", offsetof(struct probe_kernel, version)},
	    {", \"machine\": ", offsetof(struct probe_kernel, machine)},
	    {",\n    \"proc_version\": ", offsetof(struct probe_kernel, proc_version)},
	    {",\n    \"cmdline\": ", offsetof(struct probe_kernel, cmdline)},
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		fputs(texts[i].before, f);
		probe_json_string(f, (const char *)k + texts[i].off);
	}
	fputs(",\n    \"boot_id\": ", f);
	if (k->boot_id[0])
		probe_json_string(f, k->boot_id);
	else
		fputs("null", f);
	if (k->btime)
		fprintf(f, ", \"btime\": %llu", (unsigned long long)k->btime);
	else
		fputs(", \"btime\": null", f);
	/* Whether boot_id and btime were checked to be this live kernel's own. */
	fprintf(f, ",\n    \"identity\": {\"trusted\": %s, \"problems\": [",
	        k->identity_trusted ? "true" : "false");
	for (size_t i = 0; i < k->identity_nproblems && i < PROBE_IDENTITY_MAX_PROBLEMS; i++) {
		if (i)
			fputs(", ", f);
		probe_json_string(f, k->identity_problems[i]);
	}
	fputs("]}", f);
	fprintf(f, "},\n  \"duration_us\": %llu", (unsigned long long)res->duration_us);
	probe_report_run(f, probe_challenge_get(), probe_pattern_get());
	fputs("\n}\n", f);
}

void probe_report_human(FILE *f, const struct probe_result *res)
{
	const struct probe_verdict *v = &res->verdict;
	const struct probe_signals *sigs = &res->sigs;
	fprintf(f, "isotier-probe %s: observed tier %s (confidence %s)\n", PROBE_VERSION, v->tier,
	        v->confidence);
	fputs(v->nlayers ? "layers, outermost first:\n" : "layers: none seen\n", f);
	for (size_t i = 0; i < v->nlayers; i++) {
		const struct probe_layer *l = &v->layers[i];
		fprintf(f, "  %-9s vendor=", probe_kind_name(l->kind));
		probe_human_string(f, l->vendor);
		if (l->kind == PROBE_KIND_VM) {
			fputs(" hypervisor=", f);
			probe_human_string(f, l->hypervisor);
		}
		if (l->cvm)
			fprintf(f, " cvm=%s", l->cvm);
		if (l->platform)
			fprintf(f, " platform=%s", l->platform);
		fprintf(f, " confidence=%s (%s)", l->confidence ? l->confidence : "low",
		        l->cls ? l->cls : "marker");
		fputs("  (", f);
		for (size_t j = 0; j < l->nsig; j++)
			fprintf(f, "%s%s", j ? ", " : "", sigs->v[l->sig[j]].id);
		fputs(")\n", f);
	}
	if (v->nconflicts)
		fputs("conflicts:\n", f);
	for (size_t i = 0; i < v->nconflicts; i++) {
		const struct probe_conflict *c = &v->conflicts[i];
		fprintf(f, "  %s (supports %s) overruled by ", sigs->v[c->signal].id,
		        probe_kind_name(sigs->v[c->signal].supports));
		for (size_t j = 0; j < c->nover; j++)
			fprintf(f, "%s%s", j ? ", " : "", sigs->v[c->over[j]].id);
		fprintf(f, "%s: %s\n", c->nover ? "" : "(nothing)", c->note);
	}
	for (size_t i = 0; i < v->nunanswered; i++)
		fprintf(f, "%s  %s: %s\n", i ? "" : "unanswered:\n", v->unanswered[i].question,
		        v->unanswered[i].why);
	fputs("signals:\n", f);
	for (size_t i = 0; i < sigs->n; i++) {
		const struct probe_signal *s = &sigs->v[i];
		fprintf(f, "  %-6s %-9s %-32s = ", probe_weight_name(s->weight),
		        probe_kind_name(s->supports), s->id);
		probe_human_string(f, s->value);
		fputc('\n', f);
	}
	fputs("kernel: ", f);
	probe_human_string(f, res->kernel.sysname);
	fputc(' ', f);
	probe_human_string(f, res->kernel.release);
	fputc(' ', f);
	probe_human_string(f, res->kernel.version);
	fprintf(f, "\nkernel boot: boot_id %s, btime %llu\n",
	        res->kernel.boot_id[0] ? res->kernel.boot_id : "unknown",
	        (unsigned long long)res->kernel.btime);
	fprintf(f, "kernel identity: %s\n",
	        res->kernel.identity_trusted ? "checked, the kernel's own" : "not trusted");
	for (size_t i = 0; i < res->kernel.identity_nproblems; i++) {
		fputs("  ", f);
		probe_human_string(f, res->kernel.identity_problems[i]);
		fputc('\n', f);
	}
	fprintf(f, "duration: %llu us\n", (unsigned long long)res->duration_us);
}
