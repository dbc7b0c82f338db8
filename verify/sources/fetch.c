/* SPDX-License-Identifier: Apache-2.0 */
/* fetch.c - many URLs at once through libisotier's HTTP client (fetch.h).
 *
 * `jobs` worker threads take URLs in order and run isotier__http_perform;
 * each answer goes on a queue the calling thread drains, so the callback
 * (which writes the history) runs in one thread only. A stop request, or a
 * callback that fails, makes the pipe every request watches readable: the
 * requests in flight end within 100 ms (http.h) and nothing new starts.
 *
 * One origin (scheme, host, port) gives one answer to "can it be reached": a
 * URL whose origin could not be connected to (nothing sent, after every
 * attempt and its backoff) answers for the origin's other URLs in this run,
 * which are not tried and fail with its error. Offline, that is one retried
 * failure per origin instead of per URL (the catalogue cites 200 pages on 75
 * origins). An origin's first URL goes alone: its other URLs wait for that
 * answer (the pool takes other origins' meanwhile), then go in parallel.
 * Only a failure to connect is shared: a timeout, an HTTP status or a body
 * belongs to its URL alone.
 */
#include "fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

struct answer {
	isotier_http_response resp;
	int rc;
	char error[ISOTIER_ERROR_MESSAGE_MAX];
};

/* What this run knows of an origin, kept at the index of its first URL. */
struct origin {
	size_t in_flight; /* its URLs being fetched now */
	bool reached;     /* a URL of it was answered, or sent: its others go in parallel */
	bool down;        /* could not be connected to: its other URLs are not tried */
	size_t down_url;  /* the URL whose failure says so */
};

struct pool {
	const char *const *urls;
	size_t n;
	size_t *origin_of;      /* per URL: the index of the first URL of its origin */
	struct origin *origins; /* per URL; only first URLs' entries are used */
	bool *started;          /* per URL: a worker took it */
	size_t n_started, first_unstarted;
	isotier_fetch_opts o;
	int cancel[2]; /* [0] watched by every request; a byte in [1] stops them */
	pthread_mutex_t mu;
	pthread_cond_t ready; /* an answer was queued */
	pthread_cond_t room;  /* an answer was delivered or came in, or quit */
	size_t *queue;        /* answered URLs, in the order they were answered */
	size_t queued, taken;
	bool quit;
	struct answer *answers;
};

static void fetch_one(struct pool *p, size_t i)
{
	struct answer *a = &p->answers[i];
	isotier_http_request req = {
	    .method = "GET",
	    .url = p->urls[i],
	    .timeout_ms = (int64_t)p->o.timeout_s * 1000,
	    .max_body = p->o.max_body,
	    /* A GET changes nothing: any transient failure may be retried. */
	    .retry_5xx = true,
	    .max_attempts = p->o.max_attempts,
	    .backoff_ms = p->o.backoff_ms,
	    .max_redirects = p->o.max_redirects,
	    .retry_after_max_ms = 10000,
	    .decode_content = true,
	    .cancel_fd = p->cancel[0],
	};
	isotier_error err = {0};
	a->rc = isotier__http_perform(&req, &a->resp, &err);
	snprintf(a->error, sizeof a->error, "%s", a->rc < 0 ? err.message : "");
}

/* URL i's answer without a request: its origin could not be connected to. */
static void answer_from_origin(struct pool *p, size_t i, size_t down_url)
{
	struct answer *a = &p->answers[i];
	char why[sizeof a->error];
	memcpy(why, p->answers[down_url].error, sizeof why);
	a->rc = ISOTIER_EIO;
	a->resp = (isotier_http_response){0};
	snprintf(a->error, sizeof a->error,
	         "not tried: its origin could not be reached in this run (%.*s)",
	         (int)(sizeof a->error - 64), why);
}

#define NONE_READY ((size_t)-1)

/* The next URL to take, under p->mu: the first not started whose origin is
 * known down (answered at once), has nothing in flight, or has answered
 * before (it can be reached: its pages go in parallel); NONE_READY when every
 * URL left waits for the first answer of its origin. */
static size_t pick(struct pool *p)
{
	while (p->first_unstarted < p->n && p->started[p->first_unstarted])
		p->first_unstarted++;
	for (size_t i = p->first_unstarted; i < p->n; i++) {
		if (p->started[i])
			continue;
		const struct origin *o = &p->origins[p->origin_of[i]];
		if (o->down || o->in_flight == 0 || o->reached)
			return i;
	}
	return NONE_READY;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		/* At most `jobs` bodies held at once, in flight or queued: a slow
		 * callback (a locked history) holds the workers back. And a URL
		 * whose origin's first answer is not in yet waits for it. */
		size_t i = NONE_READY;
		while (
		    !p->quit && p->n_started < p->n &&
		    (p->n_started - p->taken >= (size_t)p->o.jobs || (i = pick(p)) == NONE_READY))
			pthread_cond_wait(&p->room, &p->mu);
		if (p->quit || p->n_started >= p->n) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		p->started[i] = true;
		p->n_started++;
		struct origin *o = &p->origins[p->origin_of[i]];
		bool down = o->down;
		if (down)
			answer_from_origin(p, i, o->down_url);
		else
			o->in_flight++;
		pthread_mutex_unlock(&p->mu);
		if (!down)
			fetch_one(p, i);
		pthread_mutex_lock(&p->mu);
		if (!down) {
			o->in_flight--;
			const struct answer *a = &p->answers[i];
			/* Nothing sent: the origin itself did not answer (http.c marks a
			 * request sent for every other failure, a timeout among them). An
			 * origin not reached yet has this one URL in flight (pick()). */
			if (a->rc == ISOTIER_EIO && !a->resp.sent && !o->reached) {
				o->down = true;
				o->down_url = i;
			} else {
				o->reached = true;
			}
			/* Its origin's other URLs may go now. */
			pthread_cond_broadcast(&p->room);
		}
		p->queue[p->queued++] = i;
		pthread_cond_signal(&p->ready);
		pthread_mutex_unlock(&p->mu);
	}
}

/* Each URL's origin (scheme, host and port, as libcurl parses it) as the index
 * of the first URL with the same one; a URL libcurl cannot parse is its own. */
static int group_origins(struct pool *p)
{
	char **keys = calloc(p->n, sizeof *keys);
	if (!keys)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < p->n; i++) {
		p->origin_of[i] = i;
		CURLU *u = curl_url();
		char *scheme = NULL, *host = NULL, *port = NULL;
		if (!u) {
			rc = -1;
			break;
		}
		if (curl_url_set(u, CURLUPART_URL, p->urls[i], 0) == CURLUE_OK &&
		    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
		    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
		    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
		    asprintf(&keys[i], "%s://%s:%s", scheme, host, port) < 0)
			keys[i] = NULL;
		curl_free(scheme);
		curl_free(host);
		curl_free(port);
		curl_url_cleanup(u);
		if (!keys[i])
			continue;
		/* Quadratic, and bounded: sources check fetches the catalogue's few hundred. */
		for (size_t j = 0; j < i; j++)
			if (keys[j] && !strcmp(keys[j], keys[i])) {
				p->origin_of[i] = j;
				break;
			}
	}
	for (size_t i = 0; i < p->n; i++)
		free(keys[i]);
	free(keys);
	return rc;
}

/* Stops every request in flight and any not started. */
static void stop_all(struct pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	ssize_t w;
	do
		w = write(p->cancel[1], "x", 1);
	while (w < 0 && errno == EINTR);
}

/* Hands answer i to the callback, as fetch.h's result. */
static int deliver(struct pool *p, size_t i, isotier_fetch_done_fn done, void *arg)
{
	struct answer *a = &p->answers[i];
	isotier_fetch_result r = {
	    .url = p->urls[i],
	    .rc = a->rc,
	    .http_status = a->resp.status,
	    .content_type = a->resp.content_type[0] ? a->resp.content_type : NULL,
	    .body = a->rc == 0 && a->resp.body ? a->resp.body : "",
	    .body_len = a->rc == 0 ? a->resp.body_len : 0,
	    .attempts = a->resp.attempts,
	    .error = a->error,
	    .effective_url = a->resp.effective_url[0] ? a->resp.effective_url : NULL,
	};
	int rc = done(i, &r, arg);
	isotier__http_response_clear(&a->resp);
	return rc;
}

static void pool_free(struct pool *p, pthread_t *tids)
{
	free(p->queue);
	free(p->answers);
	free(p->origin_of);
	free(p->origins);
	free(p->started);
	free(tids);
}

int isotier_fetch_all(const char *const *urls, size_t n, const isotier_fetch_opts *opts,
                      isotier_fetch_done_fn done, void *arg, isotier_error *err)
{
	struct pool p = {.urls = urls, .n = n, .o = *opts, .cancel = {-1, -1}};
	if (p.o.jobs <= 0)
		p.o.jobs = 8;
	if (p.o.timeout_s <= 0)
		p.o.timeout_s = 20;
	if (p.o.max_redirects < 0)
		p.o.max_redirects = 5;
	if (p.o.max_body == 0)
		p.o.max_body = 5 * 1024 * 1024;
	if (p.o.max_attempts <= 0)
		p.o.max_attempts = 3;
	if (p.o.backoff_ms <= 0)
		p.o.backoff_ms = 250;
	if (n == 0)
		return 0;
	size_t n_threads = (size_t)p.o.jobs < n ? (size_t)p.o.jobs : n;
	p.queue = calloc(n, sizeof *p.queue);
	p.answers = calloc(n, sizeof *p.answers);
	p.origin_of = calloc(n, sizeof *p.origin_of);
	p.origins = calloc(n, sizeof *p.origins);
	p.started = calloc(n, sizeof *p.started);
	pthread_t *tids = calloc(n_threads, sizeof *tids);
	if (!p.queue || !p.answers || !p.origin_of || !p.origins || !p.started || !tids ||
	    group_origins(&p) < 0) {
		pool_free(&p, tids);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "fetch: out of memory");
	}
	if (pipe2(p.cancel, O_CLOEXEC | O_NONBLOCK) < 0) {
		int e = errno;
		pool_free(&p, tids);
		return isotier__error_set(err, ISOTIER_ERROR, e, "fetch: pipe");
	}
	if (p.cancel[0] == 0) { /* stdin was closed: 0 would mean "no cancel" to http.c */
		int moved = fcntl(0, F_DUPFD_CLOEXEC, 3);
		int e = errno;
		close(0);
		if (moved < 0) {
			close(p.cancel[1]);
			pool_free(&p, tids);
			return isotier__error_set(err, ISOTIER_ERROR, e, "fetch: pipe");
		}
		p.cancel[0] = moved;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p.ready, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&p.room, NULL);

	int rc = 0;
	size_t started = 0;
	for (; started < n_threads; started++)
		if (pthread_create(&tids[started], NULL, worker, &p) != 0)
			break;
	if (started == 0)
		rc = isotier__error_set(err, ISOTIER_ERROR, 0, "fetch: cannot start a thread");
	for (size_t delivered = 0; rc == 0 && delivered < n;) {
		pthread_mutex_lock(&p.mu);
		/* Wake every 100 ms to look at the stop flag a signal sets. */
		while (p.taken == p.queued && !(p.o.stop && *p.o.stop)) {
			struct timespec until = isotier__time_after_ms(CLOCK_MONOTONIC, 100);
			pthread_cond_timedwait(&p.ready, &p.mu, &until);
		}
		/* Stopped: what is not delivered is dropped, and nothing new starts. */
		bool stopped = p.o.stop && *p.o.stop;
		bool have = !stopped && p.taken < p.queued;
		size_t i = have ? p.queue[p.taken++] : 0;
		pthread_cond_broadcast(&p.room);
		pthread_mutex_unlock(&p.mu);
		if (!have) {
			rc = isotier__error_set(err, ISOTIER_EINTR, 0, "interrupted");
			break;
		}
		rc = deliver(&p, i, done, arg);
		delivered++;
	}
	if (rc < 0)
		stop_all(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	for (size_t i = 0; i < n; i++)
		isotier__http_response_clear(&p.answers[i].resp);
	pthread_cond_destroy(&p.ready);
	pthread_cond_destroy(&p.room);
	pthread_mutex_destroy(&p.mu);
	close(p.cancel[0]);
	close(p.cancel[1]);
	pool_free(&p, tids);
	return rc;
}
