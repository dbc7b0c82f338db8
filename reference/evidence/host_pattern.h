/* SPDX-License-Identifier: Apache-2.0 */
/* host_pattern.h - the host's task-count pattern (ADR-0019), internal to
 * host_watch.c: one generator per process, run only while the process holds
 * the host's challenge lock, shared by the process's watches. */
#ifndef ISOTIER_HOST_PATTERN_H
#define ISOTIER_HOST_PATTERN_H

#include "host_watch.h"

#include <stdbool.h>
#include <stdint.h>

/* Joins the pattern, starting it (with the host's lock) when this is the
 * first user: 0, or -1 with why in why when there is none to join before
 * deadline_us (CLOCK_MONOTONIC) or cancel_fd (> 0) becomes readable. */
int isotier__pattern_join(int64_t deadline_us, int cancel_fd, char *why, size_t len);
/* Copies into v the segments that started at or after since and, when
 * joined, leaves: the last user stops the generator and lets the lock go. */
void isotier__pattern_leave(isotier_host_view *v, int64_t since, bool joined);
/* Users waiting for their sandbox's start line (+1, -1): while every user
 * waits, the generator holds no thread and records no slot. */
void isotier__pattern_waiting(int delta);

#endif
