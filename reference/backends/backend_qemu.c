/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_qemu.c - MICROVM tier: `qemu-system-x86_64 -M microvm` booting the
 * Debian guest kernel (scripts/guest-kernel.sh; $ISOTIER_GUEST_DIR overrides
 * .deps/guest) with an initramfs written per exec (cpio.c): the static guest
 * init (reference/guest/init.c), the command, the probe, and in host-view mode
 * the 9p modules. Without minimal_root the guest mounts the host root (or
 * spec->rootfs) read-only over virtio-9p. Output comes back framed on the
 * guest's console (QEMU's isa-debugcon on x86_64, the serial console on
 * aarch64; see guest/init.c) and is parsed as hostile input: the
 * command's stdout/stderr are relayed, the capture dir is decoded with bounds
 * into spec->capture_dir. KVM only when a short trial boot proved it works
 * (kvm_trial.c: cached per host boot, kernel and qemu in the state directory);
 * otherwise TCG.
 *
 * qemu-aarch64 (MICROVM) is the same machinery for another architecture:
 * `qemu-system-aarch64 -M virt -cpu max` under TCG with Debian's arm64 kernel
 * (scripts/guest-kernel-arm64.sh; $ISOTIER_GUEST_ARM64_DIR overrides
 * .deps/guest-arm64), the aarch64 guest init and the aarch64 probe (the probe
 * named in the spec, or the "-aarch64" file beside it). The guest sees only
 * its initramfs: the host's root is x86_64 and is never shown (a spec rootfs
 * is refused), so a host command is not found in it (exit 127).
 */
#include "backend_util.h"
#include "../evidence/host_watch.h"
#include "../core/paths.h"
#include "backend_qemu_console.h"
#include "cpio.h"
#include "kvm_trial.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/* One emulated machine: what differs between qemu-microvm and qemu-aarch64. */
typedef struct qemu_machine {
	const char *name;          /* backend name, error prefix */
	const char *binary;        /* qemu-system-... */
	const char *guest_env;     /* overrides guest_default */
	const char *guest_default; /* under PREFIX/lib/isotier when installed */
	const char *guest_src;     /* under the build tree's checkout */
	const char
	    *guest_script;     /* what fetches the kernel (PREFIX/libexec/isotier when installed) */
	const char *init_env;  /* overrides init_name */
	const char *init_name; /* under the build dir */
	/* Installed: where the guest init is under PREFIX. A foreign architecture's
	 * binaries live in lib/isotier, not libexec/ (Debian's isotier-guest-aarch64). */
	const char *init_installed;
	bool aarch64;
	/* The I/O port of QEMU's isa-debugcon the guest init frames its output on
	 * (0: the serial console). The 16550 under TCG costs ~4 us a byte (an
	 * interrupt per FIFO of 16, the guest's tty layer, a host write per byte);
	 * the init's `rep outsb` to the debug port skips the guest kernel. */
	unsigned debug_port;
} qemu_machine;

static const qemu_machine machine_microvm = {
    .name = "qemu-microvm",
    .binary = "qemu-system-x86_64",
    .guest_env = "ISOTIER_GUEST_DIR",
    .guest_default = "lib/isotier/guest",
    .guest_src = ".deps/guest",
    .guest_script = "guest-kernel.sh",
    .init_env = "ISOTIER_GUEST_INIT",
    .init_name = "isotier-guest-init",
    .init_installed = "libexec/isotier/isotier-guest-init",
    .debug_port = 0xe9,
};

static const qemu_machine machine_aarch64 = {
    .name = "qemu-aarch64",
    .binary = "qemu-system-aarch64",
    .guest_env = "ISOTIER_GUEST_ARM64_DIR",
    .guest_default = "lib/isotier/guest-arm64",
    .guest_src = ".deps/guest-arm64",
    .guest_script = "guest-kernel-arm64.sh",
    .init_env = "ISOTIER_GUEST_INIT_AARCH64",
    .init_name = "isotier-guest-init-aarch64",
    .init_installed = "lib/isotier/isotier-guest-init-aarch64",
    .aarch64 = true,
};

typedef struct qemu_paths {
	char guest_dir[1024];
	char kernel[2048];
	char init[2048];
	char modules[2048];
} qemu_paths;

typedef struct qemu_state {
	const qemu_machine *m;
	isotier_spec_copy spec;
	qemu_paths paths;
	char *dir;
	bool kvm;
} qemu_state;

static void find_paths(const qemu_machine *m, qemu_paths *p)
{
	const char *g = getenv(m->guest_env);
	if (g && *g)
		snprintf(p->guest_dir, sizeof p->guest_dir, "%s", g);
	else
		isotier__default_data_path(p->guest_dir, sizeof p->guest_dir, m->guest_default,
		                           m->guest_src);
	snprintf(p->kernel, sizeof p->kernel, "%s/vmlinux", p->guest_dir);
	if (m->aarch64 || access(p->kernel, R_OK) != 0)
		snprintf(p->kernel, sizeof p->kernel, "%s/vmlinuz", p->guest_dir);
	snprintf(p->modules, sizeof p->modules, "%s/modules", p->guest_dir);
	const char *i = getenv(m->init_env);
	if (i && *i)
		snprintf(p->init, sizeof p->init, "%s", i);
	else
		isotier__default_build_path(p->init, sizeof p->init, m->init_installed,
		                            m->init_name);
}

int isotier__qemu_default_paths(bool aarch64, char *guest_dir, size_t guest_len, char *init,
                                size_t init_len)
{
	qemu_paths p = {0};
	const qemu_machine *m = aarch64 ? &machine_aarch64 : &machine_microvm;
	find_paths(m, &p);
	snprintf(guest_dir, guest_len, "%s", p.guest_dir);
	snprintf(init, init_len, "%s", p.init);
	return access(p.kernel, R_OK) == 0 && access(p.init, R_OK) == 0 ? 0 : ISOTIER_ENOTFOUND;
}

static int machine_available(const qemu_machine *m, char *why, size_t why_len)
{
	char path[4096];
	qemu_paths p = {0};
	find_paths(m, &p);
	if (isotier__find_program(path, sizeof path, m->binary) != 0) {
		snprintf(why, why_len, "%s not found in PATH", m->binary);
		return 0;
	}
	if (access(p.kernel, R_OK) != 0) {
		/* Name the setting and the command that fetches it: an installed
		 * isotier ships no kernel (Debian's is ~100 MB). */
		char script[1024];
		char rel[256];
		snprintf(rel, sizeof rel, "libexec/isotier/%s", m->guest_script);
		if (isotier__install_path(script, sizeof script, rel) != 0)
			snprintf(script, sizeof script, "scripts/%s", m->guest_script);
		snprintf(why, why_len,
		         "no guest kernel in %s (set %s to a directory holding one, or "
		         "fetch Debian's: %s=%s %s)",
		         p.guest_dir, m->guest_env, m->guest_env, p.guest_dir, script);
		return 0;
	}
	if (access(p.init, R_OK) != 0) {
		snprintf(why, why_len, "no guest init at %s (make builds it; or set %s)", p.init,
		         m->init_env);
		return 0;
	}
	snprintf(why, why_len, "%s, kernel %s%s", path, p.kernel,
	         m->aarch64 ? ", TCG, initramfs only" : "");
	return 1;
}

static int qemu_available(char *why, size_t why_len)
{
	return machine_available(&machine_microvm, why, why_len);
}

/* ---- initramfs --------------------------------------------------------- */

#define MAX_STDIN ((size_t)16 << 20)

/* The command's stdin goes into the initramfs: only from a regular file (a pipe or
 * terminal could keep us waiting forever before the VM even boots). */
static int read_stdin(char **out, size_t *len, int fd, isotier_error *err)
{
	*out = NULL;
	*len = 0;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	off_t pos = lseek(fd, 0, SEEK_CUR);
	if (pos > 0 && pos <= st.st_size) {
		/* from the current offset, like a child reading the fd would */
		size_t n = (size_t)(st.st_size - pos);
		if (n > MAX_STDIN)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "stdin larger than %zu bytes", MAX_STDIN);
		char *buf = malloc(n + 1);
		if (!buf)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		ssize_t r = pread(fd, buf, n, pos);
		if (r < 0) {
			free(buf);
			return isotier__error_set(err, ISOTIER_EIO, errno, "read stdin");
		}
		*out = buf;
		*len = (size_t)r;
		return 0;
	}
	int rc = isotier__read_file(out, len, path, MAX_STDIN, err);
	return rc ? isotier__error_prefix(err, "stdin") : 0;
}

static int write_initramfs(const qemu_state *s, const char *path, const char *mode,
                           const char *const *argv, int stdin_fd, isotier_error *err)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return isotier__error_set(err, ISOTIER_EIO, errno, "open %s", path);
	isotier_cpio c = {.f = f};
	static const char *const dirs[] = {"dev", "proc",     "sys",
	                                   "tmp", ".isotier", ".isotier/capture"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		isotier__cpio_add(&c, dirs[i], S_IFDIR | (i == 3 ? 01777 : 0755), 0, 0, NULL, 0);
	isotier__cpio_add(&c, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	isotier__cpio_add(&c, ".isotier/mode", S_IFREG | 0644, 0, 0, mode, strlen(mode));
	if (s->m->debug_port) {
		char port[16];
		int pl = snprintf(port, sizeof port, "0x%x", s->m->debug_port);
		isotier__cpio_add(&c, ".isotier/port", S_IFREG | 0644, 0, 0, port, (size_t)pl);
	}
	size_t alen = 0;
	for (size_t i = 0; argv && argv[i]; i++)
		alen += strlen(argv[i]) + 1;
	int rc = 0;
	if (alen > 131000)
		rc = isotier__error_set(err, ISOTIER_EINVAL, 0,
		                        "command line too long for the guest");
	cleanup_free char *args = alen ? malloc(alen) : NULL;
	if (!rc && alen && !args)
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	if (!rc && alen) {
		size_t o = 0;
		for (size_t i = 0; argv[i]; i++) {
			size_t l = strlen(argv[i]) + 1;
			memcpy(args + o, argv[i], l);
			o += l;
		}
		isotier__cpio_add(&c, ".isotier/args", S_IFREG | 0644, 0, 0, args, alen);
	}
	cleanup_free char *in = NULL;
	size_t in_len = 0;
	if (!rc)
		rc = read_stdin(&in, &in_len, stdin_fd, err);
	if (!rc && in)
		isotier__cpio_add(&c, ".isotier/stdin", S_IFREG | 0600, 0, 0, in, in_len);
	if (!rc)
		rc = isotier__cpio_add_file(&c, "init", s->paths.init, 0755, err);
	if (!rc && s->spec.probe_path && strcmp(mode, "trial"))
		rc = isotier__cpio_add_file(&c, ".isotier/isotier-probe", s->spec.probe_path, 0755,
		                            err);
	if (!rc && !strcmp(mode, "9p")) {
		char order_path[4096];
		snprintf(order_path, sizeof order_path, "%s/order", s->paths.modules);
		cleanup_free char *order = NULL;
		rc = isotier__read_file(&order, NULL, order_path, 4096, err);
		if (rc)
			isotier__error_prefix(err, "guest modules (run scripts/guest-kernel.sh)");
		isotier__cpio_add(&c, ".isotier/modules", S_IFDIR | 0755, 0, 0, NULL, 0);
		if (!rc)
			isotier__cpio_add(&c, ".isotier/modules/order", S_IFREG | 0644, 0, 0, order,
			                  strlen(order));
		for (char *line = order, *next; !rc && line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (!*line || strchr(line, '/'))
				continue;
			char src[4096], dst[512];
			snprintf(src, sizeof src, "%s/%s", s->paths.modules, line);
			snprintf(dst, sizeof dst, ".isotier/modules/%s", line);
			rc = isotier__cpio_add_file(&c, dst, src, 0644, err);
		}
	}
	int frc = isotier__cpio_finish(&c, rc ? NULL : err);
	fclose(f);
	return rc ? rc : frc;
}

/* ---- running qemu ------------------------------------------------------ */

static int run_qemu(const qemu_state *s, const char *initrd, bool kvm, bool share, int timeout_s,
                    isotier_console *con, isotier_capture *qerr, int *status, isotier_error *err)
{
	cleanup_argv isotier_argv a = {0};
	isotier__argv_push(&a, s->m->binary);
	isotier__argv_push(&a, "-M");
	isotier__argv_push(&a, s->m->aarch64 ? "virt" : "microvm,x-option-roms=off");
	isotier__argv_push(&a, "-accel");
	isotier__argv_push(&a, kvm ? "kvm" : "tcg");
	isotier__argv_push(&a, "-cpu");
	/* aarch64 "max" under TCG: pauth-impdef keeps pointer authentication but with QEMU's
	 * cheap hash instead of QARMA (boot ~1 s instead of ~3 s here); still "max". */
	isotier__argv_push(&a, kvm ? "host" : s->m->aarch64 ? "max,pauth-impdef=on" : "max");
	isotier__argv_push(&a, "-m");
	isotier__argv_push(&a, share ? "256" : "128"); /* less memory map to set up */
	isotier__argv_push(&a, "-smp");
	isotier__argv_push(&a, "1");
	isotier__argv_push(&a, "-nodefaults");
	isotier__argv_push(&a, "-no-user-config");
	isotier__argv_push(&a, "-display");
	isotier__argv_push(&a, "none");
	if (s->m->debug_port) {
		/* One stdio chardev for both: the framed lines come on the debug port, the
		 * kernel's own messages (a panic) still on the serial console. */
		isotier__argv_push(&a, "-chardev");
		isotier__argv_push(&a, "stdio,id=isocon,mux=on,signal=off");
		isotier__argv_push(&a, "-serial");
		isotier__argv_push(&a, "chardev:isocon");
		isotier__argv_push(&a, "-device");
		isotier__argv_pushf(&a, "isa-debugcon,iobase=0x%x,chardev=isocon",
		                    s->m->debug_port);
	} else {
		isotier__argv_push(&a, "-serial");
		isotier__argv_push(&a, "stdio");
	}
	isotier__argv_push(&a, "-no-reboot");
	isotier__argv_push(&a, "-kernel");
	isotier__argv_push(&a, s->paths.kernel);
	isotier__argv_push(&a, "-initrd");
	isotier__argv_push(&a, initrd);
	isotier__argv_push(&a, "-append");
	const char *extra = getenv("ISOTIER_QEMU_APPEND"); /* debugging: e.g. "loglevel=7" */
	/* Under TCG on a loaded host the kernel fails to calibrate the TSC against the PIT and
	 * then stalls: give it a TSC frequency and a delay-loop value instead of measuring.
	 * Boot time under TCG (measured with initcall_debug): the crypto self-tests, the W+X
	 * page-table walk of rodata and alternatives patching for mitigations cost about half
	 * of it; the guest runs one workload behind the VM boundary, so they are skipped. */
	if (s->m->aarch64)
		isotier__argv_pushf(&a,
		                    "console=ttyAMA0 panic=-1 quiet loglevel=1 cryptomgr.notests "
		                    "rodata=off mitigations=off audit=0 ipv6.disable=1%s%s",
		                    extra ? " " : "", extra ? extra : "");
	else
		isotier__argv_pushf(
		    &a,
		    "console=ttyS0 panic=-1 quiet loglevel=1 reboot=t tsc_early_khz=2000000 "
		    "tsc=reliable lpj=8000000 no_timer_check cryptomgr.notests rodata=off "
		    "mitigations=off audit=0 ipv6.disable=1%s%s",
		    extra ? " " : "", extra ? extra : "");
	if (share) {
		const char *root = s->spec.rootfs ? s->spec.rootfs : "/";
		if (strchr(root, ','))
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "rootfs path with a comma: %s", root);
		isotier__argv_push(&a, "-fsdev");
		isotier__argv_pushf(&a, "local,id=isoroot,path=%s,security_model=none,readonly=on",
		                    root);
		isotier__argv_push(&a, "-device");
		isotier__argv_push(&a, "virtio-9p-device,fsdev=isoroot,mount_tag=isotier-root");
	}
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	isotier_proc_opts o = {
	    .argv = (const char *const *)a.v,
	    .stdin_fd = -1,
	    .stdout_fd = -1,
	    .stderr_fd = -1,
	    .out_sink = isotier__console_sink,
	    .out_sink_ctx = con,
	    .err_capture = qerr,
	    .timeout_s = timeout_s,
	    .cancel_fd = con->cancel_fd,
	    /* The guest's console: QEMU writes each byte the guest sends. */
	    .out_batch_ms = 2,
	};
	return isotier__proc_run(&o, status, err);
}

/* The trial boot kvm_trial.c asks for: the guest's init under KVM, nothing else. */
static int trial_boot(void *ctx, int timeout_s)
{
	qemu_state *s = ctx;
	char initrd[4096];
	snprintf(initrd, sizeof initrd, "%s/trial.cpio", s->dir);
	if (write_initramfs(s, initrd, "trial", NULL, -1, NULL) != 0)
		return 1;
	isotier_console con = {.spec = &s->spec,
	                       .out_fd = -1,
	                       .err_fd = -1,
	                       .exit_code = -1,
	                       .cap_fd = -1,
	                       .cancel_fd = s->spec.cancel_fd};
	isotier_capture qerr = {.max = 4096};
	int status = -1;
	isotier_error terr = {0}; /* a failed trial only means TCG */
	int rc = run_qemu(s, initrd, true, false, timeout_s, &con, &qerr, &status, &terr);
	free(qerr.data);
	unlink(initrd);
	if (rc == ISOTIER_EINTR)
		return rc;
	return rc == 0 && status == 0 && con.exit_code == 0 ? 0 : 1;
}

/* Sets s->kvm: whether KVM works here (kvm_trial.c: cached per host boot,
 * kernel content and qemu binary). ISOTIER_EINTR when the trial was cancelled. */
static int kvm_trial(qemu_state *s, isotier_error *err)
{
	s->kvm = false;
	if (s->m->aarch64)
		return 0; /* another architecture than the host's: TCG only */
	const char *forced = getenv("ISOTIER_QEMU_ACCEL");
	if (forced && !strcmp(forced, "tcg"))
		return 0;
	if (forced && !strcmp(forced, "kvm")) {
		s->kvm = true;
		return 0;
	}
	char vmm[4096], ident[4200];
	struct stat st;
	if (isotier__find_program(vmm, sizeof vmm, s->m->binary) != 0 || stat(vmm, &st) != 0)
		return 0;
	snprintf(ident, sizeof ident, "%s %lld %lld.%09ld", vmm, (long long)st.st_size,
	         (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return isotier__kvm_decide(s->paths.kernel, ident, trial_boot, s, &s->kvm, err);
}

static void qemu_destroy(void *p)
{
	qemu_state *s = p;
	if (!s)
		return;
	if (s->dir) {
		isotier__rmtree(s->dir);
		free(s->dir);
	}
	isotier__spec_copy_clear(&s->spec);
	free(s);
}

/* The ELF machine of a file (EM_AARCH64 183, EM_X86_64 62); -1 when not an ELF. */
static int elf_machine(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0 || h[5] != 1 /* LE */)
		return -1;
	return h[18] | h[19] << 8;
}

/* qemu-aarch64: the probe must be an aarch64 binary; "PROBE-aarch64" stands in for PROBE, and
 * an installed isotier keeps it in PREFIX/lib/isotier (a foreign architecture's binary is no
 * program of this host's: not in bin/). */
static int aarch64_probe(isotier_spec_copy *c, isotier_error *err)
{
	if (!c->probe_path || elf_machine(c->probe_path) == 183)
		return 0;
	char *alt = NULL;
	if (asprintf(&alt, "%s-aarch64", c->probe_path) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	char installed[4096];
	if (elf_machine(alt) != 183 &&
	    isotier__install_path(installed, sizeof installed,
	                          "lib/isotier/isotier-probe-aarch64") == 0 &&
	    elf_machine(installed) == 183) {
		free(alt);
		if (!(alt = strdup(installed)))
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	if (elf_machine(alt) != 183) {
		isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0,
		                   "probe %s is not an aarch64 binary and %s is none either (make "
		                   "builds it with the aarch64 cross compiler)",
		                   c->probe_path, alt);
		free(alt);
		return ISOTIER_EUNAVAILABLE;
	}
	free(c->probe_path);
	c->probe_path = alt;
	return 0;
}

static int machine_provision(const qemu_machine *m, void **out, const isotier_backend_spec *spec,
                             isotier_error *err)
{
	*out = NULL;
	char why[4096];
	if (!machine_available(m, why, sizeof why))
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s: %s", m->name, why);
	if (m->aarch64 && spec && spec->rootfs)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "%s: provision: a rootfs cannot be shown to the aarch64 "
		                          "guest (it runs its initramfs only)",
		                          m->name);
	qemu_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", m->name);
	s->m = m;
	find_paths(m, &s->paths);
	int rc = isotier__spec_copy_init(&s->spec, spec, err);
	if (!rc && m->aarch64) {
		s->spec.minimal_root = true; /* the host's x86_64 root means nothing to it */
		rc = aarch64_probe(&s->spec, err);
	}
	if (!rc)
		rc = isotier__mkdtemp(&s->dir, "isotier-vm", err);
	if (rc) {
		qemu_destroy(s);
		return isotier__error_prefix(err, "%s: provision", m->name);
	}
	if ((rc = kvm_trial(s, err)) < 0) {
		qemu_destroy(s);
		isotier__error_prefix(err, "%s: provision", m->name);
		return rc;
	}
	*out = s;
	return 0;
}

static int qemu_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return machine_provision(&machine_microvm, out, spec, err);
}

static int qemu_exec(void *p, const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	qemu_state *s = p;
	int rc = isotier__exec_check(req, err);
	if (rc)
		return isotier__error_prefix(err, "%s", s->m->name);
	/* The guest's init says ISOTIER-START before it starts the probe: the
	 * host's pattern need not compete with the boot for the CPUs. */
	isotier__host_watch_defer_pattern();
	char initrd[4096];
	snprintf(initrd, sizeof initrd, "%s/initrd.cpio", s->dir);
	bool share = !s->spec.minimal_root;
	rc = write_initramfs(s, initrd, share ? "9p" : "min", req->argv, req->stdin_fd, err);
	if (rc)
		return isotier__error_prefix(err, "%s: initramfs", s->m->name);
	isotier_console *con = calloc(1, sizeof *con);
	if (!con)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", s->m->name);
	con->spec = &s->spec;
	con->out_fd = req->stdout_fd >= 0 ? req->stdout_fd : STDOUT_FILENO;
	con->err_fd = req->stderr_fd >= 0 ? req->stderr_fd : STDERR_FILENO;
	con->exit_code = -1;
	con->cap_fd = -1;
	con->cancel_fd = isotier__exec_cancel_fd(&s->spec, req);
	con->debug = getenv("ISOTIER_QEMU_DEBUG") != NULL;
	isotier_capture qerr = {.max = 16384};
	int status = -1;
	int timeout_s = isotier__exec_timeout(&s->spec, req);
	con->deadline_ms = isotier__now_ms() + (int64_t)timeout_s * 1000;
	rc = run_qemu(s, initrd, s->kvm, share, timeout_s, con, &qerr, &status, err);
	unlink(initrd);
	isotier__console_finish(con);
	if (!rc && con->exit_code < 0) {
		const char *tail = qerr.data ? qerr.data : "";
		if (strlen(tail) > 400)
			tail += strlen(tail) - 400;
		if (con->fail[0])
			rc = isotier__error_set(err, ISOTIER_ERROR, 0, "guest init: %s", con->fail);
		else
			rc =
			    isotier__error_set(err, ISOTIER_ERROR, 0,
			                       "no exit status from the guest (qemu status %d)%s%s",
			                       status, *tail ? ": " : "", tail);
	}
	if (!rc && con->problem[0])
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "console: %s", con->problem);
	if (!rc)
		*exit_status = con->exit_code;
	free(qerr.data);
	free(con);
	if (rc)
		return isotier__error_prefix(err, "%s: exec %s", s->m->name, req->argv[0]);
	return 0;
}

/* What both machines read for debugging: the guest's command line and its console. */
#define QEMU_DEBUG_SETTINGS                                                                        \
	{.env = "ISOTIER_QEMU_APPEND",                                                             \
	 .meaning = "extra guest kernel command line, for debugging (\"loglevel=7\")"},            \
	{                                                                                          \
		.env = "ISOTIER_QEMU_DEBUG",                                                       \
		.meaning = "set: copy the guest's console (frames, kernel messages) to stderr"     \
	}

static const isotier_backend_setting qemu_microvm_settings[] = {
    {.env = "ISOTIER_GUEST_DIR",
     .meaning = "the guest kernel directory: vmlinux or vmlinuz, modules/ (default .deps/guest)"},
    {.env = "ISOTIER_GUEST_INIT",
     .meaning = "the guest init binary (default isotier-guest-init beside the CLI)"},
    {.env = "ISOTIER_QEMU_ACCEL", .meaning = "tcg or kvm: skip the cached KVM trial boot"},
    QEMU_DEBUG_SETTINGS,
    {0},
};

const isotier_backend isotier__backend_qemu_microvm = {
    .version = ISOTIER_BACKEND_VERSION,
    .settings = qemu_microvm_settings,
    .name = "qemu-microvm",
    .stdin_before_start = true,
    .catalogue_id = "qemu-microvm",
    .description = "QEMU microvm with the Debian guest kernel, host root over virtio-9p (MICROVM)",
    .available = qemu_available,
    .provision = qemu_provision,
    .exec = qemu_exec,
    .destroy = qemu_destroy,
    .cpu_in_tree = true,
};

static int aarch64_available(char *why, size_t why_len)
{
	return machine_available(&machine_aarch64, why, why_len);
}

static int aarch64_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	return machine_provision(&machine_aarch64, out, spec, err);
}

static const isotier_backend_setting qemu_aarch64_settings[] = {
    {.env = "ISOTIER_GUEST_ARM64_DIR",
     .meaning = "the arm64 guest kernel directory (default .deps/guest-arm64)"},
    {.env = "ISOTIER_GUEST_INIT_AARCH64", .meaning = "the aarch64 guest init binary"},
    QEMU_DEBUG_SETTINGS,
    {0},
};

const isotier_backend isotier__backend_qemu_aarch64 = {
    .version = ISOTIER_BACKEND_VERSION,
    .settings = qemu_aarch64_settings,
    .name = "qemu-aarch64",
    .stdin_before_start = true,
    .catalogue_id = "qemu-aarch64",
    .description = "QEMU virt, aarch64 under TCG, Debian arm64 kernel, the aarch64 probe in its "
                   "initramfs (MICROVM)",
    .available = aarch64_available,
    .provision = aarch64_provision,
    .exec = qemu_exec,
    .destroy = qemu_destroy,
    .cpu_in_tree = true,
};
