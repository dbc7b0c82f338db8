/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_podman_runsc.c - GVISOR tier: `podman --runtime runsc` with the runtime
 * flags --platform=ptrace --network=none (without network=none runsc refuses to
 * start here: "cannot run with network enabled in root network namespace").
 */
#include "engine.h"
static const char *const global_flags[] = {"--runtime-flag", "platform=ptrace", "--runtime-flag",
                                           "network=none", NULL};
static const isotier_engine engine = {.backend = "podman-runsc",
                                      .cli = "podman",
                                      .runtime = "runsc",
                                      .podman = true,
                                      .global = global_flags};

ISOTIER_ENGINE_BACKEND(
    isotier__backend_podman_runsc, engine, .name = "podman-runsc", .catalogue_id = "podman-runsc",
    .description = "rootful Podman with the runsc (gVisor) runtime, --rootfs (GVISOR)");
