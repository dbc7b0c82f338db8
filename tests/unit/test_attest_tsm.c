/* SPDX-License-Identifier: Apache-2.0 */
/* test_attest_tsm.c - the probe's configfs-tsm flow (probes/attest.h)
 * against a simulated tree in a replay root: a thread plays the provider
 * (outblob and generation are FIFOs it serves, signing a test authority's
 * report over whatever the probe wrote to inblob). The probe's own SHA-512
 * binding must be the verifier's (libcrypto); a refusing provider, a
 * generation race, no TSM, and only the older device each give a status,
 * never a failure. */
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../probes/attest.h"
#include "../../reference/attestation/attest.h"
#include "attest_authority.h"
#include "replay_root.h"

#define ENTRY "sys/kernel/config/tsm/report/isotier"

static char root[64], roots[64];
static test_authority *ta;

/* The provider: serves outblob (a FIFO) with a report over whatever inblob
 * holds; for its first `bumps` reports it also moves the generation, as
 * another writer to the entry would. */
struct provider {
	atomic_bool stop;
	char fifo[256];
	unsigned bumps, served;
	pthread_t thread;
};

/* Does this process (the probe, called in it) hold the FIFO open, on a
 * descriptor other than `mine` (the provider's own writer, or -1)? */
static bool fifo_held(const char *path, int mine)
{
	char link[64], target[256];
	for (int fd = 3; fd < 1024; fd++) {
		if (fd == mine)
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof target - 1);
		if (n > 0 && (target[n] = '\0', !strcmp(target, path)))
			return true;
	}
	return false;
}

/* Waits (bounded: about 20 s, or until stopped) until this process holds
 * the FIFO open (want) or no longer does; false when it gave up. */
static bool wait_held(struct provider *p, bool want, int mine)
{
	for (int i = 0; i < 100000 && !atomic_load(&p->stop); i++) {
		if (fifo_held(p->fifo, mine) == want)
			return true;
		struct timespec ts = {0, 200000};
		nanosleep(&ts, NULL);
	}
	return false;
}

/* Opens the FIFO for writing once a reader has it open; -1 when stopped. */
static int wait_reader(struct provider *p)
{
	for (int i = 0; i < 20000 && !atomic_load(&p->stop); i++) {
		int fd = open(p->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			fcntl(fd, F_SETFL, 0);
			return fd;
		}
		struct timespec ts = {0, 500000};
		nanosleep(&ts, NULL);
	}
	return -1;
}

static void put_generation(unsigned g)
{
	char text[16];
	int n = snprintf(text, sizeof text, "%u\n", g);
	put(root, ENTRY "/generation", text, (size_t)n);
}

static void *serve(void *arg)
{
	struct provider *p = arg;
	for (;;) {
		int fd = wait_reader(p);
		if (fd < 0)
			return NULL;
		/* A reader still inside its blocking open() lets the writer's open
		 * succeed but holds no descriptor yet: written and closed before
		 * its open() returns, the report would leave fifo_held() false
		 * below, and the next loop would write a second report into the
		 * same read (two reports in one outblob, or one served too many).
		 * So the reader's descriptor (not this writer's) must be seen
		 * before the write. */
		if (!wait_held(p, true, fd)) {
			close(fd);
			return NULL;
		}
		char path[256];
		test_snp_fields f = {0};
		snprintf(path, sizeof path, "%s/" ENTRY "/inblob", root);
		FILE *in = fopen(path, "rb");
		ck_assert_ptr_nonnull(in);
		ck_assert_uint_eq(fread(f.report_data, 1, 64, in), 64);
		fclose(in);
		RAND_bytes(f.report_id, sizeof f.report_id);
		uint8_t rep[ATTEST_SNP_REPORT_LEN];
		test_authority_snp_report(ta, &f, rep);
		if (p->served < p->bumps)
			put_generation(100 + p->served);
		p->served++;
		ck_assert_int_eq(write(fd, rep, sizeof rep), (ssize_t)sizeof rep);
		close(fd);
		/* The reader's EOF comes only once no writer is left: wait for it
		 * to close before offering the FIFO again. */
		wait_held(p, false, -1);
	}
}

static void start(struct provider *p)
{
	snprintf(p->fifo, sizeof p->fifo, "%s/" ENTRY "/outblob", root);
	unlink(p->fifo);
	ck_assert_int_eq(mkfifo(p->fifo, 0600), 0);
	atomic_store(&p->stop, false);
	ck_assert_int_eq(pthread_create(&p->thread, NULL, serve, p), 0);
}

static void stop(struct provider *p)
{
	atomic_store(&p->stop, true);
	pthread_join(p->thread, NULL);
}

/* Once for the suite: the authority's keys (slow to make under ASan). */
static void make_authority(void)
{
	strcpy(roots, "/tmp/isotier-tsm-roots-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(roots));
	ta = test_authority_new(roots, "genoa");
}

static void drop_authority(void)
{
	test_authority_free(ta);
	rm_rf(roots);
}

/* For each test: a fresh tree with the entry's plain attributes. */
static void setup(void)
{
	strcpy(root, "/tmp/isotier-tsm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put(root, ENTRY "/inblob", "", 0);
	put(root, ENTRY "/provider", "sev_guest\n", 10);
	put_generation(7);
	size_t aux_len = 0;
	uint8_t *aux = test_authority_auxblob(ta, &aux_len);
	put(root, ENTRY "/auxblob", (const char *)aux, aux_len);
	free(aux);
}

static void teardown(void)
{
	rm_rf(root);
}

/* A body as the probe's report writer would print it. */
static void fake_report(FILE *f, const void *res)
{
	fprintf(f, "{\n  \"schema\": \"isotier.probe/1\",\n  \"observed_tier\": \"%s\"\n}\n",
	        (const char *)res);
}

static char *run_probe(const char *nonce)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	ck_assert_int_eq(probe_attest_report(f, root, nonce, fake_report, "MICROVM"), 0);
	fclose(f);
	return out;
}

START_TEST(honest_flow_binds_and_verifies)
{
	struct provider o = {0};
	start(&o);
	const char *nonce = "0123456789abcdef0123456789abcdef";
	char *out = run_probe(nonce);
	stop(&o);
	ck_assert_msg(strstr(out, "\"status\": \"ok\"") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "\"provider\": \"sev_guest\""));
	ck_assert_ptr_nonnull(strstr(out, "\"generation\": 7"));
	attest_policy p = {.roots_dir = roots};
	attest_verdict v;
	ck_assert_msg(isotier__attest_output_verify(&v, out, strlen(out), nonce, &p) == 1, "%s",
	              v.detail);
	ck_assert_str_eq(v.product, "Genoa");
	/* The same output under another nonce is a replay. */
	ck_assert_int_eq(
	    isotier__attest_output_verify(&v, out, strlen(out), "ffffffffffffffff", &p), -1);
	free(out);
}
END_TEST

START_TEST(refusing_provider_is_a_status)
{
	/* No outblob: the provider makes no report. */
	char *out = run_probe("00000000000000000000000000000000");
	ck_assert_msg(strstr(out, "\"status\": \"refused\"") != NULL, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "outblob"));
	attest_verdict v;
	attest_policy p = {.roots_dir = roots};
	ck_assert_int_eq(isotier__attest_output_verify(&v, out, strlen(out),
	                                               "00000000000000000000000000000000", &p),
	                 0);
	ck_assert_ptr_nonnull(strstr(v.detail, "refused"));
	free(out);
}
END_TEST

START_TEST(generation_race_is_retried_then_refused)
{
	/* Every read sees another writer's generation: no attempt is ours. */
	struct provider o = {.bumps = 100};
	start(&o);
	char *out = run_probe("1111111111111111");
	stop(&o);
	ck_assert_msg(strstr(out, "\"status\": \"race\"") != NULL, "%s", out);
	ck_assert_uint_eq(o.served, PROBE_ATTEST_ATTEMPTS);
	ck_assert_ptr_null(strstr(out, "outblob\": \""));
	free(out);
	/* A race on the first attempt only: the second is ours. */
	struct provider o2 = {.bumps = 1};
	start(&o2);
	out = run_probe("2222222222222222");
	stop(&o2);
	ck_assert_uint_eq(o2.served, 2);
	ck_assert_msg(strstr(out, "\"status\": \"ok\"") != NULL, "%s", out);
	attest_verdict v;
	attest_policy p = {.roots_dir = roots};
	ck_assert_int_eq(
	    isotier__attest_output_verify(&v, out, strlen(out), "2222222222222222", &p), 1);
	free(out);
}
END_TEST

START_TEST(absent_or_older_interface)
{
	struct probe_attest a;
	uint8_t in[64] = {0};
	char bare[64];
	strcpy(bare, "/tmp/isotier-tsm-bare-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(bare));
	probe_attest_tsm(bare, in, &a);
	ck_assert_str_eq(a.status, "absent");
	/* A replay tree whose sys is a symlink to the live one: not followed. */
	char link[128], target[128];
	snprintf(link, sizeof link, "%s/sys", bare);
	snprintf(target, sizeof target, "%s/sys", root);
	ck_assert_int_eq(symlink(target, link), 0);
	probe_attest_tsm(bare, in, &a);
	ck_assert_str_eq(a.status, "absent");
	put(bare, "dev/sev-guest", "", 0);
	probe_attest_tsm(bare, in, &a);
	ck_assert_str_eq(a.status, "unsupported");
	ck_assert_ptr_nonnull(strstr(a.why, "/dev/sev-guest"));
	rm_rf(bare);
}
END_TEST

START_TEST(probe_sha512_is_sha512)
{
	uint8_t buf[300], mine[64], theirs[64];
	RAND_bytes(buf, sizeof buf);
	for (size_t n = 0; n <= sizeof buf; n += 7) {
		unsigned len = 0;
		probe_sha512(buf, n, mine);
		ck_assert_int_eq(EVP_Digest(buf, n, theirs, &len, EVP_sha512(), NULL), 1);
		ck_assert_msg(!memcmp(mine, theirs, 64), "length %zu", n);
	}
	/* And the binding, both sides. */
	isotier_error err = {0};
	probe_attest_binding("abcdef0123456789", (const char *)buf, 200, mine);
	ck_assert_int_eq(isotier__attest_binding(theirs, "abcdef0123456789", buf, 200, &err), 0);
	ck_assert(!memcmp(mine, theirs, 64));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("attest_tsm");
	TCase *tc = tcase_create("tsm");
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tc, make_authority, drop_authority);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, honest_flow_binds_and_verifies);
	tcase_add_test(tc, refusing_provider_is_a_status);
	tcase_add_test(tc, generation_race_is_retried_then_refused);
	tcase_add_test(tc, absent_or_older_interface);
	tcase_add_test(tc, probe_sha512_is_sha512);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
