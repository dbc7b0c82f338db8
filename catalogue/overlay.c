/* SPDX-License-Identifier: Apache-2.0 */
/* overlay.c - an operator's catalogue directory over the packaged one
 * (/etc/isotier/catalogue.d on an installed host, reference/core/paths.h): an
 * entry there replaces the packaged entry of the same id, or adds one. */
#include "catalogue.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int by_id(const void *a, const void *b)
{
	const isotier_provider *x = a, *y = b;
	if (!x->id || !y->id)
		return !x->id - !y->id;
	return strcmp(x->id, y->id);
}

int isotier__catalogue_overlay(isotier_catalogue *c, const char *overlay_dir, bool partial,
                               isotier_findings *findings, isotier_error *err)
{
	struct stat st;
	if (!overlay_dir || !*overlay_dir)
		return 0;
	if (stat(overlay_dir, &st) != 0) {
		if (errno == ENOENT)
			return 0; /* no operator directory: the packaged catalogue alone */
		return isotier__error_set(err, ISOTIER_EIO, errno, "catalogue overlay %s",
		                          overlay_dir);
	}
	isotier_catalogue *o = NULL;
	int rc = partial ? isotier__catalogue_load_partial(&o, overlay_dir, findings, err)
	                 : isotier__catalogue_load(&o, overlay_dir, findings, err);
	if (rc < 0)
		return isotier__error_prefix(err, "catalogue overlay");
	isotier_provider *grown =
	    realloc(c->providers, (c->n_providers + o->n_providers + 1) * sizeof *grown);
	if (!grown) {
		isotier__catalogue_free(o);
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	c->providers = grown;
	for (size_t i = 0; i < o->n_providers; i++) {
		isotier_provider *p = &o->providers[i];
		isotier_provider *same = NULL;
		for (size_t j = 0; p->id && j < c->n_providers && !same; j++)
			if (c->providers[j].id && !strcmp(c->providers[j].id, p->id))
				same = &c->providers[j];
		if (same)
			isotier__provider_clear(same);
		else
			same = &c->providers[c->n_providers++];
		*same = *p; /* moved: o keeps nothing of it */
		memset(p, 0, sizeof *p);
	}
	qsort(c->providers, c->n_providers, sizeof *c->providers, by_id);
	isotier__catalogue_free(o);
	return 0;
}
