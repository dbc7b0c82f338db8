/* SPDX-License-Identifier: Apache-2.0 */
/*
 * require_microvm.c - the one-line fail-closed affordance of ADR-0006:
 * ask for a sandbox that must be at least TIER; run a command in it.
 *
 *   cc require_microvm.c $(pkg-config --cflags --libs isotier) -o require_microvm
 *   ./require_microvm BACKEND TIER CMD [ARGS...]
 *
 * No db_path: the host's history is read ($ISOTIER_DB, else
 * /var/lib/isotier/isotier.db, which the runbook's scheduled job writes), so
 * a contradiction that job recorded refuses the tier here too.
 */
#include <isotier.h>

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s BACKEND TIER CMD [ARGS...]\n", argv[0]);
		return 64;
	}
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.backend = argv[1];
	if (isotier_tier_parse(&opts.require_isolation, argv[2]) < 0) {
		fprintf(stderr, "not a tier: %s\n", argv[2]);
		return 64;
	}
	/* Above CONTAINER the tier is about the sandbox the command runs in:
	 * prove it (each exec runs in the probe's own process, after its report). */
	opts.attest = opts.require_isolation > ISOTIER_CONTAINER;
	isotier_sandbox *sandbox = NULL;
	isotier_error err = {0};
	int rc = isotier_create(&sandbox, &opts, &err);
	if (rc == ISOTIER_ECONFIG) {
		fprintf(stderr, "ConfigurationError: %s\n", err.message);
		return 78;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", isotier_strerror(rc), err.message);
		return 1;
	}
	printf("%s\n", isotier_sandbox_repr(sandbox));
	fflush(stdout);
	isotier_exec_opts eo = ISOTIER_EXEC_OPTS_INIT;
	int status = 0;
	rc = isotier_sandbox_exec(&status, sandbox, (const char *const *)argv + 3, &eo, &err);
	isotier_sandbox_destroy(sandbox);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", isotier_strerror(rc), err.message);
		return 1;
	}
	return status;
}
