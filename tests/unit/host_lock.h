/* SPDX-License-Identifier: Apache-2.0 */
/* host_lock.h - the host's challenge lock (reference/evidence/host_watch.c lock_path)
 * for a suite that plays task patterns on this kernel outside a verification:
 * host_watch's own (on a lock of their own) or two host processes posing as a
 * provider's sandboxes. Unguarded, such a pattern is another program's burst
 * to every verification running on the host meanwhile (another suite, an
 * integration test, an operator's verify): it blurs their challenge (a shared
 * kernel read as not seen, an honest one as unanswered), and theirs blurs
 * this suite's. Held, each pattern runs alone. */
#ifndef ISOTIER_TEST_HOST_LOCK_H
#define ISOTIER_TEST_HOST_LOCK_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The lock's fd, held, or -1 (a message on stderr naming who) when it was
 * not free within wait_s or cannot be opened: the caller fails. Another
 * user's isotiers lock in their state directory, which tests make their
 * own: without $ISOTIER_CHALLENGE_LOCK (tests/run-integration.sh exports one)
 * such a user shares no lock, and -2 says so (the suite runs unguarded). */
static inline int test_host_lock(const char *who, int wait_s)
{
	const char *env = getenv("ISOTIER_CHALLENGE_LOCK");
	if (!(env && *env) && geteuid() != 0)
		return -2;
	const char *path = env && *env ? env : "/run/isotier/challenge.lock";
	if (!(env && *env) && mkdir("/run/isotier", 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "%s: no /run/isotier for the host's challenge lock: %s\n", who,
		        strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open the host's challenge lock %s: %s\n", who, path,
		        strerror(errno));
		return -1;
	}
	for (int i = 0; i < wait_s * 10; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		struct timespec ts = {0, 100 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "%s: the host's challenge lock %s was not free within %d s\n", who, path,
	        wait_s);
	close(fd);
	return -1;
}

#endif
