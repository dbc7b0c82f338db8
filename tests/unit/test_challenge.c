/* isotier-unit: alone (its task-count patterns and their timing want the host to itself) */
/* SPDX-License-Identifier: Apache-2.0 */
/* test_challenge.c - the host's task pattern looked for in a sandbox's samples
 * (reference/evidence/challenge.c): seen when the sandbox shares the host's kernel, at
 * any clock offset; not seen in a count of its own; unanswered when the
 * samples cannot tell. Samples are made here as the probe would take them
 * (one a millisecond, only changes kept). */
#include <check.h>
#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "../../reference/evidence/challenge.h"

#include <cjson/cJSON.h>

#define SLOT_US 50000
#define NSEG    40
#define TASKS   256

static isotier_challenge_segment segs[NSEG];

/* Segments from a fixed pseudo-random pattern starting at host time t0; a
 * few ms of transition between them, as the generator leaves. */
static void make_segments(int64_t t0, unsigned seed)
{
	unsigned x = seed;
	int64_t t = t0;
	for (int i = 0; i < NSEG; i++) {
		x = x * 1103515245u + 12345u;
		segs[i] = (isotier_challenge_segment){t, t + SLOT_US, (x >> 16) & 1 ? TASKS : 0};
		t += SLOT_US + 3000;
	}
}

/* The host's extra tasks at host time t. */
static int64_t host_extra(int64_t t)
{
	for (int i = 0; i < NSEG; i++)
		if (t >= segs[i].start_us && t < segs[i].end_us)
			return segs[i].tasks;
	return TASKS / 2; /* in a transition: half created */
}

enum kind { SHARED, OWN_FLAT, OWN_NOISY, SHARED_WEAK };

/* Samples over [start, start + window) of the sandbox clock, which is the
 * host's minus offset. */
static void make_samples(probe_run_info *r, enum kind k, int64_t start, int64_t window,
                         int64_t offset, unsigned seed)
{
	memset(r, 0, sizeof *r);
	r->challenge = true;
	r->start_us = start;
	r->end_us = start + window;
	r->changes = calloc((size_t)(window / 1000) + 1, sizeof *r->changes);
	unsigned x = seed;
	int64_t last = -1;
	for (int64_t t = start; t < start + window; t += 1000) {
		int64_t v = 150;
		x = x * 1103515245u + 12345u;
		if (k == SHARED)
			v += host_extra(t + offset) + (x >> 16) % 5;
		else if (k == SHARED_WEAK)
			v += host_extra(t + offset) / 8;
		else if (k == OWN_NOISY)
			v +=
			    ((x >> 20) & 1) ? TASKS : 0; /* a busy kernel of its own, not in step */
		r->samples++;
		if (v != last) {
			r->changes[r->n_changes++] = (probe_run_sample){t, v};
			last = v;
		}
	}
}

static const struct sample_case {
	const char *name;
	enum kind kind;
	int64_t offset; /* host clock minus sandbox clock */
	int64_t window;
	isotier_challenge_outcome want;
} cases[] = {
    {"shared kernel", SHARED, 0, 600000, ISOTIER_CHALLENGE_SEEN},
    {"shared, time namespace a day behind", SHARED, 86400LL * 1000000, 600000,
     ISOTIER_CHALLENGE_SEEN},
    {"shared, time namespace ahead", SHARED, -3600LL * 1000000, 600000, ISOTIER_CHALLENGE_SEEN},
    {"own kernel, flat count", OWN_FLAT, 0, 800000, ISOTIER_CHALLENGE_NOT_SEEN},
    {"own kernel, busy count", OWN_NOISY, 0, 800000, ISOTIER_CHALLENGE_NOT_SEEN},
    {"shared but too weak to tell", SHARED_WEAK, 0, 800000, ISOTIER_CHALLENGE_NOT_SEEN},
    {"window too short for both states", SHARED, 0, 90000, ISOTIER_CHALLENGE_UNANSWERED},
    /* Presence shows in 3 slots of each state; absence needs more (absence_needs_eight). */
    {"shared, a short window shows it", SHARED, 0, 400000, ISOTIER_CHALLENGE_SEEN},
    {"own kernel, too few slots to conclude absence", OWN_FLAT, 0, 400000,
     ISOTIER_CHALLENGE_UNANSWERED},
    {"own kernel, just enough slots to conclude absence", OWN_FLAT, 0, 560000,
     ISOTIER_CHALLENGE_NOT_SEEN},
};

START_TEST(outcomes)
{
	const struct sample_case *c = &cases[_i];
	int64_t host_t0 = 5000000000LL;
	make_segments(host_t0, 7);
	probe_run_info r;
	/* The sandbox samples from 0.3 s into the pattern, in its own clock. */
	make_samples(&r, c->kind, host_t0 + 300000 - c->offset, c->window, c->offset, 11);
	isotier_challenge_result out;
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_msg(out.outcome == c->want, "%s: outcome %d, want %d (%s)", c->name, out.outcome,
	              c->want, out.detail);
	if (c->want == ISOTIER_CHALLENGE_SEEN)
		ck_assert_msg(out.lag_us >= c->offset - 2000 && out.lag_us <= c->offset + 2000,
		              "%s: lag %lld", c->name, (long long)out.lag_us);
	isotier__probe_run_clear(&r);
}
END_TEST

START_TEST(unanswered)
{
	make_segments(1000000, 3);
	probe_run_info r = {0};
	isotier_challenge_result out;
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_UNANSWERED); /* no challenge object */
	isotier__challenge_judge(&out, segs, NSEG, NULL);
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_UNANSWERED);
	make_samples(&r, SHARED, 1100000, 600000, 0, 1);
	snprintf(r.challenge_error, sizeof r.challenge_error, "Operation not permitted");
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_UNANSWERED);
	ck_assert_ptr_nonnull(strstr(out.detail, "Operation not permitted"));
	r.challenge_error[0] = '\0';
	r.samples = 10; /* 10 reads in 600 ms: not the probe's pace */
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_UNANSWERED);
	r.samples = 600;
	isotier__challenge_judge(&out, segs, 4, &r); /* a pattern of 4 slots */
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_UNANSWERED);
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_SEEN);
	isotier__probe_run_clear(&r);
}
END_TEST

/* Stretches the sampler went unread: a slot that meets one is not compared,
 * and without the list (an older probe, or one cut short) absence is never
 * concluded. */
START_TEST(unread_slots)
{
	int64_t host_t0 = 5000000000LL;
	make_segments(host_t0, 7);
	probe_run_info r;
	isotier_challenge_result out;
	make_samples(&r, OWN_FLAT, host_t0 + 300000, 800000, 0, 11);
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_int_eq(out.outcome, ISOTIER_CHALLENGE_NOT_SEEN);
	r.gaps_unknown = true;
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_msg(out.outcome == ISOTIER_CHALLENGE_UNANSWERED, "%s", out.detail);
	ck_assert_ptr_nonnull(strstr(out.detail, "unread"));
	r.gaps_unknown = false;
	/* Unread for half the window: too few slots read for absence. */
	probe_run_gap gap = {r.start_us + 1000, r.start_us + 400000};
	r.gaps = &gap;
	r.n_gaps = 1;
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_msg(out.outcome == ISOTIER_CHALLENGE_UNANSWERED, "%s", out.detail);
	ck_assert_ptr_nonnull(strstr(out.detail, "slots it read"));
	r.gaps = NULL;
	r.n_gaps = 0;
	isotier__probe_run_clear(&r);
	/* A shared kernel whose sampler stalled in places still shows it in
	 * the slots it read. */
	make_samples(&r, SHARED, host_t0 + 300000, 600000, 0, 11);
	probe_run_gap gaps[3] = {{r.start_us + 60000, r.start_us + 75000},
	                         {r.start_us + 200000, r.start_us + 230000},
	                         {r.start_us + 400000, r.start_us + 410000}};
	r.gaps = gaps;
	r.n_gaps = 3;
	isotier__challenge_judge(&out, segs, NSEG, &r);
	ck_assert_msg(out.outcome == ISOTIER_CHALLENGE_SEEN, "%s", out.detail);
	r.gaps = NULL;
	r.n_gaps = 0;
	isotier__probe_run_clear(&r);
}
END_TEST

/* run.challenge's unread stretches, as the probe prints them: bounded,
 * ordered, inside the window; no list means none can be shown read. */
START_TEST(gaps_parsed)
{
	static const struct {
		const char *gaps;
		int rc;
		bool unknown;
		size_t n;
	} c[] = {
	    {", \"gaps_truncated\": false, \"gaps\": [[1100, 1200], [1300, 1500]]", 0, false, 2},
	    {", \"gaps_truncated\": false, \"gaps\": []", 0, false, 0},
	    {"", 0, true, 0},
	    {", \"gaps_truncated\": true, \"gaps\": [[1100, 1200]]", 0, true, 1},
	    {", \"gaps\": [[1300, 1500], [1100, 1200]]", ISOTIER_EDATA, false, 0},
	    {", \"gaps\": [[900, 1200]]", ISOTIER_EDATA, false, 0},
	    {", \"gaps\": [[1200, 1100]]", ISOTIER_EDATA, false, 0},
	    {", \"gaps\": [[1100]]", ISOTIER_EDATA, false, 0},
	    {", \"gaps\": {}", ISOTIER_EDATA, false, 0},
	    {", \"gaps_truncated\": 1, \"gaps\": []", ISOTIER_EDATA, false, 0},
	    {", \"max_gap_us\": -5, \"gaps\": []", ISOTIER_EDATA, false, 0},
	    {", \"stopped\": \"yes\", \"gaps\": []", ISOTIER_EDATA, false, 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char doc[512];
		snprintf(doc, sizeof doc,
		         "{\"run\": {\"nonce\": \"0123456789abcdef\", \"challenge\": "
		         "{\"start_us\": 1000, \"end_us\": 2000, \"samples\": 10, "
		         "\"changes\": [[1000, 5]]%s}}}",
		         c[i].gaps);
		cJSON *j = cJSON_Parse(doc);
		ck_assert_ptr_nonnull(j);
		probe_run_info r;
		isotier_error err = {0};
		int rc = isotier__probe_run_parse(&r, j, &err);
		ck_assert_msg(rc == c[i].rc, "case %zu: rc %d (%s)", i, rc, err.message);
		if (rc == 0) {
			ck_assert_msg(r.gaps_unknown == c[i].unknown, "case %zu", i);
			ck_assert_uint_eq(r.n_gaps, c[i].n);
		} else {
			ck_assert_ptr_nonnull(strstr(err.message, "run.challenge"));
		}
		isotier__probe_run_clear(&r);
		cJSON_Delete(j);
	}
}
END_TEST

/* ---- a stalling sampler at the generator's own pace ---------------------- */

#define FAST_SEGS  40
#define FAST_TASKS 64

/* The host's pattern as its generator plays it: 8 ms slots, never three
 * alike in a row, 2-6 ms of thread creation or joining where the state
 * changes. */
static void make_fast_segments(isotier_challenge_segment *out, int64_t t0, unsigned seed)
{
	unsigned x = seed;
	int64_t t = t0;
	int last = -1, run = 0;
	for (int i = 0; i < FAST_SEGS; i++) {
		x = x * 1103515245u + 12345u;
		int on = (x >> 16) & 1;
		if (run >= 2 && on == last) /* never three alike, as the host draws */
			on = !last;
		run = on == last ? run + 1 : 1;
		if (last >= 0 && on != last)
			t += 2000 + (x >> 8) % 4000;
		out[i] = (isotier_challenge_segment){t, t + 8000, on ? FAST_TASKS : 0};
		t += 8000;
		last = on;
	}
}

/* The host's extra tasks at t: a transition counts as half made. */
static int64_t fast_extra(const isotier_challenge_segment *s, int64_t t)
{
	for (int i = 0; i < FAST_SEGS; i++) {
		if (t < s[i].start_us)
			return i ? FAST_TASKS / 2 : 0;
		if (t < s[i].end_us)
			return s[i].tasks;
	}
	return 0;
}

/* A sampler that stalls as gVisor's does (a read every 1-2 ms, and about one
 * time in twelve none for 3-15 ms), each stall listed as the probe lists it:
 * from the read before to the read after. shared: the count is the host's. */
static void make_stalled_samples(probe_run_info *r, const isotier_challenge_segment *s, bool shared,
                                 int64_t start, int64_t window, unsigned seed, probe_run_gap *gaps,
                                 size_t max_gaps)
{
	memset(r, 0, sizeof *r);
	r->challenge = true;
	r->start_us = start;
	r->changes = calloc((size_t)(window / 1000) + 1, sizeof *r->changes);
	r->gaps = gaps;
	unsigned x = seed;
	int64_t last = -1, t = start;
	while (t < start + window) {
		int64_t v = 150 + (shared ? fast_extra(s, t) : 0);
		r->samples++;
		if (v != last) {
			r->changes[r->n_changes++] = (probe_run_sample){t, v};
			last = v;
		}
		r->end_us = t;
		x = x * 1103515245u + 12345u;
		int64_t next =
		    (x >> 16) % 12 == 0 ? 3001 + (x >> 4) % 12000 : 1000 + (x >> 8) % 1000;
		if (next > 3000 && r->n_gaps < max_gaps)
			r->gaps[r->n_gaps++] = (probe_run_gap){t, t + next};
		else if (next > 3000)
			next = 1000;
		t += next;
	}
}

/* A stall that covers part of a slot costs that slot only when it covers
 * most of its middle, and the slot's count then comes from the reads made
 * in it alone: a shared kernel read by a stalling sampler is never judged
 * to hide the pattern, and a kernel of its own still gets its answer from a
 * window of about 100 ms (ISOTIER_CHALLENGE_MS). */
START_TEST(stalled_sampler)
{
	isotier_challenge_segment fast[FAST_SEGS];
	int own_not_seen = 0, shared_seen = 0;
	for (unsigned seed = 1; seed <= 200; seed++) {
		int64_t t0 = 7000000000LL;
		make_fast_segments(fast, t0, seed);
		probe_run_gap gaps[64];
		probe_run_info r;
		isotier_challenge_result out;
		int64_t start = t0 + 20000, window = 110000;
		make_stalled_samples(&r, fast, true, start, window, seed * 7, gaps, 64);
		isotier__challenge_judge(&out, fast, FAST_SEGS, &r);
		ck_assert_msg(out.outcome != ISOTIER_CHALLENGE_NOT_SEEN,
		              "seed %u: a shared kernel read with stalls judged not to show the "
		              "pattern (%s)",
		              seed, out.detail);
		shared_seen += out.outcome == ISOTIER_CHALLENGE_SEEN;
		r.gaps = NULL;
		isotier__probe_run_clear(&r);
		make_stalled_samples(&r, fast, false, start, window, seed * 7, gaps, 64);
		isotier__challenge_judge(&out, fast, FAST_SEGS, &r);
		ck_assert_msg(out.outcome != ISOTIER_CHALLENGE_SEEN,
		              "seed %u: a count of its own seen", seed);
		own_not_seen += out.outcome == ISOTIER_CHALLENGE_NOT_SEEN;
		r.gaps = NULL;
		isotier__probe_run_clear(&r);
	}
	ck_assert_int_ge(shared_seen, 170); /* the rest unanswered: too few slots of a state */
	ck_assert_int_ge(own_not_seen, 150);
}
END_TEST

/* Absence is concluded over 8 slots read, 3 of each state at least: a
 * window over 7 alternating slots (3 on, 4 off) is unanswered, over 8 it
 * answers. */
START_TEST(absence_needs_eight)
{
	isotier_challenge_segment alt[12];
	int64_t t0 = 9000000000LL;
	for (int k = 0; k < 12; k++)
		alt[k] = (isotier_challenge_segment){t0 + k * 11000, t0 + k * 11000 + 8000,
		                                     k % 2 ? FAST_TASKS : 0};
	for (int n = 7; n <= 8; n++) {
		probe_run_info r;
		memset(&r, 0, sizeof r);
		r.challenge = true;
		r.start_us = t0 - 1000;
		r.end_us = t0 + (n - 1) * 11000 + 9000;
		r.samples = (r.end_us - r.start_us) / 1000;
		probe_run_sample flat = {r.start_us, 150};
		r.changes = &flat;
		r.n_changes = 1;
		isotier_challenge_result out;
		isotier__challenge_judge(&out, alt, 12, &r);
		ck_assert_msg(out.outcome == (n < 8 ? ISOTIER_CHALLENGE_UNANSWERED
		                                    : ISOTIER_CHALLENGE_NOT_SEEN),
		              "%d slots: %s", n, out.detail);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("challenge");
	TCase *tc = tcase_create("challenge");
	tcase_add_loop_test(tc, outcomes, 0, (int)(sizeof cases / sizeof *cases));
	tcase_add_test(tc, unanswered);
	tcase_add_test(tc, unread_slots);
	tcase_add_test(tc, gaps_parsed);
	tcase_add_test(tc, stalled_sampler);
	tcase_add_test(tc, absence_needs_eight);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
