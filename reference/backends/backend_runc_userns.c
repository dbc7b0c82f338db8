/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_runc_userns.c - CONTAINER tier: runc on the runc backend's OCI
 * bundle (oci.c) with a user namespace of its own, mapped the way a rootless
 * runtime maps it: the container's uids and gids 0..65535 are the host's
 * 100000..165535, so the sandbox's root is no user of the host's (a file it
 * reaches of the host's own users shows as nobody and grants it nothing
 * beyond what others get). It shares runc's claim (the same runtime, the
 * same kernel boundary: a user namespace narrows what root inside may do, it
 * is no new tier).
 *
 * What the namespace changes besides config.json: the bundle and every
 * directory above it are searchable by others (bundle_for_others), the
 * bundle's rootfs (empty but for mount points and symlinks) is the mapped
 * root's, and the capture directory is handed to the mapped root for the sandbox's life
 * (chowned at provision, given back at destroy), since the sandbox's root
 * has no right to write in a directory of the host's root.
 */
#include "oci.h"

#include <cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define USERNS_HOST_ID 100000 /* the first host id of the range, as /etc/subuid gives one */
#define USERNS_SIZE    65536

static bool add_mapping(cJSON *linux_, const char *key)
{
	cJSON *a = cJSON_AddArrayToObject(linux_, key);
	cJSON *m = a ? cJSON_CreateObject() : NULL;
	return m && cJSON_AddItemToArray(a, m) && cJSON_AddNumberToObject(m, "containerID", 0) &&
	       cJSON_AddNumberToObject(m, "hostID", USERNS_HOST_ID) &&
	       cJSON_AddNumberToObject(m, "size", USERNS_SIZE);
}

static int userns_configure(struct cJSON *config, const isotier_oci_bundle *b, isotier_error *err)
{
	(void)b;
	cJSON *linux_ = cJSON_GetObjectItemCaseSensitive(config, "linux");
	cJSON *ns = linux_ ? cJSON_GetObjectItemCaseSensitive(linux_, "namespaces") : NULL;
	cJSON *user = ns ? cJSON_CreateObject() : NULL;
	if (!user || !cJSON_AddItemToArray(ns, user) ||
	    !cJSON_AddStringToObject(user, "type", "user") || !add_mapping(linux_, "uidMappings") ||
	    !add_mapping(linux_, "gidMappings"))
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "user namespace: out of memory");
	return 0;
}

static const isotier_oci_runtime userns_rt = {
    .name = "runc", .bundle_for_others = true, .configure = userns_configure};

/* The bundle and the capture directory's owner before it was handed over. */
typedef struct userns_state {
	isotier_oci_bundle *bundle;
	char *capture;
	uid_t uid;
	gid_t gid;
} userns_state;

static int userns_available(char *why, size_t why_len)
{
	int rc = isotier__oci_available(&userns_rt, why, why_len);
	if (rc == 1 && access("/proc/self/uid_map", R_OK) != 0) {
		snprintf(why, why_len, "this kernel has no user namespaces (/proc/self/uid_map)");
		return 0;
	}
	return rc;
}

static void userns_destroy(void *state)
{
	userns_state *s = state;
	if (!s)
		return;
	isotier__oci_backend_destroy(s->bundle);
	/* lchown: what the sandbox left there is never followed. A destroy has no one to tell:
	 * a capture directory it could not give back stays the mapped root's until removed. */
	if (s->capture && lchown(s->capture, s->uid, s->gid) != 0) {
		/* (nothing more to do here) */
	}
	free(s->capture);
	free(s);
}

static int userns_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	userns_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	int rc = isotier__oci_backend_provision((void **)&s->bundle, &userns_rt, spec, err);
	char root[4096];
	if (!rc) { /* the mapped root makes the mount points in it */
		snprintf(root, sizeof root, "%s/rootfs", s->bundle->dir);
		if (lchown(root, USERNS_HOST_ID, USERNS_HOST_ID) != 0)
			rc = isotier__error_set(err, ISOTIER_EIO, errno,
			                        "runc-userns: %s: chown to the mapped root", root);
	}
	struct stat st;
	if (!rc && spec->capture_dir) {
		if (lstat(spec->capture_dir, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = isotier__error_set(err, ISOTIER_EINVAL, errno,
			                        "runc-userns: capture dir %s: not a directory",
			                        spec->capture_dir);
		else if (!(s->capture = strdup(spec->capture_dir)))
			rc = isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
		else if (s->uid = st.st_uid, s->gid = st.st_gid,
		         lchown(s->capture, USERNS_HOST_ID, USERNS_HOST_ID) != 0)
			rc = isotier__error_set(
			    err, ISOTIER_EIO, errno,
			    "runc-userns: capture dir %s: chown to the mapped root",
			    spec->capture_dir);
	}
	if (rc) {
		userns_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

static int userns_exec(void *state, const isotier_exec_request *req, int *exit_status,
                       isotier_error *err)
{
	return isotier__oci_backend_exec(((userns_state *)state)->bundle, req, exit_status, err);
}

static int userns_inputs_intact(void *state, char *why, size_t why_len)
{
	return isotier__oci_backend_inputs_intact(((userns_state *)state)->bundle, why, why_len);
}

const isotier_backend isotier__backend_runc_userns = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "runc-userns",
    .catalogue_id = "runc",
    .shares_claim_with = "runc",
    .description = "runc in a user namespace (root inside is host uid 100000), read-only root "
                   "view (CONTAINER)",
    .available = userns_available,
    .provision = userns_provision,
    .exec = userns_exec,
    .destroy = userns_destroy,
    .inputs_intact = userns_inputs_intact,
    .cpu_in_tree = true,
};
