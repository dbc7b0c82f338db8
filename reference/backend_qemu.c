/* backend_qemu.c - placeholder until the real backend lands. */
#include "backend_util.h"

static int stub_available(char *why, size_t why_len)
{
	snprintf(why, why_len, "not implemented yet");
	return 0;
}

static int stub_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	(void)spec;
	*out = NULL;
	return isotier_error_set(err, ISOTIER_EUNAVAILABLE, 0, "qemu-microvm: not implemented yet");
}

static int stub_exec(void *p, const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	(void)p;
	(void)req;
	(void)exit_status;
	return isotier_error_set(err, ISOTIER_EUNAVAILABLE, 0, "qemu-microvm: not implemented yet");
}

static void stub_destroy(void *p)
{
	(void)p;
}

const isotier_backend isotier_backend_qemu_microvm = {
	.name = "qemu-microvm",
	.catalogue_id = "qemu-microvm",
	.description = "qemu-microvm (not implemented yet)",
	.available = stub_available,
	.provision = stub_provision,
	.exec = stub_exec,
	.destroy = stub_destroy,
};
