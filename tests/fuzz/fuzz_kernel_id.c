/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_kernel_id.c - the kernel-identity comparison (reference/evidence/kernel_id.c
 * isotier__kernel_compare), the one step that can let a vm layer count as a
 * sandbox's own. Input: a mode byte, then two identities (host, sandbox),
 * each a boot_id (raw bytes, or a canonical UUID built from the input's
 * nibbles, or two of them equal) and a btime (8 bytes; 0: absent). The
 * detail buffer's size is fuzzed too.
 * Properties: never DEDICATED on equal or absent (invalid) boot_ids, on an
 * absent btime or on equal btimes; equal valid boot_ids are always SHARED;
 * the relation does not depend on which side is the host; the detail is
 * NUL-terminated valid UTF-8 within its buffer. */
#include "fuzz.h"

#include "../../reference/evidence/kernel_id.h"

typedef struct cursor {
	const uint8_t *p;
	size_t left;
} cursor;

static uint8_t take(cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

/* A boot_id: raw bytes (mostly invalid), or a canonical UUID whose hex
 * digits come from the input (valid, as Linux prints one). */
static void boot_id(cursor *c, char out[40], bool canonical)
{
	static const char hex[] = "0123456789abcdef";
	memset(out, 0, 40);
	if (canonical) {
		for (int i = 0, k = 0; i < 36; i++)
			out[i] = i == 8 || i == 13 || i == 18 || i == 23
			             ? '-'
			             : hex[(take(c) >> (k++ & 1) * 4) & 15];
		return;
	}
	size_t n = take(c) % 40;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)take(c);
}

static int64_t btime(cursor *c)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | take(c);
	switch (v & 3) { /* bias towards the edge cases the rule turns on */
	case 0: return 0;
	case 1: return (int64_t)(v >> 2) % 2000000000;
	default: return (int64_t)v;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cursor c = {data, size};
	uint8_t mode = take(&c);
	isotier_kernel_id host = {0}, sb = {0};
	boot_id(&c, host.boot_id, mode & 1);
	if (mode & 4) /* the same boot_id on both sides */
		memcpy(sb.boot_id, host.boot_id, sizeof sb.boot_id);
	else
		boot_id(&c, sb.boot_id, mode & 2);
	host.btime = btime(&c);
	sb.btime = mode & 8 ? host.btime : btime(&c);
	size_t dlen = 1 + take(&c) % 300;
	char *detail = malloc(dlen); /* exactly dlen: ASan sees any overrun */
	if (!detail)
		abort();
	isotier_kernel_relation r = isotier__kernel_compare(&host, &sb, detail, dlen);
	FUZZ_ASSERT(r == ISOTIER_KERNEL_UNCOMPARED || r == ISOTIER_KERNEL_SHARED ||
	                r == ISOTIER_KERNEL_DEDICATED,
	            "relation %d: SELF is never a comparison's answer", (int)r);
	bool valid_h = isotier__boot_id_valid(host.boot_id),
	     valid_s = isotier__boot_id_valid(sb.boot_id);
	if (r == ISOTIER_KERNEL_DEDICATED) {
		FUZZ_ASSERT(valid_h && valid_s, "DEDICATED without two valid boot_ids");
		FUZZ_ASSERT(strcmp(host.boot_id, sb.boot_id) != 0, "DEDICATED on equal boot_ids");
		FUZZ_ASSERT(host.btime > 0 && sb.btime > 0, "DEDICATED with a btime absent");
		FUZZ_ASSERT(host.btime != sb.btime, "DEDICATED on equal btimes");
	}
	if (valid_h && valid_s && !strcmp(host.boot_id, sb.boot_id))
		FUZZ_ASSERT(r == ISOTIER_KERNEL_SHARED, "equal boot_ids not SHARED: %d", (int)r);
	size_t len = strnlen(detail, dlen);
	FUZZ_ASSERT(len < dlen, "detail not NUL-terminated within %zu bytes", dlen);
	FUZZ_ASSERT(dlen < 8 || len > 0, "no detail");
	/* Cut mid-character by a small buffer is the caller's concern; whole,
	 * it is valid UTF-8 (boot_ids are printed only when canonical). */
	if (dlen == 300)
		FUZZ_ASSERT(isotier__utf8_valid(detail, len), "detail is not valid UTF-8");
	char back[300];
	isotier_kernel_relation swapped = isotier__kernel_compare(&sb, &host, back, sizeof back);
	FUZZ_ASSERT(swapped == r, "the relation depends on which side is the host: %d vs %d",
	            (int)r, (int)swapped);
	FUZZ_ASSERT(isotier__utf8_valid(back, strlen(back)), "detail is not valid UTF-8: %s", back);
	free(detail);
	return 0;
}
