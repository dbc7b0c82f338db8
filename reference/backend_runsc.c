/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_runsc.c - GVISOR tier: the OCI bundle of oci.c under
 * `runsc --platform=ptrace --network=none --ignore-cgroups` with a private
 * --root state dir. (--platform=kvm hangs on this machine kind.)
 */
#include "oci.h"

static const char *const runsc_flags[] = {"--platform=ptrace", "--network=none", "--ignore-cgroups",
                                          NULL};
static const isotier_oci_runtime runsc_rt = {
    .name = "runsc", .global = runsc_flags, .gvisor = true, .note = "platform ptrace"};

static int runsc_available(char *why, size_t why_len)
{
	return isotier__oci_available(&runsc_rt, why, why_len);
}

static int runsc_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return isotier__oci_backend_provision(out, &runsc_rt, spec, err);
}

const isotier_backend isotier__backend_runsc = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "runsc",
    .catalogue_id = "runsc",
    .description = "gVisor runsc (ptrace platform, no network) on an OCI bundle (GVISOR)",
    .available = runsc_available,
    .provision = runsc_provision,
    .exec = isotier__oci_backend_exec,
    .destroy = isotier__oci_backend_destroy,
    .inputs_intact = isotier__oci_backend_inputs_intact,
};
