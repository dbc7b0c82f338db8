/* SPDX-License-Identifier: Apache-2.0 */
/* churn_log_print.c - `isotier churn log` written as the timeline is walked
 * (churn_log_print.h). Ids and mechanisms are validated identifiers; file
 * names and skip reasons come from the object database and are escaped. */
#include "churn_log_print.h"
#include "churn_report.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Provider ids the text waits on: twice the providers one revision may hold
 * (a timeline that renames every provider once); each costs ~100 bytes. */
#define CHURN_LOG_IDS_MAX (2 * CHURN_PROVIDERS_MAX)
#define CHURN_LOG_LINE    2048       /* bytes of one text line, as the report's lines */
#define CHURN_LOG_WBUF    (64 << 10) /* the text file's write buffer */

/* One provider's lines in the text file: the first and the last record. */
typedef struct id_chain {
	char *id;
	uint64_t first, last;
} id_chain;

/* A record: its next record of the same provider (0: none; record 0 is
 * never one's next), the line's length, the line. */
typedef struct record_head {
	uint64_t next;
	uint32_t len;
} record_head;

struct churn_log_out {
	FILE *f;
	bool json;
	/* JSON */
	size_t n_events, n_skips, replaced;
	FILE *skips;
	/* text */
	int fd;
	uint64_t wstart; /* file offset of wbuf[0] */
	size_t wlen;
	char *wbuf;
	id_chain *ids; /* open addressing, cap a power of two */
	size_t n_ids, cap;
};

static int io_fail(isotier_error *err, const char *what)
{
	return isotier__error_set(err, ISOTIER_EIO, errno, "churn log: %s: %s", what,
	                          strerror(errno));
}

/* An unlinked file in $TMPDIR: nothing is left behind, even by a crash. */
static int spill_open(int *fd, isotier_error *err)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	if (!dir || !dir[0])
		dir = "/tmp";
	if ((size_t)snprintf(path, sizeof path, "%s/isotier-churn-log.XXXXXX", dir) >= sizeof path)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "churn log: TMPDIR too long");
	if ((*fd = mkstemp(path)) < 0)
		return io_fail(err, "temporary file in $TMPDIR");
	unlink(path);
	return 0;
}

int churn_log_out_open(churn_log_out **out, FILE *f, bool json, isotier_error *err)
{
	churn_log_out *o = calloc(1, sizeof *o);
	if (!o)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	o->f = f;
	o->json = json;
	o->fd = -1;
	*out = o;
	return 0;
}

/* The temporary files are made when first needed: a timeline without
 * changes (or without skipped revisions, for JSON) writes none. */
static int text_spill(churn_log_out *o, isotier_error *err)
{
	if (o->fd >= 0)
		return 0;
	if (!o->wbuf && !(o->wbuf = malloc(CHURN_LOG_WBUF)))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	return spill_open(&o->fd, err);
}

static int skips_spill(churn_log_out *o, isotier_error *err)
{
	int fd;
	if (o->skips)
		return 0;
	if (spill_open(&fd, err) < 0)
		return err->code;
	if (!(o->skips = fdopen(fd, "w+"))) {
		close(fd);
		return io_fail(err, "temporary file");
	}
	return 0;
}

void churn_log_out_free(churn_log_out *o)
{
	if (!o)
		return;
	if (o->skips)
		fclose(o->skips);
	if (o->fd >= 0)
		close(o->fd);
	for (size_t i = 0; i < o->cap; i++)
		free(o->ids[i].id);
	free(o->ids);
	free(o->wbuf);
	free(o);
}

/* ---- JSON -------------------------------------------------------------- */

/* item as an element of a top-level member's array: cJSON's formatted print
 * of the whole document indents it two levels deeper (strings hold no raw
 * newline, so every newline is a line of the item). */
static int put_nested(FILE *f, cJSON *item, size_t *replaced)
{
	char *s = item && isotier__json_scrub(item, replaced) == 0 ? cJSON_Print(item) : NULL;
	cJSON_Delete(item);
	if (!s)
		return ISOTIER_ENOMEM;
	for (const char *p = s, *nl; *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n'))) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(nl - p) + 1, f);
		fputs("\t\t", f);
	}
	free(s);
	return 0;
}

static void iso_date(char *buf, size_t len, int64_t when)
{
	time_t t = (time_t)when;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int json_change(churn_log_out *o, const churn_change *c, isotier_error *err)
{
	fputs(o->n_events++ ? ", " : "{\n\t\"events\":\t[", o->f);
	if (put_nested(o->f, churn_change_json(c, true), &o->replaced) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	return 0;
}

static int json_skip(churn_log_out *o, const churn_skip *s, isotier_error *err)
{
	cJSON *k = cJSON_CreateObject();
	char date[32];
	iso_date(date, sizeof date, s->time);
	if (!k || !cJSON_AddStringToObject(k, "commit", s->commit) ||
	    !cJSON_AddStringToObject(k, "date", date) ||
	    !cJSON_AddStringToObject(k, "reason", s->reason)) {
		cJSON_Delete(k);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	if (skips_spill(o, err) < 0) {
		cJSON_Delete(k);
		return err->code;
	}
	if (o->n_skips++)
		fputs(", ", o->skips);
	if (put_nested(o->skips, k, &o->replaced) < 0)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	if (ferror(o->skips))
		return io_fail(err, "temporary file");
	return 0;
}

static int json_finish(churn_log_out *o, isotier_error *err)
{
	fputs(o->n_events ? "],\n\t\"skipped\":\t[" : "{\n\t\"events\":\t[],\n\t\"skipped\":\t[",
	      o->f);
	if (o->skips && (fflush(o->skips) != 0 || fseek(o->skips, 0, SEEK_SET) != 0))
		return io_fail(err, "temporary file");
	char buf[8192];
	size_t n;
	while (o->skips && (n = fread(buf, 1, sizeof buf, o->skips)) > 0)
		fwrite(buf, 1, n, o->f);
	if (o->skips && ferror(o->skips))
		return io_fail(err, "temporary file");
	fputc(']', o->f);
	/* What isotier__json_print adds to a document whose strings needed it. */
	if (o->replaced)
		fprintf(o->f, ",\n\t\"utf8_replacements\":\t%zu", o->replaced);
	fputs("\n}\n", o->f);
	return 0;
}

/* ---- text -------------------------------------------------------------- */

static int flush_wbuf(churn_log_out *o, isotier_error *err)
{
	for (size_t done = 0; done < o->wlen;) {
		ssize_t n =
		    pwrite(o->fd, o->wbuf + done, o->wlen - done, (off_t)(o->wstart + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return io_fail(err, "write temporary file");
		done += (size_t)n;
	}
	o->wstart += o->wlen;
	o->wlen = 0;
	return 0;
}

/* Points the record at `at` to the record at `next`, in the buffer while it
 * is there. */
static int link_record(churn_log_out *o, uint64_t at, uint64_t next, isotier_error *err)
{
	if (at >= o->wstart) {
		memcpy(o->wbuf + (at - o->wstart), &next, sizeof next);
		return 0;
	}
	if (pwrite(o->fd, &next, sizeof next, (off_t)at) != (ssize_t)sizeof next)
		return io_fail(err, "write temporary file");
	return 0;
}

static uint64_t id_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static id_chain *id_slot(id_chain *ids, size_t cap, const char *id)
{
	for (size_t i = id_hash(id) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!ids[i].id || !strcmp(ids[i].id, id))
			return &ids[i];
}

/* The chain of id, a new empty one when first seen. */
static int id_find(id_chain **out, churn_log_out *o, const char *id, isotier_error *err)
{
	if (o->n_ids * 2 >= o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 256;
		id_chain *bigger = calloc(ncap, sizeof *bigger);
		if (!bigger)
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		for (size_t i = 0; i < o->cap; i++)
			if (o->ids[i].id)
				*id_slot(bigger, ncap, o->ids[i].id) = o->ids[i];
		free(o->ids);
		o->ids = bigger;
		o->cap = ncap;
	}
	id_chain *c = id_slot(o->ids, o->cap, id);
	if (!c->id) {
		if (o->n_ids >= CHURN_LOG_IDS_MAX)
			return isotier__error_set(err, ISOTIER_EDATA, 0,
			                          "churn log: more than %d provider ids",
			                          CHURN_LOG_IDS_MAX);
		if (!(c->id = strdup(id)))
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		c->first = c->last = UINT64_MAX;
		o->n_ids++;
	}
	*out = c;
	return 0;
}

/* "  <commit>  <date>  <kind>  <what>\n", unsanitized (churn_log_out_finish
 * sanitizes as it prints). */
static void text_line(char *line, size_t len, const churn_change *x)
{
	char date[32], what[512];
	time_t t = (time_t)x->time;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M:%SZ", &tm);
	char a[128], b[128];
	churn_claim_spell(a, sizeof a, &x->from, x->scope_changed);
	churn_claim_spell(b, sizeof b, &x->to, x->scope_changed);
	if (x->kind == CHURN_ADDED)
		snprintf(what, sizeof what, "%s", b);
	else if (x->kind == CHURN_REMOVED)
		snprintf(what, sizeof what, "(was %s)", a);
	else if (churn_change_needs_entry(x))
		snprintf(what, sizeof what, "%s \u2192 %s", a, b);
	else
		snprintf(what, sizeof what, "%s", b);
	if (x->kind == CHURN_CHANGED && (x->old_id || x->status_changed)) {
		char note[160];
		size_t n = strlen(what);
		churn_offering_note(note, sizeof note, x);
		snprintf(what + n, sizeof what - n, " (%s)", note + 2);
	}
	snprintf(line, len, "  %.12s  %s  %-14s %s\n", x->commit, date, churn_kind_name(x), what);
}

static int text_change(churn_log_out *o, const churn_change *x, isotier_error *err)
{
	char line[CHURN_LOG_LINE];
	text_line(line, sizeof line, x);
	record_head h = {.next = 0, .len = (uint32_t)strlen(line)};
	id_chain *c = NULL;
	if (text_spill(o, err) < 0 || id_find(&c, o, x->id, err) < 0)
		return err->code;
	if (o->wlen + sizeof h + h.len > CHURN_LOG_WBUF && flush_wbuf(o, err) < 0)
		return err->code;
	uint64_t at = o->wstart + o->wlen;
	memcpy(o->wbuf + o->wlen, &h, sizeof h);
	memcpy(o->wbuf + o->wlen + sizeof h, line, h.len);
	o->wlen += sizeof h + h.len;
	if (c->last != UINT64_MAX && link_record(o, c->last, at, err) < 0)
		return err->code;
	if (c->first == UINT64_MAX)
		c->first = at;
	c->last = at;
	return 0;
}

static int chain_cmp(const void *a, const void *b)
{
	const id_chain *x = a, *y = b;
	return !x->id || !y->id ? (!x->id) - (!y->id) : strcmp(x->id, y->id);
}

static int text_finish(churn_log_out *o, isotier_error *err)
{
	if (o->n_ids == 0) {
		fputs("no catalogue changes in this range\n", o->f);
		return 0;
	}
	if (flush_wbuf(o, err) < 0)
		return err->code;
	/* The table is done with: sorted in place, the empty slots last. */
	qsort(o->ids, o->cap, sizeof *o->ids, chain_cmp);
	char line[CHURN_LOG_LINE];
	for (size_t i = 0; i < o->n_ids; i++) {
		fputs(i ? "\n" : "", o->f);
		isotier__fputs_sanitized(o->f, o->ids[i].id);
		fputc('\n', o->f);
		for (uint64_t at = o->ids[i].first;;) {
			record_head h;
			if (pread(o->fd, &h, sizeof h, (off_t)at) != (ssize_t)sizeof h ||
			    h.len >= sizeof line ||
			    pread(o->fd, line, h.len, (off_t)(at + sizeof h)) != (ssize_t)h.len)
				return io_fail(err, "read temporary file");
			line[h.len] = '\0';
			isotier__fputs_sanitized(o->f, line);
			if (h.next == 0)
				break;
			at = h.next;
		}
	}
	return 0;
}

/* ---- the sink ----------------------------------------------------------- */

int churn_log_out_change(churn_log_out *o, const churn_change *c, isotier_error *err)
{
	return o->json ? json_change(o, c, err) : text_change(o, c, err);
}

int churn_log_out_skip(churn_log_out *o, const churn_skip *s, isotier_error *err)
{
	return o->json ? json_skip(o, s, err) : 0; /* the text has no place for them */
}

int churn_log_out_finish(churn_log_out *o, isotier_error *err)
{
	return o->json ? json_finish(o, err) : text_finish(o, err);
}
