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

/* What an attempt puts the machine into (PROTOCOL.md §6.7, `state`). */
typedef enum {
        SLEEP_SUSPEND,                 /* SleepState (mem or freeze) */
        SLEEP_HIBERNATE,               /* disk, /sys/power/disk as HibernateMode */
        SLEEP_HYBRID,                  /* disk with /sys/power/disk = suspend */
        SLEEP_SUSPEND_THEN_HIBERNATE,  /* suspend, the RTC at HibernateDelaySec, then hibernate */
} SleepState;

const char *sleep_state_name(SleepState s);
int sleep_state_from_name(const char *name, SleepState *out);   /* 0 or -EINVAL */

/* What the kernel and the system offer for hibernation, read through the sysfs seam. */
typedef struct HibernateFacts {
        bool disk_state;          /* "disk" in /sys/power/state */
        bool suspend_state;       /* the configured SleepState in /sys/power/state */
        bool disk_mode_suspend;   /* "suspend" in /sys/power/disk (hybrid sleep) */
        bool locked_down;         /* /sys/kernel/security/lockdown not at "none" */
        bool resume_device;       /* /sys/power/resume names a device (not 0:0) */
        bool rtc;                 /* an RTC with a wake alarm */
        bool swap;                /* an active swap area */
        unsigned long long swap_free_kib;   /* free swap, all areas */
        unsigned long long image_kib;       /* what the image would need: anonymous memory */
} HibernateFacts;

/* Why `state` cannot be used, as the `reason` word of an `unsupported` error (PROTOCOL.md §6.7),
 * with a sentence in *why; NULL if it can. */
const char *decide_sleep_unsupported(const HibernateFacts *f, SleepState s, const char **why);

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

/* At COMMIT: go ahead, or why not, in order of precedence. */
typedef enum {
        COMMIT_GO,
        COMMIT_DISABLED,
        COMMIT_BLOCKED,
        COMMIT_VETOED,
        COMMIT_FD_READABLE,
        COMMIT_WATCHER_TIMEOUT,
        COMMIT_ALARM_DUE,
} CommitVerdict;

CommitVerdict decide_commit(const CommitInput *in);
/* The abort reason a verdict ends the attempt with (a PROTOCOL.md §7 word); NULL for COMMIT_GO. */
const char *commit_verdict_reason(CommitVerdict v);

/* Back-off after a failed attempt: doubles from `initial` to `max`. */
unsigned decide_backoff(unsigned current_ms, unsigned initial_ms, unsigned max_ms);

#endif
