/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attest.h - the probe's half of hardware attestation (ADR-0020): ask the
 * guest's kernel, through configfs-tsm, for a report over a binding of this
 * run, and print the evidence as the report's last member.
 *
 * The binding is SHA-512("isotier-attest/1\0" || nonce || "\0" ||
 * SHA-512(body)), body being the JSON report as it would be printed without
 * the attestation member: the verifier recomputes it from what it received,
 * so the evidence covers both its own nonce and everything the probe said.
 * Everything here is best effort: no TSM, a refusing provider or a race
 * gives a status, never a failed probe.
 */
#ifndef PROBE_ATTEST_H
#define PROBE_ATTEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROBE_ATTEST_TSM      "/sys/kernel/config/tsm/report"
#define PROBE_ATTEST_MAX_OUT  (16 * 1024)
#define PROBE_ATTEST_MAX_AUX  (64 * 1024)
#define PROBE_ATTEST_ATTEMPTS 3

/* attest_sha512.c: FIPS 180-4 SHA-512 (the probe links no crypto library). */
void probe_sha512(const void *data, size_t len, uint8_t out[64]);
/* The binding above for body (len bytes) and nonce. */
void probe_attest_binding(const char *nonce, const char *body, size_t len, uint8_t out[64]);

struct probe_attest {
	char status[16]; /* ok, absent, unsupported, refused, race, error */
	char why[160];
	char provider[24];
	unsigned long long generation;
	uint8_t *outblob, *auxblob; /* malloc'd */
	size_t outblob_len, auxblob_len;
};

struct probe_input;
/* The configfs-tsm flow under `root` ("/" live, or a replay root): an
 * entry made, inblob written, outblob, auxblob and provider read with the
 * generation unchanged across them (retried on a race), the entry removed. */
void probe_attest_tsm(const char *root, const uint8_t inblob[64], struct probe_attest *a);
void probe_attest_free(struct probe_attest *a);
/* Prints the member (",\n  \"attestation\": {...}") for a. */
void probe_attest_json(FILE *f, const struct probe_attest *a);
/* The whole report with the attestation member last, for a JSON report
 * writer `write` of res: body rendered, bound, the flow run, printed. */
int probe_attest_report(FILE *out, const char *root, const char *nonce,
                        void (*write)(FILE *, const void *), const void *res);

#endif
