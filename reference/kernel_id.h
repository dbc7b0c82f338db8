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

#include "../base/base.h"

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

/* A canonical lowercase 8-4-4-4-12 UUID (what Linux prints as boot_id). */
bool isotier_boot_id_valid(const char *s);

/* The identity of the kernel this process runs on; fields stay empty/0 when
 * unreadable (never an error: an unknown identity compares as UNCOMPARED). */
void isotier_kernel_id_self(isotier_kernel_id *out);

/*
 * Compares a sandbox's kernel identity with the host's. Fails closed: equal
 * boot_ids, or (without boot_ids) equal boot times, are SHARED; DEDICATED
 * needs two valid boot_ids that differ and boot times that do not agree;
 * everything else is UNCOMPARED. detail gets a sentence naming the values.
 */
isotier_kernel_relation isotier_kernel_compare(const isotier_kernel_id *host,
                                               const isotier_kernel_id *sandbox, char *detail,
                                               size_t detail_len);

/* "uncompared", "shared", "dedicated", "self". */
const char *isotier_kernel_relation_name(isotier_kernel_relation r);
/* Parses a name above; returns 0 or ISOTIER_EINVAL. */
int isotier_kernel_relation_parse(isotier_kernel_relation *out, const char *name);

#endif
