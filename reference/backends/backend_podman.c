/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_podman.c - CONTAINER tier: rootful Podman with its default runtime (crun
 * on Debian 12), the probe in a root directory (--rootfs: no image, no registry),
 * explicit --ulimit within the host's hard limits (engine.c). On hybrid cgroups
 * podman runs in a private mount namespace without the cgroup2 mount, as crun does.
 */
#include "engine.h"

static const isotier_engine engine = {
    .backend = "podman", .cli = "podman", .runtime = NULL, .podman = true};

ISOTIER_ENGINE_BACKEND(isotier__backend_podman, engine, .name = "podman", .catalogue_id = "podman",
                       .description = "rootful Podman, default runtime, --rootfs (CONTAINER)");
