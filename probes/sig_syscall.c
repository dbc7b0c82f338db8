/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_syscall.c - system call interposition: does a user-space kernel
 * (gVisor's Sentry) answer our calls instead of Linux?
 *
 * Behaviour, not text: gVisor's syscall table returns ENOSYS or EPERM for
 * calls Linux implements (measured against the runsc on this machine kind,
 * see the table below). These are strong, except that a gVisor-like errno is
 * weak unless no seccomp filter can be there: a filter can return any errno
 * for any call (Docker's default profile answers modify_ldt with EPERM).
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

struct probe_syscall_rule {
	const char *name;
	const char *gvisor; /* the result under gVisor */
	const char *linux_; /* the result under Linux */
};

/* Native vs `runsc --platform=ptrace` (gVisor release 20221219). */
static const struct probe_syscall_rule probe_syscall_rules[] = {
    {"setfsuid", "ENOSYS", "0"},
    {"setfsgid", "ENOSYS", "0"},
    {"sysfs", "ENOSYS", "0"},
    {"ustat", "ENOSYS", "EINVAL"},
    {"sched_rr_get_interval", "EPERM", "0"},
    {"modify_ldt", "EPERM", "0"},
};

/* Result token of NAME in "NAME RESULT" lines, or false. */
static bool probe_syscall_result(const char *text, const char *name, char *out, size_t outsz)
{
	size_t nl = strlen(name);
	for (const char *line = text; line && *line;) {
		const char *p = line + nl;
		/* Tolerate "sysfs(3) ENOSYS" and "sysfs: ENOSYS" from other writers. */
		if (strncmp(line, name, nl) == 0 && *p == '(')
			while (*p && *p != ')' && *p != '\n')
				p++;
		if (strncmp(line, name, nl) == 0 && (*p == ')' || *p == ':'))
			p++;
		if (strncmp(line, name, nl) == 0 && (*p == ' ' || *p == '\t')) {
			while (*p == ' ' || *p == '\t')
				p++;
			probe_first_line(out, outsz, p);
			/* One token: cut at the first blank. */
			out[strcspn(out, " \t\r")] = '\0';
			return out[0] != '\0';
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/*
 * Is there no seccomp filter? The guard must not rest on what a filter can
 * answer: prctl(PR_GET_SECCOMP) is a system call the filter itself can
 * answer with 0. /proc/self/status is written by the kernel that installed
 * the filter (the host's in a container, the Sentry in gVisor), so it counts
 * only when the identity checks did not find /proc forged. True only when
 * the status file says 0 and prctl does not say otherwise.
 */
static bool probe_seccomp(struct probe_input *in, struct probe_signals *sigs, const char *calls)
{
	const char *status = probe_read(in, "/proc/self/status", NULL);
	char v[32];
	uint64_t mode;
	int st_mode = -1, pr_mode = -1;
	if (status && probe_field(v, sizeof(v), status, "Seccomp") && probe_parse_u64(v, &mode) &&
	    mode <= 2) {
		/* Docker, Podman and Kubernetes' RuntimeDefault apply a filter;
		 * so do some services on bare hosts: weak. */
		char sv[PROBE_VALUE_MAX];
		snprintf(sv, sizeof(sv), "%llu", (unsigned long long)mode);
		probe_add_signal(sigs, "syscall.seccomp_status", "/proc/self/status Seccomp",
		                 PROBE_WEAK, mode == 2 ? PROBE_KIND_CONTAINER : PROBE_KIND_NONE,
		                 mode == 2 ? PROBE_AXIS_CONTAINER : PROBE_AXIS_INFO, NULL, sv);
		st_mode = (int)mode;
	}
	if (calls && probe_syscall_result(calls, "prctl_seccomp", v, sizeof(v))) {
		probe_add_signal(sigs, "syscall.seccomp_prctl", "prctl(PR_GET_SECCOMP)", PROBE_WEAK,
		                 PROBE_KIND_NONE, PROBE_AXIS_INFO, NULL, v);
		pr_mode = probe_parse_u64(v, &mode) && mode <= 2 ? (int)mode : 3;
	}
	if (st_mode >= 0 && pr_mode >= 0) {
		/* A filter that answers prctl for itself shows here. */
		char sv[PROBE_VALUE_MAX];
		snprintf(sv, sizeof(sv), "%s (status %d, prctl %s)",
		         st_mode == pr_mode ? "agree" : "disagree", st_mode,
		         pr_mode <= 2 ? (pr_mode == 0   ? "0"
		                         : pr_mode == 1 ? "1"
		                                        : "2")
		                      : "other");
		probe_add_signal(sigs, "syscall.seccomp_agree",
		                 "prctl(PR_GET_SECCOMP) vs /proc/self/status Seccomp", PROBE_WEAK,
		                 PROBE_KIND_NONE, PROBE_AXIS_INFO, NULL, sv);
	}
	if (status && probe_field(v, sizeof(v), status, "TracerPid") && probe_parse_u64(v, &mode)) {
		/* A tracer (debugger, strace, proot) slows calls down; noted so
		 * the timing below can be read with it in mind. */
		char sv[PROBE_VALUE_MAX];
		snprintf(sv, sizeof(sv), "%llu", (unsigned long long)mode);
		probe_add_signal(sigs, "syscall.tracer_pid", "/proc/self/status TracerPid",
		                 PROBE_WEAK, PROBE_KIND_NONE, PROBE_AXIS_INFO, NULL, sv);
	}
	bool forged = false;
	for (size_t i = 0; i < sigs->n; i++)
		forged = forged || sigs->v[i].forges_proc;
	return st_mode == 0 && (pr_mode < 0 || pr_mode == 0) && !forged;
}

static void probe_syscall_timing(struct probe_input *in, struct probe_signals *sigs, bool traced)
{
	const char *text = probe_read(in, "/.probe/timing", NULL);
	char v[32];
	uint64_t ns;
	if (!text || !probe_syscall_result(text, "syscall_ns", v, sizeof(v)) ||
	    !probe_parse_u64(v, &ns))
		return;
	/*
	 * ~75 ns natively, ~67 us under gVisor's ptrace platform. Only the slow
	 * end says anything (a tracer or ptrace-gVisor); gVisor's KVM and
	 * systrap platforms are fast, so a fast call is no evidence against it.
	 */
	bool slow = ns > 10000 && !traced; /* a tracer alone makes calls this slow */
	char sv[PROBE_VALUE_MAX];
	snprintf(sv, sizeof(sv), "%llu", (unsigned long long)ns);
	probe_add_signal(sigs, "syscall.roundtrip_ns", "median getppid round trip", PROBE_WEAK,
	                 slow ? PROBE_KIND_GVISOR : PROBE_KIND_NONE,
	                 slow ? PROBE_AXIS_GVISOR : PROBE_AXIS_INFO, NULL, sv);
}

void probe_sig_syscall(struct probe_input *in, struct probe_signals *sigs)
{
	static const char *const ids[] = {
	    "syscall.setfsuid",
	    "syscall.setfsgid",
	    "syscall.sysfs",
	    "syscall.ustat",
	    "syscall.sched_rr_get_interval",
	    "syscall.modify_ldt",
	};
	const char *calls = probe_read(in, "/.probe/syscalls", NULL);
	bool no_filter = probe_seccomp(in, sigs, calls);
	for (size_t i = 0;
	     calls && i < sizeof(probe_syscall_rules) / sizeof(probe_syscall_rules[0]); i++) {
		const struct probe_syscall_rule *r = &probe_syscall_rules[i];
		char v[32];
		if (!probe_syscall_result(calls, r->name, v, sizeof(v)))
			continue;
		/* Success may be written as the value returned (sysfs(3) counts
		 * filesystem types, setfsuid returns the old id). */
		uint64_t num;
		bool g = strcmp(v, r->gvisor) == 0,
		     l = strcmp(v, r->linux_) == 0 || (strcmp(r->linux_, "0") == 0 && v[0] >= '1' &&
		                                       v[0] <= '9' && probe_parse_u64(v, &num));
		probe_add_signal(sigs, ids[i], r->name,
		                 !no_filter && !l ? PROBE_WEAK : PROBE_STRONG,
		                 g ? PROBE_KIND_GVISOR : PROBE_KIND_NONE,
		                 g || l ? PROBE_AXIS_GVISOR : PROBE_AXIS_INFO, NULL, v);
	}
	int tr = probe_find(sigs, "syscall.tracer_pid");
	probe_syscall_timing(in, sigs, tr >= 0 && strcmp(sigs->v[tr].value, "0") != 0);
}
