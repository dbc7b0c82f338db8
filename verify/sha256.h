/* sha256.h - a small self-contained SHA-256 (FIPS 180-4), for content hashes. */
#ifndef ISOTIER_SHA256_H
#define ISOTIER_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct isotier_sha256 {
	uint32_t h[8];
	uint64_t total;
	unsigned char buf[64];
	size_t buf_len;
} isotier_sha256;

void isotier_sha256_init(isotier_sha256 *c);
void isotier_sha256_update(isotier_sha256 *c, const void *data, size_t len);
void isotier_sha256_final(isotier_sha256 *c, unsigned char out[32]);
/* One shot, as 64 lowercase hex digits and a NUL into hex[65]. */
void isotier_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
