/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_crun.c - CONTAINER tier: crun on the OCI bundle runc uses (oci.c).
 * On a hybrid cgroup layout (this machine kind: v1 controllers, and cgroup2 at
 * /sys/fs/cgroup/unified holding hugetlb) crun refuses to start ("cgroups in
 * hybrid mode not supported, drop all controllers from cgroupv2"); every crun
 * call then runs in a private mount namespace where that cgroup2 mount is
 * lazily unmounted, so crun sees a plain cgroup v1 host. Nothing on the host
 * changes; only the hugetlb controller is out of crun's reach.
 */
#include "oci.h"

static const isotier_oci_runtime crun_rt = {.name = "crun", .no_hybrid_cgroups = true};

ISOTIER_OCI_BACKEND(
    isotier__backend_crun, crun_rt, .name = "crun", .catalogue_id = "crun",
    .description = "crun: the OCI bundle of the runc backend, read-only root view (CONTAINER)");
