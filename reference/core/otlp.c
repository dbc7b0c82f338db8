/* SPDX-License-Identifier: Apache-2.0 */
/*
 * otlp.c - spans in OpenTelemetry's OTLP/JSON encoding (ExportTraceServiceRequest),
 * appended to a file or POSTed to an OTLP/HTTP collector. A collector that is
 * down costs a warning, never the sandbox operation, unless the caller asked
 * for telemetry to be required (isotier_create_opts.otlp_required).
 */
#include "telemetry.h"
#include "http.h"
#include "proc.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define OTLP_TIMEOUT_MS 2000L

uint64_t isotier__now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void random_hex(char *out, size_t n_bytes)
{
	unsigned char raw[32] = {0};
	if (n_bytes > sizeof raw)
		n_bytes = sizeof raw;
	if (getrandom(raw, n_bytes, 0) != (ssize_t)n_bytes) {
		/* Ids need uniqueness, not secrecy: fall back to time and pid. */
		uint64_t mix = isotier__now_ns() ^ ((uint64_t)getpid() << 32);
		for (size_t i = 0; i < n_bytes; i++)
			raw[i] = (unsigned char)(mix >> ((i % 8) * 8)) ^ (unsigned char)i;
	}
	for (size_t i = 0; i < n_bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

void isotier__telemetry_init(isotier_telemetry *t)
{
	random_hex(t->trace_id, 16);
}

static void add_attr(cJSON *attrs, const char *key, const char *value)
{
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "key", key);
	cJSON *v = cJSON_AddObjectToObject(a, "value");
	cJSON_AddStringToObject(v, "stringValue", value ? value : "");
	cJSON_AddItemToArray(attrs, a);
}

static char *span_export_json(const isotier_telemetry *t, const isotier_event *ev)
{
	char span_id[17], num[32], name[64];
	random_hex(span_id, 8);
	cJSON *root = cJSON_CreateObject();
	cJSON *rs = cJSON_AddArrayToObject(root, "resourceSpans");
	cJSON *r = cJSON_CreateObject();
	cJSON_AddItemToArray(rs, r);
	cJSON *res = cJSON_AddObjectToObject(r, "resource");
	add_attr(cJSON_AddArrayToObject(res, "attributes"), "service.name", "isotier");
	cJSON *ss = cJSON_AddArrayToObject(r, "scopeSpans");
	cJSON *s = cJSON_CreateObject();
	cJSON_AddItemToArray(ss, s);
	cJSON *scope = cJSON_AddObjectToObject(s, "scope");
	cJSON_AddStringToObject(scope, "name", "libisotier");
	cJSON_AddStringToObject(scope, "version", ISOTIER_VERSION);
	cJSON *spans = cJSON_AddArrayToObject(s, "spans");
	cJSON *sp = cJSON_CreateObject();
	cJSON_AddItemToArray(spans, sp);
	cJSON_AddStringToObject(sp, "traceId", t->trace_id);
	cJSON_AddStringToObject(sp, "spanId", span_id);
	snprintf(name, sizeof name, "isotier.%s", ev->event);
	cJSON_AddStringToObject(sp, "name", name);
	cJSON_AddNumberToObject(sp, "kind", 1); /* SPAN_KIND_INTERNAL */
	/* OTLP/JSON carries 64-bit integers as decimal strings. */
	snprintf(num, sizeof num, "%llu", (unsigned long long)ev->start_ns);
	cJSON_AddStringToObject(sp, "startTimeUnixNano", num);
	snprintf(num, sizeof num, "%llu", (unsigned long long)ev->end_ns);
	cJSON_AddStringToObject(sp, "endTimeUnixNano", num);
	cJSON *attrs = cJSON_AddArrayToObject(sp, "attributes");
	add_attr(attrs, "isolation.tier", isotier_tier_name(ev->resolved));
	add_attr(attrs, "isolation.claimed_tier", isotier_tier_name(ev->claimed));
	add_attr(attrs, "isolation.required_tier", isotier_tier_name(ev->required));
	add_attr(attrs, "isolation.effective_tier", isotier_tier_name(ev->effective));
	add_attr(attrs, "isotier.backend", ev->backend);
	add_attr(attrs, "isotier.decision", ev->decision);
	add_attr(attrs, "isotier.reason", ev->reason);
	if (ev->sandbox_id)
		add_attr(attrs, "isotier.sandbox_id", ev->sandbox_id);
	cJSON *status = cJSON_AddObjectToObject(sp, "status");
	int failed =
	    ev->decision && (!strcmp(ev->decision, "refused") || !strcmp(ev->decision, "failed") ||
	                     !strcmp(ev->decision, "attestation-failed"));
	cJSON_AddNumberToObject(status, "code", failed ? 2 : 1); /* ERROR : OK */
	if (failed)
		cJSON_AddStringToObject(status, "message", ev->reason ? ev->reason : "");
	/* Valid UTF-8 (a sandbox's reason text can carry any byte); no extra
	 * member noting it: OTLP receivers may refuse unknown fields. */
	size_t replaced = 0;
	char *out = isotier__json_scrub(root, &replaced) == 0 ? cJSON_PrintUnformatted(root) : NULL;
	cJSON_Delete(root);
	return out;
}

void isotier__telemetry_warn(const isotier_telemetry *t, const char *fmt, ...)
{
	if (!t->log)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	t->log(ISOTIER_LOG_WARNING, msg, t->log_data);
}

/* A collector's 2xx answer says nothing we keep. */
static int discard_answer(void *ctx, const char *buf, size_t len, isotier_error *err)
{
	(void)ctx;
	(void)buf;
	(void)len;
	(void)err;
	return 0;
}

/* Through the library's one HTTP client: its User-Agent, bounded body and
 * retries; the whole export (retries included) within OTLP_TIMEOUT_MS, so
 * a collector that is down costs the operation at most that. */
static int post_span(const char *endpoint, const char *body, isotier_error *err)
{
	static const char *const headers[] = {"Content-Type: application/json", NULL};
	isotier_http_request req = {
	    .method = "POST",
	    .url = endpoint,
	    .headers = headers,
	    .body = body,
	    .body_len = strlen(body),
	    .timeout_ms = OTLP_TIMEOUT_MS,
	    .deadline_ms = isotier__now_ms() + OTLP_TIMEOUT_MS,
	    .max_body = 64 * 1024,
	    /* OTLP/HTTP: 429, 502, 503 and 504 are retryable; a duplicate span
	     * is harmless, a lost one is not. */
	    .retry_5xx = true,
	    .max_attempts = 2,
	    .backoff_ms = 200,
	    .sink = discard_answer,
	};
	isotier_http_response resp;
	int rc = isotier__http_perform(&req, &resp, err);
	if (rc == 0 && (resp.status < 200 || resp.status >= 300))
		rc = isotier__error_set(err, ISOTIER_EIO, 0, "OTLP export to %s: HTTP %ld",
		                        endpoint, resp.status);
	else if (rc < 0)
		isotier__error_prefix(err, "OTLP export to %s failed", endpoint);
	isotier__http_response_clear(&resp);
	return rc; /* err->code says the same: EIO, ETIMEDOUT, EDATA */
}

static int append_span(const char *path, const char *body, isotier_error *err)
{
	/* One line per export, written in one write() so O_APPEND keeps
	 * concurrent writers' lines whole. A FIFO or device is refused, never
	 * waited on. */
	int fd = isotier__open_append(path, "span file", err);
	if (fd < 0)
		return fd;
	size_t len = strlen(body);
	char *line = malloc(len + 2);
	if (!line) {
		close(fd);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "span file %s: out of memory",
		                          path);
	}
	memcpy(line, body, len);
	line[len] = '\n';
	line[len + 1] = '\0';
	ssize_t n = write(fd, line, len + 1);
	int e = n < 0 ? errno : ENOSPC;
	free(line);
	close(fd);
	if (n != (ssize_t)(len + 1))
		return isotier__error_set(err, ISOTIER_EIO, e, "write span file %s", path);
	return 0;
}

int isotier__span_emit(const isotier_telemetry *t, const isotier_event *ev, isotier_error *err)
{
	if (!t->otlp_endpoint && !t->otlp_file)
		return 0;
	cleanup_free char *body = span_export_json(t, ev);
	if (!body)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "span export: out of memory");
	int rc = 0;
	if (t->otlp_file)
		rc = append_span(t->otlp_file, body, err);
	if (rc == 0 && t->otlp_endpoint)
		rc = post_span(t->otlp_endpoint, body, err);
	return rc;
}
