/*
 * backend_bwrap.c - CONTAINER tier: bubblewrap with every namespace unshared.
 *
 * The root is bwrap's own tmpfs holding: the top-level directories of the host
 * root (or of spec->rootfs) bound read-only, its top-level symlinks recreated,
 * fresh /proc, /dev, /tmp, /sys read-only, the probe at ISOTIER_GUEST_PROBE and
 * the capture dir writable at ISOTIER_GUEST_CAPTURE. With minimal_root only
 * the last five. Nothing is written on the host: provision() creates no file.
 */
#include "backend_util.h"

#include <errno.h>
#include <string.h>

typedef struct bwrap_state {
	isotier_spec_copy spec;
	isotier_root_entry *entries;
	size_t n_entries;
} bwrap_state;

static int bwrap_available(char *why, size_t why_len)
{
	char path[4096];
	if (isotier_find_program(path, sizeof path, "bwrap") != 0) {
		snprintf(why, why_len, "bwrap not found in PATH");
		return 0;
	}
	if (geteuid() != 0) {
		cleanup_free char *max = NULL;
		if (isotier_read_file(&max, NULL, "/proc/sys/user/max_user_namespaces", 64, NULL) ==
		        0 &&
		    atoi(max) == 0) {
			snprintf(why, why_len,
			         "user namespaces are disabled (user.max_user_namespaces=0)");
			return 0;
		}
	}
	snprintf(why, why_len, "%s", path);
	return 1;
}

static void bwrap_destroy(void *p)
{
	bwrap_state *s = p;
	if (!s)
		return;
	isotier_root_entries_free(s->entries, s->n_entries);
	isotier_spec_copy_clear(&s->spec);
	free(s);
}

static int bwrap_provision(void **out, const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	char why[256];
	if (!bwrap_available(why, sizeof why))
		return isotier_error_set(err, ISOTIER_EUNAVAILABLE, 0, "bwrap: %s", why);
	bwrap_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "bwrap: out of memory");
	int rc = isotier_spec_copy_init(&s->spec, spec, err);
	if (!rc && !s->spec.minimal_root)
		rc = isotier_root_entries(&s->entries, &s->n_entries,
		                          s->spec.rootfs ? s->spec.rootfs : "/", err);
	if (rc) {
		bwrap_destroy(s);
		return isotier_error_prefix(err, "bwrap: provision");
	}
	*out = s;
	return 0;
}

static int bwrap_exec(void *p, const isotier_exec_request *req, int *exit_status,
                      isotier_error *err)
{
	bwrap_state *s = p;
	int rc = isotier_exec_check(req, err);
	if (rc)
		return isotier_error_prefix(err, "bwrap");
	cleanup_argv isotier_argv a = {0};
	const char *base = s->spec.rootfs ? s->spec.rootfs : "";
	isotier_argv_push(&a, "bwrap");
	isotier_argv_push(&a, "--unshare-all");
	isotier_argv_push(&a, "--die-with-parent");
	isotier_argv_push(&a, "--new-session");
	isotier_argv_push(&a, "--clearenv");
	isotier_argv_push(&a, "--setenv");
	isotier_argv_push(&a, "PATH");
	isotier_argv_push(&a, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	isotier_argv_push(&a, "--setenv");
	isotier_argv_push(&a, "HOME");
	isotier_argv_push(&a, "/");
	for (size_t i = 0; i < s->n_entries; i++) {
		const isotier_root_entry *e = &s->entries[i];
		if (e->link) {
			isotier_argv_push(&a, "--symlink");
			isotier_argv_push(&a, e->link);
			isotier_argv_pushf(&a, "/%s", e->name);
		} else {
			isotier_argv_push(&a, "--ro-bind");
			isotier_argv_pushf(&a, "%s/%s", base, e->name);
			isotier_argv_pushf(&a, "/%s", e->name);
		}
	}
	isotier_argv_push(&a, "--proc");
	isotier_argv_push(&a, "/proc");
	isotier_argv_push(&a, "--dev");
	isotier_argv_push(&a, "/dev");
	isotier_argv_push(&a, "--tmpfs");
	isotier_argv_push(&a, "/tmp");
	isotier_argv_push(&a, "--ro-bind-try");
	isotier_argv_push(&a, "/sys");
	isotier_argv_push(&a, "/sys");
	if (s->spec.probe_path) {
		isotier_argv_push(&a, "--ro-bind");
		isotier_argv_push(&a, s->spec.probe_path);
		isotier_argv_push(&a, ISOTIER_GUEST_PROBE);
	}
	if (s->spec.capture_dir) {
		isotier_argv_push(&a, "--bind");
		isotier_argv_push(&a, s->spec.capture_dir);
		isotier_argv_push(&a, ISOTIER_GUEST_CAPTURE);
	}
	isotier_argv_push(&a, "--chdir");
	isotier_argv_push(&a, "/");
	isotier_argv_push(&a, "--");
	for (size_t i = 0; req->argv[i]; i++)
		isotier_argv_push(&a, req->argv[i]);
	if (a.oom)
		return isotier_error_set(err, ISOTIER_ENOMEM, 0, "bwrap: out of memory");
	isotier_proc_opts o = {
	    .argv = (const char *const *)a.v,
	    .stdin_fd = req->stdin_fd,
	    .stdout_fd = req->stdout_fd,
	    .stderr_fd = req->stderr_fd,
	    .timeout_s = isotier_exec_timeout(&s->spec, req),
	    .cancel_fd = isotier_exec_cancel_fd(&s->spec, req),
	};
	rc = isotier_proc_run(&o, exit_status, err);
	if (rc)
		return isotier_error_prefix(err, "bwrap: exec %s", req->argv[0]);
	return 0;
}

const isotier_backend isotier_backend_bwrap = {
    .version = ISOTIER_BACKEND_VERSION,
    .name = "bwrap",
    .catalogue_id = "bubblewrap",
    .description = "bubblewrap: all namespaces unshared, read-only root view (CONTAINER)",
    .available = bwrap_available,
    .provision = bwrap_provision,
    .exec = bwrap_exec,
    .destroy = bwrap_destroy,
};
