/* SPDX-License-Identifier: Apache-2.0 */
/* expiry.c - when a catalogue source stops defending a tier: its as-of date
 * (retrieved, or the day a sources check re-verified it) plus the max age. */
#include "catalogue.h"

#include <stdio.h>
#include <string.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long)doe - 719468;
}

int isotier__date_days(long *out, const char *date)
{
	if (!date || strlen(date) != 10 || date[4] != '-' || date[7] != '-')
		return ISOTIER_EINVAL;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (date[i] < '0' || date[i] > '9'))
			return ISOTIER_EINVAL;
	long y =
	    (date[0] - '0') * 1000 + (date[1] - '0') * 100 + (date[2] - '0') * 10 + (date[3] - '0');
	unsigned m = (unsigned)((date[5] - '0') * 10 + (date[6] - '0'));
	unsigned d = (unsigned)((date[8] - '0') * 10 + (date[9] - '0'));
	static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (y < 1970 || m < 1 || m > 12 || d < 1)
		return ISOTIER_EINVAL;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[m - 1] + (m == 2 && leap))
		return ISOTIER_EINVAL;
	*out = days_from_civil(y, m, d);
	return 0;
}

int isotier__date_part_days(long *out, const char *date_or_timestamp)
{
	char date[11];
	if (!date_or_timestamp || strnlen(date_or_timestamp, 10) < 10)
		return ISOTIER_EINVAL;
	memcpy(date, date_or_timestamp, 10);
	date[10] = '\0';
	return isotier__date_days(out, date);
}

const char *isotier__source_as_of(const isotier_source *s)
{
	long r, v;
	if (!s->verified || isotier__date_days(&v, s->verified) < 0)
		return s->retrieved;
	if (s->retrieved && isotier__date_days(&r, s->retrieved) == 0 && r >= v)
		return s->retrieved;
	return s->verified;
}

/* Civil date of a day count (H. Hinnant's algorithm, the inverse of
 * validate.c's days_from_civil). */
void isotier__civil_from_days(long z, long *y, unsigned *m, unsigned *d)
{
	z += 719468;
	long era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (long)yoe + era * 400 + (*m <= 2);
}

int isotier__source_expires(const isotier_source *s, int max_age_days, char *buf, size_t len)
{
	long days, y;
	unsigned m, d;
	if (isotier__date_days(&days, isotier__source_as_of(s)) < 0)
		return -1;
	isotier__civil_from_days(days + max_age_days, &y, &m, &d);
	snprintf(buf, len, "%04ld-%02u-%02u", y, m, d);
	return 0;
}

const isotier_source *isotier__provider_best_source(const isotier_provider *p)
{
	const isotier_source *best = NULL;
	for (size_t i = 0; p && i < p->n_sources; i++) {
		const isotier_source *s = &p->sources[i];
		if (!s->publisher || strcmp(s->publisher, "provider") || !s->quote || !s->quote[0])
			continue;
		const char *at = isotier__source_as_of(s),
		           *bat = best ? isotier__source_as_of(best) : NULL;
		if (!best || (at && bat && strcmp(at, bat) > 0))
			best = s;
	}
	return best;
}
