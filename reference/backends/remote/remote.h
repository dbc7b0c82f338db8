/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remote.h - the remote engine: a provider's sandboxes over HTTP, on top of
 * http.h and redact.h. A provider is a data row (isotier_remote_provider:
 * its settings, endpoint, auth header, routes, where its answers keep the
 * id) plus the few functions only its protocol needs (the row's ops: the
 * create body, the probe's upload, one command); remote.c runs the rest of
 * the lifecycle for every provider alike (configuration, the per-run cap,
 * the lease, the create and what an unknown outcome means, attach, delete,
 * the sweep by nonce, release). A new provider is one file here (its row,
 * its ops, ISOTIER_REMOTE_BACKEND) plus one line in backends.c.
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
#ifndef ISOTIER_REMOTE_H
#define ISOTIER_REMOTE_H

#include "../artifacts.h"
#include "../backend.h"
#include "../../core/http.h"
#include "../../../base/redact.h"

#include <cjson/cJSON.h>

#define ISOTIER_REMOTE_GUEST_DIR   "/tmp/isotier"
#define ISOTIER_REMOTE_DEFAULT_CAP 2

/* The settings row every provider has (the per-run cap, read here). */
#define ISOTIER_REMOTE_SETTING_CAP                                                                 \
	{                                                                                          \
		.env = "ISOTIER_REMOTE_MAX_SANDBOXES",                                             \
		.meaning = "sandboxes one run may create for this provider, 0..100 (default 2)"    \
	}

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

typedef struct isotier_remote_provider isotier_remote_provider;

/* What every remote backend keeps of a run, first in its state. */
typedef struct isotier_remote_run {
	const isotier_remote_provider *p;
	char api[512];   /* the endpoint */
	char base[640];  /* what a route follows: api, and the provider's scope (Fly's app) */
	char query[160]; /* what every request's query carries (Vercel's teamId=); "" none */
	const char *key; /* the credential (registered with redact.h) */
	char nonce[32];  /* names this run's creates */
	char id[130];    /* the sandbox's (session's, machine's) id once known */
	char probe[4096];
	bool created;  /* the sandbox's id is known */
	bool unknown;  /* a create whose outcome is unknown */
	bool attached; /* the caller's sandbox (attach()): never deleted, never leased */
	int64_t deadline_ms;
	int timeout_s;
	int cancel_fd; /* the spec's (<= 0: none); not owned */
} isotier_remote_run;

/*
 * The protocol body: what only this provider's API needs. Each gets the
 * run (first in the adapter's state, state_size bytes) and fills err.
 */
typedef struct isotier_remote_ops {
	/* One line for available() once configured ("E2B, template base"). */
	void (*about)(char *why, size_t why_len);
	/* provision(): the create request's JSON body (malloc'd); NULL and err
	 * on error, before anything is reserved or sent. */
	char *(*create_body)(isotier_remote_run *r, const isotier_backend_spec *spec,
	                     isotier_error *err);
	/* Optional: reads a create's answer (one of create_status, parsed)
	 * into r->id and r->created (once an id is known, even when the rest
	 * is bad: it exists, it is deleted); NULL: the id at
	 * create_obj.create_id. */
	int (*created)(isotier_remote_run *r, const cJSON *doc, isotier_error *err);
	/* Optional: after a create, until the sandbox runs (bounded by the
	 * run's deadline and cancel_fd). */
	int (*ready)(isotier_remote_run *r, isotier_error *err);
	/* attach(): the lookup's 200 answer (parsed): r->id's, running (or
	 * waited for); what it was made from into like ("" when not said). */
	int (*attached)(isotier_remote_run *r, const cJSON *doc, char *like, size_t like_len,
	                isotier_error *err);
	/* The probe (r->probe) to ISOTIER_REMOTE_GUEST_DIR/isotier-probe: after
	 * a create (unless probe_in_create) and after attach. */
	int (*upload)(isotier_remote_run *r, isotier_error *err);
	/* One command: script for sh -c (isotier__remote_script), its output
	 * through isotier__remote_relay, its status into *exit_status. The
	 * engine prefixes an error "NAME: exec in KIND ID". */
	int (*exec)(isotier_remote_run *r, const isotier_exec_request *req, const char *script,
	            int cancel_fd, int timeout_s, int *exit_status, isotier_error *err);
} isotier_remote_ops;

/* An environment variable and where its value goes. */
typedef struct isotier_remote_env {
	const char *env;
	const char *before; /* the text before the value ("/apps/", "teamId=") */
} isotier_remote_env;

/* The data row: everything about a provider that is not protocol. */
struct isotier_remote_provider {
	const char *name; /* the backend's ("e2b"), every message's prefix */
	const char *kind; /* what the provider calls one ("sandbox", "machine") */
	const isotier_backend_setting *settings; /* the descriptor's */
	const char *key_env;                     /* the credential */
	const char *url_env, *url_default;       /* the endpoint */
	/* Further required settings that go into URLs and bodies: each must be
	 * an id (isotier__remote_id_valid), else the backend is unavailable. */
	const char *id_envs[3];
	isotier_remote_env scope; /* every route follows api + before + $env */
	isotier_remote_env query; /* every request's query carries before + $env */
	const char *auth;         /* the credential's header, before it */
	const char *json_header;  /* one more header of a request with a body */
	size_t max_body;          /* an answer's bound; 0: http.h's */
	size_t state_size;        /* the adapter's state, the run first */
	const char *stderr_to;    /* where a command's stderr goes (mixed streams) */
	/* The create: POST path; the statuses that say one was made; where its
	 * id is (the default reader: obj.id, or id); the probe inside it (no
	 * upload after it). */
	struct {
		const char *path;
		long status[2];
		const char *obj, *id;
		bool probe_inside;
	} create;
	const char *lookup; /* attach(): GET this route, %s the id */
	/* Delete: method path (%s the id) with body; the statuses that say it
	 * is gone (404 among them). */
	struct {
		const char *method, *path, *body;
		long ok[3];
	} del;
	/* The sweep by nonce: GET path?filter (its one %s the nonce, or $env
	 * when set; what follows the first '=' escaped); the array at key (NULL:
	 * the answer); an item is the run's when the string at mine (a path;
	 * {NULL}: every listed one) is prefix + nonce; its id at id. */
	struct {
		const char *path, *filter, *env, *key, *id;
		const char *mine[4];
		const char *prefix;
	} list;
	const isotier_remote_ops ops;
};

/*
 * The engine (remote.c): a backend's operations, from its row. A provider's
 * file ends with ISOTIER_REMOTE_BACKEND, which defines its descriptor over
 * these; exec(), release() and destroy() find the row in the state.
 */
int isotier__remote_available(const isotier_remote_provider *p, char *why, size_t why_len);
int isotier__remote_provision(const isotier_remote_provider *p, void **out,
                              const isotier_backend_spec *spec, isotier_error *err);
int isotier__remote_attach(const isotier_remote_provider *p, void **out,
                           const isotier_backend_spec *spec, const char *id, char *like,
                           size_t like_len, isotier_error *err);
int isotier__remote_sweep_dead(const isotier_remote_provider *p, const char *nonce, const char *api,
                               isotier_error *err);
int isotier__remote_exec(void *state, const isotier_exec_request *req, int *exit_status,
                         isotier_error *err);
int isotier__remote_release_state(void *state, isotier_error *err);
void isotier__remote_destroy(void *state);

/* The descriptor isotier__backend_NAME (NAME an identifier, the backend's
 * name too) from the file's row NAME_provider and its NAME_settings; the
 * rest (catalogue_id, description, describe) follows as designated
 * initializers. */
#define ISOTIER_REMOTE_BACKEND(NAME, ...)                                                          \
	static int NAME##_available(char *why, size_t why_len)                                     \
	{                                                                                          \
		return isotier__remote_available(&NAME##_provider, why, why_len);                  \
	}                                                                                          \
	static int NAME##_provision(void **out, const isotier_backend_spec *spec,                  \
	                            isotier_error *err)                                            \
	{                                                                                          \
		return isotier__remote_provision(&NAME##_provider, out, spec, err);                \
	}                                                                                          \
	static int NAME##_attach(void **out, const isotier_backend_spec *spec, const char *id,     \
	                         char *like, size_t like_len, isotier_error *err)                  \
	{                                                                                          \
		return isotier__remote_attach(&NAME##_provider, out, spec, id, like, like_len,     \
		                              err);                                                \
	}                                                                                          \
	static int NAME##_sweep_run(const char *nonce, const char *api, isotier_error *err)        \
	{                                                                                          \
		return isotier__remote_sweep_dead(&NAME##_provider, nonce, api, err);              \
	}                                                                                          \
	const isotier_backend isotier__backend_##NAME = {.version = ISOTIER_BACKEND_VERSION,       \
	                                                 .name = #NAME,                            \
	                                                 .settings = NAME##_settings,              \
	                                                 .remote = true,                           \
	                                                 .delivers_output = true,                  \
	                                                 .available = NAME##_available,            \
	                                                 .provision = NAME##_provision,            \
	                                                 .exec = isotier__remote_exec,             \
	                                                 .destroy = isotier__remote_destroy,       \
	                                                 .release = isotier__remote_release_state, \
	                                                 .sweep_run = NAME##_sweep_run,            \
	                                                 .fetch = isotier__fetch_by_exec,          \
	                                                 .attach = NAME##_attach,                  \
	                                                 __VA_ARGS__}

/* One request of the run: the method, a route after r->base (or a whole URL
 * when it starts with "http"), the provider's auth header and query. */
typedef struct isotier_remote_call {
	const char *method, *path;
	const char *query; /* after the provider's own; NULL: none */
	const char *body;
	size_t body_len;   /* 0: strlen(body) */
	const char *ctype; /* NULL: application/json with a body */
	const char *extra; /* one more header; NULL: none */
	bool retry_5xx;
	bool cleanup; /* release(), a sweep: no deadline, no cancel_fd */
	int cancel_fd;
	int64_t timeout_ms;
} isotier_remote_call;
int isotier__remote_call(const isotier_remote_run *r, const isotier_remote_call *c,
                         isotier_http_response *resp, isotier_error *err);

/* c with body (when not NULL: printed, and deleted) as its JSON body; the
 * answer as isotier__remote_answer reads it (200, what, doc_what): the
 * document, or NULL and *rc. */
cJSON *isotier__remote_json(const isotier_remote_run *r, isotier_remote_call *c, cJSON *body,
                            const char *what, const char *doc_what, int *rc, isotier_error *err);

/* The request's answer: unless *rc is set already, a status other than
 * status is an error (what), a body that is no JSON too (doc_what). resp is
 * cleared; the document (NULL, *rc set, on error) is the caller's. */
cJSON *isotier__remote_answer(int *rc, isotier_http_response *resp, long status, const char *what,
                              const char *doc_what, isotier_error *err);

/* A JSON answer's field by path (NULL-terminated names): the item when it
 * is of type (cJSON_String, cJSON_Number, ... ; cJSON_Invalid: any), else
 * NULL. */
const cJSON *isotier__remote_field(const cJSON *doc, const char *const *path, int type);

/* {args_key: ["-c", script]} added to obj (with cmd_key: "/bin/sh" when
 * not NULL; as one array ["/bin/sh", "-c", script] when args_key is
 * command); false when out of memory. */
bool isotier__remote_sh_args(cJSON *obj, const char *cmd_key, const char *args_key,
                             const char *script);
/* obj printed (valid UTF-8) and deleted; NULL and err when out of memory. */
char *isotier__remote_print(cJSON *obj, isotier_error *err);

/* The sandbox's lifetime in seconds: what is left of the run (3 x timeout_s
 * without a deadline) plus a minute. */
int64_t isotier__remote_ttl_s(int64_t deadline_ms, int timeout_s);

/* like (backend.h: spec->like) when set and a valid setting (the charset of
 * isotier__remote_setting), else $env's setting, else dflt. */
const char *isotier__remote_like(const isotier_backend_spec *spec, const char *env,
                                 const char *dflt);

/* A create answered with an unexpected status: 401/403 ISOTIER_ECONFIG,
 * else ISOTIER_EIO. */
int isotier__remote_create_error(isotier_error *err, const char *what,
                                 const isotier_http_response *resp);

/* Whether a create that failed with rc may still have made something: timed
 * out, cancelled, or sent with no answer or a 5xx (a 429 made nothing). */
bool isotier__remote_outcome_unknown(int rc, const isotier_http_response *resp);

/* A create's answer: the id at doc.key (doc.obj.key when obj) into id and
 * *made; an answer without one sets *unknown (something answered: it is
 * looked for by nonce) and fails. */
int isotier__remote_created_id(const isotier_http_response *resp, const char *what, const char *obj,
                               const char *key, char *id, size_t id_len, bool *made, bool *unknown,
                               isotier_error *err);

/* POSTs the probe as multipart field "file" to BASE?path=<the guest probe
 * path> with hdrs; repeated on a 5xx (an upload overwrites). resp is always
 * filled (cleared: empty). */
int isotier__remote_upload_probe(const char *base, const char *const *hdrs, const char *probe,
                                 int64_t deadline_ms, int cancel_fd, isotier_http_response *resp,
                                 isotier_error *err);

/* A command's exit code as the provider reported it (code: a JSON number,
 * field its name): carried whole into *exit_status. One outside 0-255, negative
 * or fractional is ISOTIER_EDATA naming the provider and the value, never
 * reduced (256 & 0xff would read as success). */
int isotier__remote_exit_code(const char *provider, const char *field, const cJSON *code,
                              int *exit_status, isotier_error *err);

/* release(): deletes the sandbox id through del when r->created, sweeps
 * (looks for a create's work by nonce) when r->unknown; frees state; an
 * attached one is only freed. The lease is dropped once nothing is left. */
int isotier__remote_release(void *state, const isotier_remote_run *r, const char *id,
                            int (*del)(void *, const char *, isotier_error *),
                            int (*sweep)(void *, isotier_error *), isotier_error *err);

#endif
