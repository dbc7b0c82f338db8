/* SPDX-License-Identifier: Apache-2.0 */
/* probe_run.c - the report's "run" object (probe_run.h). */
#include "probe_run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A nonce as the verifier makes and the probe accepts: 16-64 lowercase hex. */
static bool probe_run_nonce_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 16 || n > PROBE_RUN_NONCE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

void isotier__probe_run_clear(probe_run_info *r)
{
	if (!r)
		return;
	free(r->changes);
	free(r->gaps);
	free(r->segments);
	memset(r, 0, sizeof *r);
}

/* A non-negative integer a double holds exactly. */
static bool exact_count(const cJSON *v, int64_t *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0 ||
	    v->valuedouble > 9007199254740992.0 || v->valuedouble != floor(v->valuedouble))
		return false;
	*out = (int64_t)v->valuedouble;
	return true;
}

static int bad(isotier_error *err, const char *field, const char *why)
{
	return isotier__error_set(err, ISOTIER_EDATA, 0, "run.%s: %s", field, why);
}

static int parse_changes(probe_run_info *r, const cJSON *arr, isotier_error *err)
{
	if (!cJSON_IsArray(arr))
		return bad(err, "challenge.changes", "not an array");
	int n = cJSON_GetArraySize(arr);
	if (n > PROBE_RUN_MAX_CHANGES)
		return bad(err, "challenge.changes", "more than 4096 entries");
	if (n == 0)
		return 0;
	r->changes = calloc((size_t)n, sizeof *r->changes);
	if (!r->changes)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "run.challenge.changes: out of memory");
	for (const cJSON *e = arr->child; e; e = e->next) {
		probe_run_sample *s = &r->changes[r->n_changes];
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 ||
		    !exact_count(e->child, &s->t_us) || !exact_count(e->child->next, &s->procs))
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "run.challenge.changes[%zu]: not a [time, count] pair "
			    "of non-negative integers",
			    r->n_changes);
		if (s->t_us < r->start_us || s->t_us > r->end_us ||
		    (r->n_changes && s->t_us < r->changes[r->n_changes - 1].t_us))
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "run.challenge.changes[%zu]: time outside the window "
			    "or out of order",
			    r->n_changes);
		r->n_changes++;
	}
	return 0;
}

static int parse_gaps(probe_run_info *r, const cJSON *arr, isotier_error *err)
{
	if (!cJSON_IsArray(arr))
		return bad(err, "challenge.gaps", "not an array");
	int n = cJSON_GetArraySize(arr);
	if (n > PROBE_RUN_MAX_GAPS)
		return bad(err, "challenge.gaps", "more than 512 entries");
	if (n == 0)
		return 0;
	r->gaps = calloc((size_t)n, sizeof *r->gaps);
	if (!r->gaps)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "run.challenge.gaps: out of memory");
	for (const cJSON *e = arr->child; e; e = e->next) {
		probe_run_gap *g = &r->gaps[r->n_gaps];
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 2 ||
		    !exact_count(e->child, &g->from_us) ||
		    !exact_count(e->child->next, &g->to_us) || g->to_us < g->from_us ||
		    g->from_us < r->start_us || g->to_us > r->end_us ||
		    (r->n_gaps && g->from_us < r->gaps[r->n_gaps - 1].to_us))
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "run.challenge.gaps[%zu]: not a [from, to] pair in "
			    "the window, in order",
			    r->n_gaps);
		r->n_gaps++;
	}
	return 0;
}

/* A probe's error string, for a reason sentence only: printable ASCII, cut
 * to fit. */
static int copy_error(char *out, size_t len, const cJSON *e, const char *field, isotier_error *err)
{
	if (!cJSON_IsString(e))
		return bad(err, field, "not a string");
	size_t k = 0;
	for (const char *p = e->valuestring; *p && k + 1 < len; p++)
		out[k++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	out[k] = '\0';
	if (!k)
		snprintf(out, len, "unnamed error");
	return 0;
}

static int parse_challenge(probe_run_info *r, const cJSON *c, isotier_error *err)
{
	if (!cJSON_IsObject(c))
		return bad(err, "challenge", "not an object");
	r->challenge = true;
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(c, "error");
	if (e && copy_error(r->challenge_error, sizeof r->challenge_error, e, "challenge.error",
	                    err) < 0)
		return ISOTIER_EDATA;
	if (!exact_count(cJSON_GetObjectItemCaseSensitive(c, "start_us"), &r->start_us) ||
	    !exact_count(cJSON_GetObjectItemCaseSensitive(c, "end_us"), &r->end_us) ||
	    !exact_count(cJSON_GetObjectItemCaseSensitive(c, "samples"), &r->samples))
		return bad(err, "challenge",
		           "start_us, end_us and samples must be non-negative integers");
	if (r->end_us < r->start_us || r->end_us - r->start_us > PROBE_RUN_MAX_WINDOW_US)
		return bad(err, "challenge",
		           "the window ends before it starts or is longer than 10 s");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "truncated");
	if (t && !cJSON_IsBool(t))
		return bad(err, "challenge.truncated", "not a boolean");
	r->truncated = cJSON_IsTrue(t);
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "stopped");
	if (st && !cJSON_IsBool(st))
		return bad(err, "challenge.stopped", "not a boolean");
	r->stopped = cJSON_IsTrue(st);
	/* Optional (older probes print none): the judge then cannot tell a
	 * stalled sampler from a steady one and reads the samples as before. */
	const cJSON *gap = cJSON_GetObjectItemCaseSensitive(c, "max_gap_us");
	r->max_gap_us = -1;
	if (gap && (!exact_count(gap, &r->max_gap_us) || r->max_gap_us > PROBE_RUN_MAX_WINDOW_US))
		return bad(err, "challenge.max_gap_us",
		           "not a non-negative integer within the 10 s window");
	const cJSON *gt = cJSON_GetObjectItemCaseSensitive(c, "gaps_truncated");
	if (gt && !cJSON_IsBool(gt))
		return bad(err, "challenge.gaps_truncated", "not a boolean");
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(c, "changes");
	if (!ch)
		return bad(err, "challenge.changes", "missing");
	int rc = parse_changes(r, ch, err);
	if (rc < 0)
		return rc;
	/* No list (an older probe) or a list cut short: not one stretch can be
	 * shown read, which the judge needs before it concludes absence. */
	const cJSON *gaps = cJSON_GetObjectItemCaseSensitive(c, "gaps");
	r->gaps_unknown = !gaps || cJSON_IsTrue(gt);
	return gaps ? parse_gaps(r, gaps, err) : 0;
}

static bool bits_valid(const char *s)
{
	size_t n = strlen(s);
	if (n < PROBE_RUN_PATTERN_MIN_BITS || n > PROBE_RUN_PATTERN_MAX_BITS)
		return false;
	return strspn(s, "01") == n;
}

static int parse_segments(probe_run_info *r, const cJSON *arr, isotier_error *err)
{
	if (!cJSON_IsArray(arr))
		return bad(err, "pattern.segments", "not an array");
	int n = cJSON_GetArraySize(arr);
	/* One slot a bit at most: fewer when the probe was stopped short. */
	if ((size_t)n > strlen(r->pattern_bits))
		return bad(err, "pattern.segments", "more slots than bits");
	if (n == 0)
		return 0;
	r->segments = calloc((size_t)n, sizeof *r->segments);
	if (!r->segments)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "run.pattern.segments: out of memory");
	for (const cJSON *e = arr->child; e; e = e->next) {
		size_t i = r->n_segments;
		probe_run_segment *s = &r->segments[i];
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3 ||
		    !exact_count(e->child, &s->start_us) ||
		    !exact_count(e->child->next, &s->end_us) ||
		    !exact_count(e->child->next->next, &s->tasks))
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "run.pattern.segments[%zu]: not a [start, end, tasks] "
			    "triple of non-negative integers",
			    i);
		if (s->end_us < s->start_us || s->end_us - s->start_us > PROBE_RUN_MAX_SLOT_US ||
		    (i && s->start_us < r->segments[i - 1].end_us) ||
		    s->end_us - r->segments[0].start_us > PROBE_RUN_MAX_WINDOW_US)
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "run.pattern.segments[%zu]: a slot that ends before it "
			    "starts, overlaps the one before, is longer than 1 s or "
			    "ends more than 10 s after the first",
			    i);
		if (s->tasks > PROBE_RUN_PATTERN_TASKS)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "run.pattern.segments[%zu]: more than %d tasks",
			                          i, PROBE_RUN_PATTERN_TASKS);
		r->n_segments++;
	}
	return 0;
}

static int parse_pattern(probe_run_info *r, const cJSON *p, isotier_error *err)
{
	if (!cJSON_IsObject(p))
		return bad(err, "pattern", "not an object");
	r->pattern = true;
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(p, "bits");
	if (!cJSON_IsString(b) || !bits_valid(b->valuestring))
		return bad(err, "pattern.bits", "not 8 to 128 characters of 0 and 1");
	snprintf(r->pattern_bits, sizeof r->pattern_bits, "%s", b->valuestring);
	/* The slots' own times are what is compared; a slot length other than
	 * the one the verifier asks for is not this probe's pattern. */
	const cJSON *ms = cJSON_GetObjectItemCaseSensitive(p, "slot_ms");
	if (!cJSON_IsNumber(ms) || ms->valuedouble != PROBE_RUN_PATTERN_SLOT_MS)
		return bad(err, "pattern.slot_ms", "not 50");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "error");
	if (e && copy_error(r->pattern_error, sizeof r->pattern_error, e, "pattern.error", err) < 0)
		return ISOTIER_EDATA;
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(p, "segments");
	if (!s)
		return bad(err, "pattern.segments", "missing");
	return parse_segments(r, s, err);
}

int isotier__probe_run_parse(probe_run_info *out, const cJSON *doc, isotier_error *err)
{
	memset(out, 0, sizeof *out);
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	if (!run)
		return 0;
	int rc;
	if (!cJSON_IsObject(run))
		rc = bad(err, "", "not an object");
	else {
		rc = 0;
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(run, "nonce");
		if (n && !cJSON_IsNull(n)) {
			if (!cJSON_IsString(n) || !probe_run_nonce_valid(n->valuestring))
				rc = bad(err, "nonce", "not 16 to 64 lowercase hex digits");
			else
				snprintf(out->nonce, sizeof out->nonce, "%s", n->valuestring);
		}
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(run, "challenge");
		if (rc == 0 && c)
			rc = parse_challenge(out, c, err);
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(run, "pattern");
		if (rc == 0 && p)
			rc = parse_pattern(out, p, err);
	}
	if (rc < 0)
		isotier__probe_run_clear(out);
	return rc;
}
