/* SPDX-License-Identifier: Apache-2.0 */
/*
 * telemetry.h - audit events (JSON Lines + SQLite history) and spans
 * (OpenTelemetry OTLP/JSON to a file or an OTLP/HTTP endpoint). Every create,
 * refusal, attestation, exec and destroy emits both, carrying the tier.
 */
#ifndef ISOTIER_TELEMETRY_H
#define ISOTIER_TELEMETRY_H

#include "../../base/base.h"

struct isotier_history;

#include <stdint.h>

typedef struct isotier_telemetry {
	const char *audit_log;      /* JSON Lines, fsync'd; NULL: none */
	const char *db_path;        /* history database; NULL: none */
	const char *otlp_endpoint;  /* http(s)://.../v1/traces; NULL: none */
	const char *otlp_file;      /* one OTLP/JSON export per line; NULL: none */
	bool otlp_required;         /* a span that cannot be exported fails the create */
	char trace_id[33];          /* one trace per sandbox */
	struct isotier_history *db; /* opened at the first event, kept for the sandbox's life */
	isotier_log_fn log;         /* best-effort failures; NULL: dropped */
	void *log_data;
} isotier_telemetry;

/* Formats a warning for t's log handler (nothing when there is none). */
void isotier__telemetry_warn(const isotier_telemetry *t, const char *fmt, ...) ISOTIER_PRINTF(2, 3);

typedef struct isotier_event {
	const char *event;      /* "create", "refuse", "attest", "exec", "destroy" */
	const char *sandbox_id; /* NULL before one exists */
	const char *backend;
	isotier_tier claimed, resolved, required;
	/* What the decision leaves the caller (the audit record's effective tier): the resolved
	 * tier, but UNKNOWN after a failed attestation (nothing is granted) and at most CONTAINER
	 * for a refusal of a tier above it asked without a proof (what the same request would be
	 * granted without one). Never above resolved. */
	isotier_tier effective;
	const char
	    *decision; /* "allowed", "refused", "attested", "attestation-failed", "ok", "failed" */
	const char *reason;
	int exit_status;           /* exec only; -1 otherwise */
	uint64_t start_ns, end_ns; /* wall clock, for the span */
} isotier_event;

/* Fills trace_id with fresh random hex. */
void isotier__telemetry_init(isotier_telemetry *t);

/* Appends the audit event to the JSON Lines log (fsync'd) and the history.
 * Returns <0 when an audit sink cannot be written: callers that are about to
 * provision fail closed on it. */
int isotier__audit_emit(isotier_telemetry *t, const isotier_event *ev, isotier_error *err);
/* Closes what the audit sinks keep open. */
void isotier__telemetry_close(isotier_telemetry *t);

/* Exports a span for the event to the file and the endpoint; <0 with err set
 * when either fails (a FIFO or device as the file is refused). Whether that
 * fails the operation is the caller's choice: t->otlp_required; otherwise it
 * is a warning through the log handler. */
int isotier__span_emit(const isotier_telemetry *t, const isotier_event *ev, isotier_error *err);

uint64_t isotier__now_ns(void);

#endif
