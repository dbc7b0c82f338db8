/* SPDX-License-Identifier: Apache-2.0 */
/* oci.c - OCI bundles for runc and runsc: config.json through cJSON, run, delete. */
#include "oci.h"
#include "../core/lease.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void cjson_deletep(cJSON **j)
{
	cJSON_Delete(*j);
}
#define cleanup_cjson __attribute__((cleanup(cjson_deletep)))

/* `RUNTIME --root STATE GLOBAL-FLAGS...`: how every runtime call starts, so
 * each one sees this bundle's private state and the runtime's own flags. */
static void runtime_argv(isotier_argv *a, const isotier_oci_bundle *b)
{
	if (b->unmount[0])
		isotier__argv_unmounted(a, b->unmount);
	isotier__argv_push(a, b->rt->name);
	isotier__argv_push(a, "--root");
	isotier__argv_pushf(a, "%s/state", b->dir);
	for (size_t i = 0; b->rt->global && b->rt->global[i]; i++)
		isotier__argv_push(a, b->rt->global[i]);
}

/* `RUNTIME --root STATE ... delete -f ID`: a cleanup child, run even when cancelled. */
static void delete_container(const isotier_oci_bundle *b, const char *id)
{
	cleanup_argv isotier_argv a = {0};
	runtime_argv(&a, b);
	isotier__argv_push(&a, "delete");
	isotier__argv_push(&a, "-f");
	isotier__argv_push(&a, id);
	if (a.oom)
		return;
	isotier__proc_cleanup((const char *const *)a.v, 15);
}

/*
 * The container id a state-dir entry stands for: runc keeps a directory named
 * after the id; runsc files "ID_sandbox:ID.state" (and ".lock"). NULL: none.
 */
static const char *state_entry_id(char *out, size_t len, const struct dirent *e)
{
	if (e->d_name[0] == '.')
		return NULL;
	if (e->d_type == DT_DIR) {
		snprintf(out, len, "%s", e->d_name);
		return out;
	}
	const char *sep = strstr(e->d_name, "_sandbox:");
	size_t n = strlen(e->d_name);
	if (!sep || n < 6 || strcmp(e->d_name + n - 6, ".state") != 0 ||
	    (size_t)(sep - e->d_name) >= len)
		return NULL;
	snprintf(out, len, "%.*s", (int)(sep - e->d_name), e->d_name);
	return out;
}

/* Deletes every container still registered in the bundle's private state dir
 * (only = NULL), or just the one with id only. */
static void delete_registered(const isotier_oci_bundle *b, const char *only)
{
	char state[4096];
	snprintf(state, sizeof state, "%s/state", b->dir);
	DIR *d = opendir(state);
	if (!d)
		return;
	struct dirent *e;
	char id[256];
	while ((e = readdir(d))) {
		if (state_entry_id(id, sizeof id, e) && (!only || !strcmp(id, only)))
			delete_container(b, id);
	}
	closedir(d);
}

void isotier__oci_sweep(const isotier_lease *l)
{
	isotier_oci_runtime rt = {.name = l->cli};
	isotier_oci_bundle b = {.rt = &rt, .dir = (char *)l->path};
	snprintf(b.unmount, sizeof b.unmount, "%s", l->wrap ? l->wrap : "");
	delete_registered(&b, NULL);
}

void isotier__oci_destroy(isotier_oci_bundle *b)
{
	if (!b)
		return;
	if (b->dir) {
		delete_registered(b, NULL);
		isotier__lease_drop("oci", strrchr(b->dir, '/') + 1);
	}
	isotier__provision_root_clear(&b->spec, b->entries, b->n_entries, b->dir);
	free(b->written);
	free(b);
}

/* runsc's sandbox and gofer, or a user namespace's root, reach the bundle as
 * an unprivileged user: every ancestor of the bundle must be searchable by
 * others, and so are the bundle and its rootfs (nothing in them is secret:
 * config.json names what the sandbox sees anyway). */
static int open_to_others(const char *dir, isotier_error *err)
{
	if (chmod(dir, 0711) != 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "%s: chmod", dir);
	char path[4096];
	snprintf(path, sizeof path, "%s", dir);
	for (char *slash = strrchr(path, '/'); slash && slash != path; slash = strrchr(path, '/')) {
		*slash = '\0';
		struct stat st;
		if (stat(path, &st) == 0 && !(st.st_mode & S_IXOTH))
			return isotier__error_set(
			    err, ISOTIER_EUNAVAILABLE, 0,
			    "%s (mode %04o) is not searchable by others, which the "
			    "runtime needs: set TMPDIR to a directory that is",
			    path, (unsigned)(st.st_mode & 07777));
	}
	return 0;
}

int isotier__oci_provision(isotier_oci_bundle **out, const isotier_oci_runtime *rt,
                           const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	isotier_oci_bundle *b = calloc(1, sizeof *b);
	if (!b)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	b->rt = rt;
	if (rt->no_hybrid_cgroups)
		isotier__cgroup_hybrid(b->unmount, sizeof b->unmount);
	int rc = isotier__provision_root(&b->spec, &b->entries, &b->n_entries, &b->dir,
	                                 "isotier-bundle", spec, err);
	if (!rc) { /* its containers live in its private state: a sweep deletes them there */
		isotier_lease l = {.kind = "oci",
		                   .backend = rt->name,
		                   .cli = rt->name,
		                   .wrap = b->unmount,
		                   .path = b->dir};
		if (isotier__lease_take(&l, strrchr(b->dir, '/') + 1) < 0)
			rc = isotier__error_set(err, ISOTIER_EIO, errno,
			                        "%s: its bundle's lease could not be written",
			                        rt->name);
	}
	if (!rc && rt->bundle_for_others)
		rc = open_to_others(b->dir, err);
	if (rc) {
		isotier__oci_destroy(b);
		return rc;
	}
	char path[4096];
	const char *subdirs[] = {"rootfs", "state"};
	for (size_t i = 0; i < 2 && !rc; i++) {
		snprintf(path, sizeof path, "%s/%s", b->dir, subdirs[i]);
		if (mkdir(path, 0700) != 0)
			rc = isotier__error_set(err, ISOTIER_EIO, errno, "mkdir %s", path);
	}
	/* The runtimes' helper processes may drop privileges: the root must be traversable. */
	snprintf(path, sizeof path, "%s/rootfs", b->dir);
	if (!rc && (chmod(b->dir, 0711) != 0 || chmod(path, 0755) != 0))
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "chmod %s", path);
	if (!rc)
		rc = isotier__root_symlinks(path, b->entries, b->n_entries, err);
	if (rc) {
		isotier__oci_destroy(b);
		return rc;
	}
	*out = b;
	return 0;
}

static cJSON *str_array(const char *const *v)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && v[i]; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(v[i]))) {
			cJSON_Delete(a);
			return NULL;
		}
	return a;
}

static bool add_mount(cJSON *mounts, const char *dest, const char *type, const char *source,
                      const char *const *options)
{
	cJSON *m = cJSON_CreateObject();
	if (!m || !cJSON_AddItemToArray(mounts, m))
		return false;
	return cJSON_AddStringToObject(m, "destination", dest) &&
	       cJSON_AddStringToObject(m, "type", type) &&
	       cJSON_AddStringToObject(m, "source", source) &&
	       (!options || cJSON_AddItemToObject(m, "options", str_array(options)));
}

static cJSON *build_config(const isotier_oci_bundle *b, const char *const *argv)
{
	static const char *const env[] = {
	    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/", NULL};
	static const char *const caps[] = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE",
	                                   NULL};
	/* runc: "rro" makes submounts read-only too (mount_setattr AT_RECURSIVE). */
	static const char *const rro_bind[] = {"rbind", "ro", "rro", "nosuid", "nodev", NULL};
	static const char *const rw_bind[] = {"rbind", "rw", "nosuid", "nodev", NULL};
	static const char *const ro_file[] = {"bind", "ro", "nosuid", "nodev", NULL};
	static const char *const dev_opts[] = {"nosuid", "strictatime", "mode=755", "size=65536k",
	                                       NULL};
	static const char *const pts_opts[] = {"nosuid",        "noexec",    "newinstance",
	                                       "ptmxmode=0666", "mode=0620", NULL};
	static const char *const shm_opts[] = {"nosuid",    "noexec",      "nodev",
	                                       "mode=1777", "size=65536k", NULL};
	static const char *const tmp_opts[] = {"nosuid", "nodev", "mode=1777", "size=65536k", NULL};
	static const char *const mq_opts[] = {"nosuid", "noexec", "nodev", NULL};
	static const char *const sys_opts[] = {"nosuid", "noexec", "nodev", "ro", NULL};
	static const char *const masked[] = {"/proc/acpi",
	                                     "/proc/asound",
	                                     "/proc/kcore",
	                                     "/proc/keys",
	                                     "/proc/latency_stats",
	                                     "/proc/timer_list",
	                                     "/proc/timer_stats",
	                                     "/proc/sched_debug",
	                                     "/sys/firmware",
	                                     "/proc/scsi",
	                                     NULL};
	static const char *const ro_paths[] = {
	    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL};
	static const char *const ns[] = {"pid", "network", "ipc", "uts", "mount", NULL};

	cJSON *c = cJSON_CreateObject();
	if (!c)
		return NULL;
	bool ok = cJSON_AddStringToObject(c, "ociVersion", "1.0.2") != NULL;
	cJSON *proc = cJSON_AddObjectToObject(c, "process");
	ok = ok && proc && cJSON_AddBoolToObject(proc, "terminal", 0);
	cJSON *user = proc ? cJSON_AddObjectToObject(proc, "user") : NULL;
	ok = ok && user && cJSON_AddNumberToObject(user, "uid", 0) &&
	     cJSON_AddNumberToObject(user, "gid", 0);
	ok = ok && cJSON_AddItemToObject(proc, "args", str_array(argv));
	ok = ok && cJSON_AddItemToObject(proc, "env", str_array(env));
	ok = ok && cJSON_AddStringToObject(proc, "cwd", "/");
	cJSON *capo = proc ? cJSON_AddObjectToObject(proc, "capabilities") : NULL;
	const char *const sets[] = {"bounding", "effective", "permitted", "ambient"};
	for (size_t i = 0; ok && capo && i < 4; i++)
		ok = cJSON_AddItemToObject(capo, sets[i], str_array(caps));
	ok = ok && capo && cJSON_AddBoolToObject(proc, "noNewPrivileges", 1);
	cJSON *root = cJSON_AddObjectToObject(c, "root");
	ok = ok && root && cJSON_AddStringToObject(root, "path", "rootfs") &&
	     cJSON_AddBoolToObject(root, "readonly", 1);
	ok = ok && cJSON_AddStringToObject(c, "hostname", "isotier");
	cJSON *mounts = cJSON_AddArrayToObject(c, "mounts");
	ok = ok && mounts && add_mount(mounts, "/proc", "proc", "proc", NULL) &&
	     add_mount(mounts, "/dev", "tmpfs", "tmpfs", dev_opts) &&
	     add_mount(mounts, "/dev/pts", "devpts", "devpts", pts_opts) &&
	     add_mount(mounts, "/dev/shm", "tmpfs", "shm", shm_opts) &&
	     add_mount(mounts, "/dev/mqueue", "mqueue", "mqueue", mq_opts) &&
	     add_mount(mounts, "/sys", "sysfs", "sysfs", sys_opts) &&
	     add_mount(mounts, "/tmp", "tmpfs", "tmpfs", tmp_opts);
	const char *base = b->spec.rootfs ? b->spec.rootfs : "";
	for (size_t i = 0; ok && i < b->n_entries; i++) {
		if (b->entries[i].link)
			continue;
		char src[4096], dst[4096];
		snprintf(src, sizeof src, "%s/%s", base, b->entries[i].name);
		snprintf(dst, sizeof dst, "/%s", b->entries[i].name);
		ok = add_mount(mounts, dst, "bind", src, rro_bind);
	}
	if (ok && b->spec.probe_path)
		ok = add_mount(mounts, ISOTIER_GUEST_PROBE, "bind", b->spec.probe_path, ro_file);
	if (ok && b->spec.capture_dir)
		ok = add_mount(mounts, ISOTIER_GUEST_CAPTURE, "bind", b->spec.capture_dir, rw_bind);
	cJSON *linux_ = cJSON_AddObjectToObject(c, "linux");
	cJSON *nsa = linux_ ? cJSON_AddArrayToObject(linux_, "namespaces") : NULL;
	for (size_t i = 0; ok && nsa && ns[i]; i++) {
		cJSON *n = cJSON_CreateObject();
		ok = n && cJSON_AddItemToArray(nsa, n) && cJSON_AddStringToObject(n, "type", ns[i]);
	}
	ok = ok && nsa && cJSON_AddItemToObject(linux_, "maskedPaths", str_array(masked)) &&
	     cJSON_AddItemToObject(linux_, "readonlyPaths", str_array(ro_paths));
	if (!ok) {
		cJSON_Delete(c);
		return NULL;
	}
	return c;
}

int isotier__oci_drop_mount(cJSON *config, const char *dest)
{
	cJSON *mounts = cJSON_GetObjectItemCaseSensitive(config, "mounts");
	int i = 0;
	for (cJSON *m = mounts ? mounts->child : NULL; m; m = m->next, i++) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(m, "destination");
		if (cJSON_IsString(d) && !strcmp(d->valuestring, dest)) {
			cJSON_DeleteItemFromArray(mounts, i);
			return 1;
		}
	}
	return 0;
}

void isotier__oci_drop_option(cJSON *config, const char *option)
{
	cJSON *mounts = cJSON_GetObjectItemCaseSensitive(config, "mounts");
	for (cJSON *m = mounts ? mounts->child : NULL; m; m = m->next) {
		cJSON *opts = cJSON_GetObjectItemCaseSensitive(m, "options");
		int i = 0;
		for (cJSON *o = opts ? opts->child : NULL; o; i++) {
			cJSON *next = o->next;
			if (cJSON_IsString(o) && !strcmp(o->valuestring, option))
				cJSON_DeleteItemFromArray(opts, i--);
			o = next;
		}
	}
}

int isotier__oci_write_config(isotier_oci_bundle *b, const char *const *argv, isotier_error *err)
{
	cleanup_cjson cJSON *c = build_config(b, argv);
	if (!c)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "config.json: out of memory");
	if (b->rt->configure) {
		int rc = b->rt->configure(c, b, err);
		if (rc < 0)
			return isotier__error_prefix(err, "config.json");
	}
	cleanup_free char *text = cJSON_PrintUnformatted(c);
	if (!text)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "config.json: out of memory");
	char path[4096];
	snprintf(path, sizeof path, "%s/config.json", b->dir);
	int rc = isotier__write_file(path, text, strlen(text), 0600, err);
	if (rc == 0) {
		/* Kept to compare with what the runtime leaves (inputs_intact). */
		free(b->written);
		b->written = text;
		text = NULL;
	}
	return rc;
}

#define CONFIG_READ_MAX (4 * 1024 * 1024)

/*
 * Whether the bundle's config.json is still the bytes isotier wrote: a
 * runtime (a wrapper a runtime configuration names) that edits it before
 * the container starts adds mounts, hooks or masks isotier did not ask for,
 * and what the sandbox then shows proves nothing about the bundle isotier
 * made. Read while the probe waits, after the runtime has read it.
 */
int isotier__oci_backend_inputs_intact(void *bundle, char *why, size_t why_len)
{
	isotier_oci_bundle *b = bundle;
	if (!b || !b->written)
		return 1; /* nothing written: nothing ran from it */
	char path[4096];
	snprintf(path, sizeof path, "%s/config.json", b->dir);
	FILE *f = fopen(path, "rbe");
	if (!f) {
		snprintf(why, why_len, "the bundle's config.json is gone (%s)", strerror(errno));
		return 0;
	}
	size_t want = strlen(b->written);
	char *got = malloc(want + 2);
	size_t n = got ? fread(got, 1, want + 1, f) : 0;
	fclose(f);
	bool same = got && n == want && memcmp(got, b->written, want) == 0;
	free(got);
	if (!same)
		snprintf(
		    why, why_len,
		    "the bundle's config.json is not what isotier wrote (%zu bytes, %zu "
		    "written): the runtime was given mounts, hooks or masks isotier did not add",
		    n, want);
	return same;
}

int isotier__oci_exec(isotier_oci_bundle *b, const isotier_exec_request *req, int *exit_status,
                      isotier_error *err)
{
	int rc = isotier__exec_check(req, err);
	if (!rc)
		rc = isotier__oci_write_config(b, req->argv, err);
	if (rc)
		return rc;
	char id[96];
	isotier__unique_id(id, sizeof id);
	cleanup_argv isotier_argv a = {0};
	runtime_argv(&a, b);
	isotier__argv_push(&a, "run");
	isotier__argv_push(&a, "--bundle");
	isotier__argv_push(&a, b->dir);
	isotier__argv_push(&a, id);
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	int timeout_s = isotier__exec_timeout(&b->spec, req);
	int64_t deadline = isotier__now_ms() + (int64_t)timeout_s * 1000;
	int cancel_fd = isotier__exec_cancel_fd(&b->spec, req);
	isotier_relay out = {.fd = req->stdout_fd >= 0 ? req->stdout_fd : STDOUT_FILENO,
	                     .deadline_ms = deadline,
	                     .cancel_fd = cancel_fd};
	isotier_relay errr = {.fd = req->stderr_fd >= 0 ? req->stderr_fd : STDERR_FILENO,
	                      .deadline_ms = deadline,
	                      .cancel_fd = cancel_fd};
	isotier_proc_opts o = {
	    .argv = (const char *const *)a.v,
	    .stdin_fd = req->stdin_fd,
	    .stdout_fd = req->stdout_fd,
	    .stderr_fd = req->stderr_fd,
	    .timeout_s = timeout_s,
	    .cancel_fd = cancel_fd,
	};
	if (b->rt->relay_output) {
		o.out_sink = isotier__relay_sink;
		o.out_sink_ctx = &out;
		o.err_sink = isotier__relay_sink;
		o.err_sink_ctx = &errr;
	}
	rc = isotier__proc_run(&o, exit_status, err);
	/* runc/runsc remove a container that ran to its end; anything else is deleted now. */
	delete_registered(b, id);
	return rc;
}

int isotier__oci_available(const isotier_oci_runtime *rt, char *why, size_t why_len)
{
	char path[4096];
	if (isotier__find_program(path, sizeof path, rt->name) != 0) {
		snprintf(why, why_len, "%s not found in PATH", rt->name);
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, why_len, "%s needs root here (rootless mode is not configured)",
		         rt->name);
		return 0;
	}
	char hybrid[64], unshare[4096];
	bool hide = rt->no_hybrid_cgroups && isotier__cgroup_hybrid(hybrid, sizeof hybrid);
	if (hide && isotier__find_program(unshare, sizeof unshare, "unshare") != 0) {
		snprintf(why, why_len,
		         "%s refuses hybrid cgroups (controllers on %s) and unshare(1), which "
		         "hides that mount from it, is not in PATH",
		         rt->name, hybrid);
		return 0;
	}
	char note[256] = "";
	if (hide)
		snprintf(note, sizeof note,
		         "hybrid cgroups: run without %s in a private mount namespace", hybrid);
	else if (rt->note)
		snprintf(note, sizeof note, "%s", rt->note);
	snprintf(why, why_len, "%s%s%s%s", path, *note ? " (" : "", note, *note ? ")" : "");
	return 1;
}

int isotier__oci_backend_provision(void **out, const isotier_oci_runtime *rt,
                                   const isotier_backend_spec *spec, isotier_error *err)
{
	*out = NULL;
	char why[256];
	if (!isotier__oci_available(rt, why, sizeof why))
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s: %s", rt->name, why);
	isotier_oci_bundle *b = NULL;
	if (isotier__oci_provision(&b, rt, spec, err))
		return isotier__error_prefix(err, "%s: provision", rt->name);
	*out = b;
	return 0;
}

int isotier__oci_backend_exec(void *bundle, const isotier_exec_request *req, int *exit_status,
                              isotier_error *err)
{
	isotier_oci_bundle *b = bundle;
	if (isotier__oci_exec(b, req, exit_status, err))
		return isotier__error_prefix(err, "%s: exec %s", b->rt->name,
		                             req && req->argv && req->argv[0] ? req->argv[0] : "");
	return 0;
}

void isotier__oci_backend_destroy(void *bundle)
{
	isotier__oci_destroy(bundle);
}
