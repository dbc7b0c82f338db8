/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest_tsm.c - the configfs-tsm report flow (attest.h), after the kernel's
 * Documentation/ABI/testing/configfs-tsm: mkdir an entry under
 * /sys/kernel/config/tsm/report, write up to 64 bytes to its inblob, read
 * outblob (the provider's signed report; reading it makes the report),
 * auxblob (SNP: the host's certificate table) and provider. generation counts
 * writes to the entry: read after our write and again after the reads, a
 * change means another writer raced us and the blobs may not be ours, so
 * the flow is retried. The entry is removed afterwards.
 *
 * Under a replay root (tests) the same tree is read beneath it; a test
 * serves outblob and generation from FIFOs to play a provider, so FIFOs are
 * accepted there, never live (configfs attributes are regular files).
 */
#include "attest.h"
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void probe_attest_say(struct probe_attest *a, const char *status, const char *why, int e)
{
	probe_strlcpy(a->status, sizeof a->status, status);
	if (e)
		snprintf(a->why, sizeof a->why, "%s: %s", why, strerror(e));
	else
		probe_strlcpy(a->why, sizeof a->why, why);
}

/* Reads the attribute `name` of the entry at dfd, at most max bytes; NULL
 * and errno when unreadable, EFBIG when larger than max. */
static uint8_t *probe_attest_read(int dfd, const char *name, size_t max, size_t *len, bool replay)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || (replay && S_ISFIFO(st.st_mode)))) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	uint8_t *buf = malloc(max + 1);
	size_t n = 0;
	int err = 0;
	while (buf && n <= max) {
		ssize_t r = read(fd, buf + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = errno;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf || err || n > max) {
		free(buf);
		errno = !buf ? ENOMEM : err ? err : EFBIG;
		return NULL;
	}
	*len = n;
	return buf;
}

static bool probe_attest_generation(int dfd, unsigned long long *gen, bool replay)
{
	size_t len = 0;
	char *text = (char *)probe_attest_read(dfd, "generation", 32, &len, replay);
	uint64_t v = 0;
	if (!text)
		return false;
	text[len] = '\0';
	probe_rstrip(text);
	bool ok = probe_parse_u64(text, &v);
	free(text);
	*gen = v;
	return ok;
}

/* One attempt; true when done (ok or a final refusal), false on a race. */
static bool probe_attest_once(int dfd, const uint8_t inblob[64], struct probe_attest *a,
                              bool replay)
{
	unsigned long long g1 = 0, g2 = 0;
	int fd = openat(dfd, "inblob", O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (replay ? O_TRUNC : 0));
	if (fd < 0 || write(fd, inblob, 64) != 64) {
		probe_attest_say(a, "refused", "inblob not written", errno);
		if (fd >= 0)
			close(fd);
		return true;
	}
	close(fd);
	if (!probe_attest_generation(dfd, &g1, replay)) {
		probe_attest_say(a, "refused", "generation unreadable", errno);
		return true;
	}
	size_t plen = 0;
	char *prov = (char *)probe_attest_read(dfd, "provider", 64, &plen, replay);
	if (prov) {
		prov[plen] = '\0';
		probe_rstrip(prov);
		probe_strlcpy(a->provider, sizeof a->provider, prov);
		free(prov);
	}
	a->outblob =
	    probe_attest_read(dfd, "outblob", PROBE_ATTEST_MAX_OUT, &a->outblob_len, replay);
	if (!a->outblob || !a->outblob_len) {
		probe_attest_say(a, "refused", "the provider made no report (outblob)",
		                 a->outblob ? 0 : errno);
		return true;
	}
	/* Optional: a provider without certificates to serve has none. */
	a->auxblob =
	    probe_attest_read(dfd, "auxblob", PROBE_ATTEST_MAX_AUX, &a->auxblob_len, replay);
	if (a->auxblob && !a->auxblob_len) {
		free(a->auxblob);
		a->auxblob = NULL;
	}
	if (!probe_attest_generation(dfd, &g2, replay) || g1 != g2) {
		snprintf(a->why, sizeof a->why,
		         "generation changed from %llu to %llu: another writer raced us", g1, g2);
		return false;
	}
	a->generation = g2;
	probe_attest_say(a, "ok", "", 0);
	return true;
}

/* The TSM directory: live, or beneath a replay root one component at a
 * time without following a symlink (as input.c reads a replay), so a
 * replay tree never leads the flow to the live one. -1 and errno if none. */
static int probe_attest_open_tsm(const char *root, bool replay)
{
	if (!replay)
		return open(PROBE_ATTEST_TSM, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char rel[] = PROBE_ATTEST_TSM, *save = NULL;
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (char *seg = strtok_r(rel, "/", &save); seg && dfd >= 0;
	     seg = strtok_r(NULL, "/", &save)) {
		int next = openat(dfd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(dfd);
		dfd = next;
		errno = e;
	}
	return dfd;
}

void probe_attest_tsm(const char *root, const uint8_t inblob[64], struct probe_attest *a)
{
	bool replay = root && strcmp(root, "/") != 0;
	char entry[64];
	memset(a, 0, sizeof *a);
	int tsm = probe_attest_open_tsm(root, replay);
	if (tsm < 0) {
		const char *legacy = NULL;
		char dev[4096];
		static const char *const devs[] = {"/dev/sev-guest", "/dev/tdx_guest",
		                                   "/dev/tdx-guest"};
		for (size_t i = 0; i < 3 && !legacy; i++) {
			snprintf(dev, sizeof dev, "%s%s", replay ? root : "", devs[i]);
			if (access(dev, F_OK) == 0)
				legacy = devs[i];
		}
		if (legacy) {
			snprintf(a->why, sizeof a->why,
			         "only %s (the older ioctl interface), no configfs-tsm", legacy);
			probe_strlcpy(a->status, sizeof a->status, "unsupported");
		} else {
			probe_attest_say(a, "absent", "no " PROBE_ATTEST_TSM, errno);
		}
		return;
	}
	/* Live: a fresh entry of ours. A replay tree provides its entry. */
	snprintf(entry, sizeof entry, "isotier-%ld", (long)getpid());
	if (replay)
		snprintf(entry, sizeof entry, "isotier");
	else if (mkdirat(tsm, entry, 0700) < 0) {
		probe_attest_say(a, "refused", "no report entry could be made", errno);
		close(tsm);
		return;
	}
	int dfd = openat(tsm, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		probe_attest_say(a, "refused", "the report entry cannot be opened", errno);
	} else {
		bool done = false;
		for (int i = 0; i < PROBE_ATTEST_ATTEMPTS && !done; i++) {
			probe_attest_free(a);
			done = probe_attest_once(dfd, inblob, a, replay);
		}
		if (!done) {
			probe_attest_free(a);
			probe_strlcpy(a->status, sizeof a->status, "race");
		}
		close(dfd);
	}
	if (!replay)
		unlinkat(tsm, entry, AT_REMOVEDIR);
	close(tsm);
}

void probe_attest_free(struct probe_attest *a)
{
	free(a->outblob);
	free(a->auxblob);
	a->outblob = a->auxblob = NULL;
	a->outblob_len = a->auxblob_len = 0;
}

static void probe_attest_hex(FILE *f, const uint8_t *p, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

void probe_attest_json(FILE *f, const struct probe_attest *a)
{
	fputs(",\n  \"attestation\": {\"interface\": \"configfs-tsm\", \"status\": ", f);
	probe_json_string(f, a->status);
	if (a->why[0]) {
		fputs(", \"why\": ", f);
		probe_json_string(f, a->why);
	}
	if (a->provider[0]) {
		fputs(", \"provider\": ", f);
		probe_json_string(f, a->provider);
	}
	if (!strcmp(a->status, "ok")) {
		fprintf(f, ", \"generation\": %llu, \"outblob\": ", a->generation);
		probe_attest_hex(f, a->outblob, a->outblob_len);
		if (a->auxblob) {
			fputs(", \"auxblob\": ", f);
			probe_attest_hex(f, a->auxblob, a->auxblob_len);
		}
	}
	fputs("}\n}\n", f);
}

int probe_attest_report(FILE *out, const char *root, const char *nonce,
                        void (*write)(FILE *, const void *), const void *res)
{
	char *body = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&body, &len);
	if (!mem)
		return -1;
	write(mem, res);
	if (fclose(mem) != 0 || len < 3 || memcmp(body + len - 3, "\n}\n", 3) != 0) {
		free(body);
		return -1;
	}
	uint8_t inblob[64];
	struct probe_attest a;
	probe_attest_binding(nonce, body, len, inblob);
	probe_attest_tsm(root, inblob, &a);
	fwrite(body, 1, len - 3, out);
	probe_attest_json(out, &a);
	probe_attest_free(&a);
	free(body);
	return 0;
}
