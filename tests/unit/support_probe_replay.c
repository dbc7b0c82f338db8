/* SPDX-License-Identifier: Apache-2.0 */
/* support_probe_replay.c - the probe's report for a replay root, as text.
 * Its own file: the probe's struct probe_result and the library's parsed
 * one share a name and cannot meet in one translation unit. */
#include "../../probes/probe.h"

#include <stdlib.h>

char *support_probe_replay_json(const char *root, size_t *len);

char *support_probe_replay_json(const char *root, size_t *len)
{
	struct probe_input in;
	if (probe_input_init(&in, root, NULL) < 0)
		return NULL;
	struct probe_result *res = calloc(1, sizeof *res);
	char *json = NULL;
	FILE *f = res ? open_memstream(&json, len) : NULL;
	if (f) {
		probe_run(&in, res);
		probe_report_json(f, res);
		fclose(f);
	}
	free(res);
	probe_input_free(&in);
	return json;
}
