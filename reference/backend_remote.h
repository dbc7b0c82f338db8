/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_remote.h - what the remote backends (a provider's sandboxes over
 * HTTP: backend_e2b.c, ...) share, on top of http.h and redact.h.
 *
 * - Configuration comes from the environment only: the credential variable
 *   (registered with redact.h before use), the endpoint (overridable), and
 *   the template/image. available() never touches the network.
 * - A per-run cap on sandboxes created per backend ($ISOTIER_REMOTE_MAX_SANDBOXES,
 *   default 2): a create whose outcome is unknown counts.
 * - The probe goes to ISOTIER_REMOTE_GUEST_DIR inside; isotier__remote_script()
 *   turns the exec request's argv (paths under ISOTIER_GUEST_DIR) into one
 *   shell command that makes the probe executable, makes the capture dir and
 *   runs it. The capture comes back in an explicit step, fetch():
 *   isotier__fetch_by_exec (artifacts.h), tar and base64 through exec().
 * - provision() may fail leaving *state non-NULL (a create whose outcome is
 *   unknown): the caller must then release() it, which looks for what that
 *   create made (by the run's nonce) and deletes it, or reports it leaked.
 */
#ifndef ISOTIER_BACKEND_REMOTE_H
#define ISOTIER_BACKEND_REMOTE_H

#include "backends/artifacts.h"
#include "backends/backend.h"
#include "core/http.h"
#include "../base/redact.h"

#include <cjson/cJSON.h>

#define ISOTIER_REMOTE_GUEST_DIR   "/tmp/isotier"
#define ISOTIER_REMOTE_DEFAULT_CAP 2

/* 1 when every required setting (backend.h) is set and non-empty, a secret
 * one at least 6 bytes (redact.c refuses shorter ones); else 0 and why names
 * the first missing one. */
int isotier__remote_configured(const isotier_backend_setting *settings, char *why, size_t why_len);

/* $env if set (must be http:// or https://, no trailing '/'), else dflt. */
int isotier__remote_endpoint(char *out, size_t len, const char *env, const char *dflt,
                             isotier_error *err);

/* $env if set and valid (isotier__remote_setting_valid), else dflt. */
const char *isotier__remote_setting(const char *env, const char *dflt);
/* A setting a request body may carry: 1 to 200 of [A-Za-z0-9._:/@-]. */
bool isotier__remote_setting_valid(const char *v);

/* Counts one more sandbox create for backend; ISOTIER_ECONFIG past the cap. */
int isotier__remote_reserve(const char *backend, isotier_error *err);
/* A new run in this process: every backend's count starts again at 0
 * (tests/fuzz/fuzz_remote_adapters.c runs one per input). */
void isotier__remote_reserve_reset(void);

/* A random nonce (hex) naming this run's creates, for listing them back. */
void isotier__remote_nonce(char *out, size_t len);

/* How long a request may take: ms, bounded by the spec's deadline (which
 * the request also gets). */
int64_t isotier__remote_budget_ms(int64_t deadline_ms, int64_t want_ms);

/*
 * Cancellation (backend.h): provision() watches spec->cancel_fd and keeps it
 * in the state; exec() watches isotier__remote_cancel_fd(kept, req); the
 * requests of release()/destroy() (a DELETE, a sweep by nonce) are cleanup
 * requests (http.h) that ignore it, so an interrupted run still deletes its
 * sandboxes.
 */
/* The request's cancel descriptor when > 0, else kept; -1 when neither. */
int isotier__remote_cancel_fd(int kept, const isotier_exec_request *req);
/* Sleeps ms, waking within 100 ms of cancel_fd becoming readable (then false). */
bool isotier__remote_sleep_ms(int cancel_fd, int64_t ms);

/* The sh -c script for an exec request (see above); malloc'd. stderr_to: a
 * guest path the command's stderr goes to (for providers that mix the two
 * streams), NULL: left alone. */
int isotier__remote_script(char **out, const isotier_exec_request *req, const char *stderr_to,
                           isotier_error *err);

/* Appends s single-quoted for sh to *buf (malloc'd, grown). */
int isotier__remote_shell_quote(char **buf, const char *s);

/* Hands one chunk of a command's output (stream 1 stdout, 2 stderr),
 * credentials redacted, to req->on_output when set, else writes it whole to
 * the stream's descriptor (-1: dropped). ISOTIER_ENOMEM when the chunk
 * could not be redacted (never passed on unredacted, never lost silently). */
int isotier__remote_relay(const isotier_exec_request *req, int stream, const char *buf, size_t len,
                          isotier_error *err);

/* A provider's sandbox id: 1..128 of [A-Za-z0-9._-], neither "." nor "..". */
bool isotier__remote_id_valid(const char *id);

/* What every remote backend keeps of a run, first in its state. */
typedef struct isotier_remote_run {
	char api[512];   /* the endpoint */
	const char *key; /* the credential (registered with redact.h) */
	char nonce[32];  /* names this run's creates */
	bool created;    /* the sandbox's id is known */
	bool unknown;    /* a create whose outcome is unknown */
	bool attached;   /* the caller's sandbox (attach()): never deleted, never leased */
	int64_t deadline_ms;
	int timeout_s;
	int cancel_fd; /* the spec's (<= 0: none); not owned */
} isotier_remote_run;

/* provision()'s start: r from spec (timeout_s 60 when unset, a fresh nonce),
 * the credential from $key_env, the endpoint from $url_env (default dflt).
 * ISOTIER_ECONFIG when the credential is unusable or the endpoint bad. */
int isotier__remote_run_init(isotier_remote_run *r, const isotier_backend_spec *spec,
                             const char *key_env, const char *url_env, const char *dflt,
                             isotier_error *err);

/*
 * The steps every remote backend's provision(), exec() and release() share.
 * name is the backend's ("e2b"), the prefix of every message.
 */

/* provision()'s checks before any state: available(), a probe path shorter
 * than probe_max, not cancelled already. */
int isotier__remote_provision_check(const char *name, int (*available)(char *, size_t),
                                    const isotier_backend_spec *spec, size_t probe_max,
                                    isotier_error *err);

/* The sandbox's lifetime in seconds: what is left of the run (3 x timeout_s
 * without a deadline) plus a minute. */
int64_t isotier__remote_ttl_s(int64_t deadline_ms, int timeout_s);

/* A create answered with an unexpected status: 401/403 ISOTIER_ECONFIG,
 * else ISOTIER_EIO. */
int isotier__remote_create_error(isotier_error *err, const char *what,
                                 const isotier_http_response *resp);

/* Whether a create that failed with rc may still have made something: timed
 * out, cancelled, or sent with no answer or a 5xx (a 429 made nothing). */
bool isotier__remote_outcome_unknown(int rc, const isotier_http_response *resp);

/* A create's 200/201 answer: the id at doc.key (doc.obj.key when obj) into
 * id and *made; an answer without one sets *unknown (something answered:
 * it is looked for by nonce) and fails. */
int isotier__remote_created_id(const isotier_http_response *resp, const char *what, const char *obj,
                               const char *key, char *id, size_t id_len, bool *made, bool *unknown,
                               isotier_error *err);

/* provision()'s end: 0 hands state to *out. On error rc, err is prefixed
 * "NAME: provision[ KIND ID]" and state goes to *out when something may
 * exist (r->created or r->unknown: the caller's release() deletes or sweeps
 * it), else it is freed. Returns rc. */
int isotier__remote_provision_end(void **out, void *state, const isotier_remote_run *r, int rc,
                                  const char *name, const char *kind, const char *id,
                                  isotier_error *err);

/*
 * attach() (backend.h) shares these. attach_begin: available(), a probe
 * path shorter than probe_max, the id valid (ISOTIER_EINVAL naming it,
 * before any request), not cancelled; then r configured as run_init does,
 * marked attached (release() only frees it). attach_status: a lookup's
 * answer other than 200: 404 (and 410) ISOTIER_ENOTFOUND "no sandbox ID",
 * 401/403 ISOTIER_ECONFIG, else ISOTIER_EIO. attach_end: 0 hands state to
 * *out; on error it is freed (the sandbox is the caller's: nothing to
 * release) and err prefixed "NAME: attach ID".
 */
int isotier__remote_attach_begin(isotier_remote_run *r, const char *name,
                                 int (*available)(char *, size_t), const isotier_backend_spec *spec,
                                 size_t probe_max, const char *id, const char *key_env,
                                 const char *url_env, const char *dflt, isotier_error *err);
int isotier__remote_attach_status(isotier_error *err, const char *what, const char *id,
                                  const isotier_http_response *resp);
int isotier__remote_attach_end(void **out, void *state, int rc, const char *name, const char *id,
                               isotier_error *err);
/* like (backend.h: spec->like) when set and a valid setting (the charset of
 * isotier__remote_setting), else $env's setting, else dflt. */
const char *isotier__remote_like(const isotier_backend_spec *spec, const char *env,
                                 const char *dflt);

/* Before a create: the run's lease (lease.h) naming the backend and the
 * nonce its creates carry, so a run that dies before release() has its
 * sandboxes swept by the next (backend.h's sweep_run). release() drops it
 * once nothing is left. */
int isotier__remote_lease(const isotier_remote_run *r, const char *backend, isotier_error *err);

/* sweep_run()'s start: r configured as run_init does (no deadline, no
 * cancel), its nonce the dead run's; ISOTIER_EUNAVAILABLE when the endpoint
 * configured here is not api, the one the dead run used. The adapter then
 * calls its own sweep. */
int isotier__remote_sweep_run(isotier_remote_run *r, const char *nonce, const char *api,
                              const char *key_env, const char *url_env, const char *dflt,
                              isotier_error *err);

/* Performs req in r's run: its deadline and cancel_fd; a cleanup request
 * (release(), destroy(): a DELETE, a sweep) has neither. */
int isotier__remote_perform(const isotier_remote_run *r, isotier_http_request *req, bool cleanup,
                            int cancel_fd, isotier_http_response *resp, isotier_error *err);

/* release(): deletes the sandbox id through del when r->created, sweeps
 * (looks for a create's work by nonce) when r->unknown; frees state. */
int isotier__remote_release(void *state, const isotier_remote_run *r, const char *id,
                            int (*del)(void *, const char *, isotier_error *),
                            int (*sweep)(void *, isotier_error *), isotier_error *err);

/* POSTs the probe as multipart field "file" to BASE?path=<the guest probe
 * path> with hdrs; repeated on a 5xx (an upload overwrites). resp is always
 * filled (cleared: empty). */
int isotier__remote_upload_probe(const char *base, const char *const *hdrs, const char *probe,
                                 int64_t deadline_ms, int cancel_fd, isotier_http_response *resp,
                                 isotier_error *err);

/* A request's JSON answer: unless *rc is set already, a status other than
 * status is an error (what), a body that is no JSON too (doc_what). resp is
 * cleared; the document (NULL, *rc set, on error) is the caller's. */
cJSON *isotier__remote_answer(int *rc, isotier_http_response *resp, long status, const char *what,
                              const char *doc_what, isotier_error *err);

/* A command's exit code as the provider reported it (code: a JSON number,
 * field its name): carried whole into *exit_status. One outside 0-255, negative
 * or fractional is ISOTIER_EDATA naming the provider and the value, never
 * reduced (256 & 0xff would read as success). */
int isotier__remote_exit_code(const char *provider, const char *field, const cJSON *code,
                              int *exit_status, isotier_error *err);

/* One listed item of a sweep: deleted by id through del (a missing or invalid
 * id is ISOTIER_EDATA, bad saying what); the first failure goes to *first and
 * err, the sweep goes on. */
void isotier__remote_sweep_one(void *state, const cJSON *id,
                               int (*del)(void *, const char *, isotier_error *), const char *bad,
                               int *first, isotier_error *err);

/* exec()'s start: *exit_status -1, *cancel_fd (isotier__remote_cancel_fd),
 * ISOTIER_EINTR when cancelled already, else the script into *script
 * (isotier__remote_script; malloc'd). */
int isotier__remote_exec_begin(const char *name, int kept, const isotier_exec_request *req,
                               const char *stderr_to, int *exit_status, int *cancel_fd,
                               char **script, isotier_error *err);

#endif
