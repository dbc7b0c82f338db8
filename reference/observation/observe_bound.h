/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observe_bound.h - one sandbox, probed then run: the probe runs with
 * `--exec -- CMD`, isotier judges its report while it waits, and only then
 * answers "ISOTIER-GO <nonce>" on its standard input, on which the probe
 * execvp()s CMD in the same process, in the same sandbox (probes/exec.c).
 * A runtime that relays the probe to one sandbox has relayed the command
 * with it. The report stays isotier's; the caller's stdout gets the
 * command's bytes only, its stdin is relayed to the command after the word.
 */
#ifndef ISOTIER_OBSERVE_BOUND_H
#define ISOTIER_OBSERVE_BOUND_H

#include "../backends/backend.h"
#include "../evidence/host_watch.h"

/* Judges the report (the JSON between the probe's markers; NULL when there
 * was none) with what the host saw (view: the callee's to clear); true lets
 * the command run. Called once, on the reader's thread, while the probe
 * waits. */
typedef bool (*isotier_report_fn)(void *ctx, const char *report, size_t len,
                                  isotier_host_view *view);

/*
 * Runs probe_req (the probe's argv with --exec -- CMD) in state; stdin_fd,
 * stdout_fd (-1: this process's standard output) are the command's;
 * probe_req's stderr_fd is passed through. watch (may be NULL) is ended on
 * the reader's thread before on_report, not freed. *reported says whether
 * on_report ran; *released whether the command was let run. Returns exec()'s
 * result; *exit_status is the command's, or the probe's when it did not run
 * it (77: refused).
 */
int isotier__exec_bound(const isotier_backend *b, void *state,
                        const isotier_exec_request *probe_req, int stdin_fd, int stdout_fd,
                        isotier_host_watch *watch, const char *nonce, isotier_report_fn on_report,
                        void *ctx, bool *reported, bool *released, int *exit_status,
                        isotier_error *err);

#endif
