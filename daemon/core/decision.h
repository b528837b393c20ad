/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision.h — the daemon's policy as pure functions: state in, next action out.
 * Tested on their own (tests/unit/test-decision.c); attempt.c only gathers the inputs. */
#ifndef SUSPENDD_DECISION_H
#define SUSPENDD_DECISION_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
        ATTEMPT_KIND_APPLICATION, ATTEMPT_KIND_USER, ATTEMPT_KIND_IMMEDIATE, ATTEMPT_KIND_DARK,
} AttemptKind;

const char *attempt_kind_name(AttemptKind k);

typedef struct {
        bool shutting_down;
        bool attempt_active;
        bool immediate_mode;
        bool backing_off;
        bool user_request, app_request, dark_pending;
        size_t blockers;          /* clients, alarm holds, unanswered readable fds */
        bool disabled;
        bool alarm_due_soon;      /* an alarm within the guard interval */
} DecisionInput;

typedef struct {
        bool start;
        AttemptKind kind;
        const char *why;          /* why not, or why this kind: for the debug log */
} Decision;

/* Should an attempt start now, and of which kind? */
Decision decide_next(const DecisionInput *in);

typedef struct {
        AttemptKind kind;
        size_t blockers;
        bool disabled;
        bool vetoed;
        bool fd_unanswered;       /* a readable fd's client did not answer in its budget */
        unsigned late_watchers;
        bool late_is_veto;        /* WatcherTimeout=veto */
        bool alarm_due_soon;
} CommitInput;

/* At COMMIT: NULL to go ahead, or the abort reason (a PROTOCOL.md §7 word). */
const char *decide_commit(const CommitInput *in);

/* Back-off after a failed attempt: doubles from `initial` to `max`. */
unsigned decide_backoff(unsigned current_ms, unsigned initial_ms, unsigned max_ms);

#endif
