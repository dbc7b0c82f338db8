/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.h - container engines driven through their CLI: Docker (a daemon,
 * `docker`) and Podman (daemonless, `podman`), with their default runtime or
 * with runsc (internal; backend_docker*.c, backend_podman*.c).
 *
 * provision() writes a root directory: .isotier/isotier-probe (a copy of the
 * probe), .isotier/capture, proc, dev, sys, tmp, and, for the host view, the
 * host root's (or spec->rootfs's) top-level symlinks and empty mount points for
 * its directories. Docker gets it as an image built from scratch by the tool
 * (`docker import` of a tar of that directory: no registry, no network);
 * Podman runs it directly (`--rootfs`). Every container is `--rm`,
 * `--network none`, `--read-only`, named isotier-..., and labelled
 * isotier.sandbox=<this sandbox's id>; on every path (timeout, interrupt,
 * failure, destroy) the containers carrying that label are `rm -f`'d and the
 * image is `rmi -f`'d. Daemon output (image ids, container ids, the runtimes
 * table) is bounded and checked before use.
 */
#ifndef ISOTIER_ENGINE_H
#define ISOTIER_ENGINE_H

#include "backend_util.h"

typedef struct isotier_engine {
	const char *backend;       /* "docker-runsc": error prefix */
	const char *cli;           /* "docker" or "podman" */
	const char *runtime;       /* --runtime NAME; NULL: the engine's default */
	const char *const *global; /* flags before the subcommand (NULL-terminated) */
	bool podman;
} isotier_engine;

int isotier__engine_available(const isotier_engine *e, char *why, size_t why_len);
int isotier__engine_provision(void **out, const isotier_engine *e, const isotier_backend_spec *spec,
                              isotier_error *err);
int isotier__engine_exec(void *state, const isotier_exec_request *req, int *exit_status,
                         isotier_error *err);
void isotier__engine_destroy(void *state);
/* An engine backend's descriptor, bound to its engine row (backend_util.h): the engine's
 * exec and destroy; the descriptor's own facts (name, catalogue_id, description, ...) follow. */
#define ISOTIER_ENGINE_BACKEND(symbol_, engine_, ...)                                              \
	ISOTIER_BOUND_BACKEND(symbol_, engine_, isotier__engine_available,                         \
	                      isotier__engine_provision, .exec = isotier__engine_exec,             \
	                      .destroy = isotier__engine_destroy, __VA_ARGS__)
/* Removes the container or image a dead run's lease names (sweep.c). */
struct isotier_lease;
void isotier__engine_sweep(const struct isotier_lease *l);

/* engine_cli.c: every call to the engine's CLI. ISOTIER_ENGINE_CALL_TIMEOUT_S bounds each. */
#define ISOTIER_ENGINE_CALL_TIMEOUT_S 30
/* `[unshare ... DIR] CLI GLOBAL...`, how every call starts: unmount ("" or NULL: none) the
 * cgroup2 mount to hide (podman on hybrid cgroups). */
void isotier__engine_argv(isotier_argv *a, const isotier_engine *e, const char *unmount);
/* Runs `CLI GLOBAL... args...`; stdout into out (bounded) when given. Watches cancel_fd (> 0)
 * unless flags has ISOTIER_PROC_CLEANUP. With status, the exit status is stored there; without,
 * a nonzero one is an error naming the call and the first line of its stderr. */
int isotier__engine_call(const isotier_engine *e, const char *unmount, int cancel_fd,
                         const char *const *args, isotier_capture *out, int flags, int *status,
                         isotier_error *err);

/*
 * The Docker daemon's configured runtimes, from `docker info` (bounded):
 * "io.containerd.runc.v2, runc, runsc (/usr/bin/runsc --platform=ptrace ...)".
 * Returns 1 when the daemon answered (has_runsc tells whether one is named
 * "runsc"), 0 when not (out holds why).
 */
int isotier__docker_runtimes(char *out, size_t len, bool *has_runsc);

#endif
