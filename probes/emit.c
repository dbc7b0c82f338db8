/*
 * emit.c - stream a capture directory as text, for consoles that are the
 * only way out (a microVM's serial line). Per regular file:
 *
 *   ISOTIER-CAPTURE-FILE <relative-path> <size-in-bytes>
 *   <base64 of the content, lines of at most 76 characters>
 *   ISOTIER-CAPTURE-END
 *
 * Relative paths never start with '/' and never contain ".."; names with
 * blanks or control characters are skipped, so a line splits on spaces.
 */
#include "probe.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void probe_base64(FILE *f, const unsigned char *d, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t col = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		char q[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63],
			     i + 1 < n ? tab[(v >> 6) & 63] : '=', i + 2 < n ? tab[v & 63] : '='};
		fwrite(q, 1, 4, f);
		col += 4;
		if (col >= 76) {
			fputc('\n', f);
			col = 0;
		}
	}
	if (col)
		fputc('\n', f);
}

static bool probe_name_ok(const char *name)
{
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strstr(name, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return false;
	return true;
}

static int probe_cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void probe_emit_dir(FILE *f, const char *base, const char *rel, int depth)
{
	char path[4096];
	if (depth > 16)
		return;
	snprintf(path, sizeof(path), "%s%s%s", base, rel[0] ? "/" : "", rel);
	DIR *d = opendir(path);
	if (!d)
		return;
	char *names[512];
	size_t n = 0;
	struct dirent *e;
	while (n < 512 && (e = readdir(d)))
		if (probe_name_ok(e->d_name) && (names[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(*names), probe_cmp_name);
	for (size_t i = 0; i < n; i++) {
		char sub[4096], full[4096];
		struct stat st;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", names[i]) >=
			    (int)sizeof(sub) ||
		    snprintf(full, sizeof(full), "%s/%s", base, sub) >= (int)sizeof(full) ||
		    lstat(full, &st) < 0) {
			free(names[i]);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			probe_emit_dir(f, base, sub, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			size_t len = 0;
			char *data = probe_slurp(full, PROBE_MAX_FILE, &len);
			if (data) {
				fprintf(f, "ISOTIER-CAPTURE-FILE %s %zu\n", sub, len);
				probe_base64(f, (const unsigned char *)data, len);
				fputs("ISOTIER-CAPTURE-END\n", f);
				free(data);
			}
		}
		free(names[i]);
	}
}

int probe_emit_capture(FILE *f, const char *dir)
{
	struct stat st;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	probe_emit_dir(f, dir, "", 0);
	fflush(f);
	return 0;
}
