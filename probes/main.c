/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c - isotier-probe [--json | --tier | --quiet] [--root DIR] [--capture DIR]
 *                        [--emit-capture] [--markers] [--nonce HEX] [--challenge MS]
 *                        [--pattern BITS] [--attest] [--exec -- CMD [ARG...]]
 *        isotier-probe --list-signals
 *
 * Also runs as /init of an initramfs: when it is PID 1 and /proc is not
 * mounted (runc and runsc start payloads as PID 1 too, with /proc mounted),
 * it mounts proc, sysfs and devtmpfs, reports between markers and powers
 * off; when reboot(2) is refused it just exits.
 */
#include "attest.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define PROBE_BEGIN "----- BEGIN ISOTIER PROBE -----"
#define PROBE_END   "----- END ISOTIER PROBE -----"

/* sysexits.h values (musl and glibc both have the header, but the probe
 * keeps its dependencies to what it names). */
#define PROBE_EX_USAGE     64
#define PROBE_EX_NOINPUT   66
#define PROBE_EX_CANTCREAT 73
#define PROBE_EX_IOERR     74

static void probe_usage(FILE *f)
{
	fputs(
	    "usage: isotier-probe [--json | --tier | --quiet] [--root DIR] [--capture DIR]\n"
	    "                     [--emit-capture] [--markers] [--nonce HEX] [--challenge MS]\n"
	    "                     [--pattern BITS] [--attest] [--exec -- CMD [ARG...]]\n"
	    "       isotier-probe --list-signals\n"
	    "  --json          one JSON document (schema isotier.probe/1)\n"
	    "  --tier          just the tier word (MICROVM, GVISOR, CONTAINER, NONE or\n"
	    "                  UNKNOWN) on one line, for scripts (cf. systemd-detect-virt)\n"
	    "  --quiet         print nothing: the exit status alone says what was seen\n"
	    "  --root DIR      classify from a capture directory, touching nothing live\n"
	    "  --capture DIR   write every raw input of this run into DIR (created 0700;\n"
	    "                  an existing DIR must be an empty directory of ours)\n"
	    "  --emit-capture  after the report, stream the capture directory as text\n"
	    "  --markers       wrap the report between BEGIN/END marker lines\n"
	    "  --nonce HEX     the verifier's per-run nonce (16-64 lowercase hex digits),\n"
	    "                  echoed in the report's \"run\" object\n"
	    "  --challenge MS  sample the kernel's task count (sysinfo procs) for MS\n"
	    "                  milliseconds (1-5000) and report the samples: the verifier's\n"
	    "                  host looks for its own on/off pattern in them; each stretch\n"
	    "                  it went unread lengthens the window by as much and 8 ms (up\n"
	    "                  to 4 x MS and 5000); SIGUSR1 (the host has decided) ends\n"
	    "                  the sampling early\n"
	    "  --pattern BITS  hold 256 extra threads through each 50 ms slot whose bit is 1\n"
	    "                  (BITS: 8-128 characters of 0 and 1) and report each slot's\n"
	    "                  times: the verifier looks for them in another sandbox's\n"
	    "                  --challenge samples (one kernel under both shows them)\n"
	    "  --attest        with --json and --nonce: ask configfs-tsm for a hardware\n"
	    "                  report over this run (nonce and report) and print it as the\n"
	    "                  report's last member, \"attestation\" (ADR-0020)\n"
	    "  --exec -- CMD   with --json and --nonce: after the report (between markers),\n"
	    "                  read one line on standard input; only \"ISOTIER-GO NONCE\"\n"
	    "                  runs CMD, in this process (execvp), in this sandbox\n"
	    "  --list-signals  print the signal table (id, family, axis, source, weight,\n"
	    "                  class, origin, naming precedence, what it supports) as the\n"
	    "                  Markdown table probes/SIGNALS.md holds; reads nothing\n"
	    "exit status:\n"
	    "  0   a report was printed (whatever the tier, UNKNOWN included); with --tier\n"
	    "      or --quiet: a boundary was seen (MICROVM, GVISOR or CONTAINER)\n"
	    "  1   --tier or --quiet: NONE, no isolation boundary\n"
	    "  2   --tier or --quiet: UNKNOWN, nothing could be told\n"
	    "  64  usage error: unknown option, missing value, value that looks like an option,\n"
	    "      --root with --capture, --challenge with --pattern\n"
	    "  66  --root DIR does not exist or is not a directory\n"
	    "  73  --capture DIR cannot be created, exists as a non-directory or symlink, is not\n"
	    "      empty or not ours, or an input could not be written to it (the report is\n"
	    "      still printed)\n"
	    "  74  the report could not be written to standard output\n"
	    "  77  --exec: the verifier did not let the command run\n"
	    "  126, 127  --exec: the command could not be run, or was not found\n",
	    f);
}

/* Prints s to stderr with control and non-ASCII bytes as '?', bounded. */
static void probe_put_arg(const char *s)
{
	for (const char *p = s; *p && p - s < 200; p++)
		fputc((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f ? '?' : *p, stderr);
}

static void probe_arg_error(const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "isotier-probe: %s", what);
	if (arg) {
		fputc(' ', stderr);
		probe_put_arg(arg);
	}
	fprintf(stderr, ": %s\n", why);
}

/* The value of an option that takes one: present, non-empty and not itself
 * an option (a path starting with '-' must be written ./-name). */
static const char *probe_opt_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		probe_arg_error(argv[*i], NULL, "missing value");
		return NULL;
	}
	const char *v = argv[*i + 1];
	if (!v[0] || v[0] == '-') {
		probe_arg_error(argv[*i], v, "expected a directory, not an option or empty word");
		return NULL;
	}
	(*i)++;
	return v;
}

/*
 * /init of an initramfs: PID 1, /proc not mounted yet, and "/" is the
 * initramfs itself (ramfs or tmpfs). runc and runsc start payloads as PID 1
 * too, but with /proc mounted and an image as root.
 */
static bool probe_is_initramfs_init(void)
{
	struct stat st;
	struct statfs fs;
	if (getpid() != 1 || stat("/proc/self/stat", &st) == 0 || errno != ENOENT)
		return false;
	return statfs("/", &fs) == 0 && (fs.f_type == 0x858458f6 /* RAMFS_MAGIC */ ||
	                                 fs.f_type == 0x01021994 /* TMPFS_MAGIC */);
}

static bool probe_in_initial_pidns(void)
{
	char target[64];
	ssize_t n = readlink("/proc/self/ns/pid", target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "pid:[4026531836]") == 0;
}

static void probe_init_setup(void)
{
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL);
	/* Without a console on fds 0-2 nothing we print would be seen. */
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
}

/* probe_report_json for probe_attest_report, which renders it to bind it. */
static void probe_report_json_any(FILE *f, const void *res)
{
	probe_report_json(f, res);
}

int main(int argc, char **argv)
{
	bool json = false, emit = false, markers = false, tier_only = false, quiet = false;
	const char *root = NULL, *capture = NULL;
	int rc = 0, challenge_ms = 0;
	bool pattern = false, attest = false;
	char **exec_cmd = NULL; /* --exec -- CMD...: run after the verifier's word */
	bool exec_mode = false;

	bool init = probe_is_initramfs_init();
	if (init) {
		probe_init_setup();
		markers = true;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0)
			json = true;
		else if (strcmp(a, "--tier") == 0)
			tier_only = true;
		else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
			quiet = true;
		else if (strcmp(a, "--emit-capture") == 0)
			emit = true;
		else if (strcmp(a, "--markers") == 0)
			markers = true;
		else if (strcmp(a, "--attest") == 0)
			attest = true;
		else if (strcmp(a, "--root") == 0 || strcmp(a, "--capture") == 0) {
			const char *v = probe_opt_value(argc, argv, &i);
			if (!v) {
				probe_usage(stderr);
				if (!init)
					return PROBE_EX_USAGE;
				rc = PROBE_EX_USAGE;
			} else if (a[2] == 'r') {
				root = v;
			} else {
				capture = v;
			}
		} else if (strcmp(a, "--nonce") == 0 || strcmp(a, "--challenge") == 0) {
			const char *v = probe_opt_value(argc, argv, &i);
			char *end = NULL;
			long ms = v && a[2] == 'c' ? strtol(v, &end, 10) : 0;
			bool bad = !v || (a[2] == 'n' ? probe_challenge_set_nonce(v) < 0
			                              : (*end || ms < 1 || ms > 5000));
			if (bad) {
				if (v)
					probe_arg_error(
					    a, v,
					    a[2] == 'n' ? "expected 16 to 64 lowercase hex digits"
					                : "expected milliseconds, 1 to 5000");
				probe_usage(stderr);
				if (!init)
					return PROBE_EX_USAGE;
				rc = PROBE_EX_USAGE;
			} else if (a[2] == 'c') {
				challenge_ms = (int)ms;
			}
		} else if (strcmp(a, "--pattern") == 0) {
			const char *v = probe_opt_value(argc, argv, &i);
			if (!v || probe_pattern_set(v) < 0) {
				if (v)
					probe_arg_error(a, v,
					                "expected 8 to 128 characters of 0 and 1");
				probe_usage(stderr);
				if (!init)
					return PROBE_EX_USAGE;
				rc = PROBE_EX_USAGE;
			} else {
				pattern = true;
			}
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			probe_usage(stdout);
			return 0;
		} else if (strcmp(a, "--list-signals") == 0 && !init) {
			/* The table, not a probe: nothing live is read. */
			if (probe_signal_table_markdown(stdout, probe_signal_table,
			                                probe_signal_table_len) < 0 ||
			    fflush(stdout) != 0)
				return PROBE_EX_IOERR;
			return 0;
		} else if (strcmp(a, "--version") == 0) { /* as `isotier --version` */
			return puts("isotier-probe " PROBE_VERSION) < 0;
		} else if (strcmp(a, "--exec") == 0 && !init) {
			exec_mode = true;
		} else if (exec_mode && strcmp(a, "--") == 0) {
			exec_cmd = argv + i + 1; /* the rest is the command's */
			break;
		} else if (strcmp(a, "--") == 0 || (init && a[0] != '-')) {
			/* The kernel may hand /init stray words: ignore them. */
			continue;
		} else {
			probe_arg_error("unknown argument", a, "see --help");
			probe_usage(stderr);
			if (!init)
				return PROBE_EX_USAGE;
			rc = PROBE_EX_USAGE;
		}
	}
	if ((tier_only || quiet) && (json || markers || emit) && !init) {
		fputs(
		    "isotier-probe: --tier and --quiet print no report: not with --json, --markers "
		    "or --emit-capture\n",
		    stderr);
		return PROBE_EX_USAGE;
	}
	/* One process cannot both make the pattern and sample it: its own
	 * threads would show in its own count. */
	/* Before the detection: the host may end the sampling (SIGUSR1) as soon
	 * as it sees this process, even while the detection still runs. */
	if (challenge_ms && !root)
		probe_challenge_arm();
	if (pattern && challenge_ms) {
		fputs("isotier-probe: --challenge and --pattern are exclusive\n", stderr);
		if (!init)
			return PROBE_EX_USAGE;
		rc = PROBE_EX_USAGE;
		pattern = false;
	}
	/* The binding covers the verifier's nonce and the JSON report. */
	if (attest && (!json || !probe_challenge_get()->nonce[0])) {
		fputs("isotier-probe: --attest needs --json and --nonce\n", stderr);
		if (!init)
			return PROBE_EX_USAGE;
		rc = PROBE_EX_USAGE;
		attest = false;
	}
	/* The command runs only after a live report bound to the verifier's nonce. */
	if (exec_mode && (!exec_cmd || !exec_cmd[0] || !json || !probe_challenge_get()->nonce[0] ||
	                  root || emit || tier_only || quiet)) {
		fputs("isotier-probe: --exec needs --json, --nonce and a command after --, and "
		      "no --root, --emit-capture, --tier or --quiet\n",
		      stderr);
		return PROBE_EX_USAGE;
	}
	if (exec_mode)
		markers = true; /* the verifier reads up to the end marker, then answers */
	if (root && capture) {
		fputs("isotier-probe: --root and --capture are exclusive\n", stderr);
		if (!init)
			return PROBE_EX_USAGE;
		rc = PROBE_EX_USAGE;
		capture = NULL;
	}

	/*
	 * A replay directory that cannot be opened, or a capture directory that
	 * cannot be made ours, is an error, not an UNKNOWN report. As the init of
	 * an initramfs the probe must still report and power off: it drops the
	 * bad option (a failed --root reads nothing live either) and runs on.
	 */
	struct probe_input in;
	if (probe_input_init(&in, root, capture) < 0) {
		int e = errno;
		bool rootfail = root && in.root_fd < 0;
		char why[256];
		snprintf(why, sizeof(why), "%s (%s)", in.error ? in.error : "unusable",
		         strerror(e));
		probe_arg_error(rootfail ? "--root" : "--capture", rootfail ? root : capture, why);
		if (!init) {
			probe_input_free(&in);
			return rootfail ? PROBE_EX_NOINPUT : PROBE_EX_CANTCREAT;
		}
		rc = rootfail ? PROBE_EX_NOINPUT : PROBE_EX_CANTCREAT;
	}

	static struct probe_result res; /* large: keep it off the stack */
	/* The challenge is sampled beside the detection (challenge.c says why);
	 * a replay reads nothing live and answers no challenge. */
	if (challenge_ms && !root)
		probe_challenge_start(challenge_ms);
	probe_run(&in, &res);
	if (challenge_ms && !root)
		probe_challenge_finish();
	if (pattern && !root)
		probe_pattern_run();

	if (tier_only || quiet) {
		if (!quiet)
			printf("%s\n", res.verdict.tier);
		if (rc == 0)
			rc = !strcmp(res.verdict.tier, "NONE")      ? 1
			     : !strcmp(res.verdict.tier, "UNKNOWN") ? 2
			                                            : 0;
	} else {
		if (markers)
			printf("%s\n", PROBE_BEGIN);
		if (json && attest) {
			if (probe_attest_report(stdout, root ? root : "/",
			                        probe_challenge_get()->nonce, probe_report_json_any,
			                        &res) < 0)
				probe_report_json(stdout, &res);
		} else if (json)
			probe_report_json(stdout, &res);
		else
			probe_report_human(stdout, &res);
		if (markers)
			printf("%s\n", PROBE_END);
	}
	if (emit)
		probe_emit_capture(stdout, &in);
	/* A report cut short (full disk, closed pipe) must not exit 0. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "isotier-probe: writing the report failed\n");
		rc = PROBE_EX_IOERR;
	}
	if (in.capture_failed) {
		fprintf(stderr, "isotier-probe: --capture ");
		probe_put_arg(capture);
		fprintf(stderr, ": %u input%s could not be written; the capture is incomplete\n",
		        in.capture_failed, in.capture_failed == 1 ? "" : "s");
		rc = PROBE_EX_CANTCREAT;
	}
	probe_input_free(&in);
	if (exec_mode && rc == 0)
		return probe_exec_after_go(exec_cmd, probe_challenge_get()->nonce);
	if (exec_mode)
		fputs("isotier-probe: --exec: the report failed: the command does not run\n",
		      stderr);

	/*
	 * Power off only as the init of a whole kernel: in a child PID namespace
	 * reboot(2) "succeeds" by killing us with SIGINT (exit 130), which a
	 * sandbox runner would read as a failure. Refused (EPERM): just exit.
	 */
	if (init && probe_in_initial_pidns()) {
		sync();
		reboot(RB_POWER_OFF);
	}
	return rc;
}
