/* SPDX-License-Identifier: Apache-2.0 */
/*
 * oci.h - the OCI bundle shared by the runc and runsc backends (internal).
 *
 * A bundle is a private temporary directory: rootfs/ (empty, holding only the
 * top-level symlinks of the root it shows; directories are bind-mounted
 * read-only by config.json), state/ (the runtime's --root, so containers are
 * private to this sandbox) and config.json, rewritten for every exec.
 */
#ifndef ISOTIER_OCI_H
#define ISOTIER_OCI_H

#include "backend_util.h"

typedef struct isotier_oci_runtime {
	const char *name;          /* "runc" */
	const char *const *global; /* global flags after --root (NULL-terminated) */
	bool gvisor;               /* runsc: no mqueue, relay stdout/stderr through pipes */
	const char *note;          /* appended to the availability reason ("platform ptrace") */
	bool no_hybrid_cgroups;    /* crun: run it without the cgroup2 mount of a hybrid layout */
} isotier_oci_runtime;

typedef struct isotier_oci_bundle {
	const isotier_oci_runtime *rt;
	isotier_spec_copy spec;
	char *dir;
	isotier_root_entry *entries;
	size_t n_entries;
	char unmount[64]; /* no_hybrid_cgroups on a hybrid host: the cgroup2 mount to hide */
	char *written;    /* the config.json isotier wrote for the current exec */
} isotier_oci_bundle;

/* Creates the bundle directory; on failure nothing is left behind. */
int isotier__oci_provision(isotier_oci_bundle **out, const isotier_oci_runtime *rt,
                           const isotier_backend_spec *spec, isotier_error *err);
/* Writes config.json for argv (exposed for tests). */
int isotier__oci_write_config(isotier_oci_bundle *b, const char *const *argv, isotier_error *err);
/* `RUNTIME --root STATE ... run --bundle DIR ID`, then `delete -f ID` when the
 * container is still known to the runtime (timeout, cancellation, failure). */
int isotier__oci_exec(isotier_oci_bundle *b, const isotier_exec_request *req, int *exit_status,
                      isotier_error *err);
/* Removes the bundle (after deleting any container left in its state dir). */
void isotier__oci_destroy(isotier_oci_bundle *b);
/* Deletes every container in the private state of a dead run's bundle (sweep.c). */
struct isotier_lease;
void isotier__oci_sweep(const struct isotier_lease *l);

/* The backend operations of an OCI runtime, shared by runc and runsc: each
 * backend file only names its runtime. Errors are prefixed "NAME: step". */
int isotier__oci_available(const isotier_oci_runtime *rt, char *why, size_t why_len);
int isotier__oci_backend_provision(void **out, const isotier_oci_runtime *rt,
                                   const isotier_backend_spec *spec, isotier_error *err);
int isotier__oci_backend_exec(void *bundle, const isotier_exec_request *req, int *exit_status,
                              isotier_error *err);
void isotier__oci_backend_destroy(void *bundle);
/* The descriptor's inputs_intact (backend.h): config.json still the bytes isotier wrote. */
int isotier__oci_backend_inputs_intact(void *bundle, char *why, size_t why_len);

#endif
