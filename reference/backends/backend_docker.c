/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_docker.c - CONTAINER tier: a Docker daemon (dockerd; scripts/dockerd.sh
 * starts one when none runs) with its default runtime (runc through containerd),
 * the probe in an image built from scratch by isotier (engine.c).
 */
#include "engine.h"

static const isotier_engine engine = {
    .backend = "docker", .cli = "docker", .runtime = NULL, .podman = false};

static int available(char *why, size_t why_len)
{
	return isotier__engine_available(&engine, why, why_len);
}

static int provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return isotier__engine_provision(out, &engine, spec, err);
}

const isotier_backend isotier__backend_docker = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "docker",
    .catalogue_id = "docker",
    .description = "Docker Engine, default runtime, probe in a scratch image (CONTAINER)",
    .available = available,
    .provision = provision,
    .exec = isotier__engine_exec,
    .destroy = isotier__engine_destroy,
};
