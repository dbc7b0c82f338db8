/* proc.c - child processes: own process group, timeout, interruptible wait,
 * bounded capture; plus the small file helpers the backends share. */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

/* The only process-wide state: forced by signals being process-wide. Threads
 * read it (no signal handler writes it: signals are taken through signalfd). */
static atomic_int interrupt_signal;

bool isotier_proc_interrupted(void)
{
	return interrupt_signal != 0;
}

int isotier_proc_interrupt_signal(void)
{
	return interrupt_signal;
}

static void interrupt_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

int isotier_proc_block_signals(void)
{
	sigset_t set;
	interrupt_set(&set);
	int rc = pthread_sigmask(SIG_BLOCK, &set, NULL);
	return rc ? -rc : 0;
}

int isotier_find_program(char *out, size_t out_len, const char *name)
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

int64_t isotier_now_ms(void)
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
                                                 const sigset_t *mask, pid_t parent)
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
	sigprocmask(SIG_SETMASK, mask, NULL);
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
static int pump(int *fd, isotier_capture *cap, isotier_proc_sink sink, void *ctx)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof buf);
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
	case ISOTIER_EINTR: return "interrupted while relaying output";
	default: return isotier_strerror(code);
	}
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

int isotier_proc_run(const isotier_proc_opts *o, int *exit_status, isotier_error *err)
{
	int dummy_status;
	if (!exit_status)
		exit_status = &dummy_status;
	*exit_status = -1;
	if (!o || !o->argv || !o->argv[0])
		return isotier_error_set(err, ISOTIER_EINVAL, 0, "run: no command");
	const char *name = o->argv[0];
	if (interrupt_signal && !(o->flags & ISOTIER_PROC_CLEANUP))
		return isotier_error_set(err, ISOTIER_EINTR, 0,
		                         "%s: not started: interrupted by signal %d", name,
		                         (int)interrupt_signal);
	char prog[PATH_MAX];
	if (isotier_find_program(prog, sizeof prog, name) != 0)
		return isotier_error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s: not found in PATH",
		                         name);
	int timeout_s = o->timeout_s ? o->timeout_s : ISOTIER_PROC_DEFAULT_TIMEOUT_S;

	cleanup_close int null_in = -1, null_err = -1;
	cleanup_close int out_r = -1, out_w = -1, err_r = -1, err_w = -1, ep_r = -1, ep_w = -1;
	int in_fd = o->stdin_fd;
	if (in_fd < 0) {
		null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null_in < 0)
			return isotier_error_set(err, ISOTIER_EIO, errno, "open /dev/null");
		in_fd = null_in;
	}
	int out_fd = o->stdout_fd, err_fd = o->stderr_fd;
	int p[2];
	if (o->out_capture || o->out_sink) {
		if (pipe2(p, O_CLOEXEC) != 0)
			return isotier_error_set(err, ISOTIER_EIO, errno, "pipe");
		out_r = p[0];
		out_w = p[1];
		out_fd = out_w;
	}
	if (o->err_capture || o->err_sink) {
		if (pipe2(p, O_CLOEXEC) != 0)
			return isotier_error_set(err, ISOTIER_EIO, errno, "pipe");
		err_r = p[0];
		err_w = p[1];
		err_fd = err_w;
	} else if (err_fd < 0 && (o->flags & ISOTIER_PROC_QUIET)) {
		null_err = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null_err < 0)
			return isotier_error_set(err, ISOTIER_EIO, errno, "open /dev/null");
		err_fd = null_err;
	}
	if (pipe2(p, O_CLOEXEC) != 0)
		return isotier_error_set(err, ISOTIER_EIO, errno, "pipe");
	ep_r = p[0];
	ep_w = p[1];

	sigset_t set, old;
	interrupt_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	cleanup_close int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return isotier_error_set(err, ISOTIER_EIO, e, "signalfd");
	}
	/* The child starts with the caller's original mask minus our two signals. */
	sigset_t child_mask = old;
	sigdelset(&child_mask, SIGINT);
	sigdelset(&child_mask, SIGTERM);

	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return isotier_error_set(err, ISOTIER_EIO, e, "fork %s", name);
	}
	if (pid == 0)
		child_exec(prog, o, in_fd, out_fd, err_fd, ep_w, &child_mask, parent);
	setpgid(pid, pid); /* also done by the child; whichever runs first wins */
	close_fd(&out_w);
	close_fd(&err_w);
	close_fd(&ep_w);

	int exec_errno = 0;
	ssize_t en;
	do
		en = read(ep_r, &exec_errno, sizeof exec_errno);
	while (en < 0 && errno == EINTR);
	if (en != (ssize_t)sizeof exec_errno)
		exec_errno = 0;

	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int rc = 0;
	bool exited = false;
	int64_t deadline = timeout_s > 0 ? isotier_now_ms() + (int64_t)timeout_s * 1000 : INT64_MAX;
	int64_t drain_deadline = 0;
	int status = 0;
	while (out_r >= 0 || err_r >= 0 || !exited) {
		struct pollfd pf[4];
		int n = 0, i_pid = -1, i_sig, i_out = -1, i_err = -1;
		if (!exited && pidfd >= 0) {
			i_pid = n;
			pf[n++] = (struct pollfd){.fd = pidfd, .events = POLLIN};
		}
		i_sig = n;
		pf[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		if (out_r >= 0) {
			i_out = n;
			pf[n++] = (struct pollfd){.fd = out_r, .events = POLLIN};
		}
		if (err_r >= 0) {
			i_err = n;
			pf[n++] = (struct pollfd){.fd = err_r, .events = POLLIN};
		}
		int64_t now = isotier_now_ms();
		int64_t until = exited ? drain_deadline : deadline;
		int64_t wait = until - now;
		if (wait > 100)
			wait = 100; /* notice another thread's interrupt promptly */
		if (wait < 0)
			wait = 0;
		int pr = poll(pf, (nfds_t)n, (int)wait);
		if (pr < 0 && errno != EINTR) {
			rc = isotier_error_set(err, ISOTIER_EIO, errno, "poll");
			break;
		}
		if (pr > 0 && (pf[i_sig].revents & POLLIN)) {
			struct signalfd_siginfo si;
			while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
				interrupt_signal = (int)si.ssi_signo;
		}
		if (interrupt_signal && !(o->flags & ISOTIER_PROC_CLEANUP) && !exited) {
			rc =
			    isotier_error_set(err, ISOTIER_EINTR, 0, "%s: interrupted by signal %d",
			                      name, (int)interrupt_signal);
			break;
		}
		if (pr > 0 && i_out >= 0 && (pf[i_out].revents & (POLLIN | POLLHUP | POLLERR))) {
			int src = pump(&out_r, o->out_capture, o->out_sink, o->out_sink_ctx);
			if (src) {
				rc = isotier_error_set(err, src, 0, "%s: stdout: %s", name,
				                       sink_error(src));
				break;
			}
		}
		if (pr > 0 && i_err >= 0 && (pf[i_err].revents & (POLLIN | POLLHUP | POLLERR))) {
			int src = pump(&err_r, o->err_capture, o->err_capture ? NULL : o->err_sink,
			               o->err_sink_ctx);
			if (src) {
				rc = isotier_error_set(err, src, 0, "%s: stderr: %s", name,
				                       sink_error(src));
				break;
			}
		}
		if (!exited &&
		    (pidfd < 0 || (i_pid >= 0 && pr > 0 && (pf[i_pid].revents & POLLIN)))) {
			siginfo_t si_w = {0};
			if (waitid(P_PID, (id_t)pid, &si_w, WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si_w.si_pid == pid) {
				/* Whatever the leader left in its group goes with it; the leader
				 * is still a zombie here, so the group id cannot be reused yet. */
				kill(-pid, SIGKILL);
				while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
					;
				exited = true;
				int64_t grace = isotier_now_ms() + 2000;
				drain_deadline = grace < deadline ? grace : deadline;
				continue;
			}
		}
		now = isotier_now_ms();
		if (!exited && now >= deadline) {
			rc = isotier_error_set(err, ISOTIER_ETIMEDOUT, 0,
			                       "%s: timed out after %d s", name, timeout_s);
			break;
		}
		if (exited && now >= drain_deadline)
			break; /* a descendant outside the group holds the pipe: stop reading */
	}
	if (!exited) {
		kill_group(pid);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		exited = true;
	}
	if (pidfd >= 0)
		close(pidfd);
	/* Keep a signal that raced in after the last read from being delivered on restore. */
	struct signalfd_siginfo si;
	while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
		interrupt_signal = (int)si.ssi_signo;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return rc;
	if (exec_errno)
		return isotier_error_set(err, ISOTIER_EIO, exec_errno, "exec %s", prog);
	if (WIFEXITED(status))
		*exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		*exit_status = 128 + WTERMSIG(status);
	return 0;
}

int isotier_mkdtemp(char **out, const char *prefix, isotier_error *err)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	char *path = NULL;
	if (asprintf(&path, "%s/%s.XXXXXX", tmp, prefix) < 0)
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "mkdtemp: out of memory");
	if (!mkdtemp(path)) {
		int e = errno;
		isotier_error_set(err, ISOTIER_EIO, e, "mkdtemp %s", path);
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

void isotier_rmtree(const char *path)
{
	struct stat st;
	if (!path || lstat(path, &st) != 0)
		return;
	rmtree_at(AT_FDCWD, path, st.st_dev, 0);
}

int isotier_write_file(const char *path, const void *data, size_t len, int mode, isotier_error *err)
{
	cleanup_close int fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return isotier_error_set(err, ISOTIER_EIO, errno, "open %s", path);
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return isotier_error_set(err, ISOTIER_EIO, errno, "write %s", path);
		}
		p += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, (mode_t)mode) != 0)
		return isotier_error_set(err, ISOTIER_EIO, errno, "chmod %s", path);
	return 0;
}

int isotier_copy_file(const char *dst, const char *src, int mode, isotier_error *err)
{
	cleanup_free char *data = NULL;
	size_t len = 0;
	int rc = isotier_read_file(&data, &len, src, (size_t)256 << 20, err);
	if (rc)
		return rc;
	return isotier_write_file(dst, data, len, mode, err);
}
