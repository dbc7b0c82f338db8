/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe_result.h - the probe's JSON document ("isotier.probe/1", see
 * probes/probe.schema.json) parsed as hostile input: size-capped, every field
 * this CLI uses type-checked, enums checked, strings bounded. Errors name the
 * field ("layers[1].kind: ...").
 */
#ifndef ISOTIER_PROBE_RESULT_H
#define ISOTIER_PROBE_RESULT_H

#include "kernel_id.h"
#include "probe_run.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

/* The bounds of every reading of the probe's JSON: the judge's (below) and the
 * report's (verify/report/report_evidence.c) are one set. */
#define PROBE_RESULT_MAX_BYTES   (1024 * 1024) /* the whole document */
#define PROBE_RESULT_MAX_DEPTH   32            /* nesting levels: cJSON recurses per level */
#define PROBE_RESULT_MAX_LAYERS  8
#define PROBE_RESULT_NAME_MAX    64 /* vendor, hypervisor, confidence... (with NUL) */
#define PROBE_RESULT_MAX_SIGNALS 4096
/* kernel.identity.problems: at most this many, each at most this long. */
#define PROBE_RESULT_MAX_IDENTITY_PROBLEMS 8
#define PROBE_RESULT_IDENTITY_PROBLEM_LEN  160

/* observed_tier: the four tiers plus NONE (a bare host process, no boundary). */
typedef enum probe_tier {
	PROBE_TIER_UNKNOWN = 0,
	PROBE_TIER_NONE,
	PROBE_TIER_CONTAINER,
	PROBE_TIER_GVISOR,
	PROBE_TIER_MICROVM,
} probe_tier;

typedef enum probe_layer_kind {
	PROBE_LAYER_VM = 0,
	PROBE_LAYER_GVISOR,
	PROBE_LAYER_CONTAINER,
} probe_layer_kind;

typedef enum probe_confidence {
	PROBE_CONFIDENCE_NONE = 0, /* the tier is UNKNOWN */
	PROBE_CONFIDENCE_LOW,      /* weak evidence decided somewhere */
	PROBE_CONFIDENCE_HIGH,     /* every question answered by strong evidence */
} probe_confidence;

typedef struct probe_layer {
	probe_layer_kind kind;
	char vendor[PROBE_RESULT_NAME_MAX];     /* "" when the probe named none */
	char hypervisor[PROBE_RESULT_NAME_MAX]; /* vm layers: "kvm", "tcg"...; "" when none */
	size_t n_signals;
} probe_layer;

typedef struct probe_result {
	probe_tier observed;
	probe_confidence confidence;
	char confidence_text[PROBE_RESULT_NAME_MAX];
	char probe_version[PROBE_RESULT_NAME_MAX];
	probe_layer layers[PROBE_RESULT_MAX_LAYERS]; /* outermost first */
	size_t n_layers;
	size_t n_signals, n_conflicts;
	int64_t duration_us; /* -1 until parsed */
	/* The identity of the kernel that answered the probe (kernel.boot_id,
	 * kernel.btime): "" / 0 when the probe could not read it. */
	char boot_id[40];
	int64_t btime;
	/* kernel.identity: true only when the probe checked, on the live kernel,
	 * that boot_id and btime are that kernel's own procfs and found no
	 * problem; false when absent or malformed (fail closed). */
	bool identity_trusted;
	/* The probe's first problem, or why there is none to show ("" when
	 * trusted): printable ASCII, bounded. */
	char identity_problem[200];
	probe_run_info run; /* the verifier's nonce and challenge as echoed; owned */
	char *layers_json;  /* the layers array re-serialized (compact); owned */
	char *doc_json;     /* the whole document judged, re-serialized (compact,
	                       valid UTF-8): what the history stores; owned */
} probe_result;

/* The one reader of the probe's JSON text, the printed document and the
 * copies the history stores alike: at most PROBE_RESULT_MAX_BYTES, no NUL
 * byte, nested at most PROBE_RESULT_MAX_DEPTH levels, nothing but whitespace
 * after the value, no key given twice. Returns the tree (the caller's, to
 * cJSON_Delete), or NULL with err filled (ISOTIER_EDATA, the message led by
 * what: "document", "probe_json"...). */
cJSON *isotier__probe_json_read(const char *json, size_t len, const char *what, isotier_error *err);

/* Parses len bytes of json (need not be NUL-terminated). A key given twice
 * in any object is refused. On error fills err (ISOTIER_EDATA, message
 * naming the field) and leaves *out cleared. */
int isotier__probe_result_parse(probe_result *out, const char *json, size_t len,
                                isotier_error *err);
void isotier__probe_result_clear(probe_result *r);

/* "UNKNOWN", "NONE", "CONTAINER", "GVISOR", "MICROVM". */
const char *isotier__probe_tier_name(probe_tier t);
/* "vm", "gvisor", "container". */
const char *isotier__probe_layer_kind_name(probe_layer_kind k);
/* The tier a layer kind stands for. */
probe_tier isotier__probe_layer_tier(probe_layer_kind k);
/* Rank for comparisons: NONE 0 < CONTAINER 1 < GVISOR 2 < MICROVM 3; UNKNOWN -1. */
int isotier__probe_tier_rank(probe_tier t);
/* The vendor the innermost layer names; "" if none (or "unknown"). */
const char *isotier__probe_result_vendor(const probe_result *r);

#endif
