/* SPDX-License-Identifier: Apache-2.0 */
/* observations.c - verify's rows in the shared history: one transaction
 * per observation (the SQL is the history module's, history_obs.c), each
 * signed by this host's key as an in-toto statement (statement.h). */
#include "observations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The identity is read once per process and directory: a run of many
 * backends signs each row with the key it found first (a key rotated
 * meanwhile signs the next run's). */
static isotier_identity identity;
static int identity_rc = 1; /* 1: not loaded yet */
static isotier_error identity_err;

static void identity_release(void)
{
	isotier__identity_clear(&identity);
}

static const isotier_identity *signer(isotier_error *err)
{
	char dir[sizeof identity.dir];
	if (isotier__identity_dir(dir, sizeof dir, err) < 0)
		return NULL;
	if (identity_rc != 1 && strcmp(dir, identity.dir)) {
		isotier__identity_clear(&identity);
		identity_rc = 1;
	}
	if (identity_rc == 1) {
		identity_rc = isotier__identity_load(&identity, true, &identity_err);
		static bool registered;
		if (identity_rc == 0 && !registered)
			registered = atexit(identity_release) == 0;
	}
	if (identity_rc < 0) {
		*err = identity_err;
		return NULL;
	}
	return &identity;
}

int observations_insert_signed(isotier_history *h, const observation *o,
                               const isotier_statement_facts *facts, int64_t *id_out,
                               isotier_error *err)
{
	/* The statement says the row exactly: its id and time are fixed here,
	 * before signing, not by the insert. */
	observation row = *o;
	char uuid[ISOTIER_UUID_LEN + 1], now[32];
	if (!row.uuid) {
		if (isotier__history_uuid(uuid) < 0)
			return isotier__error_set(
			    err, ISOTIER_EIO, 0,
			    "record observation of %s: no random bytes for its id", o->backend);
		row.uuid = uuid;
	}
	if (!row.observed_at) {
		isotier__utc_now(now, sizeof now);
		row.observed_at = now;
	}
	cleanup_free char *envelope = NULL;
	isotier_error serr = {0};
	const isotier_identity *id = signer(&serr);
	if (!id || isotier__statement_sign(id, &row, facts, &envelope, &serr) < 0)
		/* Kept, unsigned: a row that grants nothing, never a lost record. */
		fprintf(stderr,
		        "isotier: warning: observation of %s recorded unsigned (it cannot count "
		        "toward a grant): %s\n",
		        o->backend, serr.message);
	row.statement = envelope;
	int rc = isotier__history_begin(h, err);
	if (rc < 0)
		return isotier__error_prefix(err, "record observation of %s", o->backend);
	if ((rc = isotier__history_add_observation(h, &row, id_out, err)) < 0 ||
	    (rc = isotier__history_commit(h, err)) < 0) {
		isotier__history_rollback(h);
		return isotier__error_prefix(err, "record observation of %s", o->backend);
	}
	return 0;
}

int observations_insert(isotier_history *h, const observation *o, int64_t *id_out,
                        isotier_error *err)
{
	return observations_insert_signed(h, o, NULL, id_out, err);
}
