/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_redact_stream.c - the streaming redaction (base/redact.c) a remote
 * backend's output goes through: a credential split across any number of
 * chunks, at any offsets, is still replaced. Input: n (first byte, mod 32),
 * n chunk lengths (one byte each; 0 is an empty push), then the text, pushed
 * in chunks of those lengths, cycling.
 * Properties: no registered secret survives in what is passed on, however
 * the text was cut; text holding no secret passes through byte for byte; what
 * is passed on is no longer than the text with every secret made a mark. */
#include "fuzz.h"

#include "../../base/redact.h"

/* Registered once for the process (the table is process-wide): a long one, a
 * shortest one (6 bytes) and one whose prefix repeats inside it (a match
 * that fails late must not skip a real one starting within it). */
static const char *const secrets[] = {"k3y-PLANTED-0123456789abcdef", "zq9#wv", "aaaaaaab"};
#define N_SECRETS (sizeof secrets / sizeof *secrets)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	for (size_t i = 0; i < N_SECRETS; i++)
		if (isotier__secret_add(secrets[i]) != 0)
			abort();
	return 0;
}

static void append(char **all, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2 + 64;
		*all = realloc(*all, *cap);
		if (!*all)
			abort();
	}
	if (n)
		memcpy(*all + *len, p, n);
	*len += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	size_t n_cuts = data[0] % 32;
	if (1 + n_cuts > size)
		return 0;
	const uint8_t *cuts = data + 1;
	const char *text = (const char *)data + 1 + n_cuts;
	size_t text_len = size - 1 - n_cuts;

	isotier_redact_stream rs = {0};
	char *all = NULL, *out = NULL;
	size_t len = 0, cap = 0, out_len = 0;
	size_t at = 0;
	for (size_t k = 0; at < text_len || k == 0; k++) {
		size_t want = n_cuts ? cuts[k % n_cuts] : text_len;
		if (want > text_len - at)
			want = text_len - at;
		FUZZ_ASSERT(isotier__redact_stream_push(&rs, text + at, want, &out, &out_len) == 0,
		            "push failed");
		FUZZ_ASSERT(out_len == 0 || out, "length without bytes");
		append(&all, &len, &cap, out, out_len);
		free(out);
		at += want;
		/* Empty pushes are legal; a cycle of only zero lengths would never end. */
		if (k > text_len + n_cuts + 2)
			break;
	}
	if (at < text_len) { /* the cuts were all zero: the rest in one push */
		FUZZ_ASSERT(
		    isotier__redact_stream_push(&rs, text + at, text_len - at, &out, &out_len) == 0,
		    "push failed");
		append(&all, &len, &cap, out, out_len);
		free(out);
	}
	FUZZ_ASSERT(isotier__redact_stream_end(&rs, &out, &out_len) == 0, "end failed");
	append(&all, &len, &cap, out, out_len);
	free(out);

	bool any = false;
	for (size_t i = 0; i < N_SECRETS; i++) {
		size_t sl = strlen(secrets[i]);
		FUZZ_ASSERT(!memmem(all ? all : "", len, secrets[i], sl),
		            "secret %zu survived the stream (%zu cuts)", i, n_cuts);
		any = any || memmem(text, text_len, secrets[i], sl);
	}
	if (!any)
		FUZZ_ASSERT(len == text_len && (!len || !memcmp(all, text, len)),
		            "text without a secret was changed (%zu -> %zu bytes)", text_len, len);
	/* Each replacement turns at least 6 bytes into the 10 of the mark. */
	FUZZ_ASSERT(len <= text_len + (text_len / 6 + 1) * (sizeof ISOTIER_REDACTED - 1),
	            "output grew beyond the marks: %zu -> %zu", text_len, len);
	free(all);
	return 0;
}
