/* SPDX-License-Identifier: Apache-2.0 */
/* error.c - the error object: code, errno and a message chain. */
#include "base.h"
#include "redact.h"

#include <string.h>

static void error_vformat(isotier_error *err, int sys_errno, const char *fmt, va_list ap)
{
	int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
	if (n < 0)
		err->message[0] = '\0';
	if (sys_errno) {
		size_t used = strnlen(err->message, sizeof err->message);
		snprintf(err->message + used, sizeof err->message - used, ": %s",
		         strerror(sys_errno));
	}
}

int isotier__error_set(isotier_error *err, int code, int sys_errno, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	err->code = code;
	err->sys_errno = sys_errno;
	err->db_code = 0;
	error_vformat(err, sys_errno, fmt, ap);
	va_end(ap);
	isotier__redact(err->message, sizeof err->message);
	return code;
}

int isotier__error_prefix(isotier_error *err, const char *fmt, ...)
{
	if (!err)
		return ISOTIER_ERROR;
	char context[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(context, sizeof context, fmt, ap);
	va_end(ap);
	char previous[sizeof err->message];
	memcpy(previous, err->message, sizeof previous);
	/* Truncation keeps the outermost context, which is what a reader needs first. */
	int n = snprintf(err->message, sizeof err->message, "%s: ", context);
	if (n > 0 && (size_t)n < sizeof err->message)
		strncat(err->message, previous, sizeof err->message - (size_t)n - 1);
	isotier__redact(err->message, sizeof err->message);
	return err->code;
}

void isotier__error_clear(isotier_error *err)
{
	if (err) {
		err->code = 0;
		err->sys_errno = 0;
		err->db_code = 0;
		err->message[0] = '\0';
	}
}

const char *isotier_strerror(int code)
{
	static const char *const names[] = {
	    [0] = "OK",      [1] = "ERROR",        [2] = "EINVAL",    [3] = "ENOMEM", [4] = "EIO",
	    [5] = "ECONFIG", [6] = "EUNAVAILABLE", [7] = "ETIMEDOUT", [8] = "EDATA",  [9] = "EDB",
	    [10] = "EINTR",  [11] = "ENOTFOUND",   [12] = "EBUSY",
	};
	int idx = -code;
	if (idx < 0 || (size_t)idx >= sizeof names / sizeof names[0] || !names[idx])
		return "EUNKNOWN";
	return names[idx];
}
