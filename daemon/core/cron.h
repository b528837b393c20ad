/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cron.h — 5-field cron expressions ("M H DOM MON DOW"), Vixie semantics, local time. */
#ifndef SUSPENDD_CRON_H
#define SUSPENDD_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef struct {
        uint64_t minutes;    /* bit n: minute n (0-59) */
        uint32_t hours;      /* 0-23 */
        uint32_t days;       /* bit n: day of month n (1-31) */
        uint16_t months;     /* bit n: month n (1-12) */
        uint8_t weekdays;    /* bit n: weekday n (0-6, Sunday 0) */
        bool dom_restricted, dow_restricted;
} CronSpec;

/* 0, or -EINVAL with `err` naming the field that is wrong. */
int cron_parse(const char *expr, CronSpec *out, char *err, size_t errlen);
/* The first matching minute strictly after `after` (local time). -ERANGE if none within 8
 * years (e.g. "0 0 30 2 *"). Minutes that do not exist in local time (DST gaps) are skipped. */
int cron_next(const CronSpec *spec, time_t after, time_t *next);

#endif
