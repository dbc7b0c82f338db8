/* cmd_run.c - `isotier run`: create, run one command, relay its output and
 * exit status, destroy. A refused tier is EX_CONFIG with ConfigurationError. */
#include "cancel.h"
#include "cli.h"
#include "../reference/isotier_tool.h"

#include <getopt.h>
#include <string.h>

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: isotier run --backend NAME [--require-isolation TIER] [--attest]\n"
		"                   [--rootfs DIR] [--catalogue DIR] [--db PATH] [--new-db]\n"
		"                   [--max-age DAYS] [--require-verified DAYS]\n"
		"                   [--audit-log PATH] [--otlp-endpoint URL] [--otlp-file PATH]\n"
		"                   [--otlp-required] [--timeout S] -- CMD [ARGS...]\n\n"
		"Creates a sandbox on NAME, refusing before anything is provisioned when the tier\n"
		"isotier can defend for it does not satisfy TIER (exit 78, ConfigurationError),\n"
		"runs CMD inside (by default over a read-only view of the host root), relays its\n"
		"output and exit status, and destroys the sandbox.\n"
		"  --backend NAME        the backend to create on (`isotier backends` lists them)\n"
		"  --require-isolation T refuse unless the resolved tier satisfies T (UNKNOWN,\n"
		"                        CONTAINER, GVISOR, MICROVM; default UNKNOWN: no floor)\n"
		"  --attest              run the probe inside after provisioning; a sandbox whose\n"
		"                        observed tier does not back the claim is destroyed (fail\n"
		"                        closed) before CMD runs\n"
		"  --rootfs DIR          the sandbox's root (default: a read-only view of the host's)\n"
		"  --catalogue DIR       provider catalogue (default: `isotier paths` names it)\n"
		"  --max-age DAYS        a claim whose sources are older is not trusted above\n"
		"                        UNKNOWN (default: the runbook's cadence)\n"
		"  --audit-log PATH      append a JSON Lines audit event per decision (fsync'd)\n"
		"  --otlp-endpoint URL   export an OTLP/HTTP trace span of the create\n"
		"  --otlp-file PATH      append the span as OTLP/JSON to PATH\n"
		"  --otlp-required       a span that cannot be exported fails the create (74)\n"
		"  --timeout S           per child process, seconds (default 60)\n"
		"  --help                this text\n"
		"  --db PATH             the history `isotier verify` keeps (contradictions and\n"
		"                        ceilings it recorded are honoured; audit events go there);\n"
		"                        it must exist unless --new-db. Default: the host's history,\n"
		"                        $ISOTIER_DB, else " ISOTIER_DEFAULT_DB " (the one the\n"
		"                        runbook's job writes), read only: no audit events go\n"
		"                        there, and when it does not exist yet nothing is\n"
		"                        verified (--require-verified refuses)\n"
		"  --new-db              create the --db history when it does not exist\n"
		"  --require-verified D  refuse a tier unless the latest observation of the backend\n"
		"                        on this host is a proof (CONFIRMED or CONSISTENT) of the\n"
		"                        catalogue's claim as it is now, made within D days\n"
		"                        (recommended for untrusted code, runbook/tiers.md)\n"
		"Exit: CMD's own status; 64 usage (an unknown backend or tier name); 66 the\n"
		"history database does not exist; 78 tier refused (ConfigurationError);\n"
		"65/69/70/74/75 isotier could not create or run the\n"
		"sandbox; 128+N killed by signal N. A CMD that cannot be found or executed\n"
		"inside is 127 on host and qemu-microvm; bwrap and runc report their own exec\n"
		"failure as 1 and runsc as 128, which cannot be told from CMD exiting so.\n"
		"--audit-log, --otlp-file and --db must name regular files (or nothing yet): a\n"
		"FIFO, device or directory is refused (64; --db: 66), never waited on. The audit\n"
		"log is required: the sandbox is not created when it cannot be written. A span\n"
		"that cannot be exported costs a warning, unless --otlp-required: then the\n"
		"create fails closed (74) before anything is provisioned.\n");
}

/* The library's warnings, as the CLI prints its own. */
static void run_log(isotier_log_level level, const char *message, void *data)
{
	(void)level;
	(void)data;
	fputs("isotier: warning: ", stderr);
	isotier_fputs_sanitized(stderr, message);
	fputc('\n', stderr);
}

static int run_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"backend", required_argument, NULL, 'b'},
		{"require-isolation", required_argument, NULL, 'r'},
		{"attest", no_argument, NULL, 'a'},
		{"rootfs", required_argument, NULL, 'R'},
		{"catalogue", required_argument, NULL, 'c'},
		{"db", required_argument, NULL, 'd'},
		{"new-db", no_argument, NULL, 'N'},
		{"max-age", required_argument, NULL, 'm'},
		{"require-verified", required_argument, NULL, 'v'},
		{"audit-log", required_argument, NULL, 'A'},
		{"otlp-endpoint", required_argument, NULL, 'O'},
		{"otlp-file", required_argument, NULL, 'F'},
		{"otlp-required", no_argument, NULL, 'T'},
		{"timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	/* Same history as verify and backends: a CONTRADICTED observation that
	 * `isotier verify` stored is honoured. No --db: the library reads the
	 * host's default history (db_path NULL: isotier_default_db_path()),
	 * exactly as every create() on this host does; audit events go to a
	 * history only when --db names it. */
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.log = run_log;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': opts.backend = optarg; break;
		case 'r':
			if (isotier_tier_parse(&opts.require_isolation, optarg) < 0) {
				cli_error("--require-isolation: '%s' is not a tier (UNKNOWN, CONTAINER, GVISOR, MICROVM)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'a': opts.attest = true; break;
		case 'R': opts.rootfs = optarg; break;
		case 'c': opts.catalogue_dir = optarg; break;
		case 'd':
			if ((c = cli_check_db("--db", optarg)) != EXIT_OK)
				return c;
			opts.db_path = optarg;
			break;
		case 'N': opts.create_db = true; break;
		case 'A': opts.audit_log = optarg; break;
		case 'O': opts.otlp_endpoint = optarg; break;
		case 'F': opts.otlp_file = optarg; break;
		case 'T': opts.otlp_required = true; break;
		case 'm':
		case 'v':
		case 't': {
			int *dst = c == 'm' ? &opts.max_source_age_days
				 : c == 'v' ? &opts.require_verified_days : &opts.timeout_s;
			if (cli_parse_int(c == 'm' ? "--max-age" : c == 'v' ? "--require-verified" : "--timeout",
					  optarg, 1, 36500, dst) < 0)
				return EXIT_USAGE;
			break;
		}
		case 'h': run_usage(stdout); return EXIT_OK;
		case ':': cli_error("run: %s needs a value", argv[optind - 1]); return EXIT_USAGE;
		default: return cli_unknown_option("run", argv[optind - 1], longopts, run_usage);
		}
	}
	if (!opts.backend || optind >= argc) {
		cli_error("run needs --backend NAME and a command after --");
		run_usage(stderr);
		return EXIT_USAGE;
	}
	/* A name this build does not know is a usage error, as in verify. */
	if (!isotier_backend_lookup(opts.backend)) {
		{
			const char *hint = cli_suggest_backend(opts.backend);
			cli_error("--backend: unknown backend '%s'%s%s%s", opts.backend, hint ? " (did you mean '" : "",
			          hint ? hint : "", hint ? "'?)" : "");
		}
		fprintf(stderr, "known backends:");
		for (size_t i = 0; i < isotier_backend_count(); i++)
			fprintf(stderr, " %s", isotier_backend_at(i)->name);
		fputc('\n', stderr);
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
		isotier_fputs_sanitized(stderr, err.message);
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
	rc = isotier_sandbox_exec(sb, (const char *const *)argv + optind, &eo, &status, &err);
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
