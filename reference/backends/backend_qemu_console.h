/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_qemu_console.h - the qemu-microvm guest's console protocol, host side
 * (internal). The guest init (guest/init.c) frames everything as lines:
 *   ISOTIER-START
 *   ISOTIER-OUT <base64> / ISOTIER-ERR <base64>   the command's stdout/stderr
 *   ISOTIER-CAPTURE-FILE <relpath> <size>, base64 lines (<= 76 chars), ..., ISOTIER-CAPTURE-END
 *   or ISOTIER-CAPTURE-DEFLATE <raw> <compressed>, base64 lines of one zlib
 *      stream of "<relpath> <size>\n" + bytes records, ISOTIER-CAPTURE-END
 *   ISOTIER-EXIT <status> / ISOTIER-FAIL <message>
 * Lines may end in \r\n and kernel noise may precede a tag on its line. The
 * console is hostile input: lines are capped, capture paths are checked (no
 * "..", no absolute path, no symlink followed), sizes and counts bounded.
 */
#ifndef ISOTIER_BACKEND_QEMU_CONSOLE_H
#define ISOTIER_BACKEND_QEMU_CONSOLE_H

#include "backend_util.h"

#define ISOTIER_CONSOLE_MAX_LINE     8192
#define ISOTIER_CONSOLE_MAX_FILE     ((size_t)16 << 20)
#define ISOTIER_CONSOLE_MAX_TOTAL    ((size_t)64 << 20)
#define ISOTIER_CONSOLE_MAX_FILES    4096
#define ISOTIER_CONSOLE_Z_HEADER_MAX 600 /* a compressed capture's file header */

typedef struct isotier_console {
	/* set by the caller */
	const isotier_spec_copy *spec;
	int out_fd, err_fd;
	int64_t deadline_ms; /* for relaying to a reader that stopped reading (0: none) */
	int cancel_fd;       /* qemu's and the relays': readable means cancel (<= 0: none) */
	char line[ISOTIER_CONSOLE_MAX_LINE + 1];
	size_t len;
	bool overlong;
	bool started;
	int exit_code; /* -1 until ISOTIER-EXIT */
	char fail[512];
	/* capture */
	bool capture_ended;
	int cap_fd;
	char cap_name[512];
	size_t cap_expect, cap_got, cap_total, cap_files;
	/* the compressed capture (ISOTIER-CAPTURE-DEFLATE) */
	struct z_stream_s *z;
	bool z_active, z_ended, z_broken;
	size_t z_raw_expect, z_raw_got, z_packed_expect, z_packed_got;
	char z_header[ISOTIER_CONSOLE_Z_HEADER_MAX];
	size_t z_header_len;
	char problem[512]; /* first protocol problem */
	int fatal;         /* a relay failure (ISOTIER_ETIMEDOUT/EINTR): stops the VM */
	bool debug;        /* $ISOTIER_QEMU_DEBUG: raw console to stderr */
} isotier_console;

/* An isotier_proc_sink over qemu's stdout (ctx: a console). */
int isotier__console_sink(void *ctx, const char *buf, size_t len);
/* Handles a last unterminated line and closes any open capture file. */
void isotier__console_finish(isotier_console *c);
/* Writes all of p to fd (see isotier__relay_sink); non-zero: give up on the VM. */
int isotier__console_write(int fd, int64_t deadline_ms, int cancel_fd, const unsigned char *p,
                           size_t n);

#endif
