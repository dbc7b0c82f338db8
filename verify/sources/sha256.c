/* SPDX-License-Identifier: Apache-2.0 */
/* sha256.c - SHA-256 through libcrypto's EVP digest interface. */
#include "sha256.h"

#include <openssl/evp.h>
#include <string.h>

void isotier_sha256_init(isotier_sha256 *c)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	c->ctx = ctx;
	c->failed = !ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1;
}

void isotier_sha256_update(isotier_sha256 *c, const void *data, size_t len)
{
	if (!c->failed && len && EVP_DigestUpdate(c->ctx, data, len) != 1)
		c->failed = true;
}

int isotier_sha256_final(isotier_sha256 *c, unsigned char out[32])
{
	unsigned int n = 0;
	if (!c->failed && EVP_DigestFinal_ex(c->ctx, out, &n) != 1)
		c->failed = true;
	EVP_MD_CTX_free(c->ctx);
	c->ctx = NULL;
	if (c->failed || n != 32) {
		memset(out, 0, 32);
		return -1;
	}
	return 0;
}
