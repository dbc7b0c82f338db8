/* SPDX-License-Identifier: Apache-2.0 */
/*
 * statement.h - an observation as a signed statement: an in-toto Statement
 * v1 (https://in-toto.io/Statement/v1) whose predicate is isotier's
 * observation (ISOTIER_PREDICATE_OBSERVATION, runbook/statements.md), in a
 * DSSE envelope (https://github.com/secure-systems-lab/dsse, protocol.md:
 * the signature is over PAE(payloadType, payload)) signed with this host's
 * key (identity.h). The history keeps the envelope beside the row; the
 * gate (resolve.c) counts a row toward a grant only when its envelope
 * verifies against a trusted key and says what the row says.
 */
#ifndef ISOTIER_STATEMENT_H
#define ISOTIER_STATEMENT_H

#include "../history/history.h"
#include "identity.h"

#define ISOTIER_STATEMENT_TYPE        "https://in-toto.io/Statement/v1"
#define ISOTIER_DSSE_PAYLOAD_TYPE     "application/vnd.in-toto+json"
#define ISOTIER_PREDICATE_OBSERVATION "https://isotier.dev/observation/v1"
#define ISOTIER_PREDICATE_VSA         "https://slsa.dev/verification_summary/v1"
/* The largest envelope read back (the statement holds digests and short
 * texts, never the evidence itself). */
#define ISOTIER_ENVELOPE_MAX (256 * 1024)

/* ---- DSSE (dsse.c) --------------------------------------------------------- */

/* PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 * (LEN: ASCII decimal, no leading zeros), malloc'd into *out. */
int isotier__dsse_pae(const char *type, const void *body, size_t len, unsigned char **out,
                      size_t *out_len);
/* Signs body into a DSSE envelope (JSON, one line, malloc'd). */
int isotier__dsse_sign(const isotier_identity *id, const char *type, const void *body, size_t len,
                       char **envelope, isotier_error *err);
/* Opens an envelope: 0, its payload (malloc'd, NUL-terminated) and the id
 * of the key that verified it; ISOTIER_EDATA when it is not an envelope,
 * ISOTIER_ECONFIG when no signature verifies against a key of kr (err says
 * which check failed). */
int isotier__dsse_open(const char *envelope, size_t len, const isotier_keyring *kr, char **payload,
                       size_t *payload_len, char key_id[65], isotier_error *err);

/* ---- the observation statement (statement.c) ------------------------------- */

/* What a statement says beyond the row (verify's facts); NULL: not known. */
typedef struct isotier_statement_facts {
	const char *nonce;       /* the probe run's nonce */
	const char *challenge;   /* what the host's view or the cross challenge showed */
	const char *attestation; /* the hardware attestation's summary */
	bool attested;           /* the verdict rests on verified attestation evidence */
	const char *source_url, *source_retrieved; /* the claim's provider source */
	const char *resolved_tier;                 /* the tier the row lets anyone defend */
} isotier_statement_facts;

/* The statement of o (its uuid must be set) signed by id, into *envelope. */
int isotier__statement_sign(const isotier_identity *id, const isotier_observation_record *o,
                            const isotier_statement_facts *facts, char **envelope,
                            isotier_error *err);

/* What the gate compares with a statement: the row as stored. */
typedef struct isotier_statement_row {
	const char *uuid, *backend, *verdict, *observed_at, *ceiling_tier, *host_id, *claim_digest;
} isotier_statement_row;
/* true when envelope verifies against kr, was signed by the key its
 * predicate names for the host, and says what row says; else false and
 * why (one sentence, starting "signature check: "). */
bool isotier__statement_check(const char *envelope, const isotier_keyring *kr,
                              const isotier_statement_row *row, char *why, size_t why_len);

/* `isotier statement verify`: opens one envelope against kr and prints
 * nothing; 0, the statement's payload (malloc'd) and the key id. */
int isotier__statement_open(const char *envelope, size_t len, const isotier_keyring *kr,
                            char **statement, char key_id[65], isotier_error *err);

/* ---- a SLSA verification summary of one backend (vsa.c) -------------------- */

typedef struct isotier_vsa {
	const char *backend, *host_id, *claim_digest;
	const char *tier;           /* the level verified (the claimed tier); NULL: UNKNOWN */
	const char *input_uuid;     /* the observation it rests on; NULL: none */
	const char *input_envelope; /* that observation's envelope (its digest is cited) */
	const char *time_verified;  /* UTC */
	bool passed;                /* PASSED: the latest observation proves the claim, signed */
} isotier_vsa;
int isotier__vsa_sign(const isotier_identity *id, const isotier_vsa *v, char **envelope,
                      isotier_error *err);

#endif
