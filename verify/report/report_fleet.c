/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_fleet.c - what a fleet's shared history adds to the report: an
 * alert when hosts disagree. For each backend, the latest judged
 * observation (not INCONCLUSIVE or UNAVAILABLE) of each host (its machine
 * id, else its host name) is compared: two hosts whose latest judgements
 * saw different tiers of the same backend raise RA_HOST_DISAGREEMENT, naming
 * both rows. The scan (report_scan.c) hands over each (backend, host)'s
 * latest judged observation. The same pass fills the host x backend
 * matrix (m->hosts): what each host last proved of each backend, and the
 * words every writer shows with it.
 */
#include "report_model.h"

#include <stdlib.h>
#include <string.h>

const char *report_host_key(const report_observation *o)
{
	return o->host_id && *o->host_id ? o->host_id : o->host && *o->host ? o->host : NULL;
}

static int cmp_by_backend_host(const void *x, const void *y)
{
	const report_observation *a = *(const report_observation *const *)x;
	const report_observation *b = *(const report_observation *const *)y;
	int c = strcmp(a->backend, b->backend);
	if (!c)
		c = strcmp(report_host_key(a), report_host_key(b));
	return c ? c : (a->id > b->id) - (a->id < b->id);
}

bool report_fleet_judged(const report_observation *o)
{
	return o->v != RV_INCONCLUSIVE && o->v != RV_UNAVAILABLE && o->observed_tier &&
	       o->backend && report_host_key(o);
}

int report_fleet_alerts(report_model *m, const report_observation **v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_by_backend_host);
	int rc = 0;
	/* One cell per (backend, host): the last of each run of equal keys. */
	size_t cells = 0;
	for (size_t j = 0; j < n; j++)
		cells += j + 1 == n || strcmp(v[j]->backend, v[j + 1]->backend) ||
		         strcmp(report_host_key(v[j]), report_host_key(v[j + 1]));
	m->hosts = report_arena_alloc(&m->arena, cells * sizeof *m->hosts);
	if (!m->hosts)
		return ISOTIER_ENOMEM;
	for (size_t j = 0; j < n; j++)
		if (j + 1 == n || strcmp(v[j]->backend, v[j + 1]->backend) ||
		    strcmp(report_host_key(v[j]), report_host_key(v[j + 1])))
			m->hosts[m->n_hosts++] = (report_host_cell){
			    .host = v[j]->host ? v[j]->host : report_host_key(v[j]),
			    .host_id = v[j]->host_id,
			    .latest = v[j]};
	/* Distinct hosts: the cells are sorted by backend first, so a host
	 * repeats across backends (quadratic in the cells: a fleet's hosts times
	 * its backends, small). */
	for (size_t j = 0; j < m->n_hosts; j++) {
		const char *key = report_host_key(m->hosts[j].latest);
		bool seen = false;
		for (size_t k = 0; k < j && !seen; k++)
			seen = !strcmp(report_host_key(m->hosts[k].latest), key);
		m->n_host_names += !seen;
	}
	m->hosts_heading = "Hosts sharing this history";
	m->hosts_note = "What each host last observed of each backend: its latest judged "
	                "observation (INCONCLUSIVE and UNAVAILABLE runs do not count). DISAGREES "
	                "marks a backend the hosts saw at different tiers.";
	/* A backend whose cells do not all show one tier: every cell of it. */
	for (size_t j = 0; j < m->n_hosts;) {
		size_t end = j;
		bool differ = false;
		while (end < m->n_hosts &&
		       !strcmp(m->hosts[end].latest->backend, m->hosts[j].latest->backend)) {
			differ |= strcmp(m->hosts[end].latest->observed_tier,
			                 m->hosts[j].latest->observed_tier) != 0;
			end++;
		}
		for (; j < end; j++)
			m->hosts[j].disagrees = differ;
	}
	/* Per backend: the first host's latest, compared with each other host's. */
	for (size_t i = 0; i < n && rc == 0;) {
		size_t end = i;
		while (end < n && !strcmp(v[end]->backend, v[i]->backend))
			end++;
		const report_observation *first = NULL;
		for (size_t j = i; j < end && rc == 0; j++) {
			bool last_of_host = j + 1 == end || strcmp(report_host_key(v[j]),
			                                           report_host_key(v[j + 1]));
			if (!last_of_host)
				continue;
			if (!first) {
				first = v[j];
				continue;
			}
			if (!strcmp(first->observed_tier, v[j]->observed_tier))
				continue;
			const char *detail = report_arena_printf(
			    &m->arena,
			    "host %s last observed %s (observation #%lld, %s); host %s last "
			    "observed %s "
			    "(observation #%lld, %s)",
			    first->host ? first->host : report_host_key(first),
			    first->observed_tier, (long long)first->id, first->verdict,
			    v[j]->host ? v[j]->host : report_host_key(v[j]), v[j]->observed_tier,
			    (long long)v[j]->id, v[j]->verdict);
			if (!detail || report_attention_add(m, RA_HOST_DISAGREEMENT, true,
			                                    v[i]->backend, detail) < 0)
				rc = ISOTIER_ENOMEM;
			else
				m->attention[m->n_attention - 1].backend = v[i]->backend;
			break; /* one alert per backend */
		}
		i = end;
	}
	return rc;
}
