/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_host.c - no sandbox: the command runs directly on the machine the
 * tool runs on (to verify where a job itself runs). Paths under
 * ISOTIER_GUEST_DIR in argv are mapped to the spec's host paths.
 */
#include "backend_util.h"

#include <string.h>

static int host_available(char *why, size_t why_len)
{
	snprintf(why, why_len, "always: the machine isotier runs on");
	return 1;
}

static void host_destroy(void *p)
{
	isotier_spec_copy *c = p;
	if (!c)
		return;
	isotier__spec_copy_clear(c);
	free(c);
}

static int host_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	isotier_spec_copy *c = calloc(1, sizeof *c);
	if (!c)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "host: out of memory");
	int rc = isotier__spec_copy_init(c, spec, err);
	if (rc) {
		free(c);
		return isotier__error_prefix(err, "host: provision");
	}
	if (c->rootfs) {
		host_destroy(c);
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "host: provision: no rootfs on the host backend");
	}
	*out = c;
	return 0;
}

static int host_exec(void *p, const isotier_exec_request *req, int *exit_status, isotier_error *err)
{
	isotier_spec_copy *c = p;
	int rc = isotier__exec_check(req, err);
	if (rc)
		return isotier__error_prefix(err, "host");
	cleanup_argv isotier_argv a = {0};
	for (size_t i = 0; req->argv[i]; i++) {
		cleanup_free char *m = isotier__map_guest_path(req->argv[i], c);
		isotier__argv_push(&a, m ? m : req->argv[i]);
	}
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "host: out of memory");
	isotier_proc_opts o = isotier__exec_proc_opts(c, req, a.v);
	rc = isotier__proc_run(&o, exit_status, err);
	if (rc == ISOTIER_EUNAVAILABLE) {
		/* The command itself was not found: report it like a shell would. */
		*exit_status = 127;
		dprintf(req->stderr_fd >= 0 ? req->stderr_fd : 2,
		        "isotier: %s: command not found\n", a.v[0]);
		return 0;
	}
	if (rc)
		return isotier__error_prefix(err, "host: exec %s", req->argv[0]);
	return 0;
}

const isotier_backend isotier__backend_host = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "host",
    .catalogue_id = NULL,
    .description = "no sandbox: the machine isotier runs on",
    .observes_host = true,
    .available = host_available,
    .provision = host_provision,
    .exec = host_exec,
    .destroy = host_destroy,
    .cpu_in_tree = true,
};
