/* cancel.c - SIGINT/SIGTERM as a cancel pipe (see cancel.h). */
#include "cancel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

/* The CLI's own process-wide state (the library has none). The fields the
 * watcher shares are read and written with __atomic builtins. */
static struct {
	int fds[2];
	pthread_t tid;
	bool started;
	bool stopping;
	int signal;
} cancel = {.fds = {-1, -1}};

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

static void *watch(void *arg)
{
	(void)arg;
	sigset_t set;
	stop_set(&set);
	for (;;) {
		int sig = 0;
		if (sigwait(&set, &sig) != 0)
			continue;
		if (__atomic_load_n(&cancel.stopping, __ATOMIC_ACQUIRE))
			return NULL;
		int none = 0;
		if (!__atomic_compare_exchange_n(&cancel.signal, &none, sig, false, __ATOMIC_ACQ_REL,
		                                 __ATOMIC_ACQUIRE))
			continue; /* the pipe is readable already */
		ssize_t w;
		do
			w = write(cancel.fds[1], "x", 1);
		while (w < 0 && errno == EINTR);
	}
}

int cli_cancel_start(void)
{
	if (cancel.started)
		return 0;
	if (pipe2(cancel.fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	sigset_t set, old;
	stop_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	/* Blocked first: one that comes meanwhile stays pending, never kills us. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	int rc = pthread_create(&cancel.tid, NULL, watch, NULL);
	if (rc != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(cancel.fds[0]);
		close(cancel.fds[1]);
		cancel.fds[0] = cancel.fds[1] = -1;
		return -rc;
	}
	cancel.started = true;
	return 0;
}

int cli_cancel_fd(void)
{
	return cancel.fds[0];
}

int cli_cancel_signal(void)
{
	return __atomic_load_n(&cancel.signal, __ATOMIC_ACQUIRE);
}

void cli_cancel_stop(void)
{
	if (!cancel.started)
		return;
	__atomic_store_n(&cancel.stopping, true, __ATOMIC_RELEASE);
	pthread_kill(cancel.tid, SIGTERM); /* blocked there: sigwait() takes it */
	pthread_join(cancel.tid, NULL);
	close(cancel.fds[0]);
	close(cancel.fds[1]);
	cancel.fds[0] = cancel.fds[1] = -1;
	cancel.started = false;
}
