/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_identity.c - are the kernel identity (boot_id, btime) and the
 * namespace readings the kernel's own, or files the sandbox put there?
 *
 * The verifier compares boot_id and btime with the host's to tell a
 * dedicated kernel from a shared one; a container that binds its own boot_id
 * and /proc/stat over procfs's would pass as a separate kernel. The checks
 * run live (live_identity.c writes .probe/identity); each becomes a
 * kernel.identity_* signal that never votes on a tier, except that a /proc
 * which is not procfs, namespace files that are not nsfs, or a mount over a
 * process's own /proc directory forge the namespace readings
 * (forges_proc: classify.c then leaves the container question open).
 *
 * The identity is trusted only when every check ran on this live kernel and
 * passed: a replayed capture is text anyone could have written.
 */
#include "probe.h"

#include <string.h>

struct probe_identity_check {
	const char *name;  /* the line's first word in .probe/identity */
	const char *id;    /* the signal */
	const char *label; /* the problem sentence's subject */
};

static const struct probe_identity_check probe_identity_checks[] = {
    {"proc_fs", "kernel.identity_proc_fs", "/proc"},
    {"files_mount", "kernel.identity_files_mount", "identity files"},
    {"proc_mounts", "kernel.identity_proc_mounts", "mounts under /proc"},
    {"boot_id_reads", "kernel.identity_boot_id_reads", "boot_id read twice"},
    {"ns_stat", "kernel.identity_ns_stat", "namespaces"},
    {"time_ns", "kernel.identity_time_ns", "time namespace"},
};
#define PROBE_NCHECKS (sizeof(probe_identity_checks) / sizeof(probe_identity_checks[0]))

static void probe_problem(struct probe_kernel *k, const char *fmt, const char *a, const char *b)
{
	if (k->identity_nproblems >= PROBE_IDENTITY_MAX_PROBLEMS)
		return;
	char *p = k->identity_problems[k->identity_nproblems++];
	snprintf(p, PROBE_IDENTITY_PROBLEM_MAX, fmt, a, b);
	/* Sandbox text: one printable ASCII line (bytes = characters for the reader). */
	for (char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = ' ';
}

struct probe_identity_line {
	char result[8];
	char detail[PROBE_VALUE_MAX];
};

/* The line of check `name` in .probe/identity: "name ok|fail|skip detail". */
static bool probe_identity_find(const char *text, const char *name, struct probe_identity_line *l)
{
	size_t nl = strlen(name);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, name, nl) == 0 && line[nl] == ' ') {
			char buf[PROBE_VALUE_MAX + 16];
			probe_first_line(buf, sizeof(buf), line + nl + 1);
			size_t r = strcspn(buf, " ");
			if (r == 0 || r >= sizeof(l->result))
				return false;
			memcpy(l->result, buf, r);
			l->result[r] = '\0';
			probe_strlcpy(l->detail, sizeof(l->detail), buf[r] ? buf + r + 1 : "");
			return strcmp(l->result, "ok") == 0 || strcmp(l->result, "fail") == 0 ||
			       strcmp(l->result, "skip") == 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

void probe_sig_identity(struct probe_input *in, struct probe_signals *sigs, struct probe_kernel *k)
{
	const char *text = probe_read(in, "/.probe/identity", NULL);
	bool all_ok = text != NULL;
	k->identity_nproblems = 0;
	/* First, so a replay's problem is the one the verifier shows. */
	if (in->root)
		probe_problem(k, "%s%s",
		              "replayed input: the identity checks cannot run on a capture", "");
	if (!text)
		probe_problem(k, "%s%s", "the identity checks did not run (no .probe/identity)",
		              "");
	for (size_t i = 0; text && i < PROBE_NCHECKS; i++) {
		const struct probe_identity_check *c = &probe_identity_checks[i];
		struct probe_identity_line l;
		if (!probe_identity_find(text, c->name, &l)) {
			all_ok = false;
			probe_problem(k, "%s: %s", c->label, "the check did not report");
			continue;
		}
		bool ok = strcmp(l.result, "ok") == 0, fail = strcmp(l.result, "fail") == 0;
		/* time_ns is skipped on kernels without time namespaces (before
		 * 5.6): nothing shifts btime there. */
		bool fine = ok || (strcmp(c->name, "time_ns") == 0 &&
		                   strcmp(l.detail, "no time namespace") == 0);
		struct probe_signal s = {
		    .id = c->id,
		    .family = PROBE_FAM_KERNEL,
		    .source = c->name,
		    .weight = PROBE_STRONG,
		    .supports = PROBE_KIND_NONE,
		    .axis = PROBE_AXIS_INFO,
		    .forges_proc = fail && (strcmp(c->name, "proc_fs") == 0 ||
		                            strcmp(c->name, "ns_stat") == 0 ||
		                            (strcmp(c->name, "proc_mounts") == 0 &&
		                             probe_starts_with(l.detail, "pid "))),
		};
		snprintf(s.value, sizeof(s.value), "%s: %.180s", l.result, l.detail);
		probe_add(sigs, &s);
		if (!fine) {
			all_ok = false;
			probe_problem(k, fail ? "%s: %s" : "%s: could not check (%s)", c->label,
			              l.detail);
		}
	}
	if (!k->boot_id[0]) {
		all_ok = false;
		probe_problem(k, "%s%s", "no boot_id (unreadable or not a UUID)", "");
	}
	/* A /proc/stat without btime is not an identity at all. */
	if (!k->btime) {
		all_ok = false;
		probe_problem(k, "%s%s", "no btime in /proc/stat", "");
	}
	k->identity_trusted = all_ok && !in->root && k->identity_nproblems == 0;
}
