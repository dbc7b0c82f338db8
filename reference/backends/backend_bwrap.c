/* SPDX-License-Identifier: Apache-2.0 */
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

/*
 * A variant of the backend is a row: the namespaces bwrap unshares and the
 * fixed mounts after the root view (source, destination; NULL source: the
 * flag takes one argument). engine.c does the same for Docker and Podman.
 * A new variant is one row here, its descriptor below (BWRAP_BACKEND) and one
 * line in backends.c.
 */
typedef struct bwrap_mount {
	const char *flag, *source, *dest;
} bwrap_mount;

typedef struct bwrap_variant {
	const char *const *unshare; /* NULL-terminated */
	const bwrap_mount *mounts;  /* {NULL}-terminated */
} bwrap_variant;

static const bwrap_mount base_mounts[] = {
    {"--proc", NULL, "/proc"},         {"--dev", NULL, "/dev"}, {"--tmpfs", NULL, "/tmp"},
    {"--ro-bind-try", "/sys", "/sys"}, {NULL, NULL, NULL},
};

/* The network namespace is unshared in both (--unshare-all includes it); the
 * host's sysfs still names the host's network devices in /sys/class/net.
 * nonet hides that too, and spells its namespaces out so a bwrap whose
 * --unshare-all meant less could not share the network unnoticed. */
static const bwrap_mount nonet_mounts[] = {
    {"--proc", NULL, "/proc"},           {"--dev", NULL, "/dev"},
    {"--tmpfs", NULL, "/tmp"},           {"--ro-bind-try", "/sys", "/sys"},
    {"--tmpfs", NULL, "/sys/class/net"}, {NULL, NULL, NULL},
};

enum { BWRAP_DEFAULT, BWRAP_NONET };
static const bwrap_variant variants[] = {
    [BWRAP_DEFAULT] = {(const char *const[]){"--unshare-all", NULL}, base_mounts},
    [BWRAP_NONET] = {(const char *const[]){"--unshare-user-try", "--unshare-ipc", "--unshare-pid",
                                           "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                                           NULL},
                     nonet_mounts},
};

typedef struct bwrap_state {
	const bwrap_variant *v;
	isotier_spec_copy spec;
	isotier_root_entry *entries;
	size_t n_entries;
} bwrap_state;

static int bwrap_available(char *why, size_t why_len)
{
	char path[4096];
	if (isotier__find_program(path, sizeof path, "bwrap") != 0) {
		snprintf(why, why_len, "bwrap not found in PATH");
		return 0;
	}
	if (geteuid() != 0) {
		cleanup_free char *max = NULL;
		if (isotier__read_file(&max, NULL, "/proc/sys/user/max_user_namespaces", 64,
		                       NULL) == 0 &&
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
	isotier__provision_root_clear(&s->spec, s->entries, s->n_entries, NULL);
	free(s);
}

static int variant_provision(void **out, const bwrap_variant *v, const isotier_backend_spec *spec,
                             isotier_error *err)
{
	*out = NULL;
	char why[256];
	if (!bwrap_available(why, sizeof why))
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "bwrap: %s", why);
	bwrap_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "bwrap: out of memory");
	s->v = v;
	int rc =
	    isotier__provision_root(&s->spec, &s->entries, &s->n_entries, NULL, NULL, spec, err);
	if (rc) {
		bwrap_destroy(s);
		return isotier__error_prefix(err, "bwrap: provision");
	}
	*out = s;
	return 0;
}

static int bwrap_exec(void *p, const isotier_exec_request *req, int *exit_status,
                      isotier_error *err)
{
	bwrap_state *s = p;
	int rc = isotier__exec_check(req, err);
	if (rc)
		return isotier__error_prefix(err, "bwrap");
	cleanup_argv isotier_argv a = {0};
	const char *base = s->spec.rootfs ? s->spec.rootfs : "";
	isotier__argv_push(&a, "bwrap");
	for (size_t i = 0; s->v->unshare[i]; i++)
		isotier__argv_push(&a, s->v->unshare[i]);
	isotier__argv_push(&a, "--die-with-parent");
	isotier__argv_push(&a, "--new-session");
	isotier__argv_push(&a, "--clearenv");
	isotier__argv_push(&a, "--setenv");
	isotier__argv_push(&a, "PATH");
	isotier__argv_push(&a, "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	isotier__argv_push(&a, "--setenv");
	isotier__argv_push(&a, "HOME");
	isotier__argv_push(&a, "/");
	for (size_t i = 0; i < s->n_entries; i++) {
		const isotier_root_entry *e = &s->entries[i];
		if (e->link) {
			isotier__argv_push(&a, "--symlink");
			isotier__argv_push(&a, e->link);
			isotier__argv_pushf(&a, "/%s", e->name);
		} else {
			isotier__argv_push(&a, "--ro-bind");
			isotier__argv_pushf(&a, "%s/%s", base, e->name);
			isotier__argv_pushf(&a, "/%s", e->name);
		}
	}
	for (const bwrap_mount *m = s->v->mounts; m->flag; m++) {
		isotier__argv_push(&a, m->flag);
		if (m->source)
			isotier__argv_push(&a, m->source);
		isotier__argv_push(&a, m->dest);
	}
	if (s->spec.probe_path) {
		isotier__argv_push(&a, "--ro-bind");
		isotier__argv_push(&a, s->spec.probe_path);
		isotier__argv_push(&a, ISOTIER_GUEST_PROBE);
	}
	if (s->spec.capture_dir) {
		isotier__argv_push(&a, "--bind");
		isotier__argv_push(&a, s->spec.capture_dir);
		isotier__argv_push(&a, ISOTIER_GUEST_CAPTURE);
	}
	isotier__argv_push(&a, "--chdir");
	isotier__argv_push(&a, "/");
	isotier__argv_push(&a, "--");
	for (size_t i = 0; req->argv[i]; i++)
		isotier__argv_push(&a, req->argv[i]);
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "bwrap: out of memory");
	isotier_proc_opts o = isotier__exec_proc_opts(&s->spec, req, a.v);
	rc = isotier__proc_run(&o, exit_status, err);
	if (rc)
		return isotier__error_prefix(err, "bwrap: exec %s", req->argv[0]);
	return 0;
}

/* One descriptor per variant row: provision() learns its row from here. */
#define BWRAP_BACKEND(sym, label, row, claim, shares, text)                                        \
	static int sym##_provision(void **out, const isotier_backend_spec *spec,                   \
	                           isotier_error *err)                                             \
	{                                                                                          \
		return variant_provision(out, &variants[row], spec, err);                          \
	}                                                                                          \
	const isotier_backend isotier__backend_##sym = {                                           \
	    .version = ISOTIER_BACKEND_VERSION,                                                    \
	    .catalogue_id = claim,                                                                 \
	    .shares_claim_with = shares,                                                           \
	    .name = label,                                                                         \
	    .description = text,                                                                   \
	    .available = bwrap_available,                                                          \
	    .provision = sym##_provision,                                                          \
	    .exec = bwrap_exec,                                                                    \
	    .destroy = bwrap_destroy,                                                              \
	    .cpu_in_tree = true,                                                                   \
	};

BWRAP_BACKEND(bwrap, "bwrap", BWRAP_DEFAULT, "bubblewrap", NULL,
              "bubblewrap: all namespaces unshared, read-only root view (CONTAINER)")
BWRAP_BACKEND(bwrap_nonet, "bwrap-nonet", BWRAP_NONET, "bubblewrap", "bwrap",
              "bubblewrap: each namespace unshared by name, the network included, and the "
              "host's network devices hidden from /sys (CONTAINER)")
