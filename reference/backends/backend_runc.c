/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_runc.c - CONTAINER tier: runc on an OCI bundle written by isotier
 * (oci.c): pid, net, ipc, uts and mount namespaces, a read-only root that
 * bind-mounts the host's top-level directories read-only (root.path cannot be
 * "/": pivot_root fails), the probe and the capture dir bound in.
 */
#include "oci.h"

static const isotier_oci_runtime runc_rt = {.name = "runc"};

static int runc_available(char *why, size_t why_len)
{
	return isotier__oci_available(&runc_rt, why, why_len);
}

static int runc_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return isotier__oci_backend_provision(out, &runc_rt, spec, err);
}

const isotier_backend isotier__backend_runc = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "runc",
    .catalogue_id = "runc",
    .description = "runc: OCI bundle written by isotier, read-only root view (CONTAINER)",
    .available = runc_available,
    .provision = runc_provision,
    .exec = isotier__oci_backend_exec,
    .destroy = isotier__oci_backend_destroy,
    .inputs_intact = isotier__oci_backend_inputs_intact,
    .cpu_in_tree = true,
};
