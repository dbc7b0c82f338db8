/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kvm_trial.h - whether qemu may use KVM on this host for a guest kernel
 * (kvm_trial.c). A wrong answer may only cost time: KVM is chosen only once
 * a guest proved it boots under it.
 */
#ifndef ISOTIER_KVM_TRIAL_H
#define ISOTIER_KVM_TRIAL_H

#include "../../base/base.h"

/* Boots the guest under KVM, bounded by timeout_s: 0 when it came up, >0 when
 * it did not, ISOTIER_EINTR when cancelled. */
typedef int (*isotier_kvm_boot_fn)(void *ctx, int timeout_s);

/* Sets *kvm. No /dev/kvm: false at once. Else the answer cached for this host
 * boot (boot id), this kernel's content (SHA-256) and this VMM (vmm_ident:
 * the qemu binary's path and identity) in the state directory, shared by every
 * checkout; on a miss an ioctl trial (a few real-mode instructions through
 * /dev/kvm, in a child killed at 1 s) and, when it passes, boot() bounded by
 * ISOTIER_KVM_BOOT_S; the answer is cached. ISOTIER_EINTR (nothing cached)
 * when boot() was cancelled. */
#define ISOTIER_KVM_BOOT_S 3
int isotier__kvm_decide(const char *kernel, const char *vmm_ident, isotier_kvm_boot_fn boot,
                        void *ctx, bool *kvm, isotier_error *err);

/* The pieces, for the unit suite. The cache entry's name for a host boot, a
 * kernel digest and a VMM; 0, or ISOTIER_EINVAL on a malformed part. */
int isotier__kvm_cache_name(char *name, size_t len, const char *boot_id, const char *kernel_sha,
                            const char *vmm_ident);
/* This host's boot id (/proc/sys/kernel/random/boot_id, a UUID, bounded read). */
int isotier__kvm_boot_id(char out[37]);
/* 1 when a vCPU ran the trial's instructions within timeout_ms, else 0.
 * hang (tests only) makes the child stall before answering. */
int isotier__kvm_ioctl_trial(int timeout_ms, bool hang);

#endif
