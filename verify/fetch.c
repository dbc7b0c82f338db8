/* fetch.c - concurrent, bounded, retrying HTTP(S) fetches (libcurl multi). */
#include "fetch.h"

#include <curl/curl.h>
#include <poll.h>
#include <string.h>
#include <time.h>

enum xstate { X_WAITING, X_ACTIVE, X_DONE };

struct xfer {
	size_t index;
	enum xstate state;
	CURL *easy;
	char *body;
	size_t len, cap, max;
	bool oversize;
	int attempts;
	double ready_at, started_at;
	char errbuf[CURL_ERROR_SIZE];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;
	if (x->len + n > x->max) {
		x->oversize = true;
		return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	if (x->len + n + 1 > x->cap) {
		size_t ncap = x->cap ? x->cap : 16384;
		while (x->len + n + 1 > ncap)
			ncap *= 2;
		char *nb = realloc(x->body, ncap);
		if (!nb)
			return 0;
		x->body = nb;
		x->cap = ncap;
	}
	memcpy(x->body + x->len, data, n);
	x->len += n;
	x->body[x->len] = '\0';
	return n;
}

static int start(CURLM *multi, struct xfer *x, const char *url, const isotier_fetch_opts *o)
{
	CURL *e = curl_easy_init();
	if (!e)
		return ISOTIER_ENOMEM;
	x->len = 0;
	x->oversize = false;
	x->errbuf[0] = '\0';
	long timeout_ms = (long)o->timeout_s * 1000;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_USERAGENT, ISOTIER_USER_AGENT);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(e, CURLOPT_MAXREDIRS, (long)o->max_redirects);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)o->max_body);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	if (curl_multi_add_handle(multi, e) != CURLM_OK) {
		curl_easy_cleanup(e);
		return ISOTIER_ERROR;
	}
	x->easy = e;
	x->state = X_ACTIVE;
	x->attempts++;
	x->started_at = now_s();
	return 0;
}

static bool transient(CURLcode code, long http)
{
	if (code == CURLE_OK)
		return http == 429 || (http >= 500 && http <= 599);
	return code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
	       code == CURLE_GOT_NOTHING || code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR ||
	       code == CURLE_PARTIAL_FILE;
}

static void finish_handle(CURLM *multi, struct xfer *x)
{
	curl_multi_remove_handle(multi, x->easy);
	curl_easy_cleanup(x->easy);
	x->easy = NULL;
}

/* One transfer's attempt ended: retry later, or deliver. */
static int completed(CURLM *multi, struct xfer *x, CURLcode code, const char *const *urls,
                     const isotier_fetch_opts *o, isotier_fetch_done_fn done, void *arg)
{
	long http = 0;
	char *ctype = NULL;
	curl_off_t retry_after = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &http);
	curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ctype);
	curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &retry_after);
	if (code == CURLE_FILESIZE_EXCEEDED)
		x->oversize = true;
	if (!x->oversize && transient(code, http) && x->attempts < o->max_attempts) {
		double delay = (double)o->backoff_ms / 1000.0 * (double)(1 << (x->attempts - 1));
		if (retry_after > 0 && (double)retry_after > delay)
			delay = retry_after < 10 ? (double)retry_after : 10.0;
		finish_handle(multi, x);
		x->state = X_WAITING;
		x->ready_at = now_s() + delay;
		return 0;
	}
	char error[CURL_ERROR_SIZE + 64] = "";
	if (x->oversize)
		snprintf(error, sizeof error, "response body larger than %zu bytes", o->max_body);
	else if (code == CURLE_TOO_MANY_REDIRECTS)
		snprintf(error, sizeof error, "more than %d redirects (redirect loop?)",
		         o->max_redirects);
	else if (code != CURLE_OK)
		snprintf(error, sizeof error, "%s",
		         x->errbuf[0] ? x->errbuf : curl_easy_strerror(code));
	cleanup_free char *ctype_copy = ctype ? strdup(ctype) : NULL;
	char *eff = NULL;
	curl_easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
	cleanup_free char *eff_copy = eff && strcmp(eff, urls[x->index]) ? strdup(eff) : NULL;
	isotier_fetch_result r = {
	    .url = urls[x->index],
	    .curl_code = (int)code,
	    .http_status = http,
	    .content_type = ctype_copy,
	    .body = x->body && !x->oversize ? x->body : "",
	    .body_len = x->oversize ? 0 : x->len,
	    .oversize = x->oversize,
	    .attempts = x->attempts,
	    .error = error,
	    .seconds = now_s() - x->started_at,
	    .effective_url = eff_copy,
	};
	finish_handle(multi, x);
	x->state = X_DONE;
	int rc = done(x->index, &r, arg);
	free(x->body);
	x->body = NULL;
	x->cap = x->len = 0;
	return rc;
}

int isotier_fetch_all(const char *const *urls, size_t n, const isotier_fetch_opts *opts,
                      isotier_fetch_done_fn done, void *arg, isotier_error *err)
{
	isotier_fetch_opts o = *opts;
	if (o.jobs <= 0)
		o.jobs = 8;
	if (o.timeout_s <= 0)
		o.timeout_s = 20;
	if (o.max_redirects < 0)
		o.max_redirects = 5;
	if (o.max_body == 0)
		o.max_body = 5 * 1024 * 1024;
	if (o.max_attempts <= 0)
		o.max_attempts = 3;
	if (o.backoff_ms <= 0)
		o.backoff_ms = 250;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return isotier_error_set(err, ISOTIER_ERROR, 0, "libcurl initialisation failed");
	struct xfer *xs = calloc(n ? n : 1, sizeof *xs);
	CURLM *multi = curl_multi_init();
	if (!xs || !multi) {
		free(xs);
		if (multi)
			curl_multi_cleanup(multi);
		curl_global_cleanup();
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "fetch: out of memory");
	}
	curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)o.jobs);
	for (size_t i = 0; i < n; i++) {
		xs[i].index = i;
		xs[i].max = o.max_body;
	}
	size_t active = 0, delivered = 0, next_fresh = 0;
	int rc = 0;
	while (delivered < n) {
		if (o.stop && *o.stop) {
			rc = isotier_error_set(err, ISOTIER_EINTR, 0, "interrupted");
			break;
		}
		double now = now_s(), next_ready = now + 0.1;
		/* Retries due first, then fresh URLs in order. */
		for (size_t i = 0; i < next_fresh && active < (size_t)o.jobs; i++) {
			if (xs[i].state != X_WAITING || xs[i].attempts == 0)
				continue;
			if (xs[i].ready_at <= now) {
				if ((rc = start(multi, &xs[i], urls[i], &o)) < 0)
					break;
				active++;
			} else if (xs[i].ready_at < next_ready) {
				next_ready = xs[i].ready_at;
			}
		}
		while (rc == 0 && next_fresh < n && active < (size_t)o.jobs) {
			if ((rc = start(multi, &xs[next_fresh], urls[next_fresh], &o)) < 0)
				break;
			next_fresh++;
			active++;
		}
		if (rc < 0) {
			isotier_error_set(err, rc, 0, "fetch: cannot start a transfer");
			break;
		}
		int running = 0;
		curl_multi_perform(multi, &running);
		CURLMsg *msg;
		int left;
		bool finished_any = false;
		while (rc == 0 && (msg = curl_multi_info_read(multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			struct xfer *x = NULL;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
			CURLcode code = msg->data.result;
			active--;
			rc = completed(multi, x, code, urls, &o, done, arg);
			if (x->state == X_DONE)
				delivered++;
			finished_any = true;
		}
		if (rc < 0)
			break;
		if (delivered == n)
			break;
		if (finished_any && next_fresh < n)
			continue; /* a slot is free: start the next transfer now */
		int wait_ms = (int)((next_ready - now_s()) * 1000.0);
		if (wait_ms < 1)
			wait_ms = 1;
		if (wait_ms > 100)
			wait_ms = 100; /* stay responsive to the stop flag */
		if (active)
			curl_multi_poll(multi, NULL, 0, wait_ms, NULL);
		else
			poll(NULL, 0, wait_ms);
	}
	for (size_t i = 0; i < n; i++) {
		if (xs[i].easy)
			finish_handle(multi, &xs[i]);
		free(xs[i].body);
	}
	free(xs);
	curl_multi_cleanup(multi);
	curl_global_cleanup();
	return rc;
}
