/* SPDX-License-Identifier: Apache-2.0 */
/* version.c - the running library's version (include/isotier.h); test_version holds the string
 * and the numbers to one version. */
#include "base.h"

const char *isotier_version(int *major, int *minor, int *patch)
{
	if (major)
		*major = ISOTIER_VERSION_MAJOR;
	if (minor)
		*minor = ISOTIER_VERSION_MINOR;
	if (patch)
		*patch = ISOTIER_VERSION_PATCH;
	return ISOTIER_VERSION;
}
