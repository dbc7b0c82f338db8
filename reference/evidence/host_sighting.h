/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host_sighting.h - which VMM or runsc processes the host saw run *this*
 * run's sandbox: the positive half of a MICROVM or GVISOR claim on a local
 * backend (ADR-0019).
 *
 * A process counts only when all three hold, checked when it is seen:
 *  - it runs the host's own program: the file of that name in isotier's
 *    trusted directories (isotier__trusted_program: never PATH), the same
 *    inode, and that file and every directory above it are root's and
 *    writable by no one else. A renamed copy of sleep, a decoy first on
 *    PATH, a binary in /tmp do not count;
 *  - it belongs to this run: it descends from a process isotier started for
 *    this run (the runtime or VMM the backend spawned: the run's roots), or,
 *    for a container engine whose daemon starts the runtime, it or an
 *    ancestor names this run's container id (read from the --cidfile the
 *    engine wrote). Another job's VM, a VMM started beside the probe, the
 *    next run's runsc do not;
 *  - which program it is stays on record (ISOTIER_HOST_SAW_QEMU...): the
 *    judge credits a vm layer only to the VMM the probe names (a qemu seen
 *    does not make a Firecracker claim).
 */
#ifndef ISOTIER_HOST_SIGHTING_H
#define ISOTIER_HOST_SIGHTING_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ISOTIER_BINDING_MAX_ROOTS    32
#define ISOTIER_BINDING_MAX_CIDFILES 4

typedef struct isotier_run_binding {
	pthread_mutex_t lock; /* the exec's thread adds, the watch's thread reads */
	pid_t roots[ISOTIER_BINDING_MAX_ROOTS];
	size_t n_roots;
	bool roots_full; /* more spawned than fit: later ones are not this run's */
	char cidfiles[ISOTIER_BINDING_MAX_CIDFILES][512];
	char cids[ISOTIER_BINDING_MAX_CIDFILES][72]; /* "" until the engine wrote it */
	size_t n_cidfiles;
} isotier_run_binding;

void isotier__binding_init(isotier_run_binding *b);
void isotier__binding_destroy(isotier_run_binding *b);
void isotier__binding_add_root(isotier_run_binding *b, pid_t pid);
void isotier__binding_add_cidfile(isotier_run_binding *b, const char *path);

/*
 * The ISOTIER_HOST_SAW_* flags pid earns (0: none), with "name (pid N)" in
 * detail when it earns one; why (when not NULL) gets why a VMM- or
 * runsc-named process did not count. A process whose name could earn only
 * flags in credited (already earned by another) is not checked and earns
 * none: the watch asks every few milliseconds about each new process, and
 * a runtime's dozen system calls of checks, over gVisor's processes, took
 * CPU time from the sandbox it watches.
 */
unsigned isotier__sighting_check(isotier_run_binding *b, pid_t pid, unsigned credited, char *detail,
                                 size_t len, char *why, size_t why_len);

/*
 * The host's own program name (a bare name) from isotier's trusted
 * directories: ISOTIER_TRUSTED_PATH (absolute directories, ':'-separated),
 * else /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin. PATH
 * is never read. A candidate counts only as a regular file owned by root,
 * not writable by group or others, in directories that are root's and not
 * writable by group or others either (up to /). 0, or -1 when there is none.
 */
int isotier__trusted_program(char *out, size_t out_len, const char *name);

/* The ISOTIER_HOST_SAW_* bit of the VMM a probe's vm layer names ("qemu",
 * "firecracker", "cloud-hypervisor", "crosvm"); 0 for any other name. */
unsigned isotier__host_saw_vmm_bit(const char *vmm);

#endif
