/* SPDX-License-Identifier: Apache-2.0 */
/* sha256.h - SHA-256 for content hashes, through libcrypto's EVP interface
 * (no hand-written digest to maintain). */
#ifndef ISOTIER_SHA256_H
#define ISOTIER_SHA256_H

#include <stdbool.h>
#include <stddef.h>

#include "../../reference/api/isotier_tool.h"

typedef struct isotier_sha256 {
	void *ctx;   /* EVP_MD_CTX */
	bool failed; /* libcrypto could not start or feed the digest */
} isotier_sha256;

void isotier_sha256_init(isotier_sha256 *c);
void isotier_sha256_update(isotier_sha256 *c, const void *data, size_t len);
/* Writes the digest and releases c. Returns 0, or -1 when libcrypto failed
 * (out of memory): out is then all zeros and must not be used. */
int isotier_sha256_final(isotier_sha256 *c, unsigned char out[32]);
/* One shot, as hex: isotier__sha256_hex (reference/core/paths.h, through the tool header). */

#endif
