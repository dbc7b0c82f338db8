/* SPDX-License-Identifier: Apache-2.0 */
/* lookup.c - finding entries in a loaded catalogue: by id, by an earlier id
 * (renamed_from); an offering's status and group. */
#include "catalogue.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

const isotier_provider *isotier__catalogue_find(const isotier_catalogue *c, const char *id)
{
	if (!c || !id)
		return NULL;
	size_t lo = 0, hi = c->n_providers;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(c->providers[mid].id ? c->providers[mid].id : "", id);
		if (cmp == 0)
			return &c->providers[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const isotier_provider *isotier__catalogue_find_renamed(const isotier_catalogue *c,
                                                        const char *old_id)
{
	for (size_t i = 0; c && old_id && i < c->n_providers; i++)
		for (size_t j = 0; j < c->providers[i].n_renamed_from; j++)
			if (c->providers[i].renamed_from[j] &&
			    !strcmp(c->providers[i].renamed_from[j], old_id))
				return &c->providers[i];
	return NULL;
}

const char *isotier__catalogue_current_id(char *out, size_t len, const char *dir, const char *id)
{
	snprintf(out, len, "%s", id ? id : "");
	if (!dir || !id || !id[0] || strchr(id, '/'))
		return out;
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s.json", dir, id);
	if (stat(path, &st) == 0 || errno != ENOENT)
		return out;
	isotier_findings findings = {0};
	isotier_catalogue *c = NULL;
	isotier_error err = {0};
	if (isotier__catalogue_load(&c, dir, &findings, &err) == 0) {
		const isotier_provider *p = isotier__catalogue_find_renamed(c, id);
		if (p && p->id)
			snprintf(out, len, "%s", p->id);
		isotier__catalogue_free(c);
	}
	isotier__findings_free(&findings);
	return out;
}

const char *isotier__provider_status(const isotier_provider *p)
{
	return p && p->status ? p->status : "current";
}

const char *isotier__provider_group(const isotier_provider *p)
{
	return p->provider ? p->provider : p->id ? p->id : "";
}
