/* SPDX-License-Identifier: Apache-2.0 */
/*
 * observations.h - `isotier verify` observations in the shared history
 * (reference/history/history_obs.c holds the SQL): one transaction per observation.
 */
#ifndef ISOTIER_OBSERVATIONS_H
#define ISOTIER_OBSERVATIONS_H

#include "../../reference/api/isotier_tool.h"

#include <stdint.h>

/* What verify records of one backend (reference/history/history_rows.h). */
typedef isotier_observation_record observation;

/* Inserts o in its own transaction (BEGIN IMMEDIATE ... COMMIT); on failure
 * nothing is written. *id_out (may be NULL) gets the new row id. */
int observations_insert(isotier_history *h, const observation *o, int64_t *id_out,
                        isotier_error *err);
/* The same, the row signed with this host's key (made on first use) as an
 * in-toto statement with facts (NULL: none beyond the row); a row that
 * cannot be signed is recorded unsigned, with a warning on stderr (it
 * grants nothing). */
int observations_insert_signed(isotier_history *h, const observation *o,
                               const isotier_statement_facts *facts, int64_t *id_out,
                               isotier_error *err);

typedef isotier_observation_filter observation_filter;

#endif
