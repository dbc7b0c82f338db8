/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verify_steps.h - what `isotier verify` does on its main thread with each
 * finished job (cmd_verify.c drives them): judge it (verify_judge.c),
 * record it in the history, print the run (verify_output.c) and end it
 * (verify_exit.c).
 */
#ifndef ISOTIER_VERIFY_STEPS_H
#define ISOTIER_VERIFY_STEPS_H

#include "verify_run.h"

#include "../../reference/api/isotier_tool.h"

#include <stdint.h>

/* Marks each job whose catalogue entry does not load or validate (its
 * claim_invalid says which file and field); adds validation findings. */
void flag_invalid_claims(job *jobs, size_t n, const isotier_catalogue *cat, isotier_findings *load);
/* Judges the job's claim against its observation (observe.h: the parsed
 * probe output and the sandbox's kernel relation). */
void judge_job(job *j, const char *host_provider);

/* One observation row (record_job) or the run's end (end_run), as
 * history_retry() transactions. */
struct record_arg {
	isotier_history *h;
	int64_t run_id;
	job *j;
	const char *status; /* run_end's */
	int jobs;           /* the run's --jobs, stored with each observation */
};
int record_job(void *arg, isotier_error *err);
int end_run(void *arg, isotier_error *err);

/* The progress line on a terminal, the summary table, or one JSON document. */
void print_progress(const job *j, size_t index, size_t total);
void print_summary(const job *jobs, size_t n, int max_jobs, int64_t run_id, const char *db,
                   const char *commit, int64_t wall_ms, bool run_ended);
void print_json(const job *jobs, size_t n, int max_jobs, int64_t run_id, const char *db,
                const char *commit, int64_t wall_ms, bool interrupted, int exit_code,
                bool run_ended);

/* What the run saw besides the verdicts: the exit status's other inputs. */
typedef struct verify_outcome {
	bool interrupted, bad_data, db_error;
	bool not_found; /* --sandbox-id: the provider has no such sandbox (66; nothing stored) */
	isotier_error db_err;
	int64_t db_waited;
} verify_outcome;

/* The exit status, most severe first (cmd_verify.c's top says the order); *failure the
 * operational part alone (what the run row's status says), *alerted whether something a
 * database failure's status must not hide happened. all: --all (every backend unavailable is
 * then 69); sig: the signal that stopped the run, 0 when none. Prints each leaked sandbox. */
int verify_exit_status(int *failure, bool *alerted, const job *jobs, size_t n_jobs, bool all,
                       int sig, const verify_outcome *out);
/* Prints why the history database db failed and returns the exit status: 75 a lock held
 * past waited_ms, 65 bad data (not a database, a newer schema), else 74. */
int verify_db_fail(const isotier_error *err, const char *db, int64_t waited_ms);

#endif
