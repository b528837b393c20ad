/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h — the pure parts of suspendctl: parsing and formatting, unit-tested on their own. */
#ifndef SUSPENDCTL_CLI_H
#define SUSPENDCTL_CLI_H

#include <glib.h>
#include <stdint.h>
#include <time.h>

/* Exit codes (suspendctl(1)). */
enum {
        EXIT_REFUSED = 1,       /* the daemon refused, or the attempt aborted */
        EXIT_USAGE = 2,         /* bad arguments */
        EXIT_NOT_RUNNING = 3,   /* no daemon on the socket */
        EXIT_DENIED = 4,        /* the policy forbids it */
        EXIT_TIMEOUT = 5,       /* the daemon did not answer within the timeout */
};

/* "90", "90s", "5m", "2h", "1d", "1h30m" -> seconds. -1 on error. */
int64_t cli_parse_duration(const char *s);
/* --timeout: a duration as above or "Nms", at most 1d, -> milliseconds; "0" -> 0 (no limit).
 * -1 on error. */
int64_t cli_parse_timeout(const char *s);
/* "@UNIX", "YYYY-MM-DD HH:MM[:SS]", "YYYY-MM-DDTHH:MM[:SS]", "HH:MM" (next occurrence), local
 * time, relative to `now`. -1 on error. */
int64_t cli_parse_time(const char *s, time_t now);
/* A protocol reason (text of at most CLI_REASON_MAX bytes, no control characters) made from
 * free text such as a command line: control characters become spaces, invalid UTF-8 becomes
 * '?', and text that is too long is cut at a character boundary and ends in "...". */
#define CLI_REASON_MAX 256
char *cli_reason(const char *text);
/* Whether a field of a status item or event (`type` is its item type or event verb) is printed
 * as a JSON number: only the protocol's integer fields, so a name or reason made of digits
 * stays a string. */
gboolean cli_json_is_number(const char *type, const char *key, const char *value);
/* JSON string literal of s (with quotes). */
char *cli_json_string(const char *s);
/* "3m 20s ago" style ages and durations for the human table. */
char *cli_format_duration_ms(uint64_t ms);

#endif
