/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the cron expressions of wake alarms (daemon/core/cron.h): what parses and what does
 * not, and the next firing time across month, year and leap-day boundaries, with the Vixie
 * day-of-month/day-of-week rule. Runs in UTC; the DST cases switch to Europe/Berlin when the
 * zone is installed. */
#include <check.h>
#include "check-tap.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cron.h"

static void use_tz(const char *tz)
{
        setenv("TZ", tz, 1);
        tzset();
}

/* Local wall time -> time_t. */
static time_t at(int y, int mo, int d, int h, int mi, int s)
{
        struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                         .tm_hour = h, .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };
        return mktime(&tm);
}

static CronSpec parse_ok(const char *expr)
{
        CronSpec c;
        char err[128] = "";
        int r = cron_parse(expr, &c, err, sizeof err);
        ck_assert_msg(r == 0, "'%s' should parse, got %d (%s)", expr, r, err);
        return c;
}

static void parse_bad(const char *expr, const char *field)
{
        CronSpec c;
        char err[128] = "";
        int r = cron_parse(expr, &c, err, sizeof err);
        ck_assert_msg(r == -EINVAL, "'%s' should not parse, got %d", expr, r);
        ck_assert_msg(strstr(err, field), "'%s': error '%s' should name '%s'", expr, err, field);
}

/* The next firing after `after`, which must exist. */
static time_t next_of(const char *expr, time_t after)
{
        CronSpec c = parse_ok(expr);
        time_t n = 0;
        int r = cron_next(&c, after, &n);
        ck_assert_msg(r == 0, "'%s': cron_next failed: %d", expr, r);
        ck_assert_msg(n > after, "'%s': next %lld not after %lld", expr, (long long)n, (long long)after);
        ck_assert_int_eq(n % 60, 0);
        return n;
}

#define ck_assert_time(got, y, mo, d, h, mi) \
        ck_assert_msg((got) == at(y, mo, d, h, mi, 0), "expected %04d-%02d-%02d %02d:%02d, got %s", \
                      y, mo, d, h, mi, ctime(&(time_t){ (got) }))

START_TEST(test_parse_masks)
{
        CronSpec c;

        c = parse_ok("* * * * *");
        ck_assert_uint_eq(c.minutes, (1ull << 60) - 1);
        ck_assert_uint_eq(c.hours, (1u << 24) - 1);
        ck_assert_uint_eq(c.days, 0xfffffffeu);          /* 1-31 */
        ck_assert_uint_eq(c.months, 0x1ffe);             /* 1-12 */
        ck_assert_uint_eq(c.weekdays, 0x7f);
        ck_assert(!c.dom_restricted && !c.dow_restricted);

        c = parse_ok("*/15 0 1 1 0");
        ck_assert_uint_eq(c.minutes, 1ull << 0 | 1ull << 15 | 1ull << 30 | 1ull << 45);
        ck_assert_uint_eq(c.hours, 1);
        ck_assert_uint_eq(c.days, 1u << 1);
        ck_assert_uint_eq(c.months, 1u << 1);
        ck_assert_uint_eq(c.weekdays, 1);
        ck_assert(c.dom_restricted && c.dow_restricted);

        /* ranges, steps on ranges, lists, "N/step" = N-max/step */
        c = parse_ok("0-30/10 9-17/4 1,15,31 2-3,12 1-5");
        ck_assert_uint_eq(c.minutes, 1ull << 0 | 1ull << 10 | 1ull << 20 | 1ull << 30);
        ck_assert_uint_eq(c.hours, 1u << 9 | 1u << 13 | 1u << 17);
        ck_assert_uint_eq(c.days, 1u << 1 | 1u << 15 | 1u << 31);
        ck_assert_uint_eq(c.months, 1u << 2 | 1u << 3 | 1u << 12);
        ck_assert_uint_eq(c.weekdays, 0x3e);
        c = parse_ok("5/15 * * * *");
        ck_assert_uint_eq(c.minutes, 1ull << 5 | 1ull << 20 | 1ull << 35 | 1ull << 50);
        c = parse_ok("59 23 31 12 6");
        ck_assert_uint_eq(c.minutes, 1ull << 59);

        /* day of week 7 is Sunday, like 0 */
        ck_assert_uint_eq(parse_ok("0 0 * * 7").weekdays, 1);
        ck_assert_uint_eq(parse_ok("0 0 * * 0-7").weekdays, 0x7f);
        ck_assert_uint_eq(parse_ok("0 0 * * 5-7").weekdays, 1 | 1u << 5 | 1u << 6);

        /* extra spaces between and around fields are tolerated */
        c = parse_ok("  0   3 * * *  ");
        ck_assert_uint_eq(c.hours, 1u << 3);
}
END_TEST

/* Vixie: a day field that starts with '*' counts as unrestricted, even with a step. */
START_TEST(test_parse_restricted_flags)
{
        CronSpec c;

        c = parse_ok("0 0 13 * *");
        ck_assert(c.dom_restricted && !c.dow_restricted);
        c = parse_ok("0 0 * * 5");
        ck_assert(!c.dom_restricted && c.dow_restricted);
        c = parse_ok("0 0 */2 * 1");
        ck_assert(!c.dom_restricted && c.dow_restricted);
        c = parse_ok("0 0 1-31 * *");
        ck_assert(c.dom_restricted);
}
END_TEST

START_TEST(test_parse_errors)
{
        CronSpec c;

        parse_bad("", "minute");
        parse_bad("* * * *", "day of week");
        parse_bad("* * * * * *", "more than five fields");
        parse_bad("60 * * * *", "minute");
        parse_bad("* 24 * * *", "hour");
        parse_bad("* * 0 * *", "day of month");
        parse_bad("* * 32 * *", "day of month");
        parse_bad("* * * 0 *", "month");
        parse_bad("* * * 13 *", "month");
        parse_bad("* * * * 8", "day of week");
        parse_bad("*/0 * * * *", "minute");
        parse_bad("5-1 * * * *", "minute");
        parse_bad("a * * * *", "minute");
        parse_bad("-1 * * * *", "minute");
        parse_bad("1- * * * *", "minute");
        parse_bad("1,,2 * * * *", "minute");
        parse_bad("1, * * * *", "minute");
        parse_bad("*5 * * * *", "minute");
        parse_bad("1/ * * * *", "minute");
        parse_bad("100000 * * * *", "minute");
        parse_bad("* * * JAN *", "month");       /* names are not part of the syntax */
        parse_bad("* * * * MON", "day of week");
        /* the error names the field and its range */
        {
                char err[128];
                ck_assert_int_eq(cron_parse("0 25 * * *", &c, err, sizeof err), -EINVAL);
                ck_assert_str_eq(err, "bad hour field '25' (allowed 0-23)");
        }
        /* no error buffer is fine */
        ck_assert_int_eq(cron_parse("x", &c, NULL, 0), -EINVAL);
}
END_TEST

START_TEST(test_next_basic)
{
        /* strictly after: at the firing minute itself, the next one is a day later */
        ck_assert_time(next_of("0 3 * * *", at(2026, 12, 4, 3, 0, 0)), 2026, 12, 5, 3, 0);
        ck_assert_time(next_of("0 3 * * *", at(2026, 12, 4, 2, 59, 59)), 2026, 12, 4, 3, 0);
        /* seconds are rounded up to the next whole minute */
        ck_assert_time(next_of("* * * * *", at(2026, 12, 4, 3, 0, 30)), 2026, 12, 4, 3, 1);
        ck_assert_time(next_of("*/15 * * * *", at(2026, 12, 4, 3, 1, 0)), 2026, 12, 4, 3, 15);
        ck_assert_time(next_of("*/15 * * * *", at(2026, 12, 4, 3, 50, 0)), 2026, 12, 4, 4, 0);
        ck_assert_time(next_of("5/15 * * * *", at(2026, 12, 4, 3, 51, 0)), 2026, 12, 4, 4, 5);
        /* the hour rolls over a day end */
        ck_assert_time(next_of("30 22 * * *", at(2026, 12, 4, 23, 0, 0)), 2026, 12, 5, 22, 30);
}
END_TEST

START_TEST(test_next_month_and_year_ends)
{
        ck_assert_time(next_of("0 0 * * *", at(2026, 1, 31, 23, 59, 30)), 2026, 2, 1, 0, 0);
        ck_assert_time(next_of("0 0 1 1 *", at(2026, 12, 31, 12, 0, 0)), 2027, 1, 1, 0, 0);
        ck_assert_time(next_of("59 23 31 12 *", at(2026, 12, 31, 23, 59, 0)), 2027, 12, 31, 23, 59);
        /* a 31st skips the months without one */
        ck_assert_time(next_of("0 0 31 * *", at(2026, 4, 1, 0, 0, 0)), 2026, 5, 31, 0, 0);
        ck_assert_time(next_of("0 12 31 * *", at(2026, 8, 31, 12, 0, 0)), 2026, 10, 31, 12, 0);
        /* a leap day waits for the next leap year */
        ck_assert_time(next_of("0 0 29 2 *", at(2026, 3, 1, 0, 0, 0)), 2028, 2, 29, 0, 0);
        /* the last minute of February in a leap year */
        ck_assert_time(next_of("59 23 * 2 *", at(2028, 2, 29, 0, 0, 0)), 2028, 2, 29, 23, 59);
        /* month lists and ranges */
        ck_assert_time(next_of("0 6 1 3,9 *", at(2026, 9, 1, 6, 0, 0)), 2027, 3, 1, 6, 0);
}
END_TEST

START_TEST(test_next_never)
{
        CronSpec c = parse_ok("0 0 30 2 *");
        time_t n = 0;
        ck_assert_int_eq(cron_next(&c, at(2026, 1, 1, 0, 0, 0), &n), -ERANGE);
        c = parse_ok("0 0 31 4,6,9,11 *");
        ck_assert_int_eq(cron_next(&c, at(2026, 1, 1, 0, 0, 0), &n), -ERANGE);
}
END_TEST

/* 2026-01-01 is a Thursday; 2026-01-02 a Friday; 2026-02-13 a Friday. */
START_TEST(test_next_dom_dow)
{
        time_t jan1 = at(2026, 1, 1, 12, 0, 0);

        /* only the day of month restricted */
        ck_assert_time(next_of("0 0 13 * *", jan1), 2026, 1, 13, 0, 0);
        /* only the day of week restricted */
        ck_assert_time(next_of("0 0 * * 5", jan1), 2026, 1, 2, 0, 0);
        ck_assert_time(next_of("0 0 * * 0", jan1), 2026, 1, 4, 0, 0);
        ck_assert_time(next_of("0 0 * * 7", jan1), 2026, 1, 4, 0, 0);
        /* both restricted: either matches (the 13th, or any Friday) */
        ck_assert_time(next_of("0 0 13 * 5", jan1), 2026, 1, 2, 0, 0);
        ck_assert_time(next_of("0 0 13 * 5", at(2026, 1, 10, 0, 0, 0)), 2026, 1, 13, 0, 0);
        /* "*" with a step is not a restriction (Vixie): both must match then —
         * an odd day of month that is a Friday: 2026-01-09 */
        ck_assert_time(next_of("0 0 */2 * 5", jan1), 2026, 1, 9, 0, 0);
        /* working hours on working days, across a weekend */
        ck_assert_time(next_of("0 9-17/4 * * 1-5", at(2026, 1, 2, 18, 0, 0)), 2026, 1, 5, 9, 0);
        ck_assert_time(next_of("0 9-17/4 * * 1-5", at(2026, 1, 5, 9, 0, 0)), 2026, 1, 5, 13, 0);
}
END_TEST

/* Local time: a minute that does not exist is skipped; a repeated hour fires once. */
START_TEST(test_next_dst)
{
        time_t n;

        /* tzdata is a test dependency (tests/deps): without it TZ falls back to UTC silently
         * and nothing below would test daylight saving time */
        ck_assert_msg(access("/usr/share/zoneinfo/Europe/Berlin", R_OK) == 0,
                      "/usr/share/zoneinfo/Europe/Berlin is missing: install tzdata (tests/deps)");
        use_tz("Europe/Berlin");
        /* 2026-03-29: 02:00 CET jumps to 03:00 CEST, so 02:30 does not exist that day */
        n = next_of("30 2 * * *", at(2026, 3, 28, 12, 0, 0));
        ck_assert_time(n, 2026, 3, 30, 2, 30);
        /* hourly jobs go on across the gap: 01:00 CET, then 03:00 CEST one real hour later */
        n = next_of("0 * * * *", at(2026, 3, 29, 1, 30, 0));
        ck_assert_int_eq(n, at(2026, 3, 29, 1, 30, 0) + 30 * 60);
        /* 2026-10-25: 03:00 CEST falls back to 02:00 CET; 02:30 fires once, then tomorrow */
        n = next_of("30 2 * * *", at(2026, 10, 25, 0, 0, 0));
        ck_assert_int_eq(n, at(2026, 10, 25, 0, 0, 0) + 150 * 60);
        ck_assert_time(next_of("30 2 * * *", n), 2026, 10, 26, 2, 30);
        use_tz("UTC");
}
END_TEST

int main(void)
{
        Suite *s = suite_create("cron");
        TCase *tc = tcase_create("cron");

        use_tz("UTC");
        tcase_add_test(tc, test_parse_masks);
        tcase_add_test(tc, test_parse_restricted_flags);
        tcase_add_test(tc, test_parse_errors);
        tcase_add_test(tc, test_next_basic);
        tcase_add_test(tc, test_next_month_and_year_ends);
        tcase_add_test(tc, test_next_never);
        tcase_add_test(tc, test_next_dom_dow);
        tcase_add_test(tc, test_next_dst);
        return run_tap(s, tc);
}
