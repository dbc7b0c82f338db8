/* SPDX-License-Identifier: Apache-2.0 */
/* test_artifacts.c - the artifact step (artifacts.h): a hostile archive
 * unpacks to regular files and directories beneath the destination and
 * nothing else (links, devices, FIFOs, "..", absolute and too-deep names
 * skipped; a symlink planted in the destination never followed; bad headers,
 * truncation and too many entries refused); and isotier__fetch_by_exec brings
 * a directory back through a real backend's exec(). */
#include <check.h>
#include "check_run.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reference/backends/artifacts.h"
#include "../../reference/core/proc.h"

/* ---- building archives ------------------------------------------------- */

typedef struct archive {
	unsigned char *b;
	size_t len, cap;
} archive;

/* Room for NEED more bytes, the buffer doubled: grown by each entry's size alone, the 4,097
 * entries of too_many_entries_are_refused copied the archive 4,097 times (gigabytes under
 * ASan, whose realloc always moves), most of the suite's time. */
static void reserve(archive *a, size_t need)
{
	if (a->len + need <= a->cap)
		return;
	size_t cap = a->cap ? a->cap : 4096;
	while (cap < a->len + need)
		cap *= 2;
	a->b = realloc(a->b, cap);
	ck_assert_ptr_nonnull(a->b);
	a->cap = cap;
}

static void add_entry(archive *a, const char *name, char type, const char *data, size_t size)
{
	size_t blocks = 1 + (size + 511) / 512;
	reserve(a, blocks * 512);
	unsigned char *h = a->b + a->len;
	memset(h, 0, blocks * 512);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	if (type == '2' || type == '1')
		snprintf((char *)h + 157, 100, "/etc/passwd");
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	if (size)
		memcpy(h + 512, data, size);
	a->len += blocks * 512;
}

static void finish(archive *a)
{
	reserve(a, 1024);
	memset(a->b + a->len, 0, 1024);
	a->len += 1024;
}

static char *fresh_dir(void)
{
	char *d = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__mkdtemp(&d, "isotier-test-untar-", &err), 0);
	return d;
}

static bool exists(const char *dir, const char *rel)
{
	char p[4200];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	return lstat(p, &st) == 0;
}

static void assert_content(const char *dir, const char *rel, const char *want)
{
	char p[4200], buf[256] = "";
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	int fd = open(p, O_RDONLY);
	ck_assert_msg(fd >= 0, "no %s", rel);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, want);
}

/* ---- tests ------------------------------------------------------------- */

START_TEST(files_and_directories_unpack)
{
	archive a = {0};
	add_entry(&a, "./", '5', NULL, 0);
	add_entry(&a, "./proc/", '5', NULL, 0);
	add_entry(&a, "./proc/sys/kernel/random/boot_id", '0', "abc\n", 4);
	add_entry(&a, "empty", '0', "", 0);
	finish(&a);
	char *d = fresh_dir();
	isotier_untar_stats st;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__untar(a.b, a.len, d, &st, &err), 0);
	assert_content(d, "proc/sys/kernel/random/boot_id", "abc\n");
	assert_content(d, "empty", "");
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.skipped, 0);
	isotier__rmtree(d);
	free(d);
	free(a.b);
}
END_TEST

START_TEST(links_devices_and_escapes_are_skipped)
{
	archive a = {0};
	add_entry(&a, "shadow", '2', NULL, 0);    /* symlink */
	add_entry(&a, "hard", '1', NULL, 0);      /* hard link */
	add_entry(&a, "tty", '3', NULL, 0);       /* character device */
	add_entry(&a, "fifo", '6', NULL, 0);      /* FIFO */
	add_entry(&a, "../escaped", '0', "x", 1); /* outside */
	add_entry(&a, "/tmp/isotier-test-abs", '0', "x", 1);
	add_entry(&a, "a/../../up", '0', "x", 1);
	add_entry(&a, "1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17", '0', "x", 1);
	add_entry(&a, "kept", '0', "ok", 2);
	finish(&a);
	char *d = fresh_dir();
	isotier_untar_stats st;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__untar(a.b, a.len, d, &st, &err), 0);
	ck_assert_uint_eq(st.files, 1);
	ck_assert_uint_eq(st.skipped, 8);
	assert_content(d, "kept", "ok");
	const char *never[] = {"shadow", "hard", "tty", "fifo", "a", "1", "../escaped", "up"};
	for (size_t i = 0; i < sizeof never / sizeof *never; i++)
		ck_assert_msg(!exists(d, never[i]), "%s was created", never[i]);
	ck_assert(access("/tmp/isotier-test-abs", F_OK) != 0);
	isotier__rmtree(d);
	free(d);
	free(a.b);
}
END_TEST

/* A symlink already in the destination is never followed, as a directory
 * or as a file. */
START_TEST(a_planted_symlink_is_not_followed)
{
	char *d = fresh_dir(), *outside = fresh_dir();
	char link[4200];
	snprintf(link, sizeof link, "%s/link", d);
	ck_assert_int_eq(symlink(outside, link), 0);
	archive a = {0};
	add_entry(&a, "link", '0', "over", 4);
	finish(&a);
	isotier_untar_stats st;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__untar(a.b, a.len, d, &st, &err), 0);
	ck_assert_uint_eq(st.skipped, 1);
	free(a.b);
	a = (archive){0};
	add_entry(&a, "link/inside", '0', "x", 1);
	finish(&a);
	ck_assert_int_eq(isotier__untar(a.b, a.len, d, &st, &err), ISOTIER_EIO);
	ck_assert(!exists(outside, "inside"));
	isotier__rmtree(d);
	isotier__rmtree(outside);
	free(d);
	free(outside);
	free(a.b);
}
END_TEST

START_TEST(broken_archives_are_refused)
{
	archive a = {0};
	add_entry(&a, "f", '0', "data", 4);
	finish(&a);
	char *d = fresh_dir();
	isotier_error err = {0};
	a.b[148] ^= 1; /* checksum */
	ck_assert_int_eq(isotier__untar(a.b, a.len, d, NULL, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "checksum"));
	a.b[148] ^= 1;
	/* cut inside the data */
	ck_assert_int_eq(isotier__untar(a.b, 600, d, NULL, &err), ISOTIER_EDATA);
	ck_assert(!exists(d, "f"));
	ck_assert_int_eq(isotier__untar(a.b, ISOTIER_UNTAR_MAX_BYTES + 1, d, NULL, &err),
	                 ISOTIER_EDATA);
	isotier__rmtree(d);
	free(d);
	free(a.b);
}
END_TEST

START_TEST(too_many_entries_are_refused)
{
	archive a = {0};
	char name[32];
	for (int i = 0; i <= ISOTIER_UNTAR_MAX_FILES; i++) {
		snprintf(name, sizeof name, "d%d/", i);
		add_entry(&a, name, '5', NULL, 0);
	}
	finish(&a);
	char *d = fresh_dir();
	isotier_error err = {0};
	ck_assert_int_eq(isotier__untar(a.b, a.len, d, NULL, &err), ISOTIER_EDATA);
	ck_assert_ptr_nonnull(strstr(err.message, "entries"));
	isotier__rmtree(d);
	free(d);
	free(a.b);
}
END_TEST

/* Through a real backend: the host backend maps the guest capture path to
 * its spec's directory, so what fetch brings back is what was there. */
START_TEST(fetch_by_exec_brings_a_directory_back)
{
	char *src = fresh_dir(), *dst = fresh_dir();
	char p[4200];
	snprintf(p, sizeof p, "%s/proc", src);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/proc/stat", src);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("btime 12345\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/evil", src);
	ck_assert_int_eq(symlink("/etc/shadow", p), 0);
	const isotier_backend *b = isotier__backend_lookup("host");
	isotier_backend_spec spec = {.capture_dir = src, .timeout_s = 30};
	void *state = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(b->provision(&state, &spec, &err), 0);
	isotier_exec_request how = {.timeout_s = 30};
	ck_assert_msg(isotier__fetch_by_exec(b, state, ISOTIER_GUEST_CAPTURE, dst, &how, &err) == 0,
	              "%s", err.message);
	b->destroy(state);
	assert_content(dst, "proc/stat", "btime 12345\n");
	ck_assert(!exists(dst, "evil"));
	/* A directory that is not there: tar fails, and says so. */
	ck_assert_int_eq(b->provision(&state, &(isotier_backend_spec){.timeout_s = 30}, &err), 0);
	ck_assert_int_eq(
	    isotier__fetch_by_exec(b, state, "/nonexistent-isotier-dir", dst, &how, &err),
	    ISOTIER_EDATA);
	b->destroy(state);
	isotier__rmtree(src);
	isotier__rmtree(dst);
	free(src);
	free(dst);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("artifacts");
	TCase *tc = tcase_create("untar");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, files_and_directories_unpack);
	tcase_add_test(tc, links_devices_and_escapes_are_skipped);
	tcase_add_test(tc, a_planted_symlink_is_not_followed);
	tcase_add_test(tc, broken_archives_are_refused);
	tcase_add_test(tc, too_many_entries_are_refused);
	tcase_add_test(tc, fetch_by_exec_brings_a_directory_back);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
