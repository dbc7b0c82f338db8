/*
 * collect.h - one exec() whose output the library keeps, bounded: the probe's
 * JSON (observe.c) and a fetched archive (artifacts.c). Any backend's exec()
 * writes to descriptors; here a helper thread reads both pipes while exec()
 * waits, so neither fills and stalls the command, and stdout beyond max_out
 * is drained and dropped (out_over) rather than kept: a hostile sandbox or
 * provider cannot make the library hold more than it asked for.
 */
#ifndef ISOTIER_COLLECT_H
#define ISOTIER_COLLECT_H

#include "backend.h"

#define ISOTIER_COLLECT_STDERR_KEEP 2048

typedef struct isotier_collected {
	size_t max_out; /* in: stdout kept at most (required, > 0) */
	char *out;      /* stdout, NUL-terminated; owned by the caller (free) */
	size_t out_len;
	bool out_over; /* stdout was larger (or memory ran out): out holds a prefix */
	char err[ISOTIER_COLLECT_STDERR_KEEP]; /* stderr's first bytes, NUL-terminated */
} isotier_collected;

/*
 * Runs req (argv, timeout_s, cancel_fd; its stdin is /dev/null and its fds
 * are replaced) in the sandbox state of backend b. Returns exec()'s result;
 * *exit_status as exec() sets it.
 */
int isotier_exec_collect(isotier_collected *c, const isotier_backend *b, void *state,
                         const isotier_exec_request *req, int *exit_status, isotier_error *err);

#endif
