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
#include <stddef.h>
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

/* What the command line asked for. */
struct probe_opts {
	bool init; /* running as /init: options that cannot work there are unknown */
	bool json, emit, markers, tier_only, quiet, pattern, attest, exec_mode, say_start;
	const char *root, *capture;
	int challenge_ms;
};

/* What an option's handler answers: go on, a usage mistake (already said
 * why), or stop now with an exit status (>= 0). */
enum { PROBE_OPT_OK = -1, PROBE_OPT_BAD = -2 };

typedef int (*probe_opt_fn)(struct probe_opts *o, const char *opt, const char *value);

/*
 * One row per option: its name (and a short alias), the word naming its
 * value (NULL: it takes none), the flag it sets or the handler that reads
 * it, and its help (lines after the first are continued under it; NULL: not
 * listed). --help is generated from this table.
 */
struct probe_opt {
	const char *name, *alias;
	const char *arg; /* with fn, the option takes a value; a flag's is shown only */
	size_t flag;     /* without fn: offsetof the bool in struct probe_opts it sets */
	probe_opt_fn fn;
	bool not_init; /* refused (unknown) as the /init of an initramfs */
	const char *help;
};

static int probe_opt_root(struct probe_opts *o, const char *opt, const char *v);
static int probe_opt_number(struct probe_opts *o, const char *opt, const char *v);
static int probe_opt_pattern(struct probe_opts *o, const char *opt, const char *v);
static int probe_opt_help(struct probe_opts *o, const char *opt, const char *v);
static int probe_opt_list_signals(struct probe_opts *o, const char *opt, const char *v);
static int probe_opt_version(struct probe_opts *o, const char *opt, const char *v);

#define FLAG(field) offsetof(struct probe_opts, field), NULL

static const struct probe_opt probe_opts_table[] = {
    {"--json", NULL, NULL, FLAG(json), false, "one JSON document (schema isotier.probe/1)"},
    {"--tier", NULL, NULL, FLAG(tier_only), false,
     "just the tier word (MICROVM, GVISOR, CONTAINER, NONE or\n"
     "UNKNOWN) on one line, for scripts (cf. systemd-detect-virt)"},
    {"--quiet", "-q", NULL, FLAG(quiet), false,
     "print nothing: the exit status alone says what was seen"},
    {"--root", NULL, "DIR", 0, probe_opt_root, false,
     "classify from a capture directory, touching nothing live"},
    {"--capture", NULL, "DIR", 0, probe_opt_root, false,
     "write every raw input of this run into DIR (created 0700;\n"
     "an existing DIR must be an empty directory of ours)"},
    {"--emit-capture", NULL, NULL, FLAG(emit), false,
     "after the report, stream the capture directory as text"},
    {"--markers", NULL, NULL, FLAG(markers), false,
     "wrap the report between BEGIN/END marker lines"},
    {"--nonce", NULL, "HEX", 0, probe_opt_number, false,
     "the verifier's per-run nonce (16-64 lowercase hex digits),\n"
     "echoed in the report's \"run\" object"},
    {"--challenge", NULL, "MS", 0, probe_opt_number, false,
     "sample the kernel's task count (sysinfo procs) for MS\n"
     "milliseconds (1-5000) and report the samples: the verifier's\n"
     "host looks for its own on/off pattern in them; each stretch\n"
     "it went unread lengthens the window by as much (up to\n"
     "4 x MS and 5000); SIGUSR1 (the host has decided) ends\n"
     "the sampling early"},
    {"--say-start", NULL, NULL, FLAG(say_start), false,
     "with --challenge: write the line ISOTIER-START on standard\n"
     "error as the sampling is about to start (a host may wait for\n"
     "it to play its pattern)"},
    {"--pattern", NULL, "BITS", 0, probe_opt_pattern, false,
     "hold 256 extra threads through each 50 ms slot whose bit is 1\n"
     "(BITS: 8-128 characters of 0 and 1) and report each slot's\n"
     "times: the verifier looks for them in another sandbox's\n"
     "--challenge samples (one kernel under both shows them)"},
    {"--attest", NULL, NULL, FLAG(attest), false,
     "with --json and --nonce: ask configfs-tsm for a hardware\n"
     "report over this run (nonce and report) and print it as the\n"
     "report's last member, \"attestation\" (ADR-0020)"},
    /* Its command follows "--" (probe_parse_args). */
    {"--exec", NULL, "-- CMD", FLAG(exec_mode), true,
     "with --json and --nonce: after the report (between markers),\n"
     "read one line on standard input; only \"ISOTIER-GO NONCE\"\n"
     "runs CMD, in this process (execvp), in this sandbox"},
    {"--list-signals", NULL, NULL, 0, probe_opt_list_signals, true,
     "print the signal table (id, family, axis, source, weight,\n"
     "class, origin, naming precedence, what it supports) as the\n"
     "Markdown table probes/SIGNALS.md holds; reads nothing"},
    {"--help", "-h", NULL, 0, probe_opt_help, false, NULL},
    {"--version", NULL, NULL, 0, probe_opt_version, false, NULL}, /* as `isotier --version` */
};

#undef FLAG

#define PROBE_HELP_COLUMN 16 /* where the help text starts, after "  " */

static void probe_usage(FILE *f)
{
	fputs("usage: isotier-probe [--json | --tier | --quiet] [--root DIR] [--capture DIR]\n"
	      "                     [--emit-capture] [--markers] [--nonce HEX] [--challenge MS]\n"
	      "                     [--say-start]\n"
	      "                     [--pattern BITS] [--attest] [--exec -- CMD [ARG...]]\n"
	      "       isotier-probe --list-signals\n",
	      f);
	for (size_t i = 0; i < sizeof probe_opts_table / sizeof *probe_opts_table; i++) {
		const struct probe_opt *r = &probe_opts_table[i];
		if (!r->help)
			continue;
		char head[64];
		snprintf(head, sizeof head, "%s%s%s", r->name, r->arg ? " " : "",
		         r->arg ? r->arg : "");
		fprintf(f, "  %-*s", PROBE_HELP_COLUMN, head);
		for (const char *line = r->help; line;) {
			const char *end = strchr(line, '\n');
			fprintf(f, "%.*s\n", end ? (int)(end - line) : (int)strlen(line), line);
			line = end ? end + 1 : NULL;
			if (line)
				fprintf(f, "  %-*s", PROBE_HELP_COLUMN, "");
		}
	}
	fputs(
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

static int probe_opt_root(struct probe_opts *o, const char *opt, const char *v)
{
	*(strcmp(opt, "--root") == 0 ? &o->root : &o->capture) = v;
	return PROBE_OPT_OK;
}

/* --nonce HEX and --challenge MS. */
static int probe_opt_number(struct probe_opts *o, const char *opt, const char *v)
{
	if (strcmp(opt, "--nonce") == 0) {
		if (probe_challenge_set_nonce(v) == 0)
			return PROBE_OPT_OK;
		probe_arg_error(opt, v, "expected 16 to 64 lowercase hex digits");
		return PROBE_OPT_BAD;
	}
	char *end = NULL;
	long ms = strtol(v, &end, 10);
	if (*end || ms < 1 || ms > 5000) {
		probe_arg_error(opt, v, "expected milliseconds, 1 to 5000");
		return PROBE_OPT_BAD;
	}
	o->challenge_ms = (int)ms;
	return PROBE_OPT_OK;
}

static int probe_opt_pattern(struct probe_opts *o, const char *opt, const char *v)
{
	if (probe_pattern_set(v) < 0) {
		probe_arg_error(opt, v, "expected 8 to 128 characters of 0 and 1");
		return PROBE_OPT_BAD;
	}
	o->pattern = true;
	return PROBE_OPT_OK;
}

static int probe_opt_help(struct probe_opts *o, const char *opt, const char *v)
{
	(void)o, (void)opt, (void)v;
	probe_usage(stdout);
	return 0;
}

/* The table, not a probe: nothing live is read. */
static int probe_opt_list_signals(struct probe_opts *o, const char *opt, const char *v)
{
	(void)o, (void)opt, (void)v;
	if (probe_signal_table_markdown(stdout, probe_signal_table, probe_signal_table_len) < 0 ||
	    fflush(stdout) != 0)
		return PROBE_EX_IOERR;
	return 0;
}

static int probe_opt_version(struct probe_opts *o, const char *opt, const char *v)
{
	(void)o, (void)opt, (void)v;
	return puts("isotier-probe " PROBE_VERSION) < 0;
}

static const struct probe_opt *probe_opt_find(const char *a, bool init)
{
	for (size_t i = 0; i < sizeof probe_opts_table / sizeof *probe_opts_table; i++) {
		const struct probe_opt *r = &probe_opts_table[i];
		if ((strcmp(a, r->name) == 0 || (r->alias && strcmp(a, r->alias) == 0)) &&
		    !(init && r->not_init))
			return r;
	}
	return NULL;
}

/*
 * Reads argv into o from the table. Returns PROBE_OPT_OK, or an exit status
 * to return now (--help, --version, --list-signals, a usage error). As
 * /init a usage error is remembered in *rc and parsing goes on: the probe
 * must still report and power off. *exec_cmd: what follows --exec's "--".
 */
static int probe_parse_args(struct probe_opts *o, int argc, char **argv, int *rc, char ***exec_cmd)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct probe_opt *r = probe_opt_find(a, o->init);
		int got = PROBE_OPT_OK;
		if (r && !r->fn) {
			*(bool *)((char *)o + r->flag) = true;
		} else if (r && r->arg) {
			const char *v = probe_opt_value(argc, argv, &i);
			got = v ? r->fn(o, a, v) : PROBE_OPT_BAD;
		} else if (r) {
			got = r->fn(o, a, NULL);
		} else if (o->exec_mode && strcmp(a, "--") == 0) {
			*exec_cmd = argv + i + 1; /* the rest is the command's */
			break;
		} else if (strcmp(a, "--") == 0 || (o->init && a[0] != '-')) {
			/* The kernel may hand /init stray words: ignore them. */
			continue;
		} else {
			probe_arg_error("unknown argument", a, "see --help");
			got = PROBE_OPT_BAD;
		}
		if (got >= 0)
			return got;
		if (got == PROBE_OPT_BAD) {
			probe_usage(stderr);
			if (!o->init)
				return PROBE_EX_USAGE;
			*rc = PROBE_EX_USAGE;
		}
	}
	return PROBE_OPT_OK;
}

/*
 * /init of an initramfs: PID 1, /proc not mounted yet, and "/" is the
 * initramfs itself (ramfs or tmpfs). runc and runsc start payloads as PID 1
 * too, but with /proc mounted and an image as root.
 */
/*
 * A usage error in options that go together: said on stderr, and the exit
 * status becomes PROBE_EX_USAGE. True when the probe stops here; as /init
 * it carries on without the option (the caller drops it): it must still
 * report and power off (probe_parse_args).
 */
static bool probe_usage_stop(const struct probe_opts *o, int *rc, const char *msg)
{
	fputs(msg, stderr);
	*rc = PROBE_EX_USAGE;
	return !o->init;
}

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

/*
 * The guest's init (reference/guest/init.c) may name a descriptor for the
 * capture as one stream of records (capture_stream.c) instead of the
 * directory. Taken at once and never inherited by a command run after
 * (--exec): -1 when none is named or it is not open.
 */
static int capture_stream_fd(void)
{
	const char *v = getenv("ISOTIER_CAPTURE_FD");
	char *end = NULL;
	long fd = v && *v ? strtol(v, &end, 10) : -1;
	unsetenv("ISOTIER_CAPTURE_FD");
	if (fd < 3 || fd > 1023 || *end || fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0)
		return -1;
	return (int)fd;
}

int main(int argc, char **argv)
{
	struct probe_opts o = {.init = probe_is_initramfs_init()};
	int rc = 0;
	char **exec_cmd = NULL; /* --exec -- CMD...: run after the verifier's word */

	if (o.init) {
		probe_init_setup();
		o.markers = true;
	}
	int done = probe_parse_args(&o, argc, argv, &rc, &exec_cmd);
	if (done >= 0)
		return done;
	if ((o.tier_only || o.quiet) && (o.json || o.markers || o.emit) && !o.init) {
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
	if (o.challenge_ms && !o.root) {
		probe_challenge_arm();
		/* As early as can be: the host starts its pattern on the line,
		 * the sampling starts once the input is set up below. */
		static const char start[] = "ISOTIER-START\n";
		if (o.say_start && write(STDERR_FILENO, start, sizeof start - 1) < 0) {
		}
	}
	if (o.pattern && o.challenge_ms) {
		if (probe_usage_stop(&o, &rc,
		                     "isotier-probe: --challenge and --pattern are exclusive\n"))
			return PROBE_EX_USAGE;
		o.pattern = false;
	}
	/* The binding covers the verifier's nonce and the JSON report. */
	if (o.attest && (!o.json || !probe_challenge_get()->nonce[0])) {
		if (probe_usage_stop(&o, &rc, "isotier-probe: --attest needs --json and --nonce\n"))
			return PROBE_EX_USAGE;
		o.attest = false;
	}
	/* The command runs only after a live report bound to the verifier's nonce. */
	if (o.exec_mode &&
	    (!exec_cmd || !exec_cmd[0] || !o.json || !probe_challenge_get()->nonce[0] || o.root ||
	     o.emit || o.tier_only || o.quiet)) {
		fputs("isotier-probe: --exec needs --json, --nonce and a command after --, and "
		      "no --root, --emit-capture, --tier or --quiet\n",
		      stderr);
		return PROBE_EX_USAGE;
	}
	if (o.exec_mode)
		o.markers = true; /* the verifier reads up to the end marker, then answers */
	if (o.root && o.capture) {
		if (probe_usage_stop(&o, &rc,
		                     "isotier-probe: --root and --capture are exclusive\n"))
			return PROBE_EX_USAGE;
		o.capture = NULL;
	}

	/*
	 * A replay directory that cannot be opened, or a capture directory that
	 * cannot be made ours, is an error, not an UNKNOWN report. As the init of
	 * an initramfs the probe must still report and power off: it drops the
	 * bad option (a failed --root reads nothing live either) and runs on.
	 */
	int stream_fd = capture_stream_fd();
	if (stream_fd >= 0 && (!o.capture || o.root)) {
		close(stream_fd); /* asked no capture: the directory's absence says so */
		stream_fd = -1;
	}
	struct probe_input in;
	if (probe_input_init(&in, o.root, stream_fd >= 0 ? NULL : o.capture) < 0) {
		int e = errno;
		bool rootfail = o.root && in.root_fd < 0;
		char why[256];
		snprintf(why, sizeof(why), "%s (%s)", in.error ? in.error : "unusable",
		         strerror(e));
		probe_arg_error(rootfail ? "--root" : "--capture", rootfail ? o.root : o.capture,
		                why);
		if (!o.init) {
			probe_input_free(&in);
			return rootfail ? PROBE_EX_NOINPUT : PROBE_EX_CANTCREAT;
		}
		rc = rootfail ? PROBE_EX_NOINPUT : PROBE_EX_CANTCREAT;
	}

	if (stream_fd >= 0)
		probe_capture_stream_start(&in, stream_fd);
	static struct probe_result res; /* large: keep it off the stack */
	/* The challenge is sampled beside the detection (challenge.c says why);
	 * a replay reads nothing live and answers no challenge. */
	if (o.challenge_ms && !o.root)
		probe_challenge_start(o.challenge_ms);
	probe_run(&in, &res);
	probe_capture_stream_end(&in); /* every input is read: the capture is whole */
	if (o.challenge_ms && !o.root)
		probe_challenge_finish();
	if (o.pattern && !o.root)
		probe_pattern_run();

	if (o.tier_only || o.quiet) {
		if (!o.quiet)
			printf("%s\n", res.verdict.tier);
		if (rc == 0)
			rc = !strcmp(res.verdict.tier, "NONE")      ? 1
			     : !strcmp(res.verdict.tier, "UNKNOWN") ? 2
			                                            : 0;
	} else {
		if (o.markers)
			printf("%s\n", PROBE_BEGIN);
		if (o.json && o.attest) {
			if (probe_attest_report(stdout, o.root ? o.root : "/",
			                        probe_challenge_get()->nonce, probe_report_json_any,
			                        &res) < 0)
				probe_report_json(stdout, &res);
		} else if (o.json)
			probe_report_json(stdout, &res);
		else
			probe_report_human(stdout, &res);
		if (o.markers)
			printf("%s\n", PROBE_END);
	}
	if (o.emit)
		probe_emit_capture(stdout, &in);
	/* A report cut short (full disk, closed pipe) must not exit 0. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "isotier-probe: writing the report failed\n");
		rc = PROBE_EX_IOERR;
	}
	if (in.capture_failed) {
		fprintf(stderr, "isotier-probe: --capture ");
		probe_put_arg(o.capture);
		fprintf(stderr, ": %u input%s could not be written; the capture is incomplete\n",
		        in.capture_failed, in.capture_failed == 1 ? "" : "s");
		rc = PROBE_EX_CANTCREAT;
	}
	probe_input_free(&in);
	if (o.exec_mode && rc == 0)
		return probe_exec_after_go(exec_cmd, probe_challenge_get()->nonce);
	if (o.exec_mode)
		fputs("isotier-probe: --exec: the report failed: the command does not run\n",
		      stderr);

	/*
	 * Power off only as the init of a whole kernel: in a child PID namespace
	 * reboot(2) "succeeds" by killing us with SIGINT (exit 130), which a
	 * sandbox runner would read as a failure. Refused (EPERM): just exit.
	 */
	if (o.init && probe_in_initial_pidns()) {
		sync();
		reboot(RB_POWER_OFF);
	}
	return rc;
}
