/* SPDX-License-Identifier: Apache-2.0 */
/* observe_bound.c - the probe's report judged, then its command let run (observe_bound.h). */
#include "observe_bound.h"
#include "../evidence/probe_result.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char report_begin[] = "----- BEGIN ISOTIER PROBE -----\n";
static const char report_end[] = "----- END ISOTIER PROBE -----\n";

typedef struct reader {
	int out_r; /* the probe's (then the command's) standard output */
	int in_w; /* its standard input: a socket, so a write after it left is EPIPE, not SIGPIPE */
	int user_in; /* the caller's stdin, relayed after the word; -1: none */
	int user_out;
	isotier_host_watch *watch;
	const char *nonce;
	isotier_report_fn on_report;
	void *ctx;
	bool reported, released;
} reader;

static int write_all(int fd, const char *p, size_t n, bool socket)
{
	while (n > 0) {
		ssize_t w = socket ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The report: up to and including the end marker (or end of output, or the
 * bound). *end gets where the command's output starts; NULL json: none. */
static void read_report(reader *r, char *buf, size_t max, size_t *len, const char **json,
                        size_t *json_len, const char **end)
{
	*len = 0, *json = NULL, *json_len = 0, *end = NULL;
	while (*len < max) {
		ssize_t n = read(r->out_r, buf + *len, max - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
		buf[*len] = '\0';
		char *e = strstr(buf, report_end);
		if (!e)
			continue;
		*end = e + strlen(report_end);
		char *b = strstr(buf, report_begin);
		if (b && b < e) {
			*json = b + strlen(report_begin);
			*json_len = (size_t)(e - *json);
		}
		return;
	}
}

/* After the word: the command's output to the caller, the caller's input to
 * the command, until the command's output ends. Without the word the probe's
 * remaining output (its refusal) is read and dropped. */
static void relay(reader *r)
{
	char buf[16384];
	bool in_open = r->in_w >= 0 && r->user_in >= 0;
	for (;;) {
		struct pollfd p[2] = {{.fd = r->out_r, .events = POLLIN},
		                      {.fd = in_open ? r->user_in : -1, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents) {
			ssize_t n = read(r->out_r, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (r->released)
				write_all(r->user_out, buf, (size_t)n, false);
		}
		if (in_open && p[1].revents) {
			ssize_t n = read(r->user_in, buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 || write_all(r->in_w, buf, (size_t)n, true) < 0) {
				in_open = false;
				shutdown(r->in_w,
				         SHUT_WR); /* the command sees the end of its input */
			}
		}
	}
}

static void *reader_main(void *arg)
{
	reader *r = arg;
	char *buf = malloc(PROBE_RESULT_MAX_BYTES + 1);
	size_t len = 0, json_len = 0;
	const char *json = NULL, *end = NULL;
	if (buf)
		read_report(r, buf, PROBE_RESULT_MAX_BYTES, &len, &json, &json_len, &end);
	/* What the host saw, from before the probe started until its report was
	 * in: the command has not started (the probe waits for the word). */
	isotier_host_view view;
	isotier__host_watch_end(r->watch, &view);
	r->reported = true;
	bool go = r->on_report(r->ctx, json, json_len, &view);
	char word[160];
	snprintf(word, sizeof word, "ISOTIER-GO %s\n", r->nonce);
	if (go && write_all(r->in_w, word, strlen(word), true) == 0) {
		r->released = true;
		if (end && len > (size_t)(end - buf))
			write_all(r->user_out, end, len - (size_t)(end - buf), false);
	} else {
		write_all(r->in_w, "ISOTIER-NOGO\n", 13, true);
	}
	if (!r->released || r->user_in < 0)
		shutdown(r->in_w, SHUT_WR);
	free(buf);
	relay(r);
	return NULL;
}

int isotier__exec_bound(const isotier_backend *b, void *state,
                        const isotier_exec_request *probe_req, int stdin_fd, int stdout_fd,
                        isotier_host_watch *watch, const char *nonce, isotier_report_fn on_report,
                        void *ctx, bool *reported, bool *released, int *exit_status,
                        isotier_error *err)
{
	*reported = *released = false;
	int out[2] = {-1, -1}, in[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
		int e = errno;
		if (out[0] >= 0)
			close(out[0]), close(out[1]);
		return isotier__error_set(err, ISOTIER_EIO, e, "%s: bound exec: pipe", b->name);
	}
	reader r = {.out_r = out[0],
	            .in_w = in[1],
	            .user_in = stdin_fd,
	            .user_out = stdout_fd >= 0 ? stdout_fd : STDOUT_FILENO,
	            .watch = watch,
	            .nonce = nonce,
	            .on_report = on_report,
	            .ctx = ctx};
	pthread_t tid;
	if (pthread_create(&tid, NULL, reader_main, &r) != 0) {
		close(out[0]), close(out[1]), close(in[0]), close(in[1]);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: bound exec: reader thread",
		                          b->name);
	}
	isotier_exec_request req = *probe_req;
	req.stdin_fd = in[0];
	req.stdout_fd = out[1];
	/* On this thread: what exec() spawns is bound to the watch (host_watch.h). */
	int rc = b->exec(state, &req, exit_status, err);
	close(
	    out[1]); /* the reader sees the end of the output once the sandbox's copies are gone */
	close(in[0]);
	pthread_join(tid, NULL);
	close(out[0]);
	close(in[1]);
	*reported = r.reported;
	*released = r.released;
	return rc;
}
