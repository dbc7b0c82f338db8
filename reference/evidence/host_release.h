/* SPDX-License-Identifier: Apache-2.0 */
/*
 * host_release.h - ending a visible probe's challenge early.
 *
 * Once the host sees the probe of this run in its own process table, the
 * kernel is shared and the task-count challenge can add nothing: the host
 * tells the probe to stop sampling (SIGUSR1, which the probe catches only
 * while it runs with --challenge) so that the run does not wait out the
 * window. It is a courtesy, never evidence: a probe that ignores it samples
 * the whole window, one that fakes it stops short and proves less.
 */
#ifndef ISOTIER_HOST_RELEASE_H
#define ISOTIER_HOST_RELEASE_H

#include <stdbool.h>
#include <sys/types.h>

/* Sends SIGUSR1 to pid when it still runs argv0 with nonce among its
 * arguments and catches SIGUSR1 (so the signal cannot kill it). true when
 * done with it (sent, gone, or not the probe any more); false when it does
 * not catch the signal yet (ask again at the next look). */
bool isotier__host_release_probe(pid_t pid, const char *argv0, const char *nonce);

#endif
