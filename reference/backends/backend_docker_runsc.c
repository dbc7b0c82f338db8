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

static int available(char *why, size_t why_len)
{
	return isotier__engine_available(&engine, why, why_len);
}

static int provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return isotier__engine_provision(out, &engine, spec, err);
}

const isotier_backend isotier__backend_docker_runsc = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "docker-runsc",
    .catalogue_id = "docker-runsc",
    .description =
        "Docker Engine with the runsc (gVisor) runtime, probe in a scratch image (GVISOR)",
    .available = available,
    .provision = provision,
    .exec = isotier__engine_exec,
    .destroy = isotier__engine_destroy,
};
