/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identity.h - this host's signing identity (identity.c) and the keys the
 * history gate trusts: an Ed25519 key made on first use in the state
 * directory (STATE/identity/host.key, 0600, the owner's only; host.pub
 * beside it), never printed. What names the host in a signed statement:
 *
 *   key id      lower-case hex SHA-256 of the public key's DER
 *               (SubjectPublicKeyInfo), the DSSE signature's keyid;
 *   machine     lower-case hex SHA-256 of the machine id (/etc/machine-id;
 *               "" when the host has none: such a host's rows never grant);
 *   host id     lower-case hex SHA-256 of "isotier-host-v1:KEYID:MACHINE".
 *
 * $ISOTIER_IDENTITY_DIR names another directory (a test's second host, a
 * fleet's key kept elsewhere); runbook/fleet.md says how to rotate a key.
 */
#ifndef ISOTIER_IDENTITY_H
#define ISOTIER_IDENTITY_H

#include "../../base/base.h"

#include <stdbool.h>

typedef struct evp_pkey_st isotier_pkey; /* OpenSSL's EVP_PKEY */

typedef struct isotier_identity {
	isotier_pkey *key; /* the private key (sign) or only the public one */
	char key_id[65], machine[65], host_id[65];
	char dir[3072];
} isotier_identity;

/* Loads this host's identity. create: make the key when there is none
 * (verify, `isotier identity`); else only the public key is read and a
 * missing one is ISOTIER_ENOTFOUND. A private key that another user could
 * read, a link, or anything that is not an Ed25519 key is refused
 * (ISOTIER_EINVAL, the file named). */
int isotier__identity_load(isotier_identity *id, bool create, isotier_error *err);
void isotier__identity_clear(isotier_identity *id);
/* The identity's directory: $ISOTIER_IDENTITY_DIR, else STATE/identity. */
int isotier__identity_dir(char *buf, size_t len, isotier_error *err);
/* The public key as PEM (malloc'd). */
char *isotier__identity_public_pem(const isotier_identity *id);
/* sha256 hex of a machine id as the statements name it ("" for ""). */
void isotier__machine_digest(const char *machine_id, char out[65]);
/* host id of a key id and machine digest. */
void isotier__host_id_of(const char *key_id, const char *machine, char out[65]);

/* The public keys a signature may verify against: this host's own, then
 * every PEM file named in $ISOTIER_TRUSTED_KEYS (':'-separated; the fleet's
 * keys and a rotated key kept for its rows). At most 64. */
#define ISOTIER_KEYRING_MAX 64
typedef struct isotier_keyring {
	size_t n;
	isotier_pkey *keys[ISOTIER_KEYRING_MAX];
	char key_ids[ISOTIER_KEYRING_MAX][65];
	char problem[512]; /* why a key was not taken (a missing own key, a bad file) */
} isotier_keyring;
/* Never fails: what cannot be read is left out, and said in ->problem. */
void isotier__keyring_load(isotier_keyring *kr);
/* Adds one PEM public key file (statement verify --key). */
int isotier__keyring_add_file(isotier_keyring *kr, const char *path, isotier_error *err);
void isotier__keyring_clear(isotier_keyring *kr);
/* The key with this id, or NULL. */
isotier_pkey *isotier__keyring_find(const isotier_keyring *kr, const char *key_id);
/* key id of a public key (hex SHA-256 of its DER); 0 or ISOTIER_EIO. */
int isotier__key_id(isotier_pkey *key, char out[65]);

#endif
