/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cron.c — see cron.h. Fields: *, N, A-B, lists, and /STEP on * or ranges; DOW 7 = Sunday.
 * When both day-of-month and day-of-week are restricted, a day matching either fires (Vixie). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"

static const struct {
        const char *name;
        int lo, hi;
} fields[5] = {
        { "minute", 0, 59 }, { "hour", 0, 23 }, { "day of month", 1, 31 },
        { "month", 1, 12 }, { "day of week", 0, 7 },
};

static int parse_number(const char **p, int *v)
{
        char *end;
        long n;
        if (**p < '0' || **p > '9')
                return -EINVAL;
        n = strtol(*p, &end, 10);
        if (n > 1000)
                return -EINVAL;
        *v = (int)n;
        *p = end;
        return 0;
}

/* Parse one field (a comma list of items) into a bit mask. */
static int parse_field(const char *s, size_t len, int lo, int hi, uint64_t *mask, bool *restricted)
{
        char buf[128];
        const char *p;

        if (len == 0 || len >= sizeof buf)
                return -EINVAL;
        memcpy(buf, s, len);
        buf[len] = '\0';
        *mask = 0;
        /* Vixie: a field starting with an asterisk, also with a step, does not restrict */
        *restricted = buf[0] != '*';
        p = buf;
        for (;;) {
                int a, b, step = 1;
                if (*p == '*') {
                        a = lo, b = hi;
                        p++;
                } else {
                        if (parse_number(&p, &a) < 0)
                                return -EINVAL;
                        b = a;
                        if (*p == '-') {
                                p++;
                                if (parse_number(&p, &b) < 0)
                                        return -EINVAL;
                        }
                }
                if (*p == '/') {
                        p++;
                        if (parse_number(&p, &step) < 0 || step == 0)
                                return -EINVAL;
                        if (a == b && p[-1] != '*')
                                b = hi;   /* "5/15" means 5-hi/15, as in Vixie cron */
                }
                if (a < lo || b > hi || a > b)
                        return -EINVAL;
                for (int v = a; v <= b; v += step)
                        *mask |= 1ull << v;
                if (*p == '\0')
                        return 0;
                if (*p != ',')
                        return -EINVAL;
                p++;
        }
}

int cron_parse(const char *expr, CronSpec *out, char *err, size_t errlen)
{
        const char *p = expr;
        uint64_t masks[5];
        bool restricted[5];

        for (int i = 0; i < 5; i++) {
                size_t len;
                while (*p == ' ')
                        p++;
                len = strcspn(p, " ");
                if (parse_field(p, len, fields[i].lo, fields[i].hi, &masks[i], &restricted[i]) < 0) {
                        if (err)
                                snprintf(err, errlen, "bad %s field '%.*s' (allowed %d-%d)",
                                         fields[i].name, (int)(len > 32 ? 32 : len), p, fields[i].lo,
                                         fields[i].hi);
                        return -EINVAL;
                }
                p += len;
        }
        while (*p == ' ')
                p++;
        if (*p) {
                if (err)
                        snprintf(err, errlen, "more than five fields");
                return -EINVAL;
        }
        out->minutes = masks[0];
        out->hours = (uint32_t)masks[1];
        out->days = (uint32_t)masks[2];
        out->months = (uint16_t)masks[3];
        out->weekdays = (uint8_t)((masks[4] | (masks[4] >> 7)) & 0x7f);   /* 7 -> 0 */
        out->dom_restricted = restricted[2];
        out->dow_restricted = restricted[4];
        return 0;
}

static bool day_matches(const CronSpec *c, const struct tm *tm)
{
        bool dom = c->days & (1u << tm->tm_mday);
        bool dow = c->weekdays & (1u << tm->tm_wday);
        if (c->dom_restricted && c->dow_restricted)
                return dom || dow;
        return dom && dow;
}

int cron_next(const CronSpec *c, time_t after, time_t *next)
{
        struct tm tm;
        time_t t = after - (after % 60) + 60;    /* next whole minute */
        time_t limit = after + 8 * 366 * 86400LL;

        localtime_r(&t, &tm);
        while (t <= limit) {
                if (!(c->months & (1u << (tm.tm_mon + 1))) || !day_matches(c, &tm)) {
                        /* next day, 00:00 */
                        tm.tm_mday++;
                        tm.tm_hour = 0;
                        tm.tm_min = 0;
                } else if (!(c->hours & (1u << tm.tm_hour))) {
                        tm.tm_hour++;
                        tm.tm_min = 0;
                } else if (!(c->minutes & (1ull << tm.tm_min))) {
                        tm.tm_min++;
                } else {
                        *next = t;
                        return 0;
                }
                tm.tm_sec = 0;
                tm.tm_isdst = -1;
                {
                        time_t prev = t;
                        t = mktime(&tm);
                        if (t == (time_t)-1)
                                return -ERANGE;
                        /* Around DST changes mktime may normalise a wall time backwards; the
                         * search must only move forward in real time. */
                        if (t <= prev) {
                                t = prev + 60;
                                localtime_r(&t, &tm);
                        }
                }
        }
        return -ERANGE;
}
