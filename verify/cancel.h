/*
 * cancel.h - the CLI's SIGINT/SIGTERM, turned into libisotier's per-call
 * cancellation. The library touches no signal; the CLI owns its process, so
 * its signals are handled here.
 *
 * cli_cancel_start() - call it before any other thread exists (threads
 * inherit the mask) - takes SIGINT and SIGTERM back from SIG_IGN (a shell
 * starts background jobs with SIGINT ignored), blocks them in the calling
 * thread and starts one watcher thread that takes them with sigwait(). The
 * first one is recorded and one byte is written to a pipe whose read end,
 * cli_cancel_fd(), the CLI passes as the cancel_fd of every backend call and
 * isotier_create()/isotier_sandbox_exec(): it stays readable, so every call
 * in flight is cancelled (its child's process group killed) and every later
 * one refused, while cleanup (runc delete, temporary directories) still runs.
 * No signal is ever delivered to a handler: no system call is interrupted.
 */
#ifndef ISOTIER_CLI_CANCEL_H
#define ISOTIER_CLI_CANCEL_H

/* Returns 0, or -errno (nothing changed then). Once per process. */
int cli_cancel_start(void);
/* The read end of the cancel pipe; -1 when not started. */
int cli_cancel_fd(void);
/* SIGINT or SIGTERM once one came, else 0. */
int cli_cancel_signal(void);
/* Stops the watcher and closes the pipe (signals stay blocked). Optional
 * before exiting. */
void cli_cancel_stop(void);

#endif
