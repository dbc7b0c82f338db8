/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpuid.c - reading CPUID answers from the .probe/cpuid input (live, a
 * replay, or `cpuid -r` output written by another tool): shared by the
 * virtualization markers (sig_virt.c) and the confidential-computing axis
 * (sig_cvm.c), which calls nothing back.
 */
#include "probe.h"

#include <stdlib.h>
#include <string.h>

/* "0x40000000 0x0 EAX EBX ECX EDX" lines, or `cpuid -r`'s
 * "0x40000000 0x00: eax=0x... ebx=0x... ecx=0x... edx=0x..."; false when the
 * leaf is absent. The first CPU's answer wins. */
bool probe_cpuid_leaf(const char *text, uint32_t leaf, uint32_t r[4])
{
	for (const char *line = text; line && *line;) {
		unsigned long long v[6];
		char *end;
		const char *p = line;
		int i;
		for (i = 0; i < 6; i++) {
			while (*p == ' ' || *p == '\t' || (i == 2 && *p == ':'))
				p++;
			if (i >= 2 && (p[0] == 'e' || p[0] == 'E') && p[1] && p[2] && p[3] == '=')
				p += 4;
			if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
			      (*p >= 'A' && *p <= 'F')))
				break;
			/* Base 16 accepts an optional 0x: CPUID is always hex. At
			 * most 18 characters are consumed (bounded). */
			v[i] = strtoull(p, &end, 16);
			if (end == p || end - p > 18 || v[i] > 0xffffffffull)
				break;
			p = end;
		}
		if (i == 6 && (*p == '\n' || *p == '\0' || *p == ' ' || *p == '\r') &&
		    v[0] == leaf && v[1] == 0) {
			for (i = 0; i < 4; i++)
				r[i] = (uint32_t)v[i + 2];
			return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* The 12-byte signature in EBX:ECX:EDX, NUL-trimmed, printable or '?'. */
void probe_cpuid_signature(const uint32_t r[4], char out[13])
{
	memcpy(out, &r[1], 4);
	memcpy(out + 4, &r[2], 4);
	memcpy(out + 8, &r[3], 4);
	out[12] = '\0';
	for (int i = 0; i < 12 && out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
			out[i] = '?';
}
