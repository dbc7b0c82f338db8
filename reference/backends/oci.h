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

struct cJSON;
struct isotier_oci_bundle;

/*
 * One OCI runtime: what oci.c needs to know of it, in its backend's own file
 * (crun's handler table is the model). What the runtime does differently
 * to the bundle is its configure() hook, never a flag oci.c tests by name.
 */
typedef struct isotier_oci_runtime {
	const char *name;          /* the program: "runc" */
	const char *const *global; /* global flags after --root (NULL-terminated) */
	const char *note;          /* appended to the availability reason ("platform ptrace") */
	bool no_hybrid_cgroups;    /* crun: run it without the cgroup2 mount of a hybrid layout */
	/* Pipes, not our descriptors, for the command's stdout and stderr (runsc
	 * writing both streams to one file lets output overwrite itself). */
	bool relay_output;
	/* The runtime reaches the bundle as a user other than root (runsc's
	 * gofer, a user namespace's root): every ancestor of the bundle must be
	 * searchable by others, and the bundle is made so. */
	bool bundle_for_others;
	/* Optional: edits config.json as oci.c built it (runc's defaults: the
	 * namespaces, mounts and masks of backend_runc.c's comment) before it is
	 * written. 0, or < 0 with err set; the bytes written, hook included, are
	 * what inputs_intact compares. */
	int (*configure)(struct cJSON *config, const struct isotier_oci_bundle *b,
	                 isotier_error *err);
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
/* For configure() hooks: drops the mount whose destination is dest (1; 0 when
 * there is none); drops option from every mount's options. */
int isotier__oci_drop_mount(struct cJSON *config, const char *dest);
void isotier__oci_drop_option(struct cJSON *config, const char *option);
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
/* An OCI runtime's backend descriptor, bound to its runtime row (backend_util.h): the
 * operations above, the bundle's inputs check, its processes in the backend's tree
 * (cpu_in_tree); the descriptor's own facts (name, catalogue_id, description, ...) follow. */
#define ISOTIER_OCI_BACKEND(symbol_, runtime_, ...)                                                \
	ISOTIER_BOUND_BACKEND(                                                                     \
	    symbol_, runtime_, isotier__oci_available, isotier__oci_backend_provision,             \
	    .exec = isotier__oci_backend_exec, .destroy = isotier__oci_backend_destroy,            \
	    .inputs_intact = isotier__oci_backend_inputs_intact, .cpu_in_tree = true, __VA_ARGS__)

#endif
