/* SPDX-License-Identifier: Apache-2.0 */
/* engine.c - Docker and Podman sandboxes through their CLI (see engine.h): provision, exec,
 * destroy, sweep; each call to the CLI, and whether the engine can run here, in engine_cli.c. */
#include "engine.h"
#include "../evidence/host_watch.h"
#include "../core/lease.h"
#include "../core/paths.h"

#include <openssl/evp.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct engine_state {
	const isotier_engine *e;
	isotier_spec_copy spec;
	isotier_root_entry *entries;
	size_t n_entries;
	char *dir;        /* private temp dir: root/ (and root.tar while importing) */
	char id[96];      /* this sandbox: the isotier.sandbox label of its containers */
	char image[160];  /* docker: the imported image's tag; "" before the import */
	char unmount[64]; /* podman on hybrid cgroups: the cgroup2 mount to hide */
} engine_state;

/* The engine's CLI for s (engine_cli.c): its unshare wrapper and cancel descriptor. */
static void engine_argv(isotier_argv *a, const engine_state *s)
{
	isotier__engine_argv(a, s->e, s->unmount);
}

static int engine_call(const engine_state *s, const char *const *args, isotier_capture *out,
                       int flags, int *status, isotier_error *err)
{
	return isotier__engine_call(s->e, s->unmount, s->spec.cancel_fd, args, out, flags, status,
	                            err);
}

/* A container or image id as the CLI prints it: 12 to 64 lowercase hex digits. */
static bool hex_id(const char *s, size_t n)
{
	if (n < 12 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return false;
	return true;
}

/* `rm -f` every container labelled with this sandbox's id (a cleanup child: runs even
 * after an interrupt). Covers a container the daemon created after its CLI was killed. */
static void remove_containers(const engine_state *s)
{
	char filter[160];
	snprintf(filter, sizeof filter, "label=isotier.sandbox=%s", s->id);
	const char *const ps[] = {"ps", "-aq", "--filter", filter, NULL};
	isotier_capture out = {.max = 64 * 1024};
	int st;
	if (engine_call(s, ps, &out, ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET, &st, NULL) == 0 &&
	    st == 0 && out.data) {
		cleanup_argv isotier_argv a = {0};
		isotier__argv_push(&a, "rm");
		isotier__argv_push(&a, "-f");
		if (s->e->podman) { /* no 10 s grace for a PID 1 that ignores SIGTERM: kill now */
			isotier__argv_push(&a, "--time");
			isotier__argv_push(&a, "0");
		}
		size_t n = 0;
		for (char *line = out.data, *next; line && *line && n < 256; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			if (hex_id(line, strlen(line))) {
				isotier__argv_push(&a, line);
				n++;
			}
		}
		if (n && !a.oom)
			engine_call(s, (const char *const *)a.v, NULL,
			            ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET, &st, NULL);
	}
	free(out.data);
}

/* The lease for a container or image of s named name (lease.h). */
static int engine_lease(const engine_state *s, const char *kind, const char *name)
{
	isotier_lease l = {.kind = kind,
	                   .backend = s->e->backend,
	                   .cli = s->e->cli,
	                   .wrap = s->unmount,
	                   .name = name,
	                   .global = s->e->podman && s->e->runtime ? s->e->runtime : ""};
	return isotier__lease_take(&l, name);
}

/* `rm -f [--time 0] NAME` (a cleanup child). */
static void remove_by_name(const engine_state *s, const char *name)
{
	const char *const docker_rm[] = {"rm", "-f", name, NULL};
	const char *const podman_rm[] = {"rm", "-f", "--time", "0", name, NULL};
	int st;
	engine_call(s, s->e->podman ? podman_rm : docker_rm, NULL,
	            ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET, &st, NULL);
}

struct cancel_ctx {
	const engine_state *s;
	const char *name;
};

/* A cancel during `run`: the engine removes its own container, and its client
 * then ends by itself. Killing the client instead, mid-create, leaves the
 * container (and podman's conmon and `crun create`) running, unlisted. */
static void cancel_run(void *p)
{
	const struct cancel_ctx *c = p;
	remove_by_name(c->s, c->name);
}

void isotier__engine_sweep(const isotier_lease *l)
{
	isotier_engine e = {.backend = l->backend,
	                    .cli = l->cli,
	                    .podman = !strcmp(l->cli, "podman"),
	                    .runtime = l->global && *l->global ? l->global : NULL};
	engine_state s = {.e = &e, .spec = {.cancel_fd = -1}};
	snprintf(s.unmount, sizeof s.unmount, "%s", l->wrap ? l->wrap : "");
	if (!strcmp(l->kind, "image")) {
		const char *const rmi[] = {"rmi", "-f", l->name, NULL};
		const char *const inspect[] = {"image", "inspect", "--format", "x", l->name, NULL};
		int st;
		engine_call(&s, rmi, NULL, ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET, &st, NULL);
		/* The daemon finishes an import whose client died with its run (within
		 * a second here): watch for the tag for 3 s more, removing it again. */
		for (int i = 0; i < 12; i++) {
			struct timespec ts = {0, 250 * 1000000L};
			nanosleep(&ts, NULL);
			if (engine_call(&s, inspect, NULL,
			                ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET, &st,
			                NULL) == 0 &&
			    st == 0)
				engine_call(&s, rmi, NULL,
				            ISOTIER_PROC_CLEANUP | ISOTIER_PROC_QUIET, &st, NULL);
		}
	} else {
		remove_by_name(&s, l->name);
	}
}

void isotier__engine_destroy(void *p)
{
	engine_state *s = p;
	if (!s)
		return;
	if (s->id[0])
		remove_containers(s);
	/* s->image is shared by every run of the same probe: kept (see import_image). */
	isotier__provision_root_clear(&s->spec, s->entries, s->n_entries, s->dir);
	free(s);
}

/* The root the containers start from (see engine.h). */
static int write_root(engine_state *s, isotier_error *err)
{
	char path[4096];
	static const char *const dirs[] = {"root",      "root/.isotier", "root/.isotier/capture",
	                                   "root/proc", "root/dev",      "root/sys",
	                                   "root/tmp"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", s->dir, dirs[i]);
		if (mkdir(path, i == 6 ? 01777 : 0755) != 0 || chmod(path, i == 6 ? 01777 : 0755))
			return isotier__error_set(err, ISOTIER_EIO, errno, "mkdir %s", path);
	}
	if (chmod(s->dir, 0711) != 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "chmod %s", s->dir);
	if (s->spec.probe_path) {
		snprintf(path, sizeof path, "%s/root%s", s->dir, ISOTIER_GUEST_PROBE);
		int rc = isotier__copy_file(path, s->spec.probe_path, 0755, err);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < s->n_entries; i++) {
		snprintf(path, sizeof path, "%s/root/%s", s->dir, s->entries[i].name);
		if (s->entries[i].link ? symlink(s->entries[i].link, path) != 0
		                       : mkdir(path, 0755) != 0)
			return isotier__error_set(err, ISOTIER_EIO, errno, "create %s", path);
	}
	return 0;
}

/* Docker: the root as an image built from scratch (`docker import` of a tar: no
 * registry, no builder), once per content: tagged isotier-probe:<digest> of the
 * probe's SHA-256 and the root's entries, labelled isotier.probe=<digest>, and
 * reused by every later run with the same content. It is not leased: it is no
 * run's leftover, so the sweep leaves it; an import cut short leaves either no
 * tag or the whole image, which the next run reuses. */
static int image_tag(const engine_state *s, char *tag, size_t len, char *digest, size_t dlen,
                     isotier_error *err)
{
	char probe[65] = "none";
	int rc = s->spec.probe_path ? isotier__file_sha256(s->spec.probe_path, probe, err) : 0;
	if (rc)
		return rc;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "image digest: out of memory");
	}
	char line[8400];
	int n = snprintf(line, sizeof line, "isotier-image/1\nprobe %s\n", probe);
	EVP_DigestUpdate(ctx, line, (size_t)n);
	for (size_t i = 0; i < s->n_entries; i++) {
		n = snprintf(line, sizeof line, "%s\t%s\n", s->entries[i].name,
		             s->entries[i].link ? s->entries[i].link : "/");
		EVP_DigestUpdate(ctx, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	int ok = EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	if (!ok || mdlen < 12 || dlen < 25)
		return isotier__error_set(err, ISOTIER_EIO, 0, "image digest");
	for (int i = 0; i < 12; i++)
		snprintf(digest + 2 * i, 3, "%02x", md[i]);
	snprintf(tag, len, "isotier-probe:%s", digest);
	return 0;
}

/* The image is there already: `image inspect` answers with its id. */
static bool image_exists(const engine_state *s, const char *tag)
{
	const char *const inspect[] = {"image", "inspect", "--format", "{{.Id}}", tag, NULL};
	isotier_capture out = {.max = 256};
	int st = -1;
	int rc = engine_call(s, inspect, &out, ISOTIER_PROC_QUIET, &st, NULL);
	bool ok = !rc && st == 0 && out.data && !strncmp(out.data, "sha256:", 7) &&
	          hex_id(out.data + 7, strcspn(out.data + 7, "\n"));
	free(out.data);
	return ok;
}

static int import_image(engine_state *s, isotier_error *err)
{
	char tag[160], digest[32];
	int rc = image_tag(s, tag, sizeof tag, digest, sizeof digest, err);
	if (rc)
		return rc;
	snprintf(s->image, sizeof s->image, "%s", tag);
	if (image_exists(s, tag))
		return 0;
	char tar[4096], root[4096];
	snprintf(tar, sizeof tar, "%s/root.tar", s->dir);
	snprintf(root, sizeof root, "%s/root", s->dir);
	const char *const targv[] = {"tar", "--numeric-owner", "-cf", tar, "-C", root, ".", NULL};
	isotier_capture terr = {.max = 1024};
	isotier_proc_opts o = {.argv = targv,
	                       .stdin_fd = -1,
	                       .stdout_fd = -1,
	                       .stderr_fd = -1,
	                       .err_capture = &terr,
	                       .timeout_s = ISOTIER_ENGINE_CALL_TIMEOUT_S,
	                       .cancel_fd = s->spec.cancel_fd};
	int st = -1;
	rc = isotier__proc_run(&o, &st, err);
	if (!rc && st != 0)
		rc = isotier__error_set(err, ISOTIER_EIO, 0, "tar: exit %d: %.200s", st,
		                        terr.data ? terr.data : "");
	free(terr.data);
	if (rc)
		return rc;
	char label[160];
	snprintf(label, sizeof label, "LABEL isotier.probe=%s", digest);
	const char *const imp[] = {"import", "--change", label, tar, tag, NULL};
	isotier_capture out = {.max = 4096};
	rc = engine_call(s, imp, &out, 0, NULL, err);
	if (!rc) {
		const char *d = out.data ? out.data : "";
		size_t n = strcspn(d, "\n");
		if (strncmp(d, "sha256:", 7) != 0 || !hex_id(d + 7, n - 7) || n != 71)
			rc = isotier__error_set(err, ISOTIER_EDATA, 0,
			                        "docker import: unexpected answer (%zu bytes)",
			                        out.len);
	}
	free(out.data);
	unlink(tar);
	return rc;
}

int isotier__engine_provision(void **out, const isotier_engine *e, const isotier_backend_spec *spec,
                              isotier_error *err)
{
	*out = NULL;
	char why[1024], cli[4096];
	/* The daemon's facts (its /info) were asked by available() already:
	 * here only what is free to check; the image inspect proves the daemon
	 * answers, and a runtime it lacks fails the run, never passes it. */
	if (e->podman ? !isotier__engine_available(e, why, sizeof why)
	              : isotier__find_program(cli, sizeof cli, e->cli) != 0 || geteuid() != 0) {
		if (!e->podman)
			snprintf(why, sizeof why, "%s not found in PATH, or not root", e->cli);
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s: %s", e->backend, why);
	}
	engine_state *s = calloc(1, sizeof *s);
	if (!s)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", e->backend);
	s->e = e;
	if (e->podman)
		isotier__cgroup_hybrid(s->unmount, sizeof s->unmount);
	int rc = isotier__provision_root(&s->spec, &s->entries, &s->n_entries, &s->dir,
	                                 "isotier-engine", spec, err);
	if (!rc)
		rc = write_root(s, err);
	if (!rc) {
		isotier__unique_id(s->id, sizeof s->id);
		if (!e->podman)
			rc = import_image(s, err);
	}
	if (rc) {
		isotier__engine_destroy(s);
		return isotier__error_prefix(err, "%s: provision", e->backend);
	}
	*out = s;
	return 0;
}

/* --mount type=bind,source=SRC,target=DST[,readonly]; a comma would split the option. */
static int push_bind(isotier_argv *a, const char *src, const char *dst, bool ro, isotier_error *err)
{
	if (strchr(src, ',') || strchr(dst, ','))
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "bind mount path with a comma: %s", src);
	isotier__argv_push(a, "--mount");
	isotier__argv_pushf(a, "type=bind,source=%s,target=%s%s", src, dst, ro ? ",readonly" : "");
	return 0;
}

/* Podman's default rlimits exceed the hard limits of some hosts (here nofile 20000):
 * ask for 1024 or the hard limit, whichever is lower. */
static void push_ulimits(isotier_argv *a)
{
	static const struct {
		int res;
		const char *name;
	} lim[] = {{RLIMIT_NOFILE, "nofile"}, {RLIMIT_NPROC, "nproc"}};
	for (size_t i = 0; i < 2; i++) {
		struct rlimit rl;
		unsigned long long v = 1024;
		if (getrlimit(lim[i].res, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
		    rl.rlim_max < v)
			v = rl.rlim_max;
		isotier__argv_push(a, "--ulimit");
		isotier__argv_pushf(a, "%s=%llu:%llu", lim[i].name, v, v);
	}
}

int isotier__engine_exec(void *p, const isotier_exec_request *req, int *exit_status,
                         isotier_error *err)
{
	engine_state *s = p;
	const isotier_engine *e = s->e;
	int rc = isotier__exec_check(req, err);
	if (rc)
		return isotier__error_prefix(err, "%s", e->backend);
	char name[96], label[160];
	isotier__unique_id(name, sizeof name);
	snprintf(label, sizeof label, "isotier.sandbox=%s", s->id);
	cleanup_argv isotier_argv a = {0};
	engine_argv(&a, s);
	isotier__argv_push(&a, "run");
	isotier__argv_push(&a, "--rm");
	isotier__argv_push(&a, "--name");
	isotier__argv_push(&a, name);
	isotier__argv_push(&a, "--label");
	isotier__argv_push(&a, label);
	isotier__argv_push(&a, "--network");
	isotier__argv_push(&a, "none");
	isotier__argv_push(&a, "--read-only");
	isotier__argv_push(&a, "--hostname");
	isotier__argv_push(&a, "isotier");
	/* The container's id, written by the engine when it creates it: the
	 * host's watch counts a runsc the daemon starts only when it (or an
	 * ancestor, the shim or conmon) names this id (host_sighting.h). */
	char cidfile[4200];
	snprintf(cidfile, sizeof cidfile, "%s/cid-%s", s->dir, name);
	isotier__argv_pushf(&a, "--cidfile=%s", cidfile);
	if (req->stdin_fd >= 0)
		isotier__argv_push(&a, "-i");
	if (e->runtime && !e->podman) {
		isotier__argv_push(&a, "--runtime");
		isotier__argv_push(&a, e->runtime);
	}
	if (e->podman)
		push_ulimits(&a);
	else
		isotier__argv_push(&a, "--tmpfs=/tmp"); /* podman's --read-only brings its own */
	if (s->spec.capture_dir)
		rc = push_bind(&a, s->spec.capture_dir, ISOTIER_GUEST_CAPTURE, false, err);
	const char *base = s->spec.rootfs ? s->spec.rootfs : "";
	for (size_t i = 0; !rc && i < s->n_entries; i++) {
		if (s->entries[i].link)
			continue;
		char src[4096], dst[4096];
		snprintf(src, sizeof src, "%s/%s", base, s->entries[i].name);
		snprintf(dst, sizeof dst, "/%s", s->entries[i].name);
		rc = push_bind(&a, src, dst, true, err);
	}
	if (rc)
		return isotier__error_prefix(err, "%s: exec", e->backend);
	if (e->podman) {
		isotier__argv_push(&a, "--rootfs");
		isotier__argv_pushf(&a, "%s/root", s->dir);
	} else {
		isotier__argv_push(&a, s->image);
	}
	for (size_t i = 0; req->argv[i]; i++)
		isotier__argv_push(&a, req->argv[i]);
	if (a.oom)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", e->backend);
	isotier_proc_opts o = isotier__exec_proc_opts(&s->spec, req, a.v);
	o.on_cancel = cancel_run;
	o.on_cancel_ctx = &(struct cancel_ctx){.s = s, .name = name};
	/* No lease, no container: a SIGKILL after it starts would leave it for
	 * no sweep to find. */
	if (engine_lease(s, "container", name) < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno,
		                          "%s: exec %s: the container's lease could not be written",
		                          e->backend, req->argv[0]);
	isotier__host_watch_note_cidfile(cidfile);
	rc = isotier__proc_run(&o, exit_status, err);
	unlink(cidfile);
	/* A killed CLI leaves its container running; an engine error (125) may leave one. */
	if (rc || *exit_status >= 125)
		remove_containers(s);
	isotier__lease_drop("container", name);
	if (rc)
		return isotier__error_prefix(err, "%s: exec %s", e->backend, req->argv[0]);
	return 0;
}
