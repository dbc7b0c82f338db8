/* SPDX-License-Identifier: Apache-2.0 */
/* test_observe.c - the one lifecycle (observe.h) on real sandboxes: the
 * probe's output parsed, bounded and rejected; the kernel relation SELF for
 * the host, SHARED for a container on this kernel, and for a backend flagged
 * remote its two sandboxes compared with each other (one sandbox proves
 * nothing: UNCOMPARED); unavailable and cancelled observations. */
#include <check.h>
#include "check_run.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../reference/observation/observe.h"
#include "../../reference/core/paths.h"
#include "../../reference/core/proc.h"
#include "host_lock.h"

#define FAULT_PROBE(mode) ISOTIER_SOURCE_DIR "/build/tests/fault-probe-" mode

static const char *real_probe(void)
{
	static char path[4096];
	ck_assert_int_eq(isotier__default_probe_path(path, sizeof path), 0);
	return path;
}

static const isotier_backend *backend(const char *name)
{
	const isotier_backend *b = isotier__backend_lookup(name);
	ck_assert_ptr_nonnull(b);
	char why[256];
	ck_assert_msg(b->available(why, sizeof why) == 1, "%s unavailable: %s", name, why);
	return b;
}

START_TEST(host_is_self)
{
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = real_probe(), .timeout_s = 30};
	isotier_error err = {0};
	ck_assert_int_eq(isotier__observe(&obs, backend("host"), &o, &err), 0);
	ck_assert(obs.available && obs.ran);
	ck_assert_uint_eq(obs.n_runs, 1);
	ck_assert(obs.run[0].parsed);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_SELF);
	ck_assert(isotier__boot_id_valid(obs.run[0].probe.boot_id));
	isotier__observation_clear(&obs);
}
END_TEST

/* A container on this kernel: SHARED, whatever VM the host runs in; the
 * capture directory gets the probe's inputs. */
START_TEST(container_shares_the_kernel)
{
	char *capture = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(isotier__mkdtemp(&capture, "isotier-test-observe-", &err), 0);
	isotier_observation obs;
	isotier_observe_opts o = {
	    .probe_path = real_probe(), .capture_dir = capture, .timeout_s = 30};
	ck_assert_int_eq(isotier__observe(&obs, backend("bwrap"), &o, &err), 0);
	ck_assert(obs.run[0].parsed);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_SHARED);
	ck_assert_ptr_nonnull(strstr(obs.relation_detail, obs.run[0].probe.boot_id));
	char path[4200];
	snprintf(path, sizeof path, "%s/proc/sys/kernel/random/boot_id", capture);
	struct stat st;
	ck_assert_msg(stat(path, &st) == 0, "no %s", path);
	isotier__observation_clear(&obs);
	isotier__rmtree(capture);
	free(capture);
}
END_TEST

START_TEST(huge_output_is_never_parsed)
{
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = FAULT_PROBE("huge"), .timeout_s = 30};
	isotier_error err = {0};
	ck_assert_int_eq(isotier__observe(&obs, backend("host"), &o, &err), ISOTIER_EDATA);
	ck_assert(obs.run[0].out_over && !obs.run[0].parsed);
	ck_assert_uint_le(obs.run[0].out_len, PROBE_RESULT_MAX_BYTES);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_UNCOMPARED);
	isotier__observation_clear(&obs);
}
END_TEST

START_TEST(garbage_is_rejected_with_its_reason)
{
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = FAULT_PROBE("garbage"), .timeout_s = 30};
	isotier_error err = {0};
	ck_assert_int_eq(isotier__observe(&obs, backend("host"), &o, &err), ISOTIER_EDATA);
	ck_assert_int_eq(obs.run[0].rc, 0);
	ck_assert(!obs.run[0].parsed);
	ck_assert_str_eq(err.message, obs.run[0].parse_err.message);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_UNCOMPARED);
	isotier__observation_clear(&obs);
}
END_TEST

START_TEST(hang_times_out)
{
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = FAULT_PROBE("hang"), .timeout_s = 1};
	isotier_error err = {0};
	ck_assert_int_eq(isotier__observe(&obs, backend("bwrap"), &o, &err), ISOTIER_ETIMEDOUT);
	ck_assert(obs.ran && !obs.run[0].parsed);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_UNCOMPARED);
	isotier__observation_clear(&obs);
}
END_TEST

START_TEST(cancelled_starts_nothing)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = real_probe(), .timeout_s = 30, .cancel_fd = p[0]};
	ck_assert_int_eq(isotier__observe(&obs, backend("bwrap"), &o, NULL), ISOTIER_EINTR);
	ck_assert(!obs.ran);
	isotier__observation_clear(&obs);
	close(p[0]);
	close(p[1]);
}
END_TEST

static int never(char *why, size_t len)
{
	snprintf(why, len, "not on this machine");
	return 0;
}

START_TEST(unavailable_says_why)
{
	isotier_backend fake = *backend("host");
	fake.available = never;
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = real_probe()};
	isotier_error err = {0};
	ck_assert_int_eq(isotier__observe(&obs, &fake, &o, &err), ISOTIER_EUNAVAILABLE);
	ck_assert(!obs.available && !obs.ran);
	ck_assert_str_eq(obs.why, "not on this machine");
	isotier__observation_clear(&obs);
}
END_TEST

/* bwrap posing as a provider: its two sandboxes run on one kernel, which the
 * sibling comparison must call SHARED (never with this host: the relation's
 * words name two sandboxes), and the cross-sandbox challenge must see. */
START_TEST(remote_siblings_on_one_kernel_are_shared)
{
	isotier_backend fake = *backend("bwrap");
	fake.remote = true;
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = real_probe(), .timeout_s = 30};
	/* A remote backend's sandboxes are not this host's, so its challenge
	 * takes no host lock; these are, and another pattern on this kernel
	 * meanwhile (another suite's, a verification's) blurs the count into
	 * "not seen": the host's lock keeps them out (host_lock.h). */
	int hl = test_host_lock("remote_siblings_on_one_kernel_are_shared", 60);
	ck_assert_msg(hl != -1, "remote_siblings_on_one_kernel_are_shared: no host challenge lock");
	int rc = isotier__observe(&obs, &fake, &o, NULL);
	if (hl >= 0)
		close(hl);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(obs.n_runs, 2);
	ck_assert(obs.run[0].parsed && obs.run[1].parsed);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_SHARED);
	ck_assert_ptr_nonnull(strstr(obs.relation_detail, "two bwrap sandboxes run on one kernel"));
	/* The cross-sandbox challenge ran concurrently in both and, one kernel
	 * under both, saw one's pattern in the other's count. */
	ck_assert_msg(obs.cross == ISOTIER_CHALLENGE_SEEN, "cross: %s", obs.cross_detail);
	ck_assert_ptr_nonnull(strstr(obs.relation_detail, "shows in the other's task count"));
	isotier__observation_clear(&obs);
}
END_TEST

/* What create()'s attestation sees of a provider: one sandbox, whose kernel
 * is compared with nothing (never with this host's). */
START_TEST(one_remote_sandbox_is_uncompared)
{
	isotier_backend fake = *backend("host");
	fake.remote = true;
	fake.observes_host = false;
	const isotier_backend *b = &fake;
	isotier_backend_spec spec = {.probe_path = real_probe(), .timeout_s = 30};
	void *state = NULL;
	isotier_error err = {0};
	ck_assert_int_eq(b->provision(&state, &spec, &err), 0);
	isotier_observation obs;
	isotier_observe_opts o = {.probe_path = real_probe(), .timeout_s = 30};
	/* One sandbox of a provider proves nothing about its kernel. */
	ck_assert_int_eq(isotier__observe_in(&obs, b, state, &o, &err), 0);
	ck_assert(obs.run[0].parsed);
	ck_assert_int_eq(obs.relation, ISOTIER_KERNEL_UNCOMPARED);
	ck_assert_ptr_nonnull(strstr(obs.relation_detail, "one host sandbox"));
	isotier__observation_clear(&obs);
	b->destroy(state);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("observe");
	TCase *tc = tcase_create("observe");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, host_is_self);
	tcase_add_test(tc, container_shares_the_kernel);
	tcase_add_test(tc, huge_output_is_never_parsed);
	tcase_add_test(tc, garbage_is_rejected_with_its_reason);
	tcase_add_test(tc, hang_times_out);
	tcase_add_test(tc, cancelled_starts_nothing);
	tcase_add_test(tc, unavailable_says_why);
	tcase_add_test(tc, remote_siblings_on_one_kernel_are_shared);
	tcase_add_test(tc, one_remote_sandbox_is_uncompared);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
