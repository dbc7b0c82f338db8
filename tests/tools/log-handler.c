/* SPDX-License-Identifier: Apache-2.0 */
/* log-handler.c - libisotier's warnings reach the handler the program gave,
 * and nothing reaches stderr: creates a sandbox whose span export must fail
 * (an OTLP endpoint nobody listens on), runs a command, destroys it.
 * usage: log-handler BACKEND ENDPOINT; prints each warning on stdout. */
#include <isotier.h>

#include <stdio.h>
#include <string.h>

static void on_log(isotier_log_level level, const char *message, void *data)
{
	int *count = data;
	(*count)++;
	printf("%s: %s\n", level == ISOTIER_LOG_WARNING ? "warning" : "?", message);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 64;
	int warnings = 0;
	isotier_create_opts opts = ISOTIER_CREATE_OPTS_INIT;
	opts.backend = argv[1];
	opts.otlp_endpoint = argv[2];
	opts.log = on_log;
	opts.log_data = &warnings;
	isotier_sandbox *sb = NULL;
	isotier_error err = {0};
	if (isotier_create(&sb, &opts, &err) < 0) {
		printf("create: %s\n", err.message);
		return 1;
	}
	const char *cmd[] = {"/bin/true", NULL};
	int status = -1;
	isotier_exec_opts eo = ISOTIER_EXEC_OPTS_INIT;
	if (isotier_sandbox_exec(&status, sb, cmd, &eo, &err) < 0)
		printf("exec: %s\n", err.message);
	isotier_sandbox_destroy(sb);
	printf("warnings %d, status %d\n", warnings, status);
	return warnings > 0 && status == 0 ? 0 : 1;
}
