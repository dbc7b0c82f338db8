/* SPDX-License-Identifier: Apache-2.0 */
/*
 * redact.h - the one redaction layer for credentials (internal to libisotier).
 *
 * A remote backend registers every credential it reads from the environment
 * (isotier__secret_from_env) before using it. From then on every error message
 * (isotier__error_set / isotier__error_prefix call isotier__redact) and every text
 * a remote backend relays from a provider has each registered value replaced
 * by "[redacted]". History rows, reports, audit events, spans and logs all
 * take their text from those, so nothing else needs to scrub.
 */
#ifndef ISOTIER_REDACT_H
#define ISOTIER_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#define ISOTIER_REDACTED "[redacted]"

/* Registers a secret (values shorter than 6 bytes are refused: too likely to
 * match ordinary text; such a credential is rejected by the caller). Returns
 * 0, or -1 when the table is full or the value too short. Thread-safe. */
int isotier__secret_add(const char *value);

/* getenv(var), registered as a secret; NULL when unset, empty or too short. */
const char *isotier__secret_from_env(const char *var);

/* Replaces every registered secret in the NUL-terminated buf (capacity cap)
 * in place. Returns true when something was replaced. */
bool isotier__redact(char *buf, size_t cap);

/* Same over a byte buffer of length *len (not NUL-terminated; may shrink or
 * grow up to cap). */
bool isotier__redact_bytes(char *buf, size_t *len, size_t cap);

/* The longest registered secret's length; 0 when none is registered. */
size_t isotier__secret_longest(void);

/*
 * Redaction of a stream that arrives in chunks (a provider's output messages):
 * a secret split across two chunks is still replaced. The last (longest
 * secret - 1) bytes are held back until the next chunk or the end.
 * Start zeroed; push each chunk, end once; *out (malloc'd, free it; NULL
 * when *out_len is 0) is what may be passed on. ISOTIER_ENOMEM (< 0) when
 * memory ran out: nothing of the chunk is passed on unredacted.
 */
typedef struct isotier_redact_stream {
	char *tail;
	size_t tail_len;
} isotier_redact_stream;

int isotier__redact_stream_push(isotier_redact_stream *rs, const char *buf, size_t len, char **out,
                                size_t *out_len);
int isotier__redact_stream_end(isotier_redact_stream *rs, char **out, size_t *out_len);

#endif
