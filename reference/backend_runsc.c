/*
 * backend_runsc.c - GVISOR tier: the OCI bundle of oci.c under
 * `runsc --platform=ptrace --network=none --ignore-cgroups` with a private
 * --root state dir. (--platform=kvm hangs on this machine kind.)
 */
#include "oci.h"

static const char *const runsc_flags[] = {"--platform=ptrace", "--network=none", "--ignore-cgroups",
                                          NULL};
static const isotier_oci_runtime runsc_rt = {
    .name = "runsc", .global = runsc_flags, .gvisor = true};

static int runsc_available(char *why, size_t why_len)
{
	char path[4096];
	if (isotier_find_program(path, sizeof path, "runsc") != 0) {
		snprintf(why, why_len, "runsc not found in PATH");
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, why_len, "runsc needs root here (rootless mode is not configured)");
		return 0;
	}
	snprintf(why, why_len, "%s (platform ptrace)", path);
	return 1;
}

static int runsc_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	char why[256];
	if (!runsc_available(why, sizeof why))
		return isotier_error_set(err, ISOTIER_EUNAVAILABLE, 0, "runsc: %s", why);
	isotier_oci_bundle *b = NULL;
	int rc = isotier_oci_provision(&b, &runsc_rt, spec, err);
	if (rc)
		return isotier_error_prefix(err, "runsc: provision");
	*out = b;
	return 0;
}

static int runsc_exec(void *p, const isotier_exec_request *req, int *exit_status,
                      isotier_error *err)
{
	int rc = isotier_oci_exec(p, req, exit_status, err);
	if (rc)
		return isotier_error_prefix(err, "runsc: exec %s",
		                            req && req->argv && req->argv[0] ? req->argv[0] : "");
	return 0;
}

static void runsc_destroy(void *p)
{
	isotier_oci_destroy(p);
}

const isotier_backend isotier_backend_runsc = {
    .name = "runsc",
    .catalogue_id = "runsc",
    .description = "gVisor runsc (ptrace platform, no network) on an OCI bundle (GVISOR)",
    .available = runsc_available,
    .provision = runsc_provision,
    .exec = runsc_exec,
    .destroy = runsc_destroy,
};
