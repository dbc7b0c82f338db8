/* SPDX-License-Identifier: Apache-2.0 */
/* test_remote.c - the remote backends' plumbing without a network: the
 * Connect envelope decoder (split feeds, cut streams, hostile frames),
 * base64, strict JSON (duplicate keys, depth, trailing bytes), the one
 * redaction layer (error messages included), the probe's shell script and
 * the HTTP client's cancellation (a local socket that never answers). */
#include <check.h>
#include "check_run.h"

#include "../../reference/backends/remote/remote.h"
#include "../../reference/backends/collect.h"
#include "../../reference/core/connect.h"
#include "../../reference/core/proc.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct seen {
	int n;
	unsigned flags[8];
	char msg[8][64];
} seen;

static int collect(void *ctx, unsigned flags, const char *msg, size_t len, isotier_error *err)
{
	(void)err;
	seen *s = ctx;
	if (s->n < 8) {
		s->flags[s->n] = flags;
		snprintf(s->msg[s->n], sizeof s->msg[0], "%.*s", (int)len, msg);
	}
	s->n++;
	return 0;
}

static size_t put(char *buf, unsigned flags, const char *msg)
{
	size_t n = strlen(msg);
	buf[0] = (char)flags;
	buf[1] = buf[2] = 0;
	buf[3] = (char)(n >> 8);
	buf[4] = (char)n;
	memcpy(buf + 5, msg, n);
	return n + 5;
}

START_TEST(connect_byte_by_byte)
{
	char stream[256];
	size_t n = put(stream, 0, "{\"a\":1}");
	n += put(stream + n, 0, "{}");
	n += put(stream + n, ISOTIER_CONNECT_END_STREAM, "{}");
	seen s = {0};
	isotier_connect_decoder d = {.cb = collect, .ctx = &s};
	isotier_error err = {0};
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(isotier__connect_feed(&d, stream + i, 1, &err), 0);
	ck_assert_int_eq(isotier__connect_finish(&d, &err), 0);
	ck_assert_int_eq(s.n, 3);
	ck_assert_str_eq(s.msg[0], "{\"a\":1}");
	ck_assert_uint_eq(s.flags[2], ISOTIER_CONNECT_END_STREAM);
	ck_assert(d.ended);
}
END_TEST

START_TEST(connect_cut_and_hostile)
{
	char stream[64];
	size_t n = put(stream, 0, "{\"a\":1}");
	seen s = {0};
	isotier_error err = {0};
	isotier_connect_decoder d = {.cb = collect, .ctx = &s};
	ck_assert_int_eq(isotier__connect_feed(&d, stream, n - 2, &err), 0);
	ck_assert_int_eq(isotier__connect_finish(&d, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "cut"));
	ck_assert_int_eq(s.n, 0);
	/* compressed flag: refused */
	isotier_connect_decoder d2 = {.cb = collect, .ctx = &s};
	n = put(stream, 0x01, "{}");
	ck_assert_int_eq(isotier__connect_feed(&d2, stream, n, &err), ISOTIER_EDATA);
	isotier__connect_finish(&d2, NULL);
	/* a frame announced larger than allowed, before its bytes arrive */
	isotier_connect_decoder d3 = {.cb = collect, .ctx = &s, .frame_max = 16};
	unsigned char big[5] = {0, 0, 0, 1, 0};
	ck_assert_int_eq(isotier__connect_feed(&d3, (char *)big, 5, &err), ISOTIER_EDATA);
	isotier__connect_finish(&d3, NULL);
	/* anything after end-of-stream */
	isotier_connect_decoder d4 = {.cb = collect, .ctx = &s};
	n = put(stream, ISOTIER_CONNECT_END_STREAM, "{}");
	n += put(stream + n, 0, "{}");
	ck_assert_int_eq(isotier__connect_feed(&d4, stream, n, &err), ISOTIER_EDATA);
	isotier__connect_finish(&d4, NULL);
	/* the whole stream is bounded */
	isotier_connect_decoder d5 = {.cb = collect, .ctx = &s, .stream_max = 8};
	n = put(stream, 0, "{\"a\":1}");
	ck_assert_int_eq(isotier__connect_feed(&d5, stream, n, &err), ISOTIER_EDATA);
	isotier__connect_finish(&d5, NULL);
}
END_TEST

START_TEST(envelope_round_trip)
{
	char *env = NULL;
	size_t len = 0;
	ck_assert_int_eq(isotier__connect_envelope(&env, &len, "{\"x\":2}", 7), 0);
	ck_assert_uint_eq(len, 12);
	ck_assert_int_eq(env[0], 0);
	ck_assert_int_eq(env[4], 7);
	seen s = {0};
	isotier_connect_decoder d = {.cb = collect, .ctx = &s};
	ck_assert_int_eq(isotier__connect_feed(&d, env, len, NULL), 0);
	ck_assert_int_eq(isotier__connect_finish(&d, NULL), 0);
	ck_assert_str_eq(s.msg[0], "{\"x\":2}");
	free(env);
}
END_TEST

START_TEST(base64)
{
	unsigned char out[64];
	ck_assert_int_eq(isotier__base64_decode(out, "aGVsbG8=", 8), 5);
	ck_assert(!memcmp(out, "hello", 5));
	ck_assert_int_eq(isotier__base64_decode(out, "aGVsbG8", 7), 5); /* unpadded */
	ck_assert_int_eq(isotier__base64_decode(out, "", 0), 0);
	ck_assert_int_eq(isotier__base64_decode(out, "a", 1), -1);
	ck_assert_int_eq(isotier__base64_decode(out, "a$==", 4), -1);
}
END_TEST

START_TEST(json_strict)
{
	isotier_error err = {0};
	const char *ok = "{\"a\":{\"b\":[1,2,{\"c\":\"}\\\"{\"}]}}";
	cJSON *v = isotier__json_parse_strict(ok, strlen(ok), "t", &err);
	ck_assert_ptr_nonnull(v);
	cJSON_Delete(v);
	const char *dup = "{\"a\":1,\"b\":{\"x\":1,\"x\":2}}";
	ck_assert_ptr_null(isotier__json_parse_strict(dup, strlen(dup), "t", &err));
	ck_assert_ptr_nonnull(strstr(err.message, "duplicate"));
	const char *trail = "{\"a\":1} {}";
	ck_assert_ptr_null(isotier__json_parse_strict(trail, strlen(trail), "t", &err));
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	ck_assert_ptr_null(isotier__json_parse_strict(deep, 200, "t", &err));
	ck_assert_ptr_nonnull(strstr(err.message, "deeper"));
	ck_assert_ptr_null(isotier__json_parse_strict("{\"a\":\0}", 7, "t", &err));
	ck_assert_ptr_null(isotier__json_parse_strict("", 0, "t", &err));
}
END_TEST

START_TEST(redaction_everywhere)
{
	const char *token = "tok-UNIT-planted-98765";
	ck_assert_int_eq(isotier__secret_add(token), 0);
	ck_assert_int_eq(isotier__secret_add("short"), -1);
	isotier_error err = {0};
	isotier__error_set(&err, ISOTIER_EIO, 0, "GET failed: header X-API-Key: %s, again %s",
	                   token, token);
	ck_assert_ptr_null(strstr(err.message, token));
	ck_assert_ptr_nonnull(strstr(err.message, ISOTIER_REDACTED));
	isotier__error_set(&err, ISOTIER_EIO, 0, "inner");
	isotier__error_prefix(&err, "outer %s", token);
	ck_assert_ptr_null(strstr(err.message, token));
	/* bytes, and a buffer too small for the mark: blanked instead */
	char b[32];
	size_t len = (size_t)snprintf(b, sizeof b, "%s", token);
	ck_assert(isotier__redact_bytes(b, &len, len));
	ck_assert(!memmem(b, len, token, strlen(token)));
}
END_TEST

START_TEST(probe_script)
{
	const char *argv[] = {ISOTIER_GUEST_PROBE,   "--json", "--capture",
	                      ISOTIER_GUEST_CAPTURE, "it's",   NULL};
	isotier_exec_request req = {.argv = argv};
	char *s = NULL;
	ck_assert_int_eq(isotier__remote_script(&s, &req, NULL, NULL), 0);
	ck_assert_str_eq(s,
	                 "rm -rf /tmp/isotier/capture && mkdir -p /tmp/isotier/capture && chmod "
	                 "0755 '/tmp/isotier/isotier-probe' && exec '/tmp/isotier/isotier-probe' "
	                 "'--json' '--capture' '/tmp/isotier/capture' 'it'\\''s'");
	free(s);
	/* Without --capture (the artifact step, the challenge's runs) an
	 * earlier capture stays for the fetch. */
	const char *plain[] = {ISOTIER_GUEST_PROBE, "--json", NULL};
	req.argv = plain;
	ck_assert_int_eq(isotier__remote_script(&s, &req, NULL, NULL), 0);
	ck_assert_str_eq(s, "mkdir -p /tmp/isotier/capture && chmod 0755 "
	                    "'/tmp/isotier/isotier-probe' && exec '/tmp/isotier/isotier-probe' "
	                    "'--json'");
	free(s);
	ck_assert(isotier__remote_id_valid("i2fcdda52d6b54efaa5a"));
	ck_assert(!isotier__remote_id_valid("../x"));
	ck_assert(!isotier__remote_id_valid(""));
	/* A URL path resolves these: DELETE .../sandboxes/.. reaches another resource. */
	ck_assert(!isotier__remote_id_valid("."));
	ck_assert(!isotier__remote_id_valid(".."));
	ck_assert(isotier__remote_id_valid("..x"));
}
END_TEST

START_TEST(cap_per_backend)
{
	setenv("ISOTIER_REMOTE_MAX_SANDBOXES", "2", 1);
	isotier_error err = {0};
	ck_assert_int_eq(isotier__remote_reserve("unit-a", &err), 0);
	ck_assert_int_eq(isotier__remote_reserve("unit-a", &err), 0);
	ck_assert_int_eq(isotier__remote_reserve("unit-a", &err), ISOTIER_ECONFIG);
	ck_assert_int_eq(isotier__remote_reserve("unit-b", &err), 0);
	/* A new run: the count starts again. */
	isotier__remote_reserve_reset();
	ck_assert_int_eq(isotier__remote_reserve("unit-a", &err), 0);
	ck_assert_int_eq(isotier__remote_reserve("unit-a", &err), 0);
	ck_assert_int_eq(isotier__remote_reserve("unit-a", &err), ISOTIER_ECONFIG);
	unsetenv("ISOTIER_REMOTE_MAX_SANDBOXES");
}
END_TEST

/* A listening socket that never accepts nor answers: requests to it hang. */
static int silent_server(char *url, size_t len)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	socklen_t al = sizeof a;
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	snprintf(url, len, "http://127.0.0.1:%u/x", (unsigned)ntohs(a.sin_port));
	return fd;
}

static void *cancel_later(void *arg)
{
	struct timespec ts = {0, 300 * 1000000L};
	nanosleep(&ts, NULL);
	ck_assert_int_eq(write(*(int *)arg, "x", 1), 1);
	return NULL;
}

START_TEST(http_cancel_fd)
{
	char url[64];
	int srv = silent_server(url, sizeof url);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	isotier_http_request r = {
	    .method = "GET", .url = url, .timeout_ms = 10000, .max_attempts = 1, .cancel_fd = p[0]};
	isotier_http_response resp;
	isotier_error err = {0};
	/* Cancelled while it hangs: ISOTIER_EINTR within ~100 ms, not the timeout. */
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_later, &p[1]), 0);
	int64_t t0 = isotier__now_ms();
	ck_assert_int_eq(isotier__http_perform(&r, &resp, &err), ISOTIER_EINTR);
	ck_assert_int_lt(isotier__now_ms() - t0, 2000);
	pthread_join(t, NULL);
	isotier__http_response_clear(&resp);
	/* Already cancelled: not started, nothing sent. */
	ck_assert_int_eq(isotier__http_perform(&r, &resp, &err), ISOTIER_EINTR);
	ck_assert(!resp.sent);
	isotier__http_response_clear(&resp);
	/* A cleanup request ignores the cancel descriptor: it runs to its own timeout. */
	r.cleanup = true;
	r.timeout_ms = 500;
	ck_assert_int_eq(isotier__http_perform(&r, &resp, &err), ISOTIER_ETIMEDOUT);
	isotier__http_response_clear(&resp);
	close(p[0]);
	close(p[1]);
	close(srv);
}
END_TEST

START_TEST(http_ignores_signals)
{
	/* A pending SIGINT is the caller's business, not the client's. */
	char url[64];
	int srv = silent_server(url, sizeof url);
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
	ck_assert_int_eq(raise(SIGINT), 0);
	isotier_http_request r = {
	    .method = "GET", .url = url, .timeout_ms = 500, .max_attempts = 1, .cancel_fd = -1};
	isotier_http_response resp;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__http_perform(&r, &resp, &err), ISOTIER_ETIMEDOUT);
	isotier__http_response_clear(&resp);
	struct timespec zero = {0, 0};
	ck_assert_int_eq(sigtimedwait(&set, NULL, &zero), SIGINT);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(srv);
}
END_TEST

START_TEST(remote_cancel_helpers)
{
	isotier_exec_request req = {.cancel_fd = 0};
	ck_assert_int_eq(isotier__remote_cancel_fd(7, &req), 7);
	ck_assert_int_eq(isotier__remote_cancel_fd(0, &req), -1);
	req.cancel_fd = 9;
	ck_assert_int_eq(isotier__remote_cancel_fd(7, &req), 9);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert(isotier__remote_sleep_ms(p[0], 50));
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	int64_t t0 = isotier__now_ms();
	ck_assert(!isotier__remote_sleep_ms(p[0], 5000));
	ck_assert_int_lt(isotier__now_ms() - t0, 1000);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* A remote backend's output arrives as the provider's messages: a secret the
 * library knows, split across two of them, is still redacted on the way to
 * the caller's callback (isotier__exec_stream's per-stream redactor). */
#define SPLIT_SECRET "split-PLANTED-credential-0123456789"

static int split_exec(void *state, const isotier_exec_request *req, int *exit_status,
                      isotier_error *err)
{
	(void)state;
	static const char *const parts[] = {"before ", "split-PLANTED-cred", "ential-0123456789",
	                                    " after; at the end: split-PLANTED-credential-01234",
	                                    "56789"};
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
		if (isotier__remote_relay(req, 1, parts[i], strlen(parts[i]), err) < 0)
			return err->code;
	*exit_status = 0;
	return 0;
}

static int split_noop(char *why, size_t len)
{
	snprintf(why, len, "test");
	return 1;
}

static int keep_all(int stream, const char *buf, size_t len, void *data)
{
	char *out = data;
	ck_assert_int_eq(stream, 1);
	size_t have = strlen(out);
	ck_assert_uint_lt(have + len, 512);
	memcpy(out + have, buf, len);
	out[have + len] = '\0';
	return 0;
}

START_TEST(split_secret_redacted_across_messages)
{
	ck_assert_int_eq(isotier__secret_add(SPLIT_SECRET), 0);
	const isotier_backend b = {.version = ISOTIER_BACKEND_VERSION,
	                           .name = "split",
	                           .remote = true,
	                           .delivers_output = true,
	                           .available = split_noop,
	                           .exec = split_exec};
	const char *argv[] = {"x", NULL};
	isotier_exec_request req = {.argv = argv};
	char out[512] = "";
	int status = -1;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__exec_stream(&b, NULL, &req, keep_all, out, &status, &err), 0);
	ck_assert_int_eq(status, 0);
	ck_assert_ptr_null(strstr(out, "PLANTED"));
	ck_assert_str_eq(out, "before " ISOTIER_REDACTED " after; at the end: " ISOTIER_REDACTED);

	/* The stream redactor alone: nothing held back is lost at the end. */
	isotier_redact_stream rs = {0};
	char *o;
	size_t n;
	ck_assert_int_eq(isotier__redact_stream_push(&rs, "abc", 3, &o, &n), 0);
	size_t passed = n;
	free(o);
	ck_assert_int_eq(isotier__redact_stream_end(&rs, &o, &n), 0);
	ck_assert_uint_eq(passed + n, 3);
	free(o);
}
END_TEST

/* A del() that must not be called: an attached sandbox is the caller's. */
static int must_not_delete(void *state, const char *id, isotier_error *err)
{
	(void)state;
	(void)err;
	ck_abort_msg("attached sandbox %s deleted", id);
	return 0;
}

static int must_not_sweep(void *state, isotier_error *err)
{
	(void)state;
	(void)err;
	ck_abort_msg("attached run swept");
	return 0;
}

/* Every remote backend with attach(): a hostile sandbox id is refused
 * (ISOTIER_EINVAL, naming the rule) before any request: the endpoint, a
 * listening socket, sees no connection. */
START_TEST(attach_refuses_bad_ids_before_any_request)
{
	char url[64];
	int srv = silent_server(url, sizeof url);
	static const char *const bad[] = {"",       ".",   "..",      "../sandboxes", "a/b",
	                                  "id?x=1", "a b", "id%2f..", "\xc3\xa9",     NULL};
	char long_id[200];
	memset(long_id, 'x', 129);
	long_id[129] = '\0';
	size_t n_attach = 0;
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		ck_assert_msg(!b->remote || b->attach, "%s: a remote backend without attach()",
		              b->name);
		if (!b->attach)
			continue;
		n_attach++;
		for (const isotier_backend_setting *st = b->settings; st && st->env; st++) {
			size_t k = strlen(st->env);
			if (st->required)
				setenv(st->env, "abcdef-123456", 1);
			else if (k > 8 && !strcmp(st->env + k - 8, "_API_URL"))
				setenv(st->env, url, 1);
		}
		isotier_backend_spec spec = {.probe_path = "/bin/true", .timeout_s = 5};
		for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
			const char *id = bad[k] ? bad[k] : long_id; /* NULL: the long one */
			void *state = (void *)1;
			char like[64] = "x";
			isotier_error err = {0};
			int rc = b->attach(&state, &spec, id, like, sizeof like, &err);
			ck_assert_msg(rc == ISOTIER_EINVAL, "%s: id '%.40s': %d %s", b->name, id,
			              rc, err.message);
			ck_assert_ptr_null(state);
			ck_assert_msg(strstr(err.message, "1 to 128 of"), "%s: %s", b->name,
			              err.message);
		}
	}
	ck_assert_uint_eq(n_attach, 4);
	struct pollfd pfd = {.fd = srv, .events = POLLIN};
	ck_assert_int_eq(poll(&pfd, 1, 0), 0); /* no connection waits to be accepted */
	close(srv);
}
END_TEST

/* An attached run's release() frees it and deletes nothing; the template a
 * provider reported is taken only when it is a valid setting. */
START_TEST(attached_release_and_like)
{
	isotier_remote_run *r = calloc(1, sizeof *r);
	ck_assert_ptr_nonnull(r);
	r->attached = true;
	r->created = true; /* even so */
	isotier_error err = {0};
	ck_assert_int_eq(isotier__remote_release(r, r, "i1", must_not_delete, must_not_sweep, &err),
	                 0);
	unsetenv("ISOTIER_TEST_LIKE");
	isotier_backend_spec spec = {.like = "caller-template"};
	ck_assert_str_eq(isotier__remote_like(&spec, "ISOTIER_TEST_LIKE", "base"),
	                 "caller-template");
	spec.like = "bad template";
	ck_assert_str_eq(isotier__remote_like(&spec, "ISOTIER_TEST_LIKE", "base"), "base");
	spec.like = "";
	setenv("ISOTIER_TEST_LIKE", "configured", 1);
	ck_assert_str_eq(isotier__remote_like(&spec, "ISOTIER_TEST_LIKE", "base"), "configured");
	ck_assert_str_eq(isotier__remote_like(NULL, "ISOTIER_TEST_LIKE", "base"), "configured");
	unsetenv("ISOTIER_TEST_LIKE");
}
END_TEST

/* A dead run's sweep (sweep.h) for a provider whose routes carry a setting
 * (Fly's app in the path, Vercel's team in the query): one that is not an id
 * is ISOTIER_ECONFIG naming it, and nothing is asked (the endpoint, a
 * listening socket, sees no connection): never a request to a URL the
 * setting rewrote. */
START_TEST(sweep_refuses_a_scope_that_is_no_id)
{
	char url[64];
	int srv = silent_server(url, sizeof url);
	url[strlen(url) - 2] = '\0'; /* the endpoint, without "/x" */
	static const struct {
		const char *backend, *key, *url_env, *env, *value;
	} cases[] = {
	    {"fly", "FLY_API_TOKEN", "ISOTIER_FLY_API_URL", "FLY_APP", "../other-app"},
	    {"vercel", "VERCEL_TOKEN", "ISOTIER_VERCEL_API_URL", "VERCEL_TEAM_ID", "t&teamId=x"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const isotier_backend *b = isotier__backend_lookup(cases[i].backend);
		ck_assert_ptr_nonnull(b);
		setenv(cases[i].key, "abcdef-123456", 1);
		setenv(cases[i].url_env, url, 1);
		setenv(cases[i].env, cases[i].value, 1);
		isotier_error err = {0};
		int rc = b->sweep_run("00112233aabbccdd", url, &err);
		ck_assert_msg(rc == ISOTIER_ECONFIG, "%s: %d %s", b->name, rc, err.message);
		ck_assert_msg(strstr(err.message, cases[i].env), "%s: %s", b->name, err.message);
		unsetenv(cases[i].env);
		unsetenv(cases[i].url_env);
	}
	struct pollfd pfd = {.fd = srv, .events = POLLIN};
	ck_assert_int_eq(poll(&pfd, 1, 0), 0); /* no connection waits to be accepted */
	close(srv);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("remote");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, connect_byte_by_byte);
	tcase_add_test(tc, connect_cut_and_hostile);
	tcase_add_test(tc, envelope_round_trip);
	tcase_add_test(tc, base64);
	tcase_add_test(tc, json_strict);
	tcase_add_test(tc, redaction_everywhere);
	tcase_add_test(tc, probe_script);
	tcase_add_test(tc, cap_per_backend);
	tcase_add_test(tc, http_cancel_fd);
	tcase_add_test(tc, http_ignores_signals);
	tcase_add_test(tc, remote_cancel_helpers);
	tcase_add_test(tc, split_secret_redacted_across_messages);
	tcase_add_test(tc, attach_refuses_bad_ids_before_any_request);
	tcase_add_test(tc, attached_release_and_like);
	tcase_add_test(tc, sweep_refuses_a_scope_that_is_no_id);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
