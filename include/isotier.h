/* SPDX-License-Identifier: Apache-2.0 */
/*
 * isotier.h - the one public header of libisotier.
 *
 * A sandbox's isolation tier as a checkable claim (ADR-0006, ADR-0018):
 *   UNKNOWN < CONTAINER < GVISOR < MICROVM
 * UNKNOWN is the default and satisfies no requirement.
 *
 * Conventions (after libgit2 and SQLite): opaque handles, out-parameters first,
 * functions return 0 on success or a documented negative ISOTIER_E* code and
 * fill an isotier_error when one is given. The library never touches signals
 * (no handler, no mask, no signalfd): cancellation is per call, through a
 * cancel_fd the caller owns.
 *
 * Ownership. A returned handle (isotier_sandbox) is the caller's: free it with
 * isotier_sandbox_destroy, once. Every returned const char * belongs to the
 * library: isotier_tier_name, isotier_strerror and isotier_version return
 * static strings; isotier_sandbox_repr's string lives until its sandbox is
 * destroyed. The library keeps no pointer the caller passed in beyond the call,
 * except the log handler and its data (until isotier_sandbox_destroy) and the
 * cancel_fd (see below); option structs and argv are read during the call only.
 *
 * Threads. Every function may be called from any thread. A handle is used by
 * one thread at a time (one sandbox per thread, or the caller's own lock
 * around it); two threads may use two handles freely. The callbacks (log,
 * on_output) may run on a library thread, never two at a time for one call.
 *
 * Process-wide state, each guarded inside the library (no call needs the
 * caller's lock for it), none of it changing how the rest of the program runs:
 *   - the credentials read from the environment to redact from every message
 *     (a table of at most 16, kept until exit);
 *   - libcurl's global initialisation, once (pthread_once), never undone: a
 *     program that also uses libcurl calls curl_global_init itself first;
 *   - the count of remote sandboxes started per backend (the per-process cap,
 *     ISOTIER_REMOTE_MAX_SANDBOXES);
 *   - the host's task-count pattern generator of the active challenge (one
 *     thread and its helpers, shared by every concurrent verification in the
 *     process so they do not blur each other; started by the first, joined by
 *     the last).
 * The log handler is per sandbox (isotier_create_opts.log), never global.
 *
 * Errors. Every failure returns a negative ISOTIER_E* code (below) and, given
 * an isotier_error, fills it: code, errno, a message chain. Classes: the
 * caller's mistake (EINVAL), what the host lacks (EUNAVAILABLE, ENOTFOUND), a
 * refused claim (ECONFIG: the tier is not met, nothing was started), bad input
 * from outside (EDATA), the environment failing (EIO, ENOMEM, ETIMEDOUT,
 * EDB, EBUSY), the caller's cancellation (EINTR). Tell them apart by code
 * (and db_code), never by the message text.
 *
 * Versions. ISOTIER_VERSION_* are the header's, isotier_version() the running
 * library's. The ABI is libisotier.so.0, its symbols under the version node
 * ISOTIER_0. Structs the caller allocates carry a version: a library reads an
 * options struct of any version up to its own and refuses a newer one
 * (ISOTIER_EINVAL); it writes an isotier_error's fields of the caller's
 * version only.
 *
 * Cancellation: a cancel_fd is a descriptor that becomes readable (or hung
 * up) to mean "cancel", typically the read end of a pipe the application's
 * own SIGINT/SIGTERM handler writes one byte to. The library polls it and
 * never reads it, so once readable it cancels every call that watches it,
 * including later ones, until the application drains it or uses another.
 * A child running when it becomes readable is killed with its process group
 * and the call returns ISOTIER_EINTR; a call that finds it readable starts
 * nothing and returns ISOTIER_EINTR. Tear-down (isotier_sandbox_destroy)
 * ignores it. A value <= 0 means none, so a zero-initialised options struct
 * has no cancellation (fd 0, stdin, cannot be a cancel_fd). It must stay open
 * while any call that may use it runs.
 */
#ifndef ISOTIER_H
#define ISOTIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ISOTIER_VERSION       "0.1.0"
#define ISOTIER_VERSION_MAJOR 0
#define ISOTIER_VERSION_MINOR 1
#define ISOTIER_VERSION_PATCH 0

/* What libisotier exports: the library is built with hidden visibility, so
 * these declarations are its whole ABI (tests/integration/api_install.sh
 * checks the exported symbols against this header). */
#if defined(__GNUC__)
#define ISOTIER_PUBLIC __attribute__((visibility("default")))
#else
#define ISOTIER_PUBLIC
#endif

/* The running library's version ("0.1.0"; static) and, for each non-NULL
 * out-parameter, its numbers: compare them with ISOTIER_VERSION_* when the
 * header a program was built with may differ from the library it loads. */
ISOTIER_PUBLIC const char *isotier_version(int *major, int *minor, int *patch);

/* ---- tiers ------------------------------------------------------------ */

typedef enum isotier_tier {
	ISOTIER_UNKNOWN = 0,
	ISOTIER_CONTAINER = 1,
	ISOTIER_GVISOR = 2,
	ISOTIER_MICROVM = 3,
} isotier_tier;

/* "UNKNOWN", "CONTAINER", "GVISOR", "MICROVM"; never NULL. */
ISOTIER_PUBLIC const char *isotier_tier_name(isotier_tier tier);

/* Parses a tier name (case-insensitive). Returns 0 or ISOTIER_EINVAL. */
ISOTIER_PUBLIC int isotier_tier_parse(isotier_tier *out, const char *name);

/*
 * The rank of ADR-0018. A requirement of ISOTIER_UNKNOWN means "no
 * requirement" and is satisfied by anything; otherwise UNKNOWN satisfies
 * nothing and a known tier satisfies every requirement at or below its rank.
 */
ISOTIER_PUBLIC bool isotier_tier_satisfies(isotier_tier have, isotier_tier required);

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
	ISOTIER_EINTR = -10,       /* cancelled through the caller's cancel_fd */
	ISOTIER_ENOTFOUND = -11,   /* no such backend, provider or record (sys_errno ENOENT: a
	                              path that does not exist, e.g. the history database) */
	ISOTIER_EBUSY = -12,       /* the history database is locked by another process */
};

#define ISOTIER_ERROR_MESSAGE_MAX 2048

/*
 * An error: code, the errno of the failing system call (0 when none), and a
 * message chain, outermost context first ("create bwrap: write bundle: open
 * /tmp/x: Permission denied").
 *
 * Versioned so that it can grow: a later version adds fields at the end, and a
 * library writes only the fields of the version the caller's struct says (0,
 * a zero-initialised struct, is version 1). Start from ISOTIER_ERROR_INIT (or
 * {0}); the library never changes version.
 */
#define ISOTIER_ERROR_VERSION 1
#define ISOTIER_ERROR_INIT                                                                         \
	{                                                                                          \
		.version = ISOTIER_ERROR_VERSION                                                   \
	}

typedef struct isotier_error {
	unsigned int version; /* ISOTIER_ERROR_VERSION; 0 reads as 1 */
	int code;
	int sys_errno;
	char message[ISOTIER_ERROR_MESSAGE_MAX];
	/* For ISOTIER_EDB and ISOTIER_EBUSY: SQLite's extended result code
	 * (SQLITE_NOTADB, SQLITE_BUSY_SNAPSHOT...); 0 otherwise. Tell errors
	 * apart by these codes, never by the message text. */
	int db_code;
} isotier_error;

/* Name of an ISOTIER_E* code ("ECONFIG"...). */
ISOTIER_PUBLIC const char *isotier_strerror(int code);

/* ---- diagnostics ------------------------------------------------------- */

typedef enum isotier_log_level {
	ISOTIER_LOG_WARNING = 1, /* something best-effort failed: a span not exported, an
	                            audit event after the fact not written */
} isotier_log_level;

/*
 * The library never writes to stderr: what it has to say that is not an
 * error of the call goes to the handler given in isotier_create_opts (per
 * sandbox, not process-wide). NULL drops it.
 */
typedef void (*isotier_log_fn)(isotier_log_level level, const char *message, void *data);

/* ---- resolution ------------------------------------------------------- */

/*
 * The tier isotier can defend for a backend now, without creating anything:
 * what isotier_create decides before it provisions (the catalogue's claim,
 * only while its entry validates and its provider-published source is within
 * the max age, downgraded by the host's history: a contradiction, a proof that
 * is missing, stale or of another claim) and what `isotier backends` lists.
 * A result of ISOTIER_UNKNOWN is a result (0 returned), not an error; the
 * caller compares it with isotier_tier_satisfies. Any backend of the registry,
 * local or remote.
 *
 * Versioned as the other structs: a request of any version from 1 up to the
 * library's is read, a newer one (or 0) refused (ISOTIER_EINVAL); a result's
 * version says which fields the caller has (0 reads as 1), and one newer than
 * the library's is refused too, rather than leaving fields the caller would
 * read unwritten.
 */
#define ISOTIER_RESOLVE_REQUEST_VERSION 1
#define ISOTIER_RESOLVE_REQUEST_INIT                                                               \
	{                                                                                          \
		.version = ISOTIER_RESOLVE_REQUEST_VERSION                                         \
	}

typedef struct isotier_resolve_request {
	unsigned int version;      /* ISOTIER_RESOLVE_REQUEST_VERSION */
	const char *backend;       /* a backend of the registry (`isotier backends --names`) */
	const char *catalogue_dir; /* NULL: the built-in default catalogue path */
	const char *db_path;       /* as isotier_create_opts.db_path (NULL: the host's history;
	                              one named that does not exist is ISOTIER_ENOTFOUND,
	                              sys_errno ENOENT; never created) */
	int max_source_age_days;   /* 0: the runbook's default cadence */
	int require_verified_days; /* as isotier_create_opts.require_verified_days */
} isotier_resolve_request;

#define ISOTIER_RESOLVED_VERSION 1
#define ISOTIER_RESOLVED_INIT                                                                      \
	{                                                                                          \
		.version = ISOTIER_RESOLVED_VERSION                                                \
	}

typedef struct isotier_resolved {
	unsigned int version;    /* ISOTIER_RESOLVED_VERSION; 0 reads as 1 */
	isotier_tier tier;       /* the tier isotier can defend (UNKNOWN satisfies nothing) */
	isotier_tier claimed;    /* the catalogue's claim (UNKNOWN when none) */
	char provider_id[64];    /* its catalogue entry; "" when the backend has none */
	char mechanism[64];      /* the claimed mechanism ("gvisor"...) */
	char status[64];         /* "" (current) or "deprecated since DATE" */
	char latest_verdict[32]; /* of the newest judged observation counted; "" when none */
	char latest_at[32];      /* when it was made (UTC, ISO 8601); "" when none */
	char reason[1024];       /* why tier is below claimed, or what vouches for it */
} isotier_resolved;

ISOTIER_PUBLIC int isotier_resolve(isotier_resolved *out, const isotier_resolve_request *req,
                                   isotier_error *err);

/* ---- sandboxes -------------------------------------------------------- */

typedef struct isotier_sandbox isotier_sandbox;

/*
 * Option structs are versioned (libgit2's convention): start from the _INIT
 * macro, then set fields. A library reads a struct of any version from 1 up to
 * its own, only the fields that version has (a program built against an older
 * header keeps working), and refuses a version it does not know yet, or 0
 * (ISOTIER_EINVAL, the versions named in the message) instead of reading
 * fields the caller never had.
 */
#define ISOTIER_CREATE_OPTS_VERSION 2
#define ISOTIER_CREATE_OPTS_INIT                                                                   \
	{                                                                                          \
		.version = ISOTIER_CREATE_OPTS_VERSION                                             \
	}

typedef struct isotier_create_opts {
	unsigned int version;           /* ISOTIER_CREATE_OPTS_VERSION */
	const char *backend;            /* a local backend of the registry ("bwrap"; every
	                                   one: `isotier backends --names`) */
	isotier_tier require_isolation; /* ISOTIER_UNKNOWN: no requirement */
	const char *catalogue_dir;      /* NULL: the built-in default catalogue path */
	const char *db_path;            /* history database; audit events go there too. NULL:
	                                   the host's history, read only: $ISOTIER_DB, else
	                                   /var/lib/isotier/isotier.db (the one the runbook's
	                                   scheduled job writes), so a contradiction it recorded
	                                   is honoured by every create() on the host; when that
	                                   built-in file does not exist yet (ENOENT) nothing is
	                                   verified (then require_verified_days refuses); a
	                                   $ISOTIER_DB that does not exist is ISOTIER_ENOTFOUND,
	                                   and one that cannot be read (EACCES: join the isotier
	                                   group) ISOTIER_EIO with sys_errno. A db_path that does not
	                                   exist is ISOTIER_ENOTFOUND (sys_errno ENOENT) unless
	                                   create_db: never an empty database created as a side
	                                   effect */
	int max_source_age_days;        /* 0: the runbook's default cadence */
	int require_verified_days;      /* >0: the latest observation of the backend made on
	                                   this host (machine id) must be a CONFIRMED/CONSISTENT
	                                   proof of the catalogue's claim as it is now, this
	                                   recent: a newer INCONCLUSIVE, a changed claim, a row
	                                   dated after now refuse. With require_isolation
	                                   UNKNOWN the claim itself is the floor (a backend
	                                   without one is refused) */
	bool attest;                    /* run the probe inside after provisioning; fail closed */
	const char *rootfs;             /* NULL: read-only view of the host root */
	const char *probe_path;         /* NULL: the installed isotier-probe */
	const char *audit_log;          /* JSON Lines audit log, fsync'd; NULL: none */
	const char *otlp_endpoint;      /* OTLP/HTTP traces endpoint; NULL: none */
	const char *otlp_file;          /* OTLP/JSON spans file; NULL: none */
	int timeout_s;                  /* per child process; 0: 60 s */
	bool create_db;                 /* db_path may be created (audit events) when absent */
	isotier_log_fn log;             /* warnings (see isotier_log_fn); NULL: dropped */
	void *log_data;                 /* passed to log */
	int cancel_fd;                  /* cancels provisioning and attestation, and every exec
	                                   whose opts name none (see the top); <= 0: none */
	bool otlp_required;             /* false: a span that cannot be exported (file or
	                                   endpoint) costs a warning; true: it fails the
	                                   create, before anything is provisioned */
	/* Version 2. A require_isolation above CONTAINER is a claim about the sandbox the
	 * command runs in: without attest (a proof of this very sandbox: every exec runs
	 * in the probe's own process once its report attests the tier) it is refused,
	 * ISOTIER_ECONFIG, unless this asks for the weaker trust in the catalogue and the
	 * history alone (require_verified_days then says how recent). A version 1 struct
	 * cannot ask: it gets the refusal. */
	bool trust_history;
} isotier_create_opts;

ISOTIER_PUBLIC int isotier_create(isotier_sandbox **out, const isotier_create_opts *opts,
                                  isotier_error *err);

/*
 * A command's output as it arrives: stream 1 is stdout, 2 stderr. Called
 * while isotier_sandbox_exec runs (from its thread or a library thread),
 * one call at a time, never after it returns. Return 0 for more; anything else drops the
 * rest of the output (the command still runs to its end, never blocked on a
 * full pipe).
 */
typedef int (*isotier_output_fn)(int stream, const char *buf, size_t len, void *data);

/*
 * Version 2 added on_output and output_data; a program built against
 * version 1 (without them) keeps working: the library reads only the fields
 * of the version the struct says.
 */
#define ISOTIER_EXEC_OPTS_VERSION 2
/* stdin from /dev/null, stdout and stderr inherited, the sandbox's timeout. */
#define ISOTIER_EXEC_OPTS_INIT                                                                     \
	{                                                                                          \
		.version = ISOTIER_EXEC_OPTS_VERSION, .stdin_fd = -1, .stdout_fd = -1,             \
		.stderr_fd = -1                                                                    \
	}

typedef struct isotier_exec_opts {
	unsigned int version; /* ISOTIER_EXEC_OPTS_VERSION (1 is still accepted) */
	int stdin_fd;         /* -1: /dev/null */
	int stdout_fd;        /* -1: inherit; ignored when on_output is set */
	int stderr_fd;        /* -1: inherit; ignored when on_output is set */
	int timeout_s;        /* 0: the sandbox's default */
	int cancel_fd;        /* cancels this exec (see the top); <= 0: the create opts' one */
	/* Version 2: */
	isotier_output_fn on_output; /* NULL: stdout_fd and stderr_fd as above */
	void *output_data;           /* passed to on_output */
} isotier_exec_opts;

/* Runs argv (NULL-terminated) in the sandbox; *exit_status gets the command's
 * exit status (128+N when killed by signal N). ISOTIER_EINTR: cancelled, the
 * command killed; the sandbox stays usable for the next exec. opts NULL: the
 * defaults of ISOTIER_EXEC_OPTS_INIT. */
ISOTIER_PUBLIC int isotier_sandbox_exec(int *exit_status, isotier_sandbox *sandbox,
                                        const char *const *argv, const isotier_exec_opts *opts,
                                        isotier_error *err);

/* The tier this sandbox was resolved to (the tier we can defend). */
ISOTIER_PUBLIC isotier_tier isotier_sandbox_tier(const isotier_sandbox *sandbox);

/* "<isotier_sandbox backend=bwrap tier=CONTAINER id=...>"; valid until destroy. */
ISOTIER_PUBLIC const char *isotier_sandbox_repr(const isotier_sandbox *sandbox);

/* Tears the sandbox down and frees it; NULL is accepted. */
ISOTIER_PUBLIC void isotier_sandbox_destroy(isotier_sandbox *sandbox);

#ifdef __cplusplus
}
#endif

#endif /* ISOTIER_H */
