/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c — see cli.h. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int64_t cli_parse_duration(const char *s)
{
        int64_t total = 0;

        if (!s || !*s)
                return -1;
        while (*s) {
                int64_t n = 0, unit = 1;
                if (!isdigit((unsigned char)*s))
                        return -1;
                while (isdigit((unsigned char)*s)) {
                        n = n * 10 + (*s++ - '0');
                        if (n > 100000000000LL)
                                return -1;
                }
                switch (*s) {
                case '\0': unit = 1; break;
                case 's': unit = 1; s++; break;
                case 'm': unit = 60; s++; break;
                case 'h': unit = 3600; s++; break;
                case 'd': unit = 86400; s++; break;
                default: return -1;
                }
                total += n * unit;
        }
        return total;
}

int64_t cli_parse_timeout(const char *s)
{
        size_t n = s ? strlen(s) : 0;
        int64_t ms;

        if (n > 2 && strcmp(s + n - 2, "ms") == 0) {
                g_autofree char *digits = g_strndup(s, n - 2);
                ms = cli_parse_duration(digits);   /* a bare number: here milliseconds */
                if (ms < 0 || strspn(digits, "0123456789") != n - 2)
                        return -1;
        } else {
                ms = cli_parse_duration(s);
                if (ms < 0)
                        return -1;
                ms *= 1000;
        }
        return ms > 86400000 ? -1 : ms;
}

int64_t cli_parse_time(const char *s, time_t now)
{
        struct tm tm;
        int y, mo, d, h, mi, sec = 0, n = 0;
        time_t t;

        if (!s || !*s)
                return -1;
        if (s[0] == '@') {
                char *end;
                long long v = strtoll(s + 1, &end, 10);
                return *end || end == s + 1 || v <= 0 ? -1 : v;
        }
        localtime_r(&now, &tm);
        if ((sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 ||
             sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 ||
             (sec = 0, sscanf(s, "%4d-%2d-%2d %2d:%2d%n", &y, &mo, &d, &h, &mi, &n) == 5) ||
             (sec = 0, sscanf(s, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) == 5)) &&
            s[n] == '\0') {
                /* %d accepts a sign: refuse "-1" rather than let mktime() normalise it */
                if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
                    sec < 0 || sec > 60)
                        return -1;
                tm.tm_year = y - 1900;
                tm.tm_mon = mo - 1;
                tm.tm_mday = d;
                tm.tm_hour = h;
                tm.tm_min = mi;
                tm.tm_sec = sec;
                tm.tm_isdst = -1;
                t = mktime(&tm);
                return t == (time_t)-1 ? -1 : (int64_t)t;
        }
        if (sscanf(s, "%2d:%2d%n", &h, &mi, &n) == 2 && s[n] == '\0') {
                if (h < 0 || h > 23 || mi < 0 || mi > 59)
                        return -1;
                tm.tm_hour = h;
                tm.tm_min = mi;
                tm.tm_sec = 0;
                tm.tm_isdst = -1;
                t = mktime(&tm);
                if (t <= now) {   /* already past today: tomorrow */
                        tm.tm_mday++;
                        tm.tm_hour = h;
                        tm.tm_min = mi;
                        tm.tm_isdst = -1;
                        t = mktime(&tm);
                }
                return t == (time_t)-1 ? -1 : (int64_t)t;
        }
        return -1;
}

char *cli_reason(const char *text)
{
        GString *out = g_string_new(NULL);
        const char *p = text, *end = text + strlen(text);
        gsize cut;

        while (p < end) {
                gunichar ch = g_utf8_get_char_validated(p, end - p);
                if (ch == (gunichar)-1 || ch == (gunichar)-2) {
                        ch = '?';
                        p++;
                } else {
                        p = g_utf8_next_char(p);
                }
                /* C0, DEL and C1 are control characters to the protocol (PROTOCOL.md §3) */
                g_string_append_unichar(out, ch < 0x20 || (ch >= 0x7f && ch <= 0x9f) ? ' ' : ch);
        }
        if (out->len <= CLI_REASON_MAX)
                return g_string_free(out, FALSE);
        cut = CLI_REASON_MAX - 3;
        while (cut > 0 && (out->str[cut] & 0xc0) == 0x80)   /* not inside a character */
                cut--;
        g_string_truncate(out, cut);
        g_string_append(out, "...");
        return g_string_free(out, FALSE);
}

gboolean cli_json_is_number(const char *type, const char *key, const char *value)
{
        static const char *const integer_keys[] = {
                "id", "client", "pid", "uid", "owner", "since", "started", "next", "at", "hold",
                "hold_ms", "fired", "attempt", "slept_ms", "duration_ms", "deadline_ms", "budget_ms",
                "late", "asked", "notify_us", "backoff_ms", "items", "version", "attempts",
                "suspends", "aborts", "dark_resumes", "clients", "blockers", "late_watchers",
                "holders", "alarm",
        };
        gboolean known = FALSE;

        for (size_t i = 0; i < G_N_ELEMENTS(integer_keys); i++)
                known = known || strcmp(key, integer_keys[i]) == 0;
        /* `alarm` is an id, except in `resumed` where it names the alarm that woke the machine */
        if (!known || (strcmp(key, "alarm") == 0 && strcmp(type, "resumed") == 0))
                return FALSE;
        return *value && strspn(value, "0123456789") == strlen(value) && strlen(value) < 16 &&
               (value[0] != '0' || !value[1]);
}

char *cli_json_string(const char *s)
{
        GString *out = g_string_new("\"");
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                switch (*p) {
                case '"': g_string_append(out, "\\\""); break;
                case '\\': g_string_append(out, "\\\\"); break;
                case '\n': g_string_append(out, "\\n"); break;
                case '\t': g_string_append(out, "\\t"); break;
                default:
                        if (*p < 0x20)
                                g_string_append_printf(out, "\\u%04x", *p);
                        else
                                g_string_append_c(out, (char)*p);
                }
        }
        g_string_append_c(out, '"');
        return g_string_free(out, FALSE);
}

char *cli_format_duration_ms(uint64_t ms)
{
        uint64_t s = ms / 1000;
        if (ms < 1000)
                return g_strdup_printf("%llu ms", (unsigned long long)ms);
        if (s < 60)
                return g_strdup_printf("%llu.%01llus", (unsigned long long)s, (unsigned long long)(ms % 1000) / 100);
        if (s < 3600)
                return g_strdup_printf("%llum %02llus", (unsigned long long)s / 60, (unsigned long long)s % 60);
        if (s < 86400)
                return g_strdup_printf("%lluh %02llum", (unsigned long long)s / 3600, (unsigned long long)(s % 3600) / 60);
        return g_strdup_printf("%llud %lluh", (unsigned long long)s / 86400, (unsigned long long)(s % 86400) / 3600);
}
