/* SPDX-License-Identifier: Apache-2.0 */
/* kernel_id.c - kernel identity and the host/sandbox comparison (kernel_id.h). */
#include "kernel_id.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define STAT_MAX (1024 * 1024) /* /proc/stat grows with CPUs and interrupts */

static const char *const relation_names[] = {"uncompared", "shared", "dedicated", "self"};

const char *isotier__kernel_relation_name(isotier_kernel_relation r)
{
	return (unsigned)r < sizeof relation_names / sizeof *relation_names ? relation_names[r]
	                                                                    : "uncompared";
}

int isotier__kernel_relation_parse(isotier_kernel_relation *out, const char *name)
{
	for (size_t i = 0; name && i < sizeof relation_names / sizeof *relation_names; i++)
		if (!strcmp(name, relation_names[i])) {
			*out = (isotier_kernel_relation)i;
			return 0;
		}
	return ISOTIER_EINVAL;
}

static const char *const evidence_names[] = {"none", "shared", "clear", "incomplete"};

const char *isotier__host_evidence_name(isotier_host_evidence e)
{
	return (unsigned)e < sizeof evidence_names / sizeof *evidence_names ? evidence_names[e]
	                                                                    : "none";
}

bool isotier__boot_id_valid(const char *s)
{
	if (!s)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = s[i];
		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return s[36] == '\0';
}

void isotier__kernel_id_self(isotier_kernel_id *out)
{
	memset(out, 0, sizeof *out);
	cleanup_free char *id = NULL, *stat = NULL;
	size_t len = 0;
	isotier_error ignored = {0};
	if (isotier__read_file(&id, &len, "/proc/sys/kernel/random/boot_id", 64, &ignored) == 0) {
		id[strcspn(id, "\n")] = '\0';
		if (isotier__boot_id_valid(id))
			snprintf(out->boot_id, sizeof out->boot_id, "%s", id);
	}
	if (isotier__read_file(&stat, &len, "/proc/stat", STAT_MAX, &ignored) == 0) {
		for (const char *l = stat; l && *l;) {
			long long v;
			if (!strncmp(l, "btime ", 6) && sscanf(l + 6, "%lld", &v) == 1 && v > 0) {
				out->btime = v;
				break;
			}
			l = strchr(l, '\n');
			l = l ? l + 1 : NULL;
		}
	}
}

isotier_kernel_relation isotier__kernel_compare(const isotier_kernel_id *host,
                                                const isotier_kernel_id *sandbox, char *detail,
                                                size_t detail_len)
{
	bool ids =
	    isotier__boot_id_valid(host->boot_id) && isotier__boot_id_valid(sandbox->boot_id);
	bool times = host->btime > 0 && sandbox->btime > 0;
	if (ids && !strcmp(host->boot_id, sandbox->boot_id)) {
		snprintf(detail, detail_len, "the sandbox runs on the host's kernel (boot_id %s)",
		         host->boot_id);
		return ISOTIER_KERNEL_SHARED;
	}
	if (!ids && times && host->btime == sandbox->btime) {
		snprintf(
		    detail, detail_len,
		    "no boot_id to compare and the sandbox's kernel booted when the host's did "
		    "(btime %" PRId64 "): taken as the host's kernel",
		    host->btime);
		return ISOTIER_KERNEL_SHARED;
	}
	if (ids && times && host->btime == sandbox->btime) {
		/* Two kernels that boot in the same second are rare; a boot_id
		 * hidden or replaced inside a container is not. */
		snprintf(detail, detail_len,
		         "boot_id %s differs from the host's %s but the boot time is the host's "
		         "(btime %" PRId64 "): the identity contradicts itself",
		         sandbox->boot_id, host->boot_id, host->btime);
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	if (ids && times) {
		snprintf(detail, detail_len, "a kernel of its own: boot_id %s, the host's is %s",
		         sandbox->boot_id, host->boot_id);
		return ISOTIER_KERNEL_DEDICATED;
	}
	if (ids) {
		snprintf(detail, detail_len,
		         "boot_id %s differs from the host's %s but the %s boot time is missing: "
		         "kernel identity not comparable",
		         sandbox->boot_id, host->boot_id,
		         sandbox->btime > 0 ? "host's" : "sandbox's");
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	snprintf(detail, detail_len,
	         "kernel identity not comparable (boot_id %s in the sandbox, %s on the host)",
	         isotier__boot_id_valid(sandbox->boot_id) ? "present" : "unknown",
	         isotier__boot_id_valid(host->boot_id) ? "present" : "unknown");
	return ISOTIER_KERNEL_UNCOMPARED;
}
