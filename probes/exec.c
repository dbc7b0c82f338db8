/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec.c - isotier-probe ... --exec -- CMD [ARG...]: one sandbox, probed then
 * run. The report goes out first (standard output, between markers); the
 * probe then waits on standard input for the verifier's word and, only on
 * "ISOTIER-GO <nonce>", replaces itself with CMD (execvp: the same process,
 * in the same sandbox, with the same standard streams). A runtime cannot send
 * the probe to one sandbox and the command to another without relaying this
 * process itself. Anything else (another line, another nonce, end of input, a
 * line longer than the word) leaves CMD never started.
 */
#include "probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define EXEC_WORD     "ISOTIER-GO "
#define EX_NOPERM     77 /* sysexits: the verifier refused */
#define EXEC_LINE_MAX 128

/* One line from fd 0, a byte at a time: nothing past the newline is taken
 * from what the command will read. -1 on end of input, an error or a line
 * too long. */
static int read_word(char *buf, size_t len)
{
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(0, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1)
			return -1;
		if (c == '\n')
			break;
		if (n + 1 >= len)
			return -1;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

int probe_exec_after_go(char *const *cmd, const char *nonce)
{
	char line[EXEC_LINE_MAX], want[EXEC_LINE_MAX];
	snprintf(want, sizeof want, EXEC_WORD "%s", nonce);
	if (read_word(line, sizeof line) < 0 || strcmp(line, want) != 0) {
		fputs("isotier-probe: the verifier did not let the command run\n", stderr);
		return EX_NOPERM;
	}
	execvp(cmd[0], cmd);
	int e = errno;
	/* The command's name is the caller's: not echoed (no terminal escapes). */
	fprintf(stderr, "isotier-probe: --exec: cannot run the command: %s\n", strerror(e));
	return e == ENOENT ? 127 : 126;
}
