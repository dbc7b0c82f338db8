/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_attest.c - `isotier attest export`: the history's signed statements
 * as JSON Lines of DSSE envelopes (statement.h), then a SLSA Verification
 * Summary Attestation per backend this host observed (vsa.c), signed with
 * this host's key: what supply-chain and admission tools ingest. */
#include "cli.h"
#include "cli_options.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BACKENDS 128

struct latest {
	char *backend, *uuid, *verdict, *observed_at, *ceiling_tier, *host_id, *claim_digest;
	char *statement, *claimed_tier;
	bool own_run;
};

struct export
{
	struct latest rows[MAX_BACKENDS];
	size_t n;
	size_t written, unsigned_rows;
	const char *host_id;
};

static const struct cli_option options[] = {
    {.name = "db",
     .key = 'd',
     .kind = CLI_TEXT,
     .metavar = "PATH",
     .check = cli_check_db,
     .help = "history database (default {})",
     .dflt = cli_default_db_text,
     .short_too = true},
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "attest",
    .synopsis = "usage: isotier attest export [--db PATH]",
    .about = "Writes to standard output, as JSON Lines of DSSE envelopes: every observation's\n"
             "signed in-toto statement the history keeps (an unsigned row is left out and\n"
             "counted on stderr), then one SLSA Verification Summary Attestation v1 per\n"
             "backend observed on this host, signed now with this host's key: PASSED (level\n"
             "ISOTIER_TIER_<claimed tier>) only when the backend's latest observation here\n"
             "proves the claim (CONFIRMED or CONSISTENT), was recorded by this history's own\n"
             "verify and its statement verifies and says what the row says; FAILED otherwise.\n"
             "Check them anywhere with `isotier statement verify FILE --key PUB`\n"
             "(runbook/statements.md).",
    .options = options,
    .operands = true,
    .operands_anywhere = true,
    .epilogue = "Exit status: 0 written; 64 usage; 66 no history; 73 this host's key could not\n"
                "be read; 74 the history could not be read or the output written.",
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	(void)number;
	if (key != 'd')
		return EXIT_SOFTWARE;
	*(const char **)ctx = value;
	return 0;
}

static void latest_clear(struct latest *l)
{
	free(l->backend), free(l->uuid), free(l->verdict), free(l->observed_at);
	free(l->ceiling_tier), free(l->host_id), free(l->claim_digest), free(l->statement);
	free(l->claimed_tier);
	memset(l, 0, sizeof *l);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int on_row(void *ctx, const isotier_statement_listing *row)
{
	struct export *x = ctx;
	if (row->statement && *row->statement) {
		isotier__fputs_sanitized(stdout, row->statement);
		putchar('\n');
		x->written++;
	} else {
		x->unsigned_rows++;
	}
	if (!row->backend)
		return 0;
	size_t i = 0;
	while (i < x->n && strcmp(x->rows[i].backend, row->backend))
		i++;
	if (i == x->n) {
		if (x->n == MAX_BACKENDS)
			return 0;
		x->n++;
	}
	struct latest *l = &x->rows[i];
	latest_clear(l);
	l->backend = strdup(row->backend);
	l->uuid = dup_or_null(row->uuid);
	l->verdict = dup_or_null(row->verdict);
	l->observed_at = dup_or_null(row->observed_at);
	l->ceiling_tier = dup_or_null(row->ceiling_tier);
	l->host_id = dup_or_null(row->host_id);
	l->claim_digest = dup_or_null(row->claim_digest);
	l->statement = dup_or_null(row->statement);
	l->claimed_tier = dup_or_null(row->claimed_tier);
	l->own_run = row->own_run;
	return l->backend ? 0 : ISOTIER_ENOMEM;
}

/* The summary of one backend's latest row: PASSED only for a signed proof. */
static int summarise(const isotier_identity *id, const isotier_keyring *kr, const struct latest *l,
                     const char *now, isotier_error *err)
{
	isotier_verdict v;
	char why[512] = "";
	isotier_statement_row sr = {.uuid = l->uuid,
	                            .backend = l->backend,
	                            .verdict = l->verdict,
	                            .observed_at = l->observed_at,
	                            .ceiling_tier = l->ceiling_tier,
	                            .host_id = l->host_id,
	                            .claim_digest = l->claim_digest};
	isotier_tier claimed = ISOTIER_UNKNOWN, ceiling = ISOTIER_UNKNOWN;
	bool proves = l->verdict && isotier__verdict_parse(&v, l->verdict) == 0 &&
	              isotier__verdict_is(v, VERDICT_PROVES) && l->claimed_tier &&
	              isotier_tier_parse(&claimed, l->claimed_tier) == 0 &&
	              claimed != ISOTIER_UNKNOWN && l->ceiling_tier &&
	              isotier_tier_parse(&ceiling, l->ceiling_tier) == 0 &&
	              isotier_tier_satisfies(ceiling, claimed);
	bool passed = proves && l->own_run &&
	              isotier__statement_check(l->statement, kr, &sr, why, sizeof why);
	isotier_vsa vsa = {.backend = l->backend,
	                   .host_id = l->host_id,
	                   .claim_digest = l->claim_digest,
	                   .tier = l->claimed_tier,
	                   .input_uuid = l->uuid,
	                   .input_envelope = l->statement,
	                   .time_verified = now,
	                   .passed = passed};
	cleanup_free char *env = NULL;
	int rc = isotier__vsa_sign(id, &vsa, &env, err);
	if (rc < 0)
		return rc;
	fputs(env, stdout);
	putchar('\n');
	return 0;
}

static int attest_main(int argc, char **argv)
{
	const char *db = isotier__default_db_path();
	int first = 0;
	int prc = cli_parse(&spec, argc, argv, on_option, &db, &first);
	if (prc)
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	if (argc - first != 1 || strcmp(argv[first], "export")) {
		cli_usage(&spec, stderr);
		return EXIT_USAGE;
	}
	isotier_error err = {0};
	if (!isotier__history_is_uri(db) && access(db, F_OK) != 0) {
		cli_error("history database %s does not exist", db);
		return EXIT_NOINPUT;
	}
	isotier_identity id;
	if (isotier__identity_load(&id, true, &err) < 0) {
		isotier__identity_clear(&id);
		cli_error("%s", err.message);
		return EXIT_CANTCREAT;
	}
	char machine[64];
	isotier__host_id(machine, sizeof machine);
	struct export x = {.host_id = machine};
	cleanup_history isotier_history *h = NULL;
	int rc = isotier__history_open_readonly(&h, db, &err);
	if (rc == 0)
		rc = isotier__history_scan_statements(h, NULL, on_row, &x, &err);
	isotier_keyring kr;
	isotier__keyring_load(&kr);
	char now[32];
	isotier__utc_now(now, sizeof now);
	for (size_t i = 0; rc == 0 && i < x.n; i++)
		if (machine[0] && x.rows[i].host_id && !strcmp(x.rows[i].host_id, machine))
			rc = summarise(&id, &kr, &x.rows[i], now, &err);
	for (size_t i = 0; i < x.n; i++)
		latest_clear(&x.rows[i]);
	isotier__keyring_clear(&kr);
	isotier__identity_clear(&id);
	if (rc < 0) {
		cli_error("%s", err.message);
		return EXIT_IOERR;
	}
	if (x.unsigned_rows)
		fprintf(stderr,
		        "isotier: %zu unsigned observation%s left out (recorded before schema 11, "
		        "imported, or not signed)\n",
		        x.unsigned_rows, x.unsigned_rows == 1 ? "" : "s");
	return EXIT_OK;
}

const struct cli_command cli_attest = {
    .name = "attest",
    .summary = "export signed statements and SLSA verification summaries (JSON Lines)",
    .main = attest_main,
};
