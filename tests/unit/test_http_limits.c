/* SPDX-License-Identifier: Apache-2.0 */
/* test_http_limits.c - the HTTP client (reference/core/http.c) against a real HTTP
 * server on 127.0.0.1 (a thread here answering each path with a fixed,
 * hostile response): a Retry-After is honoured only within the request's own
 * time (its timeout, or its deadline), never for up to 30 s regardless; a
 * redirect to a scheme that is refused (file:, gopher:) is an error that
 * names the scheme and never echoes the URL it was sent to. */
#include <check.h>
#include "check_run.h"

#include "../../reference/core/http.h"
#include "../../reference/core/proc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct server {
	int fd;
	unsigned port;
	int requests; /* atomic */
	pthread_t tid;
};

/* The answer for a request line's path: the hostile behaviours under test. */
static const char *answer_for(const char *req)
{
	if (!strncmp(req, "GET /retry-long ", 16)) /* an hour: far past any request's time */
		return "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3600\r\n"
		       "Content-Length: 4\r\nConnection: close\r\n\r\nslow";
	if (!strncmp(req, "GET /retry-short ", 17)) /* a second: within it */
		return "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n"
		       "Content-Length: 4\r\nConnection: close\r\n\r\nbusy";
	if (!strncmp(req, "GET /to-file ", 13))
		return "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd?k=PLANTED-file\r\n"
		       "Content-Length: 0\r\nConnection: close\r\n\r\n";
	if (!strncmp(req, "GET /to-gopher ", 15))
		return "HTTP/1.1 301 Moved Permanently\r\n"
		       "Location: gopher://PLANTED-host.invalid/etc/shadow\r\n"
		       "Content-Length: 0\r\nConnection: close\r\n\r\n";
	return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
}

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
		const char *a = answer_for(req);
		ssize_t w = write(c, a, strlen(a));
		(void)w;
		close(c);
	}
}

static void server_start(struct server *s)
{
	*s = (struct server){0};
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s->fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(s->fd, 16), 0);
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
}

static int requests(struct server *s)
{
	return __atomic_load_n(&s->requests, __ATOMIC_SEQ_CST);
}

/* A Retry-After longer than the request's timeout is not waited out: the
 * answer comes back within the timeout (the old client slept 30 s), once. */
START_TEST(retry_after_bounded_by_timeout)
{
	struct server s;
	server_start(&s);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/retry-long", s.port);
	isotier_http_request r = {.method = "GET", .url = url, .timeout_ms = 2000};
	isotier_http_response resp;
	isotier_error err = {0};
	int64_t t0 = isotier__now_ms();
	int rc = isotier__http_perform(&r, &resp, &err);
	int64_t took = isotier__now_ms() - t0;
	ck_assert_msg(took < 2000, "a 429 with Retry-After 3600 held a 2 s request %lld ms",
	              (long long)took);
	ck_assert_int_eq(resp.status, 429);
	ck_assert_int_eq(requests(&s), 1);
	ck_assert_int_ne(rc, 0); /* the 429 is the error, said so */
	ck_assert_ptr_nonnull(strstr(err.message, "429"));
	isotier__http_response_clear(&resp);
	server_stop(&s);
}
END_TEST

/* The same under a deadline nearer than the timeout: the deadline bounds it. */
START_TEST(retry_after_bounded_by_deadline)
{
	struct server s;
	server_start(&s);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/retry-long", s.port);
	isotier_http_request r = {.method = "GET",
	                          .url = url,
	                          .timeout_ms = 60000,
	                          .deadline_ms = isotier__now_ms() + 1500};
	isotier_http_response resp;
	isotier_error err = {0};
	int64_t t0 = isotier__now_ms();
	ck_assert_int_ne(isotier__http_perform(&r, &resp, &err), 0);
	ck_assert_int_lt(isotier__now_ms() - t0, 1500);
	ck_assert_int_eq(requests(&s), 1);
	isotier__http_response_clear(&resp);
	server_stop(&s);
}
END_TEST

/* A Retry-After that fits in the request's time is still honoured: the
 * client waits it out and asks again (the server counts each attempt). */
START_TEST(retry_after_within_time_honoured)
{
	struct server s;
	server_start(&s);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/retry-short", s.port);
	isotier_http_request r = {
	    .method = "GET", .url = url, .timeout_ms = 10000, .max_attempts = 2, .retry_5xx = true};
	isotier_http_response resp;
	isotier_error err = {0};
	int64_t t0 = isotier__now_ms();
	isotier__http_perform(&r, &resp, &err);
	ck_assert_int_eq(requests(&s), 2);
	ck_assert_int_ge(isotier__now_ms() - t0, 1000); /* the server's second, waited */
	ck_assert_int_eq(resp.status, 503);
	isotier__http_response_clear(&resp);
	server_stop(&s);
}
END_TEST

/* A redirect to a refused scheme fails naming the scheme only: nothing of
 * the URL after it (host, path, query) reaches the message. */
START_TEST(refused_redirect_not_echoed)
{
	struct server s;
	server_start(&s);
	static const char *const paths[] = {"to-file", "to-gopher"};
	static const char *const schemes[] = {"file", "gopher"};
	for (int i = 0; i < 2; i++) {
		char url[64];
		snprintf(url, sizeof url, "http://127.0.0.1:%u/%s", s.port, paths[i]);
		isotier_http_request r = {.method = "GET",
		                          .url = url,
		                          .timeout_ms = 5000,
		                          .max_redirects = 5,
		                          .max_attempts = 1};
		isotier_http_response resp;
		isotier_error err = {0};
		int rc = isotier__http_perform(&r, &resp, &err);
		ck_assert_int_ne(rc, 0);
		ck_assert_msg(!strstr(err.message, "PLANTED") && !strstr(err.message, "/etc/"),
		              "the refused URL was echoed: %s", err.message);
		ck_assert_msg(!strstr(resp.effective_url, "PLANTED") &&
		                  !strstr(resp.effective_url, "/etc/"),
		              "the refused URL was kept: %s", resp.effective_url);
		char want[64];
		snprintf(want, sizeof want, "redirect to a %s: URL refused", schemes[i]);
		ck_assert_msg(strstr(err.message, want), "'%s' not in: %s", want, err.message);
		isotier__http_response_clear(&resp);
	}
	server_stop(&s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("http_limits");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, retry_after_bounded_by_timeout);
	tcase_add_test(tc, retry_after_bounded_by_deadline);
	tcase_add_test(tc, retry_after_within_time_honoured);
	tcase_add_test(tc, refused_redirect_not_echoed);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
