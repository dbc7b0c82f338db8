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
 * deciding is the host's (reference/host_watch.c), so a lying sandbox can
 * hide the pattern (a seccomp filter answering sysinfo) but never forge a
 * kernel of its own with it.
 */
#include "probe.h"

#include <errno.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>

#define CHALLENGE_MAX_MS      5000
#define CHALLENGE_PERIOD_NS   1000000L /* one sample a millisecond */

static struct probe_challenge ch;

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
	ch.start_us = mono_us();
	uint64_t stop = ch.start_us + (uint64_t)window_ms * 1000u;
	unsigned long last = 0;
	for (uint64_t now = ch.start_us; now < stop; now = mono_us()) {
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
}

const struct probe_challenge *probe_challenge_get(void)
{
	return &ch;
}
