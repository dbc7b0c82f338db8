/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_remote_adapters.c - every remote adapter (e2b, daytona, fly, vercel)
 * whole, through its descriptor, against answers from the input: a create,
 * the probe's upload, a start poll, an exec (E2B's Connect event stream,
 * Daytona's ExecuteResponse, Fly's exec answer, Vercel's command, its wait
 * and its ndjson logs), a delete, and the list a sweep by nonce reads.
 * fuzz_remote_answer covers the shared readers; this covers what each
 * adapter makes of them.
 *
 * A plain HTTP/1.1 server on 127.0.0.1 in a thread answers each request with
 * the input's answer for its kind. Every other host (a toolbox URL an answer
 * names) reaches the same server as a proxy (https: refused), so nothing
 * leaves the machine. Input: one byte choosing the adapter, then for each
 * kind (create, upload, state, exec, result, logs, delete, list): a status
 * byte (an index into statuses[]), two bytes of big-endian length, the body.
 * Then attach() (verify --sandbox-id) to the caller's sandbox ATTACHED, the
 * state answer its lookup, the upload and exec answers its probe's: what it
 * reports to create the second sandbox like is a valid setting, and its
 * release deletes nothing.
 * Properties: every request the adapter makes is one of its API's routes,
 * with a sandbox id where one goes (an answer's id never steers a request to
 * another resource: "..", "." or a '/'); an exec that succeeds has a status
 * in 0-255; the planted credential never reaches the command's output; an
 * error always says something. Never a crash or a leak. */
#include "fuzz.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../../reference/backends/remote/remote.h"
#include "../../reference/backends/collect.h"
#include "../../reference/core/proc.h"

#define KEY   "fuzz-PLANTED-credential-0123456789"
#define NONCE "00112233445566778899aabb"

enum { K_CREATE, K_UPLOAD, K_STATE, K_EXEC, K_RESULT, K_LOGS, K_DELETE, K_LIST, K_N };

/* No 429 or 5xx: their retries and back-off are the emulator tests' part
 * (remote_*.sh); here they would only make inputs slow. */
static const int statuses[] = {200, 201, 204, 404, 400, 401, 403, 409};

typedef struct route {
	const char *method, *pattern; /* '*': one sandbox id; a leading "**": any prefix */
	int kind;
} route;

#define ATTACHED "fuzz-attached-0"

static const route e2b_routes[] = {{"POST", "/sandboxes", K_CREATE},
                                   {"GET", "/sandboxes/*", K_STATE},
                                   {"GET", "/v2/sandboxes", K_LIST},
                                   {"DELETE", "/sandboxes/*", K_DELETE},
                                   {"POST", "/envd/*/files", K_UPLOAD},
                                   {"POST", "/envd/*/process.Process/Start", K_EXEC},
                                   {NULL, NULL, 0}};
static const route daytona_routes[] = {{"POST", "/api/sandbox", K_CREATE},
                                       {"GET", "/api/sandbox", K_LIST},
                                       {"GET", "/api/sandbox/*", K_STATE},
                                       {"DELETE", "/api/sandbox/*", K_DELETE},
                                       {"POST", "**/*/files/upload", K_UPLOAD},
                                       {"POST", "**/*/process/execute", K_EXEC},
                                       {NULL, NULL, 0}};
static const route fly_routes[] = {{"POST", "/v1/apps/fuzzapp/machines", K_CREATE},
                                   {"GET", "/v1/apps/fuzzapp/machines", K_LIST},
                                   {"GET", "/v1/apps/fuzzapp/machines/*/wait", K_STATE},
                                   {"GET", "/v1/apps/fuzzapp/machines/*", K_STATE},
                                   {"POST", "/v1/apps/fuzzapp/machines/*/exec", K_EXEC},
                                   {"DELETE", "/v1/apps/fuzzapp/machines/*", K_DELETE},
                                   {NULL, NULL, 0}};
static const route vercel_routes[] = {{"POST", "/v3/sandboxes", K_CREATE},
                                      {"GET", "/v2/sandboxes", K_LIST},
                                      {"GET", "/v2/sandboxes/sessions/*", K_STATE},
                                      {"POST", "/v2/sandboxes/sessions/*/fs/write", K_UPLOAD},
                                      {"POST", "/v2/sandboxes/sessions/*/cmd", K_EXEC},
                                      {"GET", "/v2/sandboxes/sessions/*/cmd/*", K_RESULT},
                                      {"GET", "/v2/sandboxes/sessions/*/cmd/*/logs", K_LOGS},
                                      {"POST", "/v2/sandboxes/sessions/*/stop", K_DELETE},
                                      {NULL, NULL, 0}};

static const struct {
	const char *name;
	const route *routes;
} adapters[] = {{"e2b", e2b_routes},
                {"daytona", daytona_routes},
                {"fly", fly_routes},
                {"vercel", vercel_routes}};

/* What the server answers: set per input under the lock, from a copy of the
 * input (a request the adapter gave up on may still be in the server's
 * queue when the next input starts). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *copy;
static struct {
	int status;
	const uint8_t *body;
	size_t len;
} answer[K_N];
static const route *routes;
static char stray[300]; /* the first request that matched no route */
static bool attaching;  /* attach() runs: a delete of ATTACHED is counted */
static int attached_deleted;
static int port;

/* The whole buffer to fd; never SIGPIPE (the client may be gone). */
static void put(int fd, const void *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static void put_str(int fd, const char *s)
{
	put(fd, s, strlen(s));
}

/* True when seg is a sandbox id a route may carry: [A-Za-z0-9._-]+, not "."
 * nor "..", which a client would resolve into another path. */
static bool id_segment(const char *seg, size_t n)
{
	if (!n || (n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
		            seg[i]))
			return false;
	return true;
}

/* path (no query) against pattern, segment by segment. */
static bool path_matches(const char *path, const char *pattern)
{
	if (!strncmp(pattern, "**", 2)) { /* any prefix: try each suffix */
		for (const char *p = path; p; p = strchr(p + 1, '/'))
			if (path_matches(p, pattern + 2))
				return true;
		return false;
	}
	while (*pattern && *path) {
		if (*pattern != '/' || *path != '/')
			return false;
		pattern++, path++;
		size_t pl = strcspn(pattern, "/"), sl = strcspn(path, "/");
		bool ok = pl == 1 && *pattern == '*' ? id_segment(path, sl)
		                                     : pl == sl && !strncmp(pattern, path, pl);
		if (!ok)
			return false;
		pattern += pl, path += sl;
	}
	return !*pattern && !*path;
}

static int classify(const char *method, const char *target)
{
	char path[2048];
	if (!strncmp(target, "http://", 7)) { /* through the proxy: drop scheme and host */
		target = strchr(target + 7, '/');
		if (!target)
			target = "/";
	}
	snprintf(path, sizeof path, "%.*s", (int)strcspn(target, "?#"), target);
	/* A table's patterns are disjoint (method, or number of segments). */
	for (const route *r = routes; r->method; r++)
		if (!strcmp(r->method, method) && path_matches(path, r->pattern))
			return r->kind;
	return -1;
}

static bool read_more(int fd, char *buf, size_t *len, size_t cap)
{
	if (*len >= cap)
		return false;
	ssize_t n = read(fd, buf + *len, cap - *len);
	if (n <= 0)
		return false;
	*len += (size_t)n;
	return true;
}

/* One request on fd: read it whole (its body discarded), answer, close. */
static void serve_one(int fd)
{
	static char buf[1 << 20];
	size_t len = 0;
	char *head_end = NULL;
	while (!(head_end = memmem(buf, len, "\r\n\r\n", 4)))
		if (!read_more(fd, buf, &len, sizeof buf - 1))
			return;
	buf[len] = '\0';
	char method[16], target[1024];
	if (sscanf(buf, "%15s %1023s", method, target) != 2)
		return;
	if (!strcmp(method, "CONNECT")) { /* an https URL an answer named: not here */
		put_str(fd,
		        "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		return;
	}
	size_t head = (size_t)(head_end - buf) + 4;
	*head_end = '\0';
	const char *cl = strcasestr(buf, "\r\ncontent-length:");
	bool chunked = strcasestr(buf, "\r\ntransfer-encoding: chunked") != NULL;
	if (strcasestr(buf, "\r\nexpect: 100-continue"))
		put_str(fd, "HTTP/1.1 100 Continue\r\n\r\n");
	if (cl) {
		size_t want = head + strtoul(cl + 17, NULL, 10);
		while (len < want && read_more(fd, buf, &len, sizeof buf - 1))
			;
	} else if (chunked) {
		while (!(len >= 5 && !memcmp(buf + len - 5, "0\r\n\r\n", 5)) &&
		       read_more(fd, buf, &len, sizeof buf - 1))
			;
	}
	/* A client that gave up (an earlier input's request, late in the
	 * queue) has closed its side: not this input's, not answered. */
	struct pollfd pf = {.fd = fd, .events = POLLRDHUP};
	if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR)))
		return;
	pthread_mutex_lock(&lock);
	int kind = classify(method, target);
	if (kind < 0) {
		if (!stray[0])
			snprintf(stray, sizeof stray, "%s %s", method, target);
		pthread_mutex_unlock(&lock);
		put_str(fd,
		        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		return;
	}
	if (attaching && kind == K_DELETE && strstr(target, ATTACHED))
		attached_deleted++;
	const char *type = kind == K_EXEC && routes == e2b_routes ? "application/connect+json"
	                   : kind == K_LOGS                       ? "application/x-ndjson"
	                                                          : "application/json";
	int st = answer[kind].status;
	size_t blen = st == 204 ? 0 : answer[kind].len;
	char hdr[256];
	snprintf(hdr, sizeof hdr,
	         "HTTP/1.1 %d Fuzz\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	         "Connection: close\r\n\r\n",
	         st, type, blen);
	put_str(fd, hdr);
	put(fd, answer[kind].body, blen);
	pthread_mutex_unlock(&lock);
}

static void *server_main(void *arg)
{
	int ls = *(int *)arg;
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		struct timeval tv = {.tv_sec = 2};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		serve_one(fd);
		shutdown(fd, SHUT_WR);
		close(fd);
	}
	return NULL;
}

static char probe[64], scratch[64];

/* The run's directory (leases, the probe) goes with the process. */
static void remove_scratch(void)
{
	isotier__rmtree(scratch);
}

static void setup(void)
{
	static int ls;
	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 16) ||
	    getsockname(ls, (struct sockaddr *)&a, &al))
		abort();
	port = ntohs(a.sin_port);
	pthread_t t;
	if (pthread_create(&t, NULL, server_main, &ls))
		abort();
	char url[128], dir[] = "/tmp/fuzz-remote.XXXXXX";
	if (!mkdtemp(dir))
		abort();
	snprintf(scratch, sizeof scratch, "%s", dir);
	atexit(remove_scratch);
	/* The adapters lease what they create: in a directory of this run's. */
	char state[64];
	snprintf(state, sizeof state, "%s/state", dir);
	setenv("ISOTIER_STATE_DIR", state, 1);
	snprintf(probe, sizeof probe, "%s/probe", dir);
	FILE *f = fopen(probe, "w");
	if (!f || fputs("#!/bin/sh\necho fuzz\n", f) < 0 || fclose(f))
		abort();
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	setenv("http_proxy", url, 1);
	setenv("HTTPS_PROXY", url, 1);
	setenv("ALL_PROXY", url, 1);
	setenv("NO_PROXY", "127.0.0.1", 1);
	setenv("no_proxy", "127.0.0.1", 1);
	setenv("E2B_API_KEY", KEY, 1);
	setenv("ISOTIER_E2B_API_URL", url, 1);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/envd/{id}", port);
	setenv("ISOTIER_E2B_ENVD_URL", url, 1);
	setenv("DAYTONA_API_KEY", KEY, 1);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/api", port);
	setenv("ISOTIER_DAYTONA_API_URL", url, 1);
	setenv("FLY_API_TOKEN", KEY, 1);
	setenv("FLY_APP", "fuzzapp", 1);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", port);
	setenv("ISOTIER_FLY_API_URL", url, 1);
	setenv("VERCEL_TOKEN", KEY, 1);
	setenv("VERCEL_TEAM_ID", "team_fuzz", 1);
	setenv("VERCEL_PROJECT_ID", "prj_fuzz", 1);
	snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
	setenv("ISOTIER_VERCEL_API_URL", url, 1);
}

typedef struct output {
	char buf[2][8192];
	size_t len[2];
} output;

static int keep_output(int stream, const char *buf, size_t len, void *data)
{
	output *o = data;
	int k = stream == 2;
	size_t room = sizeof o->buf[k] - 1 - o->len[k];
	if (len > room)
		len = room;
	memcpy(o->buf[k] + o->len[k], buf, len);
	o->len[k] += len;
	o->buf[k][o->len[k]] = '\0';
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		setup();
		ready = true;
	}
	if (!size)
		return 0;
	size_t which = data[0] % (sizeof adapters / sizeof *adapters);
	pthread_mutex_lock(&lock);
	free(copy);
	copy = malloc(size);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	data = copy;
	routes = adapters[which].routes;
	stray[0] = '\0';
	size_t off = 1;
	for (int k = 0; k < K_N; k++) {
		answer[k].status = 404;
		answer[k].body = NULL;
		answer[k].len = 0;
		if (off + 3 > size)
			continue;
		answer[k].status = statuses[data[off] % (sizeof statuses / sizeof *statuses)];
		size_t n = (size_t)data[off + 1] << 8 | data[off + 2];
		off += 3;
		answer[k].body = data + off;
		answer[k].len = n < size - off ? n : size - off;
		off += answer[k].len;
	}
	pthread_mutex_unlock(&lock);
	const isotier_backend *b = isotier__backend_lookup(adapters[which].name);
	FUZZ_ASSERT(b && b->provision && b->release && b->sweep_run && b->attach, "no adapter %s",
	            adapters[which].name);
	/* A new run each input: the per-run cap on creates starts again. */
	isotier__remote_reserve_reset();
	isotier_backend_spec spec = {.probe_path = probe,
	                             .timeout_s = 2,
	                             .cancel_fd = -1,
	                             .deadline_ms = isotier__now_ms() + 400};
	void *st = NULL;
	isotier_error err = {0};
	/* FUZZ_REMOTE_DEBUG=1: each step's outcome on stderr (reading a seed). */
	bool debug = getenv("FUZZ_REMOTE_DEBUG") != NULL;
	int rc = b->provision(&st, &spec, &err);
	FUZZ_ASSERT(rc == 0 || err.message[0], "%s: provision failed without a message", b->name);
	if (debug)
		fprintf(stderr, "%s provision: %d %s\n", b->name, rc, err.message);
	if (rc == 0) {
		const char *argv[] = {ISOTIER_GUEST_PROBE, "--json", NULL};
		isotier_exec_request req = {
		    .argv = argv, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1, .timeout_s = 2};
		output o = {0};
		int status = -7;
		isotier_error e = {0};
		int erc = isotier__exec_stream(b, st, &req, keep_output, &o, &status, &e);
		if (debug)
			fprintf(stderr, "%s exec: %d status %d %s\n", b->name, erc, status,
			        e.message);
		if (erc == 0)
			FUZZ_ASSERT(status >= 0 && status <= 255, "%s: exit status %d taken",
			            b->name, status);
		else
			FUZZ_ASSERT(e.message[0], "%s: exec failed without a message", b->name);
		for (int k = 0; k < 2; k++)
			FUZZ_ASSERT(!strstr(o.buf[k], KEY), "%s: the credential reached the output",
			            b->name);
	}
	if (st) {
		isotier_error e = {0};
		int rrc = b->release(st, &e);
		FUZZ_ASSERT(rrc == 0 || e.message[0], "%s: release failed without a message",
		            b->name);
	}
	/* A dead run's sweep by its nonce (sweep.h), through the same answers. */
	char api[256];
	const char *envs[] = {"ISOTIER_E2B_API_URL", "ISOTIER_DAYTONA_API_URL",
	                      "ISOTIER_FLY_API_URL", "ISOTIER_VERCEL_API_URL"};
	snprintf(api, sizeof api, "%s", getenv(envs[which]));
	isotier_error e = {0};
	int src = b->sweep_run(NONCE, api, &e);
	if (debug)
		fprintf(stderr, "%s sweep: %d %s\n", b->name, src, e.message);
	FUZZ_ASSERT(src == 0 || e.message[0], "%s: sweep failed without a message", b->name);
	/* The caller's sandbox: attached, probed, released; never deleted. */
	pthread_mutex_lock(&lock);
	attaching = true;
	attached_deleted = 0;
	pthread_mutex_unlock(&lock);
	spec.deadline_ms = isotier__now_ms() + 400;
	void *at = (void *)1;
	char like[210];
	isotier_error ae = {0};
	int arc = b->attach(&at, &spec, ATTACHED, like, sizeof like, &ae);
	if (debug)
		fprintf(stderr, "%s attach: %d %s\n", b->name, arc, ae.message);
	FUZZ_ASSERT(arc == 0 ? at != NULL : at == NULL && ae.message[0],
	            "%s: attach %d left state %p (%s)", b->name, arc, at, ae.message);
	if (arc == 0) {
		FUZZ_ASSERT(strlen(like) <= 200 &&
		                strspn(like, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                             "0123456789._:/@-") == strlen(like),
		            "%s: attach reported a template no request may carry: %s", b->name,
		            like);
		isotier_error re = {0};
		FUZZ_ASSERT(b->release(at, &re) == 0, "%s: an attached release failed: %s", b->name,
		            re.message);
	}
	pthread_mutex_lock(&lock);
	attaching = false;
	FUZZ_ASSERT(!attached_deleted, "%s deleted the caller's sandbox", b->name);
	FUZZ_ASSERT(!stray[0], "%s asked for something that is none of its API's routes: %s",
	            b->name, stray);
	pthread_mutex_unlock(&lock);
	return 0;
}
