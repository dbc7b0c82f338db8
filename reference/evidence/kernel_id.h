/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernel_id.h - which boot of which kernel answers a sandbox's system calls.
 *
 * A microVM's promise is a kernel of its own. From inside, a VM shows the
 * same markers whether it was booted for this sandbox or is the host's own VM
 * that every container on it shares (a container on a cloud CI runner sees
 * the runner's hypervisor). Only a comparison from outside tells them apart:
 * a sandbox whose /proc/sys/kernel/random/boot_id is the host's runs on the
 * host's kernel, whatever VM markers it sees.
 */
#ifndef ISOTIER_KERNEL_ID_H
#define ISOTIER_KERNEL_ID_H

#include "../../base/base.h"

typedef struct isotier_kernel_id {
	char boot_id[40]; /* canonical UUID; "" when unknown */
	int64_t btime;    /* /proc/stat btime, seconds since the epoch; 0 when unknown */
} isotier_kernel_id;

/*
 * How a sandbox's kernel relates to the host's. Only DEDICATED and SELF let a
 * vm layer count as the sandbox's own boundary.
 */
typedef enum isotier_kernel_relation {
	ISOTIER_KERNEL_UNCOMPARED = 0, /* could not be told: an identity missing or conflicting */
	ISOTIER_KERNEL_SHARED,         /* the sandbox runs on the host's kernel */
	ISOTIER_KERNEL_DEDICATED,      /* a kernel other than the host's */
	ISOTIER_KERNEL_SELF,           /* the backend observes the host itself */
} isotier_kernel_relation;

/*
 * What the verifier's host itself saw of a local sandbox (host_watch.h):
 * evidence the sandbox cannot write, which decides before any identity the
 * sandbox prints. Only CLEAR lets a local sandbox's kernel be DEDICATED, or
 * its gVisor layer count as its own.
 */
typedef enum isotier_host_evidence {
	ISOTIER_HOST_NONE = 0,   /* no host view: the host backend itself, a remote provider */
	ISOTIER_HOST_SHARED,     /* the host saw the workload on its own kernel */
	ISOTIER_HOST_CLEAR,      /* the host looked and its kernel does not show in the sandbox */
	ISOTIER_HOST_INCOMPLETE, /* the host's checks could not complete: nothing excluded */
} isotier_host_evidence;

/* "none", "shared", "clear", "incomplete". */
const char *isotier__host_evidence_name(isotier_host_evidence e);

/* A canonical lowercase 8-4-4-4-12 UUID (what Linux prints as boot_id). */
bool isotier__boot_id_valid(const char *s);

/* The identity of the kernel this process runs on; fields stay empty/0 when
 * unreadable (never an error: an unknown identity compares as UNCOMPARED). */
void isotier__kernel_id_self(isotier_kernel_id *out);

/*
 * Compares a sandbox's kernel identity with the host's. Fails closed: equal
 * boot_ids, or (without boot_ids) equal boot times, are SHARED; DEDICATED
 * needs two valid boot_ids that differ and two boot times that differ (a
 * missing btime is a forged or unreadable /proc/stat, never a kernel of its
 * own); identity is testimony, so a caller with a view of its own
 * (host_watch.h) decides first;
 * everything else is UNCOMPARED. detail gets a sentence naming the values.
 */
isotier_kernel_relation isotier__kernel_compare(const isotier_kernel_id *host,
                                                const isotier_kernel_id *sandbox, char *detail,
                                                size_t detail_len);

/* "uncompared", "shared", "dedicated", "self". */
const char *isotier__kernel_relation_name(isotier_kernel_relation r);
/* Parses a name above; returns 0 or ISOTIER_EINVAL. */
int isotier__kernel_relation_parse(isotier_kernel_relation *out, const char *name);

#endif
