/* SPDX-License-Identifier: Apache-2.0 */
/* backends.c - the registry of sandbox backends (see backend.h). */
#include "backend.h"

#include <string.h>

/*
 * One line per backend: isotier__backend_<name> defined in its own file
 * (reference/backends/backend_<name>.c). The order is the order of `isotier backends`
 * and `verify --all`: local ones first, the host, then remote providers.
 */
#define ISOTIER_BACKENDS(X)                                                                        \
	X(bwrap)                                                                                   \
	X(bwrap_nonet)                                                                             \
	X(runc)                                                                                    \
	X(runc_userns)                                                                             \
	X(runsc)                                                                                   \
	X(qemu_microvm)                                                                            \
	X(crun)                                                                                    \
	X(nspawn)                                                                                  \
	X(docker)                                                                                  \
	X(docker_runsc)                                                                            \
	X(podman)                                                                                  \
	X(podman_runsc)                                                                            \
	X(qemu_aarch64)                                                                            \
	X(host)                                                                                    \
	X(e2b)                                                                                     \
	X(daytona)                                                                                 \
	X(fly)                                                                                     \
	X(vercel)

#define DECLARE(n) extern const isotier_backend isotier__backend_##n;
ISOTIER_BACKENDS(DECLARE)
#undef DECLARE

#define REFERENCE(n) &isotier__backend_##n,
static const isotier_backend *const registry[] = {ISOTIER_BACKENDS(REFERENCE)};
#undef REFERENCE

int isotier__backend_check(const isotier_backend *b, char *why, size_t why_len)
{
	const char *problem = NULL;
	if (!b)
		problem = "no descriptor";
	else if (b->version != ISOTIER_BACKEND_VERSION)
		problem = "unknown descriptor version";
	else if (!b->name || !*b->name || strlen(b->name) > 32 ||
	         strspn(b->name, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(b->name))
		problem = "name: not [a-z0-9-]{1,32}";
	else if (!b->available || !b->provision || !b->exec || !b->destroy)
		problem = "an operation is missing (available, provision, exec, destroy)";
	else if (b->remote && !b->release)
		problem = "a remote backend needs release()";
	else if (b->remote && b->observes_host)
		problem = "remote and observes_host exclude each other";
	else if (b->remote && b->cpu_in_tree)
		problem =
		    "a remote backend's sandbox is not a process tree reaped here (cpu_in_tree)";
	else if (b->remote && !b->delivers_output)
		problem = "a remote backend delivers output itself (delivers_output): its bytes "
		          "come from HTTP, not from a descriptor";
	for (size_t i = 0; !problem && b->settings && b->settings[i].env; i++) {
		const char *e = b->settings[i].env;
		if (strspn(e, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(e) ||
		    !b->settings[i].meaning)
			problem = "settings: not an environment variable name, or no meaning";
	}
	if (!problem)
		return 0;
	snprintf(why, why_len, "backend %s: %s", b && b->name ? b->name : "?", problem);
	return ISOTIER_EINVAL;
}

size_t isotier__backend_count(void)
{
	return sizeof registry / sizeof registry[0];
}

const isotier_backend *isotier__backend_at(size_t index)
{
	return index < isotier__backend_count() ? registry[index] : NULL;
}

const isotier_backend *isotier__backend_lookup(const char *name)
{
	for (size_t i = 0; name && i < isotier__backend_count(); i++) {
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	}
	return NULL;
}

const isotier_backend *isotier__backend_for_claim(const char *catalogue_id)
{
	for (size_t i = 0; catalogue_id && i < isotier__backend_count(); i++) {
		if (registry[i]->catalogue_id && !strcmp(registry[i]->catalogue_id, catalogue_id))
			return registry[i];
	}
	return NULL;
}

int isotier__backend_list_check(const isotier_backend *const *list, size_t n, char *why,
                                size_t why_len)
{
	for (size_t i = 0; i < n; i++) {
		const isotier_backend *b = list[i];
		int rc = isotier__backend_check(b, why, why_len);
		if (rc)
			return rc;
		for (size_t j = 0; j < i; j++) {
			const isotier_backend *a = list[j];
			if (!strcmp(a->name, b->name)) {
				snprintf(why, why_len, "backend %s: listed twice", b->name);
				return ISOTIER_EINVAL;
			}
			if (!a->catalogue_id || !b->catalogue_id ||
			    strcmp(a->catalogue_id, b->catalogue_id))
				continue;
			if (!b->shares_claim_with) { /* checked below when it is set */
				snprintf(why, why_len,
				         "backend %s: catalogue entry %s is %s's claim already (a "
				         "variant "
				         "sharing it says so: shares_claim_with)",
				         b->name, b->catalogue_id, a->name);
				return ISOTIER_EINVAL;
			}
		}
		if (b->shares_claim_with) {
			const isotier_backend *owner = NULL;
			for (size_t k = 0; k < i; k++)
				if (!strcmp(list[k]->name, b->shares_claim_with))
					owner = list[k];
			if (!owner || !owner->catalogue_id || !b->catalogue_id ||
			    strcmp(owner->catalogue_id, b->catalogue_id)) {
				snprintf(why, why_len,
				         "backend %s: shares_claim_with %s, which is not a backend "
				         "before it with the same catalogue entry",
				         b->name, b->shares_claim_with);
				return ISOTIER_EINVAL;
			}
		}
	}
	return 0;
}

int isotier__backend_registry_check(char *why, size_t why_len)
{
	return isotier__backend_list_check(registry, isotier__backend_count(), why, why_len);
}
