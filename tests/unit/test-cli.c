/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of suspendctl's pure helpers (client/cli.h): durations and times as an
 * administrator types them, JSON string escaping, and the human duration format. Runs in UTC. */
#include <check.h>
#include "check-tap.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static time_t at(int y, int mo, int d, int h, int mi, int s)
{
        struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                         .tm_hour = h, .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };
        return mktime(&tm);
}

START_TEST(test_duration)
{
        ck_assert_int_eq(cli_parse_duration("90"), 90);
        ck_assert_int_eq(cli_parse_duration("90s"), 90);
        ck_assert_int_eq(cli_parse_duration("5m"), 300);
        ck_assert_int_eq(cli_parse_duration("2h"), 7200);
        ck_assert_int_eq(cli_parse_duration("1d"), 86400);
        ck_assert_int_eq(cli_parse_duration("1h30m"), 5400);
        ck_assert_int_eq(cli_parse_duration("1d2h3m4s"), 93784);
        ck_assert_int_eq(cli_parse_duration("1m30"), 90);   /* a bare number is seconds */
        ck_assert_int_eq(cli_parse_duration("0"), 0);        /* callers refuse 0 where it makes no sense */
        ck_assert_int_eq(cli_parse_duration("007"), 7);
        ck_assert_int_eq(cli_parse_duration("100000000000"), 100000000000LL);
}
END_TEST

START_TEST(test_timeout)
{
        ck_assert_int_eq(cli_parse_timeout("25"), 25000);
        ck_assert_int_eq(cli_parse_timeout("2m"), 120000);
        ck_assert_int_eq(cli_parse_timeout("500ms"), 500);
        ck_assert_int_eq(cli_parse_timeout("1d"), 86400000);
        ck_assert_int_eq(cli_parse_timeout("0"), 0);   /* no limit */
        ck_assert_int_eq(cli_parse_timeout("1d1s"), -1);   /* over a day */
        ck_assert_int_eq(cli_parse_timeout("86400001ms"), -1);
        ck_assert_int_eq(cli_parse_timeout("5sms"), -1);
        ck_assert_int_eq(cli_parse_timeout("ms"), -1);
        ck_assert_int_eq(cli_parse_timeout("1.5s"), -1);
        ck_assert_int_eq(cli_parse_timeout(""), -1);
        ck_assert_int_eq(cli_parse_timeout(NULL), -1);
}
END_TEST

START_TEST(test_duration_errors)
{
        static const char *const bad[] = {
                "", "s", "m5", "5x", "5ms", "1.5h", "-5", "+5", " 5", "5 ", "1h 30m", "5mm",
                "100000000001", "99999999999999999999",
        };
        ck_assert_int_eq(cli_parse_duration(NULL), -1);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                ck_assert_msg(cli_parse_duration(bad[i]) == -1, "'%s' should be refused", bad[i]);
}
END_TEST

START_TEST(test_time_absolute)
{
        time_t now = at(2026, 12, 4, 2, 0, 0);

        ck_assert_int_eq(cli_parse_time("@1700000000", now), 1700000000);
        ck_assert_int_eq(cli_parse_time("2026-12-04 03:00", now), at(2026, 12, 4, 3, 0, 0));
        ck_assert_int_eq(cli_parse_time("2026-12-04 03:00:15", now), at(2026, 12, 4, 3, 0, 15));
        ck_assert_int_eq(cli_parse_time("2026-12-04T03:00", now), at(2026, 12, 4, 3, 0, 0));
        ck_assert_int_eq(cli_parse_time("2026-12-04T03:00:15", now), at(2026, 12, 4, 3, 0, 15));
        /* an absolute time in the past parses; the daemon refuses it (bad-field) */
        ck_assert_int_eq(cli_parse_time("2020-01-01 00:00", now), at(2020, 1, 1, 0, 0, 0));
        ck_assert_int_eq(cli_parse_time("2027-01-01 00:00", now), at(2027, 1, 1, 0, 0, 0));
}
END_TEST

/* "HH:MM" is the next occurrence: today if still ahead, else tomorrow, across month and
 * year ends. */
START_TEST(test_time_of_day)
{
        time_t now = at(2026, 12, 4, 2, 0, 0);

        ck_assert_int_eq(cli_parse_time("03:00", now), at(2026, 12, 4, 3, 0, 0));
        ck_assert_int_eq(cli_parse_time("23:59", now), at(2026, 12, 4, 23, 59, 0));
        ck_assert_int_eq(cli_parse_time("01:00", now), at(2026, 12, 5, 1, 0, 0));
        ck_assert_int_eq(cli_parse_time("02:00", now), at(2026, 12, 5, 2, 0, 0));   /* now: tomorrow */
        ck_assert_int_eq(cli_parse_time("00:15", at(2026, 12, 31, 23, 30, 0)), at(2027, 1, 1, 0, 15, 0));
        ck_assert_int_eq(cli_parse_time("00:15", at(2026, 2, 28, 23, 30, 0)), at(2026, 3, 1, 0, 15, 0));
        /* seconds of `now` do not leak into the result */
        ck_assert_int_eq(cli_parse_time("03:00", at(2026, 12, 4, 2, 0, 42)), at(2026, 12, 4, 3, 0, 0));
}
END_TEST

START_TEST(test_time_errors)
{
        static const char *const bad[] = {
                "", "@", "@0", "@-5", "@12x", "@1.5", "tomorrow", "3", "3pm", "24:00", "12:60",
                "-1:30", "12:-5", "2026-13-01 00:00", "2026-00-10 00:00", "2026-12-32 00:00",
                "2026-12-00 00:00", "2026-12-04 24:00", "2026-12-04 03:60", "2026-12-04 03:00:61",
                "2026-12-04 -1:00", "2026-12-04 03:00:-1", "2026-12-04 03:00 ", "2026-12-04",
                "2026-12-04 03", "2026/12/04 03:00", "03:00 ", "03:00:00x",
        };
        time_t now = at(2026, 12, 4, 2, 0, 0);
        ck_assert_int_eq(cli_parse_time(NULL, now), -1);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                ck_assert_msg(cli_parse_time(bad[i], now) == -1, "'%s' should be refused, got %lld", bad[i],
                              (long long)cli_parse_time(bad[i], now));
}
END_TEST

static void json_is(const char *in, const char *want)
{
        char *got = cli_json_string(in);
        ck_assert_str_eq(got, want);
        g_free(got);
}

START_TEST(test_json_string)
{
        json_is("", "\"\"");
        json_is("plain text", "\"plain text\"");
        json_is("say \"hi\"", "\"say \\\"hi\\\"\"");
        json_is("C:\\path", "\"C:\\\\path\"");
        json_is("a\nb\tc", "\"a\\nb\\tc\"");
        json_is("\r\x01\x1f", "\"\\u000d\\u0001\\u001f\"");
        json_is("\x7f", "\"\x7f\"");                         /* DEL is allowed raw in JSON */
        json_is("caf\xc3\xa9 \xe2\x98\x95", "\"caf\xc3\xa9 \xe2\x98\x95\"");   /* UTF-8 passes through */
        json_is("/slash/", "\"/slash/\"");
}
END_TEST

static void duration_is(uint64_t ms, const char *want)
{
        char *got = cli_format_duration_ms(ms);
        ck_assert_str_eq(got, want);
        g_free(got);
}

START_TEST(test_reason)
{
        char long_line[600];
        g_autofree char *plain = cli_reason("make -j8");
        g_autofree char *ctl = cli_reason("a\nb\tc");
        g_autofree char *bad = cli_reason("x\xffy");
        g_autofree char *cut = NULL, *exact = NULL, *utf8 = NULL;
        ck_assert_str_eq(plain, "make -j8");
        ck_assert_str_eq(ctl, "a b c");
        ck_assert_str_eq(bad, "x?y");
        {
                g_autofree char *c1 = cli_reason("a\xc2\x85" "b\xc2\xa0" "c");   /* NEL is C1, NBSP is not */
                ck_assert_str_eq(c1, "a b\xc2\xa0" "c");
        }
        memset(long_line, 'x', sizeof long_line - 1);
        long_line[sizeof long_line - 1] = '\0';
        cut = cli_reason(long_line);
        ck_assert_uint_eq(strlen(cut), CLI_REASON_MAX);
        ck_assert(g_str_has_suffix(cut, "..."));
        long_line[CLI_REASON_MAX] = '\0';   /* exactly the limit: kept whole */
        exact = cli_reason(long_line);
        ck_assert_str_eq(exact, long_line);
        /* cut at a character boundary: 2-byte characters, never half of one */
        {
                GString *g = g_string_new(NULL);
                for (int i = 0; i < 200; i++)
                        g_string_append(g, "\xc3\xa9");
                utf8 = cli_reason(g->str);
                g_string_free(g, TRUE);
        }
        ck_assert(strlen(utf8) <= CLI_REASON_MAX);
        ck_assert(g_utf8_validate(utf8, -1, NULL));
        ck_assert(g_str_has_suffix(utf8, "\xc3\xa9..."));
}
END_TEST

START_TEST(test_json_types)
{
        ck_assert(cli_json_is_number("alarm", "id", "3"));
        ck_assert(cli_json_is_number("counters", "blockers", "12"));
        ck_assert(!cli_json_is_number("alarm", "name", "2024"));     /* a name made of digits */
        ck_assert(!cli_json_is_number("blocker", "reason", "42"));
        ck_assert(!cli_json_is_number("resumed", "alarm", "2024"));  /* the alarm's name there */
        ck_assert(cli_json_is_number("alarm-fired", "alarm", "7"));  /* its id here */
        ck_assert(!cli_json_is_number("daemon", "version", "0.1.0"));
        ck_assert(!cli_json_is_number("alarm", "id", "007"));
        ck_assert(!cli_json_is_number("alarm", "id", ""));
}
END_TEST

START_TEST(test_format_duration)
{
        duration_is(0, "0 ms");
        duration_is(999, "999 ms");
        duration_is(1000, "1.0s");
        duration_is(1500, "1.5s");
        duration_is(59999, "59.9s");
        duration_is(60000, "1m 00s");
        duration_is(200000, "3m 20s");
        duration_is(3599999, "59m 59s");
        duration_is(3600000, "1h 00m");
        duration_is(5400000, "1h 30m");
        duration_is(86399999, "23h 59m");
        duration_is(86400000, "1d 0h");
        duration_is(90061000, "1d 1h");
        duration_is(UINT64_MAX, "213503982334d 14h");
}
END_TEST

int main(void)
{
        Suite *s = suite_create("cli");
        TCase *tc = tcase_create("cli");

        setenv("TZ", "UTC", 1);
        tzset();
        tcase_add_test(tc, test_duration);
        tcase_add_test(tc, test_duration_errors);
        tcase_add_test(tc, test_timeout);
        tcase_add_test(tc, test_time_absolute);
        tcase_add_test(tc, test_time_of_day);
        tcase_add_test(tc, test_time_errors);
        tcase_add_test(tc, test_json_string);
        tcase_add_test(tc, test_format_duration);
        tcase_add_test(tc, test_reason);
        tcase_add_test(tc, test_json_types);
        return run_tap(s, tc);
}
