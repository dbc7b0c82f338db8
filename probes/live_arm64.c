/* SPDX-License-Identifier: Apache-2.0 */
/*
 * live_arm64.c - producers of the arm64 non-file inputs (CAPTURE.md):
 *
 *   .probe/midr        "midr_el1 0xHEX": the CPU's Main ID Register, read with
 *                      the instruction (mrs; the kernel emulates the EL0 read
 *                      when HWCAP_CPUID is set). Absent off arm64.
 *   .probe/devicetree  the flattened device tree's layout as text, one line a
 *                      fact: "compatible S1 S2..." (root), "node NAME S1 S2..."
 *                      per root node (its compatible strings), "psci-method hvc"
 *                      and "hypervisor S1..." (the /hypervisor node). Absent
 *                      without /sys/firmware/devicetree (x86, ACPI-only boots,
 *                      gVisor, containers that mask /sys/firmware).
 *
 * Text, not files, because the tree's shape (which nodes exist, at which
 * address) is the evidence, and a capture holds only files that were read.
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1 << 11)
#endif
#endif

#define PROBE_DT_ROOT      "/sys/firmware/devicetree/base"
#define PROBE_DT_MAX_NODES 256
#define PROBE_DT_LINE      384

char *probe_live_midr(void)
{
#if defined(__aarch64__)
	if (!(getauxval(AT_HWCAP) & HWCAP_CPUID))
		return NULL; /* the read would trap: SIGILL */
	uint64_t midr;
	__asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
	char *s = malloc(48);
	if (s)
		snprintf(s, 48, "midr_el1 0x%08llx\n", (unsigned long long)midr);
	return s;
#else
	return NULL;
#endif
}

/* Appends " S1 S2" for a NUL-separated property (compatible), printable only, bounded. */
static void probe_dt_strings(char *line, size_t cap, const char *data, size_t len)
{
	size_t o = strlen(line);
	bool sep = true;
	for (size_t i = 0; i < len && o + 2 < cap; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == '\0') {
			sep = true;
			continue;
		}
		if (sep) {
			line[o++] = ' ';
			sep = false;
		}
		line[o++] = (c > ' ' && c < 0x7f) ? (char)c : '?';
	}
	line[o] = '\0';
}

static void probe_dt_append(char **out, size_t *len, const char *line)
{
	size_t n = strlen(line);
	if (*len + n + 2 > PROBE_MAX_FILE)
		return;
	char *s = realloc(*out, *len + n + 2);
	if (!s)
		return;
	memcpy(s + *len, line, n);
	s[*len + n] = '\n';
	s[*len + n + 1] = '\0';
	*out = s;
	*len += n + 1;
}

static bool probe_dt_prop(char *line, size_t cap, const char *key, const char *path)
{
	size_t n = 0;
	char *data = probe_slurp(path, 1024, &n);
	if (!data)
		return false;
	snprintf(line, cap, "%s", key);
	probe_dt_strings(line, cap, data, n);
	free(data);
	return true;
}

char *probe_live_devicetree(void)
{
	char *names[PROBE_DT_MAX_NODES];
	size_t n = probe_list_live(PROBE_DT_ROOT, names, PROBE_DT_MAX_NODES);
	if (n == 0)
		return NULL;
	char *out = NULL;
	size_t len = 0;
	char line[PROBE_DT_LINE], path[512];
	if (probe_dt_prop(line, sizeof(line), "compatible", PROBE_DT_ROOT "/compatible"))
		probe_dt_append(&out, &len, line);
	for (size_t i = 0; i < n; i++) {
		/* Node names are directories; properties (compatible, model...) are files. */
		snprintf(path, sizeof(path), PROBE_DT_ROOT "/%s/compatible", names[i]);
		char node[128];
		snprintf(node, sizeof(node), "node %.100s", names[i]);
		for (char *p = node + 5; *p; p++)
			if (*p <= ' ' || *p >= 0x7f)
				*p = '?';
		snprintf(line, sizeof(line), "%s", node);
		char dir[512];
		snprintf(dir, sizeof(dir), PROBE_DT_ROOT "/%s", names[i]);
		char *sub[1];
		size_t k = probe_list_live(dir, sub, 1);
		for (size_t j = 0; j < k; j++)
			free(sub[j]);
		if (k > 0) { /* a node, not a property of the root */
			size_t m = 0;
			char *data = probe_slurp(path, 1024, &m);
			if (data)
				probe_dt_strings(line, sizeof(line), data, m);
			free(data);
			probe_dt_append(&out, &len, line);
		}
		free(names[i]);
	}
	if (probe_dt_prop(line, sizeof(line), "psci-method", PROBE_DT_ROOT "/psci/method"))
		probe_dt_append(&out, &len, line);
	if (probe_dt_prop(line, sizeof(line), "hypervisor", PROBE_DT_ROOT "/hypervisor/compatible"))
		probe_dt_append(&out, &len, line);
	return out ? out : strdup("");
}
