/* SPDX-License-Identifier: Apache-2.0 */
/* verify_output.c - what `isotier verify` prints: progress, the summary
 * table, the JSON document (verify_steps.h). Every string from a sandbox is
 * sanitised for the terminal. */
#include "../cmd/cli.h"
#include "verify_steps.h"

#include <cjson/cJSON.h>
#include <string.h>

/* ---- output -------------------------------------------------------------- */

static void claim_text(char *buf, size_t len, const job *j)
{
	/* A scope that narrows the claim beside the tier: a boundary between
	 * accounts only is not one between this user's sandboxes (per-sandbox
	 * is what a tier means, so it adds nothing to the table; --json has
	 * every scope). */
	const char *scope = j->claim && j->claim->scope && strcmp(j->claim->scope, "per-sandbox")
	                        ? j->claim->scope
	                        : NULL;
	if (j->claim)
		snprintf(buf, len, "%s (%s%s%s)", isotier_tier_name(j->claim->tier),
		         j->claim->mechanism ? j->claim->mechanism : "-", scope ? ", " : "",
		         scope ? scope : "");
	else
		snprintf(buf, len, "-");
}

static void observed_text(char *buf, size_t len, const job *j)
{
	bool parsed = !j->rejected && !j->start_failed && j->obs.available && j->obs.rc == 0;
	const char *vendor = parsed ? isotier__probe_result_vendor(&j->obs.run[0].probe) : "";
	if (!parsed)
		snprintf(buf, len, "-");
	else if (*vendor)
		snprintf(buf, len, "%s (%s)",
		         isotier__probe_tier_name(j->obs.run[0].probe.observed), vendor);
	else
		snprintf(buf, len, "%s", isotier__probe_tier_name(j->obs.run[0].probe.observed));
}

static void print_cell(FILE *f, const char *s, int width)
{
	isotier__fputs_inline(f, s);
	for (int k = (int)strlen(s); k < width; k++)
		fputc(' ', f);
}

void print_progress(const job *j, size_t index, size_t total)
{
	char observed[160];
	observed_text(observed, sizeof observed, j);
	char line[512];
	snprintf(line, sizeof line, "[%zu/%zu] %s: %s, observed %s (%lld ms)", index, total,
	         j->backend->name, isotier__verdict_name(j->verdict), observed,
	         (long long)j->total_ms);
	fputs("isotier: ", stderr);
	isotier__fputs_sanitized(stderr, line);
	fputc('\n', stderr);
}

void print_summary(const job *jobs, size_t n, int max_jobs, int64_t run_id, const char *db,
                   const char *commit, int64_t wall_ms, bool run_ended)
{
	/* The verdict column fits the longest word, NOT_CONTRADICTED; the claim
	 * and observation columns "CONTAINER (systemd-nspawn)" and a space. */
	/* WALL and CPU are the sandbox's own (verify_run.c), not the job's:
	 * under --jobs a backend's wall time also holds the wait for the CPU
	 * others used, which AT ONCE says; its CPU time does not. */
	/* An attested verdict says so in its cell (ADR-0020): the column widens
	 * for it only when there is one. */
	int vw = 18;
	for (size_t i = 0; i < n; i++)
		if (jobs[i].handled && !jobs[i].skipped && jobs[i].attested)
			vw = 22;
	printf("%-14s%-28s%-28s%-*s%-10s%-10s%s\n", "BACKEND", "CLAIMED", "OBSERVED", vw, "VERDICT",
	       "WALL", "CPU", "AT ONCE");
	int most = 0;
	for (size_t i = 0; i < n; i++) {
		const job *j = &jobs[i];
		if (!j->handled || j->skipped)
			continue;
		char claim[160], observed[160], wall[32], cpu[32] = "-", once[16];
		claim_text(claim, sizeof claim, j);
		observed_text(observed, sizeof observed, j);
		snprintf(wall, sizeof wall, j->timed ? "%lld ms" : "-",
		         (long long)j->sandbox_wall_ms);
		if (j->cpu_known)
			snprintf(cpu, sizeof cpu, "%lld ms", (long long)j->sandbox_cpu_ms);
		snprintf(once, sizeof once, "%d", j->overlap);
		most = j->overlap > most ? j->overlap : most;
		print_cell(stdout, j->backend->name, 14);
		print_cell(stdout, claim, 28);
		print_cell(stdout, observed, 28);
		char verdict[40];
		snprintf(verdict, sizeof verdict, "%s%s", isotier__verdict_name(j->verdict),
		         j->attested ? " (attested)" : "");
		print_cell(stdout, verdict, vw);
		print_cell(stdout, wall, 10);
		print_cell(stdout, cpu, 10);
		print_cell(stdout, once, 0);
		fputc('\n', stdout);
	}
	printf("\nWALL: each sandbox's own span (availability check to teardown); CPU: what its"
	       " processes used (-: they run outside isotier's children, under a daemon or a"
	       " provider)");
	if (most > 1)
		printf(
		    "; up to %d ran at once (--jobs %d), so WALL includes waiting for the CPU the"
		    " others used: compare CPU, or verify with --jobs 1",
		    most, max_jobs);
	printf("\n\n");
	for (size_t i = 0; i < n; i++)
		if (jobs[i].handled && !jobs[i].skipped) {
			printf("%s: ", jobs[i].backend->name);
			isotier__fputs_inline(stdout, jobs[i].reason);
			fputc('\n', stdout);
		}
	size_t lost = 0;
	for (size_t i = 0; i < n; i++)
		lost += jobs[i].handled && !jobs[i].skipped && !jobs[i].recorded;
	printf("\nrun %lld: %lld ms, catalogue %s, ", (long long)run_id, (long long)wall_ms,
	       commit);
	if (!lost) {
		fputs("stored in ", stdout);
		isotier__fputs_sanitized(stdout, db);
	} else {
		printf("%zu observation%s NOT stored (database ", lost, lost == 1 ? "" : "s");
		isotier__fputs_sanitized(stdout, db);
		fputs("):", stdout);
		for (size_t i = 0; i < n; i++)
			if (jobs[i].handled && !jobs[i].skipped && !jobs[i].recorded)
				printf(" %s", jobs[i].backend->name);
	}
	if (!run_ended)
		printf("; the run could not be marked finished");
	fputc('\n', stdout);
}

void print_json(const job *jobs, size_t n, int max_jobs, int64_t run_id, const char *db,
                const char *commit, int64_t wall_ms, bool interrupted, int exit_code,
                bool run_ended)
{
	cJSON *doc = cJSON_CreateObject();
	if (!doc)
		return;
	cJSON_AddStringToObject(doc, "schema", "isotier.verify/1");
	cJSON_AddNumberToObject(doc, "run_id", (double)run_id);
	cJSON_AddStringToObject(doc, "db", db);
	cJSON_AddStringToObject(doc, "catalogue_commit", commit);
	cJSON_AddStringToObject(doc, "tool_version", ISOTIER_VERSION);
	cJSON_AddBoolToObject(doc, "interrupted", interrupted);
	cJSON_AddNumberToObject(doc, "exit_code", exit_code);
	cJSON_AddNumberToObject(doc, "wall_ms", (double)wall_ms);
	cJSON_AddNumberToObject(doc, "jobs", max_jobs);
	bool all_recorded = true;
	for (size_t i = 0; i < n; i++)
		all_recorded &= !jobs[i].handled || jobs[i].skipped || jobs[i].recorded;
	cJSON_AddBoolToObject(doc, "stored", all_recorded);
	cJSON_AddBoolToObject(doc, "run_finished", run_ended);
	cJSON *arr = cJSON_AddArrayToObject(doc, "results");
	for (size_t i = 0; arr && i < n; i++) {
		const job *j = &jobs[i];
		if (!j->handled || j->skipped)
			continue;
		bool parsed =
		    !j->rejected && !j->start_failed && j->obs.available && j->obs.rc == 0;
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "backend", j->backend->name);
		cJSON_AddBoolToObject(o, "available", j->obs.available);
		if (j->claim) {
			cJSON_AddStringToObject(o, "provider_id", j->claim->id);
			cJSON_AddStringToObject(o, "claimed_tier",
			                        isotier_tier_name(j->claim->tier));
			cJSON_AddStringToObject(o, "claimed_mechanism",
			                        j->claim->mechanism ? j->claim->mechanism : "");
			if (j->claim->scope)
				cJSON_AddStringToObject(o, "claimed_scope", j->claim->scope);
			else
				cJSON_AddNullToObject(o, "claimed_scope");
		} else {
			cJSON_AddNullToObject(o, "provider_id");
			cJSON_AddNullToObject(o, "claimed_tier");
			cJSON_AddNullToObject(o, "claimed_mechanism");
		}
		cJSON_AddStringToObject(
		    o, "observed_tier",
		    parsed ? isotier__probe_tier_name(j->obs.run[0].probe.observed) : "UNKNOWN");
		const char *vendor =
		    parsed ? isotier__probe_result_vendor(&j->obs.run[0].probe) : "";
		if (*vendor)
			cJSON_AddStringToObject(o, "observed_vendor", vendor);
		else
			cJSON_AddNullToObject(o, "observed_vendor");
		if (parsed) {
			cJSON_AddStringToObject(o, "confidence",
			                        j->obs.run[0].probe.confidence_text);
			const char *lj = j->obs.run[0].probe.layers_json;
			isotier_error lerr = {0}; /* a list the parser wrote: refused, left out */
			cJSON *layers =
			    lj ? isotier__json_parse(lj, strlen(lj), "layers", &lerr) : NULL;
			if (layers)
				cJSON_AddItemToObject(o, "layers", layers);
		}
		cJSON_AddStringToObject(o, "verdict", isotier__verdict_name(j->verdict));
		cJSON_AddBoolToObject(o, "unproven", j->unproven);
		cJSON_AddBoolToObject(o, "attested", j->attested);
		if (parsed) {
			cJSON_AddStringToObject(o, "kernel_relation",
			                        isotier__kernel_relation_name(j->obs.relation));
			if (j->ceiling != PROBE_TIER_UNKNOWN)
				cJSON_AddStringToObject(o, "ceiling_tier",
				                        isotier__probe_tier_name(j->ceiling));
			else
				cJSON_AddNullToObject(o, "ceiling_tier");
		}
		cJSON_AddStringToObject(o, "reason", j->reason);
		cJSON_AddBoolToObject(o, "remote", j->backend->remote);
		if (j->obs.attached) /* verify --sandbox-id: the caller's sandbox */
			cJSON_AddStringToObject(o, "existing_sandbox", j->attach_id);
		else
			cJSON_AddNullToObject(o, "existing_sandbox");
		if (j->obs.leaks[0])
			cJSON_AddStringToObject(o, "leaked", j->obs.leaks);
		else
			cJSON_AddNullToObject(o, "leaked");
		cJSON_AddBoolToObject(o, "recorded", j->recorded);
		cJSON_AddNumberToObject(o, "duration_ms", (double)j->total_ms);
		/* The sandbox's own, apart from the contention (print_summary). */
		if (j->timed)
			cJSON_AddNumberToObject(o, "sandbox_wall_ms", (double)j->sandbox_wall_ms);
		else
			cJSON_AddNullToObject(o, "sandbox_wall_ms");
		if (j->cpu_known)
			cJSON_AddNumberToObject(o, "sandbox_cpu_ms", (double)j->sandbox_cpu_ms);
		else
			cJSON_AddNullToObject(o, "sandbox_cpu_ms");
		cJSON_AddNumberToObject(o, "overlap", j->overlap);
		cJSON *t = cJSON_AddObjectToObject(o, "timings_ms");
		if (t) {
			cJSON_AddNumberToObject(t, "available", (double)j->obs.available_ms);
			cJSON_AddNumberToObject(t, "provision", (double)j->obs.provision_ms);
			cJSON_AddNumberToObject(t, "exec", (double)j->obs.exec_ms);
			cJSON_AddNumberToObject(t, "destroy", (double)j->obs.destroy_ms);
			cJSON_AddNumberToObject(t, "evidence", (double)j->evidence_ms);
		}
		if (parsed && j->obs.run[0].probe.duration_us >= 0)
			cJSON_AddNumberToObject(o, "probe_duration_us",
			                        (double)j->obs.run[0].probe.duration_us);
		cJSON_AddNumberToObject(o, "evidence_bytes", (double)j->evidence.len);
	}
	cli_print_json(doc);
}
