/* SPDX-License-Identifier: Apache-2.0 */
/* observations.c - verify's rows in the shared history: one transaction
 * per observation (the SQL is the history module's, history_obs.c). */
#include "observations.h"

int observations_insert(isotier_history *h, const observation *o, int64_t *id_out,
                        isotier_error *err)
{
	int rc = isotier__history_begin(h, err);
	if (rc < 0)
		return isotier__error_prefix(err, "record observation of %s", o->backend);
	if ((rc = isotier__history_add_observation(h, o, id_out, err)) < 0 ||
	    (rc = isotier__history_commit(h, err)) < 0) {
		isotier__history_rollback(h);
		return isotier__error_prefix(err, "record observation of %s", o->backend);
	}
	return 0;
}
