/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sweep.h - releasing what dead runs left behind (see lease.h).
 *
 * A run that was stopped without seeing it (SIGKILL, power loss) leaves its
 * leases in the lease directory. isotier__sweep() reads every lease whose owner
 * (pid and start time) is gone and releases what it names, most dependent
 * first: a container engine's client, conmon and the runtime processes named
 * after the container are killed and the engine removes the container by name
 * (`docker rm -f`, `podman rm -f --time 0`); an image is removed (`docker rmi
 * -f`); an OCI bundle's containers are deleted from its private state; a remote
 * backend deletes the sandboxes labelled with the run's nonce; a temp dir's
 * processes (a QEMU naming its initramfs, an OCI runtime naming its bundle)
 * are killed and the directory removed. Leases of live owners are left alone.
 */
#ifndef ISOTIER_SWEEP_H
#define ISOTIER_SWEEP_H

#include "../core/lease.h"

/* Told of each leftover released: kind, backend ("" for a temp dir), what
 * (the name or path), the dead owner's pid, and what was done. */
typedef void (*isotier_sweep_report)(void *ctx, const char *kind, const char *backend,
                                     const char *what, int owner_pid, const char *done);

/* Sweeps the lease directory; returns how many leftovers were released (one
 * that could not be is reported too, and its lease kept for the next sweep),
 * or ISOTIER_EIO (errno set) when the lease directory cannot be found or read
 * (one that does not exist yet holds nothing: 0). */
int isotier__sweep(isotier_sweep_report report, void *ctx);

#endif
