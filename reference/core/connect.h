/* SPDX-License-Identifier: Apache-2.0 */
/*
 * connect.h - the Connect protocol's streaming envelope (connectrpc.com
 * "Connect Protocol Reference", streaming RPCs; used by E2B's envd), JSON
 * codec, internal to libisotier: each message is 1 flag byte (0x01
 * compressed, 0x02 end-of-stream) and a 4-byte big-endian length, then that
 * many bytes. Compressed messages are refused (none is asked for).
 */
#ifndef ISOTIER_CONNECT_H
#define ISOTIER_CONNECT_H

#include "../../base/base.h"

#include <stdint.h>

#define ISOTIER_CONNECT_END_STREAM 0x02

/* Called per complete message; non-zero stops decoding and is returned. */
typedef int (*isotier_connect_cb)(void *ctx, unsigned flags, const char *msg, size_t len,
                                  isotier_error *err);

typedef struct isotier_connect_decoder {
	char *buf;
	size_t len, cap;
	size_t frame_max;  /* 0: 4 MiB */
	size_t stream_max; /* 0: 64 MiB in all */
	size_t total;
	bool ended; /* an end-of-stream message was seen (nothing may follow) */
	isotier_connect_cb cb;
	void *ctx;
} isotier_connect_decoder;

/* Feeds bytes; returns 0 or an ISOTIER_E* (bad framing: EDATA). */
int isotier__connect_feed(isotier_connect_decoder *d, const char *p, size_t n, isotier_error *err);
/* At the end of the body: EDATA when a message was cut short. Frees. */
int isotier__connect_finish(isotier_connect_decoder *d, isotier_error *err);

/* One enveloped message (flags 0); *out malloc'd, *out_len 5 + len. */
int isotier__connect_envelope(char **out, size_t *out_len, const char *msg, size_t len);

/* Standard base64 (padding optional, as protobuf JSON allows; also the URL
 * alphabet). Returns decoded length, or -1 on bad input. out holds len*3/4+3. */
ssize_t isotier__base64_decode(unsigned char *out, const char *in, size_t len);

#endif
