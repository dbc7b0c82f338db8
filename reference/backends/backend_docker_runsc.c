/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_docker_runsc.c - GVISOR tier: `docker run --runtime=runsc --network=none`
 * on a daemon with runsc registered in daemon.json (scripts/deps.sh registers it
 * with runtimeArgs --platform=ptrace --network=none: without them runsc refuses
 * to start on this machine kind). isotier backends lists the daemon's runtimes.
 */
#include "engine.h"

static const isotier_engine engine = {
    .backend = "docker-runsc", .cli = "docker", .runtime = "runsc", .podman = false};

ISOTIER_ENGINE_BACKEND(
    isotier__backend_docker_runsc, engine, .name = "docker-runsc", .catalogue_id = "docker-runsc",
    .description =
        "Docker Engine with the runsc (gVisor) runtime, probe in a scratch image (GVISOR)");
