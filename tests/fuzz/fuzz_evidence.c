/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_evidence.c - stored evidence (observations.layers_json and
 * probe_json, as a tampered or old database may hold them) read back for a
 * report, and every value through every report writer. Input: layers_json,
 * a NUL byte, probe_json. Properties: HTML/XML output carries no raw markup,
 * control or bidi character; Markdown none either; JSON output re-parses to
 * the same text (invalid bytes as U+FFFD); the terminal printer's output is
 * inert too. */
#include "fuzz.h"

#include <cJSON.h>

#include "../../verify/report/report_model.h"

static void put_inline(FILE *f, const char *s)
{
	isotier__fputs_inline(f, s);
}

/* The texts already checked, in this input and in every input before it:
 * the writers are pure functions of the text, and a signal's family, source,
 * weight and verdict, a layer's kind and vendor repeat across signals and
 * across the corpus, so each distinct text goes through the four writers and
 * their checks once per process. Checking them again on every input was most
 * of this harness's time. A table of copies (exact comparison, not a hash
 * alone); once full, texts are checked every time again. */
#define SEEN_SLOTS    16384u
#define SEEN_TEXT_MAX 4096u
static struct {
	uint64_t hash;
	char *text;
} seen[SEEN_SLOTS];
static size_t n_seen;

static bool seen_before(const char *s)
{
	size_t len = strlen(s);
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	for (size_t i = h % SEEN_SLOTS, k = 0; k < SEEN_SLOTS; i = (i + 1) % SEEN_SLOTS, k++) {
		if (!seen[i].text) {
			/* Kept a quarter free, so a probe ends quickly; long texts
			 * (the raw input) are rarely seen twice: not kept. */
			if (n_seen < SEEN_SLOTS * 3 / 4 && len <= SEEN_TEXT_MAX) {
				seen[i].hash = h;
				seen[i].text = strdup(s);
				n_seen += seen[i].text != NULL;
			}
			return false;
		}
		if (seen[i].hash == h && !strcmp(seen[i].text, s))
			return true;
	}
	return false;
}

static void through_writers(const char *s)
{
	if (!s || seen_before(s))
		return;
	char *x = fuzz_render(report_put_xml, s);
	fuzz_assert_inert(x, "\n\t", "<>\"'", "report_put_xml");
	/* & only as the start of an entity we wrote. */
	for (const char *a = strchr(x, '&'); a; a = strchr(a + 1, '&'))
		FUZZ_ASSERT(!strncmp(a, "&amp;", 5) || !strncmp(a, "&lt;", 4) ||
		                !strncmp(a, "&gt;", 4) || !strncmp(a, "&quot;", 6) ||
		                !strncmp(a, "&#39;", 5),
		            "raw & in XML output");
	free(x);
	char *m = fuzz_render(report_put_md, s);
	fuzz_assert_inert(m, "", "<>\n\t", "report_put_md");
	free(m);
	char *t = fuzz_render(put_inline, s);
	fuzz_assert_inert(t, "", "", "isotier__fputs_inline");
	free(t);
	char *j = fuzz_render(report_put_json, s);
	fuzz_assert_inert(j, "", "", "report_put_json");
	cJSON *back = cJSON_Parse(j);
	FUZZ_ASSERT(cJSON_IsString(back), "report_put_json output is not a JSON string: %s", j);
	char *want = isotier__utf8_scrub(s, NULL);
	FUZZ_ASSERT(want && !strcmp(back->valuestring, want), "JSON round trip changed the text");
	free(want);
	cJSON_Delete(back);
	free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_strndup(data, size);
	size_t first = strlen(in);
	const char *layers_json = in, *probe_json = first < size ? in + first + 1 : NULL;
	report_arena a = {0};
	report_evidence *ev = report_evidence_parse(&a, layers_json, probe_json);
	FUZZ_ASSERT(ev, "out of memory");
	for (size_t i = 0; i < ev->n_layers; i++) {
		const report_layer *l = &ev->layers[i];
		through_writers(l->kind);
		through_writers(l->vendor);
		through_writers(l->hypervisor);
		for (size_t k = 0; k < l->n_signals; k++) {
			const report_signal *s = &l->signals[k];
			const char *v[] = {s->id,    s->family, s->source,
			                   s->value, s->weight, s->supports};
			for (size_t m = 0; m < sizeof v / sizeof *v; m++)
				through_writers(v[m]);
		}
	}
	for (size_t i = 0; i < ev->n_conflicts; i++)
		through_writers(ev->conflicts[i]);
	for (size_t i = 0; i < ev->n_problems; i++)
		through_writers(ev->problems[i]);
	through_writers(ev->probe_schema);
	through_writers(ev->probe_version);
	through_writers(ev->kernel);
	/* The raw input itself, as a reason or a page quote would reach them:
	 * its first 1 KiB. The writers escape one character at a time, so a
	 * longer text reaches no other code; checking whole 60 KiB documents
	 * through four writers was most of this harness's time. */
	if (first > 1024)
		in[1024] = '\0';
	through_writers(in);
	report_arena_free(&a);
	free(in);
	return 0;
}
