/* check_run.h - runs one Check suite and turns its result into an exit status. */
#ifndef ISOTIER_CHECK_RUN_H
#define ISOTIER_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *suite)
{
	SRunner *sr = srunner_create(suite);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
