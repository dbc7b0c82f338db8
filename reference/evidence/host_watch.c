/* SPDX-License-Identifier: Apache-2.0 */
/* host_watch.c - the host's own view of a local sandbox (host_watch.h). */
#include "host_watch.h"
#include "host_pattern.h"
#include "host_release.h"
#include "host_sighting.h"
#include "../core/paths.h"
#include "../core/proc.h"

#include <dirent.h>
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

/* An "on" slot holds 64 threads (host_pattern.c): far above what a sandbox's
 * own work or this host's churn moves the count by within a slot, and few
 * enough that making them costs 2-4 ms beside gVisor's Sentry on 2 cores
 * (128 took 5-13 ms, and the slots a window holds fell with it). A slot is
 * as short as the probe's 1 ms sampling and the kernel's scheduling allow
 * (ADR-0019 gives the figures): the challenge lasts ISOTIER_CHALLENGE_MS. */
#define WATCH_PERIOD_MS  5  /* how often the process table is read */
#define WATCH_LIST_EVERY 10 /* passes: the table is listed at least this often */
#define WATCH_MAX_PIDS   65536
#define CMDLINE_MAX      4096

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int isotier__nonce_new(char out[33], isotier_error *err)
{
	unsigned char b[16];
	if (isotier__random_bytes(b, sizeof b) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "nonce: getrandom");
	for (size_t i = 0; i < sizeof b; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

/* ---- visibility: the host's process table ------------------------------ */

struct isotier_host_watch {
	char argv0[256], nonce[72];
	int64_t started;
	pid_t *baseline; /* sorted: processes that were there before the run */
	size_t n_baseline;
	pthread_t thread;
	int stop[2];
	bool joined;    /* the pattern's: pattern_join() succeeded */
	int start_line; /* START_*: whether the pattern waits for the start line */
	bool ended;     /* isotier__host_watch_end() ran */
	/* Why this run does not want the pattern now (QUIET_*), under quiet_lock:
	 * however many reasons, the run counts once among the pattern's waiting
	 * users, so that one run can never hold it still for another. */
	pthread_mutex_t quiet_lock;
	unsigned quiet;
	bool quiet_closed;
	char why[200];               /* why not, when not */
	isotier_host_view seen;      /* workload_* only, written by the thread */
	isotier_run_binding binding; /* what this run started (host_sighting.h) */
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

static size_t list_pids(pid_t *out, size_t max)
{
	DIR *d = opendir("/proc");
	size_t n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		if (!*end && v > 0)
			out[n++] = (pid_t)v;
	}
	closedir(d);
	return n;
}

/*
 * The last pid this pid namespace allocated (/proc/sys/kernel/ns_last_pid):
 * while it has not moved, no process or thread has been made since the last
 * listing, and the listing (a getdents of all of /proc, most of a pass's
 * cost: about a tenth of a core at a pass each 5 ms, taken from a booting
 * TCG guest beside it) is skipped; the processes already listed are still
 * looked at each pass (an exec keeps its pid). Only where /proc is this pid
 * namespace's (/proc/self is us); else, or unreadable, every pass lists.
 * Moving the counter back takes CAP_SYS_ADMIN over the namespace (the
 * host's root); even so the table is listed every WATCH_LIST_EVERY passes.
 */
static int last_pid_open(void)
{
	char self[32];
	ssize_t n = readlink("/proc/self", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	if (strtol(self, NULL, 10) != (long)getpid())
		return -1;
	return open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
}

/* -1 when fd is -1 or the counter cannot be read. */
static long last_pid(int fd)
{
	char buf[32];
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *end;
	long v = strtol(buf, &end, 10);
	return end != buf && v > 0 ? v : -1;
}

/* Whether pid runs argv0 (argv[0], or argv[1..2] after an interpreter a
 * script's #! line names) with the nonce among its arguments. */
static bool runs_probe(const isotier_host_watch *w, pid_t pid)
{
	char path[64], buf[CMDLINE_MAX + 1];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t len = read(fd, buf, CMDLINE_MAX);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	bool probe = false, nonce = false;
	int i = 0;
	for (char *a = buf; a < buf + len; a += strlen(a) + 1, i++) {
		if (i < 3 && !strcmp(a, w->argv0))
			probe = true;
		if (!strcmp(a, w->nonce))
			nonce = true;
	}
	return probe && nonce;
}

/* Notes pid when it is a VMM or runsc that counts (host_sighting.h). */
static void note_runtime(isotier_host_watch *w, pid_t pid)
{
	char detail[80] = "";
	unsigned flags =
	    isotier__sighting_check(&w->binding, pid, w->seen.saw, detail, sizeof detail,
	                            w->seen.saw_refused, sizeof w->seen.saw_refused);
	if (!flags) /* none, or none it could add (credited already) */
		return;
	size_t used = strlen(w->seen.saw_detail);
	snprintf(w->seen.saw_detail + used, sizeof w->seen.saw_detail - used, "%s%s",
	         used ? ", " : "", detail);
	w->seen.saw |= flags;
}

/* ---- binding what this thread spawns to its watch ------------------------ */

/* The watch this thread started and has not stopped: the exec that runs
 * the probe runs on this thread (observe.c), so what it spawns is the run's. */
static __thread isotier_host_watch *thread_watch;

static void spawned_on_thread(void *ctx, pid_t pid)
{
	isotier__binding_add_root(&((isotier_host_watch *)ctx)->binding, pid);
}

void isotier__host_watch_note_cidfile(const char *path)
{
	if (thread_watch && path)
		isotier__binding_add_cidfile(&thread_watch->binding, path);
}

/* Why a run does not want the pattern: it waits for its sandbox's start
 * line, its probe was seen (SHARED whatever the samples show), or its probe
 * has begun its report (its window is over). */
enum { QUIET_WAITS = 1, QUIET_SEEN = 2, QUIET_REPORTED = 4 };

/* Sets or clears one reason; the run enters the pattern's waiting users when
 * its first reason comes and leaves them when its last goes. After end():
 * nothing. */
static void quiet_set(isotier_host_watch *w, unsigned why, bool on)
{
	if (!w->joined)
		return;
	pthread_mutex_lock(&w->quiet_lock);
	if (!w->quiet_closed) {
		unsigned before = w->quiet;
		w->quiet = on ? before | why : before & ~why;
		if (!before && w->quiet)
			isotier__pattern_waiting(+1);
		else if (before && !w->quiet)
			isotier__pattern_waiting(-1);
	}
	pthread_mutex_unlock(&w->quiet_lock);
}

/* end(): the run leaves the waiting users if it is among them, for good. */
static void quiet_close(isotier_host_watch *w)
{
	pthread_mutex_lock(&w->quiet_lock);
	if (!w->quiet_closed && w->joined && w->quiet)
		isotier__pattern_waiting(-1);
	w->quiet = 0;
	w->quiet_closed = true;
	pthread_mutex_unlock(&w->quiet_lock);
}

/* A watch's start line, changed by compare-and-swap: the exec's thread
 * reads the line, end() may run on another, and the waiting reason goes by
 * whichever comes first. */
enum { START_PLAYS, START_WAITS, START_SAID, START_NEVER };

void isotier__host_watch_defer_pattern(void)
{
	isotier_host_watch *w = thread_watch;
	int plays = START_PLAYS;
	if (w && w->joined && !w->ended &&
	    __atomic_compare_exchange_n(&w->start_line, &plays, START_WAITS, false,
	                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		quiet_set(w, QUIET_WAITS, true);
}

void isotier__host_watch_probe_reported(void *watch)
{
	if (watch)
		quiet_set(watch, QUIET_REPORTED, true);
}

void isotier__host_watch_probe_starting(void)
{
	isotier__host_watch_start_said(thread_watch);
}

void isotier__host_watch_start_said(void *watch)
{
	isotier_host_watch *w = watch;
	int waits = START_WAITS;
	/* Once: a second line cannot stop a pattern another user may need. */
	if (w && __atomic_compare_exchange_n(&w->start_line, &waits, START_SAID, false,
	                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		quiet_set(w, QUIET_WAITS, false);
}

static void describe_seen(isotier_host_watch *w, pid_t pid)
{
	char path[64], mine[64] = "", theirs[64] = "";
	snprintf(path, sizeof path, "/proc/%d/ns/mnt", (int)pid);
	ssize_t a = readlink("/proc/self/ns/mnt", mine, sizeof mine - 1);
	ssize_t b = readlink(path, theirs, sizeof theirs - 1);
	bool own_ns = a > 0 && b > 0 && strcmp(mine, theirs) != 0;
	w->seen.workload_seen = true;
	w->seen.workload_pid = (int)pid;
	snprintf(w->seen.workload_detail, sizeof w->seen.workload_detail,
	         "the host sees the sandbox's probe (pid %d%s) in its own process table: "
	         "the workload runs on the host's kernel",
	         (int)pid, own_ns ? ", in a mount namespace of its own" : "");
}

static void *watch(void *arg)
{
	isotier_host_watch *w = arg;
	pid_t *now = malloc(WATCH_MAX_PIDS * sizeof *now);
	if (!now)
		return NULL;
	int last_fd = last_pid_open();
	long listed_at = -1;
	size_t n = 0;
	unsigned unlisted = WATCH_LIST_EVERY;
	for (;;) {
		/* Read before listing: a pid made during the listing moves it. */
		long last = last_pid(last_fd);
		if (last < 0 || last != listed_at || unlisted >= WATCH_LIST_EVERY) {
			n = list_pids(now, WATCH_MAX_PIDS);
			listed_at = last;
			unlisted = 0;
			w->seen.listings++;
		}
		unlisted++;
		w->seen.passes++;
		for (size_t i = 0; i < n && !w->seen.workload_seen; i++)
			if (!bsearch(&now[i], w->baseline, w->n_baseline, sizeof *now, cmp_pid)) {
				note_runtime(w, now[i]);
				if (runs_probe(w, now[i]))
					describe_seen(w, now[i]);
			}
		/* One sighting is proof enough: the probe may stop sampling
		 * (host_release.h), asked again until it catches the signal. */
		if (w->seen.workload_seen &&
		    isotier__host_release_probe(w->seen.workload_pid, w->argv0, w->nonce)) {
			/* Seen is SHARED whatever the samples show (observe.c): this
			 * run no longer wants the pattern, whose thread churn would
			 * only compete with the rest of its run for the CPUs. Another
			 * user's keeps playing; end() takes the count back. */
			quiet_set(w, QUIET_SEEN, true);
			break;
		}
		struct pollfd p = {.fd = w->stop[0], .events = POLLIN};
		if (poll(&p, 1, WATCH_PERIOD_MS) != 0)
			break;
	}
	if (last_fd >= 0)
		close(last_fd);
	free(now);
	return NULL;
}

/* What a watch holds besides its thread: freed where none started, or once it ended. */
static void watch_release(isotier_host_watch *w)
{
	if (w->stop[0] >= 0)
		close(w->stop[0]);
	if (w->stop[1] >= 0)
		close(w->stop[1]);
	isotier__binding_destroy(&w->binding);
	pthread_mutex_destroy(&w->quiet_lock);
	free(w->baseline);
	free(w);
}

int isotier__host_watch_start(isotier_host_watch **out, const char *argv0, const char *nonce,
                              int wait_ms, int cancel_fd, isotier_error *err)
{
	*out = NULL;
	isotier_host_watch *w = calloc(1, sizeof *w);
	if (!w || !(w->baseline = malloc(WATCH_MAX_PIDS * sizeof *w->baseline))) {
		free(w);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "host watch: out of memory");
	}
	snprintf(w->argv0, sizeof w->argv0, "%s", argv0);
	snprintf(w->nonce, sizeof w->nonce, "%s", nonce);
	isotier__binding_init(&w->binding);
	pthread_mutex_init(&w->quiet_lock, NULL);
	w->stop[0] = w->stop[1] = -1; /* nothing for watch_release to close until pipe2 makes it */
	if (pipe2(w->stop, O_CLOEXEC) != 0) {
		int e = errno;
		watch_release(w);
		return isotier__error_set(err, ISOTIER_EIO, e, "host watch: pipe");
	}
	/* The pattern (and the host's lock) first: the caller starts the probe
	 * when this returns, so its samples never start before the pattern. A
	 * join that fails leaves the watch without a challenge (pattern_failed,
	 * why): the visibility watch still runs, the verdict cannot be CLEAR. */
	w->joined = isotier__pattern_join(mono_us() + (int64_t)(wait_ms > 0 ? wait_ms : 0) * 1000,
	                                  cancel_fd, w->why, sizeof w->why) == 0;
	/* The baseline after the wait: what started during it is not the run's. */
	w->n_baseline = list_pids(w->baseline, WATCH_MAX_PIDS);
	qsort(w->baseline, w->n_baseline, sizeof *w->baseline, cmp_pid);
	w->started = mono_us();
	if (pthread_create(&w->thread, NULL, watch, w) != 0) {
		isotier_host_view v = {0};
		isotier__pattern_leave(&v, w->started, w->joined);
		isotier__host_view_clear(&v);
		watch_release(w);
		return isotier__error_set(err, ISOTIER_EIO, 0, "host watch: cannot start a thread");
	}
	thread_watch = w;
	isotier__proc_spawn_hook_set(spawned_on_thread, w);
	*out = w;
	return 0;
}

void isotier__host_watch_end(isotier_host_watch *w, isotier_host_view *view)
{
	*view = (isotier_host_view){0};
	if (!w || w->ended)
		return;
	w->ended = true;
	if (write(w->stop[1], "x", 1) < 0) { /* the thread ends at its next look */
	}
	pthread_join(w->thread, NULL);
	*view = w->seen;
	view->started_us = w->started;
	view->stopped_us = mono_us();
	int waits = START_WAITS;
	bool never_started = __atomic_compare_exchange_n(&w->start_line, &waits, START_NEVER, false,
	                                                 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	quiet_close(w);
	isotier__pattern_leave(view, w->started, w->joined);
	if (never_started) {
		/* Nothing was played for this sandbox: no challenge, whatever the
		 * other users' pattern left in the segments. */
		view->pattern_failed = true;
		free(view->segs);
		view->segs = NULL;
		view->n_segs = 0;
		snprintf(
		    w->why, sizeof w->why,
		    "the sandbox never said its probe started: the host played no pattern for it");
	}
	snprintf(view->pattern_detail, sizeof view->pattern_detail, "%s", w->why);
}

void isotier__host_watch_free(isotier_host_watch *w)
{
	if (!w)
		return;
	if (!w->ended) {
		isotier_host_view v;
		isotier__host_watch_end(w, &v);
		isotier__host_view_clear(&v);
	}
	if (thread_watch == w) {
		thread_watch = NULL;
		isotier__proc_spawn_hook_set(NULL, NULL);
	}
	watch_release(w);
}

void isotier__host_watch_stop(isotier_host_watch *w, isotier_host_view *view)
{
	isotier__host_watch_end(w, view);
	isotier__host_watch_free(w);
}

void isotier__host_view_clear(isotier_host_view *v)
{
	if (!v)
		return;
	free(v->segs);
	*v = (isotier_host_view){0};
}
