/* SPDX-License-Identifier: Apache-2.0 */
/* verify_judge.c - verify's judging and recording of one finished job
 * (verify_steps.h). */
#include "../cmd/cli.h"
#include "../history/observations.h"
#include "verify_steps.h"

#include <string.h>

/* ---- judging and recording, on the main thread ------------------------- */

/* Does finding f concern the entry that claims job j's backend? */
static bool finding_is_for(const isotier_finding *f, const job *j)
{
	if (j->claim && j->claim->file && f->file && !strcmp(f->file, j->claim->file))
		return true;
	const char *id = j->claim ? j->claim->id : j->backend->catalogue_id;
	const char *base = f->file ? strrchr(f->file, '/') : NULL;
	base = base ? base + 1 : f->file;
	size_t n = id ? strlen(id) : 0;
	return base && n && !strncmp(base, id, n) && !strcmp(base + n, ".json");
}

/*
 * An entry that does not load or validate must not be judged as if it made
 * no claim, nor as a claim that stands: the backend's verdict says which file
 * and field, and verify exits 65. Source age is not checked here (how old a
 * source may be is resolve's and the report's business).
 */
void flag_invalid_claims(job *jobs, size_t n, const isotier_catalogue *cat, isotier_findings *load)
{
	char today[16];
	isotier__today(today, sizeof today);
	isotier__catalogue_validate(cat, today, 36500, load);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < load->n && !jobs[i].claim_invalid[0]; k++) {
			const isotier_finding *f = &load->items[k];
			if (f->severity == ISOTIER_FINDING_ERROR && finding_is_for(f, &jobs[i]))
				snprintf(jobs[i].claim_invalid, sizeof jobs[i].claim_invalid,
				         "catalogue entry %.200s does not validate: %.80s%s%.200s",
				         f->file, f->field, f->field[0] ? ": " : "", f->message);
		}
}

/* How many bytes of the runtime's own words a reason keeps. */
#define START_CAUSE_MAX 320

/* How a stderr line says why (the higher the better): a logfmt line of
 * level error or fatal (runc's, runsc's), a plain line naming an error or a
 * failure (crun's, bwrap's, docker's), any line; a logfmt warning (runc's
 * "unable to get oom kill count" with an error= field) says nothing of it. */
static int cause_rank(const char *line)
{
	if (strstr(line, "level=error") || strstr(line, "level=fatal"))
		return 3;
	if (strstr(line, "level="))
		return 0;
	if (strstr(line, "error") || strstr(line, "fail") || strstr(line, "cannot"))
		return 2;
	return 1;
}

/* The line of stderr that says why (cause_rank: the first of the best); a
 * logfmt line by its msg. */
static void start_cause(char *out, size_t len, const char *errtxt)
{
	char best[ISOTIER_PROBE_STDERR_KEEP] = "";
	int best_rank = 0;
	for (const char *p = errtxt; *p;) {
		size_t n = strcspn(p, "\r\n");
		char line[ISOTIER_PROBE_STDERR_KEEP], lower[ISOTIER_PROBE_STDERR_KEEP];
		snprintf(line, sizeof line, "%.*s", (int)n, p);
		for (size_t i = 0; i <= n && i < sizeof lower; i++)
			lower[i] =
			    (char)(line[i] >= 'A' && line[i] <= 'Z' ? line[i] + 32 : line[i]);
		lower[sizeof lower - 1] = '\0';
		int rank = n ? cause_rank(lower) : 0;
		if (rank > best_rank)
			best_rank = rank, memcpy(best, line, sizeof best);
		p += n;
		p += strspn(p, "\r\n");
	}
	/* The sandbox's stderr is the runtime's and the sandbox's: nothing of it
	 * reaches a terminal or the journal as a control character. */
	for (char *c = best; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	out[0] = '\0';
	const char *msg = strstr(best, "msg=\"");
	if (!msg) {
		snprintf(out, len, "%.*s", (int)(len - 1), best);
		return;
	}
	char *w = out;
	for (const char *r = msg + 5; *r && *r != '"' && (size_t)(w - out) + 1 < len; r++) {
		if (*r == '\\' && r[1])
			r++;
		*w++ = *r;
	}
	*w = '\0';
}

/* The reason of a sandbox its runtime did not start: the status and the
 * runtime's own cause, bounded, redacted (isotier__error_set redacts). */
static void start_failure_reason(job *j, const isotier_probe_run *first)
{
	char cause[START_CAUSE_MAX + 1];
	start_cause(cause, sizeof cause, first->errtxt);
	isotier_error e = {0};
	isotier__error_set(&e, ISOTIER_EUNAVAILABLE, 0,
	                   "%s did not start the sandbox (exit status %d, nothing on the probe's "
	                   "output): %s",
	                   j->backend->name, first->exit_status,
	                   cause[0] ? cause : "it said nothing on stderr");
	snprintf(j->reason, sizeof j->reason, "%.*s", (int)sizeof j->reason - 1, e.message);
}

static void judge_observed(job *j, const char *host_provider)
{
	const isotier_probe_run *first = &j->obs.run[0];
	j->ceiling = PROBE_TIER_UNKNOWN;
	j->unproven = false;
	j->attested = false;
	judge_claim claim = {.present = j->claim != NULL};
	if (j->claim) {
		claim.tier = j->claim->tier;
		claim.mechanism = j->claim->mechanism;
		claim.attestation = j->claim->attestation;
	}
	if (!j->obs.available) {
		j->verdict = VERDICT_UNAVAILABLE;
		snprintf(j->reason, sizeof j->reason, "backend unavailable: %s", j->obs.why);
		return;
	}
	if (j->obs.rc < 0) {
		j->verdict = VERDICT_INCONCLUSIVE;
		snprintf(j->reason, sizeof j->reason, "probe run failed: %.600s",
		         j->obs.err.message);
		return;
	}
	if (!first->parsed && !first->out && !first->out_over && first->exit_status != 0) {
		/* Not a word on its output and a failing status: the runtime
		 * never started the sandbox (cgroups it cannot use, a bundle it
		 * cannot read, a binary missing). The host cannot run it: 69,
		 * never the 65 of a report that came and was bad. */
		j->start_failed = true;
		j->verdict = VERDICT_INCONCLUSIVE;
		start_failure_reason(j, first);
		return;
	}
	if (!first->parsed) {
		j->rejected = true;
		j->verdict = VERDICT_INCONCLUSIVE;
		/* The last line the sandbox printed on stderr says why, usually. */
		char tail[160] = "", errtxt[sizeof first->errtxt];
		snprintf(errtxt, sizeof errtxt, "%s", first->errtxt);
		size_t n = strlen(errtxt);
		while (n && (errtxt[n - 1] == '\n' || errtxt[n - 1] == '\r'))
			errtxt[--n] = '\0';
		const char *nl = strrchr(errtxt, '\n');
		if (n)
			snprintf(tail, sizeof tail, "; stderr: %.140s", nl ? nl + 1 : errtxt);
		snprintf(j->reason, sizeof j->reason,
		         "probe output rejected: %.600s (probe exit status %d%.159s)",
		         first->parse_err.message, first->exit_status, tail);
		return;
	}
	judge_kernel kernel = {.relation = j->obs.relation,
	                       .detail = j->obs.relation_detail,
	                       .host = j->obs.host,
	                       .host_saw = j->obs.host_saw};
	judge_result jr;
	isotier__judge(&jr, &claim, &first->probe, &kernel);
	/* A remote provider's sandboxes show what the provider chooses: a claim
	 * above CONTAINER they do not contradict is not thereby proven, unless
	 * both sandboxes' hardware attested it (ADR-0020). */
	if (j->backend->remote) {
		const isotier_observation *ob = &j->obs;
		testimony_outputs outs = {0};
		for (size_t i = 0; i < 2; i++) {
			outs.judged[i] =
			    i < ob->n_runs && ob->run[i].parsed ? &ob->run[i].probe : NULL;
			outs.attested[i] = ob->attest_out_parsed[i] ? &ob->attest_out[i] : NULL;
		}
		isotier__testimony_judge_attested(&jr, &claim, &kernel, &ob->attest, &outs);
	}
	j->verdict = jr.verdict;
	j->ceiling = jr.ceiling;
	j->unproven = jr.unproven;
	j->attested = j->backend->remote && jr.attested;
	if (j->claim_invalid[0]) {
		/* A claim that does not validate is not judged (bad data, 65); what
		 * was observed is still recorded, ceiling included. */
		j->verdict = VERDICT_INCONCLUSIVE;
		j->unproven = false;
		j->attested = false;
		snprintf(j->reason, sizeof j->reason, "%s", j->claim_invalid);
		return;
	}
	const char *reason = jr.reason;
	/* isotier__judge() says "no claim to judge; observed ...": say which claim is missing. */
	const char *observed = strstr(reason, "observed ");
	if (!j->claim && j->backend->observes_host && !host_provider)
		snprintf(j->reason, sizeof j->reason, "no claim (pass --host-provider); %s",
		         observed ? observed : reason);
	else if (!j->claim)
		snprintf(j->reason, sizeof j->reason, "no catalogue entry claims backend %s; %s",
		         j->backend->name, observed ? observed : reason);
	else
		snprintf(j->reason, sizeof j->reason, "%s", reason);
}

/*
 * An existing sandbox (verify --provider NAME --sandbox-id ID): the caller
 * created it, so isotier neither chose how it was made nor saw it made. What
 * the two sandboxes show still lowers the verdict; nothing raises it past
 * NOT_CONTRADICTED, attestation included (it would attest a guest the caller
 * picked, not an offering isotier asked for): never CONFIRMED, CONSISTENT or
 * EXCEEDS, and the ceiling it leaves the history gate is CONTAINER at most.
 * The reason says so first.
 */
static void judge_existing(job *j)
{
	if (!j->obs.attached)
		return;
	judge_verdict was = j->verdict;
	bool capped =
	    was == VERDICT_CONFIRMED || was == VERDICT_CONSISTENT || was == VERDICT_EXCEEDS;
	if (capped) {
		j->verdict = VERDICT_NOT_CONTRADICTED;
		j->unproven = false;
	}
	j->attested = false;
	if (j->ceiling > PROBE_TIER_CONTAINER)
		j->ceiling = PROBE_TIER_CONTAINER;
	char prefix[400], rest[sizeof j->reason];
	snprintf(rest, sizeof rest, "%s", j->reason);
	snprintf(prefix, sizeof prefix,
	         "existing sandbox %s (the caller's, not created by isotier: never CONFIRMED; "
	         "the cross challenge's second sandbox was isotier's%s%s)%s%s: ",
	         j->attach_id, j->obs.attached_like[0] ? ", created like it: " : "",
	         j->obs.attached_like, capped ? "; capped at NOT_CONTRADICTED from " : "",
	         capped ? isotier__verdict_name(was) : "");
	size_t n = strlen(prefix);
	memcpy(j->reason, prefix, n + 1);
	snprintf(j->reason + n, sizeof j->reason - n, "%.*s", (int)(sizeof j->reason - n - 1),
	         rest);
}

void judge_job(job *j, const char *host_provider)
{
	judge_observed(j, host_provider);
	judge_existing(j);
	/* Said in the observation, so a report or `history show` tells "not
	 * asked" apart from a capture that failed. */
	size_t n = strlen(j->reason);
	if (j->evidence_not_asked && j->obs.available)
		snprintf(j->reason + n, sizeof j->reason - n,
		         "; no evidence kept (not asked: --no-evidence)");
}

int record_job(void *arg, isotier_error *err)
{
	struct record_arg *a = arg;
	isotier_history *h = a->h;
	int64_t run_id = a->run_id;
	job *j = a->j;
	bool parsed = !j->rejected && !j->start_failed && j->obs.available && j->obs.rc == 0;
	observation o = {
	    .run_id = run_id,
	    .backend = j->backend->name,
	    .provider_id = j->claim ? j->claim->id : NULL,
	    .claimed_tier = j->claim ? isotier_tier_name(j->claim->tier) : NULL,
	    .claimed_mechanism = j->claim ? j->claim->mechanism : NULL,
	    .observed_tier =
	        parsed ? isotier__probe_tier_name(j->obs.run[0].probe.observed) : "UNKNOWN",
	    .observed_vendor = parsed ? isotier__probe_result_vendor(&j->obs.run[0].probe) : NULL,
	    .confidence = parsed ? j->obs.run[0].probe.confidence_text : NULL,
	    .layers_json = parsed ? j->obs.run[0].probe.layers_json : NULL,
	    .verdict = isotier__verdict_name(j->verdict),
	    .reason = j->reason,
	    .probe_json = parsed ? j->obs.run[0].probe.doc_json : j->obs.run[0].out,
	    .probe_json_len = parsed ? strlen(j->obs.run[0].probe.doc_json) : j->obs.run[0].out_len,
	    .evidence = j->evidence.data,
	    .evidence_len = j->evidence.len,
	    .evidence_format = EVIDENCE_FORMAT,
	    .duration_ms = j->total_ms,
	    .kernel_relation = parsed ? isotier__kernel_relation_name(j->obs.relation) : NULL,
	    .ceiling_tier = parsed && j->ceiling != PROBE_TIER_UNKNOWN
	                        ? isotier__probe_tier_name(j->ceiling)
	                        : NULL,
	    .sandbox_wall_ms = j->sandbox_wall_ms,
	    .has_sandbox_wall = j->timed,
	    .sandbox_cpu_ms = j->sandbox_cpu_ms,
	    .has_sandbox_cpu = j->cpu_known,
	    .jobs = a->jobs,
	    .overlap = j->overlap,
	};
	if (o.observed_vendor && !*o.observed_vendor)
		o.observed_vendor = NULL;
	/* An attested verdict is stored as a fact, not only as the reason's
	 * words: layers_json becomes the object form readers already accept,
	 * {"attested":true,"layers":[...]}. isotier writes the wrapper around
	 * the layers it printed itself, so no sandbox output can make it. */
	cleanup_free char *wrapped = NULL;
	/* An existing sandbox's row is marked the same way, as a fact beside
	 * the reason: {"existing_sandbox":"ID","layers":[...]} (the id passed
	 * isotier__remote_id_valid: nothing to escape). */
	if (j->obs.attached && o.layers_json) {
		if (asprintf(&wrapped, "{\"existing_sandbox\":\"%s\",\"layers\":%s}", j->attach_id,
		             o.layers_json) < 0)
			return wrapped = NULL,
			       isotier__error_set(err, ISOTIER_ENOMEM, 0,
			                          "record observation of %s: out of memory",
			                          j->backend->name);
		o.layers_json = wrapped;
	} else if (j->attested && o.layers_json) {
		if (asprintf(&wrapped, "{\"attested\":true,\"layers\":%s}", o.layers_json) < 0)
			return wrapped = NULL,
			       isotier__error_set(err, ISOTIER_ENOMEM, 0,
			                          "record observation of %s: out of memory",
			                          j->backend->name);
		o.layers_json = wrapped;
	}
	/* What the history gate (resolve.c) needs to count the row: the host
	 * that made it, and the claim it judged, exactly. */
	char host_id[64];
	isotier__host_id(host_id, sizeof host_id);
	o.host_id = host_id;
	cleanup_free char *digest = NULL;
	if (j->claim && !(digest = isotier__claim_digest(j->claim)))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0,
		                          "record observation of %s: out of memory",
		                          j->backend->name);
	o.claim_digest = digest;
	/* What the signed statement says beyond the row (runbook/statements.md). */
	const isotier_source *src = j->claim ? isotier__provider_best_source(j->claim) : NULL;
	const char *challenge = j->obs.cross_detail[0]  ? j->obs.cross_detail
	                        : j->obs.host_detail[0] ? j->obs.host_detail
	                                                : j->obs.relation_detail;
	isotier_statement_facts facts = {
	    .nonce = j->obs.nonce,
	    .challenge = challenge,
	    .attestation = j->obs.attest.detail,
	    .attested = j->attested,
	    .source_url = src ? src->url : NULL,
	    .source_retrieved = src ? src->retrieved : NULL,
	    .resolved_tier = o.ceiling_tier,
	};
	return observations_insert_signed(h, &o, &facts, NULL, err);
}

int end_run(void *arg, isotier_error *err)
{
	struct record_arg *a = arg;
	return isotier__history_run_end(a->h, a->run_id, a->status, err);
}
