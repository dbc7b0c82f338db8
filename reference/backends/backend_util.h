/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_util.h - what the backend implementations share (internal): the
 * provisioned spec, the top-level entries of a root to bind into a sandbox,
 * argv checks, relaying sinks.
 */
#ifndef ISOTIER_BACKEND_UTIL_H
#define ISOTIER_BACKEND_UTIL_H

#include "backend.h"
#include "../core/proc.h"

/* A deep copy of an isotier_backend_spec. */
typedef struct isotier_spec_copy {
	char *rootfs;
	char *probe_path;
	char *capture_dir;
	int timeout_s;
	bool minimal_root;
	int cancel_fd; /* the caller's, not owned (<= 0: none) */
} isotier_spec_copy;

/* ISOTIER_EINTR when spec->cancel_fd is already readable (provision refused). */
int isotier__spec_copy_init(isotier_spec_copy *out, const isotier_backend_spec *spec,
                            isotier_error *err);
void isotier__spec_copy_clear(isotier_spec_copy *c);
/* The timeout of one exec: the request's, else the spec's, else 60 s. */
int isotier__exec_timeout(const isotier_spec_copy *c, const isotier_exec_request *req);
/* The cancel descriptor of one exec: the request's, else the spec's (<= 0: none). */
int isotier__exec_cancel_fd(const isotier_spec_copy *c, const isotier_exec_request *req);
/* How one exec runs argv: the request's descriptors, isotier__exec_timeout and
 * isotier__exec_cancel_fd; a backend sets what else it needs on the copy. */
isotier_proc_opts isotier__exec_proc_opts(const isotier_spec_copy *c,
                                          const isotier_exec_request *req, char *const *argv);
/* Checks the request: argv non-empty, bounded. */
int isotier__exec_check(const isotier_exec_request *req, isotier_error *err);

/* A top-level entry of a root: a directory (link NULL) or a symlink. */
typedef struct isotier_root_entry {
	char *name;
	char *link;
} isotier_root_entry;

/*
 * Lists the directories and symlinks directly under root that a read-only
 * view should show, skipping what every sandbox provides itself (proc, sys,
 * dev, tmp, run), lost+found and ISOTIER_GUEST_DIR. Sorted by name.
 */
int isotier__root_entries(isotier_root_entry **out, size_t *n, const char *root,
                          isotier_error *err);
void isotier__root_entries_free(isotier_root_entry *e, size_t n);
/* How a backend's provision starts: spec copied into c, the entries of its
 * root (spec's rootfs, else "/"; none for a minimal root) and, with a
 * dir_prefix, a fresh private directory in *dir (isotier__mkdtemp). What it
 * made stays set for the caller's destroy to free on any error. */
int isotier__provision_root(isotier_spec_copy *c, isotier_root_entry **entries, size_t *n_entries,
                            char **dir, const char *dir_prefix, const isotier_backend_spec *spec,
                            isotier_error *err);
/* Undoes isotier__provision_root: dir (NULL: none) removed and freed, then
 * the entries and the spec copy freed. */
void isotier__provision_root_clear(isotier_spec_copy *c, isotier_root_entry *entries,
                                   size_t n_entries, char *dir);
/* The symlinks among entries, made under root (a directory already there). */
int isotier__root_symlinks(const char *root, const isotier_root_entry *entries, size_t n_entries,
                           isotier_error *err);

/* A sink (see proc.h) that writes everything to fd. A reader that stops
 * reading cannot hold us past deadline_ms (isotier__now_ms() based; 0: none)
 * nor past cancel_fd becoming readable (<= 0: none): the sink then fails with
 * ISOTIER_ETIMEDOUT / ISOTIER_EINTR and the child is killed. Write errors (a
 * closed reader) drop the data. */
typedef struct isotier_relay {
	int fd;
	int64_t deadline_ms;
	int cancel_fd;
} isotier_relay;
int isotier__relay_sink(void *ctx, const char *buf, size_t len);

/*
 * Hybrid cgroups (v1 controllers on a tmpfs at /sys/fs/cgroup and a cgroup2
 * hierarchy holding a controller below it, e.g. /sys/fs/cgroup/unified with
 * hugetlb): crun refuses them ("cgroups in hybrid mode not supported, drop all
 * controllers from cgroupv2"). When the layout is hybrid, writes that cgroup2
 * mount point to out and returns true; the crun and podman backends then run
 * the runtime in a private mount namespace without it (isotier__argv_unmounted).
 */
bool isotier__cgroup_hybrid(char *out, size_t len);

/* A unique short id for containers: "isotier-<pid>-<64 random bits in hex>". */
void isotier__unique_id(char *out, size_t len);

/* A growing NULL-terminated argv; strings are owned copies. A failed push
 * sets oom and later pushes do nothing; check oom once at the end. */
typedef struct isotier_argv {
	char **v;
	size_t n, cap;
	bool oom;
} isotier_argv;
void isotier__argv_push(isotier_argv *a, const char *s);
void isotier__argv_pushf(isotier_argv *a, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
void isotier__argv_free(isotier_argv *a);
static inline void cleanup_argvp(isotier_argv *a)
{
	isotier__argv_free(a);
}
#define cleanup_argv __attribute__((cleanup(cleanup_argvp)))
/* Prefixes argv with `unshare -m --propagation private sh -c 'umount -l -- "$0" && exec "$@"' DIR`:
 * what follows runs in a private mount namespace that no longer has DIR mounted. */
void isotier__argv_unmounted(isotier_argv *a, const char *dir);

/* For the host backend: a path as seen inside the sandbox (ISOTIER_GUEST_PROBE,
 * ISOTIER_GUEST_CAPTURE, also after "--opt=") mapped to the host path; NULL
 * when arg does not name one. Result is malloc'd. */
char *isotier__map_guest_path(const char *arg, const isotier_spec_copy *c);

/* A family's backend descriptor (backend.h) bound to one row of the family's table (an engine,
 * an OCI runtime): available() and provision() are the family's, called with the row; the
 * rest (exec, destroy, the descriptor's own facts) follow as designators. One per backend file:
 * ISOTIER_ENGINE_BACKEND (engine.h), ISOTIER_OCI_BACKEND (oci.h). */
#define ISOTIER_BOUND_BACKEND(symbol_, row_, available_, provision_, ...)                          \
	static int symbol_##_available(char *why, size_t why_len)                                  \
	{                                                                                          \
		return available_(&(row_), why, why_len);                                          \
	}                                                                                          \
	static int symbol_##_provision(void **out, const isotier_backend_spec *spec,               \
	                               isotier_error *err)                                         \
	{                                                                                          \
		return provision_(out, &(row_), spec, err);                                        \
	}                                                                                          \
	const isotier_backend symbol_ = {.version = ISOTIER_BACKEND_VERSION,                       \
	                                 .available = symbol_##_available,                         \
	                                 .provision = symbol_##_provision,                         \
	                                 __VA_ARGS__}

#endif
