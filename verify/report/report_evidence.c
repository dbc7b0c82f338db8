/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_evidence.c - the arena, dates, verdict words, and the evidence
 * behind an observation read back from observations.layers_json and
 * observations.probe_json. Both columns hold what a sandbox printed: parsed
 * as hostile input (size caps, type checks, bounded counts), and anything
 * unreadable becomes a stated problem, never a crash or a guess.
 */
#include "report_model.h"
#include "../../reference/api/isotier_tool.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------- */

struct report_arena_block {
	report_arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

void *report_arena_alloc(report_arena *a, size_t n)
{
	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	report_arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof *b + cap);
		if (!b)
			return NULL;
		b->next = a->head, b->used = 0, b->cap = cap;
		a->head = b;
	}
	void *p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *report_arena_strndup(report_arena *a, const char *s, size_t max)
{
	if (!s)
		return NULL;
	size_t len = strnlen(s, max + 1);
	bool cut = len > max;
	if (cut) {
		len = max;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--; /* do not split a UTF-8 sequence */
	}
	char *d = report_arena_alloc(a, len + (cut ? 4 : 1));
	if (!d)
		return NULL;
	memcpy(d, s, len);
	if (cut)
		memcpy(d + len, "...", 3), len += 3;
	d[len] = '\0';
	return d;
}

char *report_arena_printf(report_arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *d = report_arena_alloc(a, (size_t)n + 1);
	if (!d)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return d;
}

void report_arena_free(report_arena *a)
{
	while (a->head) {
		report_arena_block *next = a->head->next;
		free(a->head);
		a->head = next;
	}
}

/* ---- dates --------------------------------------------------------------- */

static bool digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

long report_days(const char *s)
{
	long days;
	return isotier__date_part_days(&days, s) == 0 ? days : -1;
}

int64_t report_time_key(const char *s)
{
	long days = report_days(s);
	if (days < 0)
		return -1;
	int64_t ms = (int64_t)days * 86400 * 1000;
	const char *p = s + 10;
	if (!*p || (p[0] == 'Z' && !p[1]))
		return ms;
	if ((*p != 'T' && *p != ' ') || !digits(p + 1, 2) || p[3] != ':' || !digits(p + 4, 2))
		return -1;
	int h = (p[1] - '0') * 10 + (p[2] - '0'), mi = (p[4] - '0') * 10 + (p[5] - '0'), sec = 0,
	    milli = 0;
	p += 6;
	if (*p == ':') {
		if (!digits(p + 1, 2))
			return -1;
		sec = (p[1] - '0') * 10 + (p[2] - '0');
		p += 3;
		if (*p == '.' && digits(p + 1, 1)) {
			p++;
			for (int k = 0; k < 3; k++)
				milli = milli * 10 + (digits(p, 1) ? *p++ - '0' : 0);
			while (digits(p, 1))
				p++;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p || h > 23 || mi > 59 || sec > 60)
		return -1;
	return ms + ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + milli;
}

bool report_valid_date(const char *s)
{
	return s && strlen(s) == 10 && report_days(s) >= 0;
}

bool report_valid_timestamp(const char *s)
{
	if (report_valid_date(s))
		return true;
	if (!s || strlen(s) != 20 || report_days(s) < 0)
		return false;
	return s[10] == 'T' && digits(s + 11, 2) && s[13] == ':' && digits(s + 14, 2) &&
	       s[16] == ':' && digits(s + 17, 2) && s[19] == 'Z' && strncmp(s + 11, "24", 2) < 0 &&
	       strncmp(s + 14, "60", 2) < 0 && strncmp(s + 17, "61", 2) < 0;
}

/* ---- vocabulary ---------------------------------------------------------- */

const char *report_verdict_name(report_verdict v)
{
	return (unsigned)v < VERDICT_COUNT ? isotier__verdict_name((isotier_verdict)v) : "OTHER";
}

/* Exact: a stored word in another case was not written by isotier. */
report_verdict report_verdict_parse(const char *s)
{
	for (int v = 0; s && v < VERDICT_COUNT; v++)
		if (!strcmp(s, isotier__verdicts[v].name))
			return (report_verdict)v;
	return RV_OTHER;
}

static const char *const attention_names[RA_COUNT] = {
    "contradicted",   "unproven",           "not_proven",   "source_gone",
    "source_changed", "source_unreachable", "source_stale", "overdue",
    "catalogue",      "not_configured",     "interrupted",  "host_disagreement",
};

const char *report_attention_name(report_attention_kind k)
{
	return (unsigned)k < RA_COUNT ? attention_names[k] : "other";
}

/* ---- evidence ------------------------------------------------------------ */

#define VALUE_MAX 512

typedef struct ev_ctx {
	report_arena *a;
	report_evidence *ev;
	size_t cap_problems;
} ev_ctx;

static void problem(ev_ctx *c, const char *fmt, ...) ISOTIER_PRINTF(2, 3);
static void problem(ev_ctx *c, const char *fmt, ...)
{
	if (c->ev->n_problems >= 16)
		return;
	if (!c->ev->problems) {
		c->ev->problems = report_arena_alloc(c->a, 16 * sizeof *c->ev->problems);
		if (!c->ev->problems)
			return;
	}
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	c->ev->problems[c->ev->n_problems++] = report_arena_strndup(c->a, buf, sizeof buf);
}

/* A bounded string builder in the arena: appends stop at cap bytes, so a
 * huge value costs its length once, never its length squared. */
typedef struct bounded {
	char *p;
	size_t len, cap;
} bounded;

static bool bounded_init(bounded *b, report_arena *a, size_t cap)
{
	b->p = report_arena_alloc(a, cap + 1);
	b->len = 0, b->cap = cap;
	return b->p != NULL;
}

static void bounded_add(bounded *b, const char *s)
{
	size_t n = strnlen(s, b->cap - b->len);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static bool bounded_full(const bounded *b)
{
	return b->len >= b->cap;
}

/* Any JSON value as one bounded line of text; NULL for absent. */
static const char *value_text(report_arena *a, const cJSON *v)
{
	if (!v)
		return NULL;
	if (cJSON_IsString(v))
		return report_arena_strndup(a, v->valuestring, VALUE_MAX);
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? "true" : "false";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		/* The range check first: converting 1e300, inf or NaN to an integer is undefined.
		 */
		if (isfinite(d) && d > -1e15 && d < 1e15 && d == (double)(long long)d)
			return report_arena_printf(a, "%lld", (long long)d);
		return report_arena_printf(a, "%.6g", d);
	}
	if (cJSON_IsArray(v)) { /* arrays of strings read best joined */
		bool all_strings = true;
		const cJSON *e;
		cJSON_ArrayForEach(e, v) all_strings = all_strings && cJSON_IsString(e);
		if (all_strings) {
			/* One byte over VALUE_MAX: report_arena_strndup then marks the cut. */
			bounded b;
			if (!bounded_init(&b, a, VALUE_MAX + 1))
				return NULL;
			cJSON_ArrayForEach(e, v)
			{
				if (bounded_full(&b))
					break;
				if (b.len)
					bounded_add(&b, ", ");
				bounded_add(&b, e->valuestring);
			}
			return report_arena_strndup(a, b.p, VALUE_MAX);
		}
	}
	if (cJSON_IsObject(v)) { /* e.g. a conflict: "signal: x; over: y, z; note: ..." */
		bounded b;
		if (!bounded_init(&b, a, VALUE_MAX * 2 + 1))
			return NULL;
		size_t n = 0;
		const cJSON *e;
		cJSON_ArrayForEach(e, v)
		{
			if (++n > 16 || bounded_full(&b))
				break;
			const char *t = cJSON_IsObject(e) ? "{...}" : value_text(a, e);
			if (b.len)
				bounded_add(&b, "; ");
			if (e->string)
				bounded_add(&b, e->string);
			bounded_add(&b, ": ");
			bounded_add(&b, t ? t : "");
		}
		return report_arena_strndup(a, b.p, VALUE_MAX * 2);
	}
	/* A copy: the printer scrubs invalid UTF-8 in place. */
	cJSON *copy = cJSON_Duplicate(v, true);
	char *printed = copy ? isotier__json_print(copy, false) : NULL;
	cJSON_Delete(copy);
	const char *out = report_arena_strndup(a, printed ? printed : "?", VALUE_MAX);
	free(printed);
	return out;
}

static const char *field(report_arena *a, const cJSON *obj, const char *name)
{
	return value_text(a, cJSON_GetObjectItemCaseSensitive(obj, name));
}

static const cJSON *find_signal(const cJSON *probe_signals, const char *id)
{
	const cJSON *s;
	size_t seen = 0;
	cJSON_ArrayForEach(s, probe_signals)
	{
		if (++seen > PROBE_RESULT_MAX_SIGNALS)
			break;
		const cJSON *sid = cJSON_GetObjectItemCaseSensitive(s, "id");
		if (cJSON_IsString(sid) && !strcmp(sid->valuestring, id))
			return s;
	}
	return NULL;
}

static void fill_signal(report_arena *a, report_signal *out, const cJSON *s)
{
	out->id = field(a, s, "id");
	out->family = field(a, s, "family");
	out->source = field(a, s, "source");
	out->value = field(a, s, "value");
	out->weight = field(a, s, "weight");
	out->supports = field(a, s, "supports");
}

static void parse_layers(ev_ctx *c, const cJSON *layers, const cJSON *probe_signals)
{
	if (!cJSON_IsArray(layers)) {
		problem(c, "layers: not an array");
		return;
	}
	size_t n = (size_t)cJSON_GetArraySize(layers);
	if (n > REPORT_LAYERS_MAX) {
		problem(c, "layers: %zu entries, only the first %d shown", n, REPORT_LAYERS_MAX);
		n = REPORT_LAYERS_MAX;
	}
	c->ev->layers = report_arena_alloc(c->a, (n ? n : 1) * sizeof *c->ev->layers);
	if (!c->ev->layers)
		return;
	size_t i = 0;
	const cJSON *l;
	cJSON_ArrayForEach(l, layers)
	{
		if (i >= n)
			break;
		if (!cJSON_IsObject(l)) {
			problem(c, "layers[%zu]: not an object", i);
			i++;
			continue;
		}
		report_layer *out = &c->ev->layers[c->ev->n_layers++];
		out->kind = field(c->a, l, "kind");
		out->vendor = field(c->a, l, "vendor");
		if (!out->vendor)
			out->vendor = field(c->a, l, "runtime");
		out->hypervisor = field(c->a, l, "hypervisor");
		const cJSON *sigs = cJSON_GetObjectItemCaseSensitive(l, "signals");
		if (sigs && !cJSON_IsArray(sigs))
			problem(c, "layers[%zu].signals: not an array", i);
		size_t ns = cJSON_IsArray(sigs) ? (size_t)cJSON_GetArraySize(sigs) : 0;
		if (ns > REPORT_SIGNALS_MAX) {
			problem(c, "layers[%zu].signals: %zu entries, only the first %d shown", i,
			        ns, REPORT_SIGNALS_MAX);
			ns = REPORT_SIGNALS_MAX;
		}
		out->signals = report_arena_alloc(c->a, (ns ? ns : 1) * sizeof *out->signals);
		if (!out->signals)
			return;
		const cJSON *s, *sig_array = cJSON_IsArray(sigs) ? sigs : NULL;
		size_t j = 0;
		cJSON_ArrayForEach(s, sig_array)
		{
			if (j++ >= ns)
				break;
			report_signal *sig = &out->signals[out->n_signals++];
			if (cJSON_IsString(s)) { /* an id into the probe's signal table */
				const cJSON *full = find_signal(probe_signals, s->valuestring);
				if (full)
					fill_signal(c->a, sig, full);
				else
					sig->id =
					    report_arena_strndup(c->a, s->valuestring, VALUE_MAX);
			} else if (cJSON_IsObject(s)) {
				fill_signal(c->a, sig, s);
			} else {
				sig->id = value_text(c->a, s);
			}
		}
		i++;
	}
}

static void parse_conflicts(ev_ctx *c, const cJSON *conflicts)
{
	if (!conflicts || c->ev->n_conflicts)
		return;
	if (!cJSON_IsArray(conflicts)) {
		problem(c, "conflicts: not an array");
		return;
	}
	size_t n = (size_t)cJSON_GetArraySize(conflicts);
	if (n > REPORT_CONFLICTS_MAX) {
		problem(c, "conflicts: %zu entries, only the first %d shown", n,
		        REPORT_CONFLICTS_MAX);
		n = REPORT_CONFLICTS_MAX;
	}
	c->ev->conflicts = report_arena_alloc(c->a, (n ? n : 1) * sizeof *c->ev->conflicts);
	if (!c->ev->conflicts)
		return;
	const cJSON *e;
	cJSON_ArrayForEach(e, conflicts)
	{
		if (c->ev->n_conflicts >= n)
			break;
		c->ev->conflicts[c->ev->n_conflicts++] = value_text(c->a, e);
	}
}

/* A stored column is read by the probe's own reader (one set of bounds: the
 * judge's); a refusal, duplicate keys included (a stored document has one
 * reading or none), becomes the column's problem. */
static cJSON *parse_column(ev_ctx *c, const char *name, const char *json)
{
	if (!json || !*json)
		return NULL;
	isotier_error err = {0};
	cJSON *doc =
	    isotier__probe_json_read(json, strnlen(json, PROBE_RESULT_MAX_BYTES + 1), name, &err);
	if (!doc)
		problem(c, "%s", err.message);
	return doc;
}

report_evidence *report_evidence_parse(report_arena *a, const char *layers_json,
                                       const char *probe_json)
{
	report_evidence *ev = report_arena_alloc(a, sizeof *ev);
	if (!ev)
		return NULL;
	ev_ctx c = {.a = a, .ev = ev};
	cJSON *lj = parse_column(&c, "layers_json", layers_json);
	cJSON *pj = parse_column(&c, "probe_json", probe_json);
	if (pj && !cJSON_IsObject(pj)) {
		problem(&c, "probe_json: not an object");
		cJSON_Delete(pj);
		pj = NULL;
	}
	const cJSON *probe_signals = pj ? cJSON_GetObjectItemCaseSensitive(pj, "signals") : NULL;
	if (!cJSON_IsArray(probe_signals))
		probe_signals = NULL;

	/* layers_json is either the layers array or an object holding it. */
	const cJSON *layers = NULL, *conflicts = NULL;
	if (cJSON_IsArray(lj)) {
		layers = lj;
	} else if (cJSON_IsObject(lj)) {
		layers = cJSON_GetObjectItemCaseSensitive(lj, "layers");
		conflicts = cJSON_GetObjectItemCaseSensitive(lj, "conflicts");
	} else if (lj) {
		problem(&c, "layers_json: neither an array nor an object");
	}
	if (!layers && pj)
		layers = cJSON_GetObjectItemCaseSensitive(pj, "layers");
	if (layers)
		parse_layers(&c, layers, probe_signals);
	else if (lj || pj)
		problem(&c, "no layers recorded");
	parse_conflicts(&c, conflicts);
	if (pj) {
		parse_conflicts(&c, cJSON_GetObjectItemCaseSensitive(pj, "conflicts"));
		ev->probe_schema = field(a, pj, "schema");
		ev->probe_version = field(a, pj, "probe_version");
		ev->kernel = field(a, pj, "kernel");
	}
	cJSON_Delete(lj);
	cJSON_Delete(pj);
	return ev;
}
