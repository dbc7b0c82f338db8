/* SPDX-License-Identifier: Apache-2.0 */
/* test_backends.c - the registry (backends.c): every descriptor is one this
 * library can drive (isotier__backend_check), names are unique, and each
 * backend's one link to its claim, catalogue_id, names an entry of the shipped
 * catalogue that validates; the check refuses what a broken descriptor
 * would be. */
#include <check.h>
#include "check_run.h"

#include <string.h>

#include "../../reference/backends/backend.h"
#include "../catalogue/catalogue.h"

START_TEST(every_descriptor_passes_the_check)
{
	ck_assert_uint_ge(isotier__backend_count(), 15);
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		char why[256] = "";
		ck_assert_msg(isotier__backend_check(b, why, sizeof why) == 0, "%s", why);
		ck_assert_ptr_eq(isotier__backend_lookup(b->name), b);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(isotier__backend_at(k)->name, b->name);
	}
	ck_assert_ptr_null(isotier__backend_at(isotier__backend_count()));
	ck_assert_ptr_null(isotier__backend_lookup("no-such-backend"));
	ck_assert_ptr_null(isotier__backend_lookup(NULL));
}
END_TEST

/* The claim is found from the backend, one way: every catalogue_id is an
 * entry of the shipped catalogue; only a backend that observes the host has
 * none (its claim is the machine's provider, named at run time). */
START_TEST(every_claim_link_resolves)
{
	isotier_catalogue *cat = NULL;
	isotier_findings f = {0};
	isotier_error err = {0};
	ck_assert_int_eq(
	    isotier__catalogue_load(&cat, ISOTIER_SOURCE_DIR "/catalogue/providers", &f, &err), 0);
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		if (b->observes_host) {
			ck_assert_ptr_null(b->catalogue_id);
			continue;
		}
		ck_assert_msg(b->catalogue_id != NULL, "%s has no catalogue_id", b->name);
		ck_assert_msg(isotier__catalogue_find(cat, b->catalogue_id) != NULL,
		              "%s: no catalogue entry %s", b->name, b->catalogue_id);
	}
	isotier__findings_free(&f);
	isotier__catalogue_free(cat);
}
END_TEST

/* A remote backend is available only when its credential is configured: a
 * secret, required setting. */
START_TEST(remote_backends_name_their_credential)
{
	for (size_t i = 0; i < isotier__backend_count(); i++) {
		const isotier_backend *b = isotier__backend_at(i);
		if (!b->remote)
			continue;
		bool credential = false;
		for (size_t k = 0; b->settings && b->settings[k].env; k++)
			credential |= b->settings[k].secret && b->settings[k].required;
		ck_assert_msg(credential, "%s has no required secret setting", b->name);
	}
}
END_TEST

static int ok_release(void *state, isotier_error *err)
{
	(void)state;
	(void)err;
	return 0;
}

static int ok_available(char *why, size_t len)
{
	snprintf(why, len, "yes");
	return 1;
}
static int ok_provision(void **state, const isotier_backend_spec *spec, isotier_error *err)
{
	(void)spec, (void)err;
	*state = NULL;
	return 0;
}
static int ok_exec(void *state, const isotier_exec_request *req, int *status, isotier_error *err)
{
	(void)state, (void)req, (void)err;
	*status = 0;
	return 0;
}
static void ok_destroy(void *state)
{
	(void)state;
}

/* Two backends may not claim one catalogue entry unnoticed: the registry
 * passes, and a list where a second descriptor links an entry already linked
 * is refused unless it names the owner it shares the claim with. */
START_TEST(a_claim_is_shared_only_when_declared)
{
	char why[256] = "";
	ck_assert_msg(isotier__backend_registry_check(why, sizeof why) == 0, "%s", why);
	const isotier_backend *bwrap = isotier__backend_lookup("bwrap");
	const isotier_backend *nonet = isotier__backend_lookup("bwrap-nonet");
	ck_assert(bwrap && nonet);
	ck_assert_str_eq(nonet->catalogue_id, bwrap->catalogue_id);
	ck_assert_ptr_eq(isotier__backend_for_claim(bwrap->catalogue_id), bwrap); /* the owner */

	isotier_backend stray = *nonet;
	stray.shares_claim_with = NULL; /* the same claim, undeclared */
	const isotier_backend *undeclared[] = {bwrap, &stray};
	ck_assert_int_eq(isotier__backend_list_check(undeclared, 2, why, sizeof why),
	                 ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "bubblewrap"));
	ck_assert_ptr_nonnull(strstr(why, "bwrap's claim already"));

	const isotier_backend *declared[] = {bwrap, nonet};
	ck_assert_int_eq(isotier__backend_list_check(declared, 2, why, sizeof why), 0);
	/* The owner must come first, and must hold that claim. */
	const isotier_backend *reversed[] = {nonet, bwrap};
	ck_assert_int_eq(isotier__backend_list_check(reversed, 2, why, sizeof why), ISOTIER_EINVAL);
	stray = *nonet;
	stray.shares_claim_with = "runc";
	const isotier_backend *runc = isotier__backend_lookup("runc");
	const isotier_backend *wrong_owner[] = {bwrap, runc, &stray};
	ck_assert_int_eq(isotier__backend_list_check(wrong_owner, 3, why, sizeof why),
	                 ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "shares_claim_with runc"));
	/* A name twice. */
	const isotier_backend *twice[] = {bwrap, bwrap};
	ck_assert_int_eq(isotier__backend_list_check(twice, 2, why, sizeof why), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "listed twice"));
}
END_TEST

START_TEST(the_check_refuses_broken_descriptors)
{
	static const isotier_backend_setting bad_setting[] = {{.env = "lower-case", .meaning = "x"},
	                                                      {0}};
	const isotier_backend good = {.version = ISOTIER_BACKEND_VERSION,
	                              .name = "fine-1",
	                              .available = ok_available,
	                              .provision = ok_provision,
	                              .exec = ok_exec,
	                              .destroy = ok_destroy};
	char why[256];
	ck_assert_int_eq(isotier__backend_check(&good, why, sizeof why), 0);
	isotier_backend b = good;
	b.version = ISOTIER_BACKEND_VERSION + 1;
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "version"));
	b = good;
	b.name = "Bad Name";
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	b = good;
	b.exec = NULL;
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	b = good;
	b.remote = true; /* without release(): a leak could not be reported */
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	b = good;
	b.observes_host = true;
	b.remote = true;
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	b = good;
	b.remote = true; /* with release() but output through a descriptor */
	b.release = ok_release;
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "delivers_output"));
	b.delivers_output = true;
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), 0);
	b.cpu_in_tree = true; /* a provider's sandbox is no child of ours to reap */
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "cpu_in_tree"));
	b = good;
	b.settings = bad_setting;
	ck_assert_int_eq(isotier__backend_check(&b, why, sizeof why), ISOTIER_EINVAL);
	ck_assert_int_eq(isotier__backend_check(NULL, why, sizeof why), ISOTIER_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("backends");
	TCase *tc = tcase_create("registry");
	tcase_add_test(tc, every_descriptor_passes_the_check);
	tcase_add_test(tc, every_claim_link_resolves);
	tcase_add_test(tc, remote_backends_name_their_credential);
	tcase_add_test(tc, the_check_refuses_broken_descriptors);
	tcase_add_test(tc, a_claim_is_shared_only_when_declared);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
