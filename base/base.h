/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base.h - the base layer every part of isotier may use: errors, tiers, strings,
 * UTF-8 and JSON, files; shared inside libisotier and the isotier CLI
 * (not installed). crun-style: cleanup attributes instead of goto ladders,
 * an error object filled with a message chain.
 */
#ifndef ISOTIER_BASE_H
#define ISOTIER_BASE_H

#include "isotier.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ISOTIER_UNUSED       __attribute__((unused))
#define ISOTIER_PRINTF(a, b) __attribute__((format(printf, a, b)))

static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}
static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define cleanup_free   __attribute__((cleanup(cleanup_freep)))
#define cleanup_close  __attribute__((cleanup(cleanup_closep)))
#define cleanup_fclose __attribute__((cleanup(cleanup_fclosep)))

/* Steals a pointer out of a cleanup variable. */
#define steal_pointer(pp)                                                                          \
	({                                                                                         \
		__typeof__(*(pp)) stolen_ = *(pp);                                                 \
		*(pp) = NULL;                                                                      \
		stolen_;                                                                           \
	})

/*
 * Sets err (if non-NULL) and returns code, so callers can write
 *   return isotier__error_set(err, ISOTIER_EIO, errno, "open %s", path);
 * When sys_errno is non-zero, ": strerror(sys_errno)" is appended.
 */
int isotier__error_set(isotier_error *err, int code, int sys_errno, const char *fmt, ...)
    ISOTIER_PRINTF(4, 5);
/* Prepends context to an existing message: "context: previous". Returns err->code. */
int isotier__error_prefix(isotier_error *err, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
void isotier__error_clear(isotier_error *err);

/* UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf (>= 21 bytes). */
void isotier__utc_now(char *buf, size_t len);

/* ms milliseconds from now on clock (the clock a pthread_cond_timedwait's
 * condition variable was made with). */
struct timespec isotier__time_after_ms(int clock, long ms);

/* Reads a whole file of at most max bytes; NUL-terminated. Returns 0 or <0. */
/* len bytes from getrandom(2), waiting for the pool, retrying EINTR and short
 * reads: 0, or -1 with errno set (never a partial fill, never a weaker source:
 * a guessable nonce or pattern is one a sandbox could play back). */
int isotier__random_bytes(void *buf, size_t len);
/* All len bytes to fd, retrying EINTR and short writes: 0, or -1 with errno
 * set (a write of nothing is EIO). */
int isotier__write_all(int fd, const void *buf, size_t len);
/* Up to len bytes from fd, retrying EINTR and short reads, until len or end
 * of file: the count, or -1 with errno set. */
ssize_t isotier__read_full(int fd, void *buf, size_t len);
int isotier__read_file(char **out, size_t *out_len, const char *path, size_t max,
                       isotier_error *err);

/* Opens path for appending (created 0640 if absent) and returns the
 * descriptor, or <0: ISOTIER_EINVAL when it is not a regular file (a FIFO,
 * device, directory or socket: never waited on) or a symbolic link (never
 * followed, dangling or not), else ISOTIER_EIO. `what`
 * names the option in the error ("audit log"). */
int isotier__open_append(const char *path, const char *what, isotier_error *err);
/* "a FIFO", "a directory"... for a st_mode. */
const char *isotier__file_kind(unsigned mode);

/* JSON (json.c). cJSON is not part of the public header: declared here by tag. */
struct cJSON;
/* Parses len bytes as one JSON document (only whitespace after it) and
 * refuses a duplicate key at any depth: a document has one reading, the one
 * judged. NULL with err (ISOTIER_EDATA, prefixed by `what`) on refusal. */
struct cJSON *isotier__json_parse(const char *json, size_t len, const char *what,
                                  isotier_error *err);
/* The one strict reader of hostile JSON (the probe's report, a provider's
 * answer): as isotier__json_parse, and also refuses an empty buffer, a NUL
 * byte and nesting deeper than max_depth (checked before cJSON recurses).
 * Errors: "WHAT: empty", "contains a NUL byte", "nested deeper than N
 * levels", "not JSON (at byte N)", "trailing data at byte N", "duplicate
 * key \"K\"", each ISOTIER_EDATA. */
struct cJSON *isotier__json_parse_limited(const char *json, size_t len, int max_depth,
                                          const char *what, isotier_error *err);
/* The first key that occurs twice in one object anywhere under item (and its
 * siblings), or NULL. */
const char *isotier__json_duplicate_key(const struct cJSON *item);
/* A copy of s with every byte that is not part of valid UTF-8 replaced by
 * U+FFFD; *n_replaced (may be NULL) counts them. NULL: out of memory. */
char *isotier__utf8_scrub(const char *s, size_t *n_replaced);

/* A growing NUL-terminated string (buf NULL until the first append). After a
 * failed allocation appends do nothing and oom stays set, so a writer checks
 * once, at the end; the caller frees buf. */
typedef struct isotier_strbuf {
	char *buf;
	size_t len, cap;
	bool oom;
} isotier_strbuf;
void isotier__strbuf_add(isotier_strbuf *b, const char *s, size_t n);
/* Scrubs every key and string under item (and its siblings) in place;
 * adds the count to *replaced. 0, or -1 out of memory. */
int isotier__json_scrub(struct cJSON *item, size_t *replaced);
/* Prints doc as valid UTF-8, always: invalid bytes in its strings become
 * U+FFFD, and an object (the document, or each element of a top-level array)
 * that needed it gains "utf8_replacements": N. Every JSON isotier writes goes
 * through here. Caller frees with free(). NULL: out of memory. */
char *isotier__json_print(struct cJSON *doc, bool formatted);
/* Code points that can rewrite what a reader sees: C0/C1 controls, DEL,
 * bidirectional marks, overrides and isolates, line/paragraph separators. One
 * policy for the terminal, HTML, Markdown and JSON writers. */
bool isotier__unicode_unsafe(uint32_t cp);

/* One UTF-8 sequence at p, at most avail bytes: its length (1-4) and code
 * point, or 0 when the bytes are not valid UTF-8 (overlong, surrogate, out of
 * range, truncated). A NUL ends any sequence, so C strings may pass SIZE_MAX. */
size_t isotier__utf8_decode(const unsigned char *p, size_t avail, uint32_t *cp);
/* Whether s[0..len) is entirely valid UTF-8. */
bool isotier__utf8_valid(const char *s, size_t len);

/* Writes text with everything that could rewrite a terminal made visible:
 * C0/C1 controls ("\\x1b"), bidirectional overrides ("\\u202e"), invalid
 * UTF-8 bytes ("\\xff"). For anything that came from a sandbox, a database or
 * a web page. _sanitized keeps newlines and tabs (whole messages, lines we
 * formatted); _inline escapes them too (one value in a table cell or line,
 * where a newline could forge a row). */
void isotier__fputs_sanitized(FILE *f, const char *s);
void isotier__fputs_inline(FILE *f, const char *s);

#endif
