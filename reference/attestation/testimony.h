/* SPDX-License-Identifier: Apache-2.0 */
/*
 * testimony.h - what a remote backend's observation is worth.
 *
 * For a local backend isotier runs on the host the sandbox runs on, and
 * compares the sandbox's kernel with that host's own. For a remote backend
 * (backend.h `remote`) the provider controls its API and everything inside
 * its sandboxes: the probe's output, the boot_id and btime two sandboxes
 * report, the very command that ran. Every piece of it is the provider's
 * testimony. Without hardware attestation (a quote signed by the CPU's
 * vendor that isotier could check) nothing a sandbox prints proves a kernel,
 * a VM or a gVisor of its own: two containers on one kernel can print two
 * boot_ids, a recorded microVM probe output can be replayed.
 *
 * Testimony against the provider's own claim is believed (a contradiction
 * stands: a provider has no reason to refute itself, and a shared kernel
 * shown by two sandboxes is a real finding). Testimony for it above
 * CONTAINER proves nothing: such a claim that is not contradicted is
 * NOT_CONTRADICTED (base/verdict.h), never CONFIRMED, CONSISTENT or EXCEEDS.
 * A CONTAINER claim may stay CONFIRMED: a provider that claims less than it
 * has is no threat to anyone relying on the claim.
 */
#ifndef ISOTIER_TESTIMONY_H
#define ISOTIER_TESTIMONY_H

#include "attest.h"
#include "../evidence/judge.h"

/*
 * Applies the above to jr, isotier__judge()'s result for claim on a remote backend's
 * observation: a CONFIRMED, CONSISTENT or EXCEEDS verdict on a claim above
 * CONTAINER becomes NOT_CONTRADICTED, its reason saying what was seen and why
 * it proves nothing; every ceiling above CONTAINER is capped at CONTAINER
 * (what resolve may defend from the observation). Returns true when the
 * verdict changed. Never call it for a local backend.
 */
bool isotier__testimony_judge(judge_result *jr, const judge_claim *claim);

/*
 * What the two attested reports are bound to, beside what was judged:
 * judged[i] is run[i]'s parsed output (the one isotier__judge() and the sibling
 * relation rest on), attested[i] the output sandbox i printed with its
 * report in the cross-sandbox challenge (observe_cross.h); NULL when there
 * is none.
 */
typedef struct testimony_outputs {
	const probe_result *judged[2];
	const probe_result *attested[2];
} testimony_outputs;

/*
 * Hardware attestation of the two sandboxes (attest.h, ADR-0020), the one
 * way out of testimony: a MICROVM claim that isotier__judge() CONFIRMED (the
 * sandbox's own innermost layer is the claimed VM, the two kernels not
 * shared) whose two sandboxes each gave a valid report bound to its own run,
 * with two report ids, stays CONFIRMED, its reason starting "attested, measurement not judged:" (or
 * "..., measurement matches the reference:"), only when the attested outputs themselves are what
 * was judged: isotier__judge() CONFIRMS the claim on each of them (same claim, same kernel
 * relation), and each shows the kernel identity (boot_id and btime, both present) of the run it
 * stands for (attested[i] that of judged[i]). Otherwise the reports attest outputs nobody judged,
 * and the pair counts as no attestation. Two valid reports with one report id (and one technology)
 * are one guest answering for both: a claim above CONTAINER is CONTRADICTED. Anything else is
 * isotier__testimony_judge(), with what the attestation showed added to the reason. A report
 * attests the guest, not the sandbox: a container in a confidential VM shows its container layer
 * innermost, so isotier__judge() never CONFIRMS it. Returns true when the verdict changed.
 */
bool isotier__testimony_judge_attested(judge_result *jr, const judge_claim *claim,
                                       const judge_kernel *kernel, const attest_pair *pair,
                                       const testimony_outputs *outputs);

#endif
