/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_catalogue.c - a catalogue provider file. Properties: an accepted
 * entry has an id, a name and a tier; parsing the same bytes twice gives the
 * same entry (no hidden state); a refusal says why in the findings. */
#include "fuzz.h"

#include "../../catalogue/catalogue.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	isotier_provider p = {0}, q = {0};
	isotier_findings f = {0}, g = {0};
	int rc = isotier__provider_parse(&p, (const char *)data, size, "fuzz.json", &f);
	int rc2 = isotier__provider_parse(&q, (const char *)data, size, "fuzz.json", &g);
	FUZZ_ASSERT(rc == rc2, "two parses of the same bytes disagree");
	if (rc == 0) {
		FUZZ_ASSERT(p.id && *p.id && p.name, "accepted entry without id or name");
		FUZZ_ASSERT(!strcmp(p.id, q.id) && p.tier == q.tier, "entries differ");
		FUZZ_ASSERT(p.n_sources == q.n_sources, "sources differ");
	} else {
		FUZZ_ASSERT(rc == ISOTIER_EDATA, "refusal code %d", rc);
	}
	isotier__provider_clear(&p);
	isotier__provider_clear(&q);
	isotier__findings_free(&f);
	isotier__findings_free(&g);
	return 0;
}
