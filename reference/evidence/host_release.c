/* SPDX-License-Identifier: Apache-2.0 */
/* host_release.c - the host's "enough" to a probe it sees (host_release.h). */
#include "host_release.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#define RELEASE_READ_MAX 4096

/* The first len bytes (at most) of /proc/pid/NAME, NUL-terminated; its length or -1. */
static ssize_t read_proc(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Still argv0 (among its first three arguments) with the nonce. */
static bool still_probe(pid_t pid, const char *argv0, const char *nonce)
{
	char buf[RELEASE_READ_MAX];
	ssize_t len = read_proc(pid, "cmdline", buf, sizeof buf);
	bool probe = false, has_nonce = false;
	int i = 0;
	for (char *a = buf; len > 0 && a < buf + len; a += strlen(a) + 1, i++) {
		if (i < 3 && !strcmp(a, argv0))
			probe = true;
		if (!strcmp(a, nonce))
			has_nonce = true;
	}
	return probe && has_nonce;
}

/* SigCgt in /proc/pid/status has SIGUSR1: a handler, not the default
 * action (which would end the probe before it printed anything). */
static int catches_usr1(pid_t pid)
{
	char buf[RELEASE_READ_MAX];
	if (read_proc(pid, "status", buf, sizeof buf) < 0)
		return -1;
	const char *p = strstr(buf, "\nSigCgt:\t");
	unsigned long long mask = 0;
	if (!p || sscanf(p + 9, "%llx", &mask) != 1)
		return -1;
	return (mask >> (SIGUSR1 - 1)) & 1;
}

bool isotier__host_release_probe(pid_t pid, const char *argv0, const char *nonce)
{
	/* A pidfd first, then the checks: the process checked is the one
	 * signalled, however soon the pid is reused. */
	int fd = pidfd_open(pid, 0);
	if (fd < 0)
		return true; /* gone (or no pidfd here): nothing to shorten */
	bool done = true;
	int catches = catches_usr1(pid);
	if (catches == 0)
		done = false; /* not armed yet: the next look */
	else if (catches > 0 && still_probe(pid, argv0, nonce))
		pidfd_send_signal(fd, SIGUSR1, NULL, 0);
	close(fd);
	return done;
}
