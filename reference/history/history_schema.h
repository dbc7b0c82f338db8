/* SPDX-License-Identifier: Apache-2.0 */
/* history_schema.h - the migrations (history_schema.c). */
#ifndef ISOTIER_HISTORY_SCHEMA_H
#define ISOTIER_HISTORY_SCHEMA_H

#include "history_driver.h"

#define HISTORY_SCHEMA_VERSION 11

/* The SQL bringing engine's schema from version from to from + 1. */
const char *isotier__history_migration(history_engine engine, int from);

#endif
