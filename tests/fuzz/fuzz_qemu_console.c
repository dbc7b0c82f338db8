/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_qemu_console.c - the qemu guest's framed console
 * (reference/backends/backend_qemu_console.c): every byte comes from the
 * guest, which is the sandbox. Input: a byte choosing how the bytes are cut
 * into reads (QEMU's writes arrive in any pieces), then the transcript.
 * Properties: nothing is written beside the capture dir (its parent holds it
 * alone); what the capture dir holds never exceeds what the console counted
 * against its limits; a capture said to be whole (its end seen, no problem)
 * holds no file shorter than its header said; a compressed stream is freed
 * however the transcript ends (LeakSanitizer). */
#include "fuzz.h"

#include "../../reference/backends/backend_qemu_console.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t written;

static int add_size(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)f;
	if (flag == FTW_F)
		written += (size_t)st->st_size;
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t piece = (size_t)data[0] % 64 + 1;
	data++;
	size--;
	char parent[] = "/tmp/fuzz-qemu-console.XXXXXX";
	if (!mkdtemp(parent))
		abort();
	char cap[sizeof parent + 8];
	snprintf(cap, sizeof cap, "%s/cap", parent);
	if (mkdir(cap, 0700) != 0)
		abort();
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	isotier_spec_copy spec = {.capture_dir = cap};
	isotier_console *c = calloc(1, sizeof *c);
	if (!c || null_fd < 0)
		abort();
	*c = (isotier_console){.spec = &spec,
	                       .out_fd = null_fd,
	                       .err_fd = null_fd,
	                       .cancel_fd = -1,
	                       .exit_code = -1,
	                       .cap_fd = -1};
	for (size_t o = 0; o < size && !c->fatal; o += piece)
		isotier__console_sink(c, (const char *)data + o,
		                      size - o < piece ? size - o : piece);
	isotier__console_finish(c);

	FUZZ_ASSERT(c->z == NULL, "a compressed stream left open after the console finished");
	DIR *d = opendir(parent);
	struct dirent *e;
	while (d && (e = readdir(d)))
		FUZZ_ASSERT(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		                !strcmp(e->d_name, "cap"),
		            "%s written beside the capture dir", e->d_name);
	if (d)
		closedir(d);
	written = 0;
	nftw(cap, add_size, 16, FTW_PHYS);
	FUZZ_ASSERT(written <= c->cap_total, "%zu bytes written, %zu counted", written,
	            c->cap_total);
	FUZZ_ASSERT(c->cap_total <= ISOTIER_CONSOLE_MAX_TOTAL, "%zu bytes over the limit",
	            c->cap_total);
	if (c->capture_ended && !c->problem[0])
		FUZZ_ASSERT(written == c->cap_total, "a whole capture of %zu bytes holds %zu",
		            c->cap_total, written);
	FUZZ_ASSERT(memchr(c->problem, '\0', sizeof c->problem) != NULL, "problem unterminated");

	nftw(parent, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	close(null_fd);
	free(c);
	return 0;
}
