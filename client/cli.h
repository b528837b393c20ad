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
};

/* "90", "90s", "5m", "2h", "1d", "1h30m" -> seconds. -1 on error. */
int64_t cli_parse_duration(const char *s);
/* "@UNIX", "YYYY-MM-DD HH:MM[:SS]", "YYYY-MM-DDTHH:MM[:SS]", "HH:MM" (next occurrence), local
 * time, relative to `now`. -1 on error. */
int64_t cli_parse_time(const char *s, time_t now);
/* JSON string literal of s (with quotes). */
char *cli_json_string(const char *s);
/* "3m 20s ago" style ages and durations for the human table. */
char *cli_format_duration_ms(uint64_t ms);

#endif
