/* relate_remote.c - `isotier verify`: the kernel relation of a remote
 * backend's two sandboxes (see verify_run.h). */
#include "verify_run.h"

#include <string.h>

/*
 * A remote backend: this host's kernel is not the provider's; the two
 * sandboxes' kernels are compared with each other. The same boot (boot_id,
 * or without one the boot time) in both: they share one kernel, whatever VM
 * either shows (SHARED). Both valid and different: DEDICATED. Anything else,
 * the second probe's output missing or rejected included: UNCOMPARED.
 */
isotier_kernel_relation relate_remote(job *j, char *detail, size_t len)
{
	isotier_error perr = {0};
	if (j->rc2 < 0 || !j->out2) {
		snprintf(detail, len,
		         "the second %s sandbox gave no probe output (%.200s): its kernel "
		         "was not compared",
		         j->backend->name, j->err2.message);
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	if (j->out2_over || probe_result_parse(&j->probe2, j->out2, j->out2_len, &perr) != 0) {
		snprintf(detail, len,
		         "the second %s sandbox's probe output was rejected (%.200s): "
		         "kernels not compared",
		         j->backend->name, j->out2_over ? "too large" : perr.message);
		return ISOTIER_KERNEL_UNCOMPARED;
	}
	isotier_kernel_id a = {.btime = j->probe.btime}, b = {.btime = j->probe2.btime};
	snprintf(a.boot_id, sizeof a.boot_id, "%s", j->probe.boot_id);
	snprintf(b.boot_id, sizeof b.boot_id, "%s", j->probe2.boot_id);
	char inner[300];
	isotier_kernel_relation r = isotier_kernel_compare(&a, &b, inner, sizeof inner);
	switch (r) {
	case ISOTIER_KERNEL_SHARED:
		/* Clones of one memory snapshot report one boot too: isotier
		 * cannot tell them from a shared kernel, and fails closed. */
		snprintf(
		    detail, len,
		    "two %s sandboxes run on one kernel (boot_id %s, btime %lld in both): "
		    "not a kernel of their own (or clones of one memory snapshot, which cannot be "
		    "told apart from it)",
		    j->backend->name, a.boot_id[0] ? a.boot_id : "unknown", (long long)a.btime);
		break;
	case ISOTIER_KERNEL_DEDICATED:
		snprintf(detail, len, "two %s sandboxes, two kernels (boot_id %s and %s)",
		         j->backend->name, a.boot_id, b.boot_id);
		break;
	default:
		snprintf(detail, len,
		         "two %s sandboxes' kernels not comparable: boot_id %s and %s, "
		         "btime %lld and %lld",
		         j->backend->name, a.boot_id[0] ? a.boot_id : "unknown",
		         b.boot_id[0] ? b.boot_id : "unknown", (long long)a.btime,
		         (long long)b.btime);
		r = ISOTIER_KERNEL_UNCOMPARED;
	}
	return r;
}
