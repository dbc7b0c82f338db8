/* SPDX-License-Identifier: Apache-2.0 */
/*
 * http.h - the one HTTP client of libisotier (libcurl), for the remote
 * backends (internal). Every request:
 * - has a deadline (timeout_ms for the whole exchange, connect included) and
 *   a bounded response body (max_body, default 1 MiB; more is an error, or
 *   with a sink, the sink's business);
 * - sends "User-Agent: isotier/<version> (+sandbox isolation verifier)"
 *   (ISOTIER_HTTP_USER_AGENT), for the remote backends, OTLP export and
 *   `sources check` alike;
 * - follows no redirect unless asked (max_redirects), and then only to http
 *   and https: one to another scheme is an error naming the scheme alone,
 *   never the URL (nor is it kept in effective_url);
 * - is retried only on 429 (the provider did not act on it) and, when the
 *   caller says the request is safe to repeat (retry_5xx: idempotent, or a
 *   create whose outcome was checked first), on 5xx and on transport errors
 *   (connect, resolve, send, receive, an answer cut short; never a TLS
 *   verification failure, a malformed URL or a redirect loop);
 *   a connection that could not be made (nothing sent) is always retried; waits honour Retry-After
 * (seconds or an HTTP-date, capped at 30 s); no wait outlasts the deadline, or without one the
 * timeout counted from the first attempt (a longer one is not started: the answer is the error),
 * else exponential backoff from 500 ms. A timeout is never retried here;
 * - stops within 100 ms once cancel_fd (> 0; <= 0: none) is readable, hung up
 *   or not open (isotier__cancelled) -> ISOTIER_EINTR; a cleanup request (a
 *   DELETE after an interrupt) ignores cancel_fd and always runs to its end
 *   (its own timeout and deadline still bound it). The client looks at no
 *   signals;
 * - never puts a credential in an error: errors go through isotier__error_set,
 *   which redacts (redact.h); response bodies quoted in errors are shortened
 *   and sanitized.
 */
#ifndef ISOTIER_HTTP_H
#define ISOTIER_HTTP_H

#include "../../base/base.h"

#include <stdbool.h>
#include <stdint.h>

#define ISOTIER_HTTP_MAX_BODY   (1u << 20)
#define ISOTIER_HTTP_USER_AGENT "isotier/" ISOTIER_VERSION " (+sandbox isolation verifier)"

/* Streams a 2xx response body; a non-zero return aborts the transfer and is
 * returned by isotier__http_perform (an ISOTIER_E*, err filled by the sink). */
typedef int (*isotier_http_sink)(void *ctx, const char *buf, size_t len, isotier_error *err);

typedef struct isotier_http_request {
	const char *method; /* "GET", "POST", "DELETE" */
	const char *url;
	const char *unix_socket; /* HTTP over this Unix socket (a local daemon's API); NULL: TCP */
	const char *const *headers; /* "Name: value", NULL-terminated; NULL: none */
	const char *body;           /* NULL: none */
	size_t body_len;
	const char *upload_path; /* multipart/form-data with this file as field "file" */
	const char *upload_name; /* its file name in the form */
	int64_t timeout_ms;      /* each attempt, and bounds the waits between them; 0: 30 s */
	int64_t deadline_ms;     /* isotier__now_ms() clock; 0: none. No attempt starts past it */
	size_t max_body;         /* 0: ISOTIER_HTTP_MAX_BODY */
	bool retry_5xx;          /* safe to repeat: retry 5xx and connect failures too */
	int max_attempts;        /* 0: 4 */
	int64_t backoff_ms; /* first retry's wait without Retry-After, doubled each time; 0: 500 */
	int64_t retry_after_max_ms; /* the longest Retry-After honoured; 0: 30 s */
	int max_redirects;          /* 0: a 3xx is the answer; >0: follow at most this many */
	bool decode_content;        /* ask for and decode any content encoding libcurl knows */
	isotier_http_sink sink;     /* 2xx bodies streamed to it instead of kept */
	void *sink_ctx;
	int cancel_fd; /* readable: stop (ISOTIER_EINTR); <= 0: none */
	bool cleanup;  /* ignores cancel_fd: runs even after a cancel */
} isotier_http_request;

typedef struct isotier_http_response {
	long status; /* last attempt's; 0: no response */
	char *body;  /* NUL-terminated, free() it; NULL when streamed or empty */
	size_t body_len;
	char content_type[128];
	int attempts;
	bool sent; /* the request may have reached the server (outcome unknown on error) */
	/* Where the answer came from when redirects were followed to another
	 * URL (cut at 1023 bytes); "" otherwise. */
	char effective_url[1024];
} isotier_http_response;

/*
 * Performs the request. Returns 0 when a response arrived (any status: the
 * caller judges it), ISOTIER_ETIMEDOUT, ISOTIER_EINTR, ISOTIER_EDATA (body
 * over max_body), ISOTIER_EIO (transport, or more than max_redirects), or a
 * sink's error. Safe to call from several threads at once.
 */
int isotier__http_perform(const isotier_http_request *req, isotier_http_response *resp,
                          isotier_error *err);
void isotier__http_response_clear(isotier_http_response *resp);
/* s percent-encoded for a URL's path or query (RFC 3986 unreserved kept);
 * malloc'd, NULL when out of memory. */
char *isotier__http_escape(const char *s);

/* "HTTP 404 from METHOD URL-path: <body start>" into err; returns code. */
int isotier__http_status_error(isotier_error *err, int code, const char *what,
                               const isotier_http_response *resp);

/* Parses JSON strictly: at most max_depth deep, no duplicate keys anywhere,
 * the whole buffer one value. NULL with err filled otherwise. */
struct cJSON;
struct cJSON *isotier__json_parse_strict(const char *buf, size_t len, const char *what,
                                         isotier_error *err);

#endif
