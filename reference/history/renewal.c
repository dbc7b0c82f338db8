/* SPDX-License-Identifier: Apache-2.0 */
/* renewal.c - sources renewed by `sources check` (renewal.h). */
#include "renewal.h"

#include <string.h>

int isotier__provider_renew(isotier_provider *p, isotier_history *h, const char *today,
                            isotier_error *err)
{
	for (size_t i = 0; p->id && i < p->n_sources; i++) {
		isotier_source *s = &p->sources[i];
		char day[16];
		free(s->verified);
		s->verified = NULL;
		int rc = isotier__history_source_renewed(h, p->id, s->url, s->quote, s->retrieved,
		                                         today, day, sizeof day, err);
		if (rc < 0)
			return isotier__error_prefix(err, "%s: sources[%zu]", p->id, i);
		if (rc > 0 && !(s->verified = strdup(day)))
			return isotier__error_set(err, ISOTIER_ENOMEM, 0, "out of memory");
	}
	return 0;
}

int isotier__catalogue_renew(isotier_catalogue *c, isotier_history *h, const char *today,
                             isotier_error *err)
{
	for (size_t i = 0; i < c->n_providers; i++) {
		int rc = isotier__provider_renew(&c->providers[i], h, today, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}
