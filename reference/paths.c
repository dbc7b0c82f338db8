/* paths.c - where isotier finds its catalogue and its probe by default. */
#include "paths.h"

#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#ifndef ISOTIER_SOURCE_DIR
#define ISOTIER_SOURCE_DIR "."
#endif

/*
 * PREFIX/rel for an installed isotier, found from where this code was loaded
 * from (PREFIX/lib/libisotier.so.0, or PREFIX/bin/isotier when linked
 * statically): an install can be moved, and a build tree has no PREFIX/share.
 * 0 when that path exists.
 */
int isotier_install_path(char *buf, size_t len, const char *rel)
{
	Dl_info info;
	if (!dladdr((void *)isotier_install_path, &info) || !info.dli_fname)
		return ISOTIER_ENOTFOUND;
	char self[PATH_MAX];
	if (!realpath(info.dli_fname, self))
		return ISOTIER_ENOTFOUND;
	for (int up = 0; up < 2; up++) { /* .../lib/x.so -> ... */
		char *slash = strrchr(self, '/');
		if (!slash)
			return ISOTIER_ENOTFOUND;
		*slash = '\0';
	}
	if ((size_t)snprintf(buf, len, "%s/%s", self[0] ? self : "", rel) >= len)
		return ISOTIER_EINVAL;
	return access(buf, F_OK) == 0 ? 0 : ISOTIER_ENOTFOUND;
}

const char *isotier_default_catalogue_dir(void)
{
	static __thread char installed[PATH_MAX];
	const char *env = getenv("ISOTIER_CATALOGUE");
	if (env && *env)
		return env;
	if (isotier_install_path(installed, sizeof installed, "share/isotier/catalogue/providers") == 0)
		return installed;
	if (access(ISOTIER_SOURCE_DIR "/catalogue/providers", R_OK) == 0)
		return ISOTIER_SOURCE_DIR "/catalogue/providers";
	return "catalogue/providers";
}

/* An executable regular file: a directory is "executable" to access(). */
static bool is_exec_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int isotier_default_probe_path(char *buf, size_t len)
{
	const char *env = getenv("ISOTIER_PROBE");
	if (env && *env) {
		if ((size_t)snprintf(buf, len, "%s", env) >= len)
			return ISOTIER_EINVAL;
		return is_exec_file(buf) ? 0 : ISOTIER_ENOTFOUND;
	}
	/* Beside the running executable: build/isotier next to build/isotier-probe. */
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
	if (isotier_install_path(buf, len, "bin/isotier-probe") == 0 && access(buf, X_OK) == 0)
		return 0;
	if ((size_t)snprintf(buf, len, "%s/build/isotier-probe", ISOTIER_SOURCE_DIR) >= len)
		return ISOTIER_EINVAL;
	return is_exec_file(buf) ? 0 : ISOTIER_ENOTFOUND;
}
