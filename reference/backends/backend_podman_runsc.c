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

static int available(char *why, size_t why_len)
{
	return isotier__engine_available(&engine, why, why_len);
}

static int provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return isotier__engine_provision(out, &engine, spec, err);
}

const isotier_backend isotier__backend_podman_runsc = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "podman-runsc",
    .catalogue_id = "podman-runsc",
    .description = "rootful Podman with the runsc (gVisor) runtime, --rootfs (GVISOR)",
    .available = available,
    .provision = provision,
    .exec = isotier__engine_exec,
    .destroy = isotier__engine_destroy,
};
