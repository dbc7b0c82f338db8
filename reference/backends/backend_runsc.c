/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_runsc.c - GVISOR tier: the OCI bundle of oci.c under
 * `runsc --platform=ptrace --network=none --ignore-cgroups` with a private
 * --root state dir. (--platform=kvm hangs on this machine kind.)
 */
#include "oci.h"

/* What runsc does not take of runc's bundle: an mqueue mount (gVisor has
 * none) and "rro" (its gofer binds read-only already; it refuses the word). */
static int runsc_configure(struct cJSON *config, const isotier_oci_bundle *b, isotier_error *err)
{
	(void)b, (void)err;
	isotier__oci_drop_mount(config, "/dev/mqueue");
	isotier__oci_drop_option(config, "rro");
	return 0;
}

static const char *const runsc_flags[] = {"--platform=ptrace", "--network=none", "--ignore-cgroups",
                                          NULL};
static const isotier_oci_runtime runsc_rt = {.name = "runsc",
                                             .global = runsc_flags,
                                             .note = "platform ptrace",
                                             .relay_output = true,
                                             .bundle_for_others = true,
                                             .configure = runsc_configure};

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
    .cpu_in_tree = true,
    .challenge_after_start = true,
};
