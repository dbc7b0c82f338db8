/* SPDX-License-Identifier: Apache-2.0 */
/* leftovers.h - what dead runs left behind, swept at the start of a run and by
 * `isotier sweep` (the library's sweep.h and isotier__history_mark_stale). */
#ifndef ISOTIER_CLI_LEFTOVERS_H
#define ISOTIER_CLI_LEFTOVERS_H

#include "../../reference/api/isotier_tool.h"

/* Sweeps the dead runs' leases, each leftover a stderr line (and an audit
 * event when h is open), then marks h's runs left 'running' by a process that
 * is gone as interrupted (a stderr line each). *swept and *stale: how many
 * (either may be NULL). < 0 (err set) when the lease directory could not be
 * read (ISOTIER_EIO) or the history not written (a swept leftover's event or
 * an interrupted run): what could be swept still is. */
int leftovers_sweep(isotier_history *h, int *swept, size_t *stale, isotier_error *err);

#endif
