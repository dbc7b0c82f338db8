/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remote.c - the remote engine: every provider's lifecycle from its row
 * (remote.h). What the providers' APIs share lives here once: the
 * configuration, the requests with their auth header and scope, the create
 * and what an unknown outcome means, attach, the delete, the sweep by nonce,
 * release; a provider's file keeps only its protocol (the row's ops).
 */
#include "remote.h"
#include "../../core/lease.h"
#include "../../core/proc.h"

#include <errno.h>
#include <string.h>

int isotier__remote_available(const isotier_remote_provider *p, char *why, size_t why_len)
{
	if (!isotier__remote_configured(p->settings, why, why_len))
		return 0;
	for (size_t i = 0; i < sizeof p->id_envs / sizeof p->id_envs[0] && p->id_envs[i]; i++) {
		if (!isotier__remote_id_valid(getenv(p->id_envs[i]))) {
			snprintf(why, why_len, "%s is not an id (1 to 128 of A-Z a-z 0-9 . _ -)",
			         p->id_envs[i]);
			return 0;
		}
	}
	p->ops.about(why, why_len);
	return 1;
}

/* r from spec (timeout_s 60 when unset, a fresh nonce), the credential from
 * the row's key_env, the endpoint from its url_env (default url_default).
 * ISOTIER_ECONFIG when the credential is unusable or the endpoint bad. */
static int run_init(isotier_remote_run *r, const isotier_backend_spec *spec, isotier_error *err)
{
	const isotier_remote_provider *p = r->p;
	r->key = isotier__secret_from_env(p->key_env);
	r->deadline_ms = spec->deadline_ms;
	r->timeout_s = spec->timeout_s > 0 ? spec->timeout_s : 60;
	r->cancel_fd = spec->cancel_fd > 0 ? spec->cancel_fd : -1;
	isotier__remote_nonce(r->nonce, sizeof r->nonce);
	if (!r->key)
		return isotier__error_set(err, ISOTIER_ECONFIG, 0, "%s is unusable", p->key_env);
	return isotier__remote_endpoint(r->api, sizeof r->api, p->url_env, p->url_default, err);
}

/* The base every route follows and the query every request carries, from
 * the row's scope and query settings: ids (they go into every URL). */
static int run_scope(isotier_remote_run *r, isotier_error *err)
{
	const isotier_remote_provider *p = r->p;
	const char *envs[] = {p->scope.env, p->query.env};
	for (size_t i = 0; i < 2; i++)
		if (envs[i] && !isotier__remote_id_valid(getenv(envs[i])))
			return isotier__error_set(err, ISOTIER_ECONFIG, 0, "%s: not an id",
			                          envs[i]);
	const char *scope = p->scope.env ? getenv(p->scope.env) : "";
	snprintf(r->base, sizeof r->base, "%s%s%s", r->api, p->scope.env ? p->scope.before : "",
	         scope);
	if (p->query.env)
		snprintf(r->query, sizeof r->query, "%s%s", p->query.before, getenv(p->query.env));
	return 0;
}

/* The checks before any state: available(), a probe path that fits, not
 * cancelled already. */
static int start(const isotier_remote_provider *p, const isotier_backend_spec *spec,
                 isotier_error *err)
{
	char why[256];
	if (!isotier__remote_available(p, why, sizeof why))
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s: %s", p->name, why);
	if (!spec->probe_path || strlen(spec->probe_path) >= sizeof((isotier_remote_run *)0)->probe)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s: a probe path is needed",
		                          p->name);
	if (isotier__cancelled(spec->cancel_fd))
		return isotier__error_set(err, ISOTIER_EINTR, 0, "%s: provision: cancelled",
		                          p->name);
	return 0;
}

/* After start()'s checks, the adapter's state (state_size, the run first),
 * configured from spec; NULL (*rc) when the checks or memory fail. */
static isotier_remote_run *run_new(const isotier_remote_provider *p,
                                   const isotier_backend_spec *spec, int *rc, isotier_error *err)
{
	*rc = start(p, spec, err);
	if (*rc)
		return NULL;
	isotier_remote_run *r = calloc(1, p->state_size > sizeof *r ? p->state_size : sizeof *r);
	if (!r) {
		*rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", p->name);
		return NULL;
	}
	r->p = p;
	snprintf(r->probe, sizeof r->probe, "%s", spec->probe_path);
	*rc = run_init(r, spec, err);
	if (!*rc)
		*rc = run_scope(r, err);
	return r;
}

/* "METHOD route" with %s read as {id}: what an error names. */
static void route_name(char *out, size_t len, const char *method, const char *route)
{
	const char *at = strstr(route, "%s");
	if (at)
		snprintf(out, len, "%s %.*s{id}%s", method, (int)(at - route), route, at + 2);
	else
		snprintf(out, len, "%s %s", method, route);
}

int isotier__remote_call(const isotier_remote_run *r, const isotier_remote_call *c,
                         isotier_http_response *resp, isotier_error *err)
{
	const isotier_remote_provider *p = r->p;
	const char *q1 = r->query, *q2 = c->query ? c->query : "";
	char url[1400], auth[700], ct[96];
	snprintf(url, sizeof url, "%s%s%s%s%s%s", strncmp(c->path, "http", 4) ? r->base : "",
	         c->path, *q1 || *q2 ? (strchr(c->path, '?') ? "&" : "?") : "", q1,
	         *q1 && *q2 ? "&" : "", q2);
	snprintf(auth, sizeof auth, "%s%s", p->auth, r->key);
	snprintf(ct, sizeof ct, "Content-Type: %s", c->ctype ? c->ctype : "application/json");
	const char *hdrs[5] = {auth};
	size_t n = 1;
	if (c->body || c->ctype)
		hdrs[n++] = ct;
	if (c->body && !c->ctype && p->json_header)
		hdrs[n++] = p->json_header;
	if (c->extra)
		hdrs[n++] = c->extra;
	isotier_http_request req = {
	    .method = c->method,
	    .url = url,
	    .headers = hdrs,
	    .body = c->body,
	    .body_len = c->body ? (c->body_len ? c->body_len : strlen(c->body)) : 0,
	    .timeout_ms = c->timeout_ms,
	    .retry_5xx = c->retry_5xx,
	    .max_body = p->max_body,
	    /* A cleanup request (a delete, a sweep) ignores cancel_fd and
	     * the run's deadline: an interrupted run still deletes. */
	    .deadline_ms = c->cleanup ? 0 : r->deadline_ms,
	    .cleanup = c->cleanup,
	    .cancel_fd = c->cleanup ? -1 : c->cancel_fd,
	};
	return isotier__http_perform(&req, resp, err);
}

cJSON *isotier__remote_json(const isotier_remote_run *r, isotier_remote_call *c, cJSON *body,
                            const char *what, const char *doc_what, int *rc, isotier_error *err)
{
	char *json = body ? isotier__remote_print(body, err) : NULL;
	if (body && !json) {
		*rc = err->code;
		return NULL;
	}
	if (json)
		c->body = json;
	isotier_http_response resp;
	*rc = isotier__remote_call(r, c, &resp, err);
	cJSON_free(json);
	c->body = NULL;
	return isotier__remote_answer(rc, &resp, 200, what, doc_what, err);
}

/* Deletes (stops) one sandbox of the run's provider by id. */
static int del_one(void *state, const char *id, isotier_error *err)
{
	const isotier_remote_run *r = state;
	const isotier_remote_provider *p = r->p;
	char path[300], what[300];
	snprintf(path, sizeof path, p->del.path, id);
	route_name(what, sizeof what, p->del.method, p->del.path);
	isotier_remote_call c = {.method = p->del.method,
	                         .path = path,
	                         .body = p->del.body,
	                         .retry_5xx = true,
	                         .cleanup = true,
	                         .timeout_ms = 15000};
	isotier_http_response resp;
	int rc = isotier__remote_call(r, &c, &resp, err);
	bool gone = false;
	for (size_t i = 0; i < sizeof p->del.ok / sizeof p->del.ok[0]; i++)
		gone |= p->del.ok[i] && resp.status == p->del.ok[i];
	if (!rc && !gone)
		rc = isotier__http_status_error(err, ISOTIER_EIO, what, &resp);
	isotier__http_response_clear(&resp);
	if (rc)
		return isotier__error_prefix(err, "%s %s %s may still exist", p->name, p->kind, id);
	return 0;
}

/* The list request's query: list_filter's %s the nonce (or $list_env), what
 * follows its first '=' escaped. */
static int list_query(const isotier_remote_run *r, char *q, size_t len, isotier_error *err)
{
	const isotier_remote_provider *p = r->p;
	const char *eq = p->list.filter ? strchr(p->list.filter, '=') : NULL;
	q[0] = '\0';
	if (!eq)
		return 0;
	const char *arg = p->list.env ? getenv(p->list.env) : r->nonce;
	char val[200];
	snprintf(val, sizeof val, eq + 1, arg ? arg : "");
	char *esc = isotier__http_escape(val);
	if (!esc)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	snprintf(q, len, "%.*s=%s", (int)(eq - p->list.filter), p->list.filter, esc);
	free(esc);
	return 0;
}

/* Whether a listed item is the run's: the string at the row's mine path is
 * mine_prefix + the nonce (every item, when the list was filtered by it). */
static bool listed_mine(const isotier_remote_run *r, const cJSON *item)
{
	const isotier_remote_provider *p = r->p;
	if (!p->list.mine[0])
		return true;
	const cJSON *v = isotier__remote_field(item, p->list.mine, cJSON_String);
	const char *pre = p->list.prefix ? p->list.prefix : "";
	size_t n = strlen(pre);
	return v && !strncmp(v->valuestring, pre, n) && !strcmp(v->valuestring + n, r->nonce);
}

/* A create whose outcome is unknown (or a dead run's): what carries the
 * run's nonce is listed and deleted; every item is tried, the first
 * failure returned. */
static int sweep(void *state, isotier_error *err)
{
	const isotier_remote_run *r = state;
	const isotier_remote_provider *p = r->p;
	char q[300], what[200];
	snprintf(what, sizeof what, "GET %s", p->list.path);
	int rc = list_query(r, q, sizeof q, err);
	if (rc)
		return rc;
	isotier_remote_call c = {.method = "GET",
	                         .path = p->list.path,
	                         .query = q[0] ? q : NULL,
	                         .retry_5xx = true,
	                         .cleanup = true,
	                         .timeout_ms = 15000};
	isotier_http_response resp;
	rc = isotier__remote_call(r, &c, &resp, err);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, what, what, err);
	const cJSON *list = p->list.key ? cJSON_GetObjectItemCaseSensitive(doc, p->list.key) : doc;
	if (!rc && !cJSON_IsArray(list))
		rc = isotier__error_set(err, ISOTIER_EDATA, 0, "%s: no %s array", what,
		                        p->list.key ? p->list.key : "top-level");
	int first = 0;
	const cJSON *it, *arr = rc ? NULL : list;
	cJSON_ArrayForEach(it, arr)
	{
		if (!listed_mine(r, it))
			continue;
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, p->list.id);
		isotier_error e = {0};
		int one =
		    cJSON_IsString(id) && isotier__remote_id_valid(id->valuestring)
		        ? del_one(state, id->valuestring, &e)
		        : isotier__error_set(&e, ISOTIER_EDATA, 0, "a listed %s without a valid %s",
		                             p->kind, p->list.id);
		if (one && !first) {
			first = one;
			if (err)
				*err = e;
		}
	}
	cJSON_Delete(doc);
	if (rc)
		return isotier__error_prefix(err,
		                             "%s: a create's outcome is unknown and its %s "
		                             "(isotier-nonce %s) may still exist",
		                             p->name, p->kind, r->nonce);
	return first;
}

/* Before a create: the run's lease (lease.h) naming the backend, the nonce
 * its creates carry and the endpoint (a later sweep asks only the same
 * one), so a run that dies before release() has its sandboxes swept by the
 * next. */
static int lease(const isotier_remote_run *r, isotier_error *err)
{
	isotier_lease l = {
	    .kind = "remote", .backend = r->p->name, .name = r->nonce, .path = r->api};
	if (isotier__lease_take(&l, r->nonce) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno,
		                          "%s: the run's lease could not be written, so no sandbox "
		                          "is created",
		                          r->p->name);
	return 0;
}

/* The create's answer (one of create_status): the row's reader or ops. */
static int read_created(isotier_remote_run *r, const isotier_http_response *resp, const char *what,
                        isotier_error *err)
{
	const isotier_remote_provider *p = r->p;
	if (!p->ops.created)
		return isotier__remote_created_id(resp, what, p->create.obj, p->create.id, r->id,
		                                  sizeof r->id, &r->created, &r->unknown, err);
	cJSON *doc = isotier__json_parse_strict(resp->body, resp->body_len, what, err);
	int rc = doc ? p->ops.created(r, doc, err) : err->code;
	cJSON_Delete(doc);
	return rc;
}

int isotier__remote_provision(const isotier_remote_provider *p, void **out,
                              const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	int rc;
	isotier_remote_run *r = run_new(p, spec, &rc, err);
	if (!r)
		return rc;
	/* Everything that can fail before the create fails before the cap
	 * counts it and before the lease. */
	char *body = rc ? NULL : p->ops.create_body(r, spec, err);
	if (!rc && !body)
		rc = err->code;
	if (!rc)
		rc = isotier__remote_reserve(p->name, err);
	if (!rc)
		rc = lease(r, err);
	if (rc) {
		cJSON_free(body);
		free(r);
		return isotier__error_prefix(err, "%s: provision", p->name);
	}
	char what[160];
	route_name(what, sizeof what, "POST", p->create.path);
	/* Never repeated blindly: a 5xx or a timeout leaves the outcome unknown. */
	isotier_remote_call c = {.method = "POST",
	                         .path = p->create.path,
	                         .body = body,
	                         .cancel_fd = r->cancel_fd,
	                         .timeout_ms = isotier__remote_budget_ms(r->deadline_ms, 60000)};
	isotier_http_response resp;
	rc = isotier__remote_call(r, &c, &resp, err);
	cJSON_free(body);
	/* The status says one was made even when its answer could not be read
	 * (too long, cut short). */
	bool made = resp.status &&
	            (resp.status == p->create.status[0] || resp.status == p->create.status[1]);
	if (!rc && made)
		rc = read_created(r, &resp, what, err);
	else if (!rc)
		rc = isotier__remote_create_error(err, what, &resp);
	/* An answer that made one we cannot name: it is looked for by nonce. */
	r->unknown = !r->created && (made || isotier__remote_outcome_unknown(rc, &resp));
	isotier__http_response_clear(&resp);
	if (!rc && p->ops.ready)
		rc = p->ops.ready(r, err);
	if (!rc && !p->create.probe_inside)
		rc = p->ops.upload(r, err);
	if (!rc) {
		*out = r;
		return 0;
	}
	if (r->created)
		isotier__error_prefix(err, "%s: provision %s %s", p->name, p->kind, r->id);
	else
		isotier__error_prefix(err, "%s: provision", p->name);
	if (r->created || r->unknown) {
		*out = r; /* the caller's release() deletes or sweeps it */
	} else {
		isotier__lease_drop("remote", r->nonce); /* nothing was made */
		free(r);
	}
	return rc;
}

/* attach()'s lookup: GET lookup_path; 404 (and 410) ISOTIER_ENOTFOUND,
 * 401/403 ISOTIER_ECONFIG, another status ISOTIER_EIO; a 200 goes to the
 * row's attached(). */
static int lookup(isotier_remote_run *r, char *like, size_t like_len, isotier_error *err)
{
	const isotier_remote_provider *p = r->p;
	char path[300], what[300];
	snprintf(path, sizeof path, p->lookup, r->id);
	route_name(what, sizeof what, "GET", p->lookup);
	isotier_remote_call c = {.method = "GET",
	                         .path = path,
	                         .retry_5xx = true,
	                         .cancel_fd = r->cancel_fd,
	                         .timeout_ms = isotier__remote_budget_ms(r->deadline_ms, 15000)};
	isotier_http_response resp;
	int rc = isotier__remote_call(r, &c, &resp, err);
	if (!rc && (resp.status == 404 || resp.status == 410))
		rc = isotier__error_set(err, ISOTIER_ENOTFOUND, 0,
		                        "%s: no sandbox %s (HTTP %ld): not one this account "
		                        "can reach, or no longer running",
		                        what, r->id, resp.status);
	else if (!rc && resp.status != 200)
		rc = isotier__remote_create_error(err, what, &resp);
	cJSON *doc = isotier__remote_answer(&rc, &resp, 200, what, what, err);
	if (!rc)
		rc = p->ops.attached(r, doc, like, like_len, err);
	cJSON_Delete(doc);
	return rc;
}

int isotier__remote_attach(const isotier_remote_provider *p, void **out,
                           const isotier_backend_spec *spec, const char *id, char *like,
                           size_t like_len, isotier_error *err)
{
	*out = NULL;
	like[0] = '\0';
	/* Checked before anything else: the id goes into a URL path. */
	if (!isotier__remote_id_valid(id))
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "%s: sandbox id '%.40s%s': 1 to 128 of A-Z a-z 0-9 . _ - "
		                          "expected (not . or ..)",
		                          p->name, id ? id : "",
		                          id && strlen(id) > 40 ? "..." : "");
	int rc;
	isotier_remote_run *r = run_new(p, spec, &rc, err);
	if (!r)
		return rc;
	r->attached = true; /* the caller's: release() only frees the state */
	snprintf(r->id, sizeof r->id, "%s", id);
	if (!rc)
		rc = lookup(r, like, like_len, err);
	if (!rc)
		rc = p->ops.upload(r, err);
	if (!rc) {
		*out = r;
		return 0;
	}
	free(r);
	return isotier__error_prefix(err, "%s: attach %s", p->name, id);
}

int isotier__remote_sweep_dead(const isotier_remote_provider *p, const char *nonce, const char *api,
                               isotier_error *err)
{
	isotier_backend_spec spec = {0}; /* no deadline, no cancel */
	isotier_remote_run *r = calloc(1, sizeof *r);
	if (!r)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", p->name);
	r->p = p;
	int rc = run_init(r, &spec, err);
	/* Only the endpoint the dead run used (its lease's): an emulator's
	 * leftovers are never looked for at the provider, nor the reverse. */
	if (!rc && strcmp(r->api, api))
		rc = isotier__error_set(
		    err, ISOTIER_EUNAVAILABLE, 0,
		    "made through another endpoint than the one configured here");
	if (!rc && strlen(nonce) >= sizeof r->nonce)
		rc = isotier__error_set(err, ISOTIER_EINVAL, 0, "a nonce too long: %.40s", nonce);
	if (!rc) {
		snprintf(r->nonce, sizeof r->nonce, "%s", nonce);
		rc = run_scope(r, err);
	}
	if (!rc)
		rc = sweep(r, err);
	free(r);
	return rc;
}

int isotier__remote_exec(void *state, const isotier_exec_request *req, int *exit_status,
                         isotier_error *err)
{
	isotier_remote_run *r = state;
	const isotier_remote_provider *p = r->p;
	*exit_status = -1;
	int cancel_fd = isotier__remote_cancel_fd(r->cancel_fd, req);
	if (isotier__cancelled(cancel_fd))
		return isotier__error_set(err, ISOTIER_EINTR, 0, "%s: exec: not started: cancelled",
		                          p->name);
	cleanup_free char *script = NULL;
	if (isotier__remote_script(&script, req, p->stderr_to, err))
		return isotier__error_prefix(err, "%s", p->name);
	int timeout_s = req->timeout_s > 0 ? req->timeout_s : r->timeout_s;
	int rc = p->ops.exec(r, req, script, cancel_fd, timeout_s, exit_status, err);
	if (rc) {
		*exit_status = -1; /* no status was taken */
		return isotier__error_prefix(err, "%s: exec in %s %s", p->name, p->kind, r->id);
	}
	return 0;
}

int isotier__remote_release_state(void *state, isotier_error *err)
{
	isotier_remote_run *r = state;
	return r ? isotier__remote_release(r, r, r->id, del_one, sweep, err) : 0;
}

void isotier__remote_destroy(void *state)
{
	isotier_error ignored = {0}; /* what release() says is lost here: destroy() says nothing */
	isotier__remote_release_state(state, &ignored);
}
