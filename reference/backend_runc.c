/*
 * backend_runc.c - CONTAINER tier: runc on an OCI bundle written by isotier
 * (oci.c): pid, net, ipc, uts and mount namespaces, a read-only root that
 * bind-mounts the host's top-level directories read-only (root.path cannot be
 * "/": pivot_root fails), the probe and the capture dir bound in.
 */
#include "oci.h"

#include <errno.h>

static const isotier_oci_runtime runc_rt = {.name = "runc", .global = NULL, .gvisor = false};

static int runc_available(char *why, size_t why_len)
{
	char path[4096];
	if (isotier_find_program(path, sizeof path, "runc") != 0) {
		snprintf(why, why_len, "runc not found in PATH");
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, why_len, "runc needs root here (rootless runc is not configured)");
		return 0;
	}
	snprintf(why, why_len, "%s", path);
	return 1;
}

static int runc_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	char why[256];
	if (!runc_available(why, sizeof why))
		return isotier_error_set(err, ISOTIER_EUNAVAILABLE, 0, "runc: %s", why);
	isotier_oci_bundle *b = NULL;
	int rc = isotier_oci_provision(&b, &runc_rt, spec, err);
	if (rc)
		return isotier_error_prefix(err, "runc: provision");
	*out = b;
	return 0;
}

static int runc_exec(void *p, const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	int rc = isotier_oci_exec(p, req, exit_status, err);
	if (rc)
		return isotier_error_prefix(err, "runc: exec %s",
		                            req && req->argv && req->argv[0] ? req->argv[0] : "");
	return 0;
}

static void runc_destroy(void *p)
{
	isotier_oci_destroy(p);
}

const isotier_backend isotier_backend_runc = {
    .name = "runc",
    .catalogue_id = "runc",
    .description = "runc: OCI bundle written by isotier, read-only root view (CONTAINER)",
    .available = runc_available,
    .provision = runc_provision,
    .exec = runc_exec,
    .destroy = runc_destroy,
};
