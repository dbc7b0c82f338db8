/* SPDX-License-Identifier: Apache-2.0 */
/* challenge.c - the host's task-count pattern looked for in the probe's
 * samples (challenge.h). */
#include "challenge.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Time at each edge of a slot that is not compared: the sandbox's sampling
 * period (1 ms) and the lag search's step (1 ms) blur the transitions. The
 * host's thread creation and joining are outside its slots already. */
#define EDGE_US 2000
/* Slots of each state a verdict needs, and how the pattern must show:
 * correlated (r) and by at least half the threads the host held (the
 * amplitude), so that neither a sandbox's own noise nor another program
 * on the host passes for it. */
#define MIN_SLOTS_EACH 3
#define MIN_R          0.5
/* Seen needs more than that: a shared kernel shows the pattern almost
 * exactly (r = 1.00 in 99% of this host's trials, bench/challenge_rates.sh),
 * while a count of its own can match a few slots at one of the many lags
 * tried. Between MIN_R and MIN_R_SEEN the answer is unclear (unanswered:
 * verify then runs the long window), never absence. */
#define MIN_R_SEEN 0.9
/* Not seeing it needs more: a shared kernel's count can miss a slot or two
 * (another program's burst), so absence is concluded only over this many
 * slots read at once (more than the 6 presence needs); fewer, and the
 * challenge is unanswered (verify then runs the long window). Eight is what
 * a 100 ms window holds at the generator's pace under gVisor (about 10 ms a
 * slot); the rates measured with it, idle and loaded, are ADR-0019's. */
#define MIN_SLOTS_ABSENT 8
/* At most this many slots are compared at one lag (a 10 s window). */
#define MAX_SLOTS 512
/* At most this many lags are tried (1 ms apart, wider when the pattern is long). */
#define MAX_LAGS 20000

/* The count the samples give at sandbox time t; false before the first. */
static bool count_at(const probe_run_info *run, int64_t t, int64_t *out)
{
	size_t lo = 0, hi = run->n_changes;
	if (!hi || t < run->changes[0].t_us || t > run->end_us)
		return false;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (run->changes[mid].t_us <= t)
			lo = mid;
		else
			hi = mid;
	}
	*out = run->changes[lo].procs;
	return true;
}

struct fit {
	size_t on, off, unsteady;
	double r;
	int64_t amplitude;
	int min_tasks;
};

/* Whether the count the samples give at t was read then: t lies in no
 * stretch the probe lists as unread, so its last read before t is at most
 * 3 ms old (the probe lists every longer one: probes/probe.h
 * PROBE_CHALLENGE_GAP_US). */
static bool read_at(const probe_run_info *run, int64_t t)
{
	size_t lo = 0, hi = run->n_gaps;
	while (lo < hi) { /* the first gap that ends after t */
		size_t mid = lo + (hi - lo) / 2;
		if (run->gaps[mid].to_us <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == run->n_gaps || run->gaps[lo].from_us >= t;
}

/* A slot's count: the median of five readings across [a, b] (one stray
 * sample cannot move it) and their spread. With read, only the readings the
 * sampler really made count, and at least 3 of the 5 must be (a majority,
 * so that the median is a read of this slot, never the stale count of the
 * one before): a stall that covers part of a slot costs that slot only when
 * it covers most of its middle (gVisor's sampler stalls for 3-18 ms several
 * times a window). */
static bool slot_count(const probe_run_info *run, int64_t a, int64_t b, bool read, int64_t *median,
                       int64_t *spread)
{
	int64_t v[5];
	int k = 0;
	for (int i = 0; i < 5; i++) {
		int64_t t = a + (b - a) * i / 4;
		if (read && !read_at(run, t))
			continue;
		if (!count_at(run, t, &v[k++]))
			return false;
	}
	if (k < 3)
		return false;
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int64_t t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	*median = v[k / 2];
	*spread = v[k - 1] - v[0];
	return true;
}

/* Compares the slots that lie inside the sampling window at lag L; with
 * read, only those the sampler read through most of their middle, from
 * those reads alone (slot_count). Seeing the pattern needs no
 * such care (a stale count is an older count of the same kernel: it can blur
 * the pattern, never forge it); concluding its absence does. */
static void fit_at(struct fit *f, const isotier_challenge_segment *segs, size_t n,
                   const probe_run_info *run, int64_t lag, bool read)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, son = 0, soff = 0;
	int64_t spreads[MAX_SLOTS];
	size_t m = 0;
	*f = (struct fit){.min_tasks = 1 << 30};
	for (size_t k = 0; k < n && m < MAX_SLOTS; k++) {
		int64_t a = segs[k].start_us - lag + EDGE_US, b = segs[k].end_us - lag - EDGE_US;
		if (b <= a || a < run->start_us)
			continue;
		if (b > run->end_us)
			break;
		int64_t c, spread;
		if (!slot_count(run, a, b, read, &c, &spread))
			continue;
		spreads[m++] = spread;
		double x = segs[k].tasks > 0, y = (double)c;
		sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
		if (segs[k].tasks > 0) {
			f->on++, son += y;
			if (segs[k].tasks < f->min_tasks)
				f->min_tasks = segs[k].tasks;
		} else {
			f->off++, soff += y;
		}
	}
	if (f->on < MIN_SLOTS_EACH || f->off < MIN_SLOTS_EACH)
		return;
	/* The host holds each state still for a whole slot: a count that
	 * swings by as much within a slot is not following it. */
	for (size_t i = 0; i < m; i++)
		if (spreads[i] * 2 >= f->min_tasks)
			f->unsteady++;
	double cov = sxy - sx * sy / (double)m, vx = sxx - sx * sx / (double)m,
	       vy = syy - sy * sy / (double)m;
	f->r = vx > 0 && vy > 0 ? cov / sqrt(vx * vy) : 0;
	f->amplitude = (int64_t)llround(son / (double)f->on - soff / (double)f->off);
}

static bool fit_seen(const struct fit *f)
{
	size_t m = f->on + f->off;
	return f->on >= MIN_SLOTS_EACH && f->off >= MIN_SLOTS_EACH && f->r >= MIN_R &&
	       f->amplitude * 2 >= f->min_tasks && f->unsteady * 3 <= m;
}

void isotier__challenge_judge(isotier_challenge_result *out, const isotier_challenge_segment *segs,
                              size_t n, const probe_run_info *run)
{
	*out = (isotier_challenge_result){.outcome = ISOTIER_CHALLENGE_UNANSWERED};
	if (!run || !run->challenge) {
		snprintf(out->detail, sizeof out->detail, "the sandbox answered no challenge");
		return;
	}
	if (run->challenge_error[0]) {
		snprintf(out->detail, sizeof out->detail,
		         "the sandbox could not read its task count (%s)", run->challenge_error);
		return;
	}
	int64_t window = run->end_us - run->start_us;
	/* A sample at least every 5 ms, as the probe takes them every 1. */
	if (run->n_changes == 0 || run->samples < window / 5000) {
		snprintf(out->detail, sizeof out->detail,
		         "the sandbox's challenge answer has too few samples (%lld in %lld ms)",
		         (long long)run->samples, (long long)(window / 1000));
		return;
	}
	if (n < 2 * MIN_SLOTS_EACH) {
		snprintf(out->detail, sizeof out->detail,
		         "the host's pattern has %zu slots, too few to compare", n);
		return;
	}
	/* Every lag that lets the window overlap the pattern: host = sandbox + lag. */
	int64_t lo = segs[0].start_us - run->end_us, hi = segs[n - 1].end_us - run->start_us;
	int64_t step = (hi - lo) / MAX_LAGS > 1000 ? (hi - lo) / MAX_LAGS : 1000;
	struct fit best = {0}, widest = {0}, closest = {0};
	int64_t best_lag = 0;
	bool seen = false, maybe = false;
	for (int64_t lag = lo; lag <= hi; lag += step) {
		struct fit f, g;
		fit_at(&f, segs, n, run, lag, false);
		fit_at(&g, segs, n, run, lag, true);
		if (g.on + g.off > widest.on + widest.off)
			widest = g;
		/* Presence from every slot, and from the slots read alone (a
		 * stalled sampler's stale counts blur the first); either, read
		 * as well as it could be, keeps absence from being concluded. */
		const struct fit *both[2] = {&f, &g};
		for (int i = 0; i < 2; i++) {
			const struct fit *h = both[i];
			if (fit_seen(h) && h->r >= MIN_R_SEEN && (!seen || h->r > best.r)) {
				best = *h, best_lag = lag, seen = true;
			} else if (fit_seen(h) && (!maybe || h->r > closest.r)) {
				closest = *h, maybe = true;
			}
		}
	}
	if (seen) {
		*out = (isotier_challenge_result){.outcome = ISOTIER_CHALLENGE_SEEN,
		                                  .slots = best.on + best.off,
		                                  .r = best.r,
		                                  .amplitude = best.amplitude,
		                                  .lag_us = best_lag};
		snprintf(out->detail, sizeof out->detail,
		         "the host's random task pattern shows in the sandbox's own task count "
		         "(%zu slots, r=%.2f, %+lld tasks when on)",
		         out->slots, out->r, (long long)out->amplitude);
		return;
	}
	if (maybe) {
		snprintf(
		    out->detail, sizeof out->detail,
		    "the host's pattern may show in the sandbox's task count (%zu slots, r=%.2f, "
		    "under the %.1f it takes): unclear",
		    closest.on + closest.off, closest.r, MIN_R_SEEN);
		return;
	}
	if (widest.on < MIN_SLOTS_EACH || widest.off < MIN_SLOTS_EACH ||
	    widest.on + widest.off < MIN_SLOTS_ABSENT) {
		snprintf(out->detail, sizeof out->detail,
		         "the sandbox's sampling window (%lld ms) covers too few of the host's "
		         "pattern slots it read (%zu on, %zu off; %d needed, a busy "
		         "host stretches slots and stalls samplers)",
		         (long long)(window / 1000), widest.on, widest.off, MIN_SLOTS_ABSENT);
		return;
	}
	/* Not seeing proves something only over slots the sampler is known to
	 * have read: without its list of stretches it went unread (an older
	 * probe, or more stretches than it lists) none is known. */
	if (run->gaps_unknown) {
		snprintf(out->detail, sizeof out->detail,
		         "the sandbox's challenge answer does not say when it went unread: the "
		         "pattern's absence proves nothing");
		return;
	}
	out->outcome = ISOTIER_CHALLENGE_NOT_SEEN;
	out->slots = widest.on + widest.off;
	snprintf(out->detail, sizeof out->detail,
	         "its random task pattern does not show in the sandbox's task count (%zu slots, "
	         "every lag)",
	         out->slots);
}
