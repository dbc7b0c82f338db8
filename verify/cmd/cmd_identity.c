/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_identity.c - `isotier identity`: this host's signing identity (the
 * key every observation's statement is signed with, identity.h), made on
 * first use; the public key, key id and host id, never the private key. */
#include "cli.h"
#include "cli_options.h"

#include <string.h>

static const struct cli_option options[] = {
    CLI_FLAG_OPTION("public-key", 'p',
                    "print the public key (PEM) only: what a fleet's other hosts list\n"
                    "in ISOTIER_TRUSTED_KEYS and an auditor passes to `statement verify --key`"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "identity",
    .synopsis = "usage: isotier identity [--public-key]",
    .about = "Shows this host's signing identity, making it when there is none: an Ed25519\n"
             "key in $ISOTIER_IDENTITY_DIR, else STATE/identity (host.key, mode 0600, its\n"
             "owner's only; host.pub beside it). Every observation `isotier verify` records\n"
             "is an in-toto statement signed with it (runbook/statements.md), and the gate\n"
             "counts a row toward a grant only when its statement verifies against it (or a\n"
             "key in ISOTIER_TRUSTED_KEYS). key id: SHA-256 of the public key (DER); machine:\n"
             "SHA-256 of the machine id; host id: SHA-256 of \"isotier-host-v1:KEYID:MACHINE\".\n"
             "Rotation: runbook/fleet.md.",
    .options = options,
    .epilogue = "Exit status: 0 shown; 64 usage; 73 the key could not be made or read.",
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	(void)value, (void)number;
	if (key != 'p')
		return EXIT_SOFTWARE;
	*(bool *)ctx = true;
	return 0;
}

static int identity_main(int argc, char **argv)
{
	bool public_only = false;
	int prc = cli_parse(&spec, argc, argv, on_option, &public_only, NULL);
	if (prc)
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	isotier_identity id;
	isotier_error err = {0};
	if (isotier__identity_load(&id, true, &err) < 0) {
		isotier__identity_clear(&id);
		cli_error("%s", err.message);
		return EXIT_CANTCREAT;
	}
	cleanup_free char *pem = isotier__identity_public_pem(&id);
	if (!pem) {
		isotier__identity_clear(&id);
		cli_error("host identity: cannot encode the public key");
		return EXIT_SOFTWARE;
	}
	if (!public_only) {
		printf("%-11s %s\n", "host id", id.host_id);
		printf("%-11s %s\n", "key id", id.key_id);
		printf("%-11s %s\n", "machine", id.machine[0] ? id.machine : "(no machine id)");
		printf("%-11s ", "key");
		isotier__fputs_sanitized(stdout, id.dir);
		printf("/host.key (Ed25519, private: never printed)\n");
	}
	fputs(pem, stdout);
	isotier__identity_clear(&id);
	return EXIT_OK;
}

const struct cli_command cli_identity = {
    .name = "identity",
    .summary = "this host's signing key: host id, key id, public key",
    .main = identity_main,
};
