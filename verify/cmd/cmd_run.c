/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_run.c - `isotier run`: create, run one command, relay its output and
 * exit status, destroy. A refused tier is EX_CONFIG with ConfigurationError. */
#include "../run/cancel.h"
#include "cli.h"
#include "cli_options.h"
#include "../../reference/api/isotier_tool.h"

#include <string.h>

static int check_tier(const char *opt, const char *value)
{
	isotier_tier t;
	if (isotier_tier_parse(&t, value) == 0)
		return 0;
	cli_error("%s: '%s' is not a tier (UNKNOWN, CONTAINER, GVISOR, MICROVM)", opt, value);
	return EXIT_USAGE;
}

static const struct cli_option options[] = {
    CLI_CHECKED_OPTION("backend", 'b', "NAME", cli_check_backend,
                       "the backend to create on (`isotier backends` lists them)"),
    CLI_CHECKED_OPTION("require-isolation", 'r', "T", check_tier,
                       "refuse unless the resolved tier satisfies T (UNKNOWN,\n"
                       "CONTAINER, GVISOR, MICROVM; default UNKNOWN: no floor)"),
    CLI_FLAG_OPTION("attest", 'a',
                    "run the probe inside after provisioning; a sandbox whose\n"
                    "observed tier does not back the claim is destroyed (fail\n"
                    "closed) before CMD runs"),
    CLI_FLAG_OPTION("trust-history", 'H',
                    "above CONTAINER without --attest: trust the catalogue and\n"
                    "the history alone (weaker: no proof of this sandbox;\n"
                    "runbook/tiers.md); without either such a floor is refused"),
    CLI_TEXT_OPTION("rootfs", 'R', "DIR",
                    "the sandbox's root (default: a read-only view of the host's)"),
    CLI_TEXT_OPTION("catalogue", 'c', "DIR",
                    "provider catalogue (default: `isotier paths` names it)"),
    CLI_NUMBER_OPTION("max-age", 'm', "DAYS", 1, 36500,
                      "a claim whose sources are older is not trusted above\n"
                      "UNKNOWN (default: the runbook's cadence)"),
    CLI_TEXT_OPTION("audit-log", 'A', "PATH",
                    "append a JSON Lines audit event per decision (fsync'd)"),
    CLI_TEXT_OPTION("otlp-endpoint", 'O', "URL", "export an OTLP/HTTP trace span of the create"),
    CLI_TEXT_OPTION("otlp-file", 'F', "PATH", "append the span as OTLP/JSON to PATH"),
    CLI_FLAG_OPTION("otlp-required", 'T', "a span that cannot be exported fails the create (74)"),
    CLI_NUMBER_OPTION("timeout", 't', "S", 1, 36500, "per child process, seconds (default 60)"),
    CLI_DEFAULTED_OPTION("db", 'd', "PATH", cli_check_db,
                         "the history `isotier verify` keeps (contradictions and\n"
                         "ceilings it recorded are honoured; audit events go there);\n"
                         "it must exist unless --new-db. Default: the host's history,\n"
                         "{} (the one the\n"
                         "runbook's job writes), read only: no audit events go\n"
                         "there; $ISOTIER_DB must exist; when the built-in one does\n"
                         "not exist yet nothing is verified (--require-verified refuses)",
                         cli_default_db_text),
    CLI_FLAG_OPTION("new-db", 'N', "create the --db history when it does not exist"),
    CLI_NUMBER_OPTION("require-verified", 'v', "D", 1, 36500,
                      "refuse a tier unless the latest observation of the backend\n"
                      "on this host is a proof (CONFIRMED or CONSISTENT) of the\n"
                      "catalogue's claim as it is now, made within D days;\n"
                      "without --require-isolation the claim is the floor\n"
                      "(recommended for untrusted code, runbook/tiers.md)"),
    CLI_OPTIONS_END,
};

static const struct cli_spec spec = {
    .name = "run",
    .synopsis = "usage: isotier run --backend NAME [--require-isolation TIER]\n"
                "                   [--attest | --trust-history]\n"
                "                   [--rootfs DIR] [--catalogue DIR] [--db PATH] [--new-db]\n"
                "                   [--max-age DAYS] [--require-verified DAYS]\n"
                "                   [--audit-log PATH] [--otlp-endpoint URL] [--otlp-file PATH]\n"
                "                   [--otlp-required] [--timeout S] -- CMD [ARGS...]",
    .about = "Creates a sandbox on NAME, refusing before anything is provisioned when the tier\n"
             "isotier can defend for it does not satisfy TIER (exit 78, ConfigurationError),\n"
             "runs CMD inside (by default over a read-only view of the host root), relays its\n"
             "output and exit status, and destroys the sandbox. Above CONTAINER the floor\n"
             "needs --attest (CMD runs in the probe's own process, only once its report\n"
             "proves this sandbox) or, weaker, --trust-history; else 78.",
    .options = options,
    .epilogue = "Exit: CMD's own status; 64 usage (an unknown backend or tier name); 66 the\n"
                "history named (--db, $ISOTIER_DB) does not exist or is a directory; 77 the\n"
                "history cannot be read by this user (EACCES: join the isotier group); 65 it\n"
                "is not a database or its schema is newer; 78 tier refused (ConfigurationError);\n"
                "65/69/70/74/75 isotier could not create or run the\n"
                "sandbox; 128+N killed by signal N. A CMD that cannot be found or executed\n"
                "inside is 127 on host and qemu-microvm; bwrap and runc report their own exec\n"
                "failure as 1 and runsc as 128, which cannot be told from CMD exiting so.\n"
                "--audit-log, --otlp-file and --db must name regular files (or nothing yet): a\n"
                "FIFO, device or directory is refused (64; --db: 66), never waited on. The audit\n"
                "log is required: the sandbox is not created when it cannot be written. A span\n"
                "that cannot be exported costs a warning, unless --otlp-required: then the\n"
                "create fails closed (74) before anything is provisioned.",
    .operands = true,
};

static int on_option(void *ctx, int key, const char *value, int number)
{
	isotier_create_opts *opts = ctx;
	switch (key) {
	case 'b': opts->backend = value; break;
	case 'r': isotier_tier_parse(&opts->require_isolation, value); break; /* checked */
	case 'a': opts->attest = true; break;
	case 'H': opts->trust_history = true; break;
	case 'R': opts->rootfs = value; break;
	case 'c': opts->catalogue_dir = value; break;
	case 'd': opts->db_path = value; break;
	case 'N': opts->create_db = true; break;
	case 'A': opts->audit_log = value; break;
	case 'O': opts->otlp_endpoint = value; break;
	case 'F': opts->otlp_file = value; break;
	case 'T': opts->otlp_required = true; break;
	case 'm': opts->max_source_age_days = number; break;
	case 'v': opts->require_verified_days = number; break;
	case 't': opts->timeout_s = number; break;
	default: return EXIT_SOFTWARE;
	}
	return 0;
}

/* The library's warnings, as the CLI prints its own. */
static void run_log(isotier_log_level level, const char *message, void *data)
{
	(void)level;
	(void)data;
	fputs("isotier: warning: ", stderr);
	isotier__fputs_sanitized(stderr, message);
	fputc('\n', stderr);
}

static int run_main(int argc, char **argv)
{
	/* Same history as verify and backends: a CONTRADICTED observation that
	 * `isotier verify` stored is honoured. No --db: the library reads the
	 * host's default history (db_path NULL: isotier__default_db_path()),
	 * exactly as every create() on this host does; audit events go to a
	 * history only when --db names it. A name this build does not know is a
	 * usage error, as in verify (cli_check_backend). */
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.log = run_log;
	int optind_after = 0;
	int prc = cli_parse(&spec, argc, argv, on_option, &opts, &optind_after);
	if (prc)
		return prc == CLI_HELP_SHOWN ? EXIT_OK : prc;
	if (!opts.backend || optind_after >= argc) {
		cli_error("run needs --backend NAME and a command after --");
		cli_usage(&spec, stderr);
		return EXIT_USAGE;
	}
	/* SIGINT/SIGTERM cancel through cancel.c: the command's process group is
	 * killed, and a signal between two steps still lets the sandbox be torn
	 * down before we exit 128+N. */
	if (cli_cancel_start() < 0) {
		cli_error("run: cannot watch SIGINT/SIGTERM");
		return EXIT_SOFTWARE;
	}
	opts.cancel_fd = cli_cancel_fd();
	isotier_error err = {0};
	isotier_sandbox *sb = NULL;
	int rc = isotier_create(&sb, &opts, &err);
	if (rc < 0 && cli_cancel_signal())
		return 128 + cli_cancel_signal();
	if (rc == ISOTIER_ECONFIG) {
		fputs("ConfigurationError: ", stderr);
		isotier__fputs_sanitized(stderr, err.message);
		fputc('\n', stderr);
		return EXIT_CONFIG;
	}
	if (rc < 0)
		return cli_fail(&err);
	if (getenv("ISOTIER_VERBOSE")) {
		fputs(isotier_sandbox_repr(sb), stderr);
		fputc('\n', stderr);
	}
	isotier_exec_opts eo = ISOTIER_EXEC_OPTS_INIT;
	eo.stdin_fd = 0, eo.stdout_fd = 1, eo.stderr_fd = 2, eo.timeout_s = opts.timeout_s;
	eo.cancel_fd = opts.cancel_fd;
	int status = 0;
	rc = isotier_sandbox_exec(&status, sb, (const char *const *)argv + optind_after, &eo, &err);
	isotier_sandbox_destroy(sb);
	if (cli_cancel_signal())
		return 128 + cli_cancel_signal();
	if (rc < 0)
		return cli_fail(&err);
	return status;
}

const struct cli_command cli_run = {
    .name = "run",
    .summary = "run a command in a sandbox, refusing tiers isotier cannot defend",
    .main = run_main,
};
