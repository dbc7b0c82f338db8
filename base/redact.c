/* SPDX-License-Identifier: Apache-2.0 */
/* redact.c - credentials registered once, replaced everywhere (see redact.h). */
#include "redact.h"
#include "base.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SECRETS_MAX 16
#define SECRET_MIN  6
#define SECRET_MAX  4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *secrets[SECRETS_MAX];
static size_t n_secrets;

int isotier__secret_add(const char *value)
{
	size_t n = value ? strnlen(value, SECRET_MAX + 1) : 0;
	if (n < SECRET_MIN || n > SECRET_MAX)
		return -1;
	int rc = 0;
	pthread_mutex_lock(&lock);
	bool known = false;
	for (size_t i = 0; i < n_secrets && !known; i++)
		known = !strcmp(secrets[i], value);
	if (!known) {
		char *copy = n_secrets < SECRETS_MAX ? strdup(value) : NULL;
		if (copy)
			secrets[n_secrets++] = copy;
		else
			rc = -1;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

const char *isotier__secret_from_env(const char *var)
{
	const char *v = getenv(var);
	if (!v || !*v || isotier__secret_add(v) != 0)
		return NULL;
	return v;
}

bool isotier__redact_bytes(char *buf, size_t *len, size_t cap)
{
	static const char mark[] = ISOTIER_REDACTED;
	const size_t mlen = sizeof mark - 1;
	bool hit = false;
	if (!buf || !len)
		return false;
	pthread_mutex_lock(&lock);
	for (size_t s = 0; s < n_secrets; s++) {
		size_t slen = strlen(secrets[s]);
		size_t i = 0;
		while (i + slen <= *len) {
			if (memcmp(buf + i, secrets[s], slen) != 0) {
				i++;
				continue;
			}
			hit = true;
			/* Replace; when the mark does not fit, blank the secret out instead. */
			if (*len - slen + mlen <= cap) {
				memmove(buf + i + mlen, buf + i + slen, *len - i - slen);
				memcpy(buf + i, mark, mlen);
				*len = *len - slen + mlen;
				i += mlen;
			} else {
				memset(buf + i, '*', slen);
				i += slen;
			}
		}
	}
	pthread_mutex_unlock(&lock);
	return hit;
}

bool isotier__redact(char *buf, size_t cap)
{
	if (!buf || !cap)
		return false;
	size_t len = strnlen(buf, cap - 1);
	bool hit = isotier__redact_bytes(buf, &len, cap - 1);
	buf[len] = '\0';
	return hit;
}

size_t isotier__secret_longest(void)
{
	size_t longest = 0;
	pthread_mutex_lock(&lock);
	for (size_t s = 0; s < n_secrets; s++) {
		size_t n = strlen(secrets[s]);
		if (n > longest)
			longest = n;
	}
	pthread_mutex_unlock(&lock);
	return longest;
}

int isotier__redact_stream_push(isotier_redact_stream *rs, const char *buf, size_t len, char **out,
                                size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	size_t joined = rs->tail_len + len;
	if (!joined)
		return 0;
	/* Each replacement turns at least SECRET_MIN bytes into the mark. */
	size_t cap = joined * 2 + sizeof ISOTIER_REDACTED;
	char *b = malloc(cap);
	if (!b)
		return ISOTIER_ENOMEM;
	if (rs->tail_len)
		memcpy(b, rs->tail, rs->tail_len);
	if (len)
		memcpy(b + rs->tail_len, buf, len);
	isotier__redact_bytes(b, &joined, cap);
	size_t longest = isotier__secret_longest();
	size_t keep = longest > 1 ? longest - 1 : 0;
	if (keep > joined)
		keep = joined;
	char *tail = keep ? malloc(keep) : NULL;
	if (keep && !tail) {
		free(b);
		return ISOTIER_ENOMEM;
	}
	if (keep)
		memcpy(tail, b + joined - keep, keep);
	free(rs->tail);
	rs->tail = tail;
	rs->tail_len = keep;
	*out_len = joined - keep;
	if (*out_len)
		*out = b;
	else
		free(b);
	return 0;
}

int isotier__redact_stream_end(isotier_redact_stream *rs, char **out, size_t *out_len)
{
	*out = rs->tail; /* already redacted with everything before it */
	*out_len = rs->tail_len;
	if (!*out_len) {
		free(*out);
		*out = NULL;
	}
	rs->tail = NULL;
	rs->tail_len = 0;
	return 0;
}
