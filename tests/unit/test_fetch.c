/* SPDX-License-Identifier: Apache-2.0 */
/* test_fetch.c - `sources check`'s fetcher (verify/sources/fetch.c) over the one
 * HTTP client, against a real HTTP server on 127.0.0.1 (a thread here that
 * counts requests): a slow callback holds the workers back (at most `jobs`
 * bodies held), a stop request or a failing callback ends the run before
 * another answer is delivered, every request carries isotier's User-Agent; an
 * origin that could not be connected to answers for its other URLs, a timeout
 * for its URL alone. */
#include <check.h>
#include "check_run.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../verify/sources/fetch.h"

struct server {
	int fd;
	unsigned port;
	int requests;       /* atomic */
	int bad_user_agent; /* atomic */
	int hung[32];       /* connections to /hang: held open, never answered */
	size_t n_hung;
	pthread_t tid;
};

static void *serve(void *arg)
{
	struct server *s = arg;
	for (;;) {
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			return NULL; /* the listening socket was shut down */
		char req[4096];
		size_t len = 0;
		while (len < sizeof req - 1) {
			ssize_t n = read(c, req + len, sizeof req - 1 - len);
			if (n <= 0)
				break;
			len += (size_t)n;
			req[len] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[len] = '\0';
		__atomic_add_fetch(&s->requests, 1, __ATOMIC_SEQ_CST);
		if (!strstr(req, "User-Agent: " ISOTIER_HTTP_USER_AGENT "\r\n"))
			__atomic_add_fetch(&s->bad_user_agent, 1, __ATOMIC_SEQ_CST);
		unsigned to;
		if (sscanf(req, "GET /redir/%u ", &to) == 1) { /* a redirect to 127.0.0.1:to */
			char answer[200];
			int n = snprintf(answer, sizeof answer,
			                 "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%u/x\r\n"
			                 "Content-Length: 0\r\nConnection: close\r\n\r\n",
			                 to);
			ssize_t w = write(c, answer, (size_t)n);
			(void)w;
			close(c);
			continue;
		}
		if (!strncmp(req, "GET /hang", 9) && s->n_hung < sizeof s->hung / sizeof *s->hung) {
			s->hung[s->n_hung++] = c;
			continue;
		}
		static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
		                             "Content-Length: 5\r\nConnection: close\r\n\r\nhello";
		ssize_t w = write(c, answer, sizeof answer - 1);
		(void)w;
		close(c);
	}
}

static void server_start(struct server *s)
{
	memset(s, 0, sizeof *s);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s->fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(s->fd, 64), 0);
	socklen_t al = sizeof a;
	ck_assert_int_eq(getsockname(s->fd, (struct sockaddr *)&a, &al), 0);
	s->port = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&s->tid, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->tid, NULL);
	close(s->fd);
	for (size_t i = 0; i < s->n_hung; i++)
		close(s->hung[i]);
}

#define N_URLS 12
#define JOBS   2

struct run {
	struct server *srv;
	size_t calls;
	int max_ahead;  /* the most requests the server had seen beyond those delivered */
	size_t stop_at; /* >0: set *stop at this call */
	size_t fail_at; /* >0: return -5 at this call */
	volatile sig_atomic_t *stop;
};

static int on_done(size_t index, const isotier_fetch_result *r, void *arg)
{
	(void)index;
	struct run *run = arg;
	run->calls++;
	if (strstr(r->url, "/hang"))
		ck_abort_msg("a request to /hang was delivered (%s): it was not cancelled",
		             r->error);
	ck_assert_int_eq(r->rc, 0);
	ck_assert_int_eq(r->http_status, 200);
	ck_assert_uint_eq(r->body_len, 5);
	/* A slow callback (a locked history): the workers must not run ahead
	 * with more than `jobs` bodies held. */
	struct timespec ts = {0, 60 * 1000000L};
	nanosleep(&ts, NULL);
	int ahead = __atomic_load_n(&run->srv->requests, __ATOMIC_SEQ_CST) - (int)run->calls;
	if (ahead > run->max_ahead)
		run->max_ahead = ahead;
	if (run->stop_at && run->calls == run->stop_at)
		*run->stop = 1;
	return run->fail_at && run->calls == run->fail_at ? -5 : 0;
}

static void urls_for(char bufs[N_URLS][64], const char *urls[N_URLS], unsigned port)
{
	for (int i = 0; i < N_URLS; i++) {
		snprintf(bufs[i], 64, "http://127.0.0.1:%u/page/%d", port, i);
		urls[i] = bufs[i];
	}
}

/* Fetches N_URLS pages with JOBS workers, the callback setting the stop
 * flag at call stop_at or failing at call fail_at (0: never); returns what
 * isotier_fetch_all returned, run and the server's counts filled. */
static int fetch_pages(struct run *run, struct server *srv, size_t stop_at, size_t fail_at)
{
	server_start(srv);
	char bufs[N_URLS][64];
	const char *urls[N_URLS];
	urls_for(bufs, urls, srv->port);
	static volatile sig_atomic_t stop;
	stop = 0;
	*run = (struct run){.srv = srv, .stop = &stop, .stop_at = stop_at, .fail_at = fail_at};
	isotier_fetch_opts o = {.jobs = JOBS, .timeout_s = 10, .stop = &stop};
	isotier_error err = {0};
	int rc = isotier_fetch_all(urls, N_URLS, &o, on_done, run, &err);
	server_stop(srv);
	return rc;
}

START_TEST(slow_callback_holds_the_workers_back)
{
	struct server srv;
	struct run run;
	ck_assert_int_eq(fetch_pages(&run, &srv, 0, 0), 0);
	ck_assert_uint_eq(run.calls, N_URLS);
	ck_assert_int_le(run.max_ahead, JOBS);
	ck_assert_int_eq(srv.requests, N_URLS);
	ck_assert_int_eq(srv.bad_user_agent, 0);
}
END_TEST

START_TEST(stop_ends_the_run_before_the_next_delivery)
{
	struct server srv;
	struct run run;
	ck_assert_int_eq(fetch_pages(&run, &srv, 2, 0), ISOTIER_EINTR);
	ck_assert_uint_eq(run.calls, 2);
	ck_assert_int_le(srv.requests, 2 + JOBS);
}
END_TEST

START_TEST(failing_callback_ends_the_run)
{
	struct server srv;
	struct run run;
	ck_assert_int_eq(fetch_pages(&run, &srv, 0, 3), -5);
	ck_assert_uint_eq(run.calls, 3);
	ck_assert_int_le(srv.requests, 3 + JOBS);
}
END_TEST

/* Stdin closed: the cancel pipe's read end would be descriptor 0, which
 * means "no cancel" to the HTTP client. The fetcher moves it, so a failing
 * callback still cancels the requests in flight (to a server that never
 * answers) instead of leaving them to their 30 s timeout. */
START_TEST(cancel_pipe_never_on_descriptor_zero)
{
	struct server srv, hanging;
	server_start(&srv);
	/* The hanging requests on an origin of their own: they start at once, not
	 * after page/0's answer (an origin's first URL goes alone). */
	server_start(&hanging);
	char bufs[3][64];
	snprintf(bufs[0], 64, "http://127.0.0.1:%u/page/0", srv.port);
	snprintf(bufs[1], 64, "http://127.0.0.1:%u/hang/1", hanging.port);
	snprintf(bufs[2], 64, "http://127.0.0.1:%u/hang/2", hanging.port);
	const char *urls[3] = {bufs[0], bufs[1], bufs[2]};
	int saved = dup(0);
	ck_assert_int_ge(saved, 0);
	close(0);
	volatile sig_atomic_t stop = 0;
	struct run run = {.srv = &srv, .stop = &stop, .fail_at = 1};
	isotier_fetch_opts o = {.jobs = 3, .timeout_s = 30, .max_attempts = 1, .stop = &stop};
	isotier_error err = {0};
	int64_t t0 = isotier__now_ms();
	int rc = isotier_fetch_all(urls, 3, &o, on_done, &run, &err);
	int64_t took = isotier__now_ms() - t0;
	server_stop(&srv);
	server_stop(&hanging);
	ck_assert_int_eq(dup2(saved, 0), 0);
	close(saved);
	ck_assert_int_eq(rc, -5);
	ck_assert_uint_eq(run.calls, 1);
	ck_assert_msg(took < 10000, "the hanging requests were not cancelled (%lld ms)",
	              (long long)took);
}
END_TEST

/* Each answer as delivered, by index. */
struct answers {
	int rc[8];
	long status[8];
	int attempts[8];
	char error[8][ISOTIER_ERROR_MESSAGE_MAX];
};

static int keep_answer(size_t index, const isotier_fetch_result *r, void *arg)
{
	struct answers *a = arg;
	ck_assert_uint_lt(index, 8);
	a->rc[index] = r->rc;
	a->status[index] = r->http_status;
	a->attempts[index] = r->attempts;
	snprintf(a->error[index], sizeof a->error[index], "%s", r->error);
	return 0;
}

/* Fetches urls with o, each answer kept in a; the run itself must succeed. */
static void fetch_into(struct answers *a, const char *const *urls, size_t n, isotier_fetch_opts o)
{
	isotier_error err = {0};
	*a = (struct answers){0};
	ck_assert_msg(isotier_fetch_all(urls, n, &o, keep_answer, a, &err) == 0, "%s", err.message);
}

/* A port on 127.0.0.1 that refuses connections: bound (no one else takes it
 * while the test runs), never listening. */
static int refusing_port(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	socklen_t al = sizeof a;
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Offline, every page of an origin fails alike: the first URL's failure to
 * connect (after all its attempts) answers for the origin's others, which
 * are not tried; another origin's pages are fetched as ever. */
START_TEST(unreachable_origin_answers_for_its_other_urls)
{
	struct server srv;
	server_start(&srv);
	unsigned closed;
	int closed_fd = refusing_port(&closed);
	char bufs[5][64];
	snprintf(bufs[0], 64, "http://127.0.0.1:%u/a", closed);
	snprintf(bufs[1], 64, "http://127.0.0.1:%u/b", closed);
	snprintf(bufs[2], 64, "http://127.0.0.1:%u/page/1", srv.port);
	snprintf(bufs[3], 64, "http://127.0.0.1:%u/c?q=1", closed);
	snprintf(bufs[4], 64, "http://127.0.0.1:%u/page/2", srv.port);
	const char *urls[5] = {bufs[0], bufs[1], bufs[2], bufs[3], bufs[4]};
	struct answers a;
	fetch_into(
	    &a, urls, 5,
	    (isotier_fetch_opts){.jobs = 1, .timeout_s = 10, .max_attempts = 3, .backoff_ms = 20});
	server_stop(&srv);
	close(closed_fd);
	ck_assert_int_eq(a.rc[0], ISOTIER_EIO);
	ck_assert_int_eq(a.attempts[0], 3);
	ck_assert_msg(strstr(a.error[0], "/a: ") && !strstr(a.error[0], "not tried"), "%s",
	              a.error[0]);
	for (int i = 1; i <= 3; i += 2) {
		ck_assert_int_eq(a.rc[i], ISOTIER_EIO);
		ck_assert_int_eq(a.attempts[i], 0);
		ck_assert_msg(strstr(a.error[i], "not tried: its origin could not be reached") &&
		                  strstr(a.error[i], a.error[0]),
		              "%s", a.error[i]);
	}
	for (int i = 2; i <= 4; i += 2) {
		ck_assert_int_eq(a.rc[i], 0);
		ck_assert_int_eq(a.status[i], 200);
	}
	ck_assert_int_eq(srv.requests, 2);
}
END_TEST

/* Four workers: an origin's first URL goes alone, so a dead origin costs one
 * URL's attempts whatever the workers; the others are not tried, and the live
 * origin's pages are fetched meanwhile. */
START_TEST(dead_origin_tried_once_by_many_workers)
{
	struct server srv;
	server_start(&srv);
	unsigned closed;
	int closed_fd = refusing_port(&closed);
	char bufs[7][64];
	const char *urls[7];
	for (int i = 0; i < 7; i++) {
		if (i % 2)
			snprintf(bufs[i], 64, "http://127.0.0.1:%u/page/%d", srv.port, i);
		else
			snprintf(bufs[i], 64, "http://127.0.0.1:%u/p%d", closed, i);
		urls[i] = bufs[i];
	}
	struct answers a;
	fetch_into(
	    &a, urls, 7,
	    (isotier_fetch_opts){.jobs = 4, .timeout_s = 10, .max_attempts = 3, .backoff_ms = 50});
	server_stop(&srv);
	close(closed_fd);
	int tried = 0, not_tried = 0;
	for (int i = 0; i < 7; i += 2) {
		ck_assert_int_eq(a.rc[i], ISOTIER_EIO);
		tried += a.attempts[i] == 3;
		not_tried += a.attempts[i] == 0 && strstr(a.error[i], "not tried: its origin");
	}
	ck_assert_int_eq(tried, 1);
	ck_assert_int_eq(not_tried, 3);
	for (int i = 1; i < 7; i += 2) {
		ck_assert_int_eq(a.rc[i], 0);
		ck_assert_int_eq(a.status[i], 200);
	}
	ck_assert_int_eq(srv.requests, 3);
}
END_TEST

/* A redirect to an origin that refuses: the request reached its own origin,
 * which stays reachable: its other page is fetched. */
START_TEST(redirect_to_a_dead_origin_is_its_urls_alone)
{
	struct server srv;
	server_start(&srv);
	unsigned closed;
	int closed_fd = refusing_port(&closed);
	char bufs[2][64];
	snprintf(bufs[0], 64, "http://127.0.0.1:%u/redir/%u", srv.port, closed);
	snprintf(bufs[1], 64, "http://127.0.0.1:%u/page/2", srv.port);
	const char *urls[2] = {bufs[0], bufs[1]};
	struct answers a;
	fetch_into(&a, urls, 2,
	           (isotier_fetch_opts){.jobs = 1,
	                                .timeout_s = 10,
	                                .max_attempts = 2,
	                                .backoff_ms = 20,
	                                .max_redirects = 5});
	server_stop(&srv);
	close(closed_fd);
	ck_assert_int_eq(a.rc[0], ISOTIER_EIO);
	ck_assert_int_eq(a.rc[1], 0);
	ck_assert_int_eq(a.status[1], 200);
	ck_assert_int_eq(a.attempts[1], 1);
}
END_TEST

/* A request that reached its server and timed out says nothing of the
 * origin's other pages: they are fetched. */
START_TEST(timeout_is_its_urls_alone)
{
	struct server srv;
	server_start(&srv);
	char bufs[2][64];
	snprintf(bufs[0], 64, "http://127.0.0.1:%u/hang/1", srv.port);
	snprintf(bufs[1], 64, "http://127.0.0.1:%u/page/2", srv.port);
	const char *urls[2] = {bufs[0], bufs[1]};
	struct answers a;
	fetch_into(&a, urls, 2, (isotier_fetch_opts){.jobs = 1, .timeout_s = 1, .max_attempts = 1});
	server_stop(&srv);
	ck_assert_int_eq(a.rc[0], ISOTIER_ETIMEDOUT);
	ck_assert_int_eq(a.rc[1], 0);
	ck_assert_int_eq(a.status[1], 200);
	ck_assert_int_eq(srv.requests, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fetch");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, slow_callback_holds_the_workers_back);
	tcase_add_test(tc, stop_ends_the_run_before_the_next_delivery);
	tcase_add_test(tc, failing_callback_ends_the_run);
	tcase_add_test(tc, cancel_pipe_never_on_descriptor_zero);
	tcase_add_test(tc, unreachable_origin_answers_for_its_other_urls);
	tcase_add_test(tc, timeout_is_its_urls_alone);
	tcase_add_test(tc, dead_origin_tried_once_by_many_workers);
	tcase_add_test(tc, redirect_to_a_dead_origin_is_its_urls_alone);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
