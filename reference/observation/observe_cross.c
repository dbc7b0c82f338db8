/* SPDX-License-Identifier: Apache-2.0 */
/* observe_cross.c - a remote backend's cross-sandbox challenge (observe_cross.h). */
#include "observe_cross.h"

#include "../backends/collect.h"
#include "../evidence/host_watch.h"
#include "../core/proc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* Time the step needs beyond its ~2 s of probe work before the
 * observation's deadline: two requests to a provider, and slack. */
#define CROSS_MIN_LEFT_MS 10000

int isotier__cross_bits(char *out, size_t n, isotier_error *err)
{
	unsigned char pool[ISOTIER_CROSS_BITS * 4];
	if (n > sizeof pool * 8)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "cross pattern: %zu bits, too many", n);
	/* No fallback: a predictable pattern is one a provider could play
	 * back into a sandbox of its own kernel. */
	if (isotier__random_bytes(pool, (n + 7) / 8) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "cross pattern: getrandom");
	int run = 0;
	char last = 0;
	for (size_t i = 0; i < n; i++) {
		char bit = (pool[i / 8] >> (i % 8)) & 1 ? '1' : '0';
		/* Never three alike: a short overlap still holds both states. */
		if (run >= 2 && bit == last)
			bit = last == '1' ? '0' : '1';
		run = bit == last ? run + 1 : 1;
		out[i] = last = bit;
	}
	out[n] = '\0';
	return 0;
}

int isotier__cross_segments(isotier_challenge_segment **segs, size_t *n, const probe_run_info *mod,
                            const char *bits, isotier_error *err)
{
	*segs = NULL;
	*n = 0;
	if (!mod->pattern)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "run.pattern: missing");
	if (strcmp(mod->pattern_bits, bits) != 0)
		return isotier__error_set(err, ISOTIER_EDATA, 0,
		                          "run.pattern.bits: not the bits asked for (%s)", bits);
	size_t want = strlen(bits);
	if (mod->n_segments != want)
		return isotier__error_set(
		    err, ISOTIER_EDATA, 0, "run.pattern.segments: %zu slots played of %zu%s%s",
		    mod->n_segments, want, mod->pattern_error[0] ? ": " : "", mod->pattern_error);
	isotier_challenge_segment *out = calloc(want, sizeof *out);
	if (!out)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "run.pattern.segments: out of memory");
	for (size_t i = 0; i < want; i++) {
		const probe_run_segment *s = &mod->segments[i];
		/* A "1" slot may hold fewer tasks (the sandbox's limit), even
		 * none: it is then an "off" slot to the judge. A "0" slot that
		 * holds some is not the pattern asked for. */
		if (bits[i] == '0' && s->tasks != 0) {
			free(out);
			return isotier__error_set(
			    err, ISOTIER_EDATA, 0,
			    "run.pattern.segments[%zu]: %lld tasks in a \"0\" slot", i,
			    (long long)s->tasks);
		}
		out[i] = (isotier_challenge_segment){s->start_us, s->end_us, (int)s->tasks};
	}
	*segs = out;
	*n = want;
	return 0;
}

/* One probe run of the step, in one sandbox. */
typedef struct cross_exec {
	const isotier_backend *b;
	void *state;
	const isotier_observe_opts *o;
	const char *argv[8];
	char nonce[33];
	int rc, exit_status;
	isotier_error err; /* why the run is not usable; "" when it is */
	probe_result probe;
	bool parsed;
	/* Its attestation (attest.h): verified against this run's nonce and
	 * output before the output is freed. */
	const attest_policy *policy;
	attest_verdict *attested;
	int attest_rc;
} cross_exec;

/* Runs ce's argv and parses what it printed, which must echo its nonce. */
static void *cross_run(void *arg)
{
	cross_exec *ce = arg;
	isotier_exec_request req = {
	    .argv = ce->argv, .timeout_s = ce->o->timeout_s, .cancel_fd = ce->o->cancel_fd};
	isotier_collected got = {.max_out = PROBE_RESULT_MAX_BYTES};
	ce->rc = isotier__exec_collect(&got, ce->b, ce->state, &req, &ce->exit_status, &ce->err);
	if (ce->rc >= 0 && got.out_over)
		isotier__error_set(&ce->err, ISOTIER_EDATA, 0, "output larger than %d bytes",
		                   PROBE_RESULT_MAX_BYTES);
	else if (ce->rc >= 0 &&
	         isotier__probe_result_parse(&ce->probe, got.out, got.out_len, &ce->err) == 0) {
		if (strcmp(ce->probe.run.nonce, ce->nonce) != 0) {
			isotier__probe_result_clear(&ce->probe);
			isotier__error_set(
			    &ce->err, ISOTIER_EDATA, 0,
			    "run.nonce: not this run's: a recorded or foreign output");
		} else {
			ce->parsed = true;
			ce->attest_rc =
			    ce->policy
			        ? isotier__attest_output_verify(ce->attested, got.out, got.out_len,
			                                        ce->nonce, ce->policy)
			        : 0;
		}
	}
	free(got.out);
	return NULL;
}

static void cross_prepare(cross_exec *ce, const isotier_backend *b, void *state,
                          const isotier_observe_opts *o, const char *opt, const char *value)
{
	ce->b = b;
	ce->state = state;
	ce->o = o;
	ce->argv[0] = ISOTIER_GUEST_PROBE;
	ce->argv[1] = "--json";
	ce->argv[2] = "--nonce";
	ce->argv[3] = ce->nonce;
	ce->argv[4] = opt;
	ce->argv[5] = value;
	ce->argv[6] = "--attest"; /* evidence where the guest can give it (ADR-0020) */
	ce->argv[7] = NULL;
}

/* The outcome from the two runs (both parsed). */
static void cross_judge(isotier_observation *obs, const cross_exec *smp, const cross_exec *mod,
                        const char *bits)
{
	char *d = obs->cross_detail;
	size_t len = sizeof obs->cross_detail;
	const char *name = obs->backend->name;
	isotier_challenge_segment *segs = NULL;
	size_t n = 0;
	isotier_error e = {0};
	if (isotier__cross_segments(&segs, &n, &mod->probe.run, bits, &e) < 0) {
		snprintf(d, len,
		         "cross-sandbox challenge unanswered: the modulating %s sandbox's %.200s",
		         name, e.message);
		return;
	}
	isotier_challenge_result cr;
	isotier__challenge_judge(&cr, segs, n, &smp->probe.run);
	free(segs);
	obs->cross = cr.outcome;
	if (cr.outcome == ISOTIER_CHALLENGE_SEEN)
		snprintf(d, len,
		         "the random task pattern one %s sandbox made shows in the other's task "
		         "count (%zu slots, r=%.2f, %+lld tasks when on)",
		         name, cr.slots, cr.r, (long long)cr.amplitude);
	else if (cr.outcome == ISOTIER_CHALLENGE_NOT_SEEN)
		snprintf(d, len,
		         "the task pattern one %s sandbox made does not show in the other's task "
		         "count (%zu slots compared)",
		         name, cr.slots);
	else
		snprintf(d, len, "cross-sandbox challenge unanswered: %.240s", cr.detail);
}

void isotier__cross_challenge(isotier_observation *obs, void *sampler, void *modulator,
                              const isotier_observe_opts *o, int64_t deadline_ms)
{
	const isotier_backend *b = obs->backend;
	char *d = obs->cross_detail;
	size_t len = sizeof obs->cross_detail;
	obs->cross = ISOTIER_CHALLENGE_UNANSWERED;
	for (int i = 0; i < 2; i++) {
		isotier__probe_result_clear(&obs->attest_out[i]);
		obs->attest_out_parsed[i] = false;
	}
	if (isotier__cancelled(o->cancel_fd)) {
		snprintf(d, len, "cross-sandbox challenge not run: interrupted");
		return;
	}
	if (deadline_ms && deadline_ms - isotier__now_ms() < CROSS_MIN_LEFT_MS) {
		snprintf(d, len, "cross-sandbox challenge not run: the run's time limit is near");
		return;
	}
	char bits[ISOTIER_CROSS_BITS + 1], window[16];
	snprintf(window, sizeof window, "%d", ISOTIER_CROSS_SAMPLE_MS);
	cross_exec smp = {0}, mod = {0};
	isotier_error e = {0};
	if (isotier__cross_bits(bits, ISOTIER_CROSS_BITS, &e) < 0 ||
	    isotier__nonce_new(smp.nonce, &e) < 0 || isotier__nonce_new(mod.nonce, &e) < 0) {
		snprintf(d, len, "cross-sandbox challenge not run: %.240s", e.message);
		return;
	}
	cross_prepare(&smp, b, sampler, o, "--challenge", window);
	cross_prepare(&mod, b, modulator, o, "--pattern", bits);
	/* A policy that does not parse verifies nothing: no evidence counts. */
	attest_policy policy;
	uint8_t reference[ATTEST_SNP_MEASURE_LEN];
	obs->attest = (attest_pair){.outcome = ATTEST_PAIR_NONE};
	if (isotier__attest_policy_from_env(&policy, reference, &e) == 0) {
		smp.policy = mod.policy = &policy;
		smp.attested = &obs->attest.v[0];
		mod.attested = &obs->attest.v[1];
	} else {
		snprintf(obs->attest.detail, sizeof obs->attest.detail, "not attested: %.500s",
		         e.message);
	}
	/* The modulator first, the sampler right after from this thread: both
	 * start within a request's latency of each other, inside the ~0.8 s
	 * the pattern outlasts the sampling by (and any overlap of a few
	 * hundred ms still compares both states). Each exec is bounded by
	 * timeout_s, the cancel_fd and the sandbox's own deadline. */
	pthread_t t;
	int te = pthread_create(&t, NULL, cross_run, &mod);
	if (te != 0) {
		snprintf(d, len, "cross-sandbox challenge not run: no thread (%s)", strerror(te));
		return;
	}
	cross_run(&smp);
	pthread_join(t, NULL);
	if (!smp.parsed || !mod.parsed) {
		const cross_exec *bad = !mod.parsed ? &mod : &smp;
		char why[200];
		if (bad->rc >= 0 && !bad->err.message[0])
			snprintf(why, sizeof why, "exit status %d", bad->exit_status);
		else
			snprintf(why, sizeof why, "%.190s", bad->err.message);
		snprintf(d, len, "cross-sandbox challenge unanswered: the %s %s sandbox's run: %s",
		         bad == &mod ? "modulating" : "sampling", b->name, why);
	} else {
		cross_judge(obs, &smp, &mod, bits);
		if (smp.policy)
			isotier__attest_pair_judge(&obs->attest,
			                           (int[2]){smp.attest_rc, mod.attest_rc});
	}
	/* What an attested pair's reports are bound to is what the verdict
	 * must rest on (testimony_judge_attested): kept, owned by obs. */
	cross_exec *ran[2] = {&smp, &mod};
	for (int i = 0; i < 2; i++) {
		if (ran[i]->parsed && obs->attest.outcome == ATTEST_PAIR_ATTESTED) {
			obs->attest_out[i] = ran[i]->probe;
			obs->attest_out_parsed[i] = true;
			ran[i]->probe = (probe_result){0};
		} else {
			isotier__probe_result_clear(&ran[i]->probe);
		}
	}
}
