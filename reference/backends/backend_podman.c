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

static int available(char *why, size_t why_len)
{
	return isotier__engine_available(&engine, why, why_len);
}

static int provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return isotier__engine_provision(out, &engine, spec, err);
}

const isotier_backend isotier__backend_podman = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "podman",
    .catalogue_id = "podman",
    .description = "rootful Podman, default runtime, --rootfs (CONTAINER)",
    .available = available,
    .provision = provision,
    .exec = isotier__engine_exec,
    .destroy = isotier__engine_destroy,
};
