/* SPDX-License-Identifier: Apache-2.0 */
/* history_renewal.c - when a `sources check` last re-verified a catalogue
 * source (renewal.c): the passage found unchanged, nothing against it since
 * the source was retrieved. */
#include "history_driver.h"

#include <string.h>

/*
 * Renewing checks: this host's own (a run that history import or migrate
 * did not record), PRESENT with the passage unchanged against the kept
 * baseline ('none': a check without a baseline proves only that the words
 * are somewhere on the page), dated from the retrieval to today. Any check
 * since the retrieval, imported or not, that found the quote gone, the page
 * gone or the passage moved voids every renewal: a person re-reads the page
 * and sets `retrieved` anew. An UNREACHABLE check neither renews nor voids.
 */
static const char renewed_sql[] =
    "SELECT max(c.checked_at) FROM source_checks c"
    " WHERE c.provider_id = ?1 AND c.url = ?2 AND c.quote = ?3"
    " AND substr(c.checked_at, 1, 10) >= ?4 AND substr(c.checked_at, 1, 10) <= ?5"
    " AND c.status = 'PRESENT' AND c.change = 'none'"
    " AND EXISTS (SELECT 1 FROM runs r WHERE r.id = c.run_id AND r.command <> ?6)"
    " AND NOT EXISTS (SELECT 1 FROM source_checks b"
    "  WHERE b.provider_id = ?1 AND b.url = ?2 AND b.quote = ?3"
    "  AND substr(b.checked_at, 1, 10) >= ?4 AND substr(b.checked_at, 1, 10) <= ?5"
    "  AND (b.status IN ('CHANGED', 'GONE')"
    "   OR b.change IN ('passage_changed', 'quote_gone')))";

int isotier__history_source_renewed(isotier_history *h, const char *provider_id, const char *url,
                                    const char *quote, const char *retrieved, const char *today,
                                    char *out, size_t len, isotier_error *err)
{
	out[0] = '\0';
	if (!provider_id || !url || !quote || !quote[0] || !retrieved || !today)
		return 0;
	cleanup_hstmt hstmt *s = NULL;
	int rc = isotier__hq_prepare(h, &s, renewed_sql, err, "read a source's renewing checks");
	if (rc < 0)
		return rc;
	hq_text(s, 1, provider_id);
	hq_text(s, 2, url);
	hq_text(s, 3, quote);
	hq_text(s, 4, retrieved);
	hq_text(s, 5, today);
	hq_text(s, 6, HISTORY_IMPORTED_COMMAND);
	if ((rc = hq_step(s, err)) <= 0)
		return rc;
	const char *at = hq_null(s, 0) ? NULL : hq_col(s, 0);
	if (!at || strlen(at) < 10)
		return 0;
	snprintf(out, len, "%.10s", at);
	return 1;
}
