/* SPDX-License-Identifier: Apache-2.0 */
/* http.c - libisotier's one HTTP client (see http.h). */
#include "http.h"
#include "proc.h"
#include "../../base/redact.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define JSON_MAX_DEPTH 32

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

typedef struct xfer {
	const isotier_http_request *req;
	isotier_http_response *resp;
	isotier_error *err;
	size_t max;
	int sink_rc;
	bool over;
	char *buf;
	size_t len;
	int64_t retry_after_s; /* -1: none */
	bool transient;        /* the attempt failed in transport: another may not */
} xfer;

/* Transport failures another attempt may not meet; everything else (TLS
 * verification, a malformed URL, a redirect loop) fails the same again. */
static bool transient_failure(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR: return true;
	default: return false;
	}
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	xfer *x = arg;
	size_t len = size * n;
	char line[256];
	size_t k = len < sizeof line - 1 ? len : sizeof line - 1;
	memcpy(line, p, k);
	line[k] = '\0';
	if (!strncasecmp(line, "HTTP/", 5)) { /* a new response (after 100 Continue) */
		x->retry_after_s = -1;
		x->resp->content_type[0] = '\0';
	} else if (!strncasecmp(line, "retry-after:", 12)) {
		/* delay-seconds, or an HTTP-date (RFC 9110 10.2.3) */
		char *v = line + 12, *end;
		v[strcspn(v, "\r\n")] = '\0';
		long long secs = strtoll(v, &end, 10);
		if (end == v || *end) {
			time_t when = curl_getdate(v, NULL);
			secs = when > 0 ? (long long)(when - time(NULL)) : -1;
			if (when > 0 && secs < 0)
				secs = 0; /* a date already past: now */
		}
		x->retry_after_s = secs >= 0 && secs < 86400 ? secs : -1;
	} else if (!strncasecmp(line, "content-type:", 13)) {
		const char *v = line + 13;
		while (*v == ' ' || *v == '\t')
			v++;
		snprintf(x->resp->content_type, sizeof x->resp->content_type, "%.120s", v);
		x->resp->content_type[strcspn(x->resp->content_type, "\r\n")] = '\0';
	}
	return len;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	xfer *x = arg;
	size_t len = size * n;
	if (x->req->sink && x->resp->status >= 200 && x->resp->status < 300) {
		x->sink_rc = x->req->sink(x->req->sink_ctx, p, len, x->err);
		return x->sink_rc ? 0 : len;
	}
	if (x->len + len > x->max) {
		x->over = true;
		return 0;
	}
	char *b = realloc(x->buf, x->len + len + 1);
	if (!b)
		return 0;
	memcpy(b + x->len, p, len);
	x->buf = b;
	x->len += len;
	x->buf[x->len] = '\0';
	return len;
}

/* Status is known once headers are in: record it for on_body's sink choice. */
static size_t on_body_status(char *p, size_t size, size_t n, void *arg, CURL *c)
{
	xfer *x = arg;
	if (!x->resp->status)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &x->resp->status);
	return on_body(p, size, n, arg);
}

typedef struct body_arg {
	xfer *x;
	CURL *c;
} body_arg;

static size_t on_body_cb(char *p, size_t size, size_t n, void *arg)
{
	body_arg *b = arg;
	return on_body_status(p, size, n, b->x, b->c);
}

/* A cleanup request (a DELETE after an interrupt) always runs to its end;
 * any other stops once its cancel descriptor is readable. */
static bool should_stop(const isotier_http_request *req)
{
	if (req->cleanup)
		return false;
	return isotier__cancelled(req->cancel_fd);
}

/* The URL without its query: what errors name. */
static void url_path(char *out, size_t len, const char *url)
{
	snprintf(out, len, "%s", url);
	out[strcspn(out, "?#")] = '\0';
}

/* "file:" for file:///etc/passwd: the scheme of url, or "non-URL" when it
 * has none a URL could have. */
static void redirect_scheme(char *out, size_t len, const char *url)
{
	size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	if (n == 0 || n > len - 2 || url[n] != ':')
		snprintf(out, len, "non-URL");
	else
		snprintf(out, len, "%.*s:", (int)n, url);
}

/* One attempt. 0: a response (resp->status); else an ISOTIER_E*. */
static int attempt(const isotier_http_request *req, isotier_http_response *resp, xfer *x,
                   int64_t timeout_ms, isotier_error *err)
{
	CURL *c = curl_easy_init();
	CURLM *m = curl_multi_init();
	struct curl_slist *hdrs = NULL;
	curl_mime *mime = NULL;
	char where[512];
	url_path(where, sizeof where, req->url);
	int rc = 0;
	if (!c || !m) {
		rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s %s: curl init", req->method,
		                        where);
		goto out;
	}
	for (size_t i = 0; req->headers && req->headers[i]; i++)
		hdrs = curl_slist_append(hdrs, req->headers[i]);
	hdrs = curl_slist_append(hdrs, "Expect:");
	body_arg ba = {.x = x, .c = c};
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	if (req->unix_socket)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, req->unix_socket);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	if (!strcmp(req->method, "GET"))
		curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_USERAGENT, ISOTIER_HTTP_USER_AGENT);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
	                 (long)(timeout_ms < 10000 ? timeout_ms : 10000));
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, req->max_redirects > 0 ? 1L : 0L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS,
	                 (long)(req->max_redirects > 0 ? req->max_redirects : 0));
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (req->decode_content)
		curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &ba);
	if (req->upload_path) {
		mime = curl_mime_init(c);
		curl_mimepart *part = curl_mime_addpart(mime);
		curl_mime_name(part, "file");
		curl_mime_filedata(part, req->upload_path);
		curl_mime_filename(part, req->upload_name ? req->upload_name : "file");
		curl_mime_type(part, "application/octet-stream");
		curl_easy_setopt(c, CURLOPT_MIMEPOST, mime);
	} else if (req->body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, req->body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
	}
	curl_multi_add_handle(m, c);
	int running = 1;
	bool stopped = false;
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (!running)
			break;
		if (should_stop(req)) {
			stopped = true;
			break;
		}
		int numfds;
		curl_multi_poll(m, NULL, 0, 100, &numfds);
	}
	long sent_bytes = 0;
	curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &sent_bytes);
	resp->sent |= sent_bytes > 0;
	if (stopped) {
		resp->sent = true; /* cannot tell */
		rc = isotier__error_set(err, ISOTIER_EINTR, 0, "%s %s: interrupted", req->method,
		                        where);
		goto out;
	}
	CURLcode cc = CURLE_OK;
	int left;
	for (CURLMsg *msg; (msg = curl_multi_info_read(m, &left));)
		if (msg->msg == CURLMSG_DONE)
			cc = msg->data.result;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	char *eff = NULL;
	char refused[24] = ""; /* the scheme of a redirect target that is not followed */
	if (req->max_redirects > 0 &&
	    curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &eff) == CURLE_OK && eff &&
	    strcmp(eff, req->url) != 0) {
		if (strncasecmp(eff, "http://", 7) && strncasecmp(eff, "https://", 8))
			redirect_scheme(refused, sizeof refused, eff);
		else
			snprintf(resp->effective_url, sizeof resp->effective_url, "%s", eff);
	}
	if (x->sink_rc) {
		rc = x->sink_rc;
	} else if (x->over) {
		rc = isotier__error_set(err, ISOTIER_EDATA, 0,
		                        "%s %s: response body larger than %zu bytes", req->method,
		                        where, x->max);
	} else if (cc == CURLE_OPERATION_TIMEDOUT) {
		resp->sent = true;
		rc = isotier__error_set(err, ISOTIER_ETIMEDOUT, 0,
		                        "%s %s: timed out: no complete answer in %lld ms",
		                        req->method, where, (long long)timeout_ms);
	} else if (refused[0]) {
		/* Named by its scheme alone: the rest of a URL a server chose
		 * (file:///etc/passwd, credentials in a query) is not repeated. */
		resp->sent = true;
		rc = isotier__error_set(err, ISOTIER_EIO, 0,
		                        "%s %s: redirect to a %s URL refused (only http and https "
		                        "are followed)",
		                        req->method, where, refused);
	} else if (cc == CURLE_TOO_MANY_REDIRECTS) {
		resp->sent = true;
		rc = isotier__error_set(err, ISOTIER_EIO, 0,
		                        "%s %s: more than %d redirects (redirect loop?)",
		                        req->method, where, req->max_redirects);
	} else if (cc != CURLE_OK) {
		if (cc != CURLE_COULDNT_CONNECT && cc != CURLE_COULDNT_RESOLVE_HOST)
			resp->sent = true;
		x->transient = transient_failure(cc);
		rc = isotier__error_set(err, ISOTIER_EIO, 0, "%s %s: %s", req->method, where,
		                        curl_easy_strerror(cc));
	} else if (resp->status < 100) {
		resp->sent = true;
		x->transient = true;
		rc = isotier__error_set(err, ISOTIER_EIO, 0, "%s %s: no HTTP response", req->method,
		                        where);
	}
out:
	if (m && c)
		curl_multi_remove_handle(m, c);
	curl_mime_free(mime);
	curl_slist_free_all(hdrs);
	if (c)
		curl_easy_cleanup(c);
	if (m)
		curl_multi_cleanup(m);
	return rc;
}

/* Sleeps ms in 100 ms steps; false when told to stop. */
static bool wait_ms(const isotier_http_request *req, int64_t ms)
{
	int64_t end = isotier__now_ms() + ms;
	while (isotier__now_ms() < end) {
		if (should_stop(req))
			return false;
		int64_t step = end - isotier__now_ms();
		struct timespec ts = {0, (step > 100 ? 100 : step) * 1000000L};
		nanosleep(&ts, NULL);
	}
	return true;
}

int isotier__http_perform(const isotier_http_request *req, isotier_http_response *resp,
                          isotier_error *err)
{
	pthread_once(&once, global_init);
	*resp = (isotier_http_response){0};
	int max_attempts = req->max_attempts > 0 ? req->max_attempts : 4;
	int64_t timeout = req->timeout_ms > 0 ? req->timeout_ms : 30000;
	char where[512];
	url_path(where, sizeof where, req->url);
	const int64_t started = isotier__now_ms();
	for (int n = 1;; n++) {
		if (should_stop(req)) /* nothing of this attempt sent */
			return isotier__error_set(err, ISOTIER_EINTR, 0, "%s %s: interrupted",
			                          req->method, where);
		int64_t now = isotier__now_ms();
		int64_t t = timeout;
		if (req->deadline_ms) {
			if (now >= req->deadline_ms)
				return isotier__error_set(err, ISOTIER_ETIMEDOUT, 0,
				                          "%s %s: the run's time limit passed",
				                          req->method, where);
			if (req->deadline_ms - now < t)
				t = req->deadline_ms - now;
		}
		xfer x = {.req = req,
		          .resp = resp,
		          .err = err,
		          .max = req->max_body ? req->max_body : ISOTIER_HTTP_MAX_BODY,
		          .retry_after_s = -1};
		free(resp->body);
		resp->body = NULL;
		resp->body_len = 0;
		resp->status = 0;
		resp->attempts = n;
		resp->effective_url[0] = '\0';
		int rc = attempt(req, resp, &x, t, err);
		resp->body = x.buf;
		resp->body_len = x.len;
		bool retriable = false;
		if (rc == 0 && resp->status == 429)
			retriable = true;
		else if (rc == 0 && resp->status >= 500 && req->retry_5xx)
			retriable = true;
		else if (rc == ISOTIER_EIO && x.transient && (req->retry_5xx || !resp->sent))
			retriable = true;
		if (!retriable || n >= max_attempts)
			return rc;
		int64_t first = req->backoff_ms > 0 ? req->backoff_ms : 500;
		int64_t delay = x.retry_after_s >= 0 ? x.retry_after_s * 1000 : first << (n - 1);
		int64_t cap = req->retry_after_max_ms > 0 ? req->retry_after_max_ms : 30000;
		if (delay > cap)
			delay = cap;
		delay += isotier__now_ms() % 100; /* jitter */
		/* Every wait ends within the caller's time: the deadline, or else the
		 * request's own timeout counted from its first attempt. A wait that
		 * would pass it is not started: the answer stands as the error. */
		int64_t end = started + timeout;
		if (req->deadline_ms && req->deadline_ms < end)
			end = req->deadline_ms;
		if (isotier__now_ms() + delay >= end)
			return rc ? rc
			          : isotier__http_status_error(err, ISOTIER_EIO,
			                                       req->deadline_ms &&
			                                               end == req->deadline_ms
			                                           ? "no retry before the deadline"
			                                           : "no retry within the timeout",
			                                       resp);
		if (!wait_ms(req, delay))
			return isotier__error_set(err, ISOTIER_EINTR, 0, "%s %s: interrupted",
			                          req->method, where);
	}
}

char *isotier__http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *copy = e ? strdup(e) : NULL;
	curl_free(e);
	return copy;
}

void isotier__http_response_clear(isotier_http_response *resp)
{
	if (resp) {
		free(resp->body);
		resp->body = NULL;
		resp->body_len = 0;
	}
}

int isotier__http_status_error(isotier_error *err, int code, const char *what,
                               const isotier_http_response *resp)
{
	char snippet[201] = "";
	size_t k = 0;
	for (size_t i = 0; resp->body && i < resp->body_len && k < sizeof snippet - 1; i++) {
		unsigned char ch = (unsigned char)resp->body[i];
		snippet[k++] = ch >= 0x20 && ch < 0x7f ? (char)ch : ' ';
	}
	snippet[k] = '\0';
	return isotier__error_set(err, code, 0, "%s: HTTP %ld%s%s", what, resp->status,
	                          k ? ": " : "", snippet);
}

cJSON *isotier__json_parse_strict(const char *buf, size_t len, const char *what, isotier_error *err)
{
	return isotier__json_parse_limited(buf, len, JSON_MAX_DEPTH, what, err);
}
