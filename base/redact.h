/*
 * redact.h - the one redaction layer for credentials (internal to libisotier).
 *
 * A remote backend registers every credential it reads from the environment
 * (isotier_secret_from_env) before using it. From then on every error message
 * (isotier_error_set / isotier_error_prefix call isotier_redact) and every text
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
int isotier_secret_add(const char *value);

/* getenv(var), registered as a secret; NULL when unset, empty or too short. */
const char *isotier_secret_from_env(const char *var);

/* Replaces every registered secret in the NUL-terminated buf (capacity cap)
 * in place. Returns true when something was replaced. */
bool isotier_redact(char *buf, size_t cap);

/* Same over a byte buffer of length *len (not NUL-terminated; may shrink or
 * grow up to cap). */
bool isotier_redact_bytes(char *buf, size_t *len, size_t cap);

#endif
