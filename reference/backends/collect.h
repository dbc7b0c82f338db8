/* SPDX-License-Identifier: Apache-2.0 */
/*
 * collect.h - exec() output delivered as it arrives, to a callback. A remote
 * backend hands the bytes of its HTTP stream to the callback itself; a
 * local one writes to descriptors, and isotier__exec_stream reads both pipes
 * in a helper thread while exec() waits, so neither fills and stalls the
 * command. On top of it, isotier__exec_collect keeps
 * the output bounded: the probe's JSON (observe.c) and a fetched archive
 * (artifacts.c). stdout beyond max_out is drained and dropped (out_over)
 * rather than kept: a hostile sandbox or provider cannot make the library
 * hold more than it asked for.
 */
#ifndef ISOTIER_COLLECT_H
#define ISOTIER_COLLECT_H

#include "backend.h"

#define ISOTIER_COLLECT_STDERR_KEEP 2048

/*
 * Runs req (argv, timeout_s, cancel_fd; stdin as req says, its stdout_fd and
 * stderr_fd replaced) in the sandbox state of backend b, calling on_output
 * (isotier.h's isotier_output_fn: stream 1 stdout, 2 stderr) one call at a
 * time, never after this returns: from this thread for a backend that
 * delivers output itself (descriptor's delivers_output: a remote one), else
 * from a helper thread reading the pipes exec() writes to. Once on_output
 * returns non-zero the rest is drained and dropped. Returns exec()'s
 * result; *exit_status as exec() sets it.
 */
int isotier__exec_stream(const isotier_backend *b, void *state, const isotier_exec_request *req,
                         isotier_output_fn on_output, void *data, int *exit_status,
                         isotier_error *err);

typedef struct isotier_collected {
	size_t max_out; /* in: stdout kept at most (required, > 0) */
	char *out;      /* stdout, NUL-terminated; owned by the caller (free) */
	size_t out_len;
	bool out_over; /* stdout was larger (or memory ran out): out holds a prefix */
	char err[ISOTIER_COLLECT_STDERR_KEEP]; /* stderr's first bytes, NUL-terminated */
	/* in, optional: called once, on the reading thread, when a line of
	 * stderr's first bytes is ISOTIER-START (the probe's --say-start). */
	void (*on_start)(void *data);
	void *start_data;
	/* in, optional: called once, on the reading thread, with stdout's first
	 * bytes (the probe's report begins: its challenge window is over). */
	void (*on_report)(void *data);
	void *report_data;
} isotier_collected;

/*
 * Runs req (argv, timeout_s, cancel_fd; its stdin is /dev/null and its fds
 * are replaced) in the sandbox state of backend b. Returns exec()'s result;
 * *exit_status as exec() sets it.
 */
int isotier__exec_collect(isotier_collected *c, const isotier_backend *b, void *state,
                          const isotier_exec_request *req, int *exit_status, isotier_error *err);

#endif
