/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mechanism.h - the one mechanism vocabulary (FORMAT.md's table; the JSON
 * Schema's $defs/mechanism and its per-tier enums are checked against it by
 * test_catalogue): each word a claim may use for how isolation is built, the
 * tier it can support and the VMM a probe can name for it. The validator
 * checks claims with it; the judge maps a claim to the layer it must see.
 */
#ifndef ISOTIER_MECHANISM_H
#define ISOTIER_MECHANISM_H

#include "isotier.h"

#include <stddef.h>

typedef struct isotier_mechanism {
	const char *name; /* "firecracker" */
	/* The tier it can support; ISOTIER_UNKNOWN for mechanisms outside the
	 * four tiers (webassembly, v8-isolate, unknown). */
	isotier_tier tier;
	/* The VMM a probe's vm layer names when this mechanism runs it; NULL:
	 * the mechanism does not say which hypervisor (kata, vm) or is no VM. */
	const char *vmm;
} isotier_mechanism;

extern const isotier_mechanism isotier__mechanisms[];
extern const size_t isotier__mechanism_count;

/* The row for an exact name; NULL for NULL or a word not in the vocabulary. */
const isotier_mechanism *isotier__mechanism_find(const char *name);

#endif
