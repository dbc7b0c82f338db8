/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend.h - one small interface over the sandboxes isotier drives (the
 * registry, backends.c's ISOTIER_BACKENDS, lists them; `isotier backends
 * --names` prints it). Used by `isotier
 * verify` and by isotier_create() (local backends only). One file per backend:
 * reference/backends/backend_<name>.c (OCI runtimes share oci.c, Docker and Podman
 * engine.c, both QEMU machines backend_qemu.c, the remote ones
 * backends/remote/: one engine, remote.c, and a file per provider).
 *
 * Lifecycle: available() -> provision() -> exec()* -> destroy().
 * provision() may create files (bundle, initramfs); nothing may be created
 * before it is called. destroy() removes everything provision() made, on
 * every path, and is safe after a failed exec().
 *
 * As implemented (reference/backends/backend_*.c, proc.c, oci.c, cpio.c, guest/init.c):
 * - Every child (bwrap, runc, runsc, qemu, the host command) runs in its own
 *   process group under the timeout and is killed with its group on timeout
 *   (exec returns ISOTIER_ETIMEDOUT) or when the caller's cancel descriptor
 *   becomes readable (ISOTIER_EINTR; see proc.h: the library touches no
 *   signal); runc/runsc containers left registered are `delete -f`'d (cleanup
 *   children, which ignore cancellation), temp dirs removed.
 * - Cancellation: spec.cancel_fd is watched by provision() (qemu-microvm's KVM
 *   trial boot; every request of a remote backend's) and kept for exec();
 *   req.cancel_fd, when > 0, is watched instead for that exec. <= 0: none. A
 *   call that finds it readable before it starts anything returns
 *   ISOTIER_EINTR. destroy() and release() ignore it (a remote sandbox is
 *   still deleted after a cancel: cleanup requests, http.h).
 * - Temporary files go under $TMPDIR (default /tmp): bwrap and host create
 *   none; runc/runsc a bundle dir (runsc needs $TMPDIR searchable by others);
 *   qemu-microvm a dir holding the initramfs.
 * - exec() streams: bwrap, runc and host pass the fds to the child; runsc and
 *   qemu-microvm relay through pipes (stdout_fd/stderr_fd -1: ours). In
 *   qemu-microvm the command's stdin is a copy of stdin_fd when that is a
 *   regular file (<= 16 MiB), else /dev/null (a pipe or a terminal is not read:
 *   it could block before the VM boots); its output comes
 *   back framed on the guest's console, and the capture dir starts empty in the
 *   guest and is copied back (bounded) after the command ends.
 * - host maps ISOTIER_GUEST_PROBE / ISOTIER_GUEST_CAPTURE in argv (also after
 *   "--opt=") to the spec's host paths, and refuses a rootfs.
 * - qemu-microvm: $ISOTIER_GUEST_DIR (default .deps/guest: vmlinux or vmlinuz,
 *   modules/), $ISOTIER_GUEST_INIT (default $(BUILD)/isotier-guest-init),
 *   $ISOTIER_QEMU_ACCEL=tcg|kvm to skip the cached KVM trial boot.
 * - qemu-aarch64: $ISOTIER_GUEST_ARM64_DIR (default .deps/guest-arm64),
 *   $ISOTIER_GUEST_INIT_AARCH64; TCG only; initramfs only (no host view, a
 *   rootfs is refused); the probe "P" is replaced by "P-aarch64".
 * - docker, docker-runsc, podman, podman-runsc (engine.c): a temp dir with the
 *   root the container starts from; Docker imports it as an image (removed
 *   in destroy), Podman runs it with --rootfs; every container is labelled
 *   with the sandbox's id and `rm -f`'d on every path. The CLI passes our
 *   fds through; stdin only when stdin_fd >= 0 (-i).
 * - crun and podman on hybrid cgroups run in a private mount namespace
 *   without the cgroup2 mount (isotier__cgroup_hybrid, backend_util.h).
 * - nspawn: a temp dir holding the container's root (an empty /usr, the
 *   host's top-level dirs bound read-only); systemd-nspawn --register=no
 *   --keep-unit runs as PID 1 of a PID namespace of its own (unshare), so
 *   killing its group kills the container too; passes our fds (--pipe).
 */
#ifndef ISOTIER_BACKEND_H
#define ISOTIER_BACKEND_H

#include "../../base/base.h"

/* Where the probe and the capture directory appear inside every sandbox. */
#define ISOTIER_GUEST_DIR     "/.isotier"
#define ISOTIER_GUEST_PROBE   ISOTIER_GUEST_DIR "/isotier-probe"
#define ISOTIER_GUEST_CAPTURE ISOTIER_GUEST_DIR "/capture"

typedef struct isotier_backend_spec {
	const char *rootfs;     /* NULL: a read-only view of the host root */
	const char *probe_path; /* host path of the static probe, at ISOTIER_GUEST_PROBE inside;
	                           NULL: none */
	const char
	    *capture_dir; /* host dir, writable at ISOTIER_GUEST_CAPTURE inside; NULL: none */
	int timeout_s;    /* default per exec; 0: 60 */
	bool
	    minimal_root; /* rootfs NULL: an empty root holding only the probe, the capture
	                     dir, /proc, /dev, /tmp (and /sys read-only) instead of the host view */
	int cancel_fd;    /* readable: cancel (see above); <= 0: none; kept, not owned */
	int64_t
	    deadline_ms; /* isotier__now_ms() clock: no request or command outlives it; 0: none */
	/* Remote backends: the template (E2B), snapshot (Daytona) or image (Fly)
	 * a created sandbox starts from instead of the configured one: what
	 * attach() found of the caller's sandbox, so that the second sandbox of
	 * the cross challenge is made like it; NULL or "": the configured one. */
	const char *like;
} isotier_backend_spec;

typedef struct isotier_exec_request {
	const char *const *argv; /* NULL-terminated, paths as seen inside */
	int stdin_fd;            /* -1: /dev/null */
	int stdout_fd;           /* -1: inherit */
	int stderr_fd;           /* -1: inherit */
	int timeout_s;           /* 0: the spec's */
	int cancel_fd;           /* readable: cancel; <= 0: the spec's */
	/* Set only for a backend whose descriptor says delivers_output (see
	 * there; isotier__exec_stream decides): the output goes to it, stream 1
	 * stdout and 2 stderr, instead of stdout_fd and stderr_fd. */
	isotier_output_fn on_output;
	void *output_data;
} isotier_exec_request;

/* What configures a backend: one environment variable it reads. */
typedef struct isotier_backend_setting {
	const char *env;     /* "E2B_API_KEY" */
	const char *meaning; /* one line, with the default when there is one */
	bool secret;         /* a credential: its value is never printed, logged or stored */
	bool required;       /* available() says "not configured" without it */
} isotier_backend_setting;

/*
 * The descriptor: everything about a backend, once (libgit2's
 * git_odb_backend is the model). A new local backend is one file defining
 * `const isotier_backend isotier__backend_<name>` plus one line in
 * backends.c's ISOTIER_BACKENDS list; test_backends checks every entry.
 */
#define ISOTIER_BACKEND_VERSION 1

typedef struct isotier_backend {
	unsigned int version; /* ISOTIER_BACKEND_VERSION: the registry refuses others */
	const char *name;     /* "bwrap" */
	/* The one link between a backend and its claim: the id of the catalogue
	 * entry that holds it ("bubblewrap"); NULL: no claim (host). */
	const char *catalogue_id;
	/* A variant that shares another backend's claim (bwrap-nonet shares
	 * bwrap's) names that backend here; without it the registry refuses two
	 * descriptors linking one catalogue entry, since a claim found from its
	 * entry (isotier__backend_for_claim) would silently be the first's. */
	const char *shares_claim_with;
	const char *description;
	/* Every environment variable it reads, {NULL}-terminated; NULL: none. */
	const isotier_backend_setting *settings;
	/* The backend runs commands on the host itself (no boundary of its own):
	 * its kernel is the host's by definition, so a VM it shows is its own. */
	bool observes_host;
	/* The sandboxes are a provider's, reached over HTTP (backends/remote/remote.h):
	 * their kernel is never this host's to compare with. A verification starts
	 * two and compares their kernels with each other; needs credentials from
	 * the environment (available() names the variable). */
	bool remote;
	/* exec() hands output to req->on_output itself when it is set (the
	 * bytes of a provider's HTTP stream, no descriptor in between); without
	 * it isotier__exec_stream gives exec() pipes and reads them. */
	bool delivers_output;
	/* exec() reads all of stdin before the sandbox starts (a VM booted with
	 * it in its initramfs): a probe run with --exec cannot wait there for the
	 * verifier's word, so create()'s bound exec (observe.h) is not offered. */
	bool stdin_before_start;
	/* The sandbox is the process tree isotier__proc_run starts and reaps
	 * (the runtime runs it in the foreground and reaps what it starts: bwrap,
	 * runc and crun as subreapers, runsc's sandbox and gofer, nspawn's init,
	 * the QEMU process holding the guest's vCPUs, the host's probe): the
	 * children's wait4 rusage is the sandbox's CPU time, which `verify`
	 * stores. false (the default) for Docker and Podman (the container runs
	 * under the daemon or conmon, not under the client reaped) and every
	 * remote backend: set only once that is checked, never by default. */
	bool cpu_in_tree;
	/* The host's challenge pattern waits for the probe's start line
	 * (ISOTIER-START on its standard error, asked with --say-start) instead
	 * of playing through the runtime's own start: a sandbox the host never
	 * sees (gVisor's Sentry) answers by the challenge alone, and the
	 * pattern's threads need not compete with its boot for the CPUs. A
	 * probe that never says it gets no pattern (no challenge). */
	bool challenge_after_start;
	/* Optional: 1 when what the runtime was given for the last exec (an OCI
	 * bundle's config.json) is still what isotier wrote, 0 (and why) when
	 * not: then the probe's report proves nothing about the sandbox isotier
	 * asked for (observe.c rejects it). Called while the probe runs. */
	int (*inputs_intact)(void *state, char *why, size_t why_len);
	/* 1 when usable here, 0 (and why) when not. Touches nothing. */
	int (*available)(char *why, size_t why_len);
	int (*provision)(void **state, const isotier_backend_spec *spec, isotier_error *err);
	/* *exit_status: the command's status, 128+N when killed by signal N. */
	int (*exec)(void *state, const isotier_exec_request *req, int *exit_status,
	            isotier_error *err);
	void (*destroy)(void *state);
	/* Optional (remote backends): destroy() that says whether the sandbox is
	 * gone. Frees state on every path; < 0 with err naming the sandbox's id
	 * when it may still exist (a leak a person must clean up). */
	int (*release)(void *state, isotier_error *err);
	/* Optional (remote backends): what the provider reports of a provisioned
	 * sandbox that a reader of the verdict needs (its class, template), one
	 * line; never a credential. */
	void (*describe)(void *state, char *buf, size_t len);
	/* Optional: brings guest_dir (a path as seen inside) back into the
	 * existing host_dir after exec(), the explicit artifact step of a
	 * backend that shares no directory with the host (artifacts.h;
	 * isotier__fetch_by_exec serves any backend whose sandbox has sh, tar and
	 * base64). NULL: spec.capture_dir is shared, nothing to fetch. req gives
	 * the timeout and cancel_fd (its argv and fds are ignored). */
	int (*fetch)(const struct isotier_backend *self, void *state, const char *guest_dir,
	             const char *host_dir, const isotier_exec_request *req, isotier_error *err);
	/* Optional (remote backends): deletes every sandbox a run that died without
	 * releasing them created through endpoint api, found by the run's nonce
	 * (the label or metadata its creates carry; sweep.h). < 0 when one may
	 * still exist; ISOTIER_EUNAVAILABLE when api is not the endpoint
	 * configured here (nothing asked). */
	int (*sweep_run)(const char *nonce, const char *api, isotier_error *err);
	/* Optional (remote backends): connects to a sandbox that already exists
	 * (the caller created it with the provider's own SDK) by its id, and puts
	 * the probe in it; then exec() and fetch() as after provision(). The id is
	 * hostile input: one isotier__remote_id_valid refuses is ISOTIER_EINVAL
	 * before any request; a sandbox the provider does not know (or no longer
	 * runs) is ISOTIER_ENOTFOUND. What it learns of the sandbox's template,
	 * snapshot or image goes to like ("" when the provider says nothing):
	 * spec.like of the second sandbox verify creates beside it. release() and
	 * destroy() never delete an attached sandbox (it is the caller's), and
	 * nothing is leased for it; on error nothing is left in *state. */
	int (*attach)(void **state, const isotier_backend_spec *spec, const char *id, char *like,
	              size_t like_len, isotier_error *err);
} isotier_backend;

/* The registry (backends.c); test_backends holds every entry to
 * isotier__backend_check. */
const isotier_backend *isotier__backend_lookup(const char *name);
/* The backend whose descriptor links the catalogue entry catalogue_id (the
 * link is one way: only descriptors name entries); NULL when none does. */
const isotier_backend *isotier__backend_for_claim(const char *catalogue_id);
size_t isotier__backend_count(void);
const isotier_backend *isotier__backend_at(size_t index);
/* 0 when b is a descriptor this library can drive: a known version, a name
 * of [a-z0-9-], the four operations, release() for a remote backend, and
 * settings whose names are environment variable names; else ISOTIER_EINVAL
 * with why. */
int isotier__backend_check(const isotier_backend *b, char *why, size_t why_len);
/* 0 when every descriptor of list passes isotier__backend_check, no name is
 * used twice and no catalogue entry is linked twice unless the later
 * descriptor says it shares the earlier one's claim (shares_claim_with
 * naming a backend before it in list with the same catalogue_id); else
 * ISOTIER_EINVAL with why. test_backends holds the registry to it. */
int isotier__backend_list_check(const isotier_backend *const *list, size_t n, char *why,
                                size_t why_len);
/* isotier__backend_list_check over the registry. */
int isotier__backend_registry_check(char *why, size_t why_len);

#endif
