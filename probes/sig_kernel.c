/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sig_kernel.c - kernel identity: which kernel answers our system calls.
 *
 * gVisor's Sentry presents a fixed identity: uname release "4.4.0" (older)
 * or "4.19.0-gvisor" style (newer), version "#1 SMP Sun Jan 10 15:06:54 PST
 * 2016", a /proc/version without the "(user@host) (gcc ...)" fields, a
 * command line "BOOT_IMAGE=/vmlinuz-4.4.0-gvisor quiet" and a joke boot log
 * starting "Starting gVisor...". All of it is text, and text can be forged
 * (gVisor's own docs say dmesg is trivially spoofable), so every signal here
 * is weak: the syscall family decides.
 */
#include "probe.h"

#include <string.h>

#define PROBE_GVISOR_VERSION "#1 SMP Sun Jan 10 15:06:54 PST 2016"

static void probe_kernel_uname(struct probe_input *in, struct probe_signals *sigs,
                               struct probe_kernel *k)
{
	const char *text = probe_read(in, "/.probe/uname", NULL);
	char *const fields[5] = {k->sysname, k->nodename, k->release, k->version, k->machine};
	const size_t sizes[5] = {sizeof(k->sysname), sizeof(k->nodename), sizeof(k->release),
	                         sizeof(k->version), sizeof(k->machine)};
	probe_uname_fields(text, fields, sizes);
	if (k->release[0]) {
		bool g = strcmp(k->release, "4.4.0") == 0 || strstr(k->release, "gvisor");
		probe_add_signal(sigs, "kernel.uname_release", "uname(2) release", PROBE_WEAK,
		                 g ? PROBE_KIND_GVISOR : PROBE_KIND_NONE, PROBE_AXIS_GVISOR, NULL,
		                 k->release);
	}
	if (k->version[0]) {
		bool g = strcmp(k->version, PROBE_GVISOR_VERSION) == 0;
		probe_add_signal(sigs, "kernel.uname_version", "uname(2) version", PROBE_WEAK,
		                 g ? PROBE_KIND_GVISOR : PROBE_KIND_NONE, PROBE_AXIS_GVISOR, NULL,
		                 k->version);
	}
}

/* The first line of path into out; false when it is absent or empty (no clue). */
static bool probe_kernel_line(struct probe_input *in, const char *path, char *out, size_t outsz)
{
	const char *text = probe_read(in, path, NULL);
	if (!text)
		return false;
	probe_first_line(out, outsz, text);
	return out[0] != '\0';
}

static void probe_kernel_proc_version(struct probe_input *in, struct probe_signals *sigs,
                                      struct probe_kernel *k)
{
	if (!probe_kernel_line(in, "/proc/version", k->proc_version, sizeof(k->proc_version)))
		return;
	/* Linux: "Linux version R (user@host) (gcc ...) #N ..."; gVisor has no
	 * parenthesised build fields and its fixed date. */
	bool g =
	    strstr(k->proc_version, PROBE_GVISOR_VERSION) ||
	    (probe_starts_with(k->proc_version, "Linux version ") && !strchr(k->proc_version, '('));
	probe_add_signal(sigs, "kernel.proc_version", "/proc/version", PROBE_WEAK,
	                 g ? PROBE_KIND_GVISOR : PROBE_KIND_NONE, PROBE_AXIS_GVISOR, NULL,
	                 k->proc_version);
}

/*
 * uname(2) against /proc/version: Linux prints "Linux version <release> (...)
 * <version>" from the same utsname, and gVisor's Sentry answers both with its
 * own fixed identity. A container that forges gVisor (a seccomp filter, a
 * copied /proc/version) still gets the host's uname(2): the two disagree.
 * Informational; classify.c lowers a gvisor layer it disagrees with.
 */
static void probe_kernel_uname_agree(struct probe_signals *sigs, const struct probe_kernel *k)
{
	if (!k->release[0] || !k->version[0] || !k->proc_version[0])
		return;
	const char *pv = k->proc_version;
	size_t rl = strlen(k->release);
	bool rel =
	    probe_starts_with(pv, "Linux version ") &&
	    strncmp(pv + strlen("Linux version "), k->release, rl) == 0 &&
	    (pv[strlen("Linux version ") + rl] == ' ' || pv[strlen("Linux version ") + rl] == '\0');
	bool ver = strstr(pv, k->version) != NULL;
	char sv[PROBE_VALUE_MAX];
	snprintf(sv, sizeof(sv), "%s",
	         rel && ver ? "agree"
	         : rel      ? "disagree: the version differs"
	                    : "disagree: the release differs");
	probe_add_signal(sigs, "kernel.uname_proc_version", "uname(2) vs /proc/version", PROBE_WEAK,
	                 PROBE_KIND_NONE, PROBE_AXIS_INFO, NULL, sv);
}

static void probe_kernel_cmdline(struct probe_input *in, struct probe_signals *sigs,
                                 struct probe_kernel *k)
{
	/* An empty command line (some container runtimes' fake /proc) is no clue. */
	if (!probe_kernel_line(in, "/proc/cmdline", k->cmdline, sizeof(k->cmdline)))
		return;
	bool g = strstr(k->cmdline, "-gvisor") != NULL;
	probe_add_signal(sigs, "kernel.cmdline", "/proc/cmdline", PROBE_WEAK,
	                 g ? PROBE_KIND_GVISOR : PROBE_KIND_NONE, PROBE_AXIS_GVISOR, NULL,
	                 k->cmdline);
}

static void probe_kernel_log(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/kmsg", NULL);
	if (!text || !*text)
		return;
	/* gVisor's log begins with its banner; look at the first lines only. */
	bool g = false;
	const char *line = text;
	for (int i = 0; i < 5 && line && *line; i++) {
		const char *eol = strchr(line, '\n');
		size_t n = eol ? (size_t)(eol - line) : strlen(line);
		if (memmem(line, n, "Starting gVisor", 15))
			g = true;
		line = eol ? eol + 1 : NULL;
	}
	char sv[PROBE_VALUE_MAX];
	probe_first_line(sv, sizeof(sv), text);
	probe_add_signal(sigs, "kernel.log", "kernel log (klogctl or /dev/kmsg)", PROBE_WEAK,
	                 g ? PROBE_KIND_GVISOR : PROBE_KIND_NONE, PROBE_AXIS_GVISOR, NULL, sv);
}

/*
 * Linux hands out nsfs inode numbers from 0xF0000000 up, and the initial
 * namespaces sit just below (0xEFFFFFF8..0xEFFFFFFF). gVisor numbers its
 * namespaces like ordinary small inodes ("pid:[158]").
 */
static void probe_kernel_nsfs(struct probe_input *in, struct probe_signals *sigs)
{
	const char *text = probe_read(in, "/.probe/ns", NULL);
	unsigned linux_like = 0, other = 0;
	char first_other[64] = "";
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *br = memchr(line, '[', len);
		uint64_t ino;
		char num[32];
		if (br) {
			size_t n = 0;
			for (br++; *br >= '0' && *br <= '9' && n < sizeof(num) - 1; br++)
				num[n++] = *br;
			num[n] = '\0';
			if (*br == ']' && probe_parse_u64(num, &ino)) {
				if (ino >= 0xEFFFFFF0ull && ino <= 0xFFFFFFFFull)
					linux_like++;
				else {
					other++;
					if (!first_other[0])
						snprintf(first_other, sizeof(first_other), "%.*s",
						         (int)(eol ? eol - line : 40), line);
				}
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	if (!linux_like && !other)
		return;
	/*
	 * Behaviour, not text: Linux-range numbers come from a Linux kernel's
	 * nsfs (strong against gVisor); small ones only hint at gVisor (another
	 * kernel could number them so).
	 */
	bool gv = other && !linux_like;
	char sv[PROBE_VALUE_MAX];
	snprintf(sv, sizeof(sv), gv ? "non-linux (%s)" : "linux", first_other);
	probe_add_signal(sigs, "kernel.nsfs_inodes", "/proc/self/ns/* inode numbers",
	                 gv ? PROBE_WEAK : PROBE_STRONG, gv ? PROBE_KIND_GVISOR : PROBE_KIND_NONE,
	                 PROBE_AXIS_GVISOR, NULL, sv);
}

/* A boot_id is a canonical UUID (8-4-4-4-12 lowercase hex); anything else is
 * not an identity and is dropped rather than compared. */
static bool probe_is_uuid(const char *s)
{
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = s[i];
		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return s[36] == '\0';
}

/*
 * Kernel identity is recorded, not voted on: it says nothing about the kind
 * of boundary, only whether two observations share one kernel boot, which
 * only the outside (verify) can compare.
 */
static void probe_kernel_identity(struct probe_input *in, struct probe_kernel *k)
{
	char line[64];
	const char *text = probe_read(in, "/proc/sys/kernel/random/boot_id", NULL);
	if (text) {
		probe_first_line(line, sizeof(line), text);
		probe_rstrip(line);
		if (probe_is_uuid(line))
			probe_strlcpy(k->boot_id, sizeof(k->boot_id), line);
	}
	text = probe_read(in, "/proc/stat", NULL);
	for (const char *l = text; l && *l;) {
		const char *eol = strchr(l, '\n');
		if (probe_starts_with(l, "btime ")) {
			probe_first_line(line, sizeof(line), l + strlen("btime "));
			probe_rstrip(line);
			uint64_t v;
			if (probe_parse_u64(line, &v) && v > 0)
				k->btime = v;
			break;
		}
		l = eol ? eol + 1 : NULL;
	}
}

void probe_sig_kernel(struct probe_input *in, struct probe_signals *sigs, struct probe_kernel *k)
{
	memset(k, 0, sizeof(*k));
	probe_kernel_uname(in, sigs, k);
	probe_kernel_proc_version(in, sigs, k);
	probe_kernel_uname_agree(sigs, k);
	probe_kernel_cmdline(in, sigs, k);
	probe_kernel_log(in, sigs);
	probe_kernel_nsfs(in, sigs);
	probe_kernel_identity(in, k);
}
