/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision.c — see decision.h. The rules of PROTOCOL.md §6–§7 in one place. */
#include <errno.h>
#include <string.h>

#include "decision.h"

const char *attempt_kind_name(AttemptKind k)
{
        switch (k) {
        case ATTEMPT_KIND_APPLICATION: return "application";
        case ATTEMPT_KIND_USER: return "user";
        case ATTEMPT_KIND_IMMEDIATE: return "immediate";
        case ATTEMPT_KIND_DARK: return "dark";
        }
        return "?";
}

const char *sleep_state_name(SleepState s)
{
        switch (s) {
        case SLEEP_SUSPEND: return "suspend";
        case SLEEP_HIBERNATE: return "hibernate";
        case SLEEP_HYBRID: return "hybrid";
        case SLEEP_SUSPEND_THEN_HIBERNATE: return "suspend-then-hibernate";
        }
        return "?";
}

int sleep_state_from_name(const char *name, SleepState *out)
{
        for (SleepState s = SLEEP_SUSPEND; s <= SLEEP_SUSPEND_THEN_HIBERNATE; s++)
                if (name && strcmp(name, sleep_state_name(s)) == 0)
                        return *out = s, 0;
        return -EINVAL;
}

/* The order is the order a user fixes them in: the kernel first, then the system's set-up. The
 * image estimate is systemd's (sleep-config.c): anonymous memory must fit in free swap, since
 * page cache is dropped, not written. */
const char *decide_sleep_unsupported(const HibernateFacts *f, SleepState s, const char **why)
{
        const char *r = NULL, *w = NULL;

        if (s == SLEEP_SUSPEND)
                return NULL;
        if (!f->disk_state)
                r = "no-disk-state", w = "the kernel offers no disk in /sys/power/state (built without "
                                         "CONFIG_HIBERNATION, or booted with nohibernate)";
        else if (f->locked_down)
                r = "lockdown", w = "kernel lockdown forbids hibernation";
        else if (s == SLEEP_HYBRID && !f->disk_mode_suspend)
                r = "no-hybrid", w = "the kernel offers no suspend in /sys/power/disk";
        else if (s != SLEEP_HIBERNATE && !f->suspend_state)
                r = "no-suspend-state", w = "the configured SleepState is not in /sys/power/state";
        else if (s == SLEEP_SUSPEND_THEN_HIBERNATE && !f->rtc)
                r = "no-rtc", w = "no RTC wake alarm to end the suspend at HibernateDelaySec";
        else if (!f->swap)
                r = "no-swap", w = "no active swap to write the image to";
        else if (f->swap_free_kib < f->image_kib)
                r = "swap-too-small", w = "free swap is smaller than the image would need";
        else if (!f->resume_device)
                r = "no-resume-device", w = "no resume= device in /sys/power/resume: the image would never be read back";
        if (why)
                *why = w;
        return r;
}

Decision decide_next(const DecisionInput *in)
{
        Decision d = { false, ATTEMPT_KIND_APPLICATION, NULL };

        if (in->shutting_down)
                return d.why = "shutting down", d;
        if (in->attempt_active)
                return d.why = "an attempt is in progress", d;
        if (in->disabled)
                return d.why = "suspend is disabled", d;
        /* A user request (lid, power key) is forced: blockers, back-off and alarms do not
         * delay it. Only disable stops it. */
        if (in->user_request) {
                d.start = true;
                d.kind = ATTEMPT_KIND_USER;
                return d.why = "user request", d;
        }
        if (in->blockers > 0)
                return d.why = "blocked", d;
        if (in->alarm_due_soon)
                return d.why = "an alarm is due within the guard interval", d;
        /* An explicit application request is not delayed by the back-off of earlier
         * automatic attempts; the back-off exists to stop the daemon spinning by itself. */
        if (in->app_request) {
                d.start = true;
                d.kind = ATTEMPT_KIND_APPLICATION;
                return d.why = "application request", d;
        }
        if (in->backing_off)
                return d.why = "backing off after a failed attempt", d;
        d.start = true;
        if (in->dark_pending) {
                d.kind = ATTEMPT_KIND_DARK;
                return d.why = "dark resume: the alarm's hold ended", d;
        }
        if (in->immediate_mode) {
                d.kind = ATTEMPT_KIND_IMMEDIATE;
                return d.why = "immediate mode and nothing blocks", d;
        }
        d.start = false;
        return d.why = "on-demand mode and nothing requested", d;
}

CommitVerdict decide_commit(const CommitInput *in)
{
        if (in->disabled)
                return COMMIT_DISABLED;
        if (in->kind == ATTEMPT_KIND_USER)
                return COMMIT_GO;   /* watchers were told; their wishes do not stop a user request */
        if (in->blockers > 0)
                return COMMIT_BLOCKED;
        if (in->vetoed)
                return COMMIT_VETOED;
        if (in->fd_unanswered)
                return COMMIT_FD_READABLE;
        if (in->late_watchers > 0 && in->late_is_veto)
                return COMMIT_WATCHER_TIMEOUT;
        if (in->alarm_due_soon)
                return COMMIT_ALARM_DUE;
        return COMMIT_GO;
}

const char *commit_verdict_reason(CommitVerdict v)
{
        switch (v) {
        case COMMIT_GO: return NULL;
        case COMMIT_DISABLED: return "disabled";
        case COMMIT_BLOCKED: return "blocked";
        case COMMIT_VETOED: return "vetoed";
        case COMMIT_FD_READABLE: return "fd-readable";
        case COMMIT_WATCHER_TIMEOUT: return "watcher-timeout";
        case COMMIT_ALARM_DUE: return "alarm-due";
        }
        return NULL;
}

unsigned decide_backoff(unsigned current_ms, unsigned initial_ms, unsigned max_ms)
{
        unsigned next = current_ms == 0 ? initial_ms : current_ms * 2;
        if (next > max_ms || next < current_ms)
                next = max_ms;
        return next;
}
