/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_host.c - `isotier verify --attest` on the machine isotier runs on
 * (attest.h): the probe, run on this host with a fresh nonce and --attest,
 * asks its configfs-tsm for evidence, which is verified like a remote
 * sandbox's. The host is trusted already (ADR-0019): what this adds is
 * hardware's word that the host is itself a genuine confidential guest. It
 * raises no verdict; without a TSM it says so.
 */
#include "attest.h"
#include "../backends/backend.h"
#include "../backends/collect.h"
#include "../evidence/host_watch.h"
#include "../evidence/probe_result.h"

#include <stdlib.h>
#include <string.h>

int isotier__attest_host(attest_verdict *v, const char *probe_path, int timeout_s, int cancel_fd,
                         isotier_error *err)
{
	*v = (attest_verdict){.measurement_judged = "recorded, not judged"};
	const isotier_backend *b = isotier__backend_lookup("host");
	attest_policy policy;
	uint8_t reference[ATTEST_SNP_MEASURE_LEN];
	char nonce[33];
	int rc;
	if (!b)
		return isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                          "attestation: no host backend");
	if ((rc = isotier__attest_policy_from_env(&policy, reference, err)) < 0 ||
	    (rc = isotier__nonce_new(nonce, err)) < 0)
		return rc;
	isotier_backend_spec spec = {
	    .probe_path = probe_path, .timeout_s = timeout_s, .cancel_fd = cancel_fd};
	void *state = NULL;
	if ((rc = b->provision(&state, &spec, err)) < 0)
		return isotier__error_prefix(err, "attestation");
	const char *argv[] = {ISOTIER_GUEST_PROBE, "--json", "--nonce", nonce, "--attest", NULL};
	isotier_exec_request req = {.argv = argv, .timeout_s = timeout_s, .cancel_fd = cancel_fd};
	isotier_collected got = {.max_out = PROBE_RESULT_MAX_BYTES};
	int status = 0;
	rc = isotier__exec_collect(&got, b, state, &req, &status, err);
	b->destroy(state);
	if (rc == 0 && (got.out_over || status != 0))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "attestation: the probe %s",
		                        got.out_over ? "printed too much" : "failed");
	if (rc == 0)
		rc = isotier__attest_output_verify(v, got.out, got.out_len, nonce, &policy);
	free(got.out);
	return rc;
}
