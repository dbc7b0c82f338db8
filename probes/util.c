/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.c - small text helpers and the signal table's storage.
 */
#include "probe.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void probe_first_line(char *out, size_t outsz, const char *s)
{
	size_t n = 0;
	if (!outsz)
		return;
	while (s && s[n] && s[n] != '\n' && n + 1 < outsz) {
		out[n] = s[n];
		n++;
	}
	out[n] = '\0';
	probe_rstrip(out);
}

bool probe_field(char *out, size_t outsz, const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *v = line + klen + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			probe_first_line(out, outsz, v);
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

void probe_rstrip(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

bool probe_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool probe_contains_ci(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	if (!nl)
		return true;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, nl) == 0)
			return true;
	return false;
}

bool probe_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	unsigned long long v = strtoull(s, &end, 0);
	if (end == s || (*end && !isspace((unsigned char)*end)))
		return false;
	*out = v;
	return true;
}

void probe_each_line(const char *text, bool (*fn)(const char *line, size_t len, void *arg),
                     void *arg)
{
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		if (len && line[len - 1] == '\r')
			len--;
		if (!fn(line, len, arg))
			return;
		line = eol ? eol + 1 : NULL;
	}
}

bool probe_line_has(const char *line, size_t len, const char *needle)
{
	size_t nl = strlen(needle);
	if (!nl)
		return true;
	for (size_t i = 0; i + nl <= len; i++)
		if (line[i] == needle[0] && memcmp(line + i, needle, nl) == 0)
			return true;
	return false;
}

const struct probe_vendor *probe_vendor_find(const struct probe_vendor *t, size_t n, const char *s,
                                             enum probe_match how)
{
	size_t sl = s ? strlen(s) : 0;
	if (!s || !*s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t ml = strlen(t[i].match);
		bool hit = false;
		switch (how) {
		case PROBE_EXACT: hit = strcmp(s, t[i].match) == 0; break;
		case PROBE_PREFIX: hit = strncmp(s, t[i].match, ml) == 0; break;
		case PROBE_SUBSTR: hit = probe_line_has(s, sl, t[i].match); break;
		case PROBE_SUFFIX: hit = sl >= ml && strcmp(s + sl - ml, t[i].match) == 0; break;
		}
		if (hit)
			return &t[i];
	}
	return NULL;
}

struct probe_signal *probe_add(struct probe_signals *sigs, const struct probe_signal *s)
{
	if (sigs->n >= PROBE_MAX_SIGNALS || probe_find(sigs, s->id) >= 0)
		return NULL;
	struct probe_signal *d = &sigs->v[sigs->n++];
	*d = *s;
	/* The table owns what a signal is; the collector only what it saw. */
	const struct probe_signal_desc *desc = probe_signal_describe(s->id);
	d->origin = desc ? desc->origin : s->id;
	if (desc) {
		d->family = desc->family;
		if (!s->source || !s->source[0])
			d->source = desc->source;
	}
	d->cls = s->weight == PROBE_STRONG && desc ? desc->strong : PROBE_CLASS_MARKER;
	/* A table row that is never strong caps the weight. */
	if (d->cls == PROBE_CLASS_MARKER && s->weight == PROBE_STRONG && desc)
		d->weight = PROBE_WEAK;
	if (s->weight == PROBE_STRONG && !desc)
		d->cls = PROBE_CLASS_BEHAVIOUR;
	/* Values come from hostile input: keep them printable and bounded. */
	size_t j = 0;
	for (size_t i = 0; s->value[i] && j + 1 < sizeof(d->value); i++)
		d->value[j++] = s->value[i];
	d->value[j] = '\0';
	if (!d->vendor)
		d->vendor = "";
	if (!d->hypervisor)
		d->hypervisor = "";
	if (!d->source)
		d->source = "";
	return d;
}

/* The two below: every field but the table's (family) and the rarer hints. */
static struct probe_signal *probe_add_fields(struct probe_signals *sigs, const char *id,
                                             const char *source, enum probe_weight weight,
                                             enum probe_kind supports, enum probe_axis axis,
                                             const char *vendor, const char *hypervisor,
                                             bool kernel_reported, const char *text)
{
	struct probe_signal s = {.id = id,
	                         .source = source,
	                         .weight = weight,
	                         .supports = supports,
	                         .axis = axis,
	                         .vendor = vendor,
	                         .hypervisor = hypervisor,
	                         .kernel_reported = kernel_reported};
	probe_strlcpy(s.value, sizeof(s.value), text);
	return probe_add(sigs, &s);
}

struct probe_signal *probe_add_signal(struct probe_signals *sigs, const char *id,
                                      const char *source, enum probe_weight weight,
                                      enum probe_kind supports, enum probe_axis axis,
                                      const char *vendor, const char *text)
{
	return probe_add_fields(sigs, id, source, weight, supports, axis, vendor, NULL, false,
	                        text);
}

struct probe_signal *probe_add_kernel_signal(struct probe_signals *sigs, const char *id,
                                             const char *source, enum probe_weight weight,
                                             enum probe_kind supports, enum probe_axis axis,
                                             const char *vendor, const char *hypervisor,
                                             const char *text)
{
	return probe_add_fields(sigs, id, source, weight, supports, axis, vendor, hypervisor, true,
	                        text);
}

int probe_find(const struct probe_signals *sigs, const char *id)
{
	for (size_t i = 0; i < sigs->n; i++)
		if (strcmp(sigs->v[i].id, id) == 0)
			return (int)i;
	return -1;
}

const char *probe_family_name(enum probe_family f)
{
	static const char *const names[] = {"virt", "kernel", "syscall", "container"};
	return (unsigned)f < 4 ? names[f] : "virt";
}

const char *probe_weight_name(enum probe_weight w)
{
	return w == PROBE_STRONG ? "strong" : "weak";
}

const char *probe_kind_name(enum probe_kind k)
{
	static const char *const names[] = {"none", "vm", "gvisor", "container"};
	return (unsigned)k < 4 ? names[k] : "none";
}

void probe_strlcpy(char *dst, size_t size, const char *src)
{
	size_t n = 0;
	if (!size)
		return;
	while (src && src[n] && n + 1 < size) {
		dst[n] = src[n];
		n++;
	}
	dst[n] = '\0';
}

/*
 * The five uname fields of a .probe/uname text: one per line (CAPTURE.md), or
 * `uname -a`'s single line from another tool ("Linux host 6.1.0 #1 SMP ...
 * x86_64 GNU/Linux"), where the version runs up to the machine name.
 */
void probe_uname_fields(const char *text, char *const f[5], const size_t sz[5])
{
	static const char *const machines[] = {"x86_64", "aarch64", "arm64", "s390x",  "ppc64le",
	                                       "ppc64",  "i686",    "i386",  "armv7l", "riscv64"};
	for (int i = 0; i < 5; i++)
		f[i][0] = '\0';
	if (!text)
		return;
	const char *nl = strchr(text, '\n');
	bool one_line = !nl || !nl[1] || (nl[1] == '\n');
	if (!one_line || !probe_starts_with(text, "Linux ")) {
		const char *line = text;
		for (int i = 0; i < 5 && line; i++) {
			probe_first_line(f[i], sz[i], line);
			line = strchr(line, '\n');
			if (line)
				line++;
		}
		return;
	}
	char buf[512];
	probe_first_line(buf, sizeof(buf), text);
	char *save = NULL, *tok = strtok_r(buf, " ", &save);
	for (int i = 0; tok && i < 3; i++, tok = strtok_r(NULL, " ", &save))
		probe_strlcpy(f[i], sz[i], tok);
	for (; tok; tok = strtok_r(NULL, " ", &save)) {
		bool machine = false;
		for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++)
			machine |= strcmp(tok, machines[m]) == 0;
		if (machine) {
			probe_strlcpy(f[4], sz[4], tok);
			break;
		}
		size_t l = strlen(f[3]);
		if (l + 1 < sz[3])
			snprintf(f[3] + l, sz[3] - l, "%s%s", l ? " " : "", tok);
	}
}
