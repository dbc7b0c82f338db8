/* SPDX-License-Identifier: Apache-2.0 */
/* connect.c - Connect protocol stream envelopes (see connect.h). */
#include "connect.h"

#include <string.h>

int isotier__connect_feed(isotier_connect_decoder *d, const char *p, size_t n, isotier_error *err)
{
	size_t fmax = d->frame_max ? d->frame_max : (4u << 20);
	size_t smax = d->stream_max ? d->stream_max : (64u << 20);
	d->total += n;
	if (d->total > smax)
		return isotier__error_set(err, ISOTIER_EDATA, 0, "stream longer than %zu bytes",
		                          smax);
	if (d->len + n > d->cap) {
		size_t nc = d->cap ? d->cap : 4096;
		while (nc < d->len + n)
			nc *= 2;
		char *b = realloc(d->buf, nc);
		if (!b)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		d->buf = b;
		d->cap = nc;
	}
	memcpy(d->buf + d->len, p, n);
	d->len += n;
	size_t off = 0;
	int rc = 0;
	while (!rc && d->len - off >= 5) {
		const unsigned char *h = (const unsigned char *)d->buf + off;
		uint32_t flen =
		    (uint32_t)h[1] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 8 | h[4];
		if (d->ended)
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "data after the end-of-stream message");
		else if (h[0] & ~(unsigned)ISOTIER_CONNECT_END_STREAM)
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "envelope flags 0x%02x not supported", h[0]);
		else if (flen > fmax)
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "message of %u bytes (max %zu)", flen, fmax);
		if (rc || d->len - off - 5 < flen)
			break;
		unsigned flags = h[0];
		d->ended = flags & ISOTIER_CONNECT_END_STREAM;
		rc = d->cb(d->ctx, flags, d->buf + off + 5, flen, err);
		off += 5 + flen;
	}
	memmove(d->buf, d->buf + off, d->len - off);
	d->len -= off;
	return rc;
}

int isotier__connect_finish(isotier_connect_decoder *d, isotier_error *err)
{
	int rc =
	    d->len ? isotier__error_set(err, ISOTIER_EDATA, 0,
	                                "stream cut inside a message (%zu bytes left over)", d->len)
	           : 0;
	free(d->buf);
	d->buf = NULL;
	d->len = d->cap = 0;
	return rc;
}

int isotier__connect_envelope(char **out, size_t *out_len, const char *msg, size_t len)
{
	if (len > UINT32_MAX)
		return ISOTIER_EINVAL;
	char *b = malloc(len + 5);
	if (!b)
		return ISOTIER_ENOMEM;
	b[0] = 0;
	b[1] = (char)(len >> 24);
	b[2] = (char)(len >> 16);
	b[3] = (char)(len >> 8);
	b[4] = (char)len;
	memcpy(b + 5, msg, len);
	*out = b;
	*out_len = len + 5;
	return 0;
}

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

ssize_t isotier__base64_decode(unsigned char *out, const char *in, size_t len)
{
	while (len && in[len - 1] == '=')
		len--;
	if (len % 4 == 1)
		return -1;
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		int v = b64val((unsigned char)in[i]);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return (ssize_t)o;
}
