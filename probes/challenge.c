/* SPDX-License-Identifier: Apache-2.0 */
/*
 * challenge.c - the verifier's per-run nonce and its active challenge,
 * answered from inside the sandbox.
 *
 * Nothing the probe reads about itself proves that its kernel is not the
 * verifier's host's: a container can bind-mount any file. What it cannot do
 * is hide the host's own activity from a kernel-global counter that
 * namespaces, LXCFS and bind mounts do not virtualise: sysinfo(2)'s procs,
 * the number of tasks the kernel runs. The verifier's host switches a few
 * hundred threads on and off in a random pattern while this samples the
 * counter; the host then looks for its pattern in the samples. A kernel of
 * the sandbox's own (a VM, gVisor's Sentry) answers its own count, in which
 * the pattern cannot appear. The probe only reports what it read: the
 * deciding is the host's (reference/evidence/host_watch.c), so a lying sandbox can
 * hide the pattern (a seccomp filter answering sysinfo) but never forge a
 * kernel of its own with it.
 *
 * For a remote provider the verifier has no host of its own beside the
 * sandboxes: with --pattern, one sandbox plays the verifier's random bits in
 * its own threads (the same slots and thread count as the host generator)
 * and reports when each slot really began and ended, while a second sandbox
 * samples with --challenge. The pattern in the second's count means the two
 * share one kernel. Again the probe only reports; the verifier decides.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#define CHALLENGE_MAX_MS    5000
#define CHALLENGE_PERIOD_NS 1000000L /* one sample a millisecond */
/*
 * A stretch the sampler went unread is made up: the window grows by the
 * stretch, about what of the slots around it the host can no longer compare
 * (a slot counts when most of its middle was read; a stretch of 3-6 ms, the
 * common stall under gVisor, costs a slot only now and then). A window
 * holding too few such slots proves nothing and costs a second probe run (a
 * busy host, gVisor's scheduling). Bounded: at most CHALLENGE_MAKEUP_MAX
 * times the window asked for, so a sampler that is never scheduled still
 * answers within a bound the verifier knows.
 */
#define CHALLENGE_MAKEUP_MAX 4

static struct probe_challenge ch;

/*
 * The host's "enough": a verifier that has already decided (it sees this
 * probe in its own process table, so the kernel is shared whatever the
 * samples say) sends SIGUSR1, and the sampling ends at its next look
 * instead of filling the window. Caught from the start but blocked until
 * the sampling begins, so that it never interrupts the detection's own
 * system calls and never kills the probe (the host sends it only once
 * /proc shows it caught). It can only shorten the window: a window cut
 * short proves less, never more (the host judges what it got).
 */
static volatile sig_atomic_t stop_asked;

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

void probe_challenge_arm(void)
{
	struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
	sigset_t set;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

static void challenge_unblock(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_UNBLOCK, &set, NULL); /* a pending stop lands here */
}

int probe_challenge_set_nonce(const char *hex)
{
	size_t n = strlen(hex);
	if (n < 16 || n > 64)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
			return -1;
	memcpy(ch.nonce, hex, n + 1);
	return 0;
}

static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void probe_challenge_sample(int window_ms)
{
	if (window_ms < 1)
		window_ms = 1;
	if (window_ms > CHALLENGE_MAX_MS)
		window_ms = CHALLENGE_MAX_MS;
	ch.asked = true;
	challenge_unblock(); /* this thread's mask: only the sampler takes the stop */
	ch.start_us = mono_us();
	uint64_t window_us = (uint64_t)window_ms * 1000u;
	uint64_t stop = ch.start_us + window_us, prev = ch.start_us;
	uint64_t latest = ch.start_us + CHALLENGE_MAKEUP_MAX * window_us;
	if (latest > ch.start_us + (uint64_t)CHALLENGE_MAX_MS * 1000u)
		latest = ch.start_us + (uint64_t)CHALLENGE_MAX_MS * 1000u;
	unsigned long last = 0;
	for (uint64_t now = ch.start_us; now < stop && !stop_asked; now = mono_us()) {
		/* The longest stretch without a reading: a count read that
		 * seldom cannot show a short slot (the host reads it). */
		if (now - prev > ch.max_gap_us)
			ch.max_gap_us = now - prev;
		if (now - prev > PROBE_CHALLENGE_GAP_US) {
			if (ch.n_gaps == PROBE_CHALLENGE_MAX_GAPS) {
				ch.gaps_truncated = true;
			} else {
				ch.gap_from[ch.n_gaps] = prev;
				ch.gap_to[ch.n_gaps++] = now;
			}
			stop += now - prev;
			if (stop > latest)
				stop = latest;
		}
		prev = now;
		struct sysinfo si;
		if (sysinfo(&si) != 0) {
			ch.error = errno ? errno : EIO;
			break;
		}
		ch.samples++;
		/* Only changes are kept: a flat count costs nothing to report. */
		if (ch.n == 0 || si.procs != last) {
			if (ch.n == PROBE_CHALLENGE_MAX_CHANGES) {
				ch.truncated = true;
				break;
			}
			ch.t_us[ch.n] = now;
			ch.procs[ch.n++] = si.procs;
			last = si.procs;
		}
		struct timespec nap = {0, CHALLENGE_PERIOD_NS};
		nanosleep(&nap, NULL);
	}
	ch.end_us = mono_us();
	/* The stretch after the last read is unread too. */
	if (ch.end_us - prev > PROBE_CHALLENGE_GAP_US) {
		if (ch.n_gaps == PROBE_CHALLENGE_MAX_GAPS) {
			ch.gaps_truncated = true;
		} else {
			ch.gap_from[ch.n_gaps] = prev;
			ch.gap_to[ch.n_gaps++] = ch.end_us;
		}
	}
	ch.stopped = stop_asked != 0;
}

/*
 * Sampling beside the detection rather than after it: the host's pattern
 * runs for the whole exec anyway, so a window that overlaps the detection's
 * own time costs the run nothing where the detection is slow (gVisor's
 * system calls, a VM's) and little where it is not. The sampler is one
 * thread asleep between reads; what the detection itself starts (a few
 * tasks) is noise far under the pattern's amplitude.
 */
static pthread_t sampler;
static bool sampler_running;
static int sampler_window;

static void *sampler_main(void *arg)
{
	(void)arg;
	probe_challenge_sample(sampler_window);
	return NULL;
}

void probe_challenge_start(int window_ms)
{
	sampler_window = window_ms;
	pthread_attr_t attr;
	bool attr_ok = pthread_attr_init(&attr) == 0;
	if (attr_ok)
		pthread_attr_setstacksize(&attr, 64 * 1024);
	sampler_running = pthread_create(&sampler, attr_ok ? &attr : NULL, sampler_main, NULL) == 0;
	if (attr_ok)
		pthread_attr_destroy(&attr);
}

void probe_challenge_finish(void)
{
	if (sampler_running)
		pthread_join(sampler, NULL);
	else if (sampler_window) /* no thread to be had: sample here, after */
		probe_challenge_sample(sampler_window);
	sampler_running = false;
	sampler_window = 0;
}

const struct probe_challenge *probe_challenge_get(void)
{
	return &ch;
}

/* ---- --pattern: the modulating half of a cross-sandbox challenge -------- */

static struct probe_pattern pat;

int probe_pattern_set(const char *bits)
{
	size_t n = strlen(bits);
	if (n < PROBE_PATTERN_MIN_BITS || n > PROBE_PATTERN_MAX_BITS)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (bits[i] != '0' && bits[i] != '1')
			return -1;
	memcpy(pat.bits, bits, n + 1);
	return 0;
}

/* An alive, idle task: blocks until the pipe's write end is closed. */
static void *probe_pattern_hold(void *arg)
{
	char c;
	while (read((int)(intptr_t)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Sleeps until CLOCK_MONOTONIC reaches t_us. */
static void probe_sleep_until(uint64_t t_us)
{
	struct timespec ts = {(time_t)(t_us / 1000000u), (long)(t_us % 1000000u) * 1000L};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void probe_pattern_run(void)
{
	static pthread_t held[PROBE_PATTERN_TASKS];
	pthread_attr_t attr;
	/* Small stacks: 256 idle threads must fit any sandbox's memory. */
	bool attr_ok = pthread_attr_init(&attr) == 0;
	if (attr_ok)
		pthread_attr_setstacksize(&attr, 64 * 1024);
	size_t nbits = strlen(pat.bits);
	for (size_t i = 0; i < nbits && !pat.cut_short; i++) {
		int p[2] = {-1, -1}, tasks = 0;
		/* Under load (a busy host, a slow sandbox's thread creation) the
		 * slots drift: one that cannot end inside the window is not begun. */
		if (pat.n && mono_us() + PROBE_PATTERN_SLOT_MS * 1000u - pat.start_us[0] >
		                 PROBE_PATTERN_WINDOW_US) {
			pat.cut_short = true;
			break;
		}
		if (pat.bits[i] == '1') {
			if (pipe2(p, O_CLOEXEC) != 0) {
				if (!pat.error)
					pat.error = errno ? errno : EIO;
			} else {
				/* A sandbox's task limit may stop it short: the slot
				 * reports the threads it really held. */
				for (; tasks < PROBE_PATTERN_TASKS; tasks++) {
					int e = pthread_create(&held[tasks], attr_ok ? &attr : NULL,
					                       probe_pattern_hold,
					                       (void *)(intptr_t)p[0]);
					if (e) {
						if (!pat.error)
							pat.error = e;
						break;
					}
				}
			}
		}
		/* The slot is timed from when its threads are all alive to
		 * just before they are released: the transitions are left out,
		 * as the host's generator leaves them out. */
		uint64_t start = mono_us();
		probe_sleep_until(start + PROBE_PATTERN_SLOT_MS * 1000u);
		uint64_t end = mono_us(), first = pat.n ? pat.start_us[0] : start;
		/* Overran (descheduled past 1 s, or past the window while its
		 * threads were made): the pattern ends before this slot. */
		if (end - start > PROBE_PATTERN_MAX_SLOT_US ||
		    end - first > PROBE_PATTERN_WINDOW_US) {
			pat.cut_short = true;
		} else {
			pat.start_us[pat.n] = start;
			pat.end_us[pat.n] = end;
			pat.tasks[pat.n++] = tasks;
		}
		if (p[1] >= 0)
			close(p[1]);
		for (int t = 0; t < tasks; t++)
			pthread_join(held[t], NULL);
		if (p[0] >= 0)
			close(p[0]);
	}
	if (attr_ok)
		pthread_attr_destroy(&attr);
}

const struct probe_pattern *probe_pattern_get(void)
{
	return &pat;
}
