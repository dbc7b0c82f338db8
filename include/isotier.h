/*
 * isotier.h - the one public header of libisotier.
 *
 * A sandbox's isolation tier as a checkable claim (ADR-0006, ADR-0018):
 *   UNKNOWN < CONTAINER < GVISOR < MICROVM
 * UNKNOWN is the default and satisfies no requirement.
 *
 * Conventions (after libgit2 and SQLite): opaque handles, out-parameter first,
 * functions return 0 on success or a documented negative ISOTIER_E* code and
 * fill an isotier_error when one is given. No global mutable state: two threads
 * may use two handles freely.
 */
#ifndef ISOTIER_H
#define ISOTIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ISOTIER_VERSION "0.1.0"

/* ---- tiers ------------------------------------------------------------ */

typedef enum isotier_tier {
	ISOTIER_UNKNOWN = 0,
	ISOTIER_CONTAINER = 1,
	ISOTIER_GVISOR = 2,
	ISOTIER_MICROVM = 3,
} isotier_tier;

/* "UNKNOWN", "CONTAINER", "GVISOR", "MICROVM"; never NULL. */
const char *isotier_tier_name(isotier_tier tier);

/* Parses a tier name (case-insensitive). Returns 0 or ISOTIER_EINVAL. */
int isotier_tier_parse(isotier_tier *out, const char *name);

/*
 * The rank of ADR-0018. A requirement of ISOTIER_UNKNOWN means "no
 * requirement" and is satisfied by anything; otherwise UNKNOWN satisfies
 * nothing and a known tier satisfies every requirement at or below its rank.
 */
bool isotier_tier_satisfies(isotier_tier have, isotier_tier required);

/* ---- errors ----------------------------------------------------------- */

enum {
	ISOTIER_OK = 0,
	ISOTIER_ERROR = -1,        /* generic failure */
	ISOTIER_EINVAL = -2,       /* invalid argument */
	ISOTIER_ENOMEM = -3,       /* out of memory */
	ISOTIER_EIO = -4,          /* I/O or system call failure (sys_errno set) */
	ISOTIER_ECONFIG = -5,      /* configuration error: tier requirement not met */
	ISOTIER_EUNAVAILABLE = -6, /* backend not available on this machine */
	ISOTIER_ETIMEDOUT = -7,    /* a child process exceeded its time limit */
	ISOTIER_EDATA = -8,        /* malformed input (catalogue, probe output...) */
	ISOTIER_EDB = -9,          /* history database error */
	ISOTIER_EINTR = -10,       /* interrupted by a signal (SIGINT/SIGTERM) */
	ISOTIER_ENOTFOUND = -11,   /* no such backend, provider or record */
};

#define ISOTIER_ERROR_MESSAGE_MAX 2048

/*
 * An error: code, the errno of the failing system call (0 when none), and a
 * message chain, outermost context first ("create bwrap: write bundle: open
 * /tmp/x: Permission denied").
 */
typedef struct isotier_error {
	int code;
	int sys_errno;
	char message[ISOTIER_ERROR_MESSAGE_MAX];
} isotier_error;

/* Name of an ISOTIER_E* code ("ECONFIG"...). */
const char *isotier_strerror(int code);

/* ---- sandboxes -------------------------------------------------------- */

typedef struct isotier_sandbox isotier_sandbox;

typedef struct isotier_create_opts {
	const char *backend;            /* "bwrap", "runc", "runsc", "qemu-microvm", "host" */
	isotier_tier require_isolation; /* ISOTIER_UNKNOWN: no requirement */
	const char *catalogue_dir;      /* NULL: the built-in default catalogue path */
	const char *db_path;            /* history database; NULL: no history consulted */
	int max_source_age_days;        /* 0: the runbook's default cadence */
	int require_verified_days;      /* >0: demand a CONFIRMED/CONSISTENT observation this recent */
	bool attest;                    /* run the probe inside after provisioning; fail closed */
	const char *rootfs;             /* NULL: read-only view of the host root */
	const char *probe_path;         /* NULL: the installed isotier-probe */
	const char *audit_log;          /* JSON Lines audit log, fsync'd; NULL: none */
	const char *otlp_endpoint;      /* OTLP/HTTP traces endpoint; NULL: none */
	const char *otlp_file;          /* OTLP/JSON spans file; NULL: none */
	int timeout_s;                  /* per child process; 0: 60 s */
	bool otlp_required;             /* false: a span that cannot be exported (file or
	                                   endpoint) costs a warning; true: it fails the
	                                   create, before anything is provisioned */
} isotier_create_opts;

int isotier_create(isotier_sandbox **out, const isotier_create_opts *opts, isotier_error *err);

typedef struct isotier_exec_opts {
	int stdin_fd;  /* -1: /dev/null */
	int stdout_fd; /* -1: inherit */
	int stderr_fd; /* -1: inherit */
	int timeout_s; /* 0: the sandbox's default */
} isotier_exec_opts;

/* Runs argv (NULL-terminated) in the sandbox; *exit_status gets the command's
 * exit status (128+N when killed by signal N). */
int isotier_sandbox_exec(isotier_sandbox *sandbox, const char *const *argv,
			 const isotier_exec_opts *opts, int *exit_status, isotier_error *err);

/* The tier this sandbox was resolved to (the tier we can defend). */
isotier_tier isotier_sandbox_tier(const isotier_sandbox *sandbox);

/* "<isotier_sandbox backend=bwrap tier=CONTAINER id=...>"; valid until destroy. */
const char *isotier_sandbox_repr(const isotier_sandbox *sandbox);

/* Tears the sandbox down and frees it; NULL is accepted. */
void isotier_sandbox_destroy(isotier_sandbox *sandbox);

#ifdef __cplusplus
}
#endif

#endif /* ISOTIER_H */
