/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lease.h - what a run has created, known to the host's state directory
 * (internal to libisotier).
 *
 * Before a backend creates something that outlives a crash of this process (a
 * temp dir, a container, an image, a remote sandbox), it writes a lease: one
 * small file in the lease directory naming the thing and the process that owns
 * it (its pid and its start time from /proc/PID/stat, so a reused pid does not
 * count). Once the thing is released the lease is dropped. A process that
 * died without releasing (SIGKILL, power loss) leaves its leases behind; the
 * next sweep (sweep.h) finds them, releases what they name and drops them.
 *
 * The lease directory: $ISOTIER_STATE_DIR/leases; else /var/lib/isotier/leases
 * for root; else $XDG_RUNTIME_DIR/isotier/leases; else
 * $HOME/.local/state/isotier/leases. Made 0700 on first use. Leases are best
 * effort: a directory that cannot be written never fails the run.
 */
#ifndef ISOTIER_LEASE_H
#define ISOTIER_LEASE_H

#include <stdbool.h>
#include <stddef.h>

/* What a lease names. Strings are at most 255 bytes of [A-Za-z0-9._/:=+-]. */
typedef struct isotier_lease {
	const char *kind;    /* "dir", "container", "image", "oci", "remote", "owner" */
	const char *backend; /* the backend's name ("" for a temp dir) */
	const char *cli;     /* the program that removes it: docker, podman, runc, ... */
	const char *wrap;    /* a cgroup2 mount the program must run without ("": none) */
	const char *name;    /* container or image name, OCI id, remote nonce */
	const char *path;    /* a directory: the temp dir, the bundle */
	const char *global;  /* podman's --runtime, when set ("": none) */
} isotier_lease;

/* True for a lease field: at most 255 bytes of [A-Za-z0-9._/:=+-]. */
bool isotier__lease_text_ok(const char *s);

/* The lease directory (see above) into buf; false when none can be named. */
bool isotier__lease_dir(char *buf, size_t len);

/* The start time of pid (field 22 of /proc/PID/stat, clock ticks since boot);
 * 0 when it does not exist. */
unsigned long long isotier__pid_start(int pid);

/* The inode of this process's pid namespace (0: unknown). A lease records
 * its owner's: a pid means nothing in another namespace (a container sharing
 * the state directory), so a sweep leaves such leases alone. */
unsigned long long isotier__pidns(void);

/* True when pid runs and started at start (a pid reused since does not count). */
bool isotier__pid_alive(int pid, unsigned long long start);

/* Writes the lease for l, keyed by kind and key (a dir's basename, else its
 * name). Every field may hold any byte but NUL: what is outside a plain set
 * (a space in $TMPDIR) is written as %XX (isotier__lease_decode). Returns 0,
 * or < 0 with errno set when it could not be written (no usable state
 * directory, a field too long): then the resource must not be created. */
int isotier__lease_take(const isotier_lease *l, const char *key);
/* The most a lease file holds (what a sweep reads); a longer one is refused. */
#define ISOTIER_LEASE_MAX 16384
/* Reverses the %XX of a lease field in place; false on a malformed escape or
 * an encoded NUL. */
bool isotier__lease_decode(char *s);

/* Drops this process's lease for kind and key, if any. */
void isotier__lease_drop(const char *kind, const char *key);

/* The pid namespace recorded in any lease process pid (started at start)
 * took; 0 when it holds none. */
unsigned long long isotier__lease_owner_pidns(int pid, unsigned long long start);

/* The owner lease (kind "owner"): names this process and its pid namespace
 * for as long as it runs, so a stale-run check can tell whether the pid it
 * recorded means anything where the check runs (history_stale.c). Taken by a
 * process that records runs, dropped when it exits; a SIGKILL leaves it, and
 * the sweep removes it after a month. */
void isotier__lease_owner_take(void);
void isotier__lease_owner_drop(void);

/* Whether the process that was pid (started at start, in the pid namespace
 * owner_pidns; 0: unknown) is gone, as far as this process can tell: 1 gone,
 * 0 it runs, -1 cannot tell. A pid is looked up only where it means
 * something: in the owner's namespace, or from the initial one, which sees
 * every process (nested ones by their own pid, NSpid); never counted gone
 * only because this namespace has no such pid. */
int isotier__owner_gone(int pid, unsigned long long start, unsigned long long owner_pidns);

#endif
