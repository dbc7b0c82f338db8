/* SPDX-License-Identifier: Apache-2.0 */
/* dl_git.c - libgit2, loaded on first use (dl_git.h). */
#define ISOTIER_DL_GIT_NO_MAP
#include "dl_git.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static struct isotier__dl_git_syms syms;
static char why[512]; /* set when loading failed */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	/* RTLD_NODELETE: never unmapped, whatever closes it, as it would be
	 * when linked (its atexit handlers and thread-locals stay valid). */
	void *h = dlopen(ISOTIER_DL_GIT_SONAME, RTLD_NOW | RTLD_NODELETE);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, sizeof why,
		         "libgit2 is not available (install the Debian package %s): %s",
		         ISOTIER_DL_GIT_PACKAGE, e ? e : ISOTIER_DL_GIT_SONAME);
		return;
	}
	struct isotier__dl_git_syms t = {0};
#define ISOTIER_DL_LOAD(f)                                                                         \
	if (!why[0] && !(t.f = dlsym(h, #f)))                                                      \
		snprintf(                                                                          \
		    why, sizeof why,                                                               \
		    "%s has no %s: libgit2 is too old or not the one isotier was built against "   \
		    "(install the Debian package %s)",                                             \
		    ISOTIER_DL_GIT_SONAME, #f, ISOTIER_DL_GIT_PACKAGE);
	ISOTIER_DL_GIT_SYMBOLS(ISOTIER_DL_LOAD)
#undef ISOTIER_DL_LOAD
	if (why[0]) {
		dlclose(h);
		return;
	}
	syms = t;
}

int isotier__dl_git_open(isotier_error *err)
{
	pthread_once(&once, load);
	if (why[0])
		return isotier__error_set(err, ISOTIER_EUNAVAILABLE, 0, "%s", why);
	return 0;
}

const struct isotier__dl_git_syms *isotier__dl_git(void)
{
	pthread_once(&once, load);
	if (why[0]) {
		fprintf(stderr, "isotier: %s\n", why);
		abort();
	}
	return &syms;
}
