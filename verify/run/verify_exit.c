/* SPDX-License-Identifier: Apache-2.0 */
/* verify_exit.c - how `isotier verify` ends (verify_steps.h): the exit status
 * from every judged job and what else the run saw, most severe first as
 * cmd_verify.c's top says, and what a history database failure tells the
 * user. */
#include "../cmd/cli.h"
#include "../history/history_retry.h"
#include "verify_steps.h"

#include <string.h>

int verify_db_fail(const isotier_error *err, const char *db, int64_t waited_ms)
{
	if (history_locked(err)) {
		char msg[ISOTIER_ERROR_MESSAGE_MAX + 256];
		snprintf(msg, sizeof msg,
		         "history database %s is locked by another process (waited %lld ms; "
		         "--busy-timeout MS waits longer): %s",
		         db, (long long)waited_ms, err->message);
		cli_error("%s", msg);
		return EXIT_TEMPFAIL;
	}
	/* Not a lock: retrying will not help. A schema this build does not know
	 * is bad data; anything else (no such directory, not a database, disk
	 * full) an I/O error. */
	cli_error("history database %s: %s%s", db, err->message, cli_db_why(db));
	if ((err->db_code & 0xff) == ISOTIER_DB_CANTOPEN && !strcmp(db, ISOTIER_DEFAULT_DB))
		fprintf(stderr,
		        "isotier: (the host's default history: create %s's directory, as the "
		        "runbook's job does, or name another with --db or $ISOTIER_DB)\n",
		        db);
	return err->code == ISOTIER_EDATA || (err->db_code & 0xff) == ISOTIER_DB_NOTADB
	           ? EXIT_DATAERR
	           : EXIT_IOERR;
}

int verify_exit_status(int *failure, bool *alerted, const job *jobs, size_t n_jobs, bool all,
                       int sig, const verify_outcome *out)
{
	bool contradicted = false, unproven = false, failed = false, unavailable_req = false,
	     start_failed = false, leaked = false, bad_data = out->bad_data;
	size_t n_unavailable = 0, n_handled = 0, n_sandboxes = 0;
	for (size_t i = 0; i < n_jobs; i++) {
		const job *j = &jobs[i];
		if (!j->handled || j->skipped)
			continue;
		n_handled++;
		contradicted |= isotier__verdict_is(j->verdict, VERDICT_AGAINST);
		unproven |= j->unproven;
		bad_data |= j->rejected;
		start_failed |= j->start_failed;
		failed |= j->obs.available && j->obs.rc < 0;
		if (j->obs.leaks[0]) {
			leaked = true;
			cli_error("LEAK: %s: %s (delete it by hand)", j->backend->name,
			          j->obs.leaks);
		}
		if (!j->obs.available) {
			n_unavailable++;
			unavailable_req |= j->explicit_;
		} else if (j->claim) {
			n_sandboxes++; /* a claim judged: something was verified */
		}
	}
	if (all && n_handled && n_unavailable == n_handled)
		unavailable_req = true;
	/* --all that verified no sandbox (the host backend alone, without a
	 * provider's claim, proves nothing): not a green run. */
	if (all && n_handled && !n_sandboxes && !unavailable_req) {
		cli_error("verify --all: no sandbox backend was verified (only backends without a "
		          "claim ran); nothing on this host is checked");
		unavailable_req = true;
	}
	/* An operational failure, most severe first; a contradiction outranks
	 * every one of them (it must alert even when another backend failed),
	 * a signal outranks everything (130 SIGINT, 143 SIGTERM). */
	*failure = out->db_error                     ? EXIT_TEMPFAIL
	           : failed                          ? EXIT_SOFTWARE
	           : unavailable_req || start_failed ? EXIT_UNAVAIL
	           : bad_data                        ? EXIT_DATAERR
	                                             : EXIT_OK;
	/* What a database failure's exit status must not hide (a leaked
	 * sandbox too: it costs money until a person deletes it). */
	*alerted = out->interrupted || leaked || contradicted || unproven;
	/* A sandbox left running at a provider outranks a contradiction: it costs
	 * money until a person deletes it, and both are printed. */
	return out->interrupted ? (sig > 0 ? 128 + sig : EXIT_INTERRUPTED)
	       : leaked         ? EXIT_SOFTWARE
	       : contradicted   ? EXIT_FINDING
	       : unproven       ? EXIT_UNPROVEN
	                        : *failure;
}
