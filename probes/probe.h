/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe.h - isotier-probe internals: the input layer (live or replay), the
 * signal table, the classifier and the report writers.
 *
 * The probe is libc-only and static; it shares no code with libisotier. Every
 * symbol is prefixed probe_ because these objects are also linked into the
 * ASan unit tests next to libisotier.
 *
 * Data flow: sig_*.c read raw inputs through probe_read() (input.c), which
 * serves them from the live system or from a replay directory, and records
 * them into a capture directory. Inputs that are not plain files (CPUID,
 * uname, syscall results...) are produced by live.c as text in the very format
 * of the capture, so the live run and its replay parse the same bytes and
 * must reach the same verdict.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define PROBE_VERSION "0.1.0"
#define PROBE_SCHEMA  "isotier.probe/1"
/* Every input is hostile: no read is longer than this. */
#define PROBE_MAX_FILE      (64 * 1024)
#define PROBE_MAX_INPUTS    128
#define PROBE_MAX_SIGNALS   96
#define PROBE_MAX_CONFLICTS 32
#define PROBE_VALUE_MAX     200
/* kernel.identity.problems: bounded, the verifier reads them. */
#define PROBE_IDENTITY_MAX_PROBLEMS 8
#define PROBE_IDENTITY_PROBLEM_MAX  161 /* 160 bytes and the NUL */

/* ---- input.c: live or replay, plus capture ----------------------------- */

struct probe_cached {
	char *path;  /* live path, absolute ("/proc/version", "/.probe/cpuid") */
	char *data;  /* NUL-terminated; NULL when the input is absent */
	ssize_t len; /* -1 when absent */
};

#define PROBE_CAPTURE_DIRS 32

struct probe_input {
	const char *root;    /* replay directory; NULL means the live system */
	const char *capture; /* capture directory; NULL means no capture */
	int root_fd;         /* every replay read is resolved beneath it; -1: none */
	int capture_fd;      /* every capture write is resolved beneath it; -1: none */
	/* Directories made under the capture directory, each opened once: a
	 * capture's dozen directories and twenty-odd files cost a gofer round
	 * trip each under gVisor, so each directory is walked once, not once a
	 * file. */
	struct probe_capture_dir {
		char path[128]; /* relative to the capture directory */
		int fd;
	} capture_dirs[PROBE_CAPTURE_DIRS];
	size_t ncapture_dirs;
	/* The capture as one stream of records on a descriptor instead of the
	 * directory (capture_stream.c); fd -1: none. */
	struct probe_capture_stream {
		int fd;
		char *buf;
		size_t len, cap;
	} stream;
	const char *error;       /* why probe_input_init failed (static text) */
	unsigned capture_failed; /* inputs that could not be written to the capture */
	struct probe_cached cache[PROBE_MAX_INPUTS];
	size_t ncache;
};

/*
 * Opens the replay directory `root` and creates the capture directory
 * `capture` (either may be NULL). The capture directory is made 0700, or may
 * already exist if it is an empty directory owned by us (not a symlink).
 * Returns 0, or -1 with errno set and in->error saying why; in->root_fd is
 * then -1, so a failed replay still reads nothing live.
 */
int probe_input_init(struct probe_input *in, const char *root, const char *capture);
void probe_input_free(struct probe_input *in);

/* ---- capture_stream.c: the capture as records on a descriptor ------------ */

/* The guest init's bound on the records it holds (reference/guest/init.c). */
#define PROBE_CAPTURE_STREAM_MAX    ((size_t)16 << 20)
#define PROBE_CAPTURE_STREAM_HEADER 1100
/* From now on each input read goes to fd as a record, not to a directory. */
void probe_capture_stream_start(struct probe_input *in, int fd);
/* One input as a record, held until the end; false when it cannot be. */
bool probe_capture_stream_put(struct probe_input *in, const char *rel, const char *data,
                              size_t len);
/* Writes the records and closes the descriptor: the capture is whole. A
 * stream not written whole counts in capture_failed. */
void probe_capture_stream_end(struct probe_input *in);
/*
 * The content of the input at live path `path` (at most PROBE_MAX_FILE bytes,
 * NUL-terminated, owned by `in`), or NULL when absent. *len gets the length.
 * Paths under /.probe/ are the non-file inputs (see CAPTURE.md). Under a
 * replay root every component is opened without following symlinks and only
 * a regular file is read; "." and ".." components are refused.
 */
const char *probe_read(struct probe_input *in, const char *path, size_t *len);
/* Same, but reads at most max bytes (binary table headers). */
const char *probe_read_head(struct probe_input *in, const char *path, size_t max, size_t *len);
/* Names in directory `path` (live or under the replay root); returns count,
 * fills names[] with malloc'ed strings (caller frees), sorted. */
size_t probe_list_dir(struct probe_input *in, const char *path, char **names, size_t max);
/* Keeps only the container= entries of a NUL-separated environment (in
 * place, data[len] must be writable); returns the new length. */
size_t probe_redact_environ(char *data, size_t len);

/* ---- fs.c: bounded reads of real files ---------------------------------- */

/* Bounded whole-file read of a real path (regular files only); returns
 * malloc'ed NUL-terminated data or NULL. */
char *probe_slurp(const char *path, size_t max, size_t *len);
/* Same from an open fd, which it always closes (a negative fd gives NULL). */
char *probe_slurp_fd(int fd, size_t max, size_t *len);
/* Names in the directory open at fd (always closed), sorted, malloc'ed
 * (caller frees); returns the count, at most max. */
size_t probe_list_fd(int fd, char **names, size_t max);
/* Same for a live path, for the producers that read the running system. */
size_t probe_list_live(const char *path, char **names, size_t max);
/* Reads (or with writing, writes) up to len bytes at fd, a signal's
 * interruption taken again; stops at end of file or the first error. The
 * bytes moved: a write is whole when that is len. */
size_t probe_transfer(int fd, void *buf, size_t len, bool writing);

/* ---- live.c: producers of the non-file inputs -------------------------- */

/* Text of /.probe/<name> from the live system, malloc'ed, or NULL when the
 * input does not exist here (e.g. no CPUID instruction). */
char *probe_live_generate(const char *name);
/* live_identity.c: .probe/identity, the checks of the identity inputs. */
char *probe_live_identity(void);
/* live_arm64.c: .probe/midr and .probe/devicetree (NULL off arm64 / without a device tree). */
char *probe_live_midr(void);
char *probe_live_devicetree(void);

/* ---- text helpers (util.c) --------------------------------------------- */

/* Copies the first line of s (without newline) into out, bounded. */
void probe_first_line(char *out, size_t outsz, const char *s);
/* Value of "Key:\tvalue" in a /proc status-like text, or false. */
bool probe_field(char *out, size_t outsz, const char *text, const char *key);
/* Strips trailing whitespace in place. */
void probe_rstrip(char *s);
/* sysname, nodename, release, version, machine of a .probe/uname text (one
 * per line, or `uname -a`'s one line); "" for each one absent. */
void probe_uname_fields(const char *text, char *const f[5], const size_t sz[5]);
/* Bounded copy that always terminates (truncates silently). */
void probe_strlcpy(char *dst, size_t size, const char *src);
bool probe_starts_with(const char *s, const char *prefix);
/* Case-insensitive substring search, bounded by the NUL of hay. */
bool probe_contains_ci(const char *hay, const char *needle);
/* Parses an unsigned integer (decimal or 0x-hex); false on garbage. */
bool probe_parse_u64(const char *s, uint64_t *out);
/* Calls fn on each line of text (without its newline, len bytes, not
 * NUL-terminated) until it returns false: one linear pass. */
void probe_each_line(const char *text, bool (*fn)(const char *line, size_t len, void *arg),
                     void *arg);
/* Does the line (len bytes) contain needle? Bounded by len. */
bool probe_line_has(const char *line, size_t len, const char *needle);

/* ---- the one vendor lookup ------------------------------------------------ */

enum probe_match { PROBE_EXACT, PROBE_PREFIX, PROBE_SUBSTR, PROBE_SUFFIX };

/* A string that names a platform or runtime, and what it names. */
struct probe_vendor {
	const char *match;      /* the string, compared per the table's probe_match */
	const char *vendor;     /* the VMM or runtime; "" when the string does not tell */
	const char *hypervisor; /* vm only: the hypervisor; "" when it does not tell */
};

/* The first entry of t[0..n) whose match fits s, or NULL. */
const struct probe_vendor *probe_vendor_find(const struct probe_vendor *t, size_t n, const char *s,
                                             enum probe_match how);
#define PROBE_VENDOR(t, s, how) probe_vendor_find(t, sizeof(t) / sizeof((t)[0]), s, how)
/* What the matching entry names (its vendor), or NULL when none matches. */
static inline const char *probe_vendor_name(const struct probe_vendor *hit)
{
	return hit ? hit->vendor : NULL;
}
#define PROBE_VENDOR_NAME(t, s, how) probe_vendor_name(PROBE_VENDOR(t, s, how))

/* Is `path` present (file or directory) live or under the replay root?
 * Recorded in the capture as /.probe/paths. */
bool probe_path_exists(struct probe_input *in, const char *path);

/* ---- the signal table ---------------------------------------------------- */

enum probe_family { PROBE_FAM_VIRT, PROBE_FAM_KERNEL, PROBE_FAM_SYSCALL, PROBE_FAM_CONTAINER };
enum probe_weight { PROBE_WEAK, PROBE_STRONG };
/* The layer a signal supports; NONE means "no such boundary" on its axis. */
enum probe_kind { PROBE_KIND_NONE, PROBE_KIND_VM, PROBE_KIND_GVISOR, PROBE_KIND_CONTAINER };
/*
 * The question a signal answers. A signal on the VM axis that supports NONE
 * is evidence against a VM; INFO signals are recorded but never vote.
 */
enum probe_axis { PROBE_AXIS_INFO, PROBE_AXIS_VM, PROBE_AXIS_GVISOR, PROBE_AXIS_CONTAINER };
/*
 * What a strong signal rests on (SIGNALS.md, "Evidence classes"); a weak
 * signal is always a MARKER. Ranked: hardware and behaviour outrank the
 * platform naming itself in firmware, which outranks markers.
 */
enum probe_class {
	PROBE_CLASS_MARKER,
	PROBE_CLASS_FIRMWARE,
	PROBE_CLASS_BEHAVIOUR,
	PROBE_CLASS_HARDWARE
};

/* One row of the signal table (signals.c): SIGNALS.md is checked against it. */
struct probe_signal_desc {
	const char *id;
	enum probe_family family;
	const char *source;      /* where the value comes from */
	const char *weight;      /* "strong", "weak", or how it varies */
	enum probe_axis axis;    /* the question it answers */
	enum probe_class strong; /* its class when strong (MARKER: never strong) */
	const char *origin; /* independence group: two weak signals agree only across origins */
	const char *description; /* what it supports, for SIGNALS.md */
};
extern const struct probe_signal_desc probe_signal_table[];
extern const size_t probe_signal_table_len;
const struct probe_signal_desc *probe_signal_describe(const char *id);
/* 0 when table is sound: ids unique, every text present; else -1 with why. */
int probe_signal_table_check(const struct probe_signal_desc *table, size_t n, char *why,
                             size_t why_len);

/*
 * Naming precedence (signals.c): per list, the ids of the signals that may
 * name a layer, best first; the first of the layer's signals in its list
 * whose value names something wins (classify.c). Inserting a signal is one
 * line in its list; SIGNALS.md shows the lists as --list-signals prints them.
 */
enum probe_naming_kind {
	PROBE_NAMES_VM_VENDOR,
	PROBE_NAMES_VM_HYPERVISOR,
	PROBE_NAMES_CONTAINER, /* a container layer's vendor: its runtime */
	PROBE_NAMES_COUNT
};
struct probe_naming_list {
	const char *title;    /* "vm vendor" */
	enum probe_axis axis; /* every id in it answers this axis */
	const char *what;     /* "vendor", "hypervisor", "runtime" */
	const char *const *ids;
	size_t n;
};
extern const struct probe_naming_list probe_naming[PROBE_NAMES_COUNT];
/* id's place in list, 1 first; 0: not in it (never names). */
unsigned probe_naming_rank(const struct probe_naming_list *list, const char *id);
/* 0 when every id of every list is a signal of table on the list's axis,
 * listed once; else -1 with why. */
int probe_naming_check(const struct probe_naming_list *lists, size_t nlists,
                       const struct probe_signal_desc *table, size_t n, char *why, size_t why_len);
const char *probe_class_name(enum probe_class c);
const char *probe_axis_name(enum probe_axis a);
/* Writes table as the Markdown table `--list-signals` prints and SIGNALS.md
 * holds (header, then one row per signal, in order); 0, or -1 when f failed. */
int probe_signal_table_markdown(FILE *f, const struct probe_signal_desc *table, size_t n);

struct probe_signal {
	const char *id; /* stable, e.g. "virt.cpuid_vendor" */
	enum probe_family family;
	const char *source; /* where it came from, e.g. "cpuid 0x40000000" */
	char value[PROBE_VALUE_MAX];
	enum probe_weight weight;
	enum probe_kind supports;
	enum probe_axis axis;
	/* Naming hints for the layer this signal supports ("" when none). */
	const char *vendor;     /* vm: firecracker, qemu...; container: docker... */
	const char *hypervisor; /* vm only: kvm, tcg, hyperv... */
	/*
	 * Derived from files the innermost kernel synthesises (sysfs, kernel log,
	 * cmdline). Inside gVisor those are the Sentry's, not the hardware's.
	 */
	bool kernel_reported;
	/*
	 * A paravirtual kernel naming itself (Xen PV, User-mode Linux, PowerVM
	 * Lx86): user-space CPUID there is the host's, so a clear hypervisor
	 * bit says nothing.
	 */
	bool paravirt;
	/*
	 * The kernel says /proc is not its own procfs, or the namespace files are
	 * not nsfs (kernel.identity_*): the namespace and /proc readings are
	 * forged and answer nothing.
	 */
	bool forges_proc;
	/* Filled by probe_add from the table. */
	enum probe_class cls;
	const char *origin;
};

struct probe_signals {
	struct probe_signal v[PROBE_MAX_SIGNALS];
	size_t n;
};

/* Appends a copy of *s (value is copied, bounded); silently drops past the
 * table size. Returns the stored entry or NULL. */
struct probe_signal *probe_add(struct probe_signals *sigs, const struct probe_signal *s);
/*
 * probe_add of the common signal: what a collector knows (id, where it read
 * it, weight, what it supports on which axis, the vendor it names or NULL)
 * and text as its value, cut to fit. The family is the table's (probe_add);
 * a signal with more to say (kernel_reported, hypervisor...) is built whole.
 */
struct probe_signal *probe_add_signal(struct probe_signals *sigs, const char *id,
                                      const char *source, enum probe_weight weight,
                                      enum probe_kind supports, enum probe_axis axis,
                                      const char *vendor, const char *text);
/* The same for a value the innermost kernel synthesised (kernel_reported),
 * with the hypervisor it names or NULL. */
struct probe_signal *probe_add_kernel_signal(struct probe_signals *sigs, const char *id,
                                             const char *source, enum probe_weight weight,
                                             enum probe_kind supports, enum probe_axis axis,
                                             const char *vendor, const char *hypervisor,
                                             const char *text);
/* Index of signal id or -1. */
int probe_find(const struct probe_signals *sigs, const char *id);

const char *probe_family_name(enum probe_family f);
const char *probe_weight_name(enum probe_weight w);
const char *probe_kind_name(enum probe_kind k);

/* ---- kernel identity (filled by sig_kernel.c) ------------------------------ */

struct probe_kernel {
	char sysname[128], nodename[128], release[128], version[256], machine[64];
	char proc_version[512];
	char cmdline[1024];
	/*
	 * Which boot of which kernel answers us: /proc/sys/kernel/random/boot_id
	 * (a random UUID per boot, "" when unreadable or malformed) and btime of
	 * /proc/stat (0 when unknown). verify compares them with the host's own
	 * to tell a sandbox's dedicated kernel from the host's shared one.
	 */
	char boot_id[40];
	uint64_t btime;
	/*
	 * Whether the files boot_id and btime came from were checked on this
	 * live kernel and found to be its own procfs (sig_identity.c): false when
	 * any check failed or could not run (always in replay).
	 */
	bool identity_trusted;
	char identity_problems[PROBE_IDENTITY_MAX_PROBLEMS][PROBE_IDENTITY_PROBLEM_MAX];
	size_t identity_nproblems;
};

/* ---- signal collectors: one per family ------------------------------------- */

void probe_sig_virt(struct probe_input *in, struct probe_signals *sigs);
/* Devices and command line (sig_virt_bus.c), called by probe_sig_virt. */
void probe_sig_virt_bus(struct probe_input *in, struct probe_signals *sigs);
/* arm64: MIDR, device tree, KVM services (sig_virt_arm64.c). */
void probe_sig_virt_arm64(struct probe_input *in, struct probe_signals *sigs);
void probe_sig_kernel(struct probe_input *in, struct probe_signals *sigs, struct probe_kernel *k);
void probe_sig_syscall(struct probe_input *in, struct probe_signals *sigs);
void probe_sig_container(struct probe_input *in, struct probe_signals *sigs);
/* Marker files and kernel-named boundaries (sig_container_named.c). */
void probe_sig_container_named(struct probe_input *in, struct probe_signals *sigs);
/* One CPUID leaf (subleaf 0) of a .probe/cpuid text; false when absent. */
bool probe_cpuid_leaf(const char *text, uint32_t leaf, uint32_t r[4]);
/* The 12-byte signature in EBX:ECX:EDX, printable. */
void probe_cpuid_signature(const uint32_t r[4], char out[13]);
/* The identity inputs checked (sig_identity.c): kernel.identity_* signals
 * and k->identity_*. Runs after probe_sig_kernel (it judges k's values). */
void probe_sig_identity(struct probe_input *in, struct probe_signals *sigs, struct probe_kernel *k);
/* Confidential-VM markers (sig_cvm.c), called by probe_sig_virt. */
void probe_sig_cvm(struct probe_input *in, struct probe_signals *sigs);
/* Platform naming from /proc/cpuinfo, device tree and Xen (sig_virt_pv.c). */
void probe_sig_virt_pv(struct probe_input *in, struct probe_signals *sigs);

/* ---- classify.c -------------------------------------------------------- */

#define PROBE_MAX_LAYERS 3

#define PROBE_MAX_CVM_EVIDENCE 8

struct probe_layer {
	enum probe_kind kind;
	char vendor[40];
	char hypervisor[24];
	const char *confidence; /* high: hardware or behaviour; low: files (firmware, markers) */
	const char *cls;        /* the evidence class it rests on */
	const char *cvm;        /* vm: sev, sev-es, sev-snp, tdx; NULL when none seen */
	size_t cvm_sig[PROBE_MAX_CVM_EVIDENCE];
	size_t ncvm;
	const char *platform; /* gvisor: ptrace, or NULL when behaviour cannot tell */
	size_t sig[PROBE_MAX_SIGNALS];
	size_t nsig;
};

/* A question the probe could not answer, and why. */
struct probe_unanswered {
	const char *question; /* vm, gvisor, container */
	char why[200];
};

struct probe_conflict {
	size_t signal;
	size_t over[PROBE_MAX_SIGNALS];
	size_t nover;
	const char *note;
};

struct probe_verdict {
	const char *tier;       /* UNKNOWN, NONE, CONTAINER, GVISOR, MICROVM */
	const char *confidence; /* high, low, none */
	struct probe_layer layers[PROBE_MAX_LAYERS];
	size_t nlayers;
	struct probe_conflict conflicts[PROBE_MAX_CONFLICTS];
	size_t nconflicts;
	struct probe_unanswered unanswered[4];
	size_t nunanswered;
};

void probe_classify(const struct probe_signals *sigs, struct probe_verdict *out);

/* ---- whole run (run.c) and report.c -------------------------------------- */

struct probe_result {
	struct probe_signals sigs;
	struct probe_kernel kernel;
	struct probe_verdict verdict;
	uint64_t duration_us;
};

/* Collects every signal through `in` and classifies. */
void probe_run(struct probe_input *in, struct probe_result *res);

/* Writes s as a JSON string literal (quotes included). */
void probe_json_string(FILE *f, const char *s);
void probe_report_json(FILE *f, const struct probe_result *res);
void probe_report_human(FILE *f, const struct probe_result *res);

/* ---- challenge.c: the verifier's nonce and task-count challenge ------------- */

/* The verifier's per-run nonce (16 to 64 lowercase hex digits): echoed in the
 * report so that a recorded output proves nothing about another run. 0, or
 * -1 for a malformed value. */
int probe_challenge_set_nonce(const char *hex);
/* Samples the kernel's system-wide task count (sysinfo(2) procs) for
 * window_ms (1..5000) before the report is written: on a kernel it shares
 * with the verifier's host, the host's on/off pattern shows in it. Each
 * stretch it went unread lengthens the window by as much, up to 4 times
 * window_ms (and 5000 ms) in all. */
void probe_challenge_sample(int window_ms);
/* Catches (and holds back until the sampling) the host's SIGUSR1, which ends
 * the sampling early; called first thing in main. */
void probe_challenge_arm(void);
/* probe_challenge_sample(window_ms) on a thread of its own, started before
 * the detection; probe_challenge_finish() waits for it (or, when no thread
 * could be started, samples then). */
void probe_challenge_start(int window_ms);
void probe_challenge_finish(void);
#define PROBE_CHALLENGE_MAX_CHANGES 4096
#define PROBE_CHALLENGE_MAX_GAPS    512
#define PROBE_CHALLENGE_GAP_US      3000
struct probe_challenge {
	char nonce[65];
	bool asked; /* --challenge given */
	int error;  /* errno of a failed sysinfo(2), 0 when none */
	uint64_t start_us, end_us;
	size_t samples, n;
	bool truncated;
	bool stopped;        /* the host's SIGUSR1 ended it before the window did */
	uint64_t max_gap_us; /* the longest time between two readings */
	/* Stretches longer than PROBE_CHALLENGE_GAP_US without a reading
	 * [previous, next): the host does not read a slot there. */
	size_t n_gaps;
	bool gaps_truncated;
	uint64_t gap_from[PROBE_CHALLENGE_MAX_GAPS], gap_to[PROBE_CHALLENGE_MAX_GAPS];
	uint64_t t_us[PROBE_CHALLENGE_MAX_CHANGES]; /* only changes of the count are kept */
	unsigned long procs[PROBE_CHALLENGE_MAX_CHANGES];
};
/* What was asked and sampled, for the report writer (report.c). */
const struct probe_challenge *probe_challenge_get(void);

/* The other half of a cross-sandbox challenge (--pattern): this sandbox
 * holds PROBE_PATTERN_TASKS extra threads during each "1" slot of the
 * verifier's random bits and none during a "0", while another sandbox
 * samples its own task count (probe_challenge_sample). The slot length and
 * thread count are the verifier's host generator's (reference/evidence/host_watch.c). */
#define PROBE_PATTERN_SLOT_MS  50
#define PROBE_PATTERN_TASKS    256
#define PROBE_PATTERN_MIN_BITS 8
#define PROBE_PATTERN_MAX_BITS 128
/* What the verifier accepts of the slots (reference/evidence/probe_run.h): none longer
 * than 1 s, none ending more than 10 s after the first began. A slot past
 * either is not played or reported: one would have the whole report refused. */
#define PROBE_PATTERN_MAX_SLOT_US (1000ull * 1000u)
#define PROBE_PATTERN_WINDOW_US   (10ull * 1000u * 1000u)
/* 0, or -1 for anything but 8 to 128 characters of '0' and '1'. */
int probe_pattern_set(const char *bits);
/* Plays the bits (after the detection, like the sampling). */
void probe_pattern_run(void);
struct probe_pattern {
	char bits[PROBE_PATTERN_MAX_BITS + 1]; /* "" when --pattern was not given */
	int error;      /* errno of the first thread or pipe that could not be made, 0 when none */
	size_t n;       /* slots played */
	bool cut_short; /* stopped before the last bit: a slot overran, or the window ran out */
	uint64_t start_us[PROBE_PATTERN_MAX_BITS], end_us[PROBE_PATTERN_MAX_BITS];
	int tasks[PROBE_PATTERN_MAX_BITS]; /* threads alive through the slot */
};
const struct probe_pattern *probe_pattern_get(void);

/* ---- emit.c: the capture directory as text on stdout ----------------------- */

/* Streams every input the run read (ISOTIER-CAPTURE-FILE format, CAPTURE.md). */
int probe_emit_capture(FILE *f, const struct probe_input *in);

/* exec.c: after the report, wait on standard input for "ISOTIER-GO <nonce>"
 * and execvp cmd; returns (an exit status) only when it did not run it. */
int probe_exec_after_go(char *const *cmd, const char *nonce);

#endif /* PROBE_H */
