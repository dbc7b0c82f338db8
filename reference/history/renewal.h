/* SPDX-License-Identifier: Apache-2.0 */
/*
 * renewal.h - a source re-verified by the weekly `sources check` (runbook/cadence.md):
 * a quoted passage found unchanged renews the source as of that check, so
 * the catalogue has no expiry cliff; a changed or gone passage still needs
 * a person. The renewal lives in the history, never in a catalogue file.
 */
#ifndef ISOTIER_RENEWAL_H
#define ISOTIER_RENEWAL_H

#include "history.h"
#include "../../catalogue/catalogue.h"

/* Sets each source's `verified` date of p (isotier__history_source_renewed)
 * as of today (YYYY-MM-DD). Returns 0 or <0 on a database error. */
int isotier__provider_renew(isotier_provider *p, isotier_history *h, const char *today,
                            isotier_error *err);
/* The same for every offering of c. */
int isotier__catalogue_renew(isotier_catalogue *c, isotier_history *h, const char *today,
                             isotier_error *err);

#endif
