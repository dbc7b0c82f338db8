/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend-run - drives one backend for the integration tests and benches.
 *
 *   backend-run --list
 *   backend-run --backend NAME --available
 *   backend-run --backend NAME [--probe PATH] [--capture DIR] [--rootfs DIR]
 *               [--minimal] [--timeout S] [--repeat N] -- CMD [ARGS...]
 *
 * Provisions, execs CMD (output relayed), destroys. Prints "exit-status: N"
 * on stderr and exits with N; 69 unavailable; 124 timed out; 130 interrupted
 * by SIGINT or SIGTERM (after cleanup); 70 any other error (message on stderr).
 * Signals are wired to the backend calls' cancel_fd as in the CLI (cancel.h).
 */
#include "../../reference/backends/backend.h"
#include "../../reference/core/proc.h"

#include "../../verify/run/cancel.h"

#include <getopt.h>
#include <string.h>

static int usage(void)
{
	fprintf(
	    stderr,
	    "usage: backend-run --list | --backend NAME [--available] [--probe PATH] "
	    "[--capture DIR] [--rootfs DIR] [--minimal] [--timeout S] [--repeat N] -- CMD...\n");
	return 64;
}

static int code_exit(int rc)
{
	switch (rc) {
	case ISOTIER_EUNAVAILABLE: return 69;
	case ISOTIER_ETIMEDOUT: return 124;
	case ISOTIER_EINTR: return 130;
	default: return 70;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"list", no_argument, NULL, 'l'},          {"backend", required_argument, NULL, 'b'},
	    {"available", no_argument, NULL, 'a'},     {"probe", required_argument, NULL, 'p'},
	    {"capture", required_argument, NULL, 'c'}, {"rootfs", required_argument, NULL, 'r'},
	    {"minimal", no_argument, NULL, 'm'},       {"timeout", required_argument, NULL, 't'},
	    {"repeat", required_argument, NULL, 'n'},  {NULL, 0, NULL, 0},
	};
	const char *name = NULL;
	bool list = false, avail = false;
	int repeat = 1;
	isotier_backend_spec spec = {0};
	int opt;
	while ((opt = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (opt) {
		case 'l': list = true; break;
		case 'b': name = optarg; break;
		case 'a': avail = true; break;
		case 'p': spec.probe_path = optarg; break;
		case 'c': spec.capture_dir = optarg; break;
		case 'r': spec.rootfs = optarg; break;
		case 'm': spec.minimal_root = true; break;
		case 't': spec.timeout_s = atoi(optarg); break;
		case 'n': repeat = atoi(optarg); break;
		default: return usage();
		}
	}
	/* SIGINT/SIGTERM only make the cancel descriptor readable: the driver cannot die
	 * between two steps and leak a sandbox; the step running stops, cleanup runs. */
	if (cli_cancel_start() < 0) {
		fprintf(stderr, "backend-run: cannot watch SIGINT/SIGTERM\n");
		return 70;
	}
	spec.cancel_fd = cli_cancel_fd();
	char why[512];
	if (list) {
		for (size_t i = 0; i < isotier__backend_count(); i++) {
			const isotier_backend *b = isotier__backend_at(i);
			int ok = b->available(why, sizeof why);
			printf("%s\t%s\t%s\t%s\n", b->name, b->catalogue_id ? b->catalogue_id : "-",
			       ok ? "available" : "unavailable", why);
		}
		return 0;
	}
	if (!name)
		return usage();
	const isotier_backend *b = isotier__backend_lookup(name);
	if (!b) {
		fprintf(stderr, "backend-run: no backend %s\n", name);
		return 64;
	}
	if (avail) {
		int ok = b->available(why, sizeof why);
		printf("%s: %s: %s\n", b->name, ok ? "available" : "unavailable", why);
		return ok ? 0 : 69;
	}
	if (optind >= argc)
		return usage();
	int status = 0;
	for (int i = 0; i < repeat; i++) {
		isotier_error err = {0};
		void *state = NULL;
		int rc = b->provision(&state, &spec, &err);
		if (rc == 0) {
			isotier_exec_request req = {
			    .argv = (const char *const *)(argv + optind),
			    .stdin_fd = -1,
			    .stdout_fd = -1,
			    .stderr_fd = -1,
			};
			rc = b->exec(state, &req, &status, &err);
			b->destroy(state);
		}
		if (rc && cli_cancel_signal()) {
			fprintf(stderr, "backend-run: interrupted by signal %d: %s\n",
			        cli_cancel_signal(), err.message);
			return 130;
		}
		if (rc) {
			fprintf(stderr, "backend-run: %s: %s\n", isotier_strerror(rc), err.message);
			return code_exit(rc);
		}
	}
	fprintf(stderr, "exit-status: %d\n", status);
	return status;
}
