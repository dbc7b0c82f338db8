/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_stream.c - the capture as one stream on a descriptor instead of a
 * directory: what the qemu-microvm guest's init asks for.
 *
 * Under TCG every system call in the guest is dear: a capture directory of a
 * dozen directories and twenty-odd files cost the probe ~140 calls and the
 * init as many again to walk it, about 50 ms of a verification. Handed a
 * descriptor ($ISOTIER_CAPTURE_FD), the probe keeps each input as a record,
 * "<relative-path> <size>\n" and the bytes (the records the init compresses
 * anyway: CAPTURE.md), and writes them all at once when every input is read;
 * closing the descriptor says the capture is whole, so the init can send it
 * while the sampler still waits out its window. The host checks each record
 * as it checks a file of a capture directory.
 */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void probe_capture_stream_start(struct probe_input *in, int fd)
{
	in->stream.fd = fd;
}

bool probe_capture_stream_put(struct probe_input *in, const char *rel, const char *data, size_t len)
{
	struct probe_capture_stream *s = &in->stream;
	char header[PROBE_CAPTURE_STREAM_HEADER];
	int hl = snprintf(header, sizeof header, "%s %zu\n", rel, len);
	if (hl < 0 || (size_t)hl >= sizeof header || len > PROBE_CAPTURE_STREAM_MAX ||
	    (size_t)hl + len > PROBE_CAPTURE_STREAM_MAX - s->len)
		return false;
	if (s->len + (size_t)hl + len > s->cap) {
		size_t cap = s->cap ? s->cap : 65536;
		while (cap < s->len + (size_t)hl + len)
			cap *= 2;
		char *p = realloc(s->buf, cap);
		if (!p)
			return false;
		s->buf = p;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, header, (size_t)hl);
	memcpy(s->buf + s->len + hl, data, len);
	s->len += (size_t)hl + len;
	return true;
}

void probe_capture_stream_end(struct probe_input *in)
{
	struct probe_capture_stream *s = &in->stream;
	if (s->fd < 0)
		return;
	size_t off = 0;
	while (off < s->len) {
		ssize_t n = write(s->fd, s->buf + off, s->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	/* A capture cut short is an incomplete one, as a file not written is. */
	if (off < s->len)
		in->capture_failed++;
	close(s->fd);
	s->fd = -1;
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
}
