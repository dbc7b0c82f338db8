/* collect.c - one exec() with its output read, bounded (collect.h). */
#include "collect.h"

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>

typedef struct reader {
	int out_fd, err_fd;
	size_t max_out;
	char *out;
	size_t out_len;
	bool out_over, oom;
	char *err;
	size_t err_len;
	int64_t deadline; /* 0: none yet; set once the writers are closed (atomic) */
} reader;

static void reader_take(reader *r, int *fd, bool is_out)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (!is_out) {
		size_t room = ISOTIER_COLLECT_STDERR_KEEP - 1 - r->err_len;
		size_t k = (size_t)n < room ? (size_t)n : room;
		memcpy(r->err + r->err_len, buf, k);
		r->err_len += k;
		return;
	}
	if (r->out_over || r->oom)
		return; /* drained and dropped: the child never blocks */
	if (r->out_len + (size_t)n > r->max_out) {
		r->out_over = true;
		return;
	}
	char *o = realloc(r->out, r->out_len + (size_t)n + 1);
	if (!o) {
		r->oom = true;
		return;
	}
	memcpy(o + r->out_len, buf, (size_t)n);
	r->out = o;
	r->out_len += (size_t)n;
	r->out[r->out_len] = '\0';
}

static void *reader_main(void *arg)
{
	reader *r = arg;
	while (r->out_fd >= 0 || r->err_fd >= 0) {
		struct pollfd pf[2] = {{.fd = r->out_fd, .events = POLLIN},
		                       {.fd = r->err_fd, .events = POLLIN}};
		int pr = poll(pf, 2, 100);
		if (pr > 0 && pf[0].revents && r->out_fd >= 0)
			reader_take(r, &r->out_fd, true);
		if (pr > 0 && pf[1].revents && r->err_fd >= 0)
			reader_take(r, &r->err_fd, false);
		int64_t d = __atomic_load_n(&r->deadline, __ATOMIC_ACQUIRE);
		if (d && isotier_now_ms() > d)
			break; /* a straggler outside the sandbox's group holds the pipe */
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	return NULL;
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

int isotier_exec_collect(isotier_collected *c, const isotier_backend *b, void *state,
                         const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	c->out = NULL;
	c->out_len = 0;
	c->out_over = false;
	c->err[0] = '\0';
	int out_p[2] = {-1, -1}, err_p[2] = {-1, -1};
	if (pipe2(out_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0) {
		int rc = isotier_error_set(err, ISOTIER_EIO, errno, "%s: pipe", b->name);
		close_pair(out_p);
		close_pair(err_p);
		return rc;
	}
	reader r = {.out_fd = out_p[0], .err_fd = err_p[0], .err = c->err, .max_out = c->max_out};
	pthread_t tid;
	bool reading = pthread_create(&tid, NULL, reader_main, &r) == 0;
	if (!reading) {
		close(out_p[0]);
		close(err_p[0]);
	}
	isotier_exec_request mine = *req;
	mine.stdin_fd = -1;
	mine.stdout_fd = out_p[1];
	mine.stderr_fd = err_p[1];
	int rc = reading ? b->exec(state, &mine, exit_status, err)
	                 : isotier_error_set(err, ISOTIER_ENOMEM, 0, "%s: reader thread", b->name);
	close(out_p[1]);
	close(err_p[1]);
	if (reading) {
		/* A straggler outside the sandbox's group may hold the pipe open. */
		__atomic_store_n(&r.deadline, isotier_now_ms() + 2000, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
	}
	c->err[sizeof c->err - 1] = '\0';
	c->out = r.out;
	c->out_len = r.out_len;
	c->out_over = r.out_over || r.oom;
	return rc;
}
