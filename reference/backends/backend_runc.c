/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_runc.c - CONTAINER tier: runc on an OCI bundle written by isotier
 * (oci.c): pid, net, ipc, uts and mount namespaces, a read-only root that
 * bind-mounts the host's top-level directories read-only (root.path cannot be
 * "/": pivot_root fails), the probe and the capture dir bound in.
 */
#include "oci.h"

static const isotier_oci_runtime runc_rt = {.name = "runc"};

ISOTIER_OCI_BACKEND(
    isotier__backend_runc, runc_rt, .name = "runc", .catalogue_id = "runc",
    .description = "runc: OCI bundle written by isotier, read-only root view (CONTAINER)");
