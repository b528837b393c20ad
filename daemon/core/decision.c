/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decision.c — see decision.h. The rules of PROTOCOL.md §6–§7 in one place. */
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

const char *decide_commit(const CommitInput *in)
{
        if (in->disabled)
                return "disabled";
        if (in->kind == ATTEMPT_KIND_USER)
                return NULL;   /* watchers were told; their wishes do not stop a user request */
        if (in->blockers > 0)
                return "blocked";
        if (in->vetoed)
                return "vetoed";
        if (in->fd_unanswered)
                return "fd-readable";
        if (in->late_watchers > 0 && in->late_is_veto)
                return "watcher-timeout";
        if (in->alarm_due_soon)
                return "alarm-due";
        return NULL;
}

unsigned decide_backoff(unsigned current_ms, unsigned initial_ms, unsigned max_ms)
{
        unsigned next = current_ms == 0 ? initial_ms : current_ms * 2;
        if (next > max_ms || next < current_ms)
                next = max_ms;
        return next;
}
