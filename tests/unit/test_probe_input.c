/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_probe_input.c - the probe's input layer and outputs as attack
 * surface: capture -> replay gives the same verdict; a hostile replay
 * directory (FIFO, symlink out, huge file, traversal) is read safely; JSON
 * and human output escape everything; --emit-capture's format decodes back
 * to the captured bytes. Symlinks anywhere in a replay or capture path are
 * never followed, and the capture directory must be fresh and ours.
 */
#include <check.h>
#include "check_run.h"
#include "replay_root.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"

#define FIXTURES ISOTIER_SOURCE_DIR "/tests/fixtures/probe/"

static struct probe_result live, replayed;

/* The live run on whatever machine runs the tests, captured, then replayed. */
START_TEST(capture_then_replay_gives_the_same_verdict)
{
	char dir[] = "/tmp/probe-capture.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, NULL, dir), 0); /* empty and ours: accepted */
	probe_run(&in, &live);
	ck_assert_uint_eq(in.capture_failed, 0);
	probe_input_free(&in);
	ck_assert_int_eq(probe_input_init(&in, dir, NULL), 0);
	probe_run(&in, &replayed);
	probe_input_free(&in);

	ck_assert_str_eq(live.verdict.tier, replayed.verdict.tier);
	ck_assert_str_eq(live.verdict.confidence, replayed.verdict.confidence);
	ck_assert_uint_eq(live.verdict.nlayers, replayed.verdict.nlayers);
	for (size_t i = 0; i < live.verdict.nlayers; i++) {
		ck_assert_uint_eq(live.verdict.layers[i].kind, replayed.verdict.layers[i].kind);
		ck_assert_str_eq(live.verdict.layers[i].vendor, replayed.verdict.layers[i].vendor);
		ck_assert_str_eq(live.verdict.layers[i].hypervisor,
		                 replayed.verdict.layers[i].hypervisor);
	}
	ck_assert_uint_eq(live.verdict.nconflicts, replayed.verdict.nconflicts);
	ck_assert_uint_eq(live.sigs.n, replayed.sigs.n);
	for (size_t i = 0; i < live.sigs.n; i++) {
		ck_assert_str_eq(live.sigs.v[i].id, replayed.sigs.v[i].id);
		ck_assert_str_eq(live.sigs.v[i].value, replayed.sigs.v[i].value);
		ck_assert_uint_eq(live.sigs.v[i].supports, replayed.sigs.v[i].supports);
	}
	ck_assert_str_eq(live.kernel.release, replayed.kernel.release);
	/* The non-file inputs are in the capture, as documented. */
	char p[4200];
	snprintf(p, sizeof(p), "%s/.probe/uname", dir);
	ck_assert_int_eq(access(p, R_OK), 0);
	snprintf(p, sizeof(p), "%s/.probe/syscalls", dir);
	ck_assert_int_eq(access(p, R_OK), 0);
	rm_rf(dir);
}
END_TEST

START_TEST(hostile_replay_directory)
{
	char dir[] = "/tmp/probe-hostile.XXXXXX";
	char path[4200];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* A FIFO where a file is expected must not block the probe. */
	put(dir, "proc/placeholder", "", 0);
	snprintf(path, sizeof(path), "%s/proc/version", dir);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	/* A symlink out of the replay root must not be followed. */
	snprintf(path, sizeof(path), "%s/proc/cmdline", dir);
	ck_assert_int_eq(symlink("/proc/self/cmdline", path), 0);
	/* A directory where a file is expected. */
	snprintf(path, sizeof(path), "%s/.dockerenv", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	/* A huge file is read up to the bound only. */
	size_t big = 3 * PROBE_MAX_FILE;
	char *junk = malloc(big);
	ck_assert_ptr_nonnull(junk);
	memset(junk, 'A', big);
	put(dir, ".probe/kmsg", junk, big);
	free(junk);

	struct probe_input in;
	size_t len = 12345;
	probe_input_init(&in, dir, NULL);
	ck_assert_ptr_null(probe_read(&in, "/proc/version", &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(probe_read(&in, "/proc/cmdline", NULL));
	ck_assert_ptr_null(probe_read(&in, "/.dockerenv", NULL));
	ck_assert_ptr_null(probe_read(&in, "/../../etc/passwd", NULL));
	ck_assert_ptr_null(probe_read(&in, "relative", NULL));
	ck_assert_ptr_nonnull(probe_read(&in, "/.probe/kmsg", &len));
	ck_assert_uint_eq(len, PROBE_MAX_FILE);
	/* Cached: the second read gives the same bytes without re-reading. */
	ck_assert_ptr_eq(probe_read(&in, "/.probe/kmsg", NULL),
	                 probe_read(&in, "/.probe/kmsg", NULL));
	probe_input_free(&in);

	probe_input_init(&in, dir, NULL);
	probe_run(&in, &replayed);
	probe_input_free(&in);
	ck_assert_str_eq(replayed.verdict.tier, "UNKNOWN");
	rm_rf(dir);
}
END_TEST

/* Valid JSON string bytes: no raw control characters, valid UTF-8. */
static void assert_clean_json(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		ck_assert_msg(c >= 0x20 || c == '\n', "raw control byte 0x%02x at %zu", c, i);
		ck_assert_msg(c != 0x7f, "raw DEL at %zu", i);
		if (c >= 0x80) {
			size_t k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
			ck_assert_msg(c >= 0xc2 && c <= 0xf4, "bad lead byte 0x%02x", c);
			for (size_t j = 1; j <= k; j++)
				ck_assert_msg(i + j < n && ((unsigned char)s[i + j] & 0xc0) == 0x80,
				              "bad continuation at %zu", i + j);
			i += k;
		}
	}
}

START_TEST(json_string_escaping)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	probe_json_string(
	    f, "a\"b\\c\nd\te\x01\x1b[31m\x7f \xff\xc3\xa9\xe2\x82\xac\xc0\xaf\xed\xa0\x80");
	fclose(f);
	ck_assert_str_eq(
	    buf, "\"a\\\"b\\\\c\\nd\\te\\u0001\\u001b[31m\\u007f \\ufffd\xc3\xa9\xe2\x82\xac"
	         "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	free(buf);
}
END_TEST

START_TEST(reports_of_garbage_stay_clean)
{
	struct probe_input in;
	char *buf = NULL;
	size_t n = 0;
	probe_input_init(&in, FIXTURES "syn-garbled", NULL);
	probe_run(&in, &replayed);
	probe_input_free(&in);
	/* Hostile values reach the report: e.g. the garbled uname. */
	FILE *f = open_memstream(&buf, &n);
	probe_report_json(f, &replayed);
	fclose(f);
	assert_clean_json(buf, n);
	ck_assert_ptr_nonnull(strstr(buf, "\"schema\": \"isotier.probe/1\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"observed_tier\": \"UNKNOWN\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"confidence\": \"none\""));
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &n);
	probe_report_human(f, &replayed);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(buf[i] == '\n' ||
		                  ((unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] < 0x7f),
		              "raw byte 0x%02x in the human report", (unsigned char)buf[i]);
	free(buf);
}
END_TEST

static int b64val(char c)
{
	const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(tab, c) : NULL;
	return p ? (int)(p - tab) : -1;
}

/* Decodes the --emit-capture stream and compares every file with the
 * fixture it was replayed from. */
START_TEST(emit_capture_round_trips)
{
	struct probe_input in;
	char *buf = NULL;
	size_t n = 0;
	probe_input_init(&in, FIXTURES "real-qemu-microvm-tcg", NULL);
	probe_run(&in, &replayed);
	FILE *f = open_memstream(&buf, &n);
	probe_emit_capture(f, &in);
	fclose(f);
	probe_input_free(&in);

	unsigned files = 0;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char rel[512];
		size_t size;
		ck_assert_msg(sscanf(line, "ISOTIER-CAPTURE-FILE %511s %zu", rel, &size) == 2,
		              "header: %s", line);
		ck_assert(rel[0] != '/' && !strstr(rel, ".."));
		unsigned char *data = malloc(size + 4);
		size_t got = 0;
		for (line = strtok_r(NULL, "\n", &save);
		     line && strcmp(line, "ISOTIER-CAPTURE-END");
		     line = strtok_r(NULL, "\n", &save)) {
			ck_assert_uint_le(strlen(line), 76);
			ck_assert_uint_eq(strlen(line) % 4, 0);
			for (char *q = line; *q; q += 4) {
				int v[4];
				for (int k = 0; k < 4; k++)
					v[k] = q[k] == '=' ? 0 : b64val(q[k]);
				ck_assert(v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0);
				unsigned w = (unsigned)(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
				unsigned char out[3] = {(unsigned char)(w >> 16),
				                        (unsigned char)(w >> 8), (unsigned char)w};
				int keep = q[2] == '=' ? 1 : q[3] == '=' ? 2 : 3;
				ck_assert_uint_le(got + (size_t)keep, size);
				memcpy(data + got, out, (size_t)keep);
				got += (size_t)keep;
			}
		}
		ck_assert_ptr_nonnull(line); /* the END line came */
		ck_assert_uint_eq(got, size);
		char path[4096];
		size_t flen = 0;
		snprintf(path, sizeof(path), FIXTURES "real-qemu-microvm-tcg/%s", rel);
		char *orig = probe_slurp(path, PROBE_MAX_FILE, &flen);
		ck_assert_ptr_nonnull(orig);
		ck_assert_uint_eq(flen, size);
		ck_assert_int_eq(memcmp(orig, data, size), 0);
		free(orig);
		free(data);
		files++;
	}
	ck_assert_uint_ge(files, 10);
	free(buf);
}
END_TEST

/* PID 1's environment is redacted to its container= entries before capture. */
START_TEST(environ_is_redacted)
{
	char env[] = "AWS_SECRET_ACCESS_KEY=hunter2\0container=podman\0TOKEN=x\0container=oci";
	size_t len = sizeof(env) - 1; /* the last entry is cut: no NUL of its own */
	size_t n = probe_redact_environ(env, len);
	ck_assert_uint_eq(n, strlen("container=podman") + 1 + strlen("container=oci") + 1);
	ck_assert_int_eq(memcmp(env, "container=podman\0container=oci\0", n), 0);
	/* Cut exactly at the end of the buffer: no byte written past data[len]. */
	char cut[] = "container=lxc";
	ck_assert_uint_eq(probe_redact_environ(cut, sizeof(cut) - 1), sizeof(cut) - 1);
	ck_assert_str_eq(cut, "container=lxc");
	ck_assert_ptr_null(memmem(env, n, "hunter2", 7));
	char none[] = "A=1\0B=2\0";
	ck_assert_uint_eq(probe_redact_environ(none, sizeof(none) - 1), 0);
}
END_TEST

static void make_link(const char *target, const char *dir, const char *rel)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkdir_parents(path);
	ck_assert_msg(symlink(target, path) == 0, "symlink %s", path);
}

static size_t count_entries(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "find '%s' -mindepth 1 | wc -l", dir);
	FILE *p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	size_t n = 0;
	ck_assert_int_eq(fscanf(p, "%zu", &n), 1);
	pclose(p);
	return n;
}

/* Nothing of the firecracker fixture (or the live machine) may reach a
 * replay through a symlinked directory: no input, no signal, no verdict. */
static void assert_replay_sees_nothing(const char *dir)
{
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, dir, NULL), 0);
	probe_run(&in, &replayed);
	for (size_t i = 0; i < in.ncache; i++)
		ck_assert_msg(!in.cache[i].data, "%s was read through a symlink", in.cache[i].path);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	probe_emit_capture(f, &in);
	fclose(f);
	ck_assert_uint_eq(n, 0); /* nothing re-emitted */
	free(buf);
	probe_input_free(&in);
	ck_assert_str_eq(replayed.verdict.tier, "UNKNOWN");
	for (size_t i = 0; i < replayed.verdict.nlayers; i++)
		ck_assert_str_ne(replayed.verdict.layers[i].vendor, "firecracker");
	for (size_t i = 0; i < replayed.sigs.n; i++)
		ck_assert_msg(!probe_contains_ci(replayed.sigs.v[i].value, "firecracker") &&
		                  !probe_contains_ci(replayed.sigs.v[i].value, "FIRECK"),
		              "signal %s = %s", replayed.sigs.v[i].id, replayed.sigs.v[i].value);
}

/* A replay root whose directories are symlinks (to the live /proc and /sys,
 * or to a real capture elsewhere) reads nothing through them. */
START_TEST(replay_never_follows_symlinked_directories)
{
	char dir[] = "/tmp/probe-replay-links.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	make_link("/proc", dir, "proc");
	make_link("/sys", dir, "sys");
	assert_replay_sees_nothing(dir);
	rm_rf(dir);

	/* The same with a capture that would say MICROVM/firecracker. */
	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/probe-replay-links.XXXXXX")));
	make_link(FIXTURES "real-firecracker-native/sys", dir, "sys");
	make_link(FIXTURES "real-firecracker-native/.probe", dir, ".probe");
	make_link(FIXTURES "real-firecracker-native/proc/self", dir, "proc/self");
	make_link(FIXTURES "real-firecracker-native/proc/1", dir, "proc/1");
	make_link(FIXTURES "real-firecracker-native/proc/cpuinfo", dir, "proc/cpuinfo");
	assert_replay_sees_nothing(dir);
	/* Sanity: the fixture itself does say firecracker. */
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, FIXTURES "real-firecracker-native", NULL), 0);
	probe_run(&in, &replayed);
	probe_input_free(&in);
	ck_assert_str_eq(replayed.verdict.tier, "MICROVM");
	ck_assert_str_eq(replayed.verdict.layers[0].vendor, "firecracker");
	rm_rf(dir);
}
END_TEST

/* A replay root that does not exist is an error, and still reads nothing
 * live (not even the non-file inputs). */
START_TEST(missing_replay_root_is_an_error)
{
	struct probe_input in;
	errno = 0;
	ck_assert_int_eq(probe_input_init(&in, "/nonexistent/isotier-replay", NULL), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(in.error);
	ck_assert_ptr_null(probe_read(&in, "/proc/version", NULL));
	ck_assert_ptr_null(probe_read(&in, "/.probe/uname", NULL));
	probe_input_free(&in);
	ck_assert_int_eq(probe_input_init(&in, "/etc/passwd", NULL), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_ptr_null(probe_read(&in, "/proc/version", NULL));
	probe_input_free(&in);
}
END_TEST

/* The capture directory is created 0700, or must be an existing empty
 * directory of ours; anything else is refused before a byte is written. */
START_TEST(capture_directory_must_be_fresh_and_ours)
{
	char base[] = "/tmp/probe-capdir.XXXXXX";
	char path[4200], victim[4200];
	struct probe_input in;
	struct stat st;
	ck_assert_ptr_nonnull(mkdtemp(base));

	/* Fresh: created 0700. */
	snprintf(path, sizeof(path), "%s/new", base);
	ck_assert_int_eq(probe_input_init(&in, NULL, path), 0);
	probe_input_free(&in);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	/* Existing, empty, ours: fine (again). */
	ck_assert_int_eq(probe_input_init(&in, NULL, path), 0);
	probe_input_free(&in);

	/* Not empty (the reviewer's repro: cap/proc -> victim). */
	snprintf(victim, sizeof(victim), "%s/victim", base);
	ck_assert_int_eq(mkdir(victim, 0755), 0);
	make_link(victim, path, "proc");
	errno = 0;
	ck_assert_int_eq(probe_input_init(&in, NULL, path), -1);
	ck_assert_int_eq(errno, ENOTEMPTY);
	ck_assert_int_eq(in.capture_fd, -1);
	probe_input_free(&in);
	ck_assert_uint_eq(count_entries(victim), 0);

	/* A file, a symlink to an empty directory, a missing parent. */
	snprintf(path, sizeof(path), "%s/file", base);
	put(base, "file", "x", 1);
	ck_assert_int_eq(probe_input_init(&in, NULL, path), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	probe_input_free(&in);
	snprintf(path, sizeof(path), "%s/link", base);
	make_link(victim, base, "link");
	ck_assert_int_eq(probe_input_init(&in, NULL, path), -1);
	probe_input_free(&in);
	snprintf(path, sizeof(path), "%s/no/such/parent", base);
	ck_assert_int_eq(probe_input_init(&in, NULL, path), -1);
	probe_input_free(&in);

	/* Someone else's empty directory (needs root to make one). */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/theirs", base);
		ck_assert_int_eq(mkdir(path, 0777), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		errno = 0;
		ck_assert_int_eq(probe_input_init(&in, NULL, path), -1);
		ck_assert_int_eq(errno, EPERM);
		probe_input_free(&in);
	}
	ck_assert_uint_eq(count_entries(victim), 0);
	rm_rf(base);
}
END_TEST

/* Symlinks planted inside an accepted capture directory (a race, or a
 * directory others can write) are never written through: every write fails
 * and is counted, and nothing appears outside. */
START_TEST(capture_never_writes_through_symlinks)
{
	char base[] = "/tmp/probe-capwrite.XXXXXX";
	char cap[4200], victim[4200];
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(cap, sizeof(cap), "%s/cap", base);
	snprintf(victim, sizeof(victim), "%s/victim", base);
	ck_assert_int_eq(mkdir(victim, 0755), 0);

	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, NULL, cap), 0);
	make_link(victim, cap, "proc");
	make_link(victim, cap, ".probe");
	make_link(victim, cap, "sys");
	/* A planted file where an input goes: not truncated, not appended to. */
	put(victim, "cmdline", "keep me", 7);
	probe_run(&in, &live);
	ck_assert_uint_gt(in.capture_failed, 0);
	probe_input_free(&in);

	ck_assert_uint_eq(count_entries(victim), 1);
	size_t len = 0;
	char path[4300];
	snprintf(path, sizeof(path), "%s/cmdline", victim);
	char *kept = probe_slurp(path, 64, &len);
	ck_assert_ptr_nonnull(kept);
	ck_assert_str_eq(kept, "keep me");
	free(kept);
	rm_rf(base);
}
END_TEST

/* The capture writer opens each directory once (a table of PROBE_CAPTURE_DIRS
 * rows); inputs under more directories than it holds, nested, and under a
 * directory whose path is longer than a row are all still captured, each
 * with its bytes (read here from a replay root made for the purpose). */
START_TEST(capture_holds_more_directories_than_its_table)
{
	char base[] = "/tmp/probe-capdirs.XXXXXX";
	char root[4200], cap[4200];
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(root, sizeof(root), "%s/root", base);
	snprintf(cap, sizeof(cap), "%s/cap", base);
	enum { N = PROBE_CAPTURE_DIRS + 8 };
	char rels[N + 1][200], data[N + 1][32];
	for (int i = 0; i < N; i++) {
		/* Nested two deep: the table fills with parents and children. */
		snprintf(rels[i], sizeof rels[i], "d%02d/e%02d/f", i / 2, i);
		snprintf(data[i], sizeof data[i], "input %d\n", i);
		put(root, rels[i], data[i], strlen(data[i]));
	}
	snprintf(rels[N], sizeof rels[N], "%0150d/f", 7); /* longer than a row */
	snprintf(data[N], sizeof data[N], "a long path\n");
	put(root, rels[N], data[N], strlen(data[N]));
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, root, cap), 0);
	for (int i = 0; i <= N; i++) {
		char path[300];
		snprintf(path, sizeof path, "/%s", rels[i]);
		ck_assert_ptr_nonnull(probe_read(&in, path, NULL));
	}
	ck_assert_uint_eq(in.ncapture_dirs, PROBE_CAPTURE_DIRS);
	ck_assert_uint_eq(in.capture_failed, 0);
	probe_input_free(&in);
	for (int i = 0; i <= N; i++) {
		char path[4500];
		snprintf(path, sizeof(path), "%s/%s", cap, rels[i]);
		size_t len = 0;
		char *got = probe_slurp(path, 4096, &len);
		ck_assert_msg(got != NULL, "%s not captured", rels[i]);
		ck_assert_str_eq(got, data[i]);
		free(got);
	}
	rm_rf(base);
}
END_TEST

/* PID 1's environment is redacted on replay too: a capture written by
 * another tool (or by hand) must not pass its secrets on. */
START_TEST(replayed_environ_is_redacted)
{
	char dir[] = "/tmp/probe-env.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const char env[] = "SECRET_KEY=hunter2\0container=docker\0API_TOKEN=x";
	put(dir, "proc/1/environ", env, sizeof(env) - 1);

	struct probe_input in;
	size_t len = 0;
	ck_assert_int_eq(probe_input_init(&in, dir, NULL), 0);
	const char *got = probe_read(&in, "/proc/1/environ", &len);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(len, sizeof("container=docker"));
	ck_assert_int_eq(memcmp(got, "container=docker", len), 0);
	probe_run(&in, &replayed);
	ck_assert_int_ge(probe_find(&replayed.sigs, "container.pid1_environ"), 0);

	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	probe_emit_capture(f, &in);
	fclose(f);
	probe_input_free(&in);
	/* "container=docker\0" is 17 bytes: Y29udGFpbmVyPWRvY2tlcgA= */
	ck_assert_ptr_nonnull(strstr(buf, "ISOTIER-CAPTURE-FILE proc/1/environ 17\n"
	                                  "Y29udGFpbmVyPWRvY2tlcgA=\nISOTIER-CAPTURE-END\n"));
	ck_assert_ptr_null(strstr(buf, "U0VDUkVU")); /* base64 of "SECRET" */
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &n);
	probe_report_json(f, &replayed);
	fclose(f);
	ck_assert_ptr_null(strstr(buf, "hunter2"));
	free(buf);
	rm_rf(dir);
}
END_TEST

/* The capture as records on a descriptor (capture_stream.c): each input once, the environment
 * redacted as in a file, nothing before the end, a record over the bound refused and counted,
 * and a stream the reader stopped taking counted as incomplete. */
START_TEST(capture_stream_holds_records_until_the_end)
{
	char dir[] = "/tmp/probe-stream.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put(dir, "proc/1/environ", "SECRET=hunter2\0container=docker\0", 32);
	put(dir, "proc/version", "Linux version 6.1\n", 18);
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	struct probe_input in;
	ck_assert_int_eq(probe_input_init(&in, dir, NULL), 0);
	probe_capture_stream_start(&in, p[1]);
	size_t n;
	ck_assert_ptr_nonnull(probe_read(&in, "/proc/1/environ", &n));
	ck_assert_ptr_nonnull(probe_read(&in, "/proc/version", &n));
	ck_assert_ptr_nonnull(probe_read(&in, "/proc/version", &n)); /* cached: one record */
	ck_assert_int_eq(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	char buf[512];
	ck_assert_int_eq(read(p[0], buf, sizeof buf), -1); /* nothing until the end */
	static char big[PROBE_CAPTURE_STREAM_MAX];
	ck_assert(!probe_capture_stream_put(&in, "big", big, sizeof big));
	probe_capture_stream_end(&in);
	ck_assert_int_eq(in.stream.fd, -1);
	ck_assert_uint_eq(in.capture_failed, 0);
	ssize_t got = read(p[0], buf, sizeof buf - 1);
	ck_assert_int_gt(got, 0);
	buf[got] = '\0';
	static const char want[] = "proc/1/environ 17\ncontainer=docker\0"
	                           "proc/version 18\nLinux version 6.1\n";
	ck_assert_int_eq(got, (ssize_t)sizeof want - 1);
	ck_assert_mem_eq(buf, want, sizeof want - 1);
	ck_assert_int_eq(read(p[0], buf, sizeof buf), 0); /* closed: the capture is whole */
	probe_input_free(&in);
	close(p[0]);

	/* A reader that is gone: the records are not written, the capture is incomplete (EPIPE
	 * here; the probe itself would die of SIGPIPE, no less a failure). */
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	ck_assert_int_eq(probe_input_init(&in, dir, NULL), 0);
	probe_capture_stream_start(&in, p[1]);
	ck_assert_ptr_nonnull(probe_read(&in, "/proc/version", &n));
	probe_capture_stream_end(&in);
	ck_assert_uint_eq(in.capture_failed, 1);
	probe_input_free(&in);
	rm_rf(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("probe_input");
	TCase *tc = tcase_create("input");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, capture_then_replay_gives_the_same_verdict);
	tcase_add_test(tc, hostile_replay_directory);
	tcase_add_test(tc, json_string_escaping);
	tcase_add_test(tc, reports_of_garbage_stay_clean);
	tcase_add_test(tc, emit_capture_round_trips);
	tcase_add_test(tc, environ_is_redacted);
	tcase_add_test(tc, replay_never_follows_symlinked_directories);
	tcase_add_test(tc, missing_replay_root_is_an_error);
	tcase_add_test(tc, capture_directory_must_be_fresh_and_ours);
	tcase_add_test(tc, capture_never_writes_through_symlinks);
	tcase_add_test(tc, capture_holds_more_directories_than_its_table);
	tcase_add_test(tc, replayed_environ_is_redacted);
	tcase_add_test(tc, capture_stream_holds_records_until_the_end);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
