/* SPDX-License-Identifier: Apache-2.0 */
/*
 * proc.h - child processes for the backends (internal to libisotier).
 *
 * Every child runs in its own process group under a timeout (default 60 s).
 * On timeout, or when the caller's cancel descriptor becomes readable while
 * it waits, the whole group is killed with SIGKILL (kill(-pgid)), the child is
 * reaped, and the call returns ISOTIER_ETIMEDOUT / ISOTIER_EINTR.
 *
 * Cancellation is per call and the library holds no signal state: it never
 * changes a signal mask or disposition of the caller, never reads a signal.
 * The caller passes cancel_fd (> 0; 0 or less: none), a descriptor that
 * becomes readable (or hung up) to mean "cancel": typically the read end of a
 * pipe its own SIGINT/SIGTERM handler writes one byte to. It is polled, never
 * read, so it stays readable: every call watching it is cancelled, and one
 * started with it readable is refused (ISOTIER_EINTR) except a cleanup child
 * (ISOTIER_PROC_CLEANUP, e.g. `runc delete`), which ignores it.
 * In the child, after fork, SIGINT, SIGTERM and SIGPIPE are reset to their
 * defaults and the signal mask is emptied.
 */
#ifndef ISOTIER_PROC_H
#define ISOTIER_PROC_H

#include "../../base/base.h"

#include <stdbool.h>
#include <stdint.h>

#define ISOTIER_PROC_DEFAULT_TIMEOUT_S 60

/* Bounded in-memory capture of a stream. Bytes past max are read and dropped
 * (the child never blocks on a full pipe) and truncated is set. */
typedef struct isotier_capture {
	char *data; /* NUL-terminated; free() it */
	size_t len;
	size_t max; /* 0: 1 MiB */
	bool truncated;
} isotier_capture;

/* Streaming sink: called with each chunk read; a non-zero return kills the
 * child (the call then returns that value, which should be an ISOTIER_E*). */
typedef int (*isotier_proc_sink)(void *ctx, const char *buf, size_t len);

enum {
	ISOTIER_PROC_CLEANUP = 1 << 0, /* ignores cancel_fd (e.g. `runc delete`) */
	ISOTIER_PROC_QUIET = 1 << 1,   /* stderr to /dev/null unless captured or given */
};

typedef struct isotier_proc_opts {
	const char *const *argv; /* argv[0] searched in $PATH when it has no '/' */
	const char *const *envp; /* NULL: inherit the environment */
	const char *cwd;         /* NULL: inherit */
	int stdin_fd;            /* -1: /dev/null */
	int stdout_fd;           /* -1: inherit (ignored when out_capture or out_sink is set) */
	int stderr_fd;           /* -1: inherit (ignored when err_capture or err_sink is set) */
	isotier_capture *out_capture;
	isotier_proc_sink out_sink;
	void *out_sink_ctx;
	isotier_capture *err_capture;
	isotier_proc_sink err_sink; /* like out_sink, for stderr (err_capture wins) */
	void *err_sink_ctx;
	int timeout_s; /* 0: ISOTIER_PROC_DEFAULT_TIMEOUT_S; <0: none */
	int flags;
	int cancel_fd; /* readable or hung up: cancel; <= 0: none (see above) */
	/* Set: on a cancel the child is not killed at once. The hook is called
	 * (and again every second) to have the child's work undone by its owner
	 * (`podman rm -f NAME`: killing a container engine's client mid-create
	 * leaves the container behind); the child then has up to 20 s to end
	 * before its group is killed. The call still returns ISOTIER_EINTR. */
	void (*on_cancel)(void *ctx);
	void *on_cancel_ctx;
	/* > 0: stdout comes a byte at a time (a VM's serial console, where QEMU
	 * writes each byte the guest's UART sends): after a read of less than
	 * ISOTIER_PROC_BATCH_BYTES, wait this many ms before reading again, so
	 * that its bytes are read in batches instead of one wakeup each. */
	int out_batch_ms;
} isotier_proc_opts;
#define ISOTIER_PROC_BATCH_BYTES 4096

/*
 * Runs a child and waits for it. Returns 0 when it ran to completion, with
 * *exit_status its exit code (128+N when killed by signal N; 127 when it could
 * not be executed). Returns ISOTIER_ETIMEDOUT, ISOTIER_EINTR (cancelled: the
 * group is killed first; or not started), ISOTIER_EINVAL (cancel_fd > 0 is not
 * an open descriptor) or another ISOTIER_E* with err filled.
 */
int isotier__proc_run(const isotier_proc_opts *opts, int *exit_status, isotier_error *err);
/* Runs argv as a quiet cleanup child (ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET,
 * no stdio, at most timeout_s): `runc delete -f ID` and its kind, whose
 * status no caller can act on. */
void isotier__proc_cleanup(const char *const *argv, int timeout_s);

/* The CPU time of every child isotier__proc_run reaped on the calling thread
 * so far (microseconds, user + system, each child's wait4 rusage: its
 * descendants it reaped included, a daemon's or anything reparented away
 * not). A difference across calls is what those children used. */
int64_t isotier__proc_thread_cpu_us(void);

/* True when cancel_fd (> 0) is readable, hung up or not open; never blocks,
 * reads nothing. False for cancel_fd <= 0. */
bool isotier__cancelled(int cancel_fd);

/* Helpers for the backends. */
/* CLOCK_MONOTONIC in milliseconds. */
int64_t isotier__now_ms(void);
/* Finds an executable in $PATH (or checks a path with '/'); 0 when found. */
int isotier__find_program(char *out, size_t out_len, const char *name);

/* Called (on this thread, in the parent) with the pid of every child
 * isotier__proc_run forks on this thread until it is set to NULL: the host's
 * watch binds a run's VMM or runsc to the processes the run started
 * (host_sighting.h). One per thread. */
typedef void (*isotier_spawn_hook)(void *ctx, pid_t pid);
void isotier__proc_spawn_hook_set(isotier_spawn_hook hook, void *ctx);
/* mkdtemp under $TMPDIR (or /tmp) with the given prefix; *out is malloc'd. */
int isotier__mkdtemp(char **out, const char *prefix, isotier_error *err);
/* rm -rf without following symlinks or crossing mount points; best effort. */
void isotier__rmtree(const char *path);
/* Writes a whole buffer to a new file (mode), fsync not needed. */
int isotier__write_file(const char *path, const void *data, size_t len, int mode,
                        isotier_error *err);
/* Copies a regular file (at most max bytes) to a new file with mode. */
int isotier__copy_file(const char *dst, const char *src, int mode, isotier_error *err);

#endif
