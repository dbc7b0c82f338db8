/* SPDX-License-Identifier: Apache-2.0 */
/*
 * create.c - isotier_create(): resolve the tier we can defend, refuse before
 * anything is provisioned when it does not satisfy require_isolation, and
 * carry the tier through every repr, audit event and span (ADR-0006).
 */
#include "../backends/collect.h"
#include "../history/history.h"
#include "../evidence/judge.h"
#include "../core/paths.h"
#include "../observation/observe.h"
#include "resolve.h"
#include "../core/telemetry.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

struct isotier_sandbox {
	const isotier_backend *backend;
	void *state;
	isotier_resolution res;
	isotier_tier required;
	/* What this sandbox's decisions leave the caller (audit records' effective_tier):
	 * res.resolved, UNKNOWN once an attestation failed. */
	isotier_tier effective;
	bool verified_floor; /* required is the claim require_verified_days verifies */
	isotier_telemetry tel;
	char id[17];
	char repr[512];
	int timeout_s;
	int cancel_fd; /* the create opts' (<= 0: none); not owned */
	/* attest: every exec runs in the probe's own process, after its report
	 * was judged (observe_bound.h); where the backend cannot (stdin read
	 * before the sandbox starts), the proof made at create() stands alone. */
	bool attest;
	/* Owned copies of the caller's telemetry paths. */
	char *audit_log, *db_path, *otlp_endpoint, *otlp_file;
};

static void event_for(isotier_event *ev, const isotier_sandbox *sb, const char *event,
                      const char *decision, const char *reason, uint64_t start_ns)
{
	*ev = (isotier_event){
	    .event = event,
	    .sandbox_id = sb->id[0] ? sb->id : NULL,
	    .backend = sb->backend->name,
	    .claimed = sb->res.claimed,
	    .resolved = sb->res.resolved,
	    .required = sb->required,
	    .effective = sb->effective,
	    .decision = decision,
	    .reason = reason,
	    .exit_status = -1,
	    .start_ns = start_ns,
	    .end_ns = isotier__now_ns(),
	};
}

/* Audit + span; returns the audit result (and the span's, when telemetry is
 * required) so provisioning can fail closed. */
static int emit(isotier_sandbox *sb, const isotier_event *ev, isotier_error *err)
{
	isotier_error serr = {0};
	int span_rc = isotier__span_emit(&sb->tel, ev, &serr);
	if (span_rc < 0 && !sb->tel.otlp_required)
		isotier__telemetry_warn(&sb->tel, "%s", serr.message);
	int rc = isotier__audit_emit(&sb->tel, ev, err);
	if (rc == 0 && span_rc < 0 && sb->tel.otlp_required) {
		*err = serr;
		rc = span_rc;
	}
	return rc;
}

static void emit_best_effort(isotier_sandbox *sb, const isotier_event *ev)
{
	isotier_error aerr = {0};
	if (emit(sb, ev, &aerr) < 0)
		isotier__telemetry_warn(&sb->tel, "audit: %s", aerr.message);
}

static void sandbox_free(isotier_sandbox *sb)
{
	if (!sb)
		return;
	isotier__telemetry_close(&sb->tel);
	free(sb->audit_log);
	free(sb->db_path);
	free(sb->otlp_endpoint);
	free(sb->otlp_file);
	free(sb);
}

static int dup_opt(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

/*
 * Runs the probe inside the provisioned sandbox and judges the catalogue's
 * claim with it, as verify would: one parser, one judge, the same kernel
 * comparison with this host. Fails closed: only a CONFIRMED, CONSISTENT or
 * EXCEEDS verdict whose ceiling reaches the resolved tier attests; a
 * low-confidence probe, an identity that cannot be compared under a VM
 * claim, or anything unparsable does not.
 */
/* Judges obs's one run against the sandbox's claim; 0 when it attests the
 * resolved tier, ISOTIER_ECONFIG (why says what it was) when not. */
static int judge_attest(const isotier_sandbox *sb, const isotier_observation *obs, char *why,
                        size_t why_len)
{
	judge_kernel kernel = {.relation = obs->relation,
	                       .detail = obs->relation_detail,
	                       .host = obs->host,
	                       .host_saw = obs->host_saw};
	judge_claim claim = {
	    .present = true, .tier = sb->res.claimed, .mechanism = sb->res.mechanism};
	judge_result jr;
	isotier__judge(&jr, &claim, &obs->run[0].probe, &kernel);
	bool verdict_ok = obs->run[0].parsed && isotier__verdict_is(jr.verdict, VERDICT_ATTESTS);
	bool ceiling_ok =
	    sb->res.resolved != ISOTIER_UNKNOWN &&
	    isotier_tier_satisfies(isotier__judge_ceiling_tier(jr.ceiling), sb->res.resolved);
	if (!obs->run[0].parsed)
		snprintf(why, why_len, "probe inside %s: no report isotier accepts (%.300s)",
		         sb->backend->name, obs->run[0].parse_err.message);
	else
		snprintf(why, why_len, "probe inside %s: %s, at most %s of its own (%.300s)",
		         sb->backend->name, isotier__verdict_name(jr.verdict),
		         isotier__probe_tier_name(jr.ceiling), jr.reason);
	return verdict_ok && ceiling_ok ? 0 : ISOTIER_ECONFIG;
}

static int attest(isotier_sandbox *sb, char *why, size_t why_len, isotier_error *err)
{
	isotier_observe_opts oopts = {.timeout_s = sb->timeout_s, .cancel_fd = sb->cancel_fd};
	isotier_observation obs;
	int rc = isotier__observe_in(&obs, sb->backend, sb->state, &oopts, err);
	if (rc < 0) {
		bool ran = obs.run[0].rc == 0;
		isotier__observation_clear(&obs);
		return isotier__error_prefix(err,
		                             ran ? "attest: probe output" : "attest: run probe");
	}
	rc = judge_attest(sb, &obs, why, why_len);
	isotier__observation_clear(&obs);
	return rc;
}

/* The bound exec's word: the command runs only when this run's own report
 * attests the tier (observe_bound.h). */
typedef struct bound_decision {
	const isotier_sandbox *sb;
	char why[512];
	bool go;
} bound_decision;

static bool decide_bound(void *p, const isotier_observation *obs)
{
	bound_decision *d = p;
	d->go = judge_attest(d->sb, obs, d->why, sizeof d->why) == 0;
	return d->go;
}

/* Whether execs of this sandbox run in the probe's own process. */
static bool exec_bound(const isotier_sandbox *sb)
{
	return sb->attest && !sb->backend->remote && !sb->backend->stdin_before_start;
}

/* An attested sandbox's exec: the probe first, the command in its process
 * only on a verdict that attests this very sandbox. */
static int exec_attested(int *exit_status, isotier_sandbox *sb, const char *const *argv,
                         const isotier_exec_opts *o, isotier_error *err)
{
	bound_decision d = {.sb = sb};
	isotier_bound_exec bx = {.argv = argv,
	                         .stdin_fd = o->stdin_fd,
	                         .stdout_fd = o->stdout_fd,
	                         .stderr_fd = o->stderr_fd,
	                         .decide = decide_bound,
	                         .ctx = &d};
	isotier_observe_opts oopts = {.timeout_s = o->timeout_s > 0 ? o->timeout_s : sb->timeout_s,
	                              .cancel_fd = o->cancel_fd > 0 ? o->cancel_fd : sb->cancel_fd,
	                              .bound = &bx};
	isotier_observation obs;
	int rc = isotier__observe_in(&obs, sb->backend, sb->state, &oopts, err);
	isotier__observation_clear(&obs);
	if (!bx.released) {
		/* Whatever else went wrong, the command did not run: that is the answer. */
		char cause[ISOTIER_ERROR_MESSAGE_MAX];
		snprintf(cause, sizeof cause, "%s", rc < 0 ? err->message : "no verdict");
		if (d.why[0])
			snprintf(cause, sizeof cause, "%s", d.why);
		return isotier__error_set(err, ISOTIER_ECONFIG, 0,
		                          "attestation failed: the command was not run: %s", cause);
	}
	*exit_status = bx.exit_status;
	/* The command ran; a failure after its word (its output could not be
	 * parsed as a probe's, say) is not the command's. */
	return rc < 0 && obs.run[0].rc < 0 ? rc : 0;
}

static void set_repr(isotier_sandbox *sb)
{
	snprintf(sb->repr, sizeof sb->repr,
	         "<isotier_sandbox id=%s backend=%s tier=%s claimed=%s required=%s>", sb->id,
	         sb->backend->name, isotier_tier_name(sb->res.resolved),
	         isotier_tier_name(sb->res.claimed), isotier_tier_name(sb->required));
}

static int refuse(isotier_sandbox *sb, uint64_t start, isotier_error *err)
{
	char msg[ISOTIER_ERROR_MESSAGE_MAX];
	if (sb->verified_floor && sb->required == ISOTIER_UNKNOWN)
		snprintf(msg, sizeof msg,
		         "backend %s has no claim to verify, and a verification within days is "
		         "required (require_verified_days): %s",
		         sb->backend->name, sb->res.reason);
	else
		snprintf(msg, sizeof msg,
		         "backend %s resolves to %s, weaker than the required %s%s: %s",
		         sb->backend->name, isotier_tier_name(sb->res.resolved),
		         isotier_tier_name(sb->required),
		         sb->verified_floor ? " (its claim, verified: require_verified_days)" : "",
		         sb->res.reason);
	isotier_event ev;
	event_for(&ev, sb, "refuse", "refused", msg, start);
	emit_best_effort(sb, &ev);
	return isotier__error_set(err, ISOTIER_ECONFIG, 0, "%s", msg);
}

static int refuse_unproven(isotier_sandbox *sb, uint64_t start, isotier_error *err)
{
	char msg[ISOTIER_ERROR_MESSAGE_MAX];
	snprintf(msg, sizeof msg,
	         "backend %s: requiring %s needs a proof of this sandbox (attest: the command "
	         "runs in the probe's own process once its report attests the tier) or, weaker, "
	         "an explicit trust in the catalogue and history alone (trust_history, "
	         "--trust-history); neither was asked for",
	         sb->backend->name, isotier_tier_name(sb->required));
	isotier_event ev;
	event_for(&ev, sb, "refuse", "refused", msg, start);
	/* Without a proof this request gets CONTAINER at most (isotier_create grants that). */
	if (ev.effective > ISOTIER_CONTAINER)
		ev.effective = ISOTIER_CONTAINER;
	emit_best_effort(sb, &ev);
	return isotier__error_set(err, ISOTIER_ECONFIG, 0, "%s", msg);
}

static int sandbox_new(isotier_sandbox **out, const isotier_backend *backend,
                       const isotier_create_opts *opts, isotier_error *err)
{
	isotier_sandbox *sb = calloc(1, sizeof *sb);
	if (!sb || dup_opt(&sb->audit_log, opts->audit_log) ||
	    dup_opt(&sb->db_path, opts->db_path) ||
	    dup_opt(&sb->otlp_endpoint, opts->otlp_endpoint) ||
	    dup_opt(&sb->otlp_file, opts->otlp_file)) {
		sandbox_free(sb);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "create: out of memory");
	}
	sb->backend = backend;
	sb->required = opts->require_isolation;
	sb->attest = opts->attest;
	sb->timeout_s = opts->timeout_s > 0 ? opts->timeout_s : 60;
	sb->cancel_fd = opts->cancel_fd > 0 ? opts->cancel_fd : -1;
	sb->tel = (isotier_telemetry){.audit_log = sb->audit_log,
	                              .db_path = sb->db_path,
	                              .otlp_endpoint = sb->otlp_endpoint,
	                              .otlp_file = sb->otlp_file,
	                              .log = opts->log,
	                              .log_data = opts->log_data,
	                              .otlp_required = opts->otlp_required};
	isotier__telemetry_init(&sb->tel);
	/* The sandbox id is the first half of its trace id: one name in logs and traces. */
	memcpy(sb->id, sb->tel.trace_id, 16);
	*out = sb;
	return 0;
}

int isotier_create(isotier_sandbox **out, const isotier_create_opts *opts, isotier_error *err)
{
	uint64_t start = isotier__now_ns();
	if (!out || !opts || !opts->backend)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "create: a backend name is required");
	/* Any version up to this library's (there is one so far); a newer one has fields this
	 * library would ignore, so it is refused rather than half-honoured. */
	if (opts->version < 1 || opts->version > ISOTIER_CREATE_OPTS_VERSION)
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "create: options version %u is not one this library (libisotier "
		    "%s) reads: 1 to %d (start from ISOTIER_CREATE_OPTS_INIT)",
		    opts->version, ISOTIER_VERSION, ISOTIER_CREATE_OPTS_VERSION);
	/* Only the fields of the caller's version are read; the rest keep
	 * ISOTIER_CREATE_OPTS_INIT's defaults. */
	static const size_t create_size_of_version[ISOTIER_CREATE_OPTS_VERSION + 1] = {
	    [1] = offsetof(isotier_create_opts, trust_history), [2] = sizeof(isotier_create_opts)};
	isotier_create_opts own = ISOTIER_CREATE_OPTS_INIT;
	memcpy(&own, opts, create_size_of_version[opts->version]);
	opts = &own;
	*out = NULL;
	if ((unsigned)opts->require_isolation > ISOTIER_MICROVM)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "create: require_isolation %d is not a tier",
		                          (int)opts->require_isolation);
	const isotier_backend *backend = isotier__backend_lookup(opts->backend);
	if (!backend)
		return isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                          "create: no backend named '%s'", opts->backend);
	/* A provider's sandboxes are observed by `isotier verify` (two at a
	 * time, compared with each other); running workloads in them is not
	 * what the remote backends are for yet. */
	if (backend->remote)
		return isotier__error_set(
		    err, ISOTIER_EUNAVAILABLE, 0,
		    "create: backend %s is remote: it is verified with `isotier "
		    "verify --backend %s`, not run",
		    backend->name, backend->name);
	/* A history that is not there is a wrong path, not an empty history:
	 * resolving without it would drop every contradiction it holds. No
	 * db_path: the host's default history (resolve.h), which may not exist
	 * yet: then nothing is verified, and require_verified_days refuses. */
	if (opts->db_path && !opts->create_db && !isotier__history_is_uri(opts->db_path)) {
		struct stat st;
		if (stat(opts->db_path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
			return isotier__error_set(
			    err, ISOTIER_ENOTFOUND, ENOENT,
			    "create: history database %s does not exist (run "
			    "`isotier verify` first, or ask for a new one: create_db, "
			    "`isotier run --new-db`)",
			    opts->db_path);
	}
	isotier_sandbox *sb = NULL;
	int rc = sandbox_new(&sb, backend, opts, err);
	if (rc < 0)
		return rc;
	isotier_resolve_opts ro = {.catalogue_dir = opts->catalogue_dir,
	                           .db_path = opts->db_path,
	                           .max_source_age_days = opts->max_source_age_days,
	                           .require_verified_days = opts->require_verified_days,
	                           .db_created = opts->create_db};
	if ((rc = isotier__resolve(&sb->res, backend, &ro, err)) < 0)
		goto fail;
	sb->effective = sb->res.resolved;
	/* require_verified_days alone is the strict policy, not "no floor": the
	 * floor is the claim it verifies (resolve_verified made the tier UNKNOWN
	 * unless this host's latest observation proves that claim within the
	 * days), and a backend with no claim has nothing to verify. */
	if (opts->require_verified_days > 0 && sb->required == ISOTIER_UNKNOWN) {
		sb->required = sb->res.claimed;
		sb->verified_floor = true;
	}
	set_repr(sb);
	/* The ADR's precondition: decided here, before anything is provisioned. */
	if ((sb->verified_floor && sb->res.resolved == ISOTIER_UNKNOWN) ||
	    !isotier_tier_satisfies(sb->res.resolved, sb->required)) {
		rc = refuse(sb, start, err);
		goto fail;
	}
	/* Above CONTAINER the tier is about the sandbox the command runs in: a
	 * proof of another one (the history's) is the weaker trust, and only
	 * when asked for by name (ADR-0019). */
	if (sb->required > ISOTIER_CONTAINER && !opts->attest && !opts->trust_history) {
		rc = refuse_unproven(sb, start, err);
		goto fail;
	}
	char why[512] = "";
	if (!backend->available(why, sizeof why)) {
		rc = isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0,
		                        "backend %s is not available: %s", backend->name, why);
		goto fail;
	}
	char probe[4096] = "";
	const char *probe_path = NULL;
	if (opts->attest) {
		if (opts->probe_path)
			probe_path = opts->probe_path;
		else if (isotier__default_probe_path(probe, sizeof probe) == 0)
			probe_path = probe;
		else {
			rc = isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
			                        "attest: isotier-probe not found");
			goto fail;
		}
	}
	isotier_event ev;
	event_for(&ev, sb, "create", "allowed", sb->res.reason, start);
	/* The audit trail must exist before the sandbox does: fail closed. */
	if ((rc = emit(sb, &ev, err)) < 0)
		goto fail;
	isotier_backend_spec spec = {.rootfs = opts->rootfs,
	                             .probe_path = probe_path,
	                             .timeout_s = sb->timeout_s,
	                             .cancel_fd = sb->cancel_fd};
	/* Backends name themselves and the step in their errors ("bwrap: provision: ..."). */
	if ((rc = backend->provision(&sb->state, &spec, err)) < 0)
		goto fail;
	if (opts->attest) {
		uint64_t astart = isotier__now_ns();
		rc = attest(sb, why, sizeof why, err);
		if (rc == ISOTIER_ECONFIG)
			rc = isotier__error_set(err, ISOTIER_ECONFIG, 0, "attestation failed: %s",
			                        why);
		if (rc < 0)
			sb->effective =
			    ISOTIER_UNKNOWN; /* the sandbox is destroyed: nothing granted */
		event_for(&ev, sb, "attest", rc < 0 ? "attestation-failed" : "attested",
		          rc < 0 ? err->message : why, astart);
		emit_best_effort(sb, &ev);
		if (rc < 0) {
			isotier_sandbox_destroy(sb); /* fail closed: the sandbox is gone */
			return rc;
		}
	}
	*out = sb;
	return 0;
fail:
	sandbox_free(sb);
	return rc;
}

int isotier_sandbox_exec(int *exit_status, isotier_sandbox *sb, const char *const *argv,
                         const isotier_exec_opts *opts, isotier_error *err)
{
	if (!sb || !argv || !argv[0] || !exit_status)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "exec: sandbox, argv and exit_status are required");
	/* Only the fields of the caller's version are read: a version 1 struct
	 * ends before on_output. */
	_Static_assert(offsetof(isotier_exec_opts, on_output) == 6 * sizeof(int),
	               "version 1 of isotier_exec_opts is six ints: its layout is ABI");
	/* The size of each version's struct: a library reads every version up to its own and
	 * refuses a newer one (its fields would be ignored). */
	static const size_t size_of_version[ISOTIER_EXEC_OPTS_VERSION + 1] = {
	    [1] = offsetof(isotier_exec_opts, on_output), [2] = sizeof(isotier_exec_opts)};
	isotier_exec_opts o = ISOTIER_EXEC_OPTS_INIT;
	if (opts && (opts->version < 1 || opts->version > ISOTIER_EXEC_OPTS_VERSION))
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "exec: options version %u is not one this library (libisotier "
		    "%s) reads: 1 to %d (start from ISOTIER_EXEC_OPTS_INIT)",
		    opts->version, ISOTIER_VERSION, ISOTIER_EXEC_OPTS_VERSION);
	if (opts)
		memcpy(&o, opts, size_of_version[opts->version]);
	uint64_t start = isotier__now_ns();
	isotier_exec_request req = {.argv = argv,
	                            .stdin_fd = o.stdin_fd,
	                            .stdout_fd = o.stdout_fd,
	                            .stderr_fd = o.stderr_fd,
	                            .timeout_s = o.timeout_s > 0 ? o.timeout_s : sb->timeout_s,
	                            .cancel_fd = o.cancel_fd > 0 ? o.cancel_fd : sb->cancel_fd};
	int rc;
	if (exec_bound(sb) && o.on_output)
		rc = isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "exec: an attested sandbox runs each command in the probe's "
		    "own process, with descriptors: on_output is not offered there");
	else if (exec_bound(sb))
		rc = exec_attested(exit_status, sb, argv, &o, err);
	else
		rc = o.on_output ? isotier__exec_stream(sb->backend, sb->state, &req, o.on_output,
		                                        o.output_data, exit_status, err)
		                 : sb->backend->exec(sb->state, &req, exit_status, err);
	char reason[600];
	snprintf(reason, sizeof reason, "%.200s%s", argv[0], rc < 0 ? ": " : "");
	if (rc < 0)
		snprintf(reason + strlen(reason), sizeof reason - strlen(reason), "%.390s",
		         err->message);
	isotier_event ev;
	event_for(&ev, sb, "exec", rc < 0 ? "failed" : "ok", reason, start);
	ev.exit_status = rc < 0 ? -1 : *exit_status;
	if (rc == ISOTIER_ECONFIG)
		ev.effective = ISOTIER_UNKNOWN; /* this run's attestation refused the command */
	emit_best_effort(sb, &ev);
	return rc;
}

isotier_tier isotier_sandbox_tier(const isotier_sandbox *sb)
{
	return sb ? sb->res.resolved : ISOTIER_UNKNOWN;
}

const char *isotier_sandbox_repr(const isotier_sandbox *sb)
{
	return sb ? sb->repr : "<isotier_sandbox NULL>";
}

void isotier_sandbox_destroy(isotier_sandbox *sb)
{
	if (!sb)
		return;
	uint64_t start = isotier__now_ns();
	if (sb->state)
		sb->backend->destroy(sb->state);
	sb->state = NULL;
	isotier_event ev;
	event_for(&ev, sb, "destroy", "ok", "", start);
	emit_best_effort(sb, &ev);
	sandbox_free(sb);
}
