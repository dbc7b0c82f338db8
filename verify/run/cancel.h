/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cancel.h - the CLI's SIGINT/SIGTERM, turned into libisotier's per-call
 * cancellation. The library touches no signal; the CLI owns its process, so
 * its signals are handled here.
 *
 * cli_cancel_start() - call it before any other thread exists (threads
 * inherit the mask) - blocks SIGINT and SIGTERM, takes them back from SIG_IGN
 * (a shell starts background jobs with SIGINT ignored) and opens a signalfd
 * for them. That descriptor, cli_cancel_fd(), is the cancel_fd the CLI passes
 * to every backend call and to isotier_create()/isotier_sandbox_exec(): it is
 * readable while a signal is pending, and nobody reads it, so once one came
 * every call in flight is cancelled (its child's process group killed) and
 * every later one refused, while cleanup (runc delete, temporary directories)
 * still runs. No signal is delivered, no system call interrupted, no thread
 * started (`run` refusing a tier starts no process or thread of any kind).
 */
#ifndef ISOTIER_CLI_CANCEL_H
#define ISOTIER_CLI_CANCEL_H

/* Returns 0, or -errno (nothing changed then). Once per process. */
int cli_cancel_start(void);
/* The cancel descriptor; -1 when not started. */
int cli_cancel_fd(void);
/* The signal that came (SIGINT when both did), else 0. Consumes nothing. */
int cli_cancel_signal(void);
/* Closes the descriptor (signals stay blocked, a pending one stays pending).
 * Optional before exiting. */
void cli_cancel_stop(void);

#endif
