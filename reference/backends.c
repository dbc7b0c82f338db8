/* backends.c - the registry of sandbox backends (see backend.h). */
#include "backend_remote.h"
#include "backend_util.h"

#include <string.h>

static const isotier_backend *const registry[] = {
    &isotier_backend_bwrap,        &isotier_backend_runc,   &isotier_backend_runsc,
    &isotier_backend_qemu_microvm, &isotier_backend_crun,   &isotier_backend_docker,
    &isotier_backend_docker_runsc, &isotier_backend_podman, &isotier_backend_podman_runsc,
    &isotier_backend_qemu_aarch64, &isotier_backend_host,
    /* remote: a provider's sandboxes (backend_remote.h) */
    &isotier_backend_e2b, &isotier_backend_daytona, &isotier_backend_fly,
    &isotier_backend_vercel,
};

size_t isotier_backend_count(void)
{
	return sizeof registry / sizeof registry[0];
}

const isotier_backend *isotier_backend_at(size_t index)
{
	return index < isotier_backend_count() ? registry[index] : NULL;
}

const isotier_backend *isotier_backend_lookup(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < isotier_backend_count(); i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}
