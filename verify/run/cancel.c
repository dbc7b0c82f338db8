/* SPDX-License-Identifier: Apache-2.0 */
/* cancel.c - SIGINT/SIGTERM as a cancel descriptor (see cancel.h). */
#include "cancel.h"

#include <errno.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The CLI's own process-wide state (the library has none). */
static int cancel_fd = -1;

static void cancel_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

int cli_cancel_start(void)
{
	if (cancel_fd >= 0)
		return 0;
	sigset_t set, old;
	cancel_set(&set);
	int rc = pthread_sigmask(SIG_BLOCK, &set, &old);
	if (rc != 0)
		return -rc;
	/* Blocked first: one that comes meanwhile stays pending, never kills us. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	cancel_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (cancel_fd < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return -e;
	}
	return 0;
}

int cli_cancel_fd(void)
{
	return cancel_fd;
}

int cli_cancel_signal(void)
{
	sigset_t pending;
	if (cancel_fd < 0 || sigpending(&pending) != 0)
		return 0;
	return sigismember(&pending, SIGINT)    ? SIGINT
	       : sigismember(&pending, SIGTERM) ? SIGTERM
	                                        : 0;
}

void cli_cancel_stop(void)
{
	if (cancel_fd >= 0)
		close(cancel_fd);
	cancel_fd = -1;
}
