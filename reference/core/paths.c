/* SPDX-License-Identifier: Apache-2.0 */
/*
 * paths.c - where isotier finds its parts by default: the catalogue, the
 * probe, the guest init, the guest kernels and the schemas.
 *
 * Everything is found from where the running code lives, never from the
 * directory it was built in nor the current directory: an installed isotier
 * must not read a build tree that happens to still exist (or a cwd that
 * happens to hold a catalogue/). Two layouts are known:
 *   installed  PREFIX/bin/isotier (or PREFIX/lib[/TRIPLET]/libisotier.so.0)
 *              with PREFIX/share/isotier and PREFIX/libexec/isotier;
 *   build tree SRC/BUILD/isotier (or SRC/BUILD/tests/x), SRC holding the
 *              catalogue, BUILD the probe and guest init.
 */
#include "paths.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>

/* The directory holding the code that runs: the shared library when
 * libisotier.so serves another program, else the executable. The main
 * program's name from dladdr is argv[0] (a bare "isotier" when run from
 * PATH), so it is read from /proc/self/exe instead. */
static int self_dir(char *dir, size_t len)
{
	Dl_info info;
	struct link_map *map = NULL;
	char path[PATH_MAX];
	if (dladdr1((void *)self_dir, &info, (void **)&map, RTLD_DL_LINKMAP) && info.dli_fname &&
	    map && map->l_name && map->l_name[0] == '/' && realpath(map->l_name, path)) {
		;
	} else {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		if (n <= 0)
			return ISOTIER_ENOTFOUND;
		path[n] = '\0';
	}
	char *slash = strrchr(path, '/');
	if (!slash)
		return ISOTIER_ENOTFOUND;
	*slash = '\0';
	if ((size_t)snprintf(dir, len, "%s", path[0] ? path : "/") >= len)
		return ISOTIER_EINVAL;
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An executable regular file: a directory is "executable" to access(). */
static bool is_exec_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* dir with its last `up` components removed ("/" at the top). */
static void parent(char *dir, int up)
{
	for (int i = 0; i < up; i++) {
		char *slash = strrchr(dir, '/');
		if (!slash)
			return;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int isotier__install_prefix(char *buf, size_t len)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];
	if (self_dir(dir, sizeof dir) != 0)
		return ISOTIER_ENOTFOUND;
	/* bin/ or lib/ are one level under PREFIX, lib/TRIPLET/ two. */
	for (int up = 1; up <= 2; up++) {
		char p[PATH_MAX];
		snprintf(p, sizeof p, "%s", dir);
		parent(p, up);
		snprintf(probe, sizeof probe, "%s/share/isotier", strcmp(p, "/") ? p : "");
		if (is_dir(probe)) {
			if ((size_t)snprintf(buf, len, "%s", strcmp(p, "/") ? p : "") >= len)
				return ISOTIER_EINVAL;
			return 0;
		}
	}
	return ISOTIER_ENOTFOUND;
}

int isotier__install_path(char *buf, size_t len, const char *rel)
{
	char prefix[PATH_MAX];
	if (isotier__install_prefix(prefix, sizeof prefix) != 0)
		return ISOTIER_ENOTFOUND;
	if ((size_t)snprintf(buf, len, "%s/%s", prefix, rel) >= len)
		return ISOTIER_EINVAL;
	return access(buf, F_OK) == 0 ? 0 : ISOTIER_ENOTFOUND;
}

/* The build tree the running code was built in, when it runs from there:
 * src = the checkout (it holds catalogue/FORMAT.md and include/isotier.h),
 * build = the directory of the build (where the probe and guest init are).
 * Only when the code is not installed. */
static int build_tree(char *src, size_t src_len, char *build, size_t build_len)
{
	char dir[PATH_MAX], p[PATH_MAX], f1[PATH_MAX + 32], f2[PATH_MAX + 32];
	if (self_dir(dir, sizeof dir) != 0 || isotier__install_prefix(p, sizeof p) == 0)
		return ISOTIER_ENOTFOUND;
	/* BUILD/isotier: up 1; BUILD/tests/test_x: up 2. */
	for (int up = 1; up <= 2; up++) {
		snprintf(p, sizeof p, "%s", dir);
		parent(p, up);
		snprintf(f1, sizeof f1, "%s/catalogue/FORMAT.md", p);
		snprintf(f2, sizeof f2, "%s/include/isotier.h", p);
		if (access(f1, R_OK) == 0 && access(f2, R_OK) == 0) {
			char b[PATH_MAX];
			snprintf(b, sizeof b, "%s", dir);
			parent(b, up - 1);
			if ((size_t)snprintf(src, src_len, "%s", p) >= src_len ||
			    (size_t)snprintf(build, build_len, "%s", b) >= build_len)
				return ISOTIER_EINVAL;
			return 0;
		}
	}
	return ISOTIER_ENOTFOUND;
}

int isotier__default_data_path(char *buf, size_t len, const char *rel, const char *src_rel)
{
	char src[PATH_MAX], build[PATH_MAX], prefix[PATH_MAX];
	/* Installed: PREFIX/rel, there or not (an error then names it). */
	if (isotier__install_prefix(prefix, sizeof prefix) == 0) {
		if ((size_t)snprintf(buf, len, "%s/%s", prefix, rel) >= len)
			return ISOTIER_EINVAL;
		return access(buf, F_OK) == 0 ? 0 : ISOTIER_ENOTFOUND;
	}
	if (src_rel && build_tree(src, sizeof src, build, sizeof build) == 0) {
		if ((size_t)snprintf(buf, len, "%s/%s", src, src_rel) >= len)
			return ISOTIER_EINVAL;
		return access(buf, F_OK) == 0 ? 0 : ISOTIER_ENOTFOUND;
	}
	/* Neither: the FHS place an installed package keeps it, so an error
	 * names a path a reader can act on, never a cwd-relative one. */
	if ((size_t)snprintf(buf, len, "%s/%s", ISOTIER_FHS_PREFIX, rel) >= len)
		return ISOTIER_EINVAL;
	return access(buf, F_OK) == 0 ? 0 : ISOTIER_ENOTFOUND;
}

const char *isotier__env_data_path(const char *env, char *buf, size_t len, const char *rel,
                                   const char *src_rel)
{
	const char *v = getenv(env);
	if (v && *v)
		return v;
	isotier__default_data_path(buf, len, rel, src_rel);
	return buf;
}

const char *isotier__default_catalogue_dir(void)
{
	static __thread char dir[PATH_MAX];
	return isotier__env_data_path("ISOTIER_CATALOGUE", dir, sizeof dir,
	                              "share/isotier/catalogue/providers", "catalogue/providers");
}

int isotier__default_build_path(char *buf, size_t len, const char *libexec_rel,
                                const char *build_rel)
{
	char src[PATH_MAX], build[PATH_MAX], prefix[PATH_MAX];
	if (isotier__install_prefix(prefix, sizeof prefix) == 0) {
		if ((size_t)snprintf(buf, len, "%s/%s", prefix, libexec_rel) >= len)
			return ISOTIER_EINVAL;
		return is_exec_file(buf) ? 0 : ISOTIER_ENOTFOUND;
	}
	if (build_tree(src, sizeof src, build, sizeof build) == 0) {
		if ((size_t)snprintf(buf, len, "%s/%s", build, build_rel) >= len)
			return ISOTIER_EINVAL;
		return is_exec_file(buf) ? 0 : ISOTIER_ENOTFOUND;
	}
	if ((size_t)snprintf(buf, len, "%s/%s", ISOTIER_FHS_PREFIX, libexec_rel) >= len)
		return ISOTIER_EINVAL;
	return is_exec_file(buf) ? 0 : ISOTIER_ENOTFOUND;
}

int isotier__default_probe_path(char *buf, size_t len)
{
	const char *env = getenv("ISOTIER_PROBE");
	if (env && *env) {
		if ((size_t)snprintf(buf, len, "%s", env) >= len)
			return ISOTIER_EINVAL;
		return is_exec_file(buf) ? 0 : ISOTIER_ENOTFOUND;
	}
	/* Beside the running executable: build/isotier next to build/isotier-probe,
	 * PREFIX/bin/isotier next to PREFIX/bin/isotier-probe. */
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(buf, len, "%s/isotier-probe", exe) < len &&
			    is_exec_file(buf))
				return 0;
		}
	}
	/* An installed library serving another program: PREFIX/bin. */
	return isotier__default_build_path(buf, len, "bin/isotier-probe", "isotier-probe");
}

const char *isotier__catalogue_overlay_dir(void)
{
	const char *env = getenv("ISOTIER_CATALOGUE_OVERLAY");
	if (env)
		return *env ? env : NULL; /* set but empty: no overlay */
	/* Only an installed isotier reads /etc: a checkout's build never
	 * lets a host's operator directory change what its tests see. */
	char prefix[PATH_MAX];
	return isotier__install_prefix(prefix, sizeof prefix) == 0 ? ISOTIER_CATALOGUE_OVERLAY_DIR
	                                                           : NULL;
}

int isotier__catalogue_load_effective(isotier_catalogue **out, const char *dir, bool partial,
                                      isotier_findings *findings, isotier_error *err)
{
	int rc = partial ? isotier__catalogue_load_partial(out, dir, findings, err)
	                 : isotier__catalogue_load(out, dir, findings, err);
	if (rc < 0)
		return rc;
	if ((rc = isotier__catalogue_overlay(*out, isotier__catalogue_overlay_dir(), partial,
	                                     findings, err)) < 0) {
		isotier__catalogue_free(*out);
		*out = NULL;
	}
	return rc;
}

int isotier__default_baseline_path(char *buf, size_t len, const char *catalogue_dir)
{
	/* A directory the package owns (under the installed prefix) is never
	 * written: the baseline lives in the state directory (/var/lib/isotier
	 * for root). Any other catalogue keeps it beside its provider directory. */
	char prefix[PATH_MAX], state[PATH_MAX];
	size_t pl;
	if (isotier__install_prefix(prefix, sizeof prefix) == 0 && (pl = strlen(prefix), true) &&
	    !strncmp(catalogue_dir, prefix, pl) && (pl == 0 || catalogue_dir[pl] == '/') &&
	    isotier__state_dir(state, sizeof state) == 0) {
		if ((size_t)snprintf(buf, len, "%s/sources.lock.json", state) >= len)
			return ISOTIER_EINVAL;
		return 0;
	}
	if ((size_t)snprintf(buf, len, "%s/../sources.lock.json", catalogue_dir) >= len)
		return ISOTIER_EINVAL;
	return 0;
}
