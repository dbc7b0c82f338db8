/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_challenge.c - the challenge reader: a sandbox's "run" object
 * (reference/evidence/probe_run.c probe_run_parse, on a document through the strict
 * parser) read against the host's task pattern (reference/evidence/challenge.c
 * isotier__challenge_judge). Input: the host's pattern - a slot count (first
 * byte: 6 + n % 19), a slot length (second byte: 20 + n % 100 ms) and one
 * bit a slot from the bytes after - then the probe's JSON document.
 * Properties: never a crash or a hang; only a run with a challenge answered
 * without error is ever SEEN; SEEN only with both states covered at the lag
 * it names (at least 3 on and 3 off slots inside the sampling window, each
 * after the first sample), correlated (r >= 0.5) with a positive amplitude;
 * the detail is NUL-terminated valid UTF-8. */
#include "fuzz.h"

#include <cJSON.h>

#include "../../reference/evidence/challenge.h"

/* challenge.c's slot edge and minimum per state (kept in step by hand: the
 * harness recounts coverage independently of the code it checks). */
#define EDGE_US        2000
#define MIN_SLOTS_EACH 3
#define HOST_START_US  (1000LL * 1000 * 1000)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t n = 6 + data[0] % 19;
	int64_t slot_us = (20 + data[1] % 100) * 1000LL;
	size_t nbits = (n + 7) / 8;
	if (size < 2 + nbits)
		return 0;
	isotier_challenge_segment segs[24];
	for (size_t k = 0; k < n; k++) {
		bool on = data[2 + k / 8] >> (k % 8) & 1;
		/* Each stretch as the host records it: transitions left out. */
		segs[k] = (isotier_challenge_segment){HOST_START_US + (int64_t)k * slot_us + 1000,
		                                      HOST_START_US + (int64_t)(k + 1) * slot_us,
		                                      on ? 256 : 0};
	}
	const char *json = (const char *)data + 2 + nbits;
	size_t json_len = size - 2 - nbits;

	isotier_error err = {0};
	cJSON *doc = isotier__json_parse(json, json_len, "fuzz", &err);
	probe_run_info run = {0};
	bool parsed = doc && isotier__probe_run_parse(&run, doc, &err) == 0;
	cJSON_Delete(doc);
	if (!parsed) {
		isotier__probe_run_clear(&run);
		return 0;
	}
	isotier_challenge_result out;
	isotier__challenge_judge(&out, segs, n, &run);
	size_t dl = strnlen(out.detail, sizeof out.detail);
	FUZZ_ASSERT(dl < sizeof out.detail, "detail not NUL-terminated");
	FUZZ_ASSERT(isotier__utf8_valid(out.detail, dl), "detail is not valid UTF-8");
	if (out.outcome == ISOTIER_CHALLENGE_SEEN) {
		FUZZ_ASSERT(run.challenge && !run.challenge_error[0],
		            "SEEN without a challenge answered");
		FUZZ_ASSERT(out.r >= 0.5 && out.r <= 1.0 + 1e-9, "SEEN with r=%f", out.r);
		FUZZ_ASSERT(out.amplitude > 0, "SEEN with amplitude %lld",
		            (long long)out.amplitude);
		size_t on = 0, off = 0;
		for (size_t k = 0; k < n; k++) {
			int64_t a = segs[k].start_us - out.lag_us + EDGE_US;
			int64_t b = segs[k].end_us - out.lag_us - EDGE_US;
			if (b <= a || a < run.start_us)
				continue;
			if (b > run.end_us)
				break;
			if (!run.n_changes || a < run.changes[0].t_us)
				continue;
			if (segs[k].tasks > 0)
				on++;
			else
				off++;
		}
		FUZZ_ASSERT(on >= MIN_SLOTS_EACH && off >= MIN_SLOTS_EACH,
		            "SEEN with %zu on and %zu off slots covered at lag %lld", on, off,
		            (long long)out.lag_us);
		/* Seen from the slots read alone names fewer than it covers. */
		FUZZ_ASSERT(out.slots >= 2 * MIN_SLOTS_EACH && out.slots <= on + off,
		            "SEEN names %zu slots, %zu covered", out.slots, on + off);
	} else if (out.outcome == ISOTIER_CHALLENGE_NOT_SEEN) {
		FUZZ_ASSERT(run.challenge && !run.challenge_error[0],
		            "NOT_SEEN without a challenge answered");
	} else {
		FUZZ_ASSERT(out.outcome == ISOTIER_CHALLENGE_UNANSWERED, "outcome %d",
		            (int)out.outcome);
	}
	if (!run.challenge)
		FUZZ_ASSERT(out.outcome == ISOTIER_CHALLENGE_UNANSWERED,
		            "answered without a challenge");
	isotier__probe_run_clear(&run);
	return 0;
}
