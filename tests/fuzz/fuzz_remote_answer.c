/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_remote_answer.c - what a provider answers, through the pieces every
 * remote adapter reads it with (reference/backends/remote/remote_util.c, connect.c,
 * http.c). Input: a mode byte, then the answer.
 *  mode 0: a Connect stream (E2B's process events), fed in chunks whose sizes
 *          come from the mode byte's high bits: every message delivered is
 *          within the frame limit, nothing follows an end-of-stream, and the
 *          messages re-enveloped decode to the same messages;
 *  mode 1: a create's answer (isotier__remote_created_id, id at "id" or
 *          "sandbox.id"): an id taken is one isotier__remote_id_valid accepts
 *          and fits; a refusal says something answered (unknown);
 *  mode 2: an exec's answer (the strict parser, then exitCode through
 *          isotier__remote_exit_code): an exit status taken is 0-255, and a
 *          document accepted has no key twice.
 * Never a crash, a leak or an error without a message. */
#include "fuzz.h"

#include <cJSON.h>

#include "../../reference/backends/remote/remote.h"
#include "../../reference/core/connect.h"
#include "../../reference/core/http.h"

#define FRAME_MAX 4096

typedef struct msgs {
	char *all; /* every message, each preceded by its flags byte and length */
	size_t len, cap, n;
	bool after_end; /* a message came after an end-of-stream one */
	bool ended;
} msgs;

static int keep(void *ctx, unsigned flags, const char *msg, size_t len, isotier_error *err)
{
	(void)err;
	msgs *m = ctx;
	FUZZ_ASSERT(len <= FRAME_MAX, "a %zu-byte message past the %d-byte frame limit", len,
	            FRAME_MAX);
	m->after_end |= m->ended;
	m->ended |= (flags & ISOTIER_CONNECT_END_STREAM) != 0;
	size_t need = m->len + 1 + sizeof len + len;
	if (need > m->cap) {
		m->cap = need * 2;
		m->all = realloc(m->all, m->cap);
		if (!m->all)
			abort();
	}
	m->all[m->len] = (char)flags;
	memcpy(m->all + m->len + 1, &len, sizeof len);
	if (len)
		memcpy(m->all + m->len + 1 + sizeof len, msg, len);
	m->len = need;
	m->n++;
	return 0;
}

static int decode(msgs *m, const char *p, size_t n, size_t chunk, isotier_error *err)
{
	isotier_connect_decoder d = {.frame_max = FRAME_MAX, .cb = keep, .ctx = m};
	int rc = 0;
	for (size_t at = 0; !rc && at < n; at += chunk)
		rc = isotier__connect_feed(&d, p + at, n - at < chunk ? n - at : chunk, err);
	int frc = isotier__connect_finish(&d, rc ? NULL : err);
	return rc ? rc : frc;
}

static void connect_stream(const char *p, size_t n, unsigned chunk)
{
	msgs first = {0};
	isotier_error err = {0};
	int rc = decode(&first, p, n, chunk, &err);
	FUZZ_ASSERT(rc == 0 || err.message[0], "refused without a message");
	FUZZ_ASSERT(rc != 0 || !first.after_end, "a message delivered after end-of-stream");
	if (rc == 0 && first.n) {
		/* Re-envelope what was delivered (flags kept) and decode it whole. */
		char *wire = NULL;
		size_t wl = 0;
		for (size_t at = 0; at < first.len;) {
			unsigned flags = (unsigned char)first.all[at];
			size_t len;
			memcpy(&len, first.all + at + 1, sizeof len);
			const char *msg = first.all + at + 1 + sizeof len;
			char *env = NULL;
			size_t el = 0;
			FUZZ_ASSERT(isotier__connect_envelope(&env, &el, msg, len) == 0,
			            "envelope");
			env[0] = (char)flags;
			wire = realloc(wire, wl + el);
			if (!wire)
				abort();
			memcpy(wire + wl, env, el);
			wl += el;
			free(env);
			at += 1 + sizeof len + len;
		}
		msgs again = {0};
		isotier_error e2 = {0};
		FUZZ_ASSERT(decode(&again, wire, wl, wl, &e2) == 0,
		            "re-enveloped stream refused: %s", e2.message);
		FUZZ_ASSERT(again.len == first.len && !memcmp(again.all, first.all, first.len),
		            "re-enveloped messages differ");
		free(again.all);
		free(wire);
	}
	free(first.all);
}

static void create_answer(const char *p, size_t n, bool nested)
{
	isotier_http_response resp = {.status = 200, .body = (char *)p, .body_len = n};
	char id[64];
	memset(id, 'x', sizeof id);
	bool made = false, unknown = false;
	isotier_error err = {0};
	int rc = isotier__remote_created_id(&resp, "create answer", nested ? "sandbox" : NULL, "id",
	                                    id, sizeof id, &made, &unknown, &err);
	if (rc == 0) {
		FUZZ_ASSERT(made && !unknown, "an id taken but not marked made");
		FUZZ_ASSERT(strnlen(id, sizeof id) < sizeof id, "the id does not fit its buffer");
		FUZZ_ASSERT(isotier__remote_id_valid(id), "an invalid id taken");
	} else {
		FUZZ_ASSERT(!made && unknown, "a refused answer not taken as unknown");
		FUZZ_ASSERT(err.code == ISOTIER_EDATA || err.code == ISOTIER_ENOMEM, "code %d",
		            err.code);
		FUZZ_ASSERT(err.message[0], "refused without a message");
	}
}

static void exec_answer(const char *p, size_t n)
{
	isotier_error err = {0};
	cJSON *doc = isotier__json_parse_strict(p, n, "ExecuteResponse", &err);
	if (!doc) {
		FUZZ_ASSERT(err.message[0], "refused without a message");
		return;
	}
	FUZZ_ASSERT(!isotier__json_duplicate_key(doc), "a document with a key twice accepted");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(doc, "exitCode");
	if (cJSON_IsNumber(code)) {
		int status = -7;
		if (isotier__remote_exit_code("fuzz", "exitCode", code, &status, &err) == 0) {
			FUZZ_ASSERT(status >= 0 && status <= 255, "exit status %d taken", status);
			FUZZ_ASSERT((double)status == code->valuedouble, "%d taken for %.17g",
			            status, code->valuedouble);
		} else {
			FUZZ_ASSERT(status == -7, "refused but the status was written");
			FUZZ_ASSERT(strstr(err.message, "fuzz reported exit code"), "%s",
			            err.message);
		}
	}
	cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	uint8_t mode = data[0];
	const char *p = (const char *)data + 1;
	size_t n = size - 1;
	switch (mode % 3) {
	case 0: connect_stream(p, n, 1 + (mode >> 2) * 7); break;
	case 1: create_answer(p, n, mode & 4); break;
	default: exec_answer(p, n); break;
	}
	return 0;
}
