/* SPDX-License-Identifier: Apache-2.0 */
/* identity.c - this host's signing key and the keys the gate trusts
 * (identity.h). OpenSSL's libcrypto does the keys (Ed25519, PEM); this file
 * only decides where they live and who may read them. */
#include "identity.h"
#include "../history/history.h"
#include "../core/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_FILE_MAX (16 * 1024)

int isotier__identity_dir(char *buf, size_t len, isotier_error *err)
{
	const char *env = getenv("ISOTIER_IDENTITY_DIR");
	if (env && *env) {
		if (env[0] != '/' || (size_t)snprintf(buf, len, "%s", env) >= len)
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "ISOTIER_IDENTITY_DIR: not an absolute path");
		return 0;
	}
	char state[PATH_MAX];
	int rc = isotier__state_dir(state, sizeof state);
	if (rc < 0)
		return isotier__error_set(
		    err, rc, 0, "host identity: no usable state directory (ISOTIER_STATE_DIR)");
	if ((size_t)snprintf(buf, len, "%s/identity", state) >= len)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "host identity: path too long");
	return 0;
}

void isotier__machine_digest(const char *machine_id, char out[65])
{
	out[0] = '\0';
	if (machine_id && *machine_id &&
	    isotier__sha256_hex(machine_id, strlen(machine_id), out) < 0)
		out[0] = '\0';
}

void isotier__host_id_of(const char *key_id, const char *machine, char out[65])
{
	char text[160];
	int n = snprintf(text, sizeof text, "isotier-host-v1:%s:%s", key_id, machine);
	if (n < 0 || (size_t)n >= sizeof text || isotier__sha256_hex(text, (size_t)n, out) < 0)
		out[0] = '\0';
}

int isotier__key_id(isotier_pkey *key, char out[65])
{
	unsigned char *der = NULL;
	int n = i2d_PUBKEY(key, &der);
	int rc = n > 0 ? isotier__sha256_hex(der, (size_t)n, out) : ISOTIER_EIO;
	OPENSSL_free(der);
	if (rc < 0)
		out[0] = '\0';
	return rc;
}

/* A key file as this process may trust it: a regular file (no link), ours
 * or root's, writable by nobody else; a private one readable by nobody else. */
static int read_key_file(char **out, const char *path, bool private_key, isotier_error *err)
{
	*out = NULL;
	cleanup_close int fd =
	    open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return isotier__error_set(err, errno == ENOENT ? ISOTIER_ENOTFOUND : ISOTIER_EIO,
		                          errno, "%s", path);
	struct stat st;
	if (fstat(fd, &st) != 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s: a %s, not a key file", path,
		                          isotier__file_kind(st.st_mode));
	if ((st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022))
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "%s: owned by uid %u or writable by others: not trusted",
		                          path, (unsigned)st.st_uid);
	if (private_key && (st.st_mode & 077))
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "%s: mode %03o lets others read the private key (chmod 600)", path,
		    (unsigned)(st.st_mode & 0777));
	if (st.st_size <= 0 || st.st_size > KEY_FILE_MAX)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s: %lld bytes, not a key", path,
		                          (long long)st.st_size);
	char *buf = calloc(1, (size_t)st.st_size + 1);
	if (!buf)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "%s: out of memory", path);
	ssize_t n = read(fd, buf, (size_t)st.st_size);
	if (n != st.st_size) {
		free(buf);
		return isotier__error_set(err, ISOTIER_EIO, errno, "%s: short read", path);
	}
	*out = buf;
	return 0;
}

static isotier_pkey *pem_to_key(const char *pem, bool private_key)
{
	BIO *bio = BIO_new_mem_buf(pem, -1);
	if (!bio)
		return NULL;
	EVP_PKEY *k = private_key ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)
	                          : PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (k && EVP_PKEY_get_base_id(k) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(k);
		k = NULL;
	}
	return k;
}

static char *key_to_pem(isotier_pkey *key, bool private_key)
{
	BIO *bio = BIO_new(BIO_s_mem());
	if (!bio)
		return NULL;
	int ok = private_key ? PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL)
	                     : PEM_write_bio_PUBKEY(bio, key);
	char *data = NULL, *out = NULL;
	long n = ok == 1 ? BIO_get_mem_data(bio, &data) : 0;
	if (n > 0 && (out = malloc((size_t)n + 1))) {
		memcpy(out, data, (size_t)n);
		out[n] = '\0';
	}
	BIO_free(bio);
	return out;
}

char *isotier__identity_public_pem(const isotier_identity *id)
{
	return id->key ? key_to_pem(id->key, false) : NULL;
}

/* Writes text to dir/name whole or not at all. exclusive: link(2), so
 * the first of two processes making a key wins and the other reads it. */
static int publish(const char *dir, const char *name, const char *text, mode_t mode, bool exclusive,
                   isotier_error *err)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp", dir, name, (long)getpid());
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return isotier__error_set(err, ISOTIER_EIO, errno, "%s", tmp);
	size_t len = strlen(text);
	bool ok = fchmod(fd, mode) == 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	int rc = 0;
	if (!ok)
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "write %s", tmp);
	else if (exclusive ? link(tmp, path) != 0 && errno != EEXIST : rename(tmp, path) != 0)
		rc = isotier__error_set(err, ISOTIER_EIO, errno, "%s", path);
	unlink(tmp);
	return rc;
}

static int fill_names(isotier_identity *id, isotier_error *err)
{
	if (isotier__key_id(id->key, id->key_id) < 0)
		return isotier__error_set(err, ISOTIER_EIO, 0,
		                          "host identity: hash the public key");
	char machine[64];
	isotier__host_id(machine, sizeof machine);
	isotier__machine_digest(machine, id->machine);
	isotier__host_id_of(id->key_id, id->machine, id->host_id);
	return 0;
}

static int make_key(const char *dir, isotier_error *err)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!k)
		return isotier__error_set(err, ISOTIER_EIO, 0,
		                          "host identity: make an Ed25519 key");
	cleanup_free char *pem = key_to_pem(k, true);
	EVP_PKEY_free(k);
	if (!pem)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "host identity: encode the key");
	int rc = publish(dir, "host.key", pem, 0600, true, err);
	OPENSSL_cleanse(pem, strlen(pem));
	return rc;
}

int isotier__identity_load(isotier_identity *id, bool create, isotier_error *err)
{
	memset(id, 0, sizeof *id);
	int rc = isotier__identity_dir(id->dir, sizeof id->dir, err);
	if (rc < 0)
		return rc;
	char key_path[PATH_MAX], pub_path[PATH_MAX];
	snprintf(key_path, sizeof key_path, "%s/host.key", id->dir);
	snprintf(pub_path, sizeof pub_path, "%s/host.pub", id->dir);
	cleanup_free char *pem = NULL;
	if (!create) {
		if ((rc = read_key_file(&pem, pub_path, false, err)) < 0)
			return isotier__error_prefix(err, "host identity");
		if (!(id->key = pem_to_key(pem, false)))
			return isotier__error_set(err, ISOTIER_EINVAL, 0,
			                          "host identity: %s: not an Ed25519 public key",
			                          pub_path);
		return fill_names(id, err);
	}
	if (mkdir(id->dir, 0700) != 0 && errno != EEXIST)
		return isotier__error_set(err, ISOTIER_EIO, errno, "host identity: %s", id->dir);
	struct stat st;
	if (lstat(id->dir, &st) != 0 || !S_ISDIR(st.st_mode) || (st.st_mode & 077) ||
	    st.st_uid != geteuid())
		return isotier__error_set(
		    err, ISOTIER_EINVAL, 0,
		    "host identity: %s is not a directory only its owner (uid "
		    "%u) may enter",
		    id->dir, (unsigned)geteuid());
	rc = read_key_file(&pem, key_path, true, err);
	if (rc == ISOTIER_ENOTFOUND) {
		isotier__error_clear(err);
		if ((rc = make_key(id->dir, err)) < 0 ||
		    (rc = read_key_file(&pem, key_path, true, err)) < 0)
			return isotier__error_prefix(err, "host identity");
	} else if (rc < 0) {
		return isotier__error_prefix(err, "host identity");
	}
	id->key = pem_to_key(pem, true);
	OPENSSL_cleanse(pem, strlen(pem));
	if (!id->key)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "host identity: %s: not an Ed25519 private key",
		                          key_path);
	/* host.pub follows the key: rewritten when absent or another key's. */
	cleanup_free char *pub = key_to_pem(id->key, false);
	cleanup_free char *old = NULL;
	isotier_error ignored = {0};
	if (!pub)
		return isotier__error_set(err, ISOTIER_ENOMEM, 0, "host identity: encode the key");
	if ((read_key_file(&old, pub_path, false, &ignored) < 0 || strcmp(old, pub)) &&
	    (rc = publish(id->dir, "host.pub", pub, 0644, false, err)) < 0)
		return isotier__error_prefix(err, "host identity");
	return fill_names(id, err);
}

void isotier__identity_clear(isotier_identity *id)
{
	EVP_PKEY_free(id->key);
	id->key = NULL;
}

int isotier__keyring_add_file(isotier_keyring *kr, const char *path, isotier_error *err)
{
	if (kr->n >= ISOTIER_KEYRING_MAX)
		return isotier__error_set(err, ISOTIER_EINVAL, 0, "%s: more than %d keys", path,
		                          ISOTIER_KEYRING_MAX);
	cleanup_free char *pem = NULL;
	int rc = read_key_file(&pem, path, false, err);
	if (rc < 0)
		return rc;
	EVP_PKEY *k = pem_to_key(pem, false);
	if (!k)
		return isotier__error_set(err, ISOTIER_EINVAL, 0,
		                          "%s: not an Ed25519 public key (PEM)", path);
	if (isotier__key_id(k, kr->key_ids[kr->n]) < 0) {
		EVP_PKEY_free(k);
		return isotier__error_set(err, ISOTIER_EIO, 0, "%s: hash the key", path);
	}
	kr->keys[kr->n++] = k;
	return 0;
}

static void keyring_problem(isotier_keyring *kr, const char *what)
{
	size_t used = strlen(kr->problem);
	snprintf(kr->problem + used, sizeof kr->problem - used, "%s%s", used ? "; " : "", what);
}

void isotier__keyring_load(isotier_keyring *kr)
{
	memset(kr, 0, sizeof *kr);
	isotier_identity id;
	isotier_error err = {0};
	if (isotier__identity_load(&id, false, &err) == 0) {
		kr->keys[0] = id.key;
		snprintf(kr->key_ids[0], sizeof kr->key_ids[0], "%s", id.key_id);
		kr->n = 1;
	} else {
		keyring_problem(kr, err.message);
		isotier__identity_clear(&id);
	}
	const char *list = getenv("ISOTIER_TRUSTED_KEYS");
	if (!list || !*list)
		return;
	cleanup_free char *copy = strdup(list);
	char *save = NULL;
	for (char *p = copy ? strtok_r(copy, ":", &save) : NULL; p;
	     p = strtok_r(NULL, ":", &save)) {
		isotier_error e = {0};
		if (isotier__keyring_add_file(kr, p, &e) < 0) {
			char msg[600];
			snprintf(msg, sizeof msg, "ISOTIER_TRUSTED_KEYS: %.500s", e.message);
			keyring_problem(kr, msg);
		}
	}
}

void isotier__keyring_clear(isotier_keyring *kr)
{
	for (size_t i = 0; i < kr->n; i++)
		EVP_PKEY_free(kr->keys[i]);
	kr->n = 0;
}

isotier_pkey *isotier__keyring_find(const isotier_keyring *kr, const char *key_id)
{
	for (size_t i = 0; key_id && i < kr->n; i++)
		if (!strcmp(kr->key_ids[i], key_id))
			return kr->keys[i];
	return NULL;
}
