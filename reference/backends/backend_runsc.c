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

ISOTIER_OCI_BACKEND(
    isotier__backend_runsc, runsc_rt, .name = "runsc", .catalogue_id = "runsc",
    .description = "gVisor runsc (ptrace platform, no network) on an OCI bundle (GVISOR)",
    .challenge_after_start = true);
