/* SPDX-License-Identifier: Apache-2.0 */
/* collect.c - exec() output as it arrives, and kept bounded (collect.h). */
#include "collect.h"

#include "../core/proc.h"
#include "../../base/redact.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>

/* Once exec() has returned, what is still in the pipes is read to its end;
 * only a pipe that stays silent this long (a process outside the sandbox's
 * group holding it open), or that keeps talking past the cap, is cut. Time
 * spent in the caller's callback is not silence. */
#define STRAGGLER_IDLE_MS 2000
#define STRAGGLER_CAP_MS  30000

typedef struct reader {
	int fds[2]; /* stdout, stderr read ends; -1 once at end */
	isotier_output_fn on_output;
	void *data;
	bool dropping;        /* on_output asked for no more: drained and dropped */
	bool cut;             /* stopped reading before both pipes ended */
	int64_t exec_done_ms; /* 0 while exec() runs; when it returned (atomic) */
	int64_t last_data_ms; /* the last read that brought data, callback included */
} reader;

static void reader_take(reader *r, int k)
{
	char buf[65536];
	ssize_t n = read(r->fds[k], buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(r->fds[k]);
		r->fds[k] = -1;
		return;
	}
	/* Drained either way: the child never blocks on a full pipe. */
	if (!r->dropping && r->on_output(k + 1, buf, (size_t)n, r->data) != 0)
		r->dropping = true;
	r->last_data_ms = isotier__now_ms();
}

static void *reader_main(void *arg)
{
	reader *r = arg;
	while (r->fds[0] >= 0 || r->fds[1] >= 0) {
		struct pollfd pf[2] = {{.fd = r->fds[0], .events = POLLIN},
		                       {.fd = r->fds[1], .events = POLLIN}};
		int pr = poll(pf, 2, 100);
		for (int k = 0; k < 2 && pr > 0; k++)
			if (pf[k].revents && r->fds[k] >= 0)
				reader_take(r, k);
		int64_t done = __atomic_load_n(&r->exec_done_ms, __ATOMIC_ACQUIRE);
		int64_t now = isotier__now_ms();
		int64_t quiet_since = r->last_data_ms > done ? r->last_data_ms : done;
		if (done &&
		    (now - quiet_since > STRAGGLER_IDLE_MS || now - done > STRAGGLER_CAP_MS)) {
			r->cut = r->fds[0] >= 0 || r->fds[1] >= 0;
			break;
		}
	}
	for (int k = 0; k < 2; k++)
		if (r->fds[k] >= 0)
			close(r->fds[k]);
	return NULL;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

/* Between a backend that delivers output itself and the caller's callback:
 * each stream redacted as a stream (a credential split across two of the
 * provider's messages is still replaced); once the callback wants no more,
 * the rest is dropped here. */
typedef struct gate {
	isotier_output_fn on_output;
	void *data;
	bool dropping;
	int failed; /* ISOTIER_ENOMEM: a chunk could not be redacted */
	isotier_redact_stream streams[2];
} gate;

static void gate_deliver(gate *g, int stream, char *buf, size_t len)
{
	if (len && !g->dropping && g->on_output(stream, buf, len, g->data) != 0)
		g->dropping = true;
	free(buf);
}

static int gate_pass(int stream, const char *buf, size_t len, void *arg)
{
	gate *g = arg;
	char *out;
	size_t out_len;
	if (isotier__redact_stream_push(&g->streams[stream == 2], buf, len, &out, &out_len) < 0) {
		g->failed = ISOTIER_ENOMEM;
		g->dropping = true; /* never pass on a stream with a hole in it */
		return 0;
	}
	gate_deliver(g, stream, out, out_len);
	return 0;
}

/* exec() ran through gate g: what the redactors held back, then the result. */
static int gate_end(gate *g, int rc, const isotier_backend *b, isotier_error *err)
{
	for (int k = 0; k < 2; k++) {
		char *out;
		size_t out_len;
		isotier__redact_stream_end(&g->streams[k], &out, &out_len);
		gate_deliver(g, k + 1, out, out_len);
	}
	if (rc == 0 && g->failed)
		rc = isotier__error_set(err, g->failed, 0,
		                        "%s: output could not be redacted: out of memory", b->name);
	return rc;
}

int isotier__exec_stream(const isotier_backend *b, void *state, const isotier_exec_request *req,
                         isotier_output_fn on_output, void *data, int *exit_status,
                         isotier_error *err)
{
	isotier_exec_request mine = *req;
	if (b->delivers_output) { /* its bytes come from HTTP: no pipe in between */
		gate g = {.on_output = on_output, .data = data};
		mine.stdout_fd = -1;
		mine.stderr_fd = -1;
		mine.on_output = gate_pass;
		mine.output_data = &g;
		return gate_end(&g, b->exec(state, &mine, exit_status, err), b, err);
	}
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1};
	if (pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0) {
		int rc = isotier__error_set(err, ISOTIER_EIO, errno, "%s: pipe", b->name);
		close_pair(out_p);
		close_pair(err_p);
		return rc;
	}
	reader r = {.fds = {out_p[0], err_p[0]}, .on_output = on_output, .data = data};
	pthread_t tid;
	bool reading = pthread_create(&tid, NULL, reader_main, &r) == 0;
	if (!reading) {
		close(out_p[0]);
		close(err_p[0]);
	}
	mine.stdout_fd = out_p[1];
	mine.stderr_fd = err_p[1];
	mine.on_output = NULL;
	mine.output_data = NULL;
	int rc = reading ? b->exec(state, &mine, exit_status, err)
	                 : isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: reader thread", b->name);
	close(out_p[1]);
	close(err_p[1]);
	if (reading) {
		__atomic_store_n(&r.exec_done_ms, isotier__now_ms(), __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
	}
	/* The command ran, but not all it wrote was read: never a clean result. */
	if (rc == 0 && r.cut)
		rc = isotier__error_set(err, ISOTIER_EIO, 0,
		                        "%s: output cut short: a process outside the sandbox still "
		                        "held its pipe open",
		                        b->name);
	return rc;
}

/* isotier__exec_collect's callback: stdout up to max_out, stderr's start. */
typedef struct keeper {
	isotier_collected *c;
	size_t err_len;
	bool oom, started, reported;
} keeper;

/* Whether the stderr kept so far holds the line ISOTIER-START. */
static bool start_said(const char *err)
{
	static const char line[] = "ISOTIER-START\n";
	return !strncmp(err, line, sizeof line - 1) || strstr(err, "\nISOTIER-START\n");
}

static int keep(int stream, const char *buf, size_t n, void *data)
{
	keeper *k = data;
	isotier_collected *c = k->c;
	if (stream == 2) {
		size_t room = sizeof c->err - 1 - k->err_len;
		size_t take = n < room ? n : room;
		memcpy(c->err + k->err_len, buf, take);
		k->err_len += take;
		c->err[k->err_len] = '\0';
		if (c->on_start && !k->started && start_said(c->err)) {
			k->started = true;
			c->on_start(c->start_data);
		}
		return 0;
	}
	if (c->on_report && !k->reported && n > 0) {
		k->reported = true;
		c->on_report(c->report_data);
	}
	if (c->out_over || k->oom)
		return 0;
	if (c->out_len + n > c->max_out) {
		c->out_over = true;
		return 0;
	}
	char *o = realloc(c->out, c->out_len + n + 1);
	if (!o) {
		k->oom = true;
		return 0;
	}
	memcpy(o + c->out_len, buf, n);
	c->out = o;
	c->out_len += n;
	c->out[c->out_len] = '\0';
	return 0;
}

int isotier__exec_collect(isotier_collected *c, const isotier_backend *b, void *state,
                          const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	c->out = NULL;
	c->out_len = 0;
	c->out_over = false;
	c->err[0] = '\0';
	keeper k = {.c = c};
	isotier_exec_request mine = *req;
	mine.stdin_fd = -1;
	int rc = isotier__exec_stream(b, state, &mine, keep, &k, exit_status, err);
	c->out_over |= k.oom;
	return rc;
}
