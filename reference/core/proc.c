/* SPDX-License-Identifier: Apache-2.0 */
/* proc.c - child processes: own process group, timeout, cancellable wait,
 * bounded capture; plus the small file helpers the backends share. No signal
 * state: cancellation is the caller's descriptor (see proc.h). */
#include "proc.h"
#include "lease.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

bool isotier__cancelled(int cancel_fd)
{
	if (cancel_fd <= 0)
		return false;
	struct pollfd pf = {.fd = cancel_fd, .events = POLLIN};
	int pr;
	do
		pr = poll(&pf, 1, 0);
	while (pr < 0 && errno == EINTR);
	return pr != 0; /* readable, hung up, not open, or poll failed: fail closed */
}

int isotier__find_program(char *out, size_t out_len, const char *name)
{
	if (!name || !*name)
		return -1;
	if (strchr(name, '/')) {
		if (access(name, X_OK) != 0)
			return -1;
		snprintf(out, out_len, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char cand[PATH_MAX];
		if (n > 0 && n + strlen(name) + 2 <= sizeof cand) {
			memcpy(cand, path, n);
			cand[n] = '/';
			strcpy(cand + n + 1, name);
			struct stat st;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(cand, X_OK) == 0) {
				snprintf(out, out_len, "%s", cand);
				return 0;
			}
		}
		if (!colon)
			break;
		path = colon + 1;
	}
	return -1;
}

int64_t isotier__now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int capture_add(isotier_capture *c, const char *buf, size_t n)
{
	size_t max = c->max ? c->max : (size_t)1 << 20;
	if (c->len >= max) {
		c->truncated = true;
		return 0;
	}
	if (n > max - c->len) {
		n = max - c->len;
		c->truncated = true;
	}
	char *nd = realloc(c->data, c->len + n + 1);
	if (!nd)
		return ISOTIER_ENOMEM;
	c->data = nd;
	memcpy(c->data + c->len, buf, n);
	c->len += n;
	c->data[c->len] = '\0';
	return 0;
}

/* The child side after fork: only async-signal-safe calls. */
static __attribute__((noreturn)) void child_exec(const char *prog, const isotier_proc_opts *o,
                                                 int in_fd, int out_fd, int err_fd, int errpipe,
                                                 pid_t parent)
{
	setpgid(0, 0);
	/* If we die (even by SIGKILL) the child goes too; the parent thread waits for it, so
	 * the thread-exit semantics of PDEATHSIG never fire early. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* The caller's mask (a CLI may block SIGINT/SIGTERM in every thread) is not the
	 * child's: it starts with none blocked. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Move the fds out of the 0..2 range first so the dup2s cannot clobber them. */
	int fds[3] = {in_fd, out_fd, err_fd};
	for (int i = 0; i < 3; i++) {
		if (fds[i] >= 0 && fds[i] <= 2) {
			int nfd = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
			if (nfd < 0)
				goto fail;
			fds[i] = nfd;
		}
	}
	for (int i = 0; i < 3; i++) {
		if (fds[i] >= 0 && dup2(fds[i], i) < 0)
			goto fail;
	}
	if (o->cwd && chdir(o->cwd) != 0)
		goto fail;
	/* No descriptor of ours beyond 0..2 may reach the child (bwrap passes inherited fds
	 * into the sandbox): mark all close-on-exec (the error pipe still works until exec). */
	if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0) {
		for (int fd = 3; fd < 65536; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	execve(prog, (char *const *)o->argv,
	       (char *const *)(o->envp ? o->envp : (const char *const *)environ));
fail:;
	int e = errno;
	ssize_t w = write(errpipe, &e, sizeof e);
	(void)w;
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* Reads what is available on *fd into a capture or sink; closes it on EOF. */
static int pump(int *fd, isotier_capture *cap, isotier_proc_sink sink, void *ctx, size_t *got)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof buf);
	*got = n > 0 ? (size_t)n : 0;
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		close_fd(fd);
		return 0;
	}
	if (n == 0) {
		close_fd(fd);
		return 0;
	}
	if (sink)
		return sink(ctx, buf, (size_t)n);
	if (cap)
		return capture_add(cap, buf, (size_t)n);
	return 0;
}

static const char *sink_error(int code)
{
	switch (code) {
	case ISOTIER_ENOMEM: return "capture: out of memory";
	case ISOTIER_ETIMEDOUT: return "the reader stopped reading until the time limit";
	case ISOTIER_EINTR: return "cancelled while relaying output";
	default: return isotier_strerror(code);
	}
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* The descriptors of one run: what the child gets as 0, 1, 2 (ours or the
 * caller's) and the ends we read. Every owned one is -1 or open. */
typedef struct proc_io {
	int in_fd, out_fd, err_fd;                 /* the child's 0, 1, 2 (-1: inherit) */
	int null_in, null_err, out_w, err_w, ep_w; /* owned, closed once the child has them */
	int out_r, err_r, ep_r;                    /* owned, ours; out_r/err_r -1 once at EOF */
} proc_io;

#define PROC_IO_INIT                                                                               \
	{                                                                                          \
		-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1                                         \
	}

static void io_close_child_ends(proc_io *io)
{
	close_fd(&io->null_in);
	close_fd(&io->null_err);
	close_fd(&io->out_w);
	close_fd(&io->err_w);
	close_fd(&io->ep_w);
}

static void io_close(proc_io *io)
{
	io_close_child_ends(io);
	close_fd(&io->out_r);
	close_fd(&io->err_r);
	close_fd(&io->ep_r);
}

static int io_pipe(int *r, int *w, isotier_error *err)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "pipe");
	*r = p[0];
	*w = p[1];
	return 0;
}

/* /dev/null for stdin (and a quiet stderr), pipes for what is captured or
 * streamed, and the pipe the child reports a failed exec on. */
static int io_open(proc_io *io, const isotier_proc_opts *o, isotier_error *err)
{
	io->in_fd = o->stdin_fd;
	io->out_fd = o->stdout_fd;
	io->err_fd = o->stderr_fd;
	if (io->in_fd < 0) {
		if ((io->null_in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			return isotier__error_set(err, ISOTIER_EIO, errno, "open /dev/null");
		io->in_fd = io->null_in;
	}
	int rc;
	if (o->out_capture || o->out_sink) {
		if ((rc = io_pipe(&io->out_r, &io->out_w, err)) < 0)
			return rc;
		io->out_fd = io->out_w;
	}
	if (o->err_capture || o->err_sink) {
		if ((rc = io_pipe(&io->err_r, &io->err_w, err)) < 0)
			return rc;
		io->err_fd = io->err_w;
	} else if (io->err_fd < 0 && (o->flags & ISOTIER_PROC_QUIET)) {
		if ((io->null_err = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
			return isotier__error_set(err, ISOTIER_EIO, errno, "open /dev/null");
		io->err_fd = io->null_err;
	}
	return io_pipe(&io->ep_r, &io->ep_w, err);
}

/* A started child and the state of waiting for it. */
typedef struct proc_wait {
	const isotier_proc_opts *o;
	const char *name;
	pid_t pid;   /* 0 until forked */
	int pidfd;   /* -1: no pidfd here, look for the exit every 100 ms */
	bool exited; /* reaped; status holds its wait status */
	int status;
	int timeout_s; /* > 0, or < 0: none */
	int64_t deadline, drain_deadline;
	int64_t cancel_at, next_hook; /* cancelled with an on_cancel hook: since, next call */
	bool batch_wait;              /* the last stdout read was short (opts.out_batch_ms) */
} proc_wait;

/* After a cancel, how long a child with an on_cancel hook has to end once its
 * work is undone, and how often the hook is asked again meanwhile. */
#define CANCEL_GRACE_MS      20000
#define CANCEL_HOOK_EVERY_MS 1000

/* A cancel seen: with a hook, ask it to undo the child's work and keep waiting
 * for the child to end by itself (0); without one, ISOTIER_EINTR. */
static int cancel_seen(proc_wait *w, isotier_error *err)
{
	const isotier_proc_opts *o = w->o;
	if (!o->on_cancel)
		return isotier__error_set(err, ISOTIER_EINTR, 0, "%s: cancelled", w->name);
	int64_t now = isotier__now_ms();
	w->cancel_at = now;
	if (w->deadline > now + CANCEL_GRACE_MS)
		w->deadline = now + CANCEL_GRACE_MS;
	o->on_cancel(o->on_cancel_ctx);
	w->next_hook = isotier__now_ms() + CANCEL_HOOK_EVERY_MS;
	return 0;
}

static __thread isotier_spawn_hook spawn_hook;
static __thread void *spawn_hook_ctx;

void isotier__proc_spawn_hook_set(isotier_spawn_hook hook, void *ctx)
{
	spawn_hook = hook;
	spawn_hook_ctx = ctx;
}

/* Forks the child into its own process group; *exec_errno is the errno of a
 * failed exec (0 when it ran). */
static int spawn(proc_wait *w, const char *prog, proc_io *io, int *exec_errno, isotier_error *err)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "fork %s", w->name);
	if (pid == 0)
		child_exec(prog, w->o, io->in_fd, io->out_fd, io->err_fd, io->ep_w, parent);
	setpgid(pid, pid); /* also done by the child; whichever runs first wins */
	w->pid = pid;
	/* Before the child can exec: what it starts descends from a pid already bound. */
	if (spawn_hook)
		spawn_hook(spawn_hook_ctx, pid);
	io_close_child_ends(io);
	ssize_t en;
	do
		en = read(io->ep_r, exec_errno, sizeof *exec_errno);
	while (en < 0 && errno == EINTR);
	if (en != (ssize_t)sizeof *exec_errno)
		*exec_errno = 0;
	w->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	w->deadline =
	    w->timeout_s > 0 ? isotier__now_ms() + (int64_t)w->timeout_s * 1000 : INT64_MAX;
	return 0;
}

/* The CPU time (user + system, microseconds) of the children this thread
 * reaped: wait4's rusage of each one, which covers the descendants it reaped
 * in turn. Per thread, not RUSAGE_CHILDREN: that is the whole process's, and
 * under `verify --jobs` another worker's children would be counted too. */
static __thread int64_t reaped_cpu_us;

int64_t isotier__proc_thread_cpu_us(void)
{
	return reaped_cpu_us;
}

static void reap(proc_wait *w)
{
	struct rusage ru;
	pid_t got;
	while ((got = wait4(w->pid, &w->status, 0, &ru)) < 0 && errno == EINTR)
		;
	if (got == w->pid)
		reaped_cpu_us += (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
		                 ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Reaps the child when it has exited, killing what it left in its group first. */
static void reap_if_exited(proc_wait *w)
{
	siginfo_t si = {0};
	if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
	    si.si_pid != w->pid)
		return;
	/* Whatever the leader left in its group goes with it; the leader is still a
	 * zombie here, so the group id cannot be reused yet. */
	kill(-w->pid, SIGKILL);
	reap(w);
	w->exited = true;
	/* Output still in the pipes is read for a little longer. */
	int64_t grace = isotier__now_ms() + 2000;
	w->drain_deadline = grace < w->deadline ? grace : w->deadline;
}

/* Reads what one of the child's streams has; ISOTIER_E* when its sink gave up. */
static int pump_stream(proc_wait *w, proc_io *io, bool is_out, isotier_error *err)
{
	const isotier_proc_opts *o = w->o;
	size_t got = 0;
	int src = is_out ? pump(&io->out_r, o->out_capture, o->out_sink, o->out_sink_ctx, &got)
	                 : pump(&io->err_r, o->err_capture, o->err_capture ? NULL : o->err_sink,
	                        o->err_sink_ctx, &got);
	if (is_out && o->out_batch_ms > 0 && got > 0 && got < ISOTIER_PROC_BATCH_BYTES)
		w->batch_wait = true;
	if (!src)
		return 0;
	return isotier__error_set(err, src, 0, "%s: %s: %s", w->name, is_out ? "stdout" : "stderr",
	                          sink_error(src));
}

/*
 * One round of waiting: for the exit, output, the cancel descriptor or the
 * deadline. Returns 0 to go on, 1 when done (exited and drained), or
 * ISOTIER_EINTR / ISOTIER_ETIMEDOUT / another error (the caller kills).
 */
static int wait_step(proc_wait *w, proc_io *io, isotier_error *err)
{
	const isotier_proc_opts *o = w->o;
	struct pollfd pf[4];
	if (w->batch_wait) {
		/* Let a byte-at-a-time writer fill the pipe a little: the wait
		 * below then reads its bytes in one go. Bounded by the deadline. */
		w->batch_wait = false;
		int64_t left = w->deadline - isotier__now_ms();
		if (left > 0)
			poll(NULL, 0, (int)(left < o->out_batch_ms ? left : o->out_batch_ms));
	}
	int n = 0, i_pid = -1, i_cancel = -1, i_out = -1, i_err = -1;
	if (!w->exited && w->pidfd >= 0) {
		i_pid = n;
		pf[n++] = (struct pollfd){.fd = w->pidfd, .events = POLLIN};
	}
	if (o->cancel_fd > 0 && !(o->flags & ISOTIER_PROC_CLEANUP) && !w->cancel_at) {
		i_cancel = n;
		pf[n++] = (struct pollfd){.fd = o->cancel_fd, .events = POLLIN};
	}
	if (io->out_r >= 0) {
		i_out = n;
		pf[n++] = (struct pollfd){.fd = io->out_r, .events = POLLIN};
	}
	if (io->err_r >= 0) {
		i_err = n;
		pf[n++] = (struct pollfd){.fd = io->err_r, .events = POLLIN};
	}
	int64_t wait = (w->exited ? w->drain_deadline : w->deadline) - isotier__now_ms();
	if (w->pidfd < 0 && wait > 100)
		wait = 100;
	if (w->cancel_at && !w->exited && wait > w->next_hook - isotier__now_ms())
		wait = w->next_hook - isotier__now_ms();
	wait = wait < 0 ? 0 : wait > INT_MAX ? INT_MAX : wait;
	int pr = poll(pf, (nfds_t)n, (int)wait);
	if (pr < 0) /* EINTR: a signal for the caller's own handler, which may cancel us */
		return errno == EINTR ? 0 : isotier__error_set(err, ISOTIER_EIO, errno, "poll");
	if (i_cancel >= 0 && pf[i_cancel].revents) {
		if (w->exited)
			return 1; /* it ended on its own: keep its status, stop draining */
		return cancel_seen(w, err);
	}
	int rc;
	if (i_out >= 0 && (pf[i_out].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    (rc = pump_stream(w, io, true, err)) < 0)
		return rc;
	if (i_err >= 0 && (pf[i_err].revents & (POLLIN | POLLHUP | POLLERR)) &&
	    (rc = pump_stream(w, io, false, err)) < 0)
		return rc;
	if (!w->exited && (w->pidfd < 0 || (i_pid >= 0 && (pf[i_pid].revents & POLLIN)))) {
		reap_if_exited(w);
		if (w->exited && w->cancel_at)
			return isotier__error_set(err, ISOTIER_EINTR, 0, "%s: cancelled", w->name);
		if (w->exited)
			return 0;
	}
	int64_t now = isotier__now_ms();
	if (w->cancel_at && !w->exited && now >= w->deadline)
		return isotier__error_set(err, ISOTIER_EINTR, 0, "%s: cancelled", w->name);
	if (w->cancel_at && !w->exited && now >= w->next_hook) {
		o->on_cancel(o->on_cancel_ctx);
		w->next_hook = isotier__now_ms() + CANCEL_HOOK_EVERY_MS;
	}
	if (!w->exited && now >= w->deadline)
		return isotier__error_set(err, ISOTIER_ETIMEDOUT, 0, "%s: timed out after %d s",
		                          w->name, w->timeout_s);
	if (w->exited && now >= w->drain_deadline)
		return 1; /* a descendant outside the group holds the pipe: stop reading */
	return 0;
}

/* Checks before anything is started: the command, the cancel descriptor. */
static int run_check(const isotier_proc_opts *o, char *prog, size_t prog_len, isotier_error *err)
{
	if (!o || !o->argv || !o->argv[0])
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "run: no command");
	const char *name = o->argv[0];
	if (o->cancel_fd > 0 && fcntl(o->cancel_fd, F_GETFD) < 0)
		return isotier__error_set(err, ISOTIER_EINVAL, errno,
		                          "%s: cancel_fd %d is not an open descriptor", name,
		                          o->cancel_fd);
	if (!(o->flags & ISOTIER_PROC_CLEANUP) && isotier__cancelled(o->cancel_fd))
		return isotier__error_set(err, ISOTIER_EINTR, 0, "%s: not started: cancelled",
		                          name);
	if (isotier__find_program(prog, prog_len, name) != 0)
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s: not found in PATH",
		                          name);
	return 0;
}

int isotier__proc_run(const isotier_proc_opts *o, int *exit_status, isotier_error *err)
{
	int dummy_status;
	if (!exit_status)
		exit_status = &dummy_status;
	*exit_status = -1;
	char prog[PATH_MAX];
	int rc = run_check(o, prog, sizeof prog, err);
	if (rc < 0)
		return rc;
	proc_wait w = {.o = o,
	               .name = o->argv[0],
	               .pidfd = -1,
	               .timeout_s = o->timeout_s ? o->timeout_s : ISOTIER_PROC_DEFAULT_TIMEOUT_S};
	__attribute__((cleanup(io_close))) proc_io io = PROC_IO_INIT;
	int exec_errno = 0;
	if ((rc = io_open(&io, o, err)) < 0 || (rc = spawn(&w, prog, &io, &exec_errno, err)) < 0)
		return rc;
	while (io.out_r >= 0 || io.err_r >= 0 || !w.exited) {
		int st = wait_step(&w, &io, err);
		if (st < 0)
			rc = st;
		if (st != 0)
			break;
	}
	if (!w.exited && w.pid > 0) { /* timed out, cancelled or failed: the group goes */
		kill_group(w.pid);
		reap(&w);
	}
	if (w.pidfd >= 0)
		close(w.pidfd);
	if (rc)
		return rc;
	if (exec_errno)
		return isotier__error_set(err, ISOTIER_EIO, exec_errno, "exec %s", prog);
	if (WIFEXITED(w.status))
		*exit_status = WEXITSTATUS(w.status);
	else if (WIFSIGNALED(w.status))
		*exit_status = 128 + WTERMSIG(w.status);
	return 0;
}

void isotier__proc_cleanup(const char *const *argv, int timeout_s)
{
	isotier_proc_opts o = {.argv = argv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .timeout_s = timeout_s,
	                       .flags = ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET};
	int st;
	isotier__proc_run(&o, &st, NULL);
}

int isotier__mkdtemp(char **out, const char *prefix, isotier_error *err)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	char *path = NULL;
	if (asprintf(&path, "%s/%s.XXXXXX", tmp, prefix) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "mkdtemp: out of memory");
	if (!mkdtemp(path)) {
		int e = errno;
		isotier__error_set(err, ISOTIER_EIO, e, "mkdtemp %s", path);
		free(path);
		return ISOTIER_EIO;
	}
	/* A crash before isotier__rmtree leaves the lease for the next sweep; a
	 * directory no lease names is not kept (no sweep would find it). */
	const char *base = strrchr(path, '/') + 1;
	if (isotier__lease_take(&(isotier_lease){.kind = "dir", .path = path}, base) < 0) {
		int e = errno;
		rmdir(path);
		isotier__error_set(err, ISOTIER_EIO, e,
		                   "mkdtemp %s: its lease could not be written (state directory "
		                   "$ISOTIER_STATE_DIR/leases), so it is not created",
		                   path);
		free(path);
		return ISOTIER_EIO;
	}
	*out = path;
	return 0;
}

static void rmtree_at(int parent, const char *name, dev_t dev, int depth)
{
	struct stat st;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (S_ISDIR(st.st_mode) && st.st_dev == dev && depth < 64) {
		int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			DIR *d = fdopendir(fd);
			if (d) {
				struct dirent *e;
				while ((e = readdir(d))) {
					if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
						continue;
					rmtree_at(dirfd(d), e->d_name, dev, depth + 1);
				}
				closedir(d);
			} else {
				close(fd);
			}
		}
		unlinkat(parent, name, AT_REMOVEDIR);
	} else if (!S_ISDIR(st.st_mode)) {
		unlinkat(parent, name, 0);
	}
	/* A directory on another device is a mount point still in use: leave it. */
}

void isotier__rmtree(const char *path)
{
	struct stat st;
	if (!path || lstat(path, &st) != 0)
		return;
	rmtree_at(AT_FDCWD, path, st.st_dev, 0);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "isotier-", 8) && lstat(path, &st) != 0)
		isotier__lease_drop("dir", base);
}

int isotier__write_file(const char *path, const void *data, size_t len, int mode,
                        isotier_error *err)
{
	cleanup_close int fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "open %s", path);
	if (isotier__write_all(fd, data, len) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "write %s", path);
	if (fchmod(fd, (mode_t)mode) != 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "chmod %s", path);
	return 0;
}

int isotier__copy_file(const char *dst, const char *src, int mode, isotier_error *err)
{
	cleanup_free char *data = NULL;
	size_t len = 0;
	int rc = isotier__read_file(&data, &len, src, (size_t)256 << 20, err);
	if (rc)
		return rc;
	return isotier__write_file(dst, data, len, mode, err);
}
