/* SPDX-License-Identifier: Apache-2.0 */
/* host_pattern.c - the host's task-count pattern and the host's lock
 * (host_pattern.h): one generator per process, one pattern per host. */
#include "host_pattern.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/paths.h"

#define PATTERN_TASKS    64 /* threads held in an "on" slot (host_watch.c says why) */
#define PATTERN_SLOT_MS  ISOTIER_CHALLENGE_SLOT_MS
#define PATTERN_MAX_SEGS 16384 /* ~14 minutes of slots; then it holds still */
#define LOCK_POLL_MS     20    /* how often a waiting pattern tries the host's lock */

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- the host's lock: one pattern per host ------------------------------ */

/*
 * Two processes' patterns at once blur each other's challenge: each probe
 * sees both, and an honest sandbox's verification comes out INCONCLUSIVE.
 * So a pattern runs only while its process holds an exclusive flock on one
 * file every isotier on the host shares: taken before the generator starts
 * (the probe is started only after that: observe.c starts the watch first),
 * dropped after it has stopped. It is an fd, so a process that dies, however
 * it dies, lets it go.
 */
static int lock_path(char *buf, size_t len)
{
	const char *env = getenv("ISOTIER_CHALLENGE_LOCK"); /* tests: a lock of their own */
	if (env && *env)
		return env[0] == '/' && (size_t)snprintf(buf, len, "%s", env) < len
		           ? 0
		           : ISOTIER_EINVAL;
	if (geteuid() == 0) {
		/* A runtime file: root's isotiers share it whatever their state dir. */
		if (mkdir("/run/isotier", 0755) != 0 && errno != EEXIST)
			return ISOTIER_EIO;
		snprintf(buf, len, "/run/isotier/challenge.lock");
		return 0;
	}
	char dir[4096];
	int rc = isotier__state_dir(dir, sizeof dir);
	if (rc < 0)
		return rc;
	return (size_t)snprintf(buf, len, "%s/challenge.lock", dir) < len ? 0 : ISOTIER_EINVAL;
}

/* The lock's fd, held, or -1 with why in why: not to be had before
 * deadline_us (CLOCK_MONOTONIC), cancelled (cancel_fd readable), or no lock
 * file. LOCK_NB polled rather than a blocking flock, so that the wait is
 * bounded and cancellable without a signal. */
static int host_lock(int64_t deadline_us, int cancel_fd, char *why, size_t len)
{
	char path[4096];
	if (lock_path(path, sizeof path) < 0) {
		snprintf(why, len, "no place for the host's challenge lock");
		return -1;
	}
	/* O_NOFOLLOW: a symlink planted there would have us create or lock
	 * another file. */
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(why, len, "cannot open the host's challenge lock %.100s: %s", path,
		         strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, len, "the host's challenge lock %.100s is not a regular file", path);
		return -1;
	}
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			snprintf(why, len, "cannot lock %.100s: %s", path, strerror(errno));
			break;
		}
		int64_t left = deadline_us - mono_us();
		if (left <= 0) {
			snprintf(why, len,
			         "another process's challenge held the host's lock (%.100s) "
			         "past this run's deadline",
			         path);
			break;
		}
		int ms = left / 1000 < LOCK_POLL_MS ? (int)(left / 1000) + 1 : LOCK_POLL_MS;
		struct pollfd c = {.fd = cancel_fd > 0 ? cancel_fd : -1, .events = POLLIN};
		if (poll(&c, 1, ms) > 0 && c.revents) {
			snprintf(why, len, "cancelled while waiting for the host's challenge lock");
			break;
		}
	}
	close(fd);
	return -1;
}

/* ---- the pattern: one generator per process ---------------------------- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t joined;  /* signalled when a generator has stopped or started */
	pthread_cond_t changed; /* signalled when users, waiting or stop change */
	int users;
	int waiting; /* users whose sandbox has not yet said its probe started */
	bool running, stop, failed, joining, starting;
	pthread_t thread;
	int wake[2];   /* written to stop the generator between slots */
	int host_lock; /* held while the generator runs (host_lock()) */
	isotier_challenge_segment segs[PATTERN_MAX_SEGS];
	size_t n;
} pattern = {.lock = PTHREAD_MUTEX_INITIALIZER,
             .joined = PTHREAD_COND_INITIALIZER,
             .changed = PTHREAD_COND_INITIALIZER,
             .wake = {-1, -1},
             .host_lock = -1};

static void *hold(void *arg)
{
	char c;
	/* Blocks until the write end is closed: an alive, idle task. */
	while (read((int)(intptr_t)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The next bit: random, but never three alike in a row, so that a short
 * window still holds both states. */
static int next_bit(unsigned char *pool, size_t *left, int *run, int last)
{
	if (!*left) {
		/* No entropy yet: the clock is still unpredictable enough to a
		 * sandbox that cannot see the host. */
		if (getrandom(pool, 64, GRND_NONBLOCK) != 64)
			for (size_t i = 0; i < 64; i++)
				pool[i] = (unsigned char)(mono_us() >> (i % 8));
		*left = 64 * 8;
	}
	--*left;
	int bit = (pool[*left / 8] >> (*left % 8)) & 1;
	if (*run >= 2 && bit == last)
		bit = !last;
	*run = bit == last ? *run + 1 : 1;
	return bit;
}

/* Lets the threads of an "on" run go: closing the pipe's write end wakes
 * them all. */
static void release_held(pthread_t *held, int *tasks, int p[2])
{
	if (p[1] >= 0)
		close(p[1]);
	for (int i = 0; i < *tasks; i++)
		pthread_join(held[i], NULL);
	if (p[0] >= 0)
		close(p[0]);
	p[0] = p[1] = -1;
	*tasks = 0;
}

static void *generate(void *unused)
{
	(void)unused;
	unsigned char pool[64];
	size_t left = 0;
	int run = 0, last = -1;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_t *held = calloc(PATTERN_TASKS, sizeof *held);
	/* The threads of an "on" slot stay alive through the "on" slots that
	 * follow it: only a change of state creates or joins threads, which
	 * halves the host's own work (and the gaps between slots) on average. */
	int p[2] = {-1, -1}, tasks = 0;
	for (;;) {
		pthread_mutex_lock(&pattern.lock);
		bool stop = pattern.stop, full = pattern.n == PATTERN_MAX_SEGS;
		bool idle = pattern.users <= pattern.waiting;
		pthread_mutex_unlock(&pattern.lock);
		if (stop)
			break;
		if (idle) {
			/* Every user waits for its sandbox's start line: no thread is
			 * held and no slot recorded, so the pattern costs nothing while a
			 * VM boots. Its bits are drawn only once it plays, after the line:
			 * what the sandbox says when cannot tell it the schedule. Asleep
			 * until a line comes, a user joins or the last one leaves (each
			 * signals "changed"): a poll each millisecond instead woke this
			 * thread a thousand times a second beside a booting TCG guest
			 * and slowed its boot by about 120 ms (the guest's own clock). */
			if (tasks)
				release_held(held, &tasks, p);
			pthread_mutex_lock(&pattern.lock);
			while (!pattern.stop && pattern.users <= pattern.waiting)
				pthread_cond_wait(&pattern.changed, &pattern.lock);
			pthread_mutex_unlock(&pattern.lock);
			continue;
		}
		int bit = full || !held ? 0 : next_bit(pool, &left, &run, last);
		last = bit;
		if (!bit && tasks)
			release_held(held, &tasks, p);
		if (bit && !tasks && pipe2(p, O_CLOEXEC) == 0)
			for (; tasks < PATTERN_TASKS; tasks++)
				if (pthread_create(&held[tasks], &attr, hold,
				                   (void *)(intptr_t)p[0]) != 0)
					break;
		if (!tasks && p[0] >= 0) /* no thread to be had: an "off" slot */
			release_held(held, &tasks, p);
		/* Creating the threads takes a while on a loaded host: a slot
		 * starts only if someone still wants it played. */
		pthread_mutex_lock(&pattern.lock);
		idle = pattern.users <= pattern.waiting;
		pthread_mutex_unlock(&pattern.lock);
		if (idle)
			continue;
		int64_t start = mono_us();
		struct pollfd w = {.fd = pattern.wake[0], .events = POLLIN};
		poll(&w, 1, PATTERN_SLOT_MS);
		int64_t end = mono_us();
		pthread_mutex_lock(&pattern.lock);
		if (pattern.n < PATTERN_MAX_SEGS && !(w.revents & POLLIN))
			pattern.segs[pattern.n++] = (isotier_challenge_segment){start, end, tasks};
		pthread_mutex_unlock(&pattern.lock);
	}
	release_held(held, &tasks, p);
	free(held);
	pthread_attr_destroy(&attr);
	return NULL;
}

/* Joins the pattern, starting it (with the host's lock) when this is the
 * first user: 0, or -1 with why in why when there is none to join before
 * deadline_us. A failed join is no user: the caller leaves with joined false. */
int isotier__pattern_join(int64_t deadline_us, int cancel_fd, char *why, size_t len)
{
	pthread_mutex_lock(&pattern.lock);
	for (;;) {
		/* A generator being stopped still owns the wake pipe, the segments
		 * and the host's lock; one being started is waited for, not raced. */
		while (pattern.joining || pattern.starting) {
			struct timespec ts; /* the cond's clock is the default, CLOCK_REALTIME */
			clock_gettime(CLOCK_REALTIME, &ts);
			int64_t left = deadline_us - mono_us();
			if (left <= 0) {
				pthread_mutex_unlock(&pattern.lock);
				snprintf(why, len,
				         "the host's challenge could not be started before "
				         "this run's deadline");
				return -1;
			}
			ts.tv_sec += left / 1000000;
			ts.tv_nsec += (left % 1000000) * 1000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&pattern.joined, &pattern.lock, &ts);
		}
		if (pattern.running) {
			pattern.users++;
			pthread_cond_broadcast(&pattern.changed);
			pthread_mutex_unlock(&pattern.lock);
			return 0;
		}
		/* The first user: the host's lock first, outside the mutex, so
		 * that a long wait blocks no other thread's leave. */
		pattern.starting = true;
		pthread_mutex_unlock(&pattern.lock);
		int fd = host_lock(deadline_us, cancel_fd, why, len);
		pthread_mutex_lock(&pattern.lock);
		pattern.starting = false;
		pthread_cond_broadcast(&pattern.joined);
		if (fd < 0) {
			pthread_mutex_unlock(&pattern.lock);
			return -1;
		}
		pattern.stop = false;
		pattern.n = 0;
		pattern.failed = pipe2(pattern.wake, O_CLOEXEC) != 0;
		if (!pattern.failed && pthread_create(&pattern.thread, NULL, generate, NULL) != 0) {
			close(pattern.wake[0]);
			close(pattern.wake[1]);
			pattern.wake[0] = pattern.wake[1] = -1;
			pattern.failed = true;
		}
		if (pattern.failed) {
			/* No pattern: no reason to keep others' waiting. */
			close(fd);
			pthread_mutex_unlock(&pattern.lock);
			snprintf(why, len, "the host's task-count pattern could not be started");
			return -1;
		}
		pattern.host_lock = fd;
		pattern.running = true;
		pattern.users = 1;
		pthread_mutex_unlock(&pattern.lock);
		return 0;
	}
}

/* Copies the segments that started at or after since; leaves the pattern
 * when joined (pattern_join() succeeded), the last user stopping it and
 * then letting the host's lock go. */
void isotier__pattern_leave(isotier_host_view *v, int64_t since, bool joined)
{
	pthread_t joinable = 0;
	bool join = false;
	if (!joined) {
		v->pattern_failed = true;
		return;
	}
	pthread_mutex_lock(&pattern.lock);
	size_t first = pattern.n;
	while (first > 0 && pattern.segs[first - 1].start_us >= since)
		first--;
	size_t n = pattern.n - first;
	v->pattern_failed = pattern.failed;
	if (n && (v->segs = malloc(n * sizeof *v->segs))) {
		memcpy(v->segs, pattern.segs + first, n * sizeof *v->segs);
		v->n_segs = n;
	}
	if (--pattern.users == 0 && pattern.running) {
		pattern.stop = true;
		pattern.running = false;
		pattern.joining = true;
		joinable = pattern.thread;
		join = true;
		if (write(pattern.wake[1], "x", 1) < 0) { /* the slot ends by itself */
		}
		pthread_cond_broadcast(&pattern.changed); /* an idle generator too */
	}
	pthread_mutex_unlock(&pattern.lock);
	if (join) {
		/* The generator has joined its held threads when it returns: only
		 * then is the pattern off and the host's lock another's. */
		pthread_join(joinable, NULL);
		pthread_mutex_lock(&pattern.lock);
		close(pattern.wake[0]);
		close(pattern.wake[1]);
		pattern.wake[0] = pattern.wake[1] = -1;
		close(pattern.host_lock);
		pattern.host_lock = -1;
		pattern.joining = false;
		pthread_cond_broadcast(&pattern.joined);
		pthread_mutex_unlock(&pattern.lock);
	}
}

void isotier__pattern_waiting(int delta)
{
	pthread_mutex_lock(&pattern.lock);
	pattern.waiting += delta;
	pthread_cond_broadcast(&pattern.changed);
	pthread_mutex_unlock(&pattern.lock);
}
