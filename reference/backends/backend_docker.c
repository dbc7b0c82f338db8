/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_docker.c - CONTAINER tier: a Docker daemon (dockerd; scripts/dockerd.sh
 * starts one when none runs) with its default runtime (runc through containerd),
 * the probe in an image built from scratch by isotier (engine.c).
 */
#include "engine.h"

static const isotier_engine engine = {
    .backend = "docker", .cli = "docker", .runtime = NULL, .podman = false};

ISOTIER_ENGINE_BACKEND(
    isotier__backend_docker, engine, .name = "docker", .catalogue_id = "docker",
    .description = "Docker Engine, default runtime, probe in a scratch image (CONTAINER)");
