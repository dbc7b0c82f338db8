/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm_trial.c - the accelerator decision for the qemu backends, made once per
 * host boot, guest kernel and VMM, and shared by every checkout through the
 * state directory (state_cache.c). Before, every fresh clone waited out a
 * trial boot and cached it under ~/.cache keyed by the kernel's path, which
 * the next clone overwrote.
 *
 * The miss is cheap where KVM cannot work: /dev/kvm missing is known at once,
 * and a host whose KVM cannot run a vCPU fails the ioctl trial (real-mode
 * code through KVM_RUN, ~1 ms) in a child that is killed at its bound, so a
 * KVM_RUN that never returns cannot hold the run. Passing that is not enough
 * (qemu can still refuse the host CPU's MSRs, or a guest hang), so the real
 * guest must then boot under KVM within ISOTIER_KVM_BOOT_S before KVM is used.
 */
#include "kvm_trial.h"

#include "../core/paths.h"
#include "../core/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int isotier__kvm_boot_id(char out[37])
{
	out[0] = '\0';
	cleanup_close int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	char buf[64];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (n < 36)
		return ISOTIER_ENOTFOUND;
	buf[n] = '\0';
	if (strspn(buf, "0123456789abcdef-") != 36 || (buf[36] != '\n' && buf[36] != '\0'))
		return ISOTIER_EINVAL;
	memcpy(out, buf, 36);
	out[36] = '\0';
	return 0;
}

int isotier__kvm_cache_name(char *name, size_t len, const char *boot_id, const char *kernel_sha,
                            const char *vmm_ident)
{
	if (strlen(boot_id) != 36 || strlen(kernel_sha) != 64 || strchr(vmm_ident, '\n'))
		return ISOTIER_EINVAL;
	/* The entry's name is a digest of its key: any part changing is another
	 * entry, never an overwrite of this one. */
	char key[4200];
	int n = snprintf(key, sizeof key, "kvm/1\n%s\n%s\n%s\n", boot_id, kernel_sha, vmm_ident);
	if (n < 0 || (size_t)n >= sizeof key)
		return ISOTIER_EINVAL;
	char hex[65];
	if (isotier__sha256_hex(key, (size_t)n, hex) < 0)
		return ISOTIER_EIO;
	if (len < 4 + 33)
		return ISOTIER_EINVAL;
	snprintf(name, len, "kvm-%.32s", hex);
	return 0;
}

/* The child's part: only system calls between fork and _exit. */
static int vcpu_runs(void)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0 || ioctl(kvm, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return 0;
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return 0;
	unsigned char *mem =
	    mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 0;
	/* mov al, 0x5a; out 0x10, al; hlt */
	static const unsigned char code[] = {0xb0, 0x5a, 0xe6, 0x10, 0xf4};
	memcpy(mem, code, sizeof code);
	struct kvm_userspace_memory_region r = {.slot = 0,
	                                        .guest_phys_addr = 0x1000,
	                                        .memory_size = 0x1000,
	                                        .userspace_addr = (__u64)(uintptr_t)mem};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		return 0;
	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	int size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vcpu < 0 || size < (int)sizeof(struct kvm_run))
		return 0;
	struct kvm_run *run = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	struct kvm_sregs sregs;
	if (run == MAP_FAILED || ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return 0;
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	struct kvm_regs regs = {.rip = 0x1000, .rflags = 2};
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0 || ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return 0;
	bool out_seen = false;
	for (int i = 0; i < 4; i++) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0)
			return 0;
		if (run->exit_reason == KVM_EXIT_IO && run->io.direction == KVM_EXIT_IO_OUT &&
		    run->io.port == 0x10 && run->io.size == 1 &&
		    ((unsigned char *)run)[run->io.data_offset] == 0x5a)
			out_seen = true;
		else if (run->exit_reason == KVM_EXIT_HLT)
			return out_seen;
		else
			return 0;
	}
	return 0;
}

int isotier__kvm_ioctl_trial(int timeout_ms, bool hang)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return 0;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		if (hang)
			for (;;)
				pause();
		char answer = vcpu_runs() ? 'y' : 'n';
		if (write(fds[1], &answer, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	/* The bound: whatever the vCPU does, the child is gone by then. */
	int64_t deadline = isotier__now_ms() + timeout_ms;
	char answer = 'n';
	for (;;) {
		int64_t left = deadline - isotier__now_ms();
		struct pollfd p = {.fd = fds[0], .events = POLLIN};
		int r = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 1 && read(fds[0], &answer, 1) != 1)
			answer = 'n';
		break;
	}
	close(fds[0]);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return answer == 'y';
}

int isotier__kvm_decide(const char *kernel, const char *vmm_ident, isotier_kvm_boot_fn boot,
                        void *ctx, bool *kvm, isotier_error *err)
{
	*kvm = false;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	char boot_id[37], sha[65], name[64] = "", line[16];
	isotier_error herr = {0};
	if (isotier__kvm_boot_id(boot_id) != 0 || isotier__file_sha256(kernel, sha, &herr) != 0 ||
	    isotier__kvm_cache_name(name, sizeof name, boot_id, sha, vmm_ident) != 0)
		name[0] = '\0'; /* no key: decide, cache nothing */
	if (name[0] && isotier__state_cache_get(name, line, sizeof line) == 0) {
		if (!strcmp(line, "kvm\n") || !strcmp(line, "tcg\n")) {
			*kvm = line[0] == 'k';
			return 0;
		}
	}
	bool ok = isotier__kvm_ioctl_trial(1000, false) == 1;
	if (ok) {
		int rc = boot(ctx, ISOTIER_KVM_BOOT_S);
		if (rc == ISOTIER_EINTR)
			return isotier__error_set(err, rc, 0, "KVM trial boot cancelled");
		ok = rc == 0;
	}
	*kvm = ok;
	if (name[0])
		isotier__state_cache_put(name, ok ? "kvm\n" : "tcg\n");
	return 0;
}
